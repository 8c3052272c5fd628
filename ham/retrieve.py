"""Online retrieval under separate budgets: top k_t text units and top k_v images (paper 3.3).

Every hit keeps its score, provenance (document, source file, position) and the unit itself, so
assembly can show heading paths, captions and local relations.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from ham.cache import FolderCache, key_of
from ham.corpus import Corpus
from ham.index import HybridIndex, tokenize
from ham.represent import Representer
from ham.units import EvidenceUnit

log = logging.getLogger("ham.retrieve")
INDEX_VERSION = "1"


@dataclass
class Hit:
    unit: EvidenceUnit
    score: float
    rank: int
    dense: float = 0.0
    sparse: float = 0.0


@dataclass
class Retrieved:
    text: list[Hit]
    images: list[Hit]


def build_indexes(corpus: Corpus, representer: Representer, encoder, cache: FolderCache
                  ) -> tuple[dict[str, HybridIndex], dict]:
    """Build (or reuse) one index per modality, keyed by corpus hash x representation x encoder."""
    info: dict = {}
    indexes: dict[str, HybridIndex] = {}
    for modality in ("text", "image"):
        units = corpus.of_modality(modality)
        repr_key = representer.key()
        repr_key = {"text": repr_key["text"], "template_version": repr_key["template_version"]} \
            if modality == "text" else {k: v for k, v in repr_key.items() if k != "text"}
        key = key_of([corpus.content_hash, modality, repr_key, encoder.model_id, INDEX_VERSION])
        meta = {"encoder": encoder.model_id, "corpus": corpus.content_hash, "modality": modality,
                "representation": repr_key}

        def build(folder: Path, units=units, meta=meta) -> None:
            texts = [representer(u) for u in units]
            HybridIndex.build([u.unit_id for u in units], texts, encoder, meta).save(folder)

        folder, cached = cache.get_or_build("index", key, build)
        index = HybridIndex.load(folder)
        index.check_encoder(encoder.model_id)
        indexes[modality] = index
        info[modality] = {"key": key, "reused": cached, "size": len(index)}
    if representer.image == "si":
        # count fallbacks from the units themselves: a reused index never calls the representer
        missing = [u.unit_id for u in corpus.of_modality("image")
                   if representer.descriptions is None or representer.descriptions.get(u.image_path) is None]
        info["si_fallback_images"] = len(missing)
        if missing:
            log.warning("si: %d of %d images have no context-aware description; they are represented "
                        "without one (as li would)", len(missing), len(corpus.of_modality("image")))
    return indexes, info


class Retriever:
    def __init__(self, corpus: Corpus, indexes: dict[str, HybridIndex], encoder, k_t: int = 15,
                 k_v: int = 10, mode: str = "hybrid", dense_weight: float = 0.7, pool: int = 100) -> None:
        self.units = corpus.by_id
        self.indexes = indexes
        self.encoder = encoder
        self.k_t, self.k_v, self.mode, self.dense_weight, self.pool = k_t, k_v, mode, dense_weight, pool

    def retrieve(self, query: str) -> Retrieved:
        qvec = self.encoder.encode([query])[0]
        qtok = tokenize([query])[0]

        def hits(modality: str, k: int) -> list[Hit]:
            scored = self.indexes[modality].search(qvec, qtok, k, self.mode, self.pool, self.dense_weight)
            return [Hit(self.units[s.unit_id], s.score, rank, s.dense, s.sparse)
                    for rank, s in enumerate(scored, 1)]

        return Retrieved(text=hits("text", self.k_t), images=hits("image", self.k_v))
