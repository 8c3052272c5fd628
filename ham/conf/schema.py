"""Structured configs derived from the components' signatures (``ham.settings``), registered in
Hydra's ConfigStore as ``schema/<group>/<ClassName>``. An option file names its schema first in
its defaults list (``- /schema/generator/OpenAIGenerator@_here_``) and sets only what differs
from the code defaults; Hydra then fills every other setting from the signature and checks each
override's type at compose time; ``ham.conf.check`` adds the ranges, choices and unknown keys.

Why not ``hydra_zen.builds(populate_full_signature=True)``: with ham's annotations (PEP 604
``int | None``, ``Annotated[int | None, Range(1)]``) hydra-zen 0.17.2 types those parameters as
``Any``, so a wrong type under them passes compose. Measured by
``benchmarks/bench_schema_typing.py``: of the components' 183 settings hydra-zen leaves 58 as
``Any``, this generator 11 (unions of several types, nested components, each checked by its own
schema). It maps each annotation to the OmegaConf type it means (``X | None`` to
``Optional[X]``, sequences to ``List``, mappings to ``Dict[str, Any]``, a component class to its
own schema) and is all the code there is to it.

``COMPONENTS`` lists the classes a config can name, per group: the one list of components.
"""
from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from ham.settings import settings_of

COMPONENTS: dict[str, list[str]] = {
    "dataset": ["ham.datasets.questions.DatasetSettings"],
    "reader": ["ham.datasets.questions.JsonlReader", "ham.datasets.mramg.MramgReader",
               "ham.datasets.mmdocir.MmdocirReader", "ham.datasets.topograph.TopographReader",
               "ham.datasets.mmdocrag.MmdocragReader", "ham.datasets.vidore.VidoreReader",
               "ham.datasets.mmlongbench.MmlongbenchReader"],
    "units": ["ham.granularity.Blocks", "ham.granularity.Merged", "ham.granularity.Sections"],
    "text_repr": ["ham.represent.templates.ContextualText", "ham.represent.templates.IsolatedText",
                  "ham.represent.templates.FlatText"],
    "image_repr": ["ham.represent.templates.ContextualImage", "ham.represent.templates.LocalImage",
                   "ham.represent.templates.FlatImage"],
    "summariser": ["ham.enrich.summaries.LeadSummariser", "ham.enrich.summaries.ChatSummariser",
                   "ham.enrich.summaries.HFSummariser"],
    "describer": ["ham.enrich.descriptions.DescriptionFile", "ham.enrich.descriptions.ChatDescriber",
                  "ham.enrich.descriptions.HFDescriber"],
    "encoder": ["ham.index.encoders.SentenceTransformerEncoder", "ham.index.encoders.BGEM3Encoder",
                "ham.index.quantized.Int8SentenceTransformerEncoder", "ham.index.onnx_encoder.OnnxEncoder"],
    "index": ["ham.index.dense.FlatSpec", "ham.index.dense.HNSWSpec", "ham.index.dense.IVFPQSpec",
              "ham.index.dense.IVFOnDiskSpec"],
    "retrieval": ["ham.retrieve.retriever.Retriever", "ham.retrieve.graph.GraphRetriever"],
    "fusion": ["ham.index.hybrid.HybridFusion", "ham.index.hybrid.DenseOnly", "ham.index.hybrid.SparseOnly"],
    "ranker": ["ham.retrieve.structural.SectionRanker"],
    "diversity": ["ham.retrieve.diversity.SectionCap", "ham.retrieve.diversity.MMR"],
    "assembly": ["ham.retrieve.budget.TreeAssembly"],
    "reranker": ["ham.retrieve.rerank.CrossEncoderReranker", "ham.retrieve.rerank.BGEReranker",
                 "ham.retrieve.rerank.OnnxCrossEncoderReranker"],
    "pages": ["ham.retrieve.pages.PageRetrieval"],
    "page_encoder": ["ham.index.page_encoders.ColPaliEncoder", "ham.index.page_encoders.ColQwen2Encoder",
                     "ham.index.page_encoders.VisRAGEncoder"],
    "method": ["ham.methods.ham.HamAssembler", "ham.methods.llm_based.LlmBasedMethod",
               "ham.methods.mllm_based.MllmBasedMethod", "ham.methods.rule_based.RuleBasedMethod",
               "ham.methods.page_based.PageBasedMethod"],
    "generator": ["ham.generate.extractive.ExtractiveGenerator", "ham.generate.openai_chat.OpenAIGenerator",
                  "ham.generate.hf.HFGenerator", "ham.generate.hf_vision.HFVisionGenerator"],
    "client": ["ham.backends.chat.ChatClient", "ham.metrics.judge.HFChat"],
    "cost": ["ham.generate.cost.CostSettings"],
    "metrics": ["ham.metrics.evaluator.MetricsSettings"],
    "judge": ["ham.metrics.judge.Judge"],
    "system": ["ham.systems.adapter.LightRAGSystem", "ham.systems.adapter.HippoRAGSystem",
               "ham.systems.adapter.RAGAnythingSystem", "ham.systems.adapter.MegaRAGSystem"],
    "logger": ["ham.run.tracking.WandbLogger"],
    "topo": ["ham.topo.settings.TopoSettings"],
    "engine": ["ham.run.engines.LocalEngine", "ham.run.engines.RayEngine", "ham.run.engines.SlurmEngine"],
}
# plain settings groups (read by the code, not instantiated): their dataclass is their schema
PLAIN_GROUPS = {group: COMPONENTS[group][0] for group in ("dataset", "cost", "metrics", "topo")}


