"""The dense side of a hybrid index: faiss index types, chosen by ``conf/index/``.

``flat`` is exact inner product; ``hnsw`` a graph index (CPU only in faiss); ``ivfpq`` inverted
lists with product quantisation for large corpora. Vectors are L2-normalised, so inner product is
cosine. With faiss-gpu installed and a GPU present, flat and IVF-PQ indexes are built and searched
on the GPU and saved as CPU indexes.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import numpy as np

from ham.settings import Doc, NotResult, OneOf, Range
from ham.text import NO_STEMMER, STEMMERS, check_stemmer

ADD_CHUNK = 65536
log = logging.getLogger("ham.index")


def gpu_available() -> bool:
    import faiss

    return hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0


UseGpu = Annotated[bool | None, NotResult("faiss on the GPU or the CPU: the same index"),
                   Doc("None: the GPU when faiss-gpu and a GPU are there; true; false")]
ShardSize = Annotated[int | None, Range(1),
                      NotResult("the sharded build makes the same index as the single-process one (tested)"),
                      Doc("None: one process builds the index; N: units are embedded in shards of N, each "
                          "cached on its own, and merged into one index in bounded memory (ham.index.shards)")]
Stem = Annotated[str, OneOf(NO_STEMMER, *STEMMERS), Doc("the sparse side's stemmer: none, or a Snowball stemmer (english, porter, german, ...) "
                          "applied to BM25's tokens and its queries' alike (ham.text); BGE-M3's lexical weights "
                          "ignore it")]


class FaissSpec:
    """How the index is built (a ``conf/index/`` option): the dense side's faiss structure, and
    ``stem``, how the BM25 side analyses words. ``use_gpu``: None (auto: when faiss-gpu and a GPU
    are there), true or false."""

    kind = "flat"
    gpu_capable = True

    def __init__(self, use_gpu: UseGpu = None, shard_size: ShardSize = None, stem: Stem = "none") -> None:
        self.use_gpu, self.shard_size = use_gpu, shard_size
        self.stem = check_stemmer(stem, "index.stem")

    def params(self) -> dict:
        return {"type": self.kind}

    def _make(self, dim: int, n: int):
        import faiss

        return faiss.IndexFlatIP(dim)

    def tune(self, index) -> None:
        """Search-time parameters (set again after loading)."""

    def on_gpu(self) -> bool:
        return self.use_gpu is not False and self.gpu_capable and gpu_available()

    def _to_gpu(self, index):
        import faiss

        if not hasattr(self, "_gpu_resources"):  # must outlive every GPU index made with it
            self._gpu_resources = faiss.StandardGpuResources()
        return faiss.index_cpu_to_gpu(self._gpu_resources, 0, index)

    def build(self, vectors: np.ndarray):
        n, dim = vectors.shape
        return self.build_streamed(n, dim, lambda size, seed: _training_sample(vectors, size, seed),
                                   (vectors[start:start + ADD_CHUNK] for start in range(0, n, ADD_CHUNK)))

    def build_streamed(self, n: int, dim: int, sample, chunks):
        """The index of ``n`` vectors given as ``chunks`` (in row order), trained (when its type
        trains) on ``sample(size, seed)``: the rows ``_training_sample`` draws. ``build`` and the
        sharded build (``ham.index.shards``) both go through here, so both make the same index."""
        import faiss

        index = self.trained(n, dim, sample)
        for chunk in chunks:
            for start in range(0, len(chunk), ADD_CHUNK):
                index.add(np.ascontiguousarray(chunk[start:start + ADD_CHUNK], dtype=np.float32))
        if self.on_gpu():
            index = faiss.index_gpu_to_cpu(index)
        return index

    def trained(self, n: int, dim: int, sample):
        """An empty index for ``n`` vectors, trained on ``sample(size, seed)`` when its type trains
        (on the GPU when ``on_gpu``)."""
        index = self._make(dim, n)
        if self.on_gpu():
            index = self._to_gpu(index)
        if not index.is_trained:
            seed = int(getattr(self, "seed", 0))
            if hasattr(index, "cp"):   # IVF: k-means of the coarse quantiser
                index.cp.seed = seed
            if hasattr(index, "pq"):   # and of the product quantiser's codebooks
                index.pq.cp.seed = seed
            index.train(sample(getattr(self, "train_size", n), seed))
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

    def __init__(self, m: Annotated[int, Range(2), Doc("graph neighbours per node")] = 32,
                 ef_construction: Annotated[int, Range(1), Doc("candidate list while building")] = 200,
                 ef_search: Annotated[int, Range(1), Doc("candidate list while searching")] = 128,
                 use_gpu: UseGpu = None, shard_size: ShardSize = None, stem: Stem = "none") -> None:
        super().__init__(use_gpu, shard_size, stem)
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

    def __init__(self, nlist: Annotated[int, Range(1), Doc("inverted lists (shrunk to what the corpus "
                                                            "trains: 39 points a list)")] = 1024,
                 m: Annotated[int, Range(1), Doc("sub-quantisers; must divide the vector dimension")] = 16,
                 nbits: Annotated[int, Range(1), Doc("bits per sub-quantiser code")] = 8,
                 nprobe: Annotated[int, Range(1), Doc("lists searched per query")] = 32,
                 train_size: Annotated[int, Range(1), Doc("vectors sampled to train on")] = 100_000,
                 min_vectors: Annotated[int, Range(0), Doc("below this many vectors the index is exact "
                                                           "(flat)")] = 10_000,
                 use_gpu: UseGpu = None,
                 seed: Annotated[int, Doc("training sample and k-means (the run's seed)")] = 0,
                 shard_size: ShardSize = None, stem: Stem = "none") -> None:
        super().__init__(use_gpu, shard_size, stem)
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


class IVFOnDiskSpec(IVFPQSpec):
    """IVF-PQ whose inverted lists live on disk (faiss ``OnDiskInvertedLists``, memory-mapped at
    query time), built shard by shard (``ham.index.shards``): each shard's codes are added to a
    copy of the trained index and the shards merged into one ``dense.ivfdata`` file
    (``faiss.contrib.ondisk.merge_ondisk``). Its search results equal an ``ivfpq`` index's of the
    same settings (tested); only where the lists live differs. CPU only."""

    kind = "ivfpq_ondisk"
    gpu_capable = False

    def __init__(self, nlist: Annotated[int, Range(1), Doc("inverted lists (shrunk to what the corpus "
                                                            "trains: 39 points a list)")] = 1024,
                 m: Annotated[int, Range(1), Doc("sub-quantisers; must divide the vector dimension")] = 16,
                 nbits: Annotated[int, Range(1), Doc("bits per sub-quantiser code")] = 8,
                 nprobe: Annotated[int, Range(1), Doc("lists searched per query")] = 32,
                 train_size: Annotated[int, Range(1), Doc("vectors sampled to train on")] = 100_000,
                 min_vectors: Annotated[int, Range(0), Doc("below this many vectors the index is exact "
                                                           "(flat, in memory)")] = 10_000,
                 seed: Annotated[int, Doc("training sample and k-means (the run's seed)")] = 0,
                 shard_size: Annotated[int, Range(1), NotResult("the shards merge into the same index "
                                                                 "whatever their size (tested)"),
                                       Doc("units embedded per shard (each cached on its own)")] = 100_000,
                 stem: Stem = "none") -> None:
        super().__init__(nlist, m, nbits, nprobe, train_size, min_vectors, False, seed, shard_size, stem)

    def params(self) -> dict:
        return {**super().params(), "type": self.kind}

    def load(self, path: Path):
        import faiss

        # the lists file is found beside the index, wherever the cache folder was moved
        index = faiss.read_index(str(path), faiss.IO_FLAG_ONDISK_SAME_DIR)
        self.tune(index)
        return index


def training_rows(n: int, size: int, seed: int = 0) -> np.ndarray | None:
    """The rows (sorted) of ``n`` vectors an index trains on: ``size`` drawn without replacement
    with ``seed``, or None for all of them. A function of the global row numbers only, so a
    sharded build draws the same sample whatever its shard size."""
    if n <= size:
        return None
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


def _training_sample(vectors: np.ndarray, size: int, seed: int = 0) -> np.ndarray:
    rows = training_rows(len(vectors), size, seed)
    if rows is None:
        return np.ascontiguousarray(vectors[:], dtype=np.float32)
    return np.ascontiguousarray(vectors[rows], dtype=np.float32)
