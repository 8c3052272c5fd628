"""``ham-index [OVERRIDE ...]``: ingest and index a corpus without answering questions."""
from __future__ import annotations

import sys


class IndexFailed(RuntimeError):
    """Some shards of a sharded build failed; ``info`` is what ``ham-index`` prints (each shard's
    status, the failed ones' errors)."""

    def __init__(self, message: str, info: dict) -> None:
        super().__init__(message)
        self.info = info


def index_corpus(cfg) -> dict:
    """Ingest, summaries, descriptions, embeddings and indexes of ``cfg``'s corpus, no questions.
    ``engine``: where a sharded build's shards ran, each one built, reused or failed."""
    from ham.backends.local import seed_everything
    from ham.run.build import build_offline, configured_cache, configured_engine, load_configured_corpus
    from ham.run.engines import Recording, ShardsFailed

    seed_everything(int(cfg.seed))
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    print(corpus.report["summary"].rstrip(), file=sys.stderr)   # built or reused: what was read, skipped, excluded
    engine = Recording(configured_engine(cfg))
    head = {"corpus": str(corpus.root), "corpus_hash": corpus.content_hash, "units": len(corpus.units),
            "cache_root": str(cache.root)}
    try:
        indexed = build_offline(cfg, corpus, cache, engine=engine)
    except ShardsFailed as exc:
        raise IndexFailed(str(exc), {**head, "error": str(exc), "engine": engine.info()}) from exc
    return {**head, "encoder": indexed.encoder.model_id, **indexed.info, "engine": engine.info()}


def index_main() -> None:
    """``ham-index [OVERRIDE ...]``: ingest and index a corpus (summaries, descriptions, embeddings,
    faiss and sparse indexes) into the shared cache without answering any question, so a SLURM
    array can index first and generate later. Takes the same overrides as ``ham`` (and ``-m``).
    With ``index.shard_size`` the shards run through ``engine=local|ray|slurm`` (docs/cluster.md);
    the JSON says each shard's status, and a failed shard exits 1 after it."""
    import json
    import sys

    import hydra

    from ham.cli.help import index_help, wants_help

    if wants_help(sys.argv[1:]):
        print(index_help(), end="")
        return
    from ham.conf import CONF_DIR, check, register

    register()

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def _index(cfg) -> None:
        check(cfg)
        try:
            info = index_corpus(cfg)
        except IndexFailed as exc:   # the report first (which shards failed), then a failing exit
            print(json.dumps(exc.info, indent=2))
            print(f"ham-index: {exc}", file=sys.stderr)
            sys.exit(1)
        print(json.dumps(info, indent=2))

    _index()