def declared_block(prefix: str, key: str):
    """The settings dataclass a node stands for when nothing in the node says (a plain config
    read back from a run folder): the root, or a plain group under it."""
    if prefix:
        return None
    return load(PLAIN_GROUPS[key]) if key in PLAIN_GROUPS else None


def load(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _is_component(cls) -> bool:
    return isinstance(cls, type) and any(cls.__name__ == p.rpartition(".")[2] and load(p) is cls
                                         for paths in COMPONENTS.values() for p in paths)


def config_type(hint):
    """The OmegaConf type an annotation means (module docstring)."""
    if hint is Any or hint is None or isinstance(hint, str):
        return Any
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return config_type(args[0])
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            inner = config_type(rest[0])
            return Any if inner is Any else Optional[inner]
        return Any   # a union of several types or components: each node is checked by its own _target_
    if origin is typing.Literal:
        kinds = {type(a) for a in args}
        return kinds.pop() if len(kinds) == 1 else Any
    if origin in (list, tuple, set, frozenset, Sequence) or hint in (list, tuple):
        inner = [a for a in args if a is not Ellipsis]
        return List[config_type(inner[0])] if inner else List[Any]
    if origin in (dict, Mapping) or hint is dict:
        return Dict[str, Any]
    if hint in (int, float, str, bool):
        return hint
    if dataclasses.is_dataclass(hint):
        return hint   # a settings block: its dataclass is its schema
    if _is_component(hint):
        return Any   # a nested component: its schema comes with its defaults-list entry
    return Any


def _settings_block(hint):
    """The settings dataclass a (possibly optional) annotation names, or None."""
    if dataclasses.is_dataclass(hint):
        return hint
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        return rest[0] if len(rest) == 1 and dataclasses.is_dataclass(rest[0]) else None
    return None


def _field(s) -> tuple:
    kind = config_type(s.type)
    if s.required:
        return s.name, kind, dataclasses.field(default=MISSING)
    default = s.default
    block = _settings_block(s.type)
    if block is not None:   # None or an instance: the block's defaults, shown in the config
        return s.name, block, dataclasses.field(default_factory=block if default is None else (lambda d=default: d))
    if isinstance(default, (list, tuple, set, frozenset)):
        return s.name, kind, dataclasses.field(default_factory=lambda d=list(default): list(d))
    if isinstance(default, Mapping):
        return s.name, kind, dataclasses.field(default_factory=lambda d=dict(default): dict(d))
    if default is not None and not isinstance(default, (int, float, str, bool)):
        return s.name, Any, dataclasses.field(default=None)   # an object default: the option file sets the node
    return s.name, kind, dataclasses.field(default=default)


def schema_of(path: str) -> type:
    """The structured config of the class at ``path``: ``_target_`` and one field per setting."""
    cls = load(path)
    if dataclasses.is_dataclass(cls):
        return cls
    fields = [("_target_", str, dataclasses.field(default=path))]
    fields += [_field(s) for s in settings_of(cls).values()]
    return dataclasses.make_dataclass(cls.__name__, fields, namespace={"__ham_target__": path})


@dataclasses.dataclass
class Nothing:
    """A group set to none (``describer=none``, ``judge=none``, ``logger=none``, ``reranker=none``,
    ``pages=none``, ``system=none``)."""

    _target_: Optional[str] = None


def register_schemas(store) -> None:
    from ham.conf.root import Root

    store.store(name="ham_schema", node=Root)
    for group, paths in COMPONENTS.items():
        for path in paths:
            store.store(group=f"schema/{group}", name=path.rpartition(".")[2], node=schema_of(path))
    for group in ("describer", "judge", "logger", "reranker", "pages", "system"):
        store.store(group=f"schema/{group}", name="Nothing", node=Nothing)
