"""``ham-ask``'s first answer before the dense index exists: on a new corpus the offline stage
spends nearly all its time encoding (16.5k strings of a 685-page manual take minutes on two
cores), while ingest, summaries and BM25 take seconds. So ``ham-ask`` first answers from the
sparse side alone, labelled as such, then builds the dense index and answers again in full.

The preliminary answer runs the configured retrieval, method and generator unchanged except the
fusion (``SparseOnly``) and the indexes (``SparseSideIndex``: BM25 over the very strings the full
build indexes, from the same cache entry, so the full build reuses it). It is offered only where
that is the whole difference: ham's own pipeline (no ``system``), no page retrieval, a
``Retriever`` without MMR (which reads dense vectors), an unsharded index and an encoder without
its own sparse side (BGE-M3's lexical weights come from encoding). Nothing here enters a run: a
run's rows always come from the full pipeline.
"""
from __future__ import annotations

import logging

from hydra.utils import get_class, instantiate
from omegaconf import DictConfig

from ham.backends.local import seed_everything
from ham.cache import FolderCache
from ham.conf import instantiate_optional
from ham.index.build import OfflineParts, bm25_folder, build_representer, embeddings_cached
from ham.index.hybrid import SparseOnly, SparseSideIndex
from ham.index.sparse import BM25Sparse
from ham.ingest.corpus import Corpus
from ham.retrieve.diversity import MMR
from ham.retrieve.retriever import Retriever
from ham.run import build as run_build
from ham.run.pipeline import Pipeline

log = logging.getLogger("ham.run.sparse_first")


def why_not_sparse_first(cfg: DictConfig) -> str | None:
    """Why this config gets no sparse-first answer (None: it can have one)."""
    system, pages = cfg.get("system"), cfg.get("pages")
    if system is not None and system.get("_target_"):
        return "a system (system=...) answers from its own index"
    if pages is not None and pages.get("_target_"):
        return "page retrieval (pages=...) needs its page index"
    target = cfg.retrieval.get("_target_")
    if target is None or get_class(target) is not Retriever:
        return f"retrieval {target} is not the plain Retriever"
    diversity = cfg.retrieval.get("diversity")
    if diversity is not None and diversity.get("_target_") and issubclass(get_class(diversity._target_), MMR):
        return "MMR diversity compares dense vectors"
    if cfg.index.get("shard_size"):
        return "a sharded index (index.shard_size) is built as one"
    return None


def sparse_first_pipeline(cfg: DictConfig, cache: FolderCache, corpus: Corpus, parts: OfflineParts | None = None,
                          even_if_built: bool = False) -> tuple[Pipeline | None, dict]:
    """The preliminary pipeline and the strings still to encode per modality; (None, {}) when the
    dense index is already cached (the full answer is as quick; ``even_if_built``: the pipeline
    all the same, as a benchmark measures it) or the config cannot have one
    (``why_not_sparse_first``, logged). ``parts``: ``offline_parts(cfg)``, when the caller goes on
    to the full build with them (their encoder then loads once)."""
    why = why_not_sparse_first(cfg)
    if why is not None:
        log.info("no sparse-first answer: %s", why)
        return None, {}
    seed_everything(int(cfg.seed))
    parts = parts if parts is not None else run_build.offline_parts(cfg)
    if parts.encoder.has_sparse:
        log.info("no sparse-first answer: %s's sparse side comes from encoding", parts.encoder.model_id)
        return None, {}
    representer, _ = build_representer(corpus, cache, parts)
    pending, indexes = {}, {}
    for modality in ("text", "image"):
        units = corpus.of_modality(modality)
        ids, texts = [u.unit_id for u in units], [representer(u) for u in units]
        if texts and not embeddings_cached(ids, texts, parts.encoder, cache, [u.content for u in units]):
            pending[modality] = len(texts)
        folder = bm25_folder(ids, [representer.sparse(u) for u in units], cache, stem=parts.spec.stem)
        indexes[modality] = SparseSideIndex(ids, BM25Sparse.load(folder) if ids else None,
                                            {"encoder": parts.encoder.model_id, "modality": modality})
    if not pending and not even_if_built:
        return None, {}
    retriever = instantiate(cfg.retrieval, _partial_=True)(corpus=corpus, indexes=indexes, encoder=parts.encoder,
                                                           reranker=instantiate_optional(cfg.reranker),
                                                           fusion=SparseOnly())
    assembler = instantiate(cfg.method, _partial_=True)(descriptions=representer.descriptions,
                                                        encoder=parts.encoder, corpus_root=corpus.root)
    generator = run_build.configured_generator(cfg, cache)
    retriever.count_with(run_build.token_counter(generator))
    return Pipeline(retriever, assembler, generator, None, corpus,
                    {"preliminary": "sparse", "strings_to_encode": pending}), pending


def ask_sparse_first(cfg: DictConfig, question: str, on_preliminary=None, with_evaluator: bool = True):
    """``ham-ask``'s flow: ``on_preliminary(row, pending, corpus root)`` with the sparse-first answer
    when there is one, then the full pipeline (built or reused, with the same offline components)
    and its answer: ``(pipeline, row)``."""
    cache = run_build.configured_cache(cfg)
    corpus = run_build.load_configured_corpus(cfg, cache)
    generator = parts = None
    if on_preliminary is not None:
        parts = run_build.offline_parts(cfg)
        pre, pending = sparse_first_pipeline(cfg, cache, corpus, parts)
        if pre is not None:
            on_preliminary(pre.ask(question), pending, corpus.root)
            generator = pre.generator
    pipeline = run_build.build_pipeline(cfg, with_evaluator=with_evaluator, corpus=corpus, generator=generator,
                                        parts=parts)
    return pipeline, pipeline.ask(question)
