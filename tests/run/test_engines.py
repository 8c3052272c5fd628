"""The engines a sharded index build runs its shards through (ham.run.engines): results in task
order, a failing shard reported by number with the others kept, a lost shard redone alone; the
engine group composes and never enters the run id. Ray and Slurm clusters: tests/run/
test_engines_ray.py and tests/slurm/test_engine_slurm.py (slow)."""
from dataclasses import dataclass

import pytest

from ham.cache import FolderCache
from ham.conf import ConfigError, compose
from ham.index.build import index_strings
from ham.index.dense import FlatSpec
from ham.index.shards import build_sharded
from ham.run.build import configured_engine
from ham.run.engines import LocalEngine, RayEngine, Recording, ShardFailure, ShardsFailed, SlurmEngine
from ham.run.identity import classes, run_id
from tests.support.shard_builds import WordEncoder, assert_same_index, corpus


@dataclass(frozen=True)
class Job:
    shard: int
    x: int


def square(job: Job) -> dict:
    if job.x < 0:
        raise ValueError(f"cannot square {job.x} here")
    return {"shard": job.shard, "value": job.x * job.x, "reused": False}


@pytest.mark.parametrize("engine", [LocalEngine(), pytest.param(SlurmEngine(cluster="local"), marks=pytest.mark.slow)],
                         ids=["local", "submitit-local"])
def test_results_come_back_in_task_order(engine, tmp_path):
    if isinstance(engine, SlurmEngine):
        engine.folder = str(tmp_path / "submitit" / "%j")
    jobs = [Job(i, x) for i, x in enumerate([5, 1, 4, 2])]
    assert [r["value"] for r in engine.map(square, jobs)] == [25, 1, 16, 4]
    assert engine.map(square, []) == []


@pytest.mark.parametrize("engine", [LocalEngine(), pytest.param(SlurmEngine(cluster="local"), marks=pytest.mark.slow)],
                         ids=["local", "submitit-local"])
def test_a_failing_shard_is_named_and_the_others_kept(engine, tmp_path):
    if isinstance(engine, SlurmEngine):
        engine.folder = str(tmp_path / "submitit" / "%j")
    jobs = [Job(10, 3), Job(11, -1), Job(12, 2)]
    with pytest.raises(ShardsFailed, match=r"1 of 3 shards failed \(shard 11: .*cannot square -1") as caught:
        engine.map(square, jobs)
    results = caught.value.results
    assert [r["value"] for r in (results[0], results[2])] == [9, 4]
    assert isinstance(results[1], ShardFailure) and results[1].shard == 11


def test_statuses_say_built_reused_and_a_lost_shard_is_redone_alone(tmp_path):
    ids, texts = corpus(90)
    encoder, cache = WordEncoder(), FolderCache(tmp_path / "cache")
    first = Recording(LocalEngine())
    built, _ = build_sharded(ids, texts, encoder, FlatSpec(), cache, shard_size=25, engine=first)
    assert [s["status"] for s in first.builds[0]] == ["built"] * 4
    single, _ = index_strings(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "single"))
    assert_same_index(single, built, encoder)

    lost = first.builds[0][2]["key"]
    FolderCache(tmp_path / "cache").path("shards", lost).rename(tmp_path / "gone")   # a lost shard
    again = Recording(LocalEngine())
    rebuilt, _ = build_sharded(ids, texts, encoder, FlatSpec(), cache, shard_size=25, engine=again)
    assert [s["status"] for s in again.builds[0]] == ["reused", "reused", "built", "reused"]
    assert again.info()["built"] == 1 and again.info()["reused"] == 3
    assert_same_index(single, rebuilt, encoder)


def test_the_engine_group_composes_each_engine_with_its_settings():
    assert isinstance(configured_engine(compose([], return_hydra_config=False)), LocalEngine)
    ray = configured_engine(compose(["engine=ray", "engine.address=auto", "engine.num_gpus=0.5",
                                     "engine.concurrency=4"], return_hydra_config=False))
    assert isinstance(ray, RayEngine) and (ray.address, ray.num_gpus, ray.concurrency) == ("auto", 0.5, 4)
    slurm = configured_engine(compose(["engine=slurm", "engine.partition=gpu", "engine.gpus_per_node=1",
                                       "paths.output_root=/shared/out"], return_hydra_config=False))
    assert isinstance(slurm, SlurmEngine) and (slurm.partition, slurm.gpus_per_node) == ("gpu", 1)
    assert slurm.folder == "/shared/out/submitit/index/%j"
    with pytest.raises(ConfigError, match="concurrency"):
        compose(["engine=ray", "engine.concurrency=0"], return_hydra_config=False)
    with pytest.raises(ConfigError, match="cluster"):
        compose(["engine=slurm", "engine.cluster=kubernetes"], return_hydra_config=False)


def test_the_engine_never_enters_the_run_id():
    base = run_id(compose([], return_hydra_config=False))
    for overrides in (["engine=ray"], ["engine=ray", "engine.address=auto", "engine.concurrency=8", "engine.num_gpus=1"],
                      ["engine=slurm"], ["engine=slurm", "engine.partition=gpu", "engine.mem_gb=64",
                                         "engine.timeout_min=600", "engine.array_parallelism=4"]):
        cfg = compose(overrides, return_hydra_config=False)
        assert run_id(cfg) == base, overrides
        engine_keys = {k: v for k, v in classes(cfg).items() if k.startswith("engine.")}
        assert engine_keys and set(engine_keys.values()) == {"exclude"}, engine_keys
