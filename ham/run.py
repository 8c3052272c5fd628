"""The ``ham`` command (a Hydra app). ``ham`` alone runs the bundled demo."""
from __future__ import annotations

import json
import logging

import hydra
from omegaconf import DictConfig

from ham.paths import PROJECT_ROOT
from ham.pipeline import run

log = logging.getLogger("ham")


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@hydra.main(version_base="1.3", config_path=str(PROJECT_ROOT / "conf"), config_name="config")
def main(cfg: DictConfig) -> None:
    out_dir = run(cfg)
    metrics = json.loads((out_dir / "metrics.json").read_text())
    print(f"\nrun {metrics['run_id']}: {metrics['n_questions']} questions, {metrics['n_failures']} failures")
    for name, m in metrics["metrics"].items():
        print(f"  {name:<18} {_fmt(m['mean'])}  (n={m['n']})")
    print(f"\nresults in {out_dir}/")
    for name in ("metrics.json", "predictions.jsonl", "config.yaml", "run.json"):
        print(f"  {out_dir / name}")


if __name__ == "__main__":
    main()
