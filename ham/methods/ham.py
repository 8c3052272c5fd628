"""HAM-RAG's structured prompt: ranked text blocks with their source-grounded heading paths and
neighbouring context; image blocks with image reference, caption or alt text, source position,
context-aware description and local relation (paper 3.3)."""
from __future__ import annotations

from ham.describe import DescriptionFile
from ham.methods.base import Prompt, load_template
from ham.represent import position
from ham.retrieve import Hit, Retrieved
from ham.units import words

CONTEXT_WORDS = 30


def text_block(n: int, hit: Hit) -> str:
    u = hit.unit
    head = " > ".join(u.full_path)
    lines = [f"[T{n}] {head}  (source: {u.source}; score {hit.score:.3f})", u.content]
    before = words(u.local.get("prev_text", ""), CONTEXT_WORDS, from_end=True)
    if before and u.relation.get("type") != "caption_of":
        lines.append(f"Preceded by: {before}")
    return "\n".join(lines)


def image_block(n: int, hit: Hit, text_ids: dict[str, int], descriptions: DescriptionFile | None) -> str:
    u = hit.unit
    lines = [f"<img{n}> {u.image}",
             f"Position: {position(u)}; path: {' > '.join(u.full_path)}"]
    if u.caption or u.alt:
        lines.append(f"Caption: {u.caption or u.alt}")
    description = descriptions.get(u.image_path) if descriptions else None
    if description:
        lines.append(f"Description: {description}")
    target = u.relation.get("target")
    relation = u.relation.get("type", "").replace("_", " ")
    if target in text_ids:
        lines.append(f"Relation: {relation}; belongs after text block T{text_ids[target]}")
    else:
        nearby = words(u.local.get("prev_text", ""), CONTEXT_WORDS, from_end=True)
        lines.append(f"Relation: {relation}" + (f"; follows the text: {nearby}" if nearby else ""))
    return "\n".join(lines)


class HamAssembler:
    name = "ham"

    def __init__(self, template: str = "ham_v1", descriptions: DescriptionFile | None = None) -> None:
        self.template_name = template
        self.template = load_template(template)
        self.descriptions = descriptions

    def __call__(self, question: str, retrieved: Retrieved) -> Prompt:
        text_ids = {h.unit.unit_id: i for i, h in enumerate(retrieved.text, 1)}
        text_blocks = "\n\n".join(text_block(i, h) for i, h in enumerate(retrieved.text, 1))
        image_blocks = "\n\n".join(image_block(i, h, text_ids, self.descriptions)
                                   for i, h in enumerate(retrieved.images, 1))
        slots = {i: (h.unit.unit_id, h.unit.image) for i, h in enumerate(retrieved.images, 1)}
        text = self.template.format(question=question, text_blocks=text_blocks or "(none)",
                                    image_blocks=image_blocks or "(none)")
        return Prompt(question, text, slots, retrieved, self.template_name)
