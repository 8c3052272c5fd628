"""A grid's folder lists its runs: ``outputs/grids/<grid>/runs/<run id>.json``, one small file per
run (so the array tasks of a SLURM grid never write to the same file), each with the run's
folder, the overrides that made it, its status and where it ran (SLURM job id when there is one).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

SLURM_VARS = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT")


def slurm_ids() -> dict:
    return {k.lower(): os.environ[k] for k in SLURM_VARS if k in os.environ}


def safe_name(name: str) -> str:
    """A run or grid name usable as one folder name (an override value with '/' must not nest)."""
    return str(name).replace("/", "_").replace("\\", "_").strip() or "run"


def record(out_root: Path, grid: str, run_id: str, run_dir: Path, overrides: list[str], status: str,
           **extra) -> Path:
    folder = out_root / "grids" / safe_name(grid) / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{run_id}.json"
    entry = {"run_id": run_id, "run_dir": str(run_dir), "overrides": list(overrides), "status": status,
             "updated": time.strftime("%Y-%m-%dT%H:%M:%S"), **slurm_ids(), **extra}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(entry, indent=2))
    tmp.replace(path)
    return path


def list_runs(out_root: Path, grid: str) -> list[dict]:
    folder = out_root / "grids" / safe_name(grid) / "runs"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


def is_finished(run_dir: Path, n_questions: int, redo_failures: tuple[str, ...] = ()) -> bool:
    """A run is finished when its metrics.json and predictions.jsonl cover every question and no
    question failed for a reason that a relaunch answers again (e.g. an exhausted request budget)."""
    metrics_path, pred_path = run_dir / "metrics.json", run_dir / "predictions.jsonl"
    if not (metrics_path.exists() and pred_path.exists()):
        return False
    try:
        metrics = json.loads(metrics_path.read_text())
        rows = [json.loads(line) for line in pred_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except json.JSONDecodeError:
        return False
    if metrics.get("n_questions") != n_questions or len({r.get("id") for r in rows}) != n_questions:
        return False
    return not any((r.get("failure") or {}).get("reason") in redo_failures for r in rows)
