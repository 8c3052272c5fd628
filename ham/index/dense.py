"""The dense side of a hybrid index: faiss index types, chosen by ``conf/index/``.

``flat`` is exact inner product; ``hnsw`` a graph index (CPU only in faiss); ``ivfpq`` inverted
lists with product quantisation for large corpora. Vectors are L2-normalised, so inner product is
cosine. With faiss-gpu installed and a GPU present, flat and IVF-PQ indexes are built and searched
on the GPU and saved as CPU indexes.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

ADD_CHUNK = 65536
log = logging.getLogger("ham.index")


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
            seed = int(getattr(self, "seed", 0))
            if hasattr(index, "cp"):   # IVF: k-means of the coarse quantiser
                index.cp.seed = seed
            if hasattr(index, "pq"):   # and of the product quantiser's codebooks
                index.pq.cp.seed = seed
            index.train(_training_sample(vectors, getattr(self, "train_size", n), seed))
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
                 train_size: int = 100_000, min_vectors: int = 10_000, use_gpu: bool | str = "auto",
                 seed: int = 0) -> None:
        super().__init__(use_gpu)
        self.nlist, self.m, self.nbits, self.nprobe = nlist, m, nbits, nprobe
        self.train_size, self.min_vectors, self.seed = train_size, min_vectors, seed

    def params(self) -> dict:
        """What the built index depends on (the index cache key): the training sample and both
        k-means runs are drawn from ``seed`` (the run's, ``index.seed: ${seed}``)."""
        return {"type": self.kind, "nlist": self.nlist, "m": self.m, "nbits": self.nbits,
                "train_size": self.train_size, "min_vectors": self.min_vectors, "seed": self.seed}

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


def _training_sample(vectors: np.ndarray, size: int, seed: int = 0) -> np.ndarray:
    n = len(vectors)
    if n <= size:
        return np.ascontiguousarray(vectors[:], dtype=np.float32)
    rows = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
    return np.ascontiguousarray(vectors[rows], dtype=np.float32)
