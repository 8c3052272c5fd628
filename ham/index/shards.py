"""A hybrid index built as shards, in bounded memory (``index.shard_size``, ``index=ivf_ondisk``).

    tasks   = plan_shards(ids, texts, contents, encoder, cache_root, shard_size)   # no model loaded
    results = engine.map(run_shard, tasks)          # or [run_shard(t) for t in tasks]: any order, any process
    index, info = merge_shards(results, spec, cache_root)

A corpus's unit strings are cut, in unit order, into shards of ``shard_size`` units. ``run_shard``
embeds one shard (the encoder rebuilt from its ``spec()`` in the worker, once per process) and
counts its BM25 terms, into ``<cache root>/shards/<key>/`` (dense.npy, ids.json, terms.npz,
terms.json, truncation.json, meta.json). The key is what the single-process build keys its
embeddings by, for the shard's own strings: the exact ids + embedded strings x encoder id x the
configured window x the windows mode x versions, plus the BM25 strings (when they differ from the
embedded ones), the tokenizer's version and the stemmer (``index.stem``). A task is pure and idempotent: a shard whose folder is
complete is never redone, and a lost one is redone alone.

``merge_shards`` builds one index over the shards, in shard order, under
``<cache root>/sharded/<key>/`` (key: the shard keys in order x the index settings), never holding
every vector or string at once (``ham.index.ondisk``): unit ids to compact files; the dense index
trained on the rows ``training_rows`` draws from the global row numbers with the index's seed (so
independent of the shard size) and filled shard by shard (flat, HNSW, IVF-PQ in memory; with
``ivf_ondisk`` each shard's codes go to a file and ``merge_ondisk`` joins them into one
``dense.ivfdata``); BM25 from the shards' term counts, as memory-mapped CSC arrays. The merged
index equals ``ham.index.build.index_strings``'s for the same strings and settings (tests).

Memory of the merge: one shard's vectors and term counts at a time, plus 16 bytes a unit for the
ids' offsets and hashes, the BM25 vocabulary and document frequencies, and the dense index itself
as faiss keeps it (flat and HNSW: every vector, so they suit small corpora; IVF-PQ: m bytes + an
8-byte id a unit; on-disk lists: memory-mapped). docs/scale.md has the measured figures.
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ham.cache import FolderCache, key_of
from ham.index.dense import FaissSpec, IVFOnDiskSpec, training_rows
from ham.index.digest import INDEX_VERSION, strings_digest
from ham.index.encoders import BatchedEncoder
from ham.index.hybrid import HybridIndex
from ham.index.ondisk import ShardedVectors, StreamedBM25, UnitIds, UnitIdsWriter, build_bm25, term_counts
from ham.index.sparse import LexicalSparse
from ham.index.windows import encode_windowed, encoding_key_parts, is_windowed, truncation
from ham.text import NO_STEMMER, TOKENIZER_VERSION, check_stemmer, stemmer_key, tokenize

log = logging.getLogger("ham.index.shards")
SHARDS_VERSION = "1"


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to embed one shard (picklable). ``encoder``: the encoder's
    ``spec()``; ``sparse_texts``: what BM25 counts, when not ``texts``; ``stem``: how its words are
    stemmed (``ham.text``)."""

    shard: int
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    contents: tuple[str, ...] | None
    encoder: dict
    cache_root: str
    sparse_texts: tuple[str, ...] | None = None
    stem: str = NO_STEMMER


def _digest(ids: Sequence[str], texts: Sequence[str]) -> str:
    return strings_digest(list(ids), list(texts))


def _check_lengths(ids, **named) -> None:
    for name, values in named.items():
        if values is not None and len(values) != len(ids):
            raise ValueError(f"sharded index: {len(ids)} unit ids but {len(values)} {name}; each unit needs one")


def _check_ids(ids: Sequence[str]) -> None:
    bad = [u for u in ids if not isinstance(u, str) or not u]
    if bad:
        raise ValueError(f"sharded index: unit ids must be non-empty strings, not {bad[:3]!r}")
    if len(set(ids)) != len(ids):
        seen, repeated = set(), []
        for u in ids:
            if u in seen and u not in repeated:
                repeated.append(u)
            seen.add(u)
        raise ValueError(f"sharded index: {len(repeated)} unit id(s) occur more than once, e.g. {repeated[:5]}")


