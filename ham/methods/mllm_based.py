"""MLLM-Based (MRAMG baseline, paper 5.1.1): the retrieved text (flat) and the retrieved images
themselves go to a multimodal model. A model takes only so many images, so a filter keeps the
``max_images`` most query-relevant ones:

``clip``            cosine similarity between the question and each image under CLIP
                    (``clip_model``: a local folder or a cached hub id);
``retrieval_rank``  without a CLIP model: the first ``max_images`` in retrieval order (a warning
                    says so, and every prediction records which filter ran).

Kept images are listed in retrieval order. Unreadable image files are left out and named in the
log and in the prediction. A retrieved table that has an image (a MinerU, Docling or PDF table)
is shown with it, right after its text block, within the same ``max_images`` (after the image
hits); the table image has no ``<imgN>`` tag, so it is evidence to read, not an image to cite. The evidence the model sees (text plus kept images) is what the
prediction records and what IR is computed on, as in the paper's Table 4.
"""
from __future__ import annotations

from typing import Annotated

import logging
from pathlib import Path

from ham.images import UnreadableImage, open_image
from ham.settings import Doc, Model, Range
from ham.methods.base import Template, Method, Prompt, PromptImage, flat_text_blocks, slots_of
from ham.retrieve.retriever import Hit, Retrieved
from ham.units import is_table_image

log = logging.getLogger("ham.methods.mllm")


class MllmBasedMethod(Method):
    name = "mllm_based"

    def __init__(self, template: Template = "mllm_based_v1",
                 max_images: Annotated[int, Range(1), Doc("images sent (the model's limit)")] = 5,
                 clip_model: Annotated[str | None, Model(), Doc("a CLIP folder or hub id in the HF cache keeps the "
                                                                "max_images most query-relevant images; None: "
                                                                "the first max_images by retrieval rank")] = None,
                 clip_device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 clip_batch_size: Annotated[int, Range(1)] = 16, **context) -> None:
        super().__init__(template, **context)
        self.max_images = max_images
        self.clip = None
        if clip_model:
            from ham.methods.clip_filter import ClipImageFilter

            self.clip = ClipImageFilter(clip_model, clip_device, clip_batch_size)
        else:
            log.warning("mllm_based: no CLIP model configured (method.clip_model); images are filtered "
                        "by retrieval rank instead")

    def image_file(self, hit: Hit) -> Path:
        if self.corpus_root is None:
            raise ValueError("mllm_based needs the corpus root to find image files (corpus_root=...)")
        return self.corpus_root / hit.unit.image_path

    def select(self, question: str, hits: list[Hit]) -> tuple[list[Hit], dict]:
        paths = {h.unit.unit_id: self.image_file(h) for h in hits}
        scores: dict[str, float] = {}
        if self.clip is not None:
            by_path, unreadable_paths = self.clip.scores(question, list(paths.values()))
            scores = {uid: by_path[p] for uid, p in paths.items() if p in by_path}
            unreadable = {uid: unreadable_paths[p] for uid, p in paths.items() if p in unreadable_paths}
            ranked = sorted(scores, key=lambda uid: -scores[uid])   # stable: ties keep retrieval order
        else:
            unreadable = {}
            for uid, path in paths.items():
                try:
                    open_image(path)
                except UnreadableImage as exc:
                    log.warning("mllm_based: %s; the image is left out", exc)
                    unreadable[uid] = str(exc)
            ranked = [uid for uid in paths if uid not in unreadable]
        keep = set(ranked[:self.max_images])
        kept = [h for h in hits if h.unit.unit_id in keep]
        record = {"method": "clip" if self.clip is not None else "retrieval_rank",
                  "model": self.clip.model_id if self.clip is not None else None,
                  "max_images": self.max_images, "kept": [h.unit.unit_id for h in kept],
                  "scores": {uid: round(s, 6) for uid, s in scores.items()}, "unreadable": unreadable}
        return kept, record

    def table_images(self, hits: list[Hit], first_slot: int, shown: set[str] = frozenset()
                     ) -> tuple[dict[str, int], list[PromptImage]]:
        """Images of retrieved tables that fit in what ``max_images`` leaves (readable files only),
        except tables whose image the image side already brought (``shown``: their text unit ids)."""
        room = self.max_images - (first_slot - 1)
        slots: dict[str, int] = {}
        images: list[PromptImage] = []
        for h in hits:
            if len(images) >= room:
                break
            if h.unit.kind != "table" or not h.unit.image_path or h.unit.unit_id in shown:
                continue
            path = self.image_file(h)
            try:
                open_image(path)
            except UnreadableImage as exc:
                log.warning("mllm_based: %s; the table image is left out", exc)
                continue
            slot = first_slot + len(images)
            slots[h.unit.unit_id] = slot
            images.append(PromptImage(slot, h.unit.unit_id, path))
        return slots, images

    def __call__(self, question: str, retrieved: Retrieved) -> Prompt:
        kept, record = self.select(question, retrieved.images)
        blocks = []
        for i, h in enumerate(kept, 1):
            caption = h.unit.caption or h.unit.alt
            blocks.append(f"<img{i}> [[image:{i}]]" + (f"\nCaption: {caption}" if caption else ""))
        table_slots, table_images = self.table_images(
            retrieved.text, len(kept) + 1, {h.unit.extra["table_unit"] for h in kept if is_table_image(h.unit)})
        text_blocks = flat_text_blocks(retrieved.text)
        if table_slots:
            text_blocks = "\n\n".join(f"[T{i}] {h.unit.content}" + (
                f"\n(the table as printed:) [[image:{table_slots[h.unit.unit_id]}]]"
                if h.unit.unit_id in table_slots else "") for i, h in enumerate(retrieved.text, 1))
        prompt = self.render(question, Retrieved(retrieved.text, kept), slots_of(kept),
                             text_blocks=text_blocks, image_blocks="\n\n".join(blocks))
        prompt.images = [PromptImage(i, h.unit.unit_id, self.image_file(h)) for i, h in enumerate(kept, 1)]
        prompt.images += table_images
        prompt.extra = {"image_filter": record}
        if table_images:
            prompt.extra["table_images"] = [i.unit_id for i in table_images]
        return prompt
