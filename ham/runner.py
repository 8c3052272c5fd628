"""Answering a run's questions: retrieve -> assemble -> generate -> parse -> score, one question at
a time, each prediction appended to ``predictions.jsonl`` and flushed as it finishes.

A run that dies resumes: questions already in the file are kept and skipped, and a line torn by
the kill is dropped and redone, so no question is lost or duplicated.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from ham.answer import AnswerFailure, parse_generated
from ham.questions import Question
from ham.retrieve import Retrieved, Retriever

log = logging.getLogger("ham.runner")


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


def hits_out(retrieved: Retrieved) -> tuple[list[dict], list[dict]]:
    text = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "heading_path": h.unit.heading_path,
             "text": h.unit.content, "score": round(h.score, 6)} for h in retrieved.text]
    images = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "image": h.unit.image,
               "image_path": h.unit.image_path, "heading_path": h.unit.heading_path,
               "caption": h.unit.caption or h.unit.alt, "score": round(h.score, 6)} for h in retrieved.images]
    return text, images


def answer_question(q: Question, retriever: Retriever, assembler, generator, evaluate: Callable) -> dict:
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
    text_hits, image_hits = hits_out(retrieved)
    return {"id": q.id, "question": q.question, "retrieved_text": text_hits, "retrieved_images": image_hits,
            "prompt": prompt.to_dict(), "raw_answer": generation.text,
            "answer": answer.to_dict() if answer else None, "failure": failure,
            "generation": {"model": generation.model, "usage": generation.usage,
                           "seconds": round(generation.seconds, 3)},
            "metrics": evaluate(q, retrieved, answer)}


def answer_all(questions: list[Question], pred_path: Path, retriever: Retriever, assembler, generator,
               evaluate: Callable, desc: str = "", progress: bool = True) -> list[dict]:
    """Answer every question not yet in ``pred_path``; return all rows in question order."""
    done = read_done(pred_path)
    todo = [q for q in questions if q.id not in done]
    if done:
        log.info("resuming: %d of %d questions already answered", len(questions) - len(todo), len(questions))
    n_failed = sum(1 for r in done.values() if r.get("failure"))
    with pred_path.open("a", encoding="utf-8") as fh, \
            tqdm(todo, desc=desc, unit="q", disable=not progress) as bar:
        for q in bar:
            row = answer_question(q, retriever, assembler, generator, evaluate)
            if row["failure"]:
                n_failed += 1
                bar.set_postfix(failures=n_failed)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            done[q.id] = row
    return [done[q.id] for q in questions if q.id in done]
