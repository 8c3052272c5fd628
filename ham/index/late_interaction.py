"""Multi-vector page indexes: exact MaxSim, token pooling, and their cost in bytes.

MaxSim (ColBERT's late interaction, as ColPali scores pages): for query vectors q_1..q_n and a
page's vectors d_1..d_m, ``score = sum_i max_j <q_i, d_j>``. ``maxsim_scores`` computes it exactly
for every page at once: the query against all stored token vectors (one matrix product per chunk
of pages), the maximum over each page's rows (``np.maximum.reduceat`` over the page offsets), the
sum over the query's vectors. A single-vector encoder stores one row per page, where MaxSim is
the inner product.

Compression, ``pool_factor``: hierarchical token pooling (the ColPali paper's, as vidore-
benchmark's ``HierarchicalEmbeddingPooler`` does it): a page's m vectors are clustered into
``max(m // pool_factor, 1)`` clusters (Ward linkage, scipy), each cluster's mean L2-normalised is
one stored vector. Clustering is on the unit vectors themselves (Euclidean distance between unit
vectors orders pairs as cosine distance does); vidore-benchmark clusters the rows of the
``1 - similarity`` matrix instead. ``pool_factor=1`` stores every vector: exact MaxSim.
``store_dtype`` (float16, float32) is the stored precision; scores are computed in float32.

Storage (never pickle): ``tokens.bin`` (raw rows, ``store_dtype``, memory-mapped at query time),
``offsets.npy`` (int64, page i is rows ``offsets[i]:offsets[i+1]``), ``ids.json``, ``meta.json``.
``bytes`` and ``bytes_per_item`` are the sizes of the tokens and offsets: what a comparison of
cost needs.

Building (``build_index``) is resumable and content-addressed. Each page's raw vectors (float32,
as the encoder returned them) are stored once per (encoder id, image content) under
``<cache>/page_vectors/`` as they are computed, a chunk of pages at a time, so a killed build
encodes only what is missing when run again, and two corpora (or two pool factors) sharing a page
image share its vectors. The index folder (``page_index/<key>``) is keyed by the ordered vector
keys, ids, ``pool_factor``, ``store_dtype`` and ``POOL_VERSION``.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ham.cache import FolderCache, key_of

log = logging.getLogger("ham.index.late_interaction")
POOL_VERSION = "1"
STORE_DTYPES = {"float16": np.float16, "float32": np.float32}
CHUNK_ROWS = 1 << 20          # token rows scored per matrix product
ENCODE_CHUNK = 32             # pages encoded (and stored) per step of a build


def maxsim_scores(query: np.ndarray, tokens: np.ndarray, offsets: np.ndarray, chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """Exact MaxSim of one query (n, dim) against every page (module docstring)."""
    n_pages = len(offsets) - 1
    out = np.empty(n_pages, dtype=np.float32)
    q = np.ascontiguousarray(query, dtype=np.float32).T
    start = 0
    while start < n_pages:
        end = int(np.searchsorted(offsets, offsets[start] + chunk_rows, side="right")) - 1
        end = min(n_pages, max(end, start + 1))
        lo, hi = int(offsets[start]), int(offsets[end])
        sims = np.asarray(tokens[lo:hi], dtype=np.float32) @ q
        out[start:end] = np.maximum.reduceat(sims, offsets[start:end] - lo, axis=0).sum(axis=1)
        start = end
    return out


def hierarchical_pool(vectors: np.ndarray, pool_factor: int) -> np.ndarray:
    """A page's vectors pooled by ``pool_factor`` (module docstring); unchanged for 1."""
    from scipy.cluster.hierarchy import fcluster, linkage

    vectors = np.asarray(vectors, dtype=np.float32)
    if pool_factor <= 1 or len(vectors) < 2:
        return vectors
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    clusters = max(len(unit) // pool_factor, 1)
    labels = fcluster(linkage(unit.astype(np.float64), method="ward"), t=clusters, criterion="maxclust")
    pooled = np.stack([unit[labels == c].mean(axis=0) for c in np.unique(labels)])
    return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


class MultiVectorIndex:
    """A built index folder (module docstring), memory-mapped."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.meta = json.loads((self.folder / "meta.json").read_text())
        self.ids: list[str] = json.loads((self.folder / "ids.json").read_text())
        self.offsets = np.load(self.folder / "offsets.npy")
        rows, dim = int(self.offsets[-1]), int(self.meta["dim"])
        dtype = STORE_DTYPES[self.meta["store_dtype"]]
        self.tokens = (np.memmap(self.folder / "tokens.bin", dtype=dtype, mode="r", shape=(rows, dim))
                       if rows else np.zeros((0, dim), dtype=dtype))
        self.position = {item: i for i, item in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def bytes(self) -> int:
        return int(self.tokens.nbytes + self.offsets.nbytes)

    @property
    def bytes_per_item(self) -> float:
        return self.bytes / len(self.ids) if self.ids else 0.0

    @property
    def vectors_per_item(self) -> float:
        return float(self.offsets[-1]) / len(self.ids) if self.ids else 0.0

    def scores(self, query: np.ndarray) -> np.ndarray:
        if not self.ids:
            return np.zeros(0, dtype=np.float32)
        return maxsim_scores(query, self.tokens, self.offsets)

    def search(self, query: np.ndarray, k: int | None = None) -> list[tuple[str, float]]:
        """(id, score) best first; ties keep index order (a stable sort), ``k`` None: all."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")
        if k is not None:
            order = order[:k]
        return [(self.ids[i], float(scores[i])) for i in order]


