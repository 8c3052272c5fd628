"""The demo ablation grid on a real single-node Slurm cluster (slurm/local_cluster.sh), launched
through hydra-submitit-launcher, and a cancelled job reported as failed instead of waited on."""
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ham.paths import PROJECT_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.slurm]
SCRIPT = PROJECT_ROOT / "slurm" / "local_cluster.sh"
HAM = Path(sys.executable).parent / "ham"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("the local Slurm cluster needs root and apt-get (Debian)")
    state = tmp_path_factory.mktemp("slurm")
    env = dict(os.environ, HAM_SLURM_DIR=str(state))
    up = subprocess.run([str(SCRIPT), "up"], env=env, capture_output=True, text=True, timeout=600)
    assert up.returncode == 0, up.stderr
    env["SLURM_CONF"] = str(state / "slurm.conf")
    yield env
    subprocess.run([str(SCRIPT), "down"], env=env, capture_output=True, text=True, timeout=120)


def _grid(env, tmp_path, *overrides, **kw):
    # a fresh submitit folder per launch: job ids restart with the cluster and stale results
    # from an earlier cluster must never be picked up
    folder = tmp_path / f"submitit-{uuid.uuid4().hex[:6]}"
    cmd = [str(HAM), "-m", "hydra/launcher=submitit_slurm", "hydra.launcher.cpus_per_task=1",
           "hydra.launcher.timeout_min=20", f"hydra.launcher.submitit_folder={folder}/%j",
           f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
           "progress=false", *overrides]
    return subprocess.Popen(cmd, env=env, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, **kw)


def test_ablation_grid_runs_to_completion(cluster, tmp_path):
    proc = _grid(cluster, tmp_path, "text_repr=ct,st", "image_repr=si,li", "limit=2")
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    runs = sorted((tmp_path / "out" / "runs" / "demo").iterdir())
    assert len(runs) == 4
    combos = set()
    for run in runs:
        metrics = json.loads((run / "metrics.json").read_text())
        assert metrics["n_questions"] == 2
        choices = json.loads((run / "run.json").read_text())["choices"]
        combos.add((choices["text_repr"], choices["image_repr"]))
    assert combos == {("ct", "si"), ("ct", "li"), ("st", "si"), ("st", "li")}


def test_cancelled_job_is_reported_failed_not_waited_on(cluster, tmp_path):
    # SmolLM2 over every demo question keeps the job busy long enough to cancel it
    proc = _grid(cluster, tmp_path, "generator=smollm2", "name=cancel_me", "hydra.launcher.name=cancel_me")
    deadline = time.time() + 300
    job = ""
    while time.time() < deadline and not job:
        job = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-n", "cancel_me", "-o", "%i"], env=cluster,
                             capture_output=True, text=True).stdout.strip()
        time.sleep(1)
    assert job, "the grid's job never started"
    subprocess.run(["scancel", job.split()[0]], env=cluster, check=True)
    out, _ = proc.communicate(timeout=180)   # would hang forever if the state were invisible
    assert proc.returncode != 0
    assert "CANCELLED" in out, out[-3000:]


def test_submit_grid_runs_the_driver_as_a_job(cluster, tmp_path):
    env = dict(cluster, HAM_BIN=str(HAM), HAM_DRIVER_LOGS=str(tmp_path / "logs"), HAM_SLURM_CPUS="1",
               HAM_SLURM_MEM_GB="1", HAM_DRIVER_TIME="00:30:00")
    submitted = subprocess.run(
        [str(PROJECT_ROOT / "slurm" / "submit_grid.sh"), "demo", "slurm_cpu", "limit=1", "progress=false",
         f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
         f"hydra.launcher.submitit_folder={tmp_path / 'submitit'}/%j"],
        env=env, capture_output=True, text=True, timeout=60)
    assert submitted.returncode == 0, submitted.stderr
    driver = submitted.stdout.split("Submitted batch job")[1].split()[0]
    deadline = time.time() + 900
    state = ""
    while time.time() < deadline:
        state = subprocess.run(["sacct", "-n", "-X", "-j", driver, "-o", "State"], env=cluster,
                               capture_output=True, text=True).stdout.strip()
        if state and state.split()[0] in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"):
            break
        time.sleep(3)
    log = "".join(p.read_text() for p in (tmp_path / "logs").glob("driver-*.log"))
    assert state.startswith("COMPLETED"), log[-3000:]
    listed = [json.loads(p.read_text()) for p in (tmp_path / "out" / "grids" / "demo" / "runs").glob("*.json")]
    assert len(listed) == 4 and {e["status"] for e in listed} == {"finished"}
    assert all(e.get("slurm_array_job_id") for e in listed)


def test_requeued_job_resumes_from_its_written_predictions(cluster, tmp_path):
    """Slurm interrupts and requeues a running job (as preemption does); the run picks up where
    its predictions.jsonl stopped, with no question lost or answered twice."""
    proc = _grid(cluster, tmp_path, "generator=smollm2", "limit=5", "name=requeue_me",
                 "hydra.launcher.name=requeue_me")
    deadline = time.time() + 600
    written: list[str] = []
    while time.time() < deadline and len(written) < 2:
        preds = list((tmp_path / "out" / "runs" / "requeue_me").glob("*/predictions.jsonl"))
        written = preds[0].read_text().splitlines() if preds else []
        time.sleep(1)
    assert len(written) >= 2, "the run never wrote two predictions"
    job = subprocess.run(["squeue", "-h", "-n", "requeue_me", "-o", "%i"], env=cluster,
                         capture_output=True, text=True).stdout.split()[0]
    subprocess.run(["scontrol", "requeue", job], env=cluster, check=True)
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    rows = [json.loads(line) for line in preds[0].read_text().splitlines()]
    assert len(rows) == 5 and len({r["id"] for r in rows}) == 5
    assert rows[:2] == [json.loads(line) for line in written[:2]]   # kept, not redone
    history = subprocess.run(["sacct", "-D", "-X", "-n", "-j", job, "-o", "State"], env=cluster,
                             capture_output=True, text=True).stdout
    assert "REQUEUED" in history, history
