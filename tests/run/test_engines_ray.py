"""engine=ray on a real Ray cluster on this machine: a head and two worker nodes of one CPU each
(``ray.cluster_utils.Cluster``). The sharded build through Ray Data's actor pool equals the
in-process one (same ids, same scores to float tolerance), a lost shard is redone alone, and a
failing shard is named with the others kept."""
import os

import pytest

from ham.cache import FolderCache
from ham.index.dense import FlatSpec
from ham.index.shards import build_sharded, remove_shard
from ham.paths import PROJECT_ROOT
from ham.run.engines import LocalEngine, RayEngine, Recording, ShardFailure, ShardsFailed
from tests.support.shard_builds import WordEncoder, assert_same_index, corpus

pytestmark = pytest.mark.slow
pytest.importorskip("ray.data", reason="engine=ray needs Ray Data: pip install 'ham[ray]'")
NODE_MEMORY = 200 * 2**20   # object store per node: two cores and little memory are shared here


@pytest.fixture(scope="module")
def ray_cluster():
    from ray.cluster_utils import Cluster

    # the nodes' workers import ham and the test encoder (tests.support) as this process does
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), *([saved] if saved else [])])
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": NODE_MEMORY,
                                                            "include_dashboard": False})
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1, object_store_memory=NODE_MEMORY)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def test_a_ray_built_index_equals_the_in_process_one_and_a_lost_shard_is_redone_alone(ray_cluster, tmp_path):
    import ray

    ids, texts = corpus(150)
    encoder = WordEncoder()
    local, _ = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "local"), shard_size=25,
                             engine=LocalEngine())
    first = Recording(RayEngine(address=ray_cluster.address, concurrency=3))
    on_ray, info = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "ray"), shard_size=25,
                                 engine=first)
    assert not ray.is_initialized()   # the engine connected for the build and let go after it
    assert [s["status"] for s in first.builds[0]] == ["built"] * 6 and info["shards_reused"] == 0
    assert_same_index(local, on_ray, encoder)

    remove_shard(tmp_path / "ray", first.builds[0][3]["key"])   # a lost shard
    again = Recording(RayEngine(address=ray_cluster.address, concurrency=3))
    rebuilt, _ = build_sharded(ids, texts, encoder, FlatSpec(), FolderCache(tmp_path / "ray"), shard_size=25,
                               engine=again)
    assert [s["status"] for s in again.builds[0]] == ["reused"] * 3 + ["built"] + ["reused"] * 2
    assert_same_index(local, rebuilt, encoder)


def test_a_failing_shard_on_ray_is_named_and_the_others_kept(ray_cluster):
    from tests.run.test_engines import Job, square

    with pytest.raises(ShardsFailed, match=r"engine=ray: 1 of 4 shards failed \(shard 2: ValueError: cannot square -5"
                       ) as caught:
        RayEngine(address=ray_cluster.address, concurrency=2).map(square, [Job(i, -5 if i == 2 else i) for i in range(4)])
    results = caught.value.results
    assert [r["value"] for r in results if not isinstance(r, ShardFailure)] == [0, 1, 9]
    assert isinstance(results[2], ShardFailure) and "Traceback" in results[2].detail


def _cli_build(tmp_path, monkeypatch, capsys, *overrides):
    import sys

    from tests.cli.test_index_engines import index_args, summary
    from ham.cli.index import index_main

    monkeypatch.setattr(sys, "argv", index_args(tmp_path, "index.shard_size=4", *overrides))
    index_main()
    return summary(capsys.readouterr().out)


def assert_same_cli_indexes(a_root, a: dict, b_root, b: dict) -> None:
    """Two ham-index builds (their JSON and output roots) made the same merged indexes."""
    from ham.index.encoders import SentenceTransformerEncoder
    from ham.index.shards import load_sharded

    encoder = SentenceTransformerEncoder("minilm", device="cpu")
    for modality in ("text", "image"):
        assert a[modality]["key"] == b[modality]["key"]   # the same shard keys, in order, x the index settings
        one, two = (load_sharded(root / "cache" / "sharded" / info[modality]["key"], root / "cache")
                    for root, info in ((a_root, a), (b_root, b)))
        assert_same_index(one, two, encoder)


def test_ham_index_engine_ray_equals_engine_local(ray_cluster, tmp_path, monkeypatch, capsys):
    local = _cli_build(tmp_path / "local", monkeypatch, capsys)
    on_ray = _cli_build(tmp_path / "ray", monkeypatch, capsys, "engine=ray", f"engine.address={ray_cluster.address}", "engine.concurrency=3")
    assert on_ray["engine"]["name"] == "ray" and on_ray["engine"]["failed"] == on_ray["engine"]["reused"] == 0
    assert on_ray["engine"]["built"] == local["engine"]["built"] == on_ray["text"]["shards"] + on_ray["image"]["shards"]
    assert_same_cli_indexes(tmp_path / "local", local, tmp_path / "ray", on_ray)
