"""The ``ham`` command (a Hydra app). ``ham`` alone runs the bundled demo."""
from __future__ import annotations

import json
import logging

import hydra
from omegaconf import DictConfig

from ham.conf import CONF_DIR, check, instantiate_optional, plain, register
from ham.paths import resolve_path
from ham.report import write_run_artifacts
from ham.run.job import hydra_runtime, run, run_id
from ham.run.tracking import tracker

log = logging.getLogger("ham")


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


register()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> None:
    check(cfg)
    choices, _ = hydra_runtime(cfg)
    out_root = resolve_path(cfg.paths.output_root, must_exist=False)
    config = plain(cfg)
    # the tracker always finishes (marked failed on an exception), so one bad run never breaks a grid
    logger = instantiate_optional(cfg.logger)
    with tracker(logger, config, run_id(cfg), choices.get("grid") or str(cfg.name), out_root) as track:
        out_dir = run(cfg)
        artifacts = write_run_artifacts(out_dir)   # metrics.png/.pdf and report.html in the run folder
        track.log_run(out_dir)
    metrics = json.loads((out_dir / "metrics.json").read_text())
    print(f"\nrun {metrics['run_id']}: {metrics['n_questions']} questions, {metrics['n_failures']} failures")
    for name, m in metrics["metrics"].items():
        print(f"  {name:<18} {_fmt(m['mean'])}  (n={m['n']})" + ("" if m.get("computed", True) else "  not computed"))
    print(f"\nresults in {out_dir}/")
    for name in ("metrics.json", "predictions.jsonl", "config.yaml", "run.json"):
        print(f"  {out_dir / name}")
    print(f"  {artifacts['plot']}\n  {artifacts['report']}   (open in a browser)")


if __name__ == "__main__":
    main()
