"""The demo grid end to end: every run of the sweep finishes, the grid folder lists them, a
relaunch skips finished runs, and W&B (offline) mirrors a run's metrics and tables."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ham.paths import PROJECT_ROOT

pytestmark = pytest.mark.slow
HAM = Path(sys.executable).parent / "ham"


def _ham(tmp_path, *args, env=None):
    cmd = [str(HAM), *args, f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
           "progress=false"]
    return subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=1200,
                          env=dict(os.environ, **(env or {})))


def test_demo_grid_runs_lists_and_resumes(tmp_path):
    first = _ham(tmp_path, "-m", "grid=demo", "limit=2")
    assert first.returncode == 0, first.stderr[-3000:]
    listed = sorted((tmp_path / "out" / "grids" / "demo" / "runs").glob("*.json"))
    assert len(listed) == 4
    entries = [json.loads(p.read_text()) for p in listed]
    assert {e["status"] for e in entries} == {"finished"}
    combos = {tuple(sorted(o for o in e["overrides"] if o.startswith(("text_repr", "image_repr")))) for e in entries}
    assert len(combos) == 4
    for e in entries:
        assert json.loads((Path(e["run_dir"]) / "metrics.json").read_text())["n_questions"] == 2
    before = {e["run_id"]: (Path(e["run_dir"]) / "predictions.jsonl").read_text() for e in entries}

    again = _ham(tmp_path, "-m", "grid=demo", "limit=2")
    assert again.returncode == 0, again.stderr[-3000:]
    assert (again.stdout + again.stderr).count("already finished") == 4
    for e in entries:
        assert (Path(e["run_dir"]) / "predictions.jsonl").read_text() == before[e["run_id"]]


def test_wandb_offline_mirror(tmp_path):
    secret = "sk-test-do-not-log-0123456789"
    # a secret in a real setting (the judge's key: the judge is configured, its metrics left out)
    done = _ham(tmp_path, "logger=wandb", "limit=2", "judge=openai", f"judge.client.api_key={secret}",
                "metrics.names=[image_f1,image_precision,image_recall]",
                env={"WANDB_MODE": "offline", "WANDB_API_KEY": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "wandb sync" in done.stdout
    runs = list((tmp_path / "out" / "wandb" / "wandb").glob("offline-run-*"))
    assert len(runs) == 1
    # the offline run file holds the config and summary records (protobuf, strings stored as is)
    record = next(runs[0].glob("*.wandb")).read_bytes()
    assert b"image_f1/mean" in record and b"n_questions" in record and b"text_repr" in record
    assert secret.encode() not in record
    tables = list((runs[0] / "files" / "media" / "table").glob("predictions_*.table.json"))
    assert tables and len(json.loads(tables[0].read_text())["data"]) == 2
    assert list((runs[0] / "files" / "media" / "html").glob("report_*.html"))
    run_dir = next((tmp_path / "out" / "runs" / "demo").iterdir())
    assert secret not in (run_dir / "config.yaml").read_text()
