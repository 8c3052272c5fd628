"""The ``ham`` command (a Hydra app). ``ham`` alone runs the bundled demo."""
from __future__ import annotations

import json
import logging

import hydra
from omegaconf import DictConfig, OmegaConf

from analysis.cli import write_run_artifacts
from ham.paths import PROJECT_ROOT, resolve_path
from ham.run.pipeline import run, run_id
from ham.run.tracking import tracker

log = logging.getLogger("ham")


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@hydra.main(version_base="1.3", config_path=str(PROJECT_ROOT / "conf"), config_name="config")
def main(cfg: DictConfig) -> None:
    out_root = resolve_path(cfg.paths.output_root, must_exist=False)
    config = OmegaConf.to_container(cfg, resolve=True)
    # the tracker always finishes (marked failed on an exception), so one bad run never breaks a grid
    with tracker(cfg.get("logger"), config, run_id(cfg), cfg.get("grid") or str(cfg.name), out_root) as track:
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
