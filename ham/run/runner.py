"""Answering a run's questions through a ``Pipeline``, resumably, into ``predictions.jsonl``.

Each row is appended (one ``write`` of one line, flushed) as soon as it is done, in completion
order. Local generators answer ``batch_size`` questions at a time; remote ones (``is_async``) keep
about twice their concurrency in flight. Their stages (retrieval and prompt, parsing, scoring)
always run on one worker thread, so the event loop stays free for requests; one thread, because
the stages share models (the run's encoder serves retrieval, rule_based's image placement and
scoring). Where code runs never depends on how long it took. Every judged metric (``tcr15``,
``overall_quality``, the TopoGraphRAG-Bench ones) is awaited on the event loop for every question
in flight at once (``Evaluator.ajudge``), bounded by the judge client's own concurrency, retries,
deadline and budget; its CPU work (an encoder call) hops to the stage thread. Local batches judge
their batch's questions together the same way, on a loop of their own.

Each row records the index keys it was answered under (``index``: text and image) and the model
the server says answered (``generation.served_model``).

Resume (``ham.run.predictions``): questions already in the file are kept and skipped, a line torn
by a kill is dropped and redone, so no question is lost or duplicated. Rows that
``ham.run.grid.redo_reason`` names are answered again, the model asked anew (the generation
cache is bypassed for them, or the stored reply would be replayed): a failure (of the generation or of a judge
call) whose reason is in ``redo_failures`` (by default every retryable one:
``ham.generate.base.RETRYABLE_FAILURES``), or an answer made under other index keys than the run's
current ones (its summaries or descriptions changed). A row scored under another version of the
metrics' code is answered again to be scored again: its retrieval and prompt are made anew and,
where the prompt is the one it answered, its recorded reply is replayed (``replayed``: the same
answer, failure, tokens and cost; no model asked). The new row supersedes the old, and the
file is rewritten once at the end (atomically), one row per question.
"""
from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from ham.backends.aio import run_sync
from ham.datasets.questions import Question
from ham.generate.base import RETRYABLE_FAILURES, Generation
from ham.generate.cache import CachedGenerator
from ham.metrics.registry import METRICS_VERSION, Case
from ham.run.grid import METRICS_CHANGED, redo_reason
from ham.run.predictions import read_predictions, rewrite

if TYPE_CHECKING:   # the pipeline calls this module (Pipeline.answer): no import back at run time
    from ham.run.pipeline import Pipeline

log = logging.getLogger("ham.run.runner")


def index_keys(info: dict) -> dict | None:
    """The index keys (text, image, pages where page retrieval runs, and the reranker's model and
    scoring where one rescored) of a pipeline's offline-stage record, or None without any."""
    keys = {m: (info.get(m) or {}).get("key") for m in ("text", "image")}
    if (info.get("page_index") or {}).get("key"):
        keys["pages"] = info["page_index"]["key"]
    if (info.get("reranker") or {}).get("key"):
        keys["reranker"] = info["reranker"]["key"]
    return keys if any(keys.values()) else None


class PredictionLog:
    """Append-only predictions file with a progress bar (throughput, failures, cache hits)."""

    def __init__(self, path: Path, total: int, done_failures: int, desc: str, progress: bool) -> None:
        self.fh = path.open("a", encoding="utf-8")
        self.bar = tqdm(total=total, desc=desc, unit="q", disable=not progress, smoothing=0.1)
        self.progress = progress
        self.failures, self.cached = done_failures, 0
        self.rows: dict[str, dict] = {}

    def write(self, row: dict) -> None:
        self.fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.fh.flush()
        self.rows[row["id"]] = row
        self.failures += row["failure"] is not None
        self.cached += bool(row["generation"].get("cached"))
        if self.progress:
            self.bar.set_postfix(failures=self.failures, cached=self.cached, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
        self.fh.close()


class MemoryLog:
    """The rows of an in-memory answer (``Pipeline.answer``): the runner's loop, no file."""

    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}

    def write(self, row: dict) -> None:
        self.rows[row["id"]] = row

    def close(self) -> None:
        pass


