"""The parts of a sharded index that stay on disk (``ham.index.shards``): unit ids, the shards'
vectors and a BM25 matrix built without holding the corpus.

``UnitIds``       ids.bin (UTF-8 ids back to back) + ids_offsets.npy (int64, n + 1), memory-mapped;
                  a row is decoded when asked for. Looking an id up (``row_of``) goes through
                  ids_hash.npy / ids_order.npy: an 8-byte BLAKE2 hash of every id, sorted, and the
                  rows in that order (binary search, then the id itself compared). 24 bytes a unit
                  on disk, nothing per unit in Python objects.
``ShardedVectors`` the shards' dense.npy files, memory-mapped, gathered by global row.
``build_bm25``    BM25 from each shard's term counts (``terms.npz``: units x the shard's own
                  terms, ``terms.json``: those terms): pass 1 adds up document frequencies and
                  lengths, pass 2 writes every (unit, term) weight straight to its place in a CSC
                  matrix on disk (data.npy, indices.npy, indptr.npy; a column's place is known
                  from the document frequencies), one shard in memory at a time. The weights are
                  bm25s's (``method="lucene"``, k1 1.5, b 0.75: what ``BM25Sparse`` builds),
                  computed the way bm25s computes them (idf rounded to float32, the rest in
                  float64, stored as float32), so the scores agree to float precision (tested).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from ham.index.sparse import ColumnSums
from ham.text import NO_STEMMER, stem_tokens

if TYPE_CHECKING:
    from ham.index.hybrid import Query

BM25_K1, BM25_B, BM25_METHOD = 1.5, 0.75, "lucene"   # bm25s.BM25()'s defaults, which BM25Sparse uses


def _hash(unit_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(unit_id.encode(), digest_size=8).digest(), "little")


class UnitIdsWriter:
    """Appends ids shard by shard; ``finish`` writes the lookup tables and refuses duplicates."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blob = (folder / "ids.bin").open("wb")
        self.offsets, self.hashes, self.at = [np.zeros(1, dtype=np.int64)], [], 0

    def add(self, ids: Sequence[str]) -> None:
        encoded = [u.encode() for u in ids]
        self.blob.write(b"".join(encoded))
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        self.offsets.append(self.at + np.cumsum(lengths))
        self.at += int(lengths.sum())
        self.hashes.append(np.fromiter((_hash(u) for u in ids), dtype=np.uint64, count=len(ids)))

    def finish(self) -> int:
        self.blob.close()
        offsets = np.concatenate(self.offsets)
        hashes = np.concatenate(self.hashes) if self.hashes else np.zeros(0, dtype=np.uint64)
        order = np.argsort(hashes, kind="stable")
        np.save(self.folder / "ids_offsets.npy", offsets)
        np.save(self.folder / "ids_hash.npy", hashes[order])
        np.save(self.folder / "ids_order.npy", order.astype(np.int64))
        ids = UnitIds(self.folder)
        same = np.flatnonzero(ids.sorted_hashes[1:] == ids.sorted_hashes[:-1])
        repeated = sorted({ids[int(ids.order[i])] for i in same if ids[int(ids.order[i])] == ids[int(ids.order[i + 1])]})
        if repeated:
            raise ValueError(f"{self.folder}: {len(repeated)} unit id(s) occur more than once across the shards, "
                             f"e.g. {repeated[:5]}; every unit needs its own id")
        return len(offsets) - 1


class RowLookup:
    """``row_of[unit_id]`` for ``UnitIds`` (the mapping ``HybridIndex.row_of`` is elsewhere)."""

    def __init__(self, ids: "UnitIds") -> None:
        self.ids = ids

    def get(self, unit_id: str, default=None):
        ids, h = self.ids, np.uint64(_hash(unit_id))
        at = int(np.searchsorted(ids.sorted_hashes, h))
        while at < len(ids.sorted_hashes) and ids.sorted_hashes[at] == h:
            row = int(ids.order[at])
            if ids[row] == unit_id:
                return row
            at += 1
        return default

    def __getitem__(self, unit_id: str) -> int:
        row = self.get(unit_id)
        if row is None:
            raise KeyError(unit_id)
        return row

    def __contains__(self, unit_id: object) -> bool:
        return isinstance(unit_id, str) and self.get(unit_id) is not None

    def __len__(self) -> int:
        return len(self.ids)


