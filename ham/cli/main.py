"""The ``ham`` command (a Hydra app). ``ham`` alone runs the bundled demo."""
from __future__ import annotations

import json
import logging

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from ham.conf import CONF_DIR, ConfigError, check, instantiate_optional, plain, register
from ham.paths import resolve_path
from ham.report import write_run_artifacts
from ham.run.job import configured_run_id, hydra_runtime, record_failure, run
from ham.run.tracking import tracker

log = logging.getLogger("ham")


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _counts(counts: dict) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def metric_line(name: str, m: dict) -> str:
    """One metric as the console shows it: mean, n, and beside it why questions are missing:
    not computed (and why), judge failures with their reasons, the parts an average left out."""
    if not m.get("computed", True):
        return f"  {name:<18} not computed: {m.get('reason', '').removeprefix('not computed: ')}"
    line = f"  {name:<18} {_fmt(m['mean'])}  (n={m['n']}"
    if m.get("n_failed"):
        reasons = m.get("failure_reasons") or {}
        line += f"; {m['n_failed']} not judged" + (f": {_counts(reasons)}" if reasons else "")
    if m.get("parts") is not None:
        line += f"; mean of {', '.join(m['parts']) or 'nothing'}"
        if m.get("parts_left_out"):
            line += f"; without {', '.join(m['parts_left_out'])}"
        if m.get("n_partial"):
            line += f"; {m['n_partial']} questions over fewer parts"
    return line + ")"


def summary_lines(metrics: dict) -> list[str]:
    """The end-of-run summary: questions and failures by reason, every metric, the offline
    stage's failed calls and fallbacks, and the cost (unknown when the server sent no usage)."""
    failures = metrics.get("failures") or {}
    head = f"run {metrics['run_id']}: {metrics['n_questions']} questions, {metrics['n_failures']} failures"
    lines = [head + (f" ({_counts(failures)})" if failures else "")]
    lines += [metric_line(name, m) for name, m in metrics["metrics"].items()]
    enrichment = metrics.get("enrichment") or {}
    for kind in ("summaries", "descriptions"):
        e = enrichment.get(kind)
        if e and e.get("failed"):
            lines.append(f"  {kind}: {e['failed']} of {e['requested']} calls to {e['backend']} failed "
                         f"({_counts(e.get('failure_reasons') or {})}); those use the fallback ({e['fallback']})")
    if enrichment.get("si_fallback_images"):
        lines.append(f"  images without a context-aware description: {enrichment['si_fallback_images']}")
    cost = metrics.get("cost") or {}
    if cost.get("cents_unknown"):
        lines.append(f"  cost: unknown ({cost['cents_unknown']})")
    elif cost.get("cents_total") is not None:
        lines.append(f"  cost: {cost['cents_total']:.2f} cents ({cost.get('pricing')} prices)")
    elif cost.get("questions_without_usage"):
        lines.append(f"  tokens: unknown for {cost['questions_without_usage']} replies (the server sent no usage)")
    return lines


register()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> None:
    choices, overrides = hydra_runtime(cfg)
    out_root = resolve_path(cfg.paths.output_root, must_exist=False)
    try:
        check(cfg)
        if choices.get("grid") and HydraConfig.initialized() and HydraConfig.get().mode != RunMode.MULTIRUN:
            raise ConfigError(f"grid={choices['grid']} is a sweep: launch it with `ham -m grid={choices['grid']} ...` "
                              "(without -m only its default cell would run)")
        config = plain(cfg)
        # the tracker always finishes (marked failed on an exception), so one bad run never breaks a grid
        logger = instantiate_optional(cfg.logger)
        with tracker(logger, config, configured_run_id(cfg), choices.get("grid") or str(cfg.name), out_root) as track:
            out_dir = run(cfg)
            artifacts = write_run_artifacts(out_dir)   # metrics.png/.pdf and report.html in the run folder
            track.log_run(out_dir)
    except BaseException as exc:
        if choices.get("grid"):   # every grid point leaves a record, also one that fails before it runs
            record_failure(cfg, choices["grid"], out_root, overrides, exc)
        raise
    metrics = json.loads((out_dir / "metrics.json").read_text())
    print("\n" + "\n".join(summary_lines(metrics)))
    print(f"\nresults in {out_dir}/")
    for name in ("metrics.json", "predictions.jsonl", "config.yaml", "run.json"):
        print(f"  {out_dir / name}")
    print(f"  {artifacts['plot']}\n  {artifacts['report']}   (open in a browser)")


if __name__ == "__main__":
    main()


def cli() -> None:
    """The ``ham`` script. ``ham --cfg job ...`` prints the composed config without running
    anything, and Hydra does so before any job starts: the overrides are checked first (the same
    checks a run makes), so ``retrieval.k_t=-1`` is refused there too, naming the key."""
    import sys

    from hydra._internal.utils import get_args_parser

    from ham.cli.help import ham_help, wants_help
    from ham.conf import ConfigError, compose

    if wants_help(sys.argv[1:]):
        print(ham_help(), end="")
        return
    args, _ = get_args_parser().parse_known_args()
    if args.cfg and not args.multirun:
        try:
            compose(args.overrides, return_hydra_config=False)
        except ConfigError as exc:
            print(f"ham: {exc}", file=sys.stderr)
            sys.exit(2)
    main()
