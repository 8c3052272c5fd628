"""One hybrid index per modality: faiss (dense) + a sparse side, fused 0.7 / 0.3 (paper 5.1.2).

Text and image units live in separate indexes, so the budgets k_t and k_v apply without a modality
filter at query time and an image never competes with text for a slot.

Dense side: a faiss index chosen by ``conf/index/`` (``flat`` exact inner product, ``hnsw``,
``ivfpq`` for large corpora), over L2-normalised vectors (inner product = cosine). With faiss-gpu
installed and a GPU present, flat and IVF-PQ indexes are built and searched on the GPU (HNSW has no
GPU version in faiss) and saved as CPU indexes.

Sparse side (``ham.index.sparse``): BGE-M3's lexical weights when the encoder produces them (score = sum
over shared tokens of w_query * w_doc), else BM25 (bm25s's index, scored by ``ham.index.sparse``).

Fusion: a query's candidate pool is the union of each side's top ``pool`` units. Both scores are
exact for every candidate: the dense one is faiss's own score where that is exact (flat, HNSW-flat)
and otherwise recomputed from the stored vectors, so approximate indexes (IVF-PQ) only choose
candidates. Each side is then min-max scaled over the pool to [0, 1] (a side whose scores are all
equal scales to 1 when positive, else 0), and ``fused = 0.7 * dense + 0.3 * sparse``.
BM25 and BGE-M3 lexical scores are unbounded while cosines are not, so the raw values are never
mixed; min-max over the pool treats both sparse kinds alike.

On disk (never pickle): the embeddings folder holds ``dense.npy`` (memory-mapped at query time),
``sparse.npz`` (BGE-M3) and ``ids.json``; a ``bm25/`` folder (bm25s format); the index folder holds
``dense.faiss`` and ``meta.json``.
"""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Sequence

import numpy as np

from ham.settings import Doc, Range

from ham.index.dense import FaissSpec
from ham.index.sparse import BM25Sparse, LexicalSparse

DENSE_WEIGHT = 0.7
log = logging.getLogger("ham.index.hybrid")


@dataclass
class Query:
    text: str
    dense: np.ndarray
    tokens: list[str]
    lexical: dict[int, float] | None = None
    row: np.ndarray = field(init=False, repr=False, compare=False)   # dense as faiss wants it

    def __post_init__(self) -> None:
        self.row = np.ascontiguousarray(np.reshape(self.dense, (1, -1)), dtype=np.float32)


@dataclass(slots=True)
class ScoredUnit:
    unit_id: str
    score: float
    dense: float
    sparse: float


def _scale_shift(lo: float, hi: float, weight: float = 1.0) -> tuple[float, float]:
    """``weight * minmax(x)`` over values spanning [lo, hi], written as ``x * scale + shift``;
    all-equal values map to ``weight`` when positive, else 0."""
    if hi - lo < 1e-12:
        return 0.0, (weight if hi > 0 else 0.0)
    return weight / (hi - lo), -weight * lo / (hi - lo)


