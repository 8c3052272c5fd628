import numpy as np
import pytest

from ham.index import HybridIndex, _minmax, tokenize


class BagEncoder:
    """A deterministic bag-of-words encoder over a fixed vocabulary (exercises the faiss path)."""

    model_id = "bag-test"

    def __init__(self, vocab):
        self.vocab = {w: i for i, w in enumerate(vocab)}
        self.dim = len(vocab)

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            for w in t.lower().split():
                if w in self.vocab:
                    out[r, self.vocab[w]] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    def encode_stream(self, texts, chunk=2):
        for i in range(0, len(texts), chunk):
            yield self.encode(texts[i:i + chunk])


TEXTS = ["reconcile the checking account", "enter a deposit", "reconcile the credit card",
         "save the file", "credit card payment"]


@pytest.fixture
def index(tmp_path):
    enc = BagEncoder(sorted({w for t in TEXTS for w in t.split()}))
    idx = HybridIndex.build([f"u{i}" for i in range(len(TEXTS))], TEXTS, enc, {"encoder": enc.model_id})
    idx.save(tmp_path / "ix")
    return HybridIndex.load(tmp_path / "ix"), enc


def test_minmax():
    assert _minmax(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert _minmax(np.array([3.0, 3.0])).tolist() == [1.0, 1.0]
    assert _minmax(np.array([0.0, 0.0])).tolist() == [0.0, 0.0]


def test_modes_rank_the_matching_unit_first(index):
    idx, enc = index
    q = "reconcile credit card"
    for mode in ("dense", "sparse", "hybrid"):
        hits = idx.search(enc.encode([q])[0], tokenize([q])[0], k=3, mode=mode)
        assert hits[0].unit_id == "u2", mode
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_is_weighted_sum_of_normalised_scores(index):
    idx, enc = index
    q = "credit card"
    hits = idx.search(enc.encode([q])[0], tokenize([q])[0], k=5, mode="hybrid", pool=5)
    dense = np.array([h.dense for h in hits])
    sparse = np.array([h.sparse for h in hits])
    expected = 0.7 * _minmax(dense) + 0.3 * _minmax(sparse)
    assert np.allclose([h.score for h in hits], expected, atol=1e-6)


def test_unknown_mode_and_encoder_mismatch(index):
    idx, enc = index
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        idx.search(enc.encode(["x"])[0], ["x"], 2, mode="magic")
    with pytest.raises(ValueError, match="bag-test.*other-encoder"):
        idx.check_encoder("other-encoder")


def test_empty_index(tmp_path):
    enc = BagEncoder(["a"])
    idx = HybridIndex.build([], [], enc, {"encoder": "bag-test"})
    idx.save(tmp_path / "e")
    assert HybridIndex.load(tmp_path / "e").search(enc.encode(["a"])[0], ["a"], 5) == []
