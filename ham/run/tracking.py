"""Experiment tracking: a mirror of a run's outputs in Weights & Biases (``logger=wandb``).

The source of truth is always ``outputs/runs/<name>/<run id>/``; W&B gets the resolved config
(secrets redacted), summary metrics, a per-question table, and the run's plots and report when
they exist. Offline by default (``WANDB_MODE=offline``, files under ``outputs/wandb``); the
``wandb sync`` line is printed. ``finish()`` always runs, with a non-zero exit code when the run
failed, so one failed run never breaks a grid. ``logger=none`` turns all of this off.
"""
from __future__ import annotations

import json
import logging
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Iterator

from ham.run.predictions import read
from ham.settings import Doc, OneOf

log = logging.getLogger("ham.run.tracking")
# a key that names a secret: it ends in api_key, token, secret, password, passwd or authorization
# (hf_token, client_secret, OPENAI_API_KEY), but not max_tokens or api_key_env (the variable's name)
_SECRET_KEY = re.compile(r"(?:^|[_.-])(?:api[_-]?key|apikey|token|secret|password|passwd|authorization|credentials?)$",
                         re.I)
REDACTED = "***redacted***"


def redact(obj):
    """A copy of a config container with the value of every secret-looking key replaced."""
    if isinstance(obj, dict):
        return {k: (REDACTED if _SECRET_KEY.search(str(k)) and isinstance(v, str) and v else redact(v))
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact(v) for v in obj]
    return obj


class NullTracker:
    """``logger=none``."""

    def log_run(self, out_dir: Path) -> None:
        pass


class WandbTracker:
    def __init__(self, run) -> None:
        self.run = run

    def log_run(self, out_dir: Path) -> None:
        import wandb

        metrics = json.loads((out_dir / "metrics.json").read_text())
        run_info = out_dir / "run.json"
        if run_info.exists():
            info = json.loads(run_info.read_text())
            self.run.config.update({"provenance": redact({k: info.get(k) for k in (
                "run_id", "choices", "corpus_hash", "encoder", "generator", "git", "slurm", "versions")})},
                allow_val_change=True)
        summary = {f"{name}/mean": m["mean"] for name, m in metrics.get("metrics", {}).items()}
        summary.update({f"{name}/n": m["n"] for name, m in metrics.get("metrics", {}).items()})
        summary.update({"n_questions": metrics.get("n_questions"), "n_failures": metrics.get("n_failures")})
        self.run.summary.update({k: v for k, v in summary.items() if v is not None})
        found = read(out_dir / "predictions.jsonl")   # the one reading policy (torn and malformed lines)
        for problem in found.problems:
            log.warning("W&B predictions table: %s (line left out)", problem)
        rows = list(found.rows.values())
        names = sorted({k for r in rows for k in r.get("metrics", {})})
        table = wandb.Table(columns=["id", "question", "failure", *names])
        for r in rows:
            table.add_data(r["id"], r["question"], (r.get("failure") or {}).get("reason"),
                           *[r["metrics"].get(n) for n in names])
        self.run.log({"predictions": table})
        for png in sorted(out_dir.glob("*.png")):
            self.run.log({f"plots/{png.stem}": wandb.Image(str(png))})
        report = out_dir / "report.html"
        if report.exists():
            self.run.log({"report": wandb.Html(report.read_text(encoding="utf-8"))})


class WandbLogger:
    """``logger=wandb``: one W&B run per ham run (project, entity and mode from the config; the
    ``WANDB_MODE`` environment variable wins over ``mode``)."""

    def __init__(self, project: Annotated[str, Doc("the W&B project")] = "ham",
                 entity: Annotated[str | None, Doc("the W&B team or user")] = None,
                 mode: Annotated[str, OneOf("offline", "online", "disabled"),
                                 Doc("offline writes under outputs/wandb (wandb sync uploads it)")] = "offline") -> None:
        self.project, self.entity, self.mode = project, entity, mode

    @contextmanager
    def start(self, config: dict, run_id: str, group: str | None, out_root: Path) -> Iterator[WandbTracker]:
        import wandb

        mode = os.environ.get("WANDB_MODE") or self.mode
        wandb_dir = out_root / "wandb"
        wandb_dir.mkdir(parents=True, exist_ok=True)
        # one ham run is one W&B run: a relaunch, a resume or a requeued job logs into it again
        # (a fresh id per launch had made one run several, the interrupted ones marked failed)
        run = wandb.init(project=self.project, entity=self.entity, group=group, name=run_id,
                         id=run_id, resume="allow", config=redact(config), dir=str(wandb_dir), mode=mode,
                         reinit="finish_previous",
                         # W&B's own metadata would record sys.argv, where a key passed as an override
                         # would leak; ham's run.json carries provenance (git, versions, SLURM ids)
                         settings=wandb.Settings(x_disable_meta=True))
        failed = True
        try:
            yield WandbTracker(run)
            failed = False
        finally:
            run_dir = Path(run.dir).parent if run.dir else None
            run.finish(exit_code=1 if failed else 0)
            if mode == "offline" and run_dir is not None:
                print(f"wandb: offline run saved; upload with: wandb sync {run_dir}")


@contextmanager
def tracker(logger: WandbLogger | None, config: dict, run_id: str, group: str | None, out_root: Path) -> Iterator:
    """Yield a tracker for one run (``logger`` None: ``logger=none``); always finish it, marking
    failures, so one failed run never breaks a grid."""
    if logger is None:
        yield NullTracker()
        return
    with logger.start(config, run_id, group, out_root) as track:
        yield track