def _minmax(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    scale, shift = _scale_shift(float(np.minimum.reduce(values)), float(np.maximum.reduce(values)))
    return values * scale + shift


def _exact_vectors(index) -> np.ndarray | None:
    """A zero-copy view of the vectors a CPU flat or HNSW-flat index holds in memory (exact, and
    faster to gather from than the memory-mapped dense.npy); None for other index types."""
    import faiss

    storage = faiss.downcast_index(index.storage) if isinstance(index, faiss.IndexHNSWFlat) else index
    if type(storage) not in (faiss.IndexFlatIP, faiss.IndexFlat) or storage.ntotal == 0:
        return None
    return faiss.rev_swig_ptr(storage.get_xb(), storage.ntotal * storage.d).reshape(storage.ntotal, storage.d)


def _top(values: np.ndarray, depth: int) -> np.ndarray:
    if depth >= len(values):
        return np.arange(len(values))
    return np.argpartition(-values, depth - 1)[:depth]


class HybridFusion:
    """``dense_weight * minmax(dense) + (1 - dense_weight) * minmax(sparse)`` over the pool, as
    one linear map of a pool's (dense, sparse) score rows (``retrieval=hybrid``)."""

    name = "hybrid"

    def __init__(self, dense_weight: Annotated[float, Range(0.0, 1.0), Doc("the dense share after per-query "
                                                                          "min-max normalisation (paper 5.1.2: "
                                                                          "0.7)")] = DENSE_WEIGHT) -> None:
        if not 0.0 <= dense_weight <= 1.0:
            raise ValueError(f"dense_weight must lie in [0, 1], not {dense_weight}")
        self.dense_weight = dense_weight

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        lo, hi = np.minimum.reduce(scores, axis=1).tolist(), np.maximum.reduce(scores, axis=1).tolist()
        (dense_scale, dense_shift), (sparse_scale, sparse_shift) = (
            _scale_shift(lo[0], hi[0], self.dense_weight), _scale_shift(lo[1], hi[1], 1 - self.dense_weight))
        fused = np.dot(np.array([dense_scale, sparse_scale], dtype=np.float32), scores)
        fused += dense_shift + sparse_shift
        return fused


class DenseOnly:
    """The dense score alone (``retrieval=dense``)."""

    name = "dense"

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        return scores[0]


class SparseOnly(DenseOnly):
    """The sparse score alone (``retrieval=sparse``)."""

    name = "sparse"

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        return scores[1]


def _returns_exact_scores(index) -> bool:
    """Whether faiss's returned scores are exact inner products (flat and HNSW-flat indexes, on
    CPU or GPU), so only candidates it did not return need their vectors gathered."""
    import faiss

    if isinstance(index, faiss.IndexHNSWFlat):
        index = faiss.downcast_index(index.storage)
    return type(index).__name__ in ("IndexFlatIP", "IndexFlat", "GpuIndexFlatIP", "GpuIndexFlat")


class HybridIndex:
    def __init__(self, unit_ids: list[str], dense, vectors: np.ndarray, sparse, meta: dict) -> None:
        self.unit_ids, self.dense, self.sparse, self.meta = unit_ids, dense, sparse, meta
        self.vectors = _exact_vectors(dense) if dense is not None else None
        if self.vectors is None:
            self.vectors = vectors
        # compact ids on disk (ham.index.ondisk.UnitIds) bring their own lookup
        self.row_of = getattr(unit_ids, "row_of", None) or {u: i for i, u in enumerate(unit_ids)}
        self.exact_scores = dense is not None and _returns_exact_scores(dense)
        self._local = threading.local()   # a per-thread scratch mask for merging candidate lists

    def __len__(self) -> int:
        return len(self.unit_ids)

    @classmethod
    def load(cls, index_folder: Path, embeddings_folder: Path, sparse_folder: Path | None,
             spec: FaissSpec | None = None) -> "HybridIndex":
        meta = json.loads((index_folder / "meta.json").read_text())
        ids = json.loads((embeddings_folder / "ids.json").read_text())
        vectors = np.load(embeddings_folder / "dense.npy", mmap_mode="r")
        dense = (spec or FaissSpec(use_gpu=False)).load(index_folder / "dense.faiss")
        sparse = None
        if ids and sparse_folder is not None:
            sparse = LexicalSparse.load(sparse_folder / "sparse.npz") if meta["sparse"] == LexicalSparse.kind \
                else BM25Sparse.load(sparse_folder)
        return cls(ids, dense, vectors, sparse, meta)

    def check_encoder(self, encoder_id: str) -> None:
        if self.meta.get("encoder") != encoder_id:
            raise ValueError(f"index was built with encoder {self.meta.get('encoder')!r} "
                             f"but is being searched with {encoder_id!r}")

    def sparse_scores(self, query: Query) -> np.ndarray:
        if self.sparse is None:
            return np.zeros(len(self), dtype=np.float32)
        return self.sparse.scores(query, len(self))

    def search(self, query: Query, k: int | None, fusion=None, pool: int = 100,
               extra: Sequence[int] = ()) -> list[ScoredUnit]:
        """Top ``k`` units for one query under ``fusion`` (default ``HybridFusion()``); ``k=None``
        returns the whole candidate pool, ranked. ``extra`` rows join the pool (structural
        retrieval adds the units of promising sections)."""
        fusion = fusion or HybridFusion()
        n = len(self)
        if n == 0 or (k is not None and k <= 0):
            return []
        depth = min(n, max(pool, k or 0))
        cand, scores = self._pool(query, depth, extra)
        fused = fusion(scores)
        order = np.lexsort((cand, -fused))[:k]  # ties broken by row (source) order
        picked = scores[:, order].tolist()
        return list(map(ScoredUnit, map(self.unit_ids.__getitem__, cand[order].tolist()), fused[order].tolist(),
                        picked[0], picked[1]))

    def _pool(self, query: Query, depth: int, extra: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The candidate rows (each side's top ``depth`` plus ``extra``) and their exact dense
        (row 0) and sparse (row 1) scores."""
        found, rows = self.dense.search(query.row, depth)
        found, rows = found[0], rows[0]
        if rows[-1] < 0:   # approximate indexes pad a short result with -1
            found, rows = found[rows >= 0], rows[rows >= 0]
        sparse_all = self.sparse_scores(query)
        new = rows[:0]
        if len(rows) < len(self):   # else faiss returned every unit (extra rows included)
            others = _top(sparse_all, depth)
            if len(extra):
                others = np.unique(np.concatenate((others, np.asarray(extra, dtype=np.int64))))
            new = self._not_in(others, rows)
        cand = np.concatenate((rows, new)) if len(new) else rows
        scores = np.empty((2, len(cand)), dtype=np.float32)
        if self.exact_scores:
            scores[0, :len(rows)] = found
            if len(new):
                np.matmul(self.vectors[new], query.row[0], out=scores[0, len(rows):])
        else:
            np.matmul(np.asarray(self.vectors[cand], dtype=np.float32), query.row[0], out=scores[0])
        np.take(sparse_all, cand, out=scores[1])
        return cand, scores

    def _not_in(self, candidates: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``candidates`` not among ``rows``, in O(len) through a scratch mask (no sorting)."""
        seen = getattr(self._local, "seen", None)
        if seen is None:
            seen = self._local.seen = np.zeros(len(self), dtype=bool)
        seen[rows] = True
        try:
            return candidates[~seen[candidates]]
        finally:
            seen[rows] = False


class SparseSideIndex(HybridIndex):
    """A modality's sparse side alone, before its dense side exists: ``ham-ask``'s preliminary
    answer while the embeddings are still to be encoded (``ham.run.sparse_first``). The pool is the
    sparse top ``pool`` (plus ``extra``) and every dense score is 0, so it is searched only under
    ``SparseOnly`` fusion: any other would rank by a dense side that is not there."""

    def __init__(self, unit_ids: list[str], sparse, meta: dict) -> None:
        super().__init__(unit_ids, None, None, sparse, meta)

    def search(self, query: Query, k: int | None, fusion=None, pool: int = 100,
               extra: Sequence[int] = ()) -> list[ScoredUnit]:
        if not isinstance(fusion, SparseOnly):
            raise ValueError(f"a sparse-side index has no dense side: search it with SparseOnly fusion, "
                             f"not {type(fusion).__name__}")
        return super().search(query, k, fusion, pool, extra)

    def _pool(self, query: Query, depth: int, extra: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        sparse_all = self.sparse_scores(query)
        cand = _top(sparse_all, depth)
        if len(extra):
            cand = np.unique(np.concatenate((cand, np.asarray(extra, dtype=np.int64))))
        scores = np.zeros((2, len(cand)), dtype=np.float32)
        np.take(sparse_all, cand, out=scores[1])
        return cand, scores
