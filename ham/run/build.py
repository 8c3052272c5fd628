"""The one place a config becomes components, offline and online. Every stage package takes
objects; only this module (and the command-line entry points through it) calls ``instantiate``
on a config group.

    corpus    = load_configured_corpus(cfg, cache)          # dataset.path cut by `units`
    parts     = offline_parts(cfg)                          # representations, summariser, describer,
    indexed   = build_index(corpus, cache, parts)           #   encoder, index spec -> ham.index.build
    pipeline  = build_pipeline(cfg)                         # the above + retriever, assembler,
                                                            #   generator (cached), evaluator
"""
from __future__ import annotations

import random

from hydra.utils import get_class, instantiate
from omegaconf import DictConfig

from ham.backends.local import seed_everything
from ham.cache import FolderCache
from ham.conf import instantiate_optional
from ham.datasets.questions import Question
from ham.generate.cache import with_generation_cache
from ham.index.build import Indexed, OfflineParts, build_index
from ham.index.footprint import index_bytes
from ham.ingest.corpus import Corpus, load_corpus
from ham.methods.page_based import PageBasedMethod
from ham.metrics.evaluator import Evaluator
from ham.paths import resolve_path
from ham.run.pipeline import Pipeline


def configured_cache(cfg: DictConfig) -> FolderCache:
    return FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))


def load_configured_corpus(cfg: DictConfig, cache: FolderCache) -> Corpus:
    """``dataset.path`` ingested (cached by content) and cut into units by the ``units`` group."""
    return load_corpus(resolve_path(cfg.dataset.path), cache, instantiate(cfg.units))


def load_dataset_questions(cfg: DictConfig) -> tuple[list[Question], list[str]]:
    """The dataset's questions through its reader, sampled (``dataset.sample``, seeded) and cut
    (``limit``); with one message per problem in the file."""
    if cfg.dataset.questions is None:
        raise ValueError(f"dataset {cfg.dataset.name}: no questions file (dataset.questions=FILE); "
                         "to ask one question use ham-ask")
    questions, problems = instantiate(cfg.dataset.reader).read(resolve_path(cfg.dataset.questions))
    if cfg.dataset.sample:
        # a fixed random subset, as the paper samples 500 Recipe questions with seed 36
        seed = cfg.dataset.sample_seed if cfg.dataset.sample_seed is not None else cfg.seed
        rng = random.Random(int(seed))
        keep = set(rng.sample(range(len(questions)), min(int(cfg.dataset.sample), len(questions))))
        questions = [q for i, q in enumerate(questions) if i in keep]
    if cfg.limit is not None:
        questions = questions[: int(cfg.limit)]
    return questions, problems


def configured_fusion(cfg: DictConfig):
    """The retrieval group's fusion rule, or None where it has none (graph)."""
    return instantiate(cfg.retrieval.fusion) if cfg.retrieval.get("fusion") else None


def offline_parts(cfg: DictConfig, progress: bool | None = None) -> OfflineParts:
    """The offline stage's components. The summariser is instantiated only when a representation
    uses summaries, so a local summarisation model is never loaded for nothing."""
    text_repr, image_repr = instantiate(cfg.text_repr), instantiate(cfg.image_repr)
    parts = OfflineParts(text_repr, image_repr, encoder=instantiate(cfg.encoder), spec=instantiate(cfg.index),
                         describer=instantiate_optional(cfg.describer),
                         progress=bool(cfg.progress if progress is None else progress))
    if parts.uses_summaries:
        parts.summariser = instantiate(cfg.summariser, _convert_="all")
    return parts


def build_offline(cfg: DictConfig, corpus: Corpus, cache: FolderCache) -> Indexed:
    """Summaries, descriptions, embeddings and indexes of ``corpus`` under ``cfg`` (cached)."""
    return build_index(corpus, cache, offline_parts(cfg))


def configured_generator(cfg: DictConfig, cache: FolderCache):
    """The ``generator`` group behind the generation cache."""
    return with_generation_cache(instantiate(cfg.generator), cache.root)


def build_pipeline(cfg: DictConfig, with_evaluator: bool = True) -> Pipeline:
    """Every component of a run from its config, the offline stage cached (``ham.index.build``)."""
    seed_everything(int(cfg.seed))
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    indexed = build_offline(cfg, corpus, cache)
    indexed.info["index_bytes"] = {**index_bytes(indexed.indexes),
                                   "pages_of_units": len({(u.doc_id, u.page) for u in corpus.units if u.page is not None})}
    # runtime objects go to the partial, not through instantiate (which would turn them into configs)
    retriever = instantiate(cfg.retrieval, _partial_=True)(corpus=corpus, indexes=indexed.indexes,
                                                           encoder=indexed.encoder,
                                                           reranker=instantiate_optional(cfg.reranker))
    # retrieval=graph links images by their descriptions and keeps its entity links in the cache
    retriever.bind(descriptions=indexed.descriptions, cache=cache)
    retriever = attach_pages(cfg, retriever, corpus, cache, indexed.info)
    assembler = instantiate(cfg.method, _partial_=True)(descriptions=indexed.descriptions, encoder=indexed.encoder,
                                                        corpus_root=corpus.root)
    generator = configured_generator(cfg, cache)
    retriever.count_with(token_counter(generator))
    evaluator = None
    if with_evaluator:
        judge = instantiate_optional(cfg.judge, cache_root=str(cache.root))
        evaluator = Evaluator.from_config(cfg.metrics, judge=judge, encoder=indexed.encoder)
    return Pipeline(retriever, assembler, generator, evaluator, corpus, {**indexed.info, "encoder": indexed.encoder.model_id})


def attach_pages(cfg: DictConfig, retriever, corpus: Corpus, cache: FolderCache, info: dict):
    """``pages=<encoder>``: the page index built (or reused) and the unit retriever wrapped to
    retrieve page images beside (or instead of) the units; ``pages=none``: the retriever as it is."""
    page_retrieval = instantiate_optional(cfg.pages)
    if page_retrieval is None:
        return retriever
    if not issubclass(get_class(cfg.method._target_), PageBasedMethod):
        raise ValueError(f"pages={cfg.pages.encoder._target_.rsplit('.', 1)[-1]} retrieves page images, which "
                         f"only method=page_based shows the generator (not {cfg.method._target_})")
    retriever, page_info = page_retrieval.attach(retriever, corpus, cache)
    info.update(page_info)
    return retriever


def token_counter(generator):
    """The generator's tokenizer for ``retrieval.budget_unit=tokens``, or None when it knows none
    (API models), which the retriever then refuses."""
    return generator.count_tokens if generator.count_tokens("a") is not None else None
