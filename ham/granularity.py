"""Unit granularity (config group ``units``): how much of a document one evidence unit holds.

    blocks    one unit per leaf of the tree (a paragraph, list, table, step text): ham's original
    merged    consecutive text leaves of one section (same container: a section or a step)
              merged until a unit holds at least ``min_chars``, never past ``max_chars``: a leaf
              of ``min_chars`` or more closes its unit (short leaves before it may join it)
    sections  every run of text leaves of one container merged, up to ``max_chars`` per unit
              (cut between leaves: a leaf is never split, so one longer than ``max_chars`` is a
              unit of its own)

With ``steps="merge"`` (the default for ``merged`` and ``sections``) a procedure's consecutive
text-only steps are running text too: each becomes "Step N. its text" and they merge like any
other blocks, so a procedure reads as a few units rather than one per step; a step holding an
image stays a step (its image belongs beside it). Tables, images and figure captions are never
merged with running text. ``captions`` says where
a figure caption lives: ``image`` (on its image unit only; the default, so a caption does not take
one of the k_t text slots) or ``both`` (also a text unit of its own, ham's original).

Merging happens on the tree: a merged node takes the first leaf's id, order, page and source
index, and its text is the leaves' texts joined by newlines, so a gold passage inside one block
is inside the merged unit, and every relation (an image's target text, a caption link) is worked
out on the merged tree by ``ham.units.build_units``.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from typing import Annotated, Iterable

from ham.document import Document, Node
from ham.settings import Doc, OneOf, Range
from ham.units import EvidenceUnit, build_units

Captions = Annotated[str, OneOf("image", "both"),
                     Doc("a figure caption lives on its image unit (image), or also a text unit of its own (both)")]
Steps = Annotated[str, OneOf("merge", "keep"),
                  Doc("a procedure's text-only steps merge like other blocks (merge), or one unit per step (keep)")]

MERGEABLE = "text"


def _is_running_text(node: Node) -> bool:
    return node.kind == MERGEABLE and node.caption_of is None


def _text_only_step(node: Node) -> bool:
    return node.kind == "step" and bool(node.children) and all(_is_running_text(c) for c in node.children)


def _joined_meta(nodes: list[Node], **extra) -> dict:
    """The first node's meta for a unit made of ``nodes``, with every node's links
    (``refs``, ham.ingest.links) kept, not only the first's."""
    refs = list(dict.fromkeys(r for n in nodes for r in n.meta.get("refs", ())))
    return {**nodes[0].meta, **extra, **({"refs": refs} if refs else {})}


def _step_as_text(step: Node) -> Node:
    first = step.children[0]
    body = " ".join(c.text for c in step.children)
    return replace(first, text=f"{step.title}. {body}" if step.title else body, children=[],
                   meta=_joined_meta(step.children, step=step.title))


def _merge_children(node: Node, min_chars: int, max_chars: int, steps: bool = False) -> None:
    out: list[Node] = []
    group: list[Node] = []

    def close() -> None:
        if len(group) == 1:
            out.append(group[0])
        elif group:
            first = group[0]
            merged = replace(first, text="\n".join(n.text for n in group), children=[],
                             meta=_joined_meta(group, merged=[n.id for n in group]))
            out.append(merged)
        group.clear()

    for child in node.children:
        if steps and _text_only_step(child):
            child = _step_as_text(child)
        elif child.children:
            _merge_children(child, min_chars, max_chars, steps)
        if not _is_running_text(child):
            close()
            out.append(child)
            continue
        size = sum(len(n.text) for n in group) + len(group)
        if group and (size >= min_chars or size + len(child.text) + 1 > max_chars):
            close()
        group.append(child)
    close()
    node.children = out


def merged_document(doc: Document, min_chars: int, max_chars: int, steps: bool = False) -> Document:
    root = copy.deepcopy(doc.root)
    _merge_children(root, min_chars, max_chars, steps)
    return replace(doc, root=root)


class Blocks:
    """``units=blocks``: one unit per leaf."""

    name = "blocks"

    def __init__(self, captions: Captions = "image") -> None:
        if captions not in ("image", "both"):
            raise ValueError(f"units.captions must be 'image' or 'both', not {captions!r}")
        self.captions = captions

    def key(self) -> dict:
        return {"name": self.name, "captions": self.captions}

    def documents(self, docs: Iterable[Document]) -> list[Document]:
        return list(docs)

    def build(self, docs: Iterable[Document]) -> list[EvidenceUnit]:
        caption_units = self.captions == "both"
        return [u for doc in self.documents(docs) for u in build_units(doc, caption_units=caption_units)]


class Merged(Blocks):
    """``units=merged``: short consecutive blocks of one section merged (module docstring)."""

    name = "merged"

    def __init__(self, min_chars: Annotated[int, Range(1), Doc("text leaves merge until a unit holds this many "
                                                                 "characters (300 chosen on devbench over 150)")] = 300,
                 max_chars: Annotated[int, Range(1), Doc("never past this many characters")] = 1200,
                 captions: Captions = "image", steps: Steps = "merge") -> None:
        super().__init__(captions)
        if not 0 < min_chars <= max_chars:
            raise ValueError(f"units: need 0 < min_chars <= max_chars, got {min_chars} and {max_chars}")
        if steps not in ("merge", "keep"):
            raise ValueError(f"units.steps must be 'merge' or 'keep', not {steps!r}")
        self.min_chars, self.max_chars, self.steps = min_chars, max_chars, steps

    def key(self) -> dict:
        return {**super().key(), "min_chars": self.min_chars, "max_chars": self.max_chars, "steps": self.steps}

    def documents(self, docs: Iterable[Document]) -> list[Document]:
        return [merged_document(d, self.min_chars, self.max_chars, self.steps == "merge") for d in docs]


class Sections(Merged):
    """``units=sections``: each run of a section's text as one unit, up to ``max_chars``."""

    name = "sections"

    def __init__(self, max_chars: Annotated[int, Range(1), Doc("a section's run of text is cut into units of at "
                                                                 "most this many characters")] = 2000,
                 captions: Captions = "image", steps: Steps = "merge") -> None:
        super().__init__(min_chars=max_chars, max_chars=max_chars, captions=captions, steps=steps)

    def key(self) -> dict:
        return {"name": self.name, "captions": self.captions, "max_chars": self.max_chars, "steps": self.steps}
