"""A grid's folder lists its runs: ``outputs/grids/<grid>/runs/<run id>.json``, one small file per
run (so the array tasks of a SLURM grid never write to the same file), each with the run's
folder, the overrides that made it, its status and where it ran (SLURM job id when there is one).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ham.run.predictions import read, rewrite

SLURM_VARS = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT")


def slurm_ids() -> dict:
    return {k.lower(): os.environ[k] for k in SLURM_VARS if k in os.environ}


def current_job() -> str | None:
    """This process's scheduler job, the same across a requeue (SLURM keeps a requeued job's id,
    submitit's local executor its controller's), or None outside one."""
    env = os.environ
    if env.get("SLURM_ARRAY_JOB_ID"):
        return f"slurm:{env['SLURM_ARRAY_JOB_ID']}_{env.get('SLURM_ARRAY_TASK_ID', '')}"
    if env.get("SLURM_JOB_ID"):
        return f"slurm:{env['SLURM_JOB_ID']}"
    if env.get("SUBMITIT_LOCAL_JOB_ID"):
        return f"local:{env['SUBMITIT_LOCAL_JOB_ID']}"
    return None


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


# The redo rule, in one place: ``redo_reason`` says why a resumed run answers a row again,
# ``is_finished`` says a run with any such row (or an offline-stage call that a retry could fix)
# is not finished, and ``ham.run.runner.answer_all`` answers exactly those rows again.

METRICS_CHANGED = "metrics changed"


def redo_reason(row: dict, redo: frozenset | set, index: dict | None = None) -> str | None:
    """Why a resumed run answers this row again, or None to keep it:
        * its generation failed for a reason in ``redo`` (``run.redo_failures``);
        * a judge call of one of its metrics failed for such a reason (``judge api_error``);
        * it was answered under other index keys than ``index`` (the run's current ones): the
          summaries or descriptions behind the index changed, so its retrieval may differ;
        * it was scored under another version of the metrics' code (``METRICS_CHANGED``; a row
          that does not record one was scored before rows did): answered again with the reply
          the generation cache holds, so only its scores (and what retrieval now records) change.
    A row that does not record its index keys (older versions) is kept on that count."""
    failure = (row.get("failure") or {}).get("reason")
    if failure in redo:
        return failure
    for detail in ((row.get("metrics") or {}).get("judge") or {}).values():
        reason = (detail.get("error") or "").split(":", 1)[0]
        if reason in redo:
            return f"judge {reason}"
    if index and row.get("index") and row["index"] != index:
        return "index changed"
    if row.get("metrics") and row_metrics_version(row) != current_metrics_version():
        return METRICS_CHANGED
    return None


def current_metrics_version() -> str:
    from ham.metrics.registry import METRICS_VERSION

    return METRICS_VERSION


def row_metrics_version(row: dict) -> str:
    """The version of the metrics' code a row was scored under; "unrecorded" before rows said."""
    return str(row.get("metrics_version") or "unrecorded")


def metrics_changed(metrics: dict) -> str | None:
    """Why a finished run's scores may differ from what this code computes for the same rows, or
    None: ``metrics.json`` was written under another ``METRICS_VERSION`` (version 1 before it said)."""
    then, now = str(metrics.get("metrics_version") or "1"), current_metrics_version()
    return None if then == now else f"scored under metrics version {then}, the metrics are now version {now}"


def stamp_metrics_version(pred_path: Path, version: str) -> int:
    """Rows that do not record the metrics version they were scored under get ``version`` (the one
    their run's ``metrics.json`` names), so a resume that dies after the summary is set aside still
    knows which rows are scored under the old code. Returns how many rows were stamped."""
    if not pred_path.exists():
        return 0
    rows = list(read(pred_path).rows.values())
    todo = [r for r in rows if r.get("metrics") and not r.get("metrics_version")]
    for r in todo:
        r["metrics_version"] = version
    if todo:
        rewrite(pred_path, rows)
    return len(todo)


def enrichment_redo(run_info: dict, redo: frozenset | set) -> dict[str, int]:
    """Offline-stage calls (section summaries, image descriptions) recorded in ``run.json`` as
    failed for a reason in ``redo``: {"summaries": n, "descriptions": n}, only those with n > 0."""
    out = {}
    for kind in ("summaries", "descriptions"):
        failures = ((run_info.get("index") or {}).get(kind) or {}).get("failures") or []
        n = sum(1 for f in failures if str(f.get("error") or "").split(":", 1)[0] in redo)
        if n:
            out[kind] = n
    return out


def is_finished(run_dir: Path, n_questions: int, redo_failures: frozenset | set | tuple = ()) -> bool:
    """A run is finished when its metrics.json and predictions.jsonl cover every question, no row
    has a failure a resume answers again (``redo_reason``), and no summary or description call
    failed for such a reason (a resume asks them again, and redoes the rows whose index changed)."""
    metrics_path, pred_path = run_dir / "metrics.json", run_dir / "predictions.jsonl"
    if not (metrics_path.exists() and pred_path.exists()):
        return False
    redo = frozenset(redo_failures)
    try:
        metrics = json.loads(metrics_path.read_text())
        rows = list(read(pred_path).rows.values())   # a later row for an id supersedes an earlier one
        info = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    except json.JSONDecodeError:
        return False
    if metrics.get("n_questions") != n_questions or len(rows) != n_questions:
        return False
    if enrichment_redo(info, redo) or ingest_changed(info) or metrics_changed(metrics):
        return False
    # rows from before rows recorded their metrics version were scored under their summary's
    scored = str(metrics.get("metrics_version") or "1")
    return not any(redo_reason({"metrics_version": scored, **r}, redo) for r in rows)


def ingest_changed(run_info: dict) -> str | None:
    """Why a run's corpus may read differently now, or None: it was ingested under another
    ``INGEST_VERSION`` than this code's (or before run.json recorded one). Such a run is not
    finished: a relaunch reads the corpus again and answers again exactly the rows whose index
    changed (``redo_reason``), so a table never shows rows retrieved from the old reading."""
    from ham.ingest.corpus import INGEST_VERSION

    then = run_info.get("ingest_version")
    if then == INGEST_VERSION:
        return None
    return f"ingested under version {then or 'unrecorded'}, ingest is now version {INGEST_VERSION}"
