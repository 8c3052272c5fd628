"""One hybrid index per modality: faiss (dense) + a sparse side, fused 0.7 / 0.3 (paper 5.1.2).

Text and image units live in separate indexes, so the budgets k_t and k_v apply without a modality
filter at query time and an image never competes with text for a slot.

Dense side: a faiss index chosen by ``conf/index/`` (``flat`` exact inner product, ``hnsw``,
``ivfpq`` for large corpora), over L2-normalised vectors (inner product = cosine). With faiss-gpu
installed and a GPU present, flat and IVF-PQ indexes are built and searched on the GPU (HNSW has no
GPU version in faiss) and saved as CPU indexes.

Sparse side: BGE-M3's lexical weights when the encoder produces them (score = sum over shared
tokens of w_query * w_doc, a CSR matrix product), else BM25 (bm25s).

Fusion: a query's candidate pool is the union of each side's top ``pool`` units. Both scores are
computed exactly for every candidate (the dense one from the stored vectors, so approximate indexes
only choose candidates), then each side is min-max scaled over the pool to [0, 1] (a side whose
scores are all equal scales to 1 when positive, else 0), and ``fused = 0.7 * dense + 0.3 * sparse``.
BM25 and BGE-M3 lexical scores are unbounded while cosines are not, so the raw values are never
mixed; min-max over the pool treats both sparse kinds alike.

On disk (never pickle): the embeddings folder holds ``dense.npy`` (memory-mapped at query time),
``sparse.npz`` (BGE-M3) and ``ids.json``; a ``bm25/`` folder (bm25s format); the index folder holds
``dense.faiss`` and ``meta.json``.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

DENSE_WEIGHT = 0.7
ADD_CHUNK = 65536
log = logging.getLogger("ham.index")


def _bm25s():
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import and logs every build
    return bm25s


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    bm25s = _bm25s()
    return bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)


def gpu_available() -> bool:
    import faiss

    return hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0


class FaissSpec:
    """How the dense index is built (a ``conf/index/`` option). ``use_gpu``: true, false or auto."""

    kind = "flat"
    gpu_capable = True

    def __init__(self, use_gpu: bool | str = "auto") -> None:
        self.use_gpu = use_gpu

    def params(self) -> dict:
        return {"type": self.kind}

    def _make(self, dim: int, n: int):
        import faiss

        return faiss.IndexFlatIP(dim)

    def tune(self, index) -> None:
        """Search-time parameters (set again after loading)."""

    def on_gpu(self) -> bool:
        wanted = self.use_gpu if isinstance(self.use_gpu, bool) else str(self.use_gpu).lower() != "false"
        return bool(wanted) and self.gpu_capable and gpu_available()

    def _to_gpu(self, index):
        import faiss

        if not hasattr(self, "_gpu_resources"):  # must outlive every GPU index made with it
            self._gpu_resources = faiss.StandardGpuResources()
        return faiss.index_cpu_to_gpu(self._gpu_resources, 0, index)

    def build(self, vectors: np.ndarray):
        import faiss

        n, dim = vectors.shape
        index = self._make(dim, n)
        if self.on_gpu():
            index = self._to_gpu(index)
        if not index.is_trained:
            index.train(_training_sample(vectors, getattr(self, "train_size", n)))
        for start in range(0, n, ADD_CHUNK):
            index.add(np.ascontiguousarray(vectors[start:start + ADD_CHUNK], dtype=np.float32))
        if self.on_gpu():
            index = faiss.index_gpu_to_cpu(index)
        return index

    def load(self, path: Path):
        import faiss

        index = faiss.read_index(str(path))
        self.tune(index)
        return self._to_gpu(index) if self.on_gpu() else index


class FlatSpec(FaissSpec):
    kind = "flat"


class HNSWSpec(FaissSpec):
    kind = "hnsw"
    gpu_capable = False

    def __init__(self, m: int = 32, ef_construction: int = 200, ef_search: int = 128, use_gpu: bool | str = "auto") -> None:
        super().__init__(use_gpu)
        self.m, self.ef_construction, self.ef_search = m, ef_construction, ef_search

    def params(self) -> dict:
        return {"type": self.kind, "m": self.m, "ef_construction": self.ef_construction}

    def _make(self, dim: int, n: int):
        import faiss

        index = faiss.IndexHNSWFlat(dim, self.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.ef_construction
        return index

    def tune(self, index) -> None:
        index.hnsw.efSearch = self.ef_search


class IVFPQSpec(FaissSpec):
    """Inverted lists + product quantisation. ``nlist`` shrinks to what the corpus can train
    (39 points per list, faiss's minimum); below ``min_vectors`` the index is exact (flat)."""

    kind = "ivfpq"

    def __init__(self, nlist: int = 1024, m: int = 16, nbits: int = 8, nprobe: int = 32,
                 train_size: int = 100_000, min_vectors: int = 10_000, use_gpu: bool | str = "auto") -> None:
        super().__init__(use_gpu)
        self.nlist, self.m, self.nbits, self.nprobe = nlist, m, nbits, nprobe
        self.train_size, self.min_vectors = train_size, min_vectors

    def params(self) -> dict:
        return {"type": self.kind, "nlist": self.nlist, "m": self.m, "nbits": self.nbits,
                "train_size": self.train_size, "min_vectors": self.min_vectors}

    def _make(self, dim: int, n: int):
        import faiss

        if n < self.min_vectors:
            log.info("ivfpq: %d vectors (< min_vectors %d): exact flat index instead", n, self.min_vectors)
            return faiss.IndexFlatIP(dim)
        if dim % self.m:
            raise ValueError(f"ivfpq: m={self.m} sub-quantisers must divide the vector dimension {dim}")
        nlist = max(1, min(self.nlist, n // 39))
        return faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, nlist, self.m, self.nbits, faiss.METRIC_INNER_PRODUCT)

    def tune(self, index) -> None:
        if hasattr(index, "nprobe"):
            index.nprobe = self.nprobe


def _training_sample(vectors: np.ndarray, size: int) -> np.ndarray:
    n = len(vectors)
    if n <= size:
        return np.ascontiguousarray(vectors[:], dtype=np.float32)
    rows = np.sort(np.random.default_rng(0).choice(n, size=size, replace=False))
    return np.ascontiguousarray(vectors[rows], dtype=np.float32)


class BM25Sparse:
    """BM25 over bm25s tokens (English stopwords removed); queries are token lists."""

    kind = "bm25"

    def __init__(self, bm25) -> None:
        self.bm25 = bm25

    @classmethod
    def build(cls, texts: Sequence[str]) -> "BM25Sparse":
        bm25s = _bm25s()
        bm25 = bm25s.BM25()
        bm25.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
        return cls(bm25)

    def save(self, folder: Path) -> None:
        self.bm25.save(str(folder))

    @classmethod
    def load(cls, folder: Path) -> "BM25Sparse":
        return cls(_bm25s().BM25.load(str(folder)))

    def scores(self, query: "Query", n: int) -> np.ndarray:
        known = [t for t in query.tokens if t in self.bm25.vocab_dict]
        if not known:
            return np.zeros(n, dtype=np.float32)
        return np.asarray(self.bm25.get_scores(known), dtype=np.float32)


class LexicalSparse:
    """BGE-M3 lexical matching: sum over shared tokens of w_query * w_doc (CSR product)."""

    kind = "bge_m3_lexical"

    def __init__(self, matrix) -> None:
        self.matrix = matrix

    @classmethod
    def load(cls, path: Path) -> "LexicalSparse":
        import scipy.sparse as sp

        return cls(sp.load_npz(path).tocsc())

    def scores(self, query: "Query", n: int) -> np.ndarray:
        if not query.lexical:
            return np.zeros(n, dtype=np.float32)
        cols = np.fromiter(query.lexical.keys(), dtype=np.int64)
        keep = cols < self.matrix.shape[1]
        cols = cols[keep]
        weights = np.fromiter(query.lexical.values(), dtype=np.float32)[keep]
        return np.asarray(self.matrix[:, cols] @ weights, dtype=np.float32).ravel()


@dataclass
class Query:
    text: str
    dense: np.ndarray
    tokens: list[str]
    lexical: dict[int, float] | None = None


@dataclass(slots=True)
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


class HybridIndex:
    def __init__(self, unit_ids: list[str], dense, vectors: np.ndarray, sparse, meta: dict) -> None:
        self.unit_ids, self.dense, self.sparse, self.meta = unit_ids, dense, sparse, meta
        self.vectors = _exact_vectors(dense) if dense is not None else None
        if self.vectors is None:
            self.vectors = vectors
        self.row_of = {u: i for i, u in enumerate(unit_ids)}

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

    def search(self, query: Query, k: int | None, mode: str = "hybrid", pool: int = 100,
               dense_weight: float = DENSE_WEIGHT, extra: Sequence[int] = ()) -> list[Scored]:
        """Top ``k`` units for one query (``mode``: hybrid, dense or sparse); ``k=None`` returns
        the whole candidate pool, ranked. ``extra`` rows join the pool (structural retrieval adds
        the units of promising sections)."""
        if mode not in ("hybrid", "dense", "sparse"):
            raise ValueError(f"unknown retrieval mode {mode!r}; use hybrid, dense or sparse")
        n = len(self)
        if n == 0 or (k is not None and k <= 0):
            return []
        depth = min(n, max(pool, k or 0))
        q = np.ascontiguousarray(query.dense.reshape(1, -1), dtype=np.float32)
        _, dense_ids = self.dense.search(q, depth)
        sparse_all = self.sparse_scores(query)
        cand = np.union1d(dense_ids[0][dense_ids[0] >= 0], _top(sparse_all, depth))
        if len(extra):
            cand = np.union1d(cand, np.asarray(extra, dtype=np.int64))
        dense_c = np.asarray(self.vectors[cand], dtype=np.float32) @ q[0]
        sparse_c = sparse_all[cand]
        if mode == "dense":
            fused = dense_c
        elif mode == "sparse":
            fused = sparse_c
        else:
            fused = dense_weight * _minmax(dense_c) + (1 - dense_weight) * _minmax(sparse_c)
        order = np.lexsort((cand, -fused))[:k]  # ties broken by row (source) order
        ids = self.unit_ids
        return [Scored(ids[row], f, d, s) for row, f, d, s in
                zip(cand[order].tolist(), fused[order].tolist(), dense_c[order].tolist(), sparse_c[order].tolist())]