def _encoder_spec(encoder) -> dict:
    return encoder if isinstance(encoder, dict) else encoder.spec()


def plan_shards(ids: Sequence[str], texts: Sequence[str], contents: Sequence[str] | None, encoder,
                cache_root: str | Path, shard_size: int,
                sparse_texts: Sequence[str] | None = None, stem: str = NO_STEMMER) -> list[ShardTask]:
    """The shard tasks of one corpus, in unit order: ``shard_size`` units each (the last one
    shorter), one empty shard for an empty corpus. ``encoder``: an encoder or its ``spec()``."""
    _check_lengths(ids, texts=texts, contents=contents, sparse_texts=sparse_texts)
    _check_ids(ids)
    if not isinstance(shard_size, int) or shard_size < 1:
        raise ValueError(f"sharded index: shard_size must be a positive integer, not {shard_size!r}")
    spec, root = _encoder_spec(encoder), str(Path(cache_root))
    stem = check_stemmer(stem, "index.stem")
    starts = range(0, len(ids), shard_size) if len(ids) else [0]

    def part(values, a):
        return None if values is None else tuple(values[a:a + shard_size])

    return [ShardTask(i, tuple(ids[a:a + shard_size]), tuple(texts[a:a + shard_size]), part(contents, a), spec, root,
                      part(sparse_texts, a) if sparse_texts is not None and sparse_texts is not texts else None,
                      stem)
            for i, a in enumerate(starts)]


def shard_key(task: ShardTask, encoder: BatchedEncoder) -> str:
    sparse = None if task.sparse_texts is None else _digest(task.ids, task.sparse_texts)
    return key_of(["shard", _digest(task.ids, task.texts), sparse,
                   *encoding_key_parts(encoder, is_windowed(encoder, task.contents)),
                   "terms", TOKENIZER_VERSION, SHARDS_VERSION, *stemmer_key(task.stem)])


def run_shard(task: ShardTask) -> dict:
    """Embed and count one shard into the cache, unless it is there (idempotent)."""
    _check_lengths(task.ids, texts=task.texts, contents=task.contents, sparse_texts=task.sparse_texts)
    encoder = BatchedEncoder.from_spec(task.encoder)
    key = shard_key(task, encoder)
    ids, texts = list(task.ids), list(task.texts)

    def build(folder: Path) -> None:
        started = time.perf_counter()
        desc, plan = f"shard {task.shard}", None
        if is_windowed(encoder, task.contents):
            plan = encode_windowed(encoder, texts, list(task.contents), folder, desc)
        else:
            encoder.encode_to(texts, folder, desc=desc)
        if task.contents is not None:
            (folder / "truncation.json").write_text(json.dumps(truncation(list(task.contents), texts, encoder, plan)))
        if not encoder.has_sparse:
            term_counts(tokenize(list(task.sparse_texts) if task.sparse_texts is not None else texts, task.stem),
                        folder)
        (folder / "ids.json").write_text(json.dumps(ids))
        (folder / "meta.json").write_text(json.dumps({
            "shard": task.shard, "rows": len(ids), "encoder": encoder.model_id, "has_sparse": encoder.has_sparse,
            "stem": task.stem,
            "seconds": round(time.perf_counter() - started, 3)}, indent=2, sort_keys=True))

    folder, reused = FolderCache(task.cache_root).get_or_build("shards", key, build)
    return {"shard": task.shard, "key": key, "folder": str(folder), "rows": len(ids), "reused": reused}


def _ordered(results: list[dict]) -> list[dict]:
    results = sorted(results, key=lambda r: r["shard"])
    numbers = [r["shard"] for r in results]
    if numbers != list(range(len(results))):
        raise ValueError(f"merge_shards: shards must be numbered 0..{len(results) - 1}, each once; got {numbers}")
    missing = [r["folder"] for r in results if not (Path(r["folder"]) / ".complete").exists()]
    if missing:
        raise FileNotFoundError(f"merge_shards: shard folder(s) missing or incomplete, run those shards again: "
                                f"{missing[:3]}")
    return results


