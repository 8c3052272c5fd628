"""A small deterministic encoder and corpus for sharded builds run by the engines (ham.run.engines):
importable by name, so a Ray actor or a Slurm job rebuilds the encoder from its spec; and the
comparison of two indexes (same ids, same hits and scores to float tolerance)."""
from __future__ import annotations

import hashlib
import random

import numpy as np

from ham.index.encoders import BatchedEncoder, Encoded
from ham.index.hybrid import DenseOnly, HybridFusion, Query, SparseOnly
from ham.text import tokenize

WORDS = ("pump valve seal filter cartridge housing motor lead terminal mains cover oil level gauge bolt "
         "base anchor wiring switch pressure flow leak gasket shaft bearing").split()


class WordEncoder(BatchedEncoder):
    """The normalised sum of a fixed random vector per word (seeded by the word): the same vector
    for a text in any process and any batch."""

    def __init__(self, dim: int = 24, model_id: str = "word-test") -> None:
        self.dim, self.model_id, self.batch_size = dim, model_id, 5

    def _encode_batch(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                seed = int.from_bytes(hashlib.sha1(word.encode()).digest()[:4], "little")
                out[row] += np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return Encoded(out / np.where(norms == 0, 1, norms))


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12))) for _ in range(n)]
    return [f"manual{i // 20}/u{i}" for i in range(n)], texts


def queries(encoder, words=WORDS, n: int = 10, seed: int = 7, max_words: int = 3) -> list[Query]:
    """``n`` queries of 1 to ``max_words`` of ``words``, encoded by ``encoder``."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, max_words)))
        out.append(Query(text, encoder.encode_query(text).dense[0], tokenize([text])[0]))
    return out


def assert_same_index(a, b, encoder, k: int = 8, **query_options) -> None:
    """Same unit ids in the same order, and for every query (``queries(encoder, **query_options)``)
    and fusion the same hits with the same fused and sparse scores (float tolerance)."""
    assert list(a.unit_ids) == list(b.unit_ids)
    for query in queries(encoder, **query_options):
        for fusion in (HybridFusion(), DenseOnly(), SparseOnly()):
            ha, hb = a.search(query, k, fusion), b.search(query, k, fusion)
            assert [h.unit_id for h in ha] == [h.unit_id for h in hb], (query.text, fusion.name)
            np.testing.assert_allclose([h.score for h in ha], [h.score for h in hb], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose([h.sparse for h in ha], [h.sparse for h in hb], rtol=1e-5, atol=1e-6)
