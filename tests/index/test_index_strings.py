import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index.encoders import BatchedEncoder, Encoded
from ham.index.dense import FlatSpec
from ham.index.hybrid import DenseOnly, HybridFusion, Query, SparseOnly, _minmax
from ham.text import tokenize
from ham.index.build import index_strings


class BagEncoder(BatchedEncoder):
    """A deterministic bag-of-words encoder over a fixed vocabulary (exercises the faiss path)."""

    model_id = "bag-test"

    def __init__(self, vocab, model_id="bag-test"):
        self.vocab = {w: i for i, w in enumerate(vocab)}
        self.dim = len(vocab)
        self.model_id = model_id
        self.batch_size = 2

    def _encode_batch(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            for w in t.lower().split():
                if w in self.vocab:
                    out[r, self.vocab[w]] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return Encoded(out / np.where(norms == 0, 1, norms))


TEXTS = ["reconcile the checking account", "enter a deposit", "reconcile the credit card",
         "save the file", "credit card payment"]


def query(enc, text):
    return Query(text, enc.encode_query(text).dense[0], tokenize([text])[0])


@pytest.fixture
def index(tmp_path):
    enc = BagEncoder(sorted({w for t in TEXTS for w in t.split()}))
    idx, _ = index_strings([f"u{i}" for i in range(len(TEXTS))], TEXTS, enc, FlatSpec(), FolderCache(tmp_path))
    return idx, enc


def test_minmax():
    assert _minmax(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert _minmax(np.array([3.0, 3.0])).tolist() == [1.0, 1.0]
    assert _minmax(np.array([0.0, 0.0])).tolist() == [0.0, 0.0]


def test_modes_rank_the_matching_unit_first(index):
    idx, enc = index
    for fusion in (DenseOnly(), SparseOnly(), HybridFusion()):
        hits = idx.search(query(enc, "reconcile credit card"), k=3, fusion=fusion)
        assert hits[0].unit_id == "u2", fusion.name
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_is_weighted_sum_of_normalised_scores(index):
    idx, enc = index
    hits = idx.search(query(enc, "credit card"), k=5, fusion=HybridFusion(0.7), pool=5)
    dense = np.array([h.dense for h in hits])
    sparse = np.array([h.sparse for h in hits])
    expected = 0.7 * _minmax(dense) + 0.3 * _minmax(sparse)
    assert np.allclose([h.score for h in hits], expected, atol=1e-6)
    assert np.allclose(dense, [enc.encode_query("credit card").dense[0] @ enc.encode_query(TEXTS[int(h.unit_id[1:])]).dense[0]
                               for h in hits], atol=1e-6), "dense scores are exact cosines"


def test_extra_rows_join_the_candidate_pool(index):
    idx, enc = index
    q = query(enc, "deposit")
    pool = {h.unit_id for h in idx.search(q, k=None, pool=1)}
    assert "u1" in pool and "u3" not in pool and len(pool) <= 2   # top 1 of each side
    assert {h.unit_id for h in idx.search(q, k=None, pool=1, extra=[3])} == pool | {"u3"}


def test_fusion_weight_out_of_range_and_encoder_mismatch(index):
    idx, enc = index
    with pytest.raises(ValueError, match="dense_weight must lie in"):
        HybridFusion(1.5)
    with pytest.raises(ValueError, match="bag-test.*other-encoder"):
        idx.check_encoder("other-encoder")


def test_empty_index(tmp_path):
    enc = BagEncoder(["a"])
    idx, info = index_strings([], [], enc, FlatSpec(), FolderCache(tmp_path))
    assert len(idx) == 0 and info["size"] == 0
    assert idx.search(query(enc, "a"), 5) == []
