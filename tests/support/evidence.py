"""Hand-made retrieved evidence for method and runner tests: the units of a small document
(``manual_doc`` in tests/conftest.py) as ranked hits, with real image files under a corpus root."""
from __future__ import annotations

from pathlib import Path

from PIL import Image

from ham.retrieve.retriever import Hit, Retrieved
from ham.units import build_units

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30)]


def evidence(doc, corpus_root: Path | None = None) -> Retrieved:
    """Text units then image units of ``doc`` in source order as hits (scores 0.9, 0.8, ...); with a
    ``corpus_root``, each image unit gets a small PNG at corpus_root / image_path."""
    units = build_units(doc)
    texts = [u for u in units if u.modality == "text"]
    images = [u for u in units if u.modality == "image"]
    if corpus_root is not None:
        for n, u in enumerate(images):
            path = Path(corpus_root) / u.image_path
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (24 + 8 * n, 24), COLOURS[n % len(COLOURS)]).save(path)

    def hits(us):
        return [Hit(u, round(0.9 - 0.1 * i, 3), i + 1) for i, u in enumerate(us)]
    return Retrieved(hits(texts), hits(images))
