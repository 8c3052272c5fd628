"""Sharded builds (ham.index.shards): the merged index equals the single-process one, shards are
content-addressed and redone alone, BM25 built from shards scores as bm25s does."""
import pickle
import random

import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index.build import index_strings
from ham.index.dense import FlatSpec, IVFOnDiskSpec, IVFPQSpec
from ham.index.hybrid import Query
from ham.index.ondisk import UnitIds
from ham.index.shards import build_sharded, merge_shards, plan_shards, remove_shard, run_shard
from ham.index.sparse import BM25Sparse
from ham.text import tokenize
from tests.support.shard_builds import WordEncoder, assert_same_index, queries

WORDS = ("reconcile checking account deposit credit card payment save file print report invoice vendor "
         "customer balance ledger journal entry refund tax payroll budget audit transfer statement").split()


def corpus(n: int, seed: int = 0):
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0 if i % 50 == 7 else 3, 14))) for i in range(n)]
    return [f"doc{i // 10}/u{i}" for i in range(n)], texts


def same_results(a, b, encoder) -> None:
    assert_same_index(a, b, encoder, k=10, words=WORDS, n=12, seed=1, max_words=4)


@pytest.mark.parametrize("shard_size", [1000, 64, 97])   # one shard; even-ish; uneven last shard
def test_flat_merge_equals_single_process_build(tmp_path, shard_size):
    ids, texts = corpus(300)
    enc = WordEncoder()
    single, _ = index_strings(ids, texts, enc, FlatSpec(), FolderCache(tmp_path / "one"))
    merged, info = build_sharded(ids, texts, enc, FlatSpec(), FolderCache(tmp_path / "many"), shard_size=shard_size)
    assert info["shards"] == -(-300 // shard_size) and len(merged) == 300
    assert merged.row_of["doc3/u31"] == 31 and "nope" not in merged.row_of
    same_results(single, merged, enc)


@pytest.mark.parametrize("spec_class", [IVFPQSpec, IVFOnDiskSpec])
def test_ivf_merge_equals_single_process_ivfpq(tmp_path, spec_class):
    ids, texts = corpus(400)
    enc = WordEncoder()
    params = dict(nlist=4, m=8, nbits=6, nprobe=2, train_size=300, min_vectors=100, seed=3)
    single, _ = index_strings(ids, texts, enc, IVFPQSpec(**params), FolderCache(tmp_path / "one"))
    merged, _ = build_sharded(ids, texts, enc, spec_class(**params), FolderCache(tmp_path / "many"), shard_size=90)
    same_results(single, merged, enc)
    if spec_class is IVFOnDiskSpec:   # the lists really are on disk, and found after the folder moved
        assert "OnDisk" in type(merged.dense.invlists).__name__ or (tmp_path / "many").rglob("dense.ivfdata")
        assert list((tmp_path / "many" / "sharded").glob("*/dense.ivfdata"))


def test_shard_size_does_not_change_the_index(tmp_path):
    ids, texts = corpus(350)
    enc = WordEncoder()
    spec = IVFOnDiskSpec(nlist=4, m=8, nbits=6, nprobe=4, train_size=250, min_vectors=100, seed=0)
    a, _ = build_sharded(ids, texts, enc, spec, FolderCache(tmp_path / "a"), shard_size=50)
    b, _ = build_sharded(ids, texts, enc, spec, FolderCache(tmp_path / "b"), shard_size=333)
    same_results(a, b, enc)


def test_second_build_reuses_every_shard_and_a_lost_one_is_redone_alone(tmp_path):
    ids, texts = corpus(200)
    enc = WordEncoder()
    tasks = plan_shards(ids, texts, None, enc, tmp_path, 60)
    assert [len(t.ids) for t in tasks] == [60, 60, 60, 20]
    assert pickle.loads(pickle.dumps(tasks[1])) == tasks[1]
    first = [run_shard(t) for t in tasks]
    assert not any(r["reused"] for r in first)
    again = [run_shard(t) for t in tasks]
    assert all(r["reused"] for r in again) and [r["key"] for r in again] == [r["key"] for r in first]
    index, info = merge_shards(again, FlatSpec(), tmp_path)
    remove_shard(tmp_path, first[2]["key"])
    redone = [run_shard(t) for t in tasks]
    assert [r["reused"] for r in redone] == [True, True, False, True]
    assert [r["key"] for r in redone] == [r["key"] for r in first]
    index2, info2 = merge_shards(redone, FlatSpec(), tmp_path)
    assert info2["reused"] and info2["key"] == info["key"]
    changed = list(texts)
    changed[130] = "a changed unit"
    keys = [run_shard(t)["key"] for t in plan_shards(ids, changed, None, enc, tmp_path, 60)]
    assert [k == r["key"] for k, r in zip(keys, first)] == [True, True, False, True]


def test_bm25_from_shards_equals_bm25s(tmp_path):
    ids, texts = corpus(500, seed=4)
    texts[3] = "the and of"      # only stopwords: no tokens
    texts[4] = "电池容量 reconcile 电池"
    ref = BM25Sparse.build(texts)
    merged, _ = build_sharded(ids, texts, WordEncoder(), FlatSpec(), FolderCache(tmp_path), shard_size=77)
    assert merged.sparse.params["num_docs"] == 500
    rng = random.Random(5)
    for _ in range(30):
        tokens = tokenize([" ".join(rng.choice(WORDS + ["电池", "absent"]) for _ in range(rng.randint(1, 5)))])[0]
        q = Query("", np.zeros(WordEncoder().dim, np.float32), tokens)
        np.testing.assert_allclose(merged.sparse.scores(q, 500), ref.scores(q, 500), rtol=1e-6, atol=1e-7)
        bm25 = ref.bm25.get_scores(tokens)   # bm25s's own scorer, to be sure ColumnSums is not what agrees
        np.testing.assert_allclose(merged.sparse.scores(q, 500), bm25, rtol=1e-5, atol=1e-6)


def test_sparse_texts_are_what_bm25_counts(tmp_path):
    ids, texts = corpus(120)
    sparse = [t + " invoice" if i % 3 == 0 else t for i, t in enumerate(texts)]
    enc = WordEncoder()
    single, _ = index_strings(ids, texts, enc, FlatSpec(), FolderCache(tmp_path / "one"), sparse_texts=sparse)
    merged, _ = build_sharded(ids, texts, enc, FlatSpec(), FolderCache(tmp_path / "many"), sparse_texts=sparse,
                              shard_size=50)
    same_results(single, merged, enc)


def test_empty_corpus_gives_an_empty_index(tmp_path):
    index, info = build_sharded([], [], WordEncoder(), FlatSpec(), tmp_path, shard_size=10)
    assert len(index) == 0 and info["shards"] == 1
    assert index.search(queries(WordEncoder(), WORDS, n=1)[0], 5) == []


def test_engine_map_is_used(tmp_path):
    calls = []

    class Engine:
        def map(self, fn, tasks):
            calls.append(len(tasks))
            return [fn(t) for t in reversed(tasks)]   # results in any order

    ids, texts = corpus(90)
    index, info = build_sharded(ids, texts, WordEncoder(), FlatSpec(), tmp_path, shard_size=40, engine=Engine())
    assert calls == [3] and list(index.unit_ids) == ids


def test_bad_input_is_refused(tmp_path):
    ids, texts = corpus(20)
    enc = WordEncoder()
    with pytest.raises(ValueError, match="20 unit ids but 19 texts"):
        plan_shards(ids, texts[:-1], None, enc, tmp_path, 5)
    with pytest.raises(ValueError, match="more than once.*doc0/u1"):
        plan_shards(ids[:5] + ["doc0/u1"], texts[:6], None, enc, tmp_path, 5)
    with pytest.raises(ValueError, match="shard_size"):
        plan_shards(ids, texts, None, enc, tmp_path, 0)
    # shards planned apart (as a streaming caller does) that repeat an id are refused at the merge
    a = plan_shards(ids[:10], texts[:10], None, enc, tmp_path, 10)[0]
    b = plan_shards(ids[5:15], texts[5:15], None, enc, tmp_path, 10)[0]
    results = [run_shard(a), {**run_shard(b), "shard": 1}]
    with pytest.raises(ValueError, match="more than once across the shards"):
        merge_shards(results, FlatSpec(), tmp_path)
    with pytest.raises(ValueError, match="numbered 0..1"):
        merge_shards([results[0], {**results[1], "shard": 5}], FlatSpec(), tmp_path)


def test_unit_ids_on_disk(tmp_path):
    ids, texts = corpus(50)
    index, _ = build_sharded(ids, texts, WordEncoder(), FlatSpec(), tmp_path, shard_size=20)
    assert isinstance(index.unit_ids, UnitIds)
    assert index.unit_ids[49] == ids[49] and index.unit_ids[-1] == ids[-1] and index.unit_ids[2:4] == ids[2:4]
    assert [index.row_of[u] for u in ids] == list(range(50))