class Stages:
    """What follows generation for one question: the row (parse, post-process), its scores and
    what it was answered with. With a judge, the row is built without scores, the judge is asked
    asynchronously and the scores are computed after (``Evaluator.ajudge`` / ``score``)."""

    def __init__(self, pipeline: Pipeline, index: dict | None) -> None:
        self.pipeline, self.index = pipeline, index
        self.evaluator = pipeline.evaluator
        self.judging = bool(self.evaluator is not None and self.evaluator.async_judged)

    def finish(self, item, generation) -> tuple[dict, object]:
        """(row, the case to judge or None)."""
        if self.judging:
            row, (question, text, images, answer, pages, ranking) = self.pipeline.unscored(item, generation)
            case = Case(question, text, images, answer, pages=pages, ranking=ranking)
        else:
            row, case = self.pipeline.finish(item, generation), None
        if self.index:
            row["index"] = self.index
        if generation.served_model:
            row["generation"]["served_model"] = generation.served_model
        return row, case

    def score(self, row: dict, case, verdicts: dict) -> dict:
        row["metrics"] = self.evaluator.score(case, verdicts)
        row["metrics_version"] = METRICS_VERSION
        return row

    async def aclose(self) -> None:
        if self.judging:
            await self.evaluator.aclose()


def _generate_batch(generator, prompts: list, fresh: list[bool]) -> list:
    if isinstance(generator, CachedGenerator):
        return generator.generate_batch(prompts, fresh)
    return generator.generate_batch(prompts)   # no cache: every prompt is asked anyway


def _answer_batched(todo: list[Question], pipeline: Pipeline, stages: Stages, log_: PredictionLog,
                    fresh: frozenset, replay: dict) -> None:
    size = max(1, int(pipeline.generator.batch_size))
    generator = pipeline.generator
    for start in range(0, len(todo), size):
        items = [pipeline.assemble(q) for q in todo[start:start + size]]
        generations = [replayed(replay.get(i.question.id), i.prompt) for i in items]
        ask = [i for i, g in zip(items, generations) if g is None]
        asked = iter(_generate_batch(generator, [i.prompt for i in ask], [i.question.id in fresh for i in ask])
                     if ask else [])
        generations = [g if g is not None else next(asked) for g in generations]
        done = [stages.finish(i, g) for i, g in zip(items, generations)]
        if stages.judging:
            async def judge_batch():
                try:
                    return await asyncio.gather(*(stages.evaluator.ajudge(case) for _, case in done))
                finally:
                    await stages.aclose()
            verdicts = run_sync(judge_batch)
            done = [(stages.score(row, case, v), case) for (row, case), v in zip(done, verdicts)]
        for row, _ in done:
            log_.write(row)


async def _answer_concurrently(todo: list[Question], pipeline: Pipeline, stages: Stages,
                               log_: PredictionLog, fresh: frozenset, replay: dict) -> None:
    generator = pipeline.generator
    gate = asyncio.Semaphore(2 * max(1, int(generator.batch_size)))
    judge_gate = asyncio.Semaphore(2 * (stages.evaluator.judge_concurrency if stages.judging else 1))
    cpu = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ham-stages")
    loop = asyncio.get_running_loop()
    if stages.judging:
        stages.evaluator.bind_cpu(cpu)

    def on_stage_thread(fn):
        async def run(*args):
            return await loop.run_in_executor(cpu, fn, *args)
        return run

    assemble, finish, score = (on_stage_thread(f) for f in (pipeline.assemble, stages.finish, stages.score))

    async def one(q: Question) -> None:
        async with gate:
            item = await assemble(q)
            generation = replayed(replay.get(q.id), item.prompt)
            if generation is None and isinstance(generator, CachedGenerator):
                generation = await generator.agenerate(item.prompt, fresh=q.id in fresh)
            elif generation is None:
                generation = await generator.agenerate(item.prompt)
            row, case = await finish(item, generation)
        if case is not None:
            async with judge_gate:
                verdicts = await stages.evaluator.ajudge(case)
                row = await score(row, case, verdicts)
        log_.write(row)

    tasks = [asyncio.ensure_future(one(q)) for q in todo]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # a crash (a programming error, Ctrl-C) stops the questions still in flight before the
        # client closes under them: closed, they would be written as api_error rows that never
        # reached the server; stopped, they are simply not in the file and a resume asks them
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        cpu.shutdown(wait=False, cancel_futures=True)
        if stages.judging:
            stages.evaluator.bind_cpu(None)
        await generator.aclose()
        await stages.aclose()


