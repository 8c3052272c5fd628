"""The online pipeline for one question: retrieve -> assemble -> generate -> parse -> score.

``Pipeline`` takes its components (retriever, assembler, generator, evaluator) as arguments, so a
test or a notebook swaps one by passing it. ``ham.run.build.build_pipeline(cfg)`` builds them
from a config: it ingests the corpus, builds (or reuses) summaries, descriptions, embeddings and
indexes from the cache, and instantiates each group.

    from ham import build_pipeline, compose
    pipeline = build_pipeline(compose(["dataset=custom", "dataset.path=manuals/"]))
    row = pipeline.ask("How do I reconcile an account?")   # the same row a run writes

A row (a line of ``predictions.jsonl``) carries the question and its golds, the retrieved text
and images (``Hit.to_row``), the prompt, the raw and parsed answers, the failure if any, the
generation record and the per-question metrics: everything the viewer and analysis need.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from ham.datasets.questions import Question
from ham.answer import AnswerFailure, parse_generated
from ham.generate.base import Generation
from ham.methods.base import Prompt, prompt_length
from ham.metrics.registry import METRICS_VERSION
from ham.ingest.corpus import Corpus
from ham.protocols import Assembler, Evaluator, Generator, Retriever
from ham.retrieve.retriever import Retrieved
from ham.run.runner import answer_all, answer_rows


@dataclass
class Assembled:
    """A question whose evidence is retrieved and whose prompt is built, awaiting generation."""

    question: Question
    retrieved: Retrieved     # everything retrieval returned
    prompt: Prompt           # prompt.retrieved: what the generator sees (after an image filter)


def gold_of(question: Question) -> dict:
    """The question's golds as a row keeps them (everything but its id and text)."""
    return {k: v for k, v in question.to_dict().items() if k not in ("id", "question")}


@dataclass
class Pipeline:
    retriever: Retriever
    assembler: Assembler
    generator: Generator
    evaluator: Evaluator | None = None
    corpus: Corpus | None = None                 # the ingested corpus, when built from a config
    info: dict = field(default_factory=dict)     # offline-stage record (index keys, call stats)

    def resolve_evidence(self, questions: Sequence[Question]):
        """Map the questions' gold evidence to this corpus's unit ids once per run, before any
        scoring (``ham.datasets.evidence``): fills each ``Evidence.units`` (so rows carry them in
        ``gold``) and returns the ``MappingRecord``; None when there is no corpus or no question has
        gold evidence."""
        if self.corpus is None or not any(q.evidence for q in questions):
            return None
        from ham.datasets.evidence import resolve_evidence

        return resolve_evidence(questions, self.corpus.units)

    def assemble(self, question: Question) -> Assembled:
        started = time.perf_counter()
        retrieved = self.retriever.retrieve(question.question)
        retrieved.timing.setdefault("retrieve", time.perf_counter() - started)
        return Assembled(question, retrieved, self.assembler(question.question, retrieved))

    def finish(self, item: Assembled, generation: Generation) -> dict:
        """The prediction row of one generation (parse, post-process, score)."""
        row, (question, text, images, answer, pages, ranking) = self.unscored(item, generation)
        if self.evaluator:
            row["metrics"] = self.evaluator(question, text, images, answer, pages=pages, ranking=ranking)
            row["metrics_version"] = METRICS_VERSION
        return row

    def unscored(self, item: Assembled, generation: Generation) -> tuple[dict, tuple]:
        """The row without its metrics, and what scoring it takes: (question, the text and image
        rows the generator saw, the parsed answer or None, the page rows it saw, and the
        retriever's page ranking the ranking metrics read, deeper than k_p: pages options)."""
        prompt, answer, failure, final = item.prompt, None, None, None
        if generation.error:
            failure = {"reason": generation.failure_reason, "detail": generation.error}
        else:
            final = self.assembler.finish(prompt, generation.text or "")
            try:
                answer = parse_generated(final, prompt.slots)
            except AnswerFailure as exc:
                failure = {"reason": exc.reason, "detail": exc.detail}
        text = [h.to_row() for h in item.retrieved.text]
        images = [h.to_row() for h in item.retrieved.images]
        row = {"id": item.question.id, "question": item.question.question, "gold": gold_of(item.question),
               "retrieved_text": text, "retrieved_images": images, "prompt": prompt.to_dict(),
               "prompt_length": prompt_length(prompt, self.generator.count_tokens),
               "raw_answer": generation.text}
        if final is not None and final != generation.text:
            row["postprocessed_answer"] = final   # rule_based: the reply with images inserted
        seen_text = [h.to_row() for h in prompt.retrieved.text]
        seen_images = [h.to_row() for h in prompt.retrieved.images]
        seen_pages = [h.to_row() for h in prompt.retrieved.pages]
        # pages options: the retriever's page ranking (the first k_p offered to the generator)
        ranking = [h.to_row() for h in (item.retrieved.page_ranking or item.retrieved.pages)]
        if ranking:
            row["retrieved_pages"] = ranking
        row["retrieval_seconds"] = {k: round(v, 6) for k, v in item.retrieved.timing.items()}
        row.update({"answer": answer.to_dict() if answer else None, "failure": failure,
                    "generation": {"model": generation.model, "usage": generation.usage,
                                   "seconds": round(generation.seconds, 3), "finish_reason": generation.finish_reason,
                                   "attempts": generation.attempts, "cached": generation.cached},
                    "metrics": {}})
        return row, (item.question, seen_text, seen_images, answer, seen_pages, ranking)

    def answer(self, questions: Sequence[Question]) -> list[dict]:
        """Rows for ``questions`` through the runner's one answer loop (``ham.run.runner.answer_rows``),
        no file written; ``ham.run.runner.answer_all`` answers a dataset resumably."""
        return answer_rows(list(questions), self)

    def answer_all(self, questions: Sequence[Question], pred_path, **kw) -> list[dict]:
        """Every question answered resumably into ``pred_path`` (``ham.run.runner.answer_all``;
        ``kw``: desc, progress, redo_failures, fresh)."""
        return answer_all(list(questions), pred_path, self, **kw)

    def ask(self, question: str | Question) -> dict:
        """One question, answered: its prediction row."""
        q = question if isinstance(question, Question) else Question(id="ask", question=str(question))
        return self.answer([q])[0]
