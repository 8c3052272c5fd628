"""``ham-index [OVERRIDE ...]``: ingest and index a corpus without answering questions."""
from __future__ import annotations


def index_main() -> None:
    """``ham-index [OVERRIDE ...]``: ingest and index a corpus (summaries, descriptions, embeddings,
    faiss and sparse indexes) into the shared cache without answering any question, so a SLURM
    array can index first and generate later. Takes the same overrides as ``ham`` (and ``-m``)."""
    import json

    import hydra

    from ham.index.build import index_corpus
    from ham.paths import PROJECT_ROOT

    @hydra.main(version_base="1.3", config_path=str(PROJECT_ROOT / "conf"), config_name="config")
    def _index(cfg) -> None:
        info = index_corpus(cfg)
        print(json.dumps(info, indent=2))

    _index()