class UnitIds(Sequence):
    """The unit ids of a sharded index, read from disk a row at a time (module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.offsets = np.load(folder / "ids_offsets.npy", mmap_mode="r")
        size = (folder / "ids.bin").stat().st_size
        self.blob = np.memmap(folder / "ids.bin", dtype=np.uint8, mode="r") if size else np.zeros(0, np.uint8)
        self.sorted_hashes = np.load(folder / "ids_hash.npy", mmap_mode="r")
        self.order = np.load(folder / "ids_order.npy", mmap_mode="r")
        self.row_of = RowLookup(self)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        row = int(row)
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError(row)
        return bytes(self.blob[int(self.offsets[row]):int(self.offsets[row + 1])]).decode()

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))


class ShardedVectors:
    """The shards' embeddings as one (n, dim) array for gathering rows (``vectors[rows]``)."""

    def __init__(self, files: Sequence[Path]) -> None:
        self.parts = [np.load(f, mmap_mode="r") for f in files]
        sizes = [len(p) for p in self.parts]
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        dim = self.parts[0].shape[1] if self.parts else 0
        self.shape, self.dtype = (int(self.starts[-1]), int(dim)), np.dtype(np.float32)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((len(rows), self.shape[1]), dtype=np.float32)
        part = np.searchsorted(self.starts, rows, side="right") - 1
        for p in np.unique(part).tolist():
            mask = part == p
            out[mask] = self.parts[p][rows[mask] - self.starts[p]]
        return out


def term_counts(tokenized: Sequence[Sequence[str]], folder: Path) -> None:
    """One shard's term counts: ``terms.npz`` (CSR, units x the shard's terms, int32 counts) and
    ``terms.json`` (the terms, in column order)."""
    import scipy.sparse as sp

    vocab: dict[str, int] = {}
    flat = np.fromiter((vocab.setdefault(t, len(vocab)) for toks in tokenized for t in toks), dtype=np.int64)
    lengths = np.fromiter((len(t) for t in tokenized), dtype=np.int64, count=len(tokenized))
    width = max(len(vocab), 1)
    keys, counts = np.unique(np.repeat(np.arange(len(tokenized), dtype=np.int64), lengths) * width + flat,
                             return_counts=True)
    rows, cols = keys // width, keys % width
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(tokenized)))])
    matrix = sp.csr_matrix((counts.astype(np.int32), cols.astype(np.int32), indptr),
                           shape=(len(tokenized), len(vocab)))
    sp.save_npz(folder / "terms.npz", matrix, compressed=False)
    (folder / "terms.json").write_text(json.dumps(list(vocab), ensure_ascii=False))


def _shard_terms(folder: Path):
    import scipy.sparse as sp

    return sp.load_npz(folder / "terms.npz").tocsr(), json.loads((folder / "terms.json").read_text())


