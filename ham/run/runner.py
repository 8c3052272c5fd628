"""Answering a run's questions through a ``Pipeline``, resumably, into ``predictions.jsonl``.

Each row is appended (one ``write`` of one line, flushed) as soon as it is done, in completion
order. Local generators answer ``batch_size`` questions at a time; remote ones (``is_async``) keep
about twice their concurrency in flight, with retrieval and scoring on one worker thread so the
event loop stays free for requests.

Resume (``ham.run.predictions``): questions already in the file are kept and skipped, a line torn
by a kill is dropped and redone, so no question is lost or duplicated. Rows whose failure reason
is in ``redo_failures`` (by default ``budget_exhausted``) are answered again; the new row
supersedes the old, and the file is rewritten once at the end (atomically), one row per question.
"""
from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from ham.datasets.questions import Question
from ham.run.pipeline import Pipeline
from ham.run.predictions import read_predictions, rewrite

log = logging.getLogger("ham.run.runner")


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


def _answer_batched(todo: list[Question], pipeline: Pipeline, log_: PredictionLog) -> None:
    size = max(1, int(getattr(pipeline.generator, "batch_size", 1)))
    for start in range(0, len(todo), size):
        for row in pipeline.answer(todo[start:start + size]):
            log_.write(row)


async def _answer_concurrently(todo: list[Question], pipeline: Pipeline, log_: PredictionLog) -> None:
    loop = asyncio.get_running_loop()
    generator = pipeline.generator
    gate = asyncio.Semaphore(2 * max(1, int(getattr(generator, "batch_size", 1))))
    cpu = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ham-stages")

    async def one(q: Question) -> None:
        async with gate:
            item = await loop.run_in_executor(cpu, pipeline.assemble, q)
            generation = await generator.agenerate(item.prompt)
            row = await loop.run_in_executor(cpu, pipeline.finish, item, generation)
        log_.write(row)

    try:
        await asyncio.gather(*(one(q) for q in todo))
    finally:
        cpu.shutdown(wait=False, cancel_futures=True)
        if hasattr(generator, "aclose"):
            await generator.aclose()


def answer_all(questions: list[Question], pred_path: Path, pipeline: Pipeline, desc: str = "",
               progress: bool = True, redo_failures: tuple[str, ...] = ("budget_exhausted",)) -> list[dict]:
    """Answer every question not yet in ``pred_path``; return all rows in question order."""
    done, superseded = read_predictions(pred_path, repair=True)
    redo = {i for i, r in done.items() if (r.get("failure") or {}).get("reason") in set(redo_failures)}
    todo = [q for q in questions if q.id not in done or q.id in redo]
    if done:
        log.info("resuming: %d of %d questions already answered%s", len(questions) - len(todo), len(questions),
                 f"; redoing {len(redo)} ({', '.join(sorted(redo_failures))})" if redo else "")
    done_failures = sum(1 for q in questions if q.id in done and q.id not in redo and done[q.id].get("failure"))
    log_ = PredictionLog(pred_path, len(todo), done_failures, desc, progress)
    try:
        if getattr(pipeline.generator, "is_async", False):
            asyncio.run(_answer_concurrently(todo, pipeline, log_))
        else:
            _answer_batched(todo, pipeline, log_)
    finally:
        log_.close()
        done.update(log_.rows)
    if superseded or (redo & set(log_.rows)):
        rewrite(pred_path, list(done.values()))
    return [done[q.id] for q in questions if q.id in done]
