"""One run, end to end: ingest -> represent -> index -> retrieve -> assemble -> generate -> parse
-> evaluate. This module wires the stages from the config; each stage lives in its own module.
Outputs go to ``outputs/runs/<name>/<run id>/``:

    config.yaml         the resolved config
    run.json            run id, corpus hash, index keys, versions, git commit
    predictions.jsonl   one line per question, appended and flushed as each finishes (runner.py)
    metrics.json        aggregated metrics, failure counts (evaluate.py)
"""
from __future__ import annotations

import json
import logging
import random
import sys
import time
from pathlib import Path

from hydra.utils import get_method, instantiate
from omegaconf import DictConfig, OmegaConf

from ham.cache import FolderCache, key_of
from ham.ingest.corpus import load_corpus
from ham.metrics.evaluator import Evaluator
from ham.generate.cache import with_generation_cache
from ham.generate.cost import cost_summary
from ham.index.build import make_retriever, prepare
from ham.run import grid
from ham.run.grid import is_finished, safe_name
from ham.paths import resolve_path
from ham.run.provenance import git_state, package_versions
from ham.datasets.questions import Question
from ham.run.runner import answer_all
from ham.run.tracking import redact

log = logging.getLogger("ham.cli.main")


def _drop(cfg: dict, dotted: str) -> None:
    node = cfg
    *parents, last = dotted.split(".")
    for key in parents:
        node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            return
    if isinstance(node, dict):
        node.pop(last, None)


def run_id(cfg: DictConfig) -> str:
    """Short hash of the resolved config minus the keys that do not change results."""
    data = OmegaConf.to_container(cfg, resolve=True)
    data.pop("hydra", None)
    for key in cfg.run.id_ignore:
        _drop(data, key)
    return key_of(data)[:10]


QUESTION_LOADERS = {"jsonl": "ham.datasets.questions.load_questions", "mramg": "ham.datasets.mramg.load_mqa"}


def load_dataset_questions(cfg: DictConfig) -> tuple[list[Question], list[str]]:
    fmt = cfg.dataset.get("questions_format", "jsonl")
    if fmt not in QUESTION_LOADERS:
        raise ValueError(f"unknown questions_format {fmt!r}; known: {sorted(QUESTION_LOADERS)}")
    loader = get_method(QUESTION_LOADERS[fmt])
    questions, problems = loader(resolve_path(cfg.dataset.questions))
    if cfg.dataset.get("sample"):
        # a fixed random subset, as the paper samples 500 Recipe questions with seed 36
        rng = random.Random(int(cfg.dataset.get("sample_seed", 0)))
        keep = set(rng.sample(range(len(questions)), min(int(cfg.dataset.sample), len(questions))))
        questions = [q for i, q in enumerate(questions) if i in keep]
    if cfg.limit is not None:
        questions = questions[: int(cfg.limit)]
    return questions, problems


def hydra_runtime(cfg: DictConfig) -> tuple[dict, list[str]]:
    """The option chosen in each config group (the names used in tables) and the overrides that
    made this run; empty when the config was composed without Hydra's runtime."""
    from hydra.core.hydra_config import HydraConfig

    if "hydra" in cfg:
        node = cfg.hydra
    elif HydraConfig.initialized():
        node = HydraConfig.get()
    else:
        return {}, []
    choices = {k: v for k, v in node.runtime.choices.items() if not k.startswith("hydra/") and v is not None}
    return dict(choices), list(node.overrides.task)


def run(cfg: DictConfig) -> Path:
    """Run one config end to end and return its output folder. A run whose metrics already cover
    every question is not run again (``rerun=true`` forces it)."""
    started = time.time()
    rid = run_id(cfg)
    out_root = resolve_path(cfg.paths.output_root, must_exist=False)
    out_dir = out_root / "runs" / safe_name(cfg.name) / rid
    out_dir.mkdir(parents=True, exist_ok=True)
    choices, overrides = hydra_runtime(cfg)
    questions, question_problems = load_dataset_questions(cfg)
    redo = tuple(cfg.run.get("redo_failures", ["budget_exhausted"]))
    if not cfg.get("rerun", False) and is_finished(out_dir, len(questions), redo):
        print(f"run {rid} already finished: {out_dir} (rerun=true to answer again)", file=sys.stderr)
        _record(cfg, out_root, rid, out_dir, overrides, "finished")
        return out_dir
    resolved = redact(OmegaConf.to_container(cfg, resolve=True))
    resolved.pop("hydra", None)
    (out_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create({**resolved, "choices": choices})))
    _record(cfg, out_root, rid, out_dir, overrides, "running")
    try:
        _run_stages(cfg, rid, out_dir, questions, question_problems, choices, redo, started)
    except BaseException as exc:
        _record(cfg, out_root, rid, out_dir, overrides, "failed", error=f"{exc.__class__.__name__}: {exc}")
        raise
    _record(cfg, out_root, rid, out_dir, overrides, "finished")
    return out_dir


def _record(cfg: DictConfig, out_root: Path, rid: str, out_dir: Path, overrides: list[str], status: str,
            **extra) -> None:
    if cfg.get("grid"):
        grid.record(out_root, cfg.grid, rid, out_dir, overrides, status, **extra)


def _run_stages(cfg: DictConfig, rid: str, out_dir: Path, questions: list[Question], question_problems: list[str],
                choices: dict, redo: tuple[str, ...], started: float) -> None:
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache)
    print(corpus.report["summary"].rstrip(), file=sys.stderr)
    prepared = prepare(cfg, corpus, cache)   # summaries, descriptions, embeddings, indexes (ham/indexing.py)
    descriptions, encoder, index_info = prepared.descriptions, prepared.encoder, prepared.info
    retriever = make_retriever(cfg, corpus, prepared)
    assembler = instantiate(cfg.method, descriptions=descriptions, encoder=encoder, corpus_root=corpus.root)
    generator = with_generation_cache(instantiate(cfg.generator), cache.root)   # ham/generate/cache.py
    evaluator = Evaluator(cfg.metrics, judge_cfg=cfg.get("judge"), cache_root=cache.root)

    run_info = {"run_id": rid, "name": cfg.name, "grid": cfg.get("grid"), "choices": choices,
                "corpus_hash": corpus.content_hash, "index": index_info, "slurm": grid.slurm_ids(),
                "encoder": encoder.model_id, "generator": generator.model_id, "git": git_state(),
                "versions": package_versions(), "question_problems": question_problems,
                "ingest": {k: v for k, v in corpus.report.items() if k != "summary"}}
    (out_dir / "run.json").write_text(json.dumps(run_info, indent=2))

    rows = answer_all(questions, out_dir / "predictions.jsonl", retriever, assembler, generator, evaluator,
                      desc=f"{cfg.name}/{rid}", progress=cfg.progress,
                      redo_failures=redo)
    metrics = {"run_id": rid, **evaluator.summary(rows), "index": index_info,
               "si_fallback_images": index_info.get("si_fallback_images", 0),
               "summary_failures": index_info.get("summary_failures", 0),
               "description_failures": index_info.get("description_failures", 0),
               "cost": cost_summary(rows, cfg.get("cost") or {}, getattr(generator, "pricing", None)),
               "seconds": round(time.time() - started, 2)}
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))

