"""The metric registry: a metric is one registered object binding its computation, what it needs,
its aggregation, its direction, its label and its scale (as lm-evaluation-harness binds compute
and aggregation in its registry).

    @metric("ir", family="retrieval", label="IR", description="...")
    def image_retrieval_recall(case: Case, res: Resources) -> float | None: ...

A compute function gets the question's ``Case`` (the question with its golds, the retrieved text
and image rows in rank order, the page rows where page retrieval ran, the parsed answer or None for a failed generation, and the scores
computed so far) and the run's ``Resources`` (``judge``, ``bertscore``, ``encoder``: each built
only when a chosen metric ``needs`` it). It returns a value, None (undefined for this question:
left out of the mean, the n reported), or ``Scored(value, detail)`` when there is a per-question
record to keep (a judge's verdict, a skipped call). A metric that needs the judge is a coroutine
function (``async def``, checked at registration): its judge calls are awaited on the caller's
event loop, never behind a blocking call, so every judged metric of every question in flight is
judged concurrently under the judge client's concurrency, retries and budget
(``Evaluator.ajudge``). CPU work inside one (an encoder call) goes through ``res.on_cpu``.

``after`` names metrics a derived metric reads from ``case.scores`` (Average Score reads Img-F1,
Img-CBS and Qual.); they are computed first. Every module of this package is imported when the
registry is first used, so adding a metric is one file (plus its tests).
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import math
import pkgutil
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from ham.datasets.questions import Question

# What the registered metrics compute, recorded in every metrics.json and prediction row: a relaunch
# scores again the rows scored under another version (ham.run.grid.redo_reason), and ham-analyze says
# when a table mixes runs scored under other versions (a metric's compute changed; the run id does not say so).
# 2 (2026-12-07): gold-text recall on the question's gold pages; entity recall undefined for
# single-hop questions; Average Score fails where a judged part failed; faithfulness undefined
# without a context; page ranking metrics 10 deep; all-zero qrels score 0; MMDocRAG images by unit.
# 3 (2026-12-08): page and layout metrics credit every member of a budget passage (each member's page
# and box); layout recall 0, not undefined, when the gold boxes have no area (MMDocIR's recall_layout);
# MMLongBench-Doc's F1 (mmlongbench_f1); a GraphRAG system's context mapped to units anew (an image item
# by its file first, a chunk by its page, a file name holding '#'), its rows made again from their replies;
# a judge's score tag opened more often than closed (a second verdict left unclosed) does not parse.
# 1: before it was recorded.
METRICS_VERSION = "3"
from ham.answer import InterleavedAnswer, parse_reference
from ham.metrics.confidence import normal_ci


@dataclass
class Case:
    question: Question
    text: list[dict]                    # retrieved text rows (``Hit.to_row``), in rank order
    images: list[dict]                  # retrieved image rows, in rank order
    answer: InterleavedAnswer | None    # None: the generation failed
    scores: dict = field(default_factory=dict)
    pages: list[dict] = field(default_factory=list)   # page rows the generator saw (``PageHit.to_row``), pages options
    ranking: list[dict] = field(default_factory=list)   # the retriever's page ranking (row's retrieved_pages),
                                                        # deeper than ``pages``: what page ranking metrics read

    @cached_property
    def reference(self) -> InterleavedAnswer | None:
        ref = self.question.reference_answer
        return parse_reference(ref) if ref else None


@dataclass
class Resources:
    judge: object | None = None          # ham.metrics.judge.Judge
    bertscore: object | None = None      # ham.metrics.bertscore.ContextScorer
    encoder: object | None = None        # the run's text encoder
    settings: dict = field(default_factory=dict)   # e.g. img_cbs_window
    cpu: object | None = None            # the runner's stage executor (models shared with retrieval)

    async def on_cpu(self, fn, *args):
        """``fn(*args)`` from a coroutine metric: on the runner's stage thread when there is one
        (the encoder is shared with retrieval, which runs there: one thread uses it at a time),
        else here."""
        if self.cpu is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.cpu, fn, *args)


@dataclass
class Scored:
    value: float | None
    detail: dict


@dataclass(frozen=True)
class Metric:
    name: str
    compute: Callable[[Case, Resources], object]
    family: str = "generation"           # "retrieval" or "generation"
    needs: frozenset = frozenset()       # resources: "judge", "bertscore", "encoder"
    after: tuple = ()                    # metrics whose per-question values it reads
    aggregation: str = "mean"
    higher_is_better: bool = True
    label: str = ""                      # column header in tables and plots
    scale: float = 1.0                   # printed value = mean x scale (Table 3 prints Img-F1 x 100)
    value_range: tuple = (0.0, 1.0)
    description: str = ""
    prompts: tuple = ()                  # judge prompts (``judge.prompts`` keys) it asks; default (name,)

    @property
    def judge_prompts(self) -> tuple:
        return tuple(self.prompts) or (self.name,)

    @property
    def title(self) -> str:
        return self.label or self.name

    @property
    def needs_judge(self) -> bool:
        return "judge" in self.needs

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.compute)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


# name -> fn(values, details): the run's figure from the values of the questions where the metric is
# defined and, for each, its per-question record (``Scored.detail``; {} without one). A corpus-level
# figure such as MMLongBench-Doc's F1 is not a mean of per-question values: it registers its own
# (``aggregation``) and reads what it needs from the records.
AGGREGATIONS: dict[str, Callable[[list[float], list[dict]], float]] = {
    "mean": lambda values, details: _mean(values), "median": lambda values, details: _median(values)}
_REGISTRY: dict[str, Metric] = {}
_loaded = False


def aggregation(name: str) -> Callable:
    """Register the decorated ``fn(values, details) -> float`` as aggregation ``name`` (a metric
    names it in ``aggregation``; register it before the metric)."""
    def register(fn: Callable) -> Callable:
        if name in AGGREGATIONS:
            raise ValueError(f"aggregation {name!r} registered twice")
        AGGREGATIONS[name] = fn
        return fn
    return register


def aggregated(name: str, per_question: list[dict]) -> tuple[float | None, list[float]]:
    """Metric ``name``'s aggregate over the per-question score dicts where it has a value (None when
    none has), and those values: what ``metrics.json`` records and ham-analyze checks it against."""
    kept = [q for q in per_question if isinstance(q.get(name), (int, float))]
    values = [q[name] for q in kept]
    details = [(q.get("judge") or {}).get(name) or {} for q in kept]
    value = AGGREGATIONS[registry()[name].aggregation](values, details) if values else None
    if value is not None and math.isnan(value):
        raise ValueError(f"metric {name} produced NaN")
    return value, values


def metric(name: str, **spec) -> Callable:
    """Register the decorated compute function as metric ``name`` (keywords: ``Metric``'s fields)."""
    def register(compute: Callable) -> Callable:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        entry = Metric(name, compute, **{**spec, "needs": frozenset(spec.get("needs", ()))})
        if entry.needs_judge != entry.is_async:
            raise TypeError(f"metric {name!r}: a metric that needs the judge must be a coroutine function "
                            "(async def) and only such a one")
        if entry.aggregation not in AGGREGATIONS:
            raise ValueError(f"metric {name!r}: unknown aggregation {entry.aggregation!r}; known: {sorted(AGGREGATIONS)}")
        _REGISTRY[name] = entry
        return compute
    return register


def registry() -> dict[str, Metric]:
    """Every registered metric, in registration order (importing every metric module once)."""
    global _loaded
    if not _loaded:
        _loaded = True
        import ham.metrics as package

        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"ham.metrics.{info.name}")
    return _REGISTRY


