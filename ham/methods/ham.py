"""HAM-RAG's structured prompt P_ham = Assemble(q, E*) (paper 3.3): ranked text blocks with their
source-grounded heading paths, relevance scores and neighbouring context; image blocks with the
image reference, caption or alt text, source position, context-aware description, score and the
local relation that says which text block the image belongs beside."""
from __future__ import annotations

from ham.methods.base import Template, CONTEXT_WORDS, Method, slots_of
from ham.represent.templates import position
from ham.retrieve.retriever import Hit, Retrieved
from ham.text import words


def text_block(n: int, hit: Hit) -> str:
    u = hit.unit
    lines = [f"[T{n}] {' > '.join(u.full_path)}  (source: {u.source}; score {hit.score:.3f})", u.content]
    if u.relation.get("type") != "caption_of":
        before = words(u.local.get("prev_text", ""), CONTEXT_WORDS, from_end=True)
        after = words(u.local.get("next_text", ""), CONTEXT_WORDS)
        lines += [f"{label}: {text}" for label, text in (("Preceded by", before), ("Followed by", after)) if text]
    return "\n".join(lines)


def image_block(n: int, hit: Hit, text_ids: dict[str, int], descriptions) -> str:
    u = hit.unit
    lines = [f"<img{n}> {u.image}  (score {hit.score:.3f})",
             f"Position: {position(u)}; path: {' > '.join(u.full_path)}"]
    if u.caption or u.alt:
        lines.append(f"Caption: {u.caption or u.alt}")
    # this occurrence's own description (a VLM's is conditioned on where the image sits), not the
    # first one made for the same file elsewhere
    of = getattr(descriptions, "of", None)
    description = (of(u) if of else descriptions.get(u.image_path)) if descriptions else None
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


class HamAssembler(Method):
    name = "ham"

    def __init__(self, template: Template = "ham_v2", **context) -> None:
        super().__init__(template, **context)

    def __call__(self, question: str, retrieved: Retrieved):
        text_ids = {h.unit.unit_id: i for i, h in enumerate(retrieved.text, 1)}
        for i, h in enumerate(retrieved.text, 1):   # an assembled passage: an image belongs after any member
            for member in h.unit.extra.get("members", ()):
                text_ids.setdefault(member, i)
        return self.render(
            question, retrieved, slots_of(retrieved.images),
            text_blocks="\n\n".join(text_block(i, h) for i, h in enumerate(retrieved.text, 1)),
            image_blocks="\n\n".join(image_block(i, h, text_ids, self.descriptions)
                                     for i, h in enumerate(retrieved.images, 1)))
