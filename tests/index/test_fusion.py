"""Hybrid search against a plain reference implementation of the fusion rule, on every faiss
index type, and the sparse scoring kernel against bm25s's own scoring."""
import threading

import bm25s
import numpy as np
import pytest

from ham.index.dense import FlatSpec, HNSWSpec, IVFPQSpec
from ham.index.hybrid import HybridIndex, Query
from ham.index.sparse import BM25Sparse, ColumnSums, tokenize

WORDS = [f"w{i}" for i in range(60)]
N = 600


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(1)
    texts = [" ".join(rng.choice(WORDS, size=rng.integers(3, 12))) for _ in range(N)]
    x = rng.normal(size=(N, 16)).astype(np.float32)
    vectors = x / np.linalg.norm(x, axis=1, keepdims=True)
    queries = []
    for i in range(40):
        q = vectors[rng.integers(N)] + 0.5 * rng.normal(size=16).astype(np.float32)
        text = " ".join(rng.choice(WORDS, size=3))
        queries.append(Query(text, (q / np.linalg.norm(q)).astype(np.float32), tokenize([text])[0]))
    return texts, vectors, queries


def make_index(spec, texts, vectors):
    return HybridIndex([f"u{i}" for i in range(len(texts))], spec.build(vectors), vectors,
                       BM25Sparse.build(texts), {"encoder": "test"})


def reference(index, vectors, query, k, pool, extra=(), weight=0.7):
    """The fusion rule written plainly: union of both sides' top ``pool`` (the dense side as the
    faiss index returns it) and ``extra``; exact cosines; min-max per side; ties by row."""
    depth = min(len(vectors), pool)
    _, rows = index.dense.search(query.row, depth)
    sparse_all = index.sparse_scores(query)
    cand = np.union1d(rows[0][rows[0] >= 0], np.argpartition(-sparse_all, depth - 1)[:depth])
    cand = np.union1d(cand, np.asarray(extra, dtype=np.int64))

    def minmax(v):
        return (v - v.min()) / (v.max() - v.min()) if v.max() - v.min() > 1e-12 else np.full_like(v, 1.0 if v.max() > 0 else 0.0)

    dense, sparse = vectors[cand].astype(np.float64) @ query.dense, sparse_all[cand].astype(np.float64)
    fused = weight * minmax(dense) + (1 - weight) * minmax(sparse)
    order = sorted(range(len(cand)), key=lambda i: (-fused[i], cand[i]))[:k]
    return [f"u{cand[i]}" for i in order], fused[order], dense[order], sparse[order]


def assert_same_ranking(got, expected, expected_scores, tol=1e-6):
    """The same units in the reference's order, except that units whose reference scores differ
    by less than ``tol`` (float32 against float64 rounding) may come in either order."""
    assert len(got) == len(expected) and set(got) == set(expected)
    score = dict(zip(expected, expected_scores))
    position = {u: i for i, u in enumerate(expected)}
    for i, unit in enumerate(got):
        assert unit == expected[i] or abs(score[unit] - expected_scores[i]) < tol, \
            f"rank {i + 1}: {unit} (reference rank {position[unit] + 1}) instead of {expected[i]}"


SPECS = {"flat": FlatSpec(use_gpu=False), "hnsw": HNSWSpec(m=8, ef_search=16, use_gpu=False),
         "ivfpq": IVFPQSpec(nlist=8, m=4, nprobe=2, min_vectors=100, use_gpu=False)}


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("k, pool, extra", [(10, 30, ()), (None, 30, ()), (5, 30, (3, 77, 3, 598)), (None, 1000, ())])
def test_search_equals_the_reference_fusion(corpus, name, k, pool, extra):
    texts, vectors, queries = corpus
    index = make_index(SPECS[name], texts, vectors)
    assert index.exact_scores is (name != "ivfpq")   # IVF-PQ scores are approximate: recomputed
    for query in queries:
        ids, fused, dense, sparse = reference(index, vectors, query, k, pool, extra)
        hits = index.search(query, k, pool=pool, extra=extra)
        assert_same_ranking([h.unit_id for h in hits], ids, fused)
        assert np.allclose([h.score for h in hits], fused, atol=1e-5)
        by_id = {u: (d, s) for u, d, s in zip(ids, dense, sparse)}
        assert np.allclose([h.dense for h in hits], [by_id[h.unit_id][0] for h in hits], atol=1e-5), \
            "dense scores are exact cosines"
        assert np.allclose([h.sparse for h in hits], [by_id[h.unit_id][1] for h in hits], atol=1e-5)


def test_ties_are_broken_by_row_order(tmp_path):
    texts = ["alpha beta", "gamma", "alpha beta", "delta", "alpha beta"]
    vectors = np.eye(5, dtype=np.float32)
    vectors[2] = vectors[4] = vectors[0]   # three identical units at rows 0, 2 and 4
    index = make_index(FlatSpec(use_gpu=False), texts, vectors)
    query = Query("alpha beta", vectors[0].copy(), tokenize(["alpha beta"])[0])
    hits = index.search(query, 3)
    assert [h.unit_id for h in hits] == ["u0", "u2", "u4"] and len({h.score for h in hits}) == 1


def test_concurrent_searches_do_not_disturb_each_other(corpus):
    texts, vectors, queries = corpus
    index = make_index(FlatSpec(use_gpu=False), texts, vectors)
    serial = [[h.unit_id for h in index.search(q, 10, pool=50)] for q in queries]
    results: dict[int, list] = {}

    def worker(t):
        results[t] = [[[h.unit_id for h in index.search(q, 10, pool=50)] for q in queries] for _ in range(5)]

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(run == serial for runs in results.values() for run in runs)


@pytest.mark.parametrize("method", ["lucene", "robertson", "bm25+", "bm25l"])
def test_bm25_scores_equal_bm25s_get_scores(corpus, method):
    texts = corpus[0]
    bm25 = bm25s.BM25(method=method)
    bm25.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    sparse = BM25Sparse(bm25)
    for bincount_up_to in (10_000, 0):   # both ColumnSums paths
        sparse.column_sums.bincount_up_to = bincount_up_to
        for tokens in (["w1", "w2", "w1"], ["w7"], ["unknown", "w3"]):   # a repeated token counts twice
            expected = bm25.get_scores([t for t in tokens if t in bm25.vocab_dict])
            got = sparse.scores(Query("", np.zeros(2), tokens), len(texts))
            assert got.dtype == np.float32 and np.allclose(got, expected, atol=1e-5)
    assert not sparse.scores(Query("", np.zeros(2), ["nothing"]), len(texts)).any()


@pytest.mark.parametrize("bincount_up_to", [10_000, 0])   # numpy bincount path, scipy mat-vec path
def test_weighted_column_sums(bincount_up_to):
    import scipy.sparse as sp

    m = sp.random(50, 30, density=0.2, random_state=0, format="csc", dtype=np.float32)
    sums = ColumnSums(m, bincount_up_to=bincount_up_to)
    cols, weights = [4, 17, 4, 29], [0.5, 2.0, 1.0, 3.0]
    expected = m[:, cols] @ np.array(weights, dtype=np.float32)
    assert sums(cols, weights).dtype == np.float32 and np.allclose(sums(cols, weights), expected, atol=1e-6)
    assert np.allclose(sums(cols), m[:, cols].sum(axis=1).A.ravel(), atol=1e-6)
    assert sums([]).shape == (50,) and not sums([]).any()