def ordered(names: list[str]) -> list[Metric]:
    """The named metrics, each after the metrics it reads; an unknown name is an error listing
    the known ones."""
    known = registry()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)} in metrics.names; known: {', '.join(known)}")
    out: list[Metric] = []

    def visit(name: str) -> None:
        if any(m.name == name for m in out):
            return
        for dep in known[name].after:
            if dep in names:
                visit(dep)
        out.append(known[name])

    for name in names:
        visit(name)
    return out


def aggregate(per_question: list[dict], names: list[str], not_computed: dict[str, str] | None = None,
              failed: dict[str, int] | None = None) -> dict[str, dict]:
    """Each metric's aggregate (``aggregated``) and n over the questions where it is defined, its 95% CI (the
    paper's x̄ ± 1.96 s/√n, for means), and how many questions failed to be scored (``failed``,
    e.g. judge failures). Metrics in ``not_computed``
    (name -> reason) get ``mean`` None, ``computed`` False and the reason."""
    not_computed, failed = not_computed or {}, failed or {}
    known = registry()
    out = {}
    for name in names:
        spec = known[name]
        entry = {"higher_is_better": spec.higher_is_better, "family": spec.family, "aggregation": spec.aggregation}
        if name in not_computed:
            out[name] = {"mean": None, "n": 0, "computed": False, "reason": not_computed[name], **entry}
            continue
        value, values = aggregated(name, per_question)
        out[name] = {"mean": value, "n": len(values), "computed": True, "n_failed": failed.get(name, 0), **entry}
        if spec.aggregation == "mean":
            ci = normal_ci(values)
            out[name]["ci95"] = None if ci.low is None else [ci.low, ci.high]
    return out
