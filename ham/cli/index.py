"""``ham-index [OVERRIDE ...]``: ingest and index a corpus without answering questions."""
from __future__ import annotations


def index_corpus(cfg) -> dict:
    """Ingest, summaries, descriptions, embeddings and indexes of ``cfg``'s corpus, no questions."""
    from ham.backends.local import seed_everything
    from ham.cache import FolderCache
    from ham.index.build import build_index
    from hydra.utils import instantiate

    from ham.ingest.corpus import load_corpus
    from ham.paths import resolve_path

    seed_everything(int(cfg.seed))
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache, instantiate(cfg.units))
    indexed = build_index(cfg, corpus, cache)
    return {"corpus": str(corpus.root), "corpus_hash": corpus.content_hash, "units": len(corpus.units),
            "encoder": indexed.encoder.model_id, "cache_root": str(cache.root), **indexed.info}


def index_main() -> None:
    """``ham-index [OVERRIDE ...]``: ingest and index a corpus (summaries, descriptions, embeddings,
    faiss and sparse indexes) into the shared cache without answering any question, so a SLURM
    array can index first and generate later. Takes the same overrides as ``ham`` (and ``-m``)."""
    import json

    import hydra

    from ham.conf import CONF_DIR, check, register

    register()

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def _index(cfg) -> None:
        check(cfg)
        info = index_corpus(cfg)
        print(json.dumps(info, indent=2))

    _index()
