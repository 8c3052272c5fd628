"""Answering a run's questions: retrieve -> assemble -> generate -> finish -> parse -> score.

Each prediction is appended to ``predictions.jsonl`` (one ``write`` of one line, flushed) as soon
as it is done, in completion order. Local generators answer ``batch_size`` questions at a time;
remote ones (``is_async``) keep about twice their concurrency in flight, with retrieval and
scoring on one worker thread so the event loop stays free for requests.

Resume: questions already in the file are kept and skipped, and a line torn by a kill is dropped
and redone, so no question is lost or duplicated. Rows whose failure reason is in
``redo_failures`` (by default ``budget_exhausted``) are answered again; the new row supersedes the
old, and the file is rewritten once at the end (atomically) with one row per question.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from ham.generate.answer import AnswerFailure, parse_generated
from ham.generate.base import Generation
from ham.methods.base import Prompt
from ham.datasets.questions import Question
from ham.retrieve.retriever import Retrieved, Retriever

log = logging.getLogger("ham.run.runner")


def read_done(path: Path) -> tuple[dict[str, dict], int]:
    """(rows by id, number of superseded lines). A later line for an id supersedes an earlier one;
    a torn last line (killed mid-write) is cut off and its question redone."""
    done: dict[str, dict] = {}
    superseded = 0
    if not path.exists():
        return done, superseded
    good_bytes = 0
    with path.open("rb") as fh:
        for raw in fh:
            try:
                row = json.loads(raw)
            except json.JSONDecodeError:
                break
            superseded += row["id"] in done
            done[row["id"]] = row
            good_bytes += len(raw)
    if good_bytes != path.stat().st_size:
        log.warning("%s: dropping a partly written last line; that question is redone", path)
        with path.open("r+b") as fh:
            fh.truncate(good_bytes)
    return done, superseded


def rewrite(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    os.replace(tmp, path)


def hits_out(retrieved: Retrieved) -> tuple[list[dict], list[dict]]:
    text = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "heading_path": h.unit.heading_path,
             "text": h.unit.content, "score": round(h.score, 6)} for h in retrieved.text]
    images = [{"unit_id": h.unit.unit_id, "source": h.unit.source, "image": h.unit.image,
               "image_path": h.unit.image_path, "heading_path": h.unit.heading_path,
               "caption": h.unit.caption or h.unit.alt, "score": round(h.score, 6)} for h in retrieved.images]
    return text, images


@dataclass
class Prepared:
    question: Question
    retrieved: Retrieved     # everything retrieval returned
    prompt: Prompt           # prompt.retrieved: what the generator sees (after an image filter)


class Stages:
    """The per-question work around generation."""

    def __init__(self, retriever: Retriever, assembler, evaluate: Callable) -> None:
        self.retriever, self.assembler, self.evaluate = retriever, assembler, evaluate

    def prepare(self, q: Question) -> Prepared:
        retrieved = self.retriever.retrieve(q.question)
        return Prepared(q, retrieved, self.assembler(q.question, retrieved))

    def finish(self, prep: Prepared, generation: Generation) -> dict:
        prompt, answer, failure, final = prep.prompt, None, None, None
        if generation.error:
            failure = {"reason": generation.failure_reason, "detail": generation.error}
        else:
            finish = getattr(self.assembler, "finish", None)
            final = finish(prompt, generation.text or "") if finish else generation.text
            try:
                answer = parse_generated(final, prompt.slots)
            except AnswerFailure as exc:
                failure = {"reason": exc.reason, "detail": exc.detail}
        text_hits, image_hits = hits_out(prep.retrieved)
        row = {"id": prep.question.id, "question": prep.question.question, "retrieved_text": text_hits,
               "retrieved_images": image_hits, "prompt": prompt.to_dict(), "raw_answer": generation.text}
        if final is not None and final != generation.text:
            row["postprocessed_answer"] = final   # rule_based: the reply with images inserted
        row.update({"answer": answer.to_dict() if answer else None, "failure": failure,
                    "generation": {"model": generation.model, "usage": generation.usage,
                                   "seconds": round(generation.seconds, 3), "finish_reason": generation.finish_reason,
                                   "attempts": generation.attempts, "cached": generation.cached},
                    "metrics": self.evaluate(prep.question, prompt.retrieved, answer)})
        return row


class PredictionLog:
    """Append-only predictions file with a progress bar (throughput, failures, cache hits)."""

    def __init__(self, path: Path, total: int, done_failures: int, desc: str, progress: bool) -> None:
        self.fh = path.open("a", encoding="utf-8")
        self.bar = tqdm(total=total, desc=desc, unit="q", disable=not progress, smoothing=0.1)
        self.failures, self.cached = done_failures, 0
        self.rows: dict[str, dict] = {}

    def write(self, row: dict) -> None:
        self.fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.fh.flush()
        self.rows[row["id"]] = row
        self.failures += row["failure"] is not None
        self.cached += bool(row["generation"].get("cached"))
        self.bar.set_postfix(failures=self.failures, cached=self.cached, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
        self.fh.close()


def _answer_batched(todo: list[Question], stages: Stages, generator, log_: PredictionLog) -> None:
    batch = getattr(generator, "generate_batch", None) or (lambda prompts: [generator.generate(p) for p in prompts])
    size = max(1, int(getattr(generator, "batch_size", 1)))
    for start in range(0, len(todo), size):
        prepared = [stages.prepare(q) for q in todo[start:start + size]]
        for prep, generation in zip(prepared, batch([p.prompt for p in prepared])):
            log_.write(stages.finish(prep, generation))


async def _answer_concurrently(todo: list[Question], stages: Stages, generator, log_: PredictionLog) -> None:
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(2 * max(1, int(getattr(generator, "batch_size", 1))))
    cpu = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ham-stages")

    async def one(q: Question) -> None:
        async with gate:
            prep = await loop.run_in_executor(cpu, stages.prepare, q)
            generation = await generator.agenerate(prep.prompt)
            row = await loop.run_in_executor(cpu, stages.finish, prep, generation)
        log_.write(row)

    try:
        await asyncio.gather(*(one(q) for q in todo))
    finally:
        cpu.shutdown(wait=False, cancel_futures=True)
        if hasattr(generator, "aclose"):
            await generator.aclose()


def answer_all(questions: list[Question], pred_path: Path, retriever: Retriever, assembler, generator,
               evaluate: Callable, desc: str = "", progress: bool = True,
               redo_failures: tuple[str, ...] = ("budget_exhausted",)) -> list[dict]:
    """Answer every question not yet in ``pred_path``; return all rows in question order."""
    done, superseded = read_done(pred_path)
    redo = {i for i, r in done.items() if (r.get("failure") or {}).get("reason") in set(redo_failures)}
    todo = [q for q in questions if q.id not in done or q.id in redo]
    if done:
        log.info("resuming: %d of %d questions already answered%s", len(questions) - len(todo), len(questions),
                 f"; redoing {len(redo)} ({', '.join(sorted(redo_failures))})" if redo else "")
    done_failures = sum(1 for q in questions if q.id in done and q.id not in redo and done[q.id].get("failure"))
    stages = Stages(retriever, assembler, evaluate)
    log_ = PredictionLog(pred_path, len(todo), done_failures, desc, progress)
    try:
        if getattr(generator, "is_async", False):
            asyncio.run(_answer_concurrently(todo, stages, generator, log_))
        else:
            _answer_batched(todo, stages, generator, log_)
    finally:
        log_.close()
        done.update(log_.rows)
    if superseded or (redo & set(log_.rows)):
        rewrite(pred_path, list(done.values()))
    return [done[q.id] for q in questions if q.id in done]
