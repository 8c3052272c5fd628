"""``ham-index [OVERRIDE ...]``: ingest and index a corpus without answering questions."""
from __future__ import annotations

import sys


def index_corpus(cfg) -> dict:
    """Ingest, summaries, descriptions, embeddings and indexes of ``cfg``'s corpus, no questions."""
    from ham.backends.local import seed_everything
    from ham.run.build import build_offline, configured_cache, load_configured_corpus

    seed_everything(int(cfg.seed))
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    indexed = build_offline(cfg, corpus, cache)
    print(corpus.report["summary"].rstrip(), file=sys.stderr)   # built or reused: what was read, skipped, excluded
    return {"corpus": str(corpus.root), "corpus_hash": corpus.content_hash, "units": len(corpus.units),
            "encoder": indexed.encoder.model_id, "cache_root": str(cache.root), **indexed.info}


def index_main() -> None:
    """``ham-index [OVERRIDE ...]``: ingest and index a corpus (summaries, descriptions, embeddings,
    faiss and sparse indexes) into the shared cache without answering any question, so a SLURM
    array can index first and generate later. Takes the same overrides as ``ham`` (and ``-m``)."""
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
        info = index_corpus(cfg)
        print(json.dumps(info, indent=2))

    _index()
