"""The run's own settings: the top of the config (``ham/conf/config.yaml``) beside the groups.
Each group is typed by its option's schema (``ham.conf.schema``), so the root declares them as
``Any`` here; ``ham.conf.check`` checks every node of them against its class."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional

from ham.settings import REQUIRED, Doc, NotResult, Range, setting

GROUPS = ("dataset", "units", "text_repr", "image_repr", "summariser", "describer", "encoder", "index", "retrieval",
          "reranker", "pages", "method", "generator", "cost", "metrics", "judge", "system", "logger", "topo",
          "engine")


@dataclass
class Paths:
    output_root: str = setting("outputs", NotResult("where outputs live"), Doc("runs land in <output_root>/runs/"))
    cache_root: str = setting("${paths.output_root}/cache", NotResult(
        "where caches live; entries are keyed by content, so a fresh one recomputes the same"),
        Doc("the one cache root (ingest, summaries, descriptions, embeddings, indexes, generations, judgments)"))


NOT_RESULT = NotResult("which rows a resume or a rerun asks the model for, never what a row's result is")


@dataclass
class RunSettings:
    redo_failures: List[str] = setting(default_factory=lambda: ["retryable"], marks=(NOT_RESULT,), doc=Doc(
        "failure reasons answered again on resume: retryable (api_error, timeout, budget_exhausted, "
        "malformed_response), or content reasons (empty, over_length, ...)"))
    reuse_cached_successes: bool = setting(False, NOT_RESULT, Doc(
        "rerun=true: serve stored replies to questions the previous predictions answered well"))


@dataclass
class Root:
    dataset: Any = REQUIRED
    units: Any = REQUIRED
    text_repr: Any = REQUIRED
    image_repr: Any = REQUIRED
    summariser: Any = REQUIRED
    describer: Any = REQUIRED
    encoder: Any = REQUIRED
    index: Any = REQUIRED
    retrieval: Any = REQUIRED
    reranker: Any = REQUIRED
    pages: Any = REQUIRED
    method: Any = REQUIRED
    generator: Any = REQUIRED
    cost: Any = REQUIRED
    metrics: Any = REQUIRED
    judge: Any = REQUIRED
    system: Any = REQUIRED
    logger: Any = REQUIRED
    topo: Any = REQUIRED
    engine: Any = REQUIRED
    name: str = setting(REQUIRED, NotResult("the run's folder name"), Doc("runs land in outputs/runs/<name>/<run id>/"))
    seed: int = setting(0, Doc("the run's one seed (docs/running.md: what it seeds)"))
    limit: Optional[int] = setting(None, Range(1), Doc("answer only the first N questions"))
    progress: bool = setting(True, NotResult("the progress bar"))
    rerun: bool = setting(False, NotResult("answer every question again into the same run"),
                          Doc("answer every question again (the old predictions are kept aside)"))
    paths: Paths = setting(default_factory=Paths)
    run: RunSettings = setting(default_factory=RunSettings, doc=Doc("what a resume redoes"))