def build_bm25(shard_folders: Sequence[Path], out: Path, stem: str = NO_STEMMER) -> dict:
    """The BM25 matrix of the shards' units, in shard order, written to ``out`` (module docstring);
    ``stem``: the stemmer the shards' terms were counted with, recorded for the queries."""
    out.mkdir(parents=True, exist_ok=True)
    vocab: dict[str, int] = {}
    df = np.zeros(0, dtype=np.int64)
    n_docs, total_len = 0, 0
    for folder in shard_folders:   # pass 1: document frequencies and lengths
        matrix, terms = _shard_terms(folder)
        cols = np.fromiter((vocab.setdefault(t, len(vocab)) for t in terms), dtype=np.int64, count=len(terms))
        if len(vocab) > len(df):
            df = np.concatenate([df, np.zeros(len(vocab) - len(df), dtype=np.int64)])
        df += np.bincount(cols[matrix.indices], minlength=len(df))   # a term occurs once per row of the CSR
        n_docs, total_len = n_docs + matrix.shape[0], total_len + int(matrix.data.sum(dtype=np.int64))
    nnz = int(df.sum())
    index_dtype = np.int32 if max(nnz, n_docs) < 2**31 - 1 else np.int64   # scipy would copy mixed dtypes
    indptr = np.concatenate([[0], np.cumsum(df)]).astype(index_dtype)
    np.save(out / "indptr.npy", indptr)
    avg_len = np.float64(total_len / n_docs) if n_docs else np.float64(0.0)
    # bm25s: idf_array is float32; the term-frequency part is float64 (numpy promotes with avg_doc_len)
    idf = np.array([math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) for d in df.tolist()], dtype=np.float32)
    data_path, indices_path = out / "data.npy", out / "indices.npy"
    data_off, indices_off = _empty_npy(data_path, np.float32, nnz), _empty_npy(indices_path, index_dtype, nnz)
    cursor = indptr[:-1].astype(np.int64)
    row0 = 0
    with data_path.open("r+b") as data_fh, indices_path.open("r+b") as indices_fh:
        for folder in shard_folders:   # pass 2: each shard's weights to their columns' places
            matrix, terms = _shard_terms(folder)
            cols = np.fromiter((vocab[t] for t in terms), dtype=np.int64, count=len(terms))
            tf = matrix.data.astype(np.float32)
            lengths = np.asarray(matrix.sum(axis=1, dtype=np.int64)).ravel()   # tokens per unit, repeats counted
            doc_len = np.repeat(lengths, np.diff(matrix.indptr))
            weights = idf[cols[matrix.indices]] * (tf / (BM25_K1 * ((1 - BM25_B) + BM25_B * doc_len / avg_len) + tf))
            _write_columns(matrix, cols, weights.astype(np.float32), row0, cursor, len(vocab),
                           (data_fh, data_off), (indices_fh, indices_off, index_dtype))
            row0 += matrix.shape[0]
    if not np.array_equal(cursor, indptr[1:]):
        raise RuntimeError(f"{out}: BM25 columns not filled as counted (a shard changed between passes?)")
    (out / "vocab.json").write_text(json.dumps(list(vocab), ensure_ascii=False))
    params = {"method": BM25_METHOD, "k1": BM25_K1, "b": BM25_B, "num_docs": n_docs, "vocab": len(vocab),
              "nnz": nnz, "avg_doc_len": float(avg_len), "stem": stem}
    (out / "params.json").write_text(json.dumps(params, indent=2))
    return params


def _empty_npy(path: Path, dtype, n: int) -> int:
    """An .npy file of ``n`` entries (contents to be written in place); the data's byte offset."""
    from numpy.lib.format import open_memmap

    header = open_memmap(path, mode="w+", dtype=dtype, shape=(n,))
    offset = header.offset
    del header
    return offset


def _write_columns(matrix, cols: np.ndarray, weights: np.ndarray, row0: int, cursor: np.ndarray, n_vocab: int,
                   data: tuple, indices: tuple) -> None:
    """A shard's weights appended to each column's run on disk (positioned writes, not a writable
    memory map: dirty mapped pages would stay in the resident set and grow with the corpus)."""
    import scipy.sparse as sp

    (data_fh, data_off), (indices_fh, indices_off, index_dtype) = data, indices
    part = sp.csr_matrix((weights, cols[matrix.indices], matrix.indptr), shape=(matrix.shape[0], n_vocab)).tocsc()
    part.sort_indices()
    rows = (part.indices.astype(np.int64) + row0).astype(index_dtype)
    bounds = part.indptr
    isize = np.dtype(index_dtype).itemsize
    for col in np.flatnonzero(np.diff(bounds)).tolist():
        a, b, at = int(bounds[col]), int(bounds[col + 1]), int(cursor[col])
        os.pwrite(data_fh.fileno(), part.data[a:b].tobytes(), data_off + 4 * at)
        os.pwrite(indices_fh.fileno(), rows[a:b].tobytes(), indices_off + isize * at)
        cursor[col] = at + b - a


class StreamedBM25:
    """A ``build_bm25`` matrix, memory-mapped and scored like ``BM25Sparse`` (same ``ColumnSums``)."""

    kind = "bm25"

    def __init__(self, folder: Path) -> None:
        import scipy.sparse as sp

        self.params = json.loads((folder / "params.json").read_text())
        self.vocab = {t: i for i, t in enumerate(json.loads((folder / "vocab.json").read_text()))}
        data, indices, indptr = (np.load(folder / f"{name}.npy", mmap_mode="r") for name in ("data", "indices", "indptr"))
        matrix = sp.csc_matrix((data, indices, indptr), shape=(self.params["num_docs"], len(self.vocab)), copy=False)
        self.column_sums = ColumnSums(matrix)
        self.stem = self.params.get("stem", NO_STEMMER)

    def scores(self, query: "Query", n: int) -> np.ndarray:
        return self.column_sums([self.vocab[t] for t in stem_tokens(query.tokens, self.stem) if t in self.vocab])
