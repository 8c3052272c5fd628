"""Page-Based (M3DocRAG / VisRAG style): the retrieved page images themselves go to a multimodal
model, under the page budget ``k_p`` (``conf/pages``), beside whatever units retrieval returned
under ``k_t`` and ``k_v`` (``pages.mode=both``; none in ``mode=pages``; all of them with
``pages=none``, so the three arms of a comparison share one method and one template).

The prompt (``page_based_v1``) lists the pages in rank order, each as a label ("[Page 3 of
report]") followed by its image; then the text units as HAM's text blocks (heading path, source,
score); then the image units, each shown after its ``<imgN>`` tag (citable, as MLLM-Based shows
them). Pages are evidence to read, not images to cite: they have no tag. ``max_images`` caps the
images attached (pages first, then image units), a model's image limit; a page or image whose file
cannot be decoded is left out and named in the prediction (``page_filter``). The method shows
``Retrieved.pages`` (the retriever's first ``k_p``), never the deeper ``page_ranking`` the
ranking metrics read; what the prompt shows is what the prediction records as seen.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

from ham.images import UnreadableImage, open_image
from ham.methods.base import Method, Prompt, PromptImage, Template, slots_of
from ham.methods.ham import text_block
from ham.retrieve.retriever import Retrieved
from ham.settings import Doc, Range

log = logging.getLogger("ham.methods.page_based")


class PageBasedMethod(Method):
    name = "page_based"

    def __init__(self, template: Template = "page_based_v1",
                 max_images: Annotated[int, Range(1), Doc("images attached at most: pages first, then image "
                                                          "units (the model's image limit)")] = 8,
                 **context) -> None:
        if max_images < 1:
            raise ValueError(f"method.max_images must be >= 1, not {max_images}")
        super().__init__(template, **context)
        self.max_images = max_images

    def _readable(self, path: Path, what: str, unreadable: dict) -> bool:
        try:
            open_image(path)
            return True
        except UnreadableImage as exc:
            log.warning("page_based: %s; the %s is left out", exc, what)
            unreadable[what] = str(exc)
            return False

    def image_file(self, image_path: str) -> Path:
        path = Path(image_path)
        if path.is_absolute():
            return path
        if self.corpus_root is None:
            raise ValueError("page_based needs the corpus root to find image files (corpus_root=...)")
        return self.corpus_root / path

    def __call__(self, question: str, retrieved: Retrieved) -> Prompt:
        unreadable: dict[str, str] = {}
        pages, images = [], []
        for hit in retrieved.pages:
            if len(pages) < self.max_images and self._readable(Path(hit.page.image_path), f"page {hit.page.page_id}",
                                                                unreadable):
                pages.append(hit)
        for hit in retrieved.images:
            if len(pages) + len(images) < self.max_images and self._readable(
                    self.image_file(hit.unit.image_path), f"image {hit.unit.unit_id}", unreadable):
                images.append(hit)
        page_blocks = [f"[Page {h.page.page + 1} of {h.page.doc_id}] [[image:{n}]]" for n, h in enumerate(pages, 1)]
        first = len(pages) + 1
        image_blocks = [f"<img{n}> [[image:{first + n - 1}]]" + (f"\nCaption: {h.unit.caption or h.unit.alt}"
                                                                 if h.unit.caption or h.unit.alt else "")
                        for n, h in enumerate(images, 1)]
        seen = Retrieved(retrieved.text, images, pages, retrieved.timing)
        prompt = self.render(question, seen, slots_of(images), page_blocks="\n\n".join(page_blocks),
                             text_blocks="\n\n".join(text_block(i, h) for i, h in enumerate(retrieved.text, 1)),
                             image_blocks="\n\n".join(image_blocks))
        prompt.images = [PromptImage(n, h.page.page_id, Path(h.page.image_path)) for n, h in enumerate(pages, 1)]
        prompt.images += [PromptImage(first + n - 1, h.unit.unit_id, self.image_file(h.unit.image_path))
                          for n, h in enumerate(images, 1)]
        prompt.extra = {"page_filter": {"max_images": self.max_images, "pages": [h.page.page_id for h in pages],
                                        "images": [h.unit.unit_id for h in images], "unreadable": unreadable}}
        return prompt
