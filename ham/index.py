"""One hybrid index per modality: faiss (dense, inner product on normalised vectors) + bm25s.

Hybrid score (paper 5.1.2): ``0.7 * dense + 0.3 * sparse`` after per-query min-max normalisation.
The candidate pool of a query is the union of each side's top ``pool`` units; both score kinds are
computed exactly for every candidate, then each is min-max scaled over the pool to [0, 1] (a side
whose scores are all equal scales to 1 when positive, else 0). BM25 scores are unbounded and
dense cosines are not, so raw scores cannot be mixed directly.

Text and image units live in separate indexes (separate budgets k_t and k_v, no modality filter
at query time). On disk: ``dense.faiss``, ``bm25/``, ``ids.json``, ``meta.json``; never pickle.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

DENSE_WEIGHT = 0.7
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)


@dataclass
class Scored:
    unit_id: str
    score: float
    dense: float
    sparse: float


def _minmax(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-12:
        return np.full_like(values, 1.0 if hi > 0 else 0.0)
    return (values - lo) / (hi - lo)


class HybridIndex:
    def __init__(self, unit_ids: list[str], dense, bm25, meta: dict) -> None:
        self.unit_ids = unit_ids
        self.dense = dense
        self.bm25 = bm25
        self.meta = meta

    def __len__(self) -> int:
        return len(self.unit_ids)

    @classmethod
    def build(cls, unit_ids: list[str], texts: list[str], encoder, meta: dict) -> "HybridIndex":
        import bm25s
        import faiss

        if len(unit_ids) != len(texts):
            raise ValueError("unit_ids and texts differ in length")
        dense = faiss.IndexFlatIP(encoder.dim)
        for chunk in encoder.encode_stream(texts):
            dense.add(chunk)
        bm25 = None
        if texts:
            bm25 = bm25s.BM25()
            bm25.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        return cls(list(unit_ids), dense, bm25, dict(meta, size=len(unit_ids), dim=encoder.dim))

    def save(self, folder: Path) -> None:
        import faiss

        folder.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.dense, str(folder / "dense.faiss"))
        if self.bm25 is not None:
            self.bm25.save(str(folder / "bm25"))
        (folder / "ids.json").write_text(json.dumps(self.unit_ids))
        (folder / "meta.json").write_text(json.dumps(self.meta, indent=2, sort_keys=True))

    @classmethod
    def load(cls, folder: Path) -> "HybridIndex":
        import bm25s
        import faiss

        ids = json.loads((folder / "ids.json").read_text())
        meta = json.loads((folder / "meta.json").read_text())
        bm25 = bm25s.BM25.load(str(folder / "bm25")) if (folder / "bm25").exists() else None
        return cls(ids, faiss.read_index(str(folder / "dense.faiss")), bm25, meta)

    def check_encoder(self, encoder_id: str) -> None:
        if self.meta.get("encoder") != encoder_id:
            raise ValueError(f"index was built with encoder {self.meta.get('encoder')!r} "
                             f"but is being searched with {encoder_id!r}")

    def _sparse_scores(self, query_tokens: list[str]) -> np.ndarray:
        if self.bm25 is None or not query_tokens:
            return np.zeros(len(self), dtype=np.float32)
        known = [t for t in query_tokens if t in self.bm25.vocab_dict]
        if not known:
            return np.zeros(len(self), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(known), dtype=np.float32)

    def search(self, query_vec: np.ndarray, query_tokens: list[str], k: int, mode: str = "hybrid",
               pool: int = 100, dense_weight: float = DENSE_WEIGHT) -> list[Scored]:
        """Top ``k`` units for one query. ``mode``: ``hybrid``, ``dense`` or ``sparse``."""
        n = len(self)
        if n == 0 or k <= 0:
            return []
        depth = min(n, max(pool, k))
        q = np.ascontiguousarray(query_vec.reshape(1, -1), dtype=np.float32)
        dense_scores, dense_ids = self.dense.search(q, depth)
        sparse_all = self._sparse_scores(query_tokens)
        sparse_top = np.argsort(-sparse_all, kind="stable")[:depth]
        cand = np.array(sorted(set(int(i) for i in dense_ids[0] if i >= 0) | set(int(i) for i in sparse_top)))
        vecs = self.dense.reconstruct_batch(cand) if len(cand) else np.zeros((0, q.shape[1]), np.float32)
        dense_c = vecs @ q[0]
        sparse_c = sparse_all[cand]
        if mode == "dense":
            fused = dense_c
        elif mode == "sparse":
            fused = sparse_c
        elif mode == "hybrid":
            fused = dense_weight * _minmax(dense_c) + (1 - dense_weight) * _minmax(sparse_c)
        else:
            raise ValueError(f"unknown retrieval mode {mode!r}; use hybrid, dense or sparse")
        order = np.lexsort((cand, -fused))[:k]  # ties broken by source order
        return [Scored(self.unit_ids[cand[i]], float(fused[i]), float(dense_c[i]), float(sparse_c[i]))
                for i in order]
