"""The online pipeline for one question: retrieve -> assemble -> generate -> parse -> score.

``Pipeline`` takes its components (retriever, assembler, generator, evaluator) as arguments, so a
test or a notebook swaps one by passing it. ``build_pipeline(cfg)`` is the one function that
builds them from a config: it ingests the corpus, builds (or reuses) summaries, descriptions,
embeddings and indexes from the cache, and instantiates each group.

    from ham import Pipeline, compose
    pipeline = Pipeline.from_config(compose(["dataset=custom", "dataset.path=manuals/"]))
    row = pipeline.ask("How do I reconcile an account?")   # the same row a run writes

A row (a line of ``predictions.jsonl``) carries the question and its golds, the retrieved text
and images (``Hit.to_row``), the prompt, the raw and parsed answers, the failure if any, the
generation record and the per-question metrics: everything the viewer and analysis need.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from omegaconf import DictConfig

from ham.datasets.questions import Question
from ham.generate.answer import AnswerFailure, parse_generated
from ham.generate.base import Generation
from ham.methods.base import Prompt, prompt_length
from ham.retrieve.retriever import Retrieved


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
    retriever: object
    assembler: object
    generator: object
    evaluator: object | None = None
    corpus: object | None = None                 # the ingested corpus, when built from a config
    info: dict = field(default_factory=dict)     # offline-stage record (index keys, call stats)

    @classmethod
    def from_config(cls, cfg: DictConfig) -> "Pipeline":
        return build_pipeline(cfg)

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
               "prompt_length": prompt_length(prompt, getattr(self.generator, "count_tokens", None)),
               "raw_answer": generation.text}
        if final is not None and final != generation.text:
            row["postprocessed_answer"] = final   # rule_based: the reply with images inserted
        seen_text = [h.to_row() for h in prompt.retrieved.text]
        seen_images = [h.to_row() for h in prompt.retrieved.images]
        # the page rows go to the evaluator only where pages were retrieved: an evaluator is any
        # callable of (question, text, images, answer), and ham's Evaluator takes pages besides
        seen_pages = [[h.to_row() for h in prompt.retrieved.pages]] if prompt.retrieved.pages else []
        if item.retrieved.pages:   # pages options: the page hits, and what each retrieval step took
            row["retrieved_pages"] = [h.to_row() for h in item.retrieved.pages]
        row["retrieval_seconds"] = {k: round(v, 6) for k, v in item.retrieved.timing.items()}
        row.update({"answer": answer.to_dict() if answer else None, "failure": failure,
                    "generation": {"model": generation.model, "usage": generation.usage,
                                   "seconds": round(generation.seconds, 3), "finish_reason": generation.finish_reason,
                                   "attempts": generation.attempts, "cached": generation.cached},
                    "metrics": self.evaluator(item.question, seen_text, seen_images, answer, *seen_pages)
                    if self.evaluator else {}})
        return row

    def answer(self, questions: Sequence[Question]) -> list[dict]:
        """Rows for ``questions``, generated in one batch (no files written; ``ham.run.runner``
        answers a dataset resumably)."""
        items = [self.assemble(q) for q in questions]
        generate = getattr(self.generator, "generate_batch", None)
        generations = generate([i.prompt for i in items]) if generate else [self.generator.generate(i.prompt)
                                                                              for i in items]
        return [self.finish(i, g) for i, g in zip(items, generations)]

    def ask(self, question: str | Question) -> dict:
        """One question, answered: its prediction row."""
        q = question if isinstance(question, Question) else Question(id="ask", question=str(question))
        return self.answer([q])[0]


def bind_token_counter(retriever, generator) -> None:
    """``retrieval.budget_unit=tokens`` counts with the generator's tokenizer: bind it, or None when
    the generator knows none (its ``count_tokens`` is missing or answers None), which the retriever
    then refuses."""
    count = getattr(generator, "count_tokens", None)
    if hasattr(retriever, "count_with"):
        retriever.count_with(count if count is not None and count("a") is not None else None)


def build_pipeline(cfg: DictConfig, with_evaluator: bool = True) -> Pipeline:
    """Every component of a run from its config, the offline stage cached (``ham.index.build``)."""
    from hydra.utils import get_class, instantiate

    from ham.backends.local import seed_everything
    from ham.cache import FolderCache
    from ham.conf import instantiate_optional
    from ham.generate.cache import with_generation_cache
    from ham.index.build import build_index
    from ham.index.footprint import index_bytes
    from ham.ingest.corpus import load_corpus
    from ham.metrics.evaluator import Evaluator
    from ham.paths import resolve_path

    seed_everything(int(cfg.seed))
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache, instantiate(cfg.units))
    indexed = build_index(cfg, corpus, cache)
    indexed.info["index_bytes"] = {**index_bytes(indexed.indexes),
                                   "pages_of_units": len({(u.doc_id, u.page) for u in corpus.units if u.page is not None})}
    # runtime objects go to the partial, not through instantiate (which would turn them into configs)
    retriever = instantiate(cfg.retrieval, _partial_=True)(corpus=corpus, indexes=indexed.indexes,
                                                           encoder=indexed.encoder,
                                                           reranker=instantiate_optional(cfg.reranker))
    bind = getattr(retriever, "bind", None)   # retrieval=graph: image descriptions and the cache for its entity links
    if bind is not None:
        bind(descriptions=indexed.descriptions, cache=cache)
    page_retrieval = instantiate_optional(cfg.pages)   # pages=none: ham's units alone
    if page_retrieval is not None:
        from ham.methods.page_based import PageBasedMethod

        if not issubclass(get_class(cfg.method._target_), PageBasedMethod):
            raise ValueError(f"pages={cfg.pages.encoder._target_.rsplit('.', 1)[-1]} retrieves page images, which "
                             f"only method=page_based shows the generator (not {cfg.method._target_})")
        retriever, page_info = page_retrieval.attach(retriever, corpus, cache)
        indexed.info.update(page_info)
    assembler = instantiate(cfg.method, _partial_=True)(descriptions=indexed.descriptions, encoder=indexed.encoder,
                                                        corpus_root=corpus.root)
    generator = with_generation_cache(instantiate(cfg.generator), cache.root)
    bind_token_counter(retriever, generator)
    evaluator = None
    if with_evaluator:
        judge = instantiate_optional(cfg.judge, cache_root=str(cache.root))
        evaluator = Evaluator.from_config(cfg.metrics, judge=judge, encoder=indexed.encoder)
    return Pipeline(retriever, assembler, generator, evaluator, corpus, indexed.info)
