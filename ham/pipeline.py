"""One run, end to end: ingest -> represent -> index -> retrieve -> assemble -> generate -> parse
-> evaluate. Outputs go to ``outputs/runs/<name>/<run id>/``:

    config.yaml         the resolved config
    run.json            run id, corpus hash, index keys, versions, git commit
    predictions.jsonl   one line per question, appended and flushed as each finishes
    metrics.json        aggregated metrics, failure counts

A run that dies resumes: questions already in predictions.jsonl are kept and skipped, so none is
lost or duplicated.
"""
from __future__ import annotations

import json
import logging
import platform
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from hydra.utils import get_method, instantiate
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from ham.answer import AnswerFailure, parse_generated, parse_reference
from ham.cache import FolderCache, key_of
from ham.corpus import load_corpus
from ham.describe import DescriptionFile
from ham.metrics import aggregate
from ham.metrics.bertscore import ContextScorer, context_pairs
from ham.metrics.image import failed_prf, gold_text_recall, image_prf, image_retrieval_recall
from ham.paths import resolve_path
from ham.questions import Question
from ham.represent import Representer
from ham.retrieve import Retrieved, Retriever, build_indexes

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


def _git_state() -> dict:
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                                    text=True, check=True).stdout.strip())
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("ham", "torch", "transformers", "sentence-transformers", "faiss-cpu", "bm25s", "bert-score",
                "hydra-core"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def read_done(path: Path) -> dict[str, dict]:
    """Predictions already written; a torn last line (killed mid-write) is dropped and redone."""
    done: dict[str, dict] = {}
    if not path.exists():
        return done
    good_bytes = 0
    with path.open("rb") as fh:
        for raw in fh:
            try:
                row = json.loads(raw)
            except json.JSONDecodeError:
                break
            done[row["id"]] = row
            good_bytes += len(raw)
    if good_bytes != path.stat().st_size:
        log.warning("%s: dropping a partly written last line; that question is redone", path)
        with path.open("r+b") as fh:
            fh.truncate(good_bytes)
    return done


def _hits_out(retrieved: Retrieved) -> tuple[list[dict], list[dict]]:
    text = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "heading_path": h.unit.heading_path,
             "text": h.unit.content, "score": round(h.score, 6)} for h in retrieved.text]
    images = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "image": h.unit.image,
               "image_path": h.unit.image_path, "heading_path": h.unit.heading_path,
               "caption": h.unit.caption or h.unit.alt, "score": round(h.score, 6)} for h in retrieved.images]
    return text, images


class Evaluator:
    """Per-question metrics; Img-CBS through one shared BERTScore scorer."""

    def __init__(self, cfg: DictConfig) -> None:
        bs = cfg.bertscore
        self.window = int(cfg.img_cbs_window)
        self.scorer = ContextScorer(model=bs.model, num_layers=bs.num_layers, batch_size=bs.batch_size,
                                    device=bs.device, rescale_with_baseline=bs.rescale_with_baseline,
                                    baseline_path=bs.baseline_path)

    def __call__(self, q: Question, retrieved: Retrieved, answer) -> dict:
        reference = parse_reference(q.reference_answer) if q.reference_answer else None
        gold = q.gold_images
        scores: dict = {
            "ir": image_retrieval_recall(gold, [h.unit.image for h in retrieved.images]),
            "gold_text_recall": gold_text_recall(q.gold_text, [h.unit.content for h in retrieved.text]),
        }
        scores.update(image_prf(gold, answer.images) if answer is not None else failed_prf())
        if reference is None or not reference.images:
            scores["img_cbs"] = None
        else:
            pairs = context_pairs(answer, reference, self.window)
            f1 = self.scorer.f1([a for _, a, _ in pairs], [r for _, _, r in pairs])
            scores["img_cbs"] = sum(f1) / len(f1) if f1 else 0.0
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in scores.items()}


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
                "encoder": encoder.model_id, "generator": generator.model_id, "git": _git_state(),
                "versions": _versions(), "question_problems": question_problems,
                "ingest": {k: v for k, v in corpus.report.items() if k != "summary"}}
    (out_dir / "run.json").write_text(json.dumps(run_info, indent=2))

    pred_path = out_dir / "predictions.jsonl"
    done = read_done(pred_path)
    todo = [q for q in questions if q.id not in done]
    if done:
        log.info("resuming: %d of %d questions already answered", len(questions) - len(todo), len(questions))
    failures = Counter(r["failure"]["reason"] for r in done.values() if r.get("failure"))
    with pred_path.open("a", encoding="utf-8") as fh, \
            tqdm(todo, desc=f"{cfg.name}/{rid}", unit="q", disable=not cfg.progress) as bar:
        for q in bar:
            row = answer_question(q, retriever, assembler, generator, evaluator)
            if row["failure"]:
                failures[row["failure"]["reason"]] += 1
                bar.set_postfix(failures=sum(failures.values()))
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            done[q.id] = row

    rows = [done[q.id] for q in questions if q.id in done]
    metrics = {"run_id": rid, "n_questions": len(rows), "failures": dict(failures),
               "n_failures": sum(failures.values()),
               "metrics": aggregate([r["metrics"] for r in rows]),
               "bertscore_hash": evaluator.scorer.hash, "index": index_info,
               "si_fallback_images": index_info.get("si_fallback_images", 0),
               "seconds": round(time.time() - started, 2)}
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
    return out_dir


def answer_question(q: Question, retriever: Retriever, assembler, generator, evaluator: Evaluator) -> dict:
    retrieved = retriever.retrieve(q.question)
    prompt = assembler(q.question, retrieved)
    generation = generator.generate(prompt)
    answer, failure = None, None
    if generation.error:
        reason = generation.error.split(":", 1)[0]
        failure = {"reason": reason, "detail": generation.error}
    else:
        try:
            answer = parse_generated(generation.text, prompt.slots)
        except AnswerFailure as exc:
            failure = {"reason": exc.reason, "detail": exc.detail}
    text_hits, image_hits = _hits_out(retrieved)
    return {"id": q.id, "question": q.question, "retrieved_text": text_hits, "retrieved_images": image_hits,
            "prompt": prompt.to_dict(), "raw_answer": generation.text,
            "answer": answer.to_dict() if answer else None, "failure": failure,
            "generation": {"model": generation.model, "usage": generation.usage,
                           "seconds": round(generation.seconds, 3)},
            "metrics": evaluator(q, retrieved, answer)}