def _gather_rows(files: list[Path], starts: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """The vectors at global ``rows`` (None: every row), reading one shard's file at a time."""
    parts = []
    for p, path in enumerate(files):
        vectors = np.load(path, mmap_mode="r")
        if rows is None:
            parts.append(np.array(vectors, dtype=np.float32))
        else:
            mine = rows[(rows >= starts[p]) & (rows < starts[p + 1])] - starts[p]
            parts.append(np.array(vectors[mine], dtype=np.float32))
        del vectors   # unmapped: its pages leave the resident set
    return np.ascontiguousarray(np.concatenate(parts)) if parts else np.zeros((0, 0), np.float32)


def _chunks(files: list[Path]):
    for path in files:
        vectors = np.load(path, mmap_mode="r")
        yield vectors
        del vectors


def _dense(spec: FaissSpec, files: list[Path], starts: np.ndarray, dim: int, folder: Path) -> None:
    import faiss

    n = int(starts[-1])

    def sample(size: int, seed: int) -> np.ndarray:
        return _gather_rows(files, starts, training_rows(n, size, seed))

    if not isinstance(spec, IVFOnDiskSpec) or n < max(spec.min_vectors, 1):
        faiss.write_index(spec.build_streamed(n, dim, sample, _chunks(files)), str(folder / "dense.faiss"))
        return
    trained = spec.trained(n, dim, sample)
    names = []
    for p, vectors in enumerate(_chunks(files)):
        part = faiss.clone_index(trained)
        part.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32),
                          np.arange(starts[p], starts[p + 1], dtype=np.int64))
        names.append(str(folder / f"part-{p}.faiss"))
        faiss.write_index(part, names[-1])
        del part
    from faiss.contrib.ondisk import merge_ondisk

    merge_ondisk(trained, names, str(folder / "dense.ivfdata"))
    faiss.write_index(trained, str(folder / "dense.faiss"))
    for name in names:
        Path(name).unlink()


def _lexical(files: list[Path], folder: Path) -> None:
    """BGE-M3's lexical weights of every shard, stacked in memory (unlike BM25: not bounded)."""
    import scipy.sparse as sp

    sp.save_npz(folder / "sparse.npz", sp.vstack([sp.load_npz(f / "sparse.npz") for f in files], format="csr"))


