"""Query-image relevance with CLIP (``transformers.CLIPModel``; no torchvision, timm or open_clip).

``model`` is a local CLIP folder (e.g. a saved ``openai/clip-vit-base-patch32``) or a hub id
already in the local Hugging Face cache; nothing is downloaded. The tokenizer is loaded with
``AutoTokenizer`` and images are preprocessed by ``CLIPImageProcessor`` (PIL, no torchvision).
Image embeddings are kept in memory by file path, since the same images come back across
questions.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from ham.backends.local import local_model_id, model_source
from ham.images import UnreadableImage, open_image

log = logging.getLogger("ham.methods.clip")


class ClipImageFilter:
    def __init__(self, model: str, device: str | None = None, batch_size: int = 16) -> None:
        import torch
        from transformers import AutoTokenizer, CLIPImageProcessor, CLIPModel

        path = model_source(model)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = CLIPModel.from_pretrained(path, local_files_only=True).to(self.device).eval()
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.image_processor = CLIPImageProcessor.from_pretrained(path, local_files_only=True)
        self.batch_size = batch_size
        self.max_text_tokens = int(self.model.config.text_config.max_position_embeddings)
        self.model_id = local_model_id("clip", path)
        self._image_vectors: dict[Path, np.ndarray] = {}

    def _normalised(self, features) -> np.ndarray:
        vectors = features.float().cpu().numpy()
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def text_vector(self, text: str) -> np.ndarray:
        import torch

        enc = self.tokenizer([text], truncation=True, max_length=self.max_text_tokens, padding=True,
                             return_tensors="pt")
        enc = {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        with torch.inference_mode():
            return self._normalised(self.model.get_text_features(**enc))[0]

    def _embed_images(self, paths: list[Path]) -> dict[Path, str]:
        """Embed the paths not seen yet; returns {path: reason} for files that cannot be read."""
        import torch

        unreadable: dict[Path, str] = {}
        todo = []
        for path in dict.fromkeys(paths):
            if path in self._image_vectors:
                continue
            try:
                todo.append((path, open_image(path)))
            except UnreadableImage as exc:
                log.warning("CLIP filter: %s; the image is left out", exc)
                unreadable[path] = str(exc)
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start:start + self.batch_size]
            pixels = self.image_processor(images=[im for _, im in chunk], return_tensors="pt")["pixel_values"]
            with torch.inference_mode():
                vectors = self._normalised(self.model.get_image_features(pixel_values=pixels.to(self.device)))
            self._image_vectors.update({p: v for (p, _), v in zip(chunk, vectors)})
        return unreadable

    def scores(self, query: str, paths: list[Path]) -> tuple[dict[Path, float], dict[Path, str]]:
        """Cosine similarity of the query to each readable image, and the unreadable ones."""
        unreadable = self._embed_images(paths)
        query_vector = self.text_vector(query)
        return ({p: float(self._image_vectors[p] @ query_vector) for p in paths if p in self._image_vectors},
                unreadable)
