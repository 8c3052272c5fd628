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
import sys
import time
from pathlib import Path

from hydra.utils import get_method, instantiate
from omegaconf import DictConfig, OmegaConf

from ham.cache import FolderCache, key_of
from ham.corpus import load_corpus
from ham.describe import DescriptionFile
from ham.evaluate import Evaluator
from ham.paths import resolve_path
from ham.provenance import git_state, package_versions
from ham.questions import Question
from ham.represent import Representer
from ham.retrieve import Retriever, build_indexes
from ham.runner import answer_all

log = logging.getLogger("ham.run")


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


QUESTION_LOADERS = {"jsonl": "ham.questions.load_questions", "mramg": "ham.ingest.mramg.load_mqa"}


def load_dataset_questions(cfg: DictConfig) -> tuple[list[Question], list[str]]:
    fmt = cfg.dataset.get("questions_format", "jsonl")
    if fmt not in QUESTION_LOADERS:
        raise ValueError(f"unknown questions_format {fmt!r}; known: {sorted(QUESTION_LOADERS)}")
    loader = get_method(QUESTION_LOADERS[fmt])
    questions, problems = loader(resolve_path(cfg.dataset.questions))
    if cfg.limit is not None:
        questions = questions[: int(cfg.limit)]
    return questions, problems


def run(cfg: DictConfig) -> Path:
    started = time.time()
    rid = run_id(cfg)
    out_dir = resolve_path(cfg.paths.output_root, must_exist=False) / "runs" / str(cfg.name) / rid
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))

    questions, question_problems = load_dataset_questions(cfg)
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache)
    print(corpus.report["summary"].rstrip(), file=sys.stderr)
    descriptions = DescriptionFile(resolve_path(cfg.dataset.descriptions)) if cfg.dataset.get("descriptions") else None
    representer = Representer(cfg.text_repr.name, cfg.image_repr.name, descriptions)
    encoder = instantiate(cfg.encoder)
    indexes, index_info = build_indexes(corpus, representer, encoder, cache)
    retriever = Retriever(corpus, indexes, encoder, k_t=cfg.retrieval.k_t, k_v=cfg.retrieval.k_v,
                          mode=cfg.retrieval.mode, dense_weight=cfg.retrieval.dense_weight, pool=cfg.retrieval.pool)
    assembler = instantiate(cfg.method, descriptions=descriptions)
    generator = instantiate(cfg.generator)
    evaluator = Evaluator(cfg.metrics)

    run_info = {"run_id": rid, "name": cfg.name, "corpus_hash": corpus.content_hash, "index": index_info,
                "encoder": encoder.model_id, "generator": generator.model_id, "git": git_state(),
                "versions": package_versions(), "question_problems": question_problems,
                "ingest": {k: v for k, v in corpus.report.items() if k != "summary"}}
    (out_dir / "run.json").write_text(json.dumps(run_info, indent=2))

    rows = answer_all(questions, out_dir / "predictions.jsonl", retriever, assembler, generator, evaluator,
                      desc=f"{cfg.name}/{rid}", progress=cfg.progress)
    metrics = {"run_id": rid, **evaluator.summary(rows), "index": index_info,
               "si_fallback_images": index_info.get("si_fallback_images", 0),
               "seconds": round(time.time() - started, 2)}
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
    return out_dir

