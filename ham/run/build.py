"""The one place a config becomes components, offline and online. Every stage package takes
objects; only this module (and the command-line entry points through it) calls ``instantiate``
on a config group.

    corpus    = load_configured_corpus(cfg, cache)          # dataset.path cut by `units`
    parts     = offline_parts(cfg)                          # representations, summariser, describer,
    indexed   = build_index(corpus, cache, parts)           #   encoder, index spec -> ham.index.build
    pipeline  = build_pipeline(cfg)                         # the above + retriever, assembler,
                                                            #   generator (cached), evaluator
    builder_for(cfg)                                        # build_pipeline, or build_system_pipeline
                                                            #   for system=lightrag|hipporag|...
"""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Callable

from hydra.utils import get_class, instantiate
from omegaconf import DictConfig, OmegaConf

from ham.backends.local import seed_everything
from ham.cache import FolderCache, key_of
from ham.conf import ConfigError, instantiate_optional
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


def corpus_root(cfg: DictConfig) -> Path:
    """``dataset.path`` resolved; a ``ConfigError`` naming the key when it is unset, names nothing
    that exists, or names a file rather than the corpus folder."""
    if OmegaConf.is_missing(cfg.dataset, "path"):
        raise ConfigError("dataset.path is not set: name the corpus folder, e.g. dataset.path=manuals/")
    try:
        root = resolve_path(cfg.dataset.path)
    except FileNotFoundError as exc:
        raise ConfigError(f"dataset.path={exc}") from None
    if not root.is_dir():
        raise ConfigError(f"dataset.path={cfg.dataset.path} is a file; it must be the corpus folder (every document "
                          f"under it is indexed), e.g. dataset.path={root.parent}")
    return root


def load_configured_corpus(cfg: DictConfig, cache: FolderCache) -> Corpus:
    """``dataset.path`` ingested (cached by content) and cut into units by the ``units`` group."""
    return load_corpus(corpus_root(cfg), cache, instantiate(cfg.units))


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


def offline_parts(cfg: DictConfig, progress: bool | None = None, engine=None) -> OfflineParts:
    """The offline stage's components. The summariser is instantiated only when a representation
    uses summaries, so a local summarisation model is never loaded for nothing. ``engine``: where
    a sharded build runs its shards (the ``engine`` group's when not given)."""
    text_repr, image_repr = instantiate(cfg.text_repr), instantiate(cfg.image_repr)
    parts = OfflineParts(text_repr, image_repr, encoder=instantiate(cfg.encoder), spec=instantiate(cfg.index),
                         describer=instantiate_optional(cfg.describer),
                         progress=bool(cfg.progress if progress is None else progress),
                         engine=engine if engine is not None else configured_engine(cfg))
    if parts.uses_summaries:
        parts.summariser = instantiate(cfg.summariser, _convert_="all")
    return parts


def configured_engine(cfg: DictConfig):
    """The ``engine`` group: where a sharded index build (``index.shard_size``) runs its shards,
    in this process, on Ray or as a Slurm array (``ham.run.engines``); the in-process loop when
    the config has no engine (one read back from an older run folder)."""
    from ham.run.engines import LocalEngine

    node = cfg.get("engine")
    return instantiate(node, _convert_="all") if node is not None and node.get("_target_") else LocalEngine()


def build_offline(cfg: DictConfig, corpus: Corpus, cache: FolderCache, engine=None,
                  parts: OfflineParts | None = None) -> Indexed:
    """Summaries, descriptions, embeddings and indexes of ``corpus`` under ``cfg`` (cached);
    a sharded index's shards through ``engine`` (default: the ``engine`` group's); ``parts``: the
    offline components already built from ``cfg`` (their models already loaded)."""
    return build_index(corpus, cache, parts if parts is not None else offline_parts(cfg, engine=engine))


def configured_generator(cfg: DictConfig, cache: FolderCache):
    """The ``generator`` group behind the generation cache."""
    return with_generation_cache(instantiate(cfg.generator), cache.root)