def answer_all(questions: list[Question], pred_path: Path, pipeline: Pipeline, desc: str = "",
               progress: bool = True, redo_failures=RETRYABLE_FAILURES, fresh: frozenset = frozenset()) -> list[dict]:
    """Answer every question not yet in ``pred_path`` and every row ``redo_reason`` names;
    return all rows in question order. ``redo_failures`` is a set of failure reasons
    (``ham.generate.base.redo_reasons`` expands ``run.redo_failures``). Redone rows, and the
    questions in ``fresh`` (a rerun's), ask the model again rather than replay a stored reply."""
    done, superseded = read_predictions(pred_path, repair=True)
    index = index_keys(pipeline.info or {})
    redo_set = frozenset(redo_failures)
    wanted = {q.id for q in questions}
    why = {i: r for i, row in done.items() if i in wanted and (r := redo_reason(row, redo_set, index))}
    redo = set(why)
    todo = [q for q in questions if q.id not in done or q.id in redo]
    if done:
        counts = ", ".join(f"{n} {reason}" for reason, n in sorted(Counter(why.values()).items()))
        log.info("resuming: %d of %d questions already answered%s", len(questions) - len(todo), len(questions),
                 f"; answering {len(redo)} again ({counts})" if redo else "")
    done_failures = sum(1 for q in questions if q.id in done and q.id not in redo and done[q.id].get("failure"))
    log_ = PredictionLog(pred_path, len(todo), done_failures, desc, progress)
    stages = Stages(pipeline, index)
    # rows scored under older metrics keep their reply: replayed where the prompt is the same
    replay = {i: done[i] for i, reason in why.items() if reason == METRICS_CHANGED}
    fresh = frozenset(fresh) | frozenset(redo - set(replay))
    try:
        _answer(todo, pipeline, stages, log_, fresh, replay)
    finally:
        log_.close()
        done.update(log_.rows)
    if superseded or (redo & set(log_.rows)):
        rewrite(pred_path, list(done.values()))
    return [done[q.id] for q in questions if q.id in done]


def _answer(todo: list[Question], pipeline: Pipeline, stages: Stages, log_, fresh: frozenset,
            replay: dict | None = None) -> None:
    """The one answer loop: remote generators concurrently, local ones in batches. ``replay``: rows
    answered again only to be scored again (``replayed``), by question id."""
    replay = replay or {}
    if pipeline.generator.is_async:
        run_sync(lambda: _answer_concurrently(todo, pipeline, stages, log_, fresh, replay))
    else:
        _answer_batched(todo, pipeline, stages, log_, fresh, replay)


def replayed(row: dict | None, prompt) -> Generation | None:
    """The reply ``row`` recorded, as the generation it came from, when ``prompt`` (assembled again
    now) is the prompt the row answered: a row scored again because the metrics' code changed keeps
    its answer, failure, tokens and cost exactly, and no model is asked. None when there is no row
    or the prompt differs (retrieval or the template changed since): then the model answers, through
    the generation cache."""
    if row is None or row.get("prompt") != json.loads(json.dumps(prompt.to_dict())):
        return None
    gen, failure = row.get("generation") or {}, row.get("failure") or {}
    # a generation's failure is recorded as (its reason, its error "reason: detail"); a parse failure
    # ("empty": the model returned no text) has another detail and comes back by parsing the reply again
    detail = str(failure.get("detail") or "")
    error = detail if failure and detail.split(":", 1)[0] == failure.get("reason") else None
    return Generation(text=row.get("raw_answer"), model=gen.get("model", ""), usage=gen.get("usage") or {},
                      error=error, seconds=gen.get("seconds", 0.0), finish_reason=gen.get("finish_reason"),
                      attempts=gen.get("attempts", 0), cached=gen.get("cached", False),
                      served_model=gen.get("served_model"))


def answer_rows(questions: list[Question], pipeline: Pipeline) -> list[dict]:
    """Rows for ``questions`` through the runner's loop, in question order, nothing written
    (``Pipeline.answer``, ``ham-ask``); ids must be distinct."""
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError(f"questions answered together need distinct ids: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    log_ = MemoryLog()
    _answer(list(questions), pipeline, Stages(pipeline, None), log_, frozenset())
    return [log_.rows[i] for i in ids]
