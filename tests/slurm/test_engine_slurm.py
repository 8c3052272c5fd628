"""engine=slurm on the single-node Slurm test cluster (slurm/local_cluster.sh, the fixture of
test_local_cluster.py): the shards run as one submitit job array, the merged index equals the
in-process build, and a lost shard is rebuilt alone on rerun."""
import os
import re
import subprocess
import time

import pytest

from ham.cache import FolderCache
from ham.index.dense import FlatSpec
from ham.index.shards import build_sharded, remove_shard
from ham.paths import PROJECT_ROOT
from ham.run.engines import LocalEngine, Recording, SlurmEngine
from tests.slurm.test_local_cluster import cluster  # noqa: F401  (the module's cluster fixture)
from tests.support.shard_builds import WordEncoder, assert_same_index, corpus

pytestmark = [pytest.mark.slow, pytest.mark.slurm]


def test_a_slurm_array_build_equals_the_in_process_one(cluster, tmp_path, monkeypatch):  # noqa: F811
    for key, value in cluster.items():   # SLURM_CONF: where sbatch, squeue and sacct find the cluster
        monkeypatch.setenv(key, value)
    # the jobs import ham and the test encoder (tests.support) as this process does
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])))
    ids, texts = corpus(100)
    encoder = WordEncoder()
    local, _ = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "local"), shard_size=25,
                             engine=LocalEngine())

    def engine():
        return Recording(SlurmEngine(folder=str(tmp_path / "submitit" / "%j"), cpus_per_task=1, mem_gb=1,
                                     timeout_min=10, array_parallelism=4, job_name="ham-index-test"))

    first = engine()
    on_slurm, _ = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "slurm"), shard_size=25,
                                engine=first)
    assert [s["status"] for s in first.builds[0]] == ["built"] * 4
    jobs = sorted(p.name for p in (tmp_path / "submitit").iterdir() if re.fullmatch(r"\d+_\d+", p.name))
    assert len(jobs) == 4 and len({j.split("_")[0] for j in jobs}) == 1, jobs   # one Slurm array of four jobs
    deadline, states = time.time() + 120, []
    while time.time() < deadline:   # a job's result file is written before Slurm's accounting says it ended
        states = subprocess.run(["sacct", "-n", "-X", "-j", jobs[0].split("_")[0], "-o", "State"], env=cluster,
                                capture_output=True, text=True).stdout.split()
        if len(states) == 4 and "RUNNING" not in states and "PENDING" not in states:
            break
        time.sleep(2)
    assert states == ["COMPLETED"] * 4, states
    assert_same_index(local, on_slurm, encoder)

    remove_shard(tmp_path / "slurm", first.builds[0][1]["key"])   # a lost shard
    again = engine()
    rebuilt, _ = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "slurm"), shard_size=25,
                               engine=again)
    assert [s["status"] for s in again.builds[0]] == ["reused", "built", "reused", "reused"]
    assert_same_index(local, rebuilt, encoder)


def test_ham_index_engine_slurm_equals_engine_local(cluster, tmp_path, monkeypatch, capsys):  # noqa: F811
    from tests.run.test_engines_ray import _cli_build, assert_same_cli_indexes

    for key, value in cluster.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])))
    local = _cli_build(tmp_path / "local", monkeypatch, capsys)
    on_slurm = _cli_build(tmp_path / "slurm", monkeypatch, capsys, "engine=slurm", "engine.cpus_per_task=1",
                          "engine.mem_gb=2", "engine.timeout_min=10")
    assert on_slurm["engine"]["name"] == "slurm" and on_slurm["engine"]["failed"] == 0
    assert on_slurm["engine"]["built"] == local["engine"]["built"] > 0
    assert list((tmp_path / "slurm" / "submitit" / "index").iterdir())   # the jobs' folders: engine.folder's default
    assert_same_cli_indexes(tmp_path / "local", local, tmp_path / "slurm", on_slurm)