def build_pipeline(cfg: DictConfig, with_evaluator: bool = True, corpus: Corpus | None = None,
                   generator=None, parts: OfflineParts | None = None) -> Pipeline:
    """Every component of a run from its config, the offline stage cached (``ham.index.build``).
    ``corpus``, ``generator`` and ``parts`` (``offline_parts``): ones already built from this same
    config (``ham-ask`` after its sparse-first answer), so no model is loaded twice."""
    seed_everything(int(cfg.seed))
    cache = configured_cache(cfg)
    corpus = corpus if corpus is not None else load_configured_corpus(cfg, cache)
    indexed = build_offline(cfg, corpus, cache, parts=parts)
    indexed.info["index_bytes"] = {**index_bytes(indexed.indexes),
                                   "pages_of_units": len({(u.doc_id, u.page) for u in corpus.units if u.page is not None})}
    # runtime objects go to the partial, not through instantiate (which would turn them into configs)
    reranker = instantiate_optional(cfg.reranker)
    if reranker is not None:   # its scores decide the context like an index does: rows record which ones
        # "one-scale": rows made before reranked scores were put on one scale for diversity,
        # structural and graph retrieval (``Retriever.reranked``) are answered again on resume
        indexed.info["reranker"] = {"key": key_of([reranker.model_id, *reranker.score_key(), "one-scale"])[:16],
                                    "model": reranker.model_id}
    retriever = instantiate(cfg.retrieval, _partial_=True)(corpus=corpus, indexes=indexed.indexes,
                                                           encoder=indexed.encoder, reranker=reranker)
    # retrieval=graph links images by their descriptions and keeps its entity links in the cache
    retriever.bind(descriptions=indexed.descriptions, cache=cache)
    retriever = attach_pages(cfg, retriever, corpus, cache, indexed.info)
    assembler = instantiate(cfg.method, _partial_=True)(descriptions=indexed.descriptions, encoder=indexed.encoder,
                                                        corpus_root=corpus.root)
    generator = generator if generator is not None else configured_generator(cfg, cache)
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

def builder_for(cfg: DictConfig) -> Callable[[DictConfig], Pipeline]:
    """ham's own pipeline, or a GraphRAG system's (``system=lightrag|...``; ``ham.run.system_pipeline``)."""
    node = cfg.get("system")
    if node is not None and node.get("_target_"):
        return build_system_pipeline
    return build_pipeline


def llm_endpoint(gen: DictConfig):
    """The run's generator (``generator=openai`` family) as the endpoint a system calls: its
    ``client`` block's server, model and decoding settings, the key from ``client.api_key_env``."""
    from ham.systems.adapter import LLMEndpoint

    if not str(gen.get("_target_") or "").endswith("OpenAIGenerator"):
        raise ValueError(f"system=... needs an OpenAI-compatible generator (generator=openai and the options built "
                         f"on it): the system calls the endpoint itself; got {gen.get('_target_')}")
    client = instantiate(gen.client)
    if not client.base_url:
        raise ValueError(f"system=...: generator.client.base_url is not set (nor ${client.base_url_env}): the "
                         "endpoint the system's LLM calls go to")
    return LLMEndpoint(base_url=client.base_url, model=client.model, temperature=client.temperature or 0.0,
                       max_tokens=client.max_tokens, timeout=client.timeout,
                       api_key=gen.client.get("api_key") or os.environ.get(client.api_key_env))


def build_system_pipeline(cfg: DictConfig):
    """A run whose answers come from a GraphRAG system (``system=...``; ``ham.run.system_pipeline``)."""
    from ham.systems.embedding_server import EmbeddingServer
    from ham.run.system_pipeline import AnsweredBy, SystemPipeline, index_totals
    from ham.systems.mapping import ContextMapper

    seed_everything(int(cfg.seed))
    llm = llm_endpoint(cfg.generator)
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    encoder = instantiate(cfg.encoder)
    system = instantiate(cfg.system)
    servers = []
    if system.embedding_base_url:
        embedding = {"base_url": system.embedding_base_url, "model": str(cfg.encoder.get("model") or "embedding"),
                     "dim": int(encoder.dim), "model_id": getattr(encoder, "model_id", None)}
    else:
        server = EmbeddingServer(encoder, model_name=str(cfg.encoder.get("model") or "ham-encoder")).__enter__()
        servers.append(server)
        embedding = {"base_url": server.base_url, "model": server.model_name, "dim": server.dim,
                     "model_id": getattr(encoder, "model_id", None)}
    work_root = Path(cache.root) / "systems"
    system.start(llm, embedding, work_root, log_path=work_root / f"{system.system}.log")
    versions = system.info()
    print(f"{system.system}: indexing {len(corpus.units)} units ({system.index_scope} scope)", file=sys.stderr)
    records = system.index(corpus, progress=lambda group, r: print(
        f"  {group}: {'cached' if r.get('cached') else 'built' if r['ok'] else 'FAILED ' + str(r.get('reason'))}"
        f" ({(r.get('graph') or {}).get('nodes', 0)} nodes, {(r.get('usage') or {}).get('llm_calls', 0)} LLM calls)",
        file=sys.stderr))
    info = {"system": {"name": system.system, "release": system.release, "versions": versions,
                       "index_scope": system.index_scope, "options": system.options(),
                       "embedding": {k: v for k, v in embedding.items() if k != "base_url"},
                       "index": index_totals(records), "groups": records}}
    judge = instantiate_optional(cfg.judge, cache_root=str(cache.root))
    evaluator = Evaluator.from_config(cfg.metrics, judge=judge, encoder=encoder)
    return SystemPipeline(retriever=None, assembler=None,
                          generator=AnsweredBy(f"{system.system}:{llm.model}", cfg.generator.get("pricing")),
                          evaluator=evaluator, corpus=corpus, info=info, system=system,
                          mapper=ContextMapper(corpus.units), servers=servers)