def merge_shards(results: list[dict], spec: FaissSpec, cache_root: str | Path | None = None,
                 meta: dict | None = None) -> tuple[HybridIndex, dict]:
    """One index over the shards ``run_shard`` returned, in shard order (module docstring)."""
    results = _ordered(results)
    folders = [Path(r["folder"]) for r in results]
    cache = FolderCache(cache_root if cache_root is not None else folders[0].parent.parent)
    metas = [json.loads((f / "meta.json").read_text()) for f in folders]
    encoders = {m["encoder"] for m in metas}
    if len(encoders) != 1:
        raise ValueError(f"merge_shards: the shards were embedded with different encoders: {sorted(encoders)}")
    has_sparse = metas[0]["has_sparse"]
    sparse_kind = LexicalSparse.kind if has_sparse else StreamedBM25.kind
    stems = {m.get("stem", NO_STEMMER) for m in metas}
    if len(stems) != 1:
        raise ValueError(f"merge_shards: the shards' BM25 terms were stemmed differently: {sorted(stems)}")
    stem = stems.pop()
    keys = [r["key"] for r in results]
    meta = {**(meta or {}), "encoder": encoders.pop(), "shards": key_of(keys)}
    mkey = key_of(["sharded", keys, spec.params(), sparse_kind, INDEX_VERSION, SHARDS_VERSION])

    def build(folder: Path) -> None:
        files = [f / "dense.npy" for f in folders]
        writer = UnitIdsWriter(folder)
        sizes = []
        for f in folders:
            ids = json.loads((f / "ids.json").read_text())
            writer.add(ids)
            sizes.append(len(ids))
        writer.finish()
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        dim = int(np.load(files[0], mmap_mode="r").shape[1])
        _dense(spec, files, starts, dim, folder)
        if has_sparse:
            _lexical(folders, folder)
        elif starts[-1]:
            build_bm25(folders, folder / "bm25", stem)
        cuts = [json.loads((f / "truncation.json").read_text()) for f in folders if (f / "truncation.json").exists()]
        cuts = [c for c in cuts if c]
        summed = ({k: (sum(c.get(k, 0) for c in cuts) if k not in ("max_tokens", "long_text") else cuts[0][k])
                   for k in cuts[0]} if cuts else None)
        (folder / "shards.json").write_text(json.dumps(
            [{"shard": i, "key": r["key"], "rows": int(s)} for i, (r, s) in enumerate(zip(results, sizes))]))
        if summed is not None:
            (folder / "truncation.json").write_text(json.dumps(summed))
        (folder / "meta.json").write_text(json.dumps(dict(meta, index=spec.params(), sparse=sparse_kind,
                                                          size=int(starts[-1]), dim=dim, shard_count=len(results)),
                                                     indent=2, sort_keys=True))

    folder, reused = cache.get_or_build("sharded", mkey, build)
    index = load_sharded(folder, cache.root, spec)
    info = {"key": mkey, "reused": reused, "shards": len(results),
            "shards_reused": sum(bool(r.get("reused")) for r in results), "size": len(index),
            "index": spec.params(), "sparse": sparse_kind, "stem": None if has_sparse else stem}
    if (folder / "truncation.json").exists():
        info["truncation"] = json.loads((folder / "truncation.json").read_text())
    return index, info


def load_sharded(folder: Path, cache_root: str | Path, spec: FaissSpec | None = None) -> HybridIndex:
    """A merged index from its folder, its vectors read from the shards' folders."""
    meta = json.loads((folder / "meta.json").read_text())
    shards = json.loads((folder / "shards.json").read_text())
    cache = FolderCache(cache_root)
    shard_folders = [cache.path("shards", s["key"]) for s in shards]
    vectors = ShardedVectors([f / "dense.npy" for f in shard_folders])
    dense = (spec or FaissSpec(use_gpu=False)).load(folder / "dense.faiss")
    ids = UnitIds(folder)
    sparse = None
    if len(ids):
        sparse = LexicalSparse.load(folder / "sparse.npz") if meta["sparse"] == LexicalSparse.kind \
            else StreamedBM25(folder / "bm25")
    return HybridIndex(ids, dense, vectors, sparse, meta)


def build_sharded(ids: Sequence[str], texts: Sequence[str], encoder: BatchedEncoder, spec: FaissSpec,
                  cache: FolderCache | str | Path, meta: dict | None = None, sparse_texts: Sequence[str] | None = None,
                  contents: Sequence[str] | None = None, shard_size: int | None = None,
                  engine=None) -> tuple[HybridIndex, dict]:
    """``index_strings``'s index, built as shards: plan, run every shard (through ``engine.map(fn,
    tasks)`` when given: Ray, submitit...; else in this process), merge. ``shard_size``: the
    spec's when not given."""
    root = cache.root if isinstance(cache, FolderCache) else Path(cache)
    size = shard_size or getattr(spec, "shard_size", None)
    if not size:
        raise ValueError("build_sharded: no shard_size (give one, or set index.shard_size)")
    tasks = plan_shards(ids, texts, contents, encoder, root, int(size), sparse_texts, getattr(spec, "stem", NO_STEMMER))
    results = list(engine.map(run_shard, tasks)) if engine is not None else [run_shard(t) for t in tasks]
    index, info = merge_shards(results, spec, root, meta)
    index.check_encoder(encoder.model_id)
    return index, info


def remove_shard(cache_root: str | Path, key: str) -> None:
    """Delete one shard's folder (a lost shard, as a test or an operator makes one)."""
    shutil.rmtree(FolderCache(cache_root).path("shards", key))