class VectorStore:
    """Raw vectors of one item per key, ``<root>/page_vectors/<key[:2]>/<key>.npy`` (written to a
    temporary name, then renamed: a killed build never leaves a torn file)."""

    def __init__(self, root: str | Path, kind: str = "page_vectors") -> None:
        self.folder = Path(root) / kind

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.npy"

    def has(self, key: str) -> bool:
        return self.path(key).exists()

    def get(self, key: str) -> np.ndarray:
        return np.load(self.path(key))

    def put(self, key: str, vectors: np.ndarray) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.npy")
        np.save(tmp, np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, path)


@dataclass
class Item:
    """One thing to embed: its id, a digest of exactly what is embedded, and how to load it."""

    item_id: str
    digest: str
    load: Callable[[], object]


def file_digest(path: str | Path, *extra) -> str:
    h = hashlib.sha256(Path(path).read_bytes())
    for part in extra:
        h.update(b"\0" + json.dumps(part, sort_keys=True).encode())
    return h.hexdigest()[:32]


def encode_missing(items: Sequence[Item], encoder, store: VectorStore, show_progress: bool = False) -> dict:
    """Encode the items whose vectors the store lacks, a chunk at a time, each chunk stored as soon
    as it is done; returns how many were encoded and reused."""
    from tqdm import tqdm

    keys = [key_of([encoder.model_id, it.digest]) for it in items]
    todo = [(it, k) for it, k in zip(items, keys) if not store.has(k)]
    started = time.perf_counter()
    with tqdm(total=len(todo), desc=f"pages ({encoder.model_name})", unit="page",
              disable=not show_progress or not todo) as bar:
        for start in range(0, len(todo), ENCODE_CHUNK):
            chunk = todo[start:start + ENCODE_CHUNK]
            vectors = encoder.encode_images([it.load() for it, _ in chunk])
            for (_, key), vec in zip(chunk, vectors):
                store.put(key, vec)
            bar.update(len(chunk))
    return {"encoded": len(todo), "reused": len(items) - len(todo),
            "encode_seconds": round(time.perf_counter() - started, 3), "keys": keys}


def build_index(items: Sequence[Item], encoder, cache: FolderCache, pool_factor: int = 1,
                store_dtype: str = "float16", show_progress: bool = False) -> tuple[MultiVectorIndex, dict]:
    """The index of ``items`` under ``encoder`` (module docstring), and a record of the build."""
    if pool_factor < 1:
        raise ValueError(f"pages.pool_factor must be >= 1, not {pool_factor}")
    if store_dtype not in STORE_DTYPES:
        raise ValueError(f"pages.store_dtype must be one of {', '.join(STORE_DTYPES)}, not {store_dtype!r}")
    store = VectorStore(cache.root)
    encoded = encode_missing(items, encoder, store, show_progress)
    keys = encoded.pop("keys")
    ids = [it.item_id for it in items]
    ikey = key_of(["page_index", keys, ids, pool_factor, store_dtype, POOL_VERSION])

    def build(folder: Path) -> None:
        offsets, dim = [0], None
        with (folder / "tokens.bin").open("wb") as fh:
            for item, key in zip(items, keys):
                pooled = hierarchical_pool(store.get(key), pool_factor)
                if len(pooled) == 0:
                    raise ValueError(f"{item.item_id}: the encoder returned no vectors for it")
                dim = pooled.shape[1] if dim is None else dim
                if pooled.shape[1] != dim:
                    raise ValueError(f"{item.item_id}: vectors of dimension {pooled.shape[1]}, the others {dim}")
                fh.write(np.ascontiguousarray(pooled, dtype=STORE_DTYPES[store_dtype]).tobytes())
                offsets.append(offsets[-1] + len(pooled))
        np.save(folder / "offsets.npy", np.asarray(offsets, dtype=np.int64))
        (folder / "ids.json").write_text(json.dumps(ids))
        (folder / "meta.json").write_text(json.dumps({"encoder": encoder.model_id, "dim": int(dim or 0),
                                                      "pool_factor": pool_factor, "store_dtype": store_dtype,
                                                      "items": len(ids), "version": POOL_VERSION}, indent=2))

    started = time.perf_counter()
    folder, reused = cache.get_or_build("page_index", ikey, build)
    index = MultiVectorIndex(folder)
    if index.meta["encoder"] != encoder.model_id:
        raise ValueError(f"page index {folder} was built with {index.meta['encoder']}, not {encoder.model_id}")
    return index, {"key": ikey, "reused": reused, **encoded, "index_seconds": round(time.perf_counter() - started, 3),
                   "items": len(index), "bytes": index.bytes, "bytes_per_item": round(index.bytes_per_item, 1),
                   "vectors_per_item": round(index.vectors_per_item, 2), "pool_factor": pool_factor,
                   "store_dtype": store_dtype, "encoder": encoder.model_id}
