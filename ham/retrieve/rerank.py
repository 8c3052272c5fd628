"""Reranking (config group ``reranker``): a cross-encoder rescores the best ``top_n`` fused text
candidates of a query; the rest keep their fused order behind them.

    none           no reranking (the CPU default: no cross-encoder ships in a PyPI package)
    cross_encoder  any sentence-transformers ``CrossEncoder`` folder (e.g. a saved
                   cross-encoder/ms-marco-MiniLM-L-6-v2), or a hub id already in the HF cache
    bge            FlagEmbedding's ``FlagReranker`` (BAAI/bge-reranker-v2-m3; fp16 on GPU)

A candidate is shown to the reranker as its heading path and content (``passage``), so the
reranker sees the hierarchy too. Scores are cached per (model, query) under
``<cache root>/rerank/``: one JSON file per query holding the score of each (unit, passage) pair
seen, so another configuration over the same candidates asks the model only for the new ones.
Pairs go to the model in batches of ``batch_size``.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Sequence

from ham.backends.local import local_model_id, model_source, torch_device
from ham.cache import KeyedStore, key_of
from ham.index.hybrid import Scored
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


class Reranker:
    """Caching, batching and reordering; subclasses give ``model_id`` and ``_scores``."""

    model_id = ""

    def __init__(self, top_n: int = 50, batch_size: int = 32, cache_root: str | None = None) -> None:
        if top_n < 1 or batch_size < 1:
            raise ValueError("reranker: top_n and batch_size must be >= 1")
        self.top_n, self.batch_size = top_n, batch_size
        self.cache_root = cache_root
        self.calls = 0          # pairs sent to the model (the cost a benchmark reports)

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
        key = key_of([self.model_id, query])
        known = dict((store.get(key) or {}).get("scores", {})) if store else {}
        keys = [_pair_key(u, t) for u, t in pairs]
        todo = [i for i, k in enumerate(keys) if k not in known]
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start:start + self.batch_size]
            for i, score in zip(chunk, self._scores(query, [pairs[i][1] for i in chunk])):
                known[keys[i]] = float(score)
            self.calls += len(chunk)
        if store is not None and todo:
            store.put(key, {"model": self.model_id, "query": query, "scores": known})
        return [known[k] for k in keys]

    def rerank(self, query: str, scored: list[Scored], units: dict[str, EvidenceUnit]) -> list[Scored]:
        head, tail = scored[: self.top_n], scored[self.top_n:]
        if not head:
            return scored
        values = self.scores(query, [(s.unit_id, passage(units[s.unit_id])) for s in head])
        order = sorted(range(len(head)), key=lambda i: (-values[i], i))   # ties: the fused order
        return [replace(head[i], score=values[i]) for i in order] + tail


class CrossEncoderReranker(Reranker):
    def __init__(self, model: Annotated[str, Model(), Doc("a sentence-transformers CrossEncoder folder or hub "
                                                          "id in the local HF cache")],
                 top_n: TopN = 50, batch_size: RerankBatch = 32, max_length: MaxLength = 512,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 cache_root: CacheRoot = None) -> None:
        super().__init__(top_n, batch_size, cache_root)
        self.path = model_source(model)
        self.model_id = local_model_id("cross-encoder", self.path)
        self.max_length, self.device = max_length, torch_device(device)
        self._model = None

    def _scores(self, query: str, texts: list[str]) -> list[float]:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(self.path, device=self.device, max_length=self.max_length, local_files_only=True)
        out = self._model.predict([(query, t) for t in texts], batch_size=len(texts), show_progress_bar=False)
        return [float(x) for x in out]


class BGEReranker(Reranker):
    def __init__(self, model: Annotated[str, Model(), Doc("BAAI/bge-reranker-v2-m3 (folder or HF "
                                                          "cache)")] = "BAAI/bge-reranker-v2-m3",
                 top_n: TopN = 50, batch_size: RerankBatch = 32, max_length: MaxLength = 512,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 use_fp16: Annotated[bool | None, Doc("None: fp16 on GPU")] = None,
                 cache_root: CacheRoot = None) -> None:
        super().__init__(top_n, batch_size, cache_root)
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
