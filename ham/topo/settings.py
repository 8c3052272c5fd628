"""The ``topo`` group: the settings of ``ham-topo`` (``ham.topo.build``; docs/topo_build.md). A run
never reads them, so none enters a run id; the build records its own in its report."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ham.index.entities import EntitySettings
from ham.settings import Doc, OneOf, PromptRef, Range, setting


@dataclass
class TopoEntities(EntitySettings):
    extractor: str = setting("rake", OneOf("rake", "llm"), Doc(
        "rake: model-free keyphrases, normalised; llm: the generator lists them (one call per unit)"))


@dataclass
class TopoBridges:
    max: int = setting(50, Range(0), Doc("bridge chains composed at most"))
    per_entity: int = setting(3, Range(1), Doc("chains through one entity at most"))
    min_strength: int = setting(1, Range(0, 2), Doc("+1 hop 1's answer names the entity, +1 hop 2's question does"))


@dataclass
class TopoSynthesis:
    min_units: int = setting(5, Range(2), Doc("an entity in at least this many units (TopoGraphRAG-Bench: 5)"))
    min_points: int = setting(3, Range(2))
    max_points: int = setting(6, Range(2))
    max: int = setting(20, Range(0), Doc("synthesis questions at most"))


@dataclass
class TopoValidate:
    top_k: int = setting(20, Range(1), Doc("the text-only retrieval a synthesis question must defeat"))
    min_required: int = setting(3, Range(1), Doc("points the leave-one-out check must find necessary"))


@dataclass
class TopoPrompts:
    atomic_qa: str = setting("atomic_qa_v1", PromptRef(), Doc("versioned prompt files in ham/topo/prompts/ (or paths)"))
    bridge_compose: str = setting("bridge_compose_v1", PromptRef())
    synthesis: str = setting("synthesis_v1", PromptRef())
    sufficiency: str = setting("sufficiency_v1", PromptRef())
    entities: str = setting("entities_v1", PromptRef())


@dataclass
class TopoSettings:
    out: str = setting("${paths.output_root}/topo/${dataset.name}", Doc("where the benchmark is written"))
    units: Optional[int] = setting(None, Range(1), Doc("None: every eligible unit gets an atomic QA; N: N units "
                                                       "chosen through shared entities"))
    unit_ids: List[str] = setting(default_factory=list, doc=Doc("or exactly these units"))
    seed: int = setting("${seed}", Doc("which units when units is N, in seeded order (the run's seed)"))
    min_words: int = setting(12, Range(1), Doc("a unit whose evidence is shorter in words gets no atomic QA"))
    batch: int = setting(64, Range(1), Doc("prompts handed to the generator at once (a killed build loses at "
                                           "most one batch)"))
    entities: TopoEntities = setting(default_factory=TopoEntities)
    bridges: TopoBridges = setting(default_factory=TopoBridges)
    synthesis: TopoSynthesis = setting(default_factory=TopoSynthesis)
    validate: TopoValidate = setting(default_factory=TopoValidate)
    prompts: TopoPrompts = setting(default_factory=TopoPrompts)
