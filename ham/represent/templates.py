"""What gets embedded for each evidence unit: every representation variant, in this one file.

Text   ``ct``         hierarchy-aware (paper 3.2, Figure 2): document title, heading path, the
                      content, subsection summary, section summary, neighbouring evidence
       ``st``         isolated: the content alone
       ``flat_text``  the baselines' raw chunk: the same string as ``st`` (so the two share one index)
Image  ``si``         image reference, source position, document, heading path, caption or alt,
                      nearby text, context-aware description, subsection and section summaries
       ``li``         local: caption or alt and nearby text, no description
       ``flat_image`` the baselines' caption only (caption, else alt, else the image reference)

Each variant is a ``Representation`` object chosen by ``_target_`` in ``conf/text_repr/`` and
``conf/image_repr/``; ``Representer`` applies the text one to text and table units and the image
one to images. Each is a field-structured prompt ("Name: value" lines, empty fields left out). Short position
fields come first and the content before the summaries, so a short encoder window (MiniLM: 256
tokens) truncates context, never the content. ``ham-show-unit`` prints any unit's string; golden
tests pin them. Summaries: ``ham.enrich.summaries``; descriptions: ``ham.enrich.descriptions``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ham.settings import Doc, OneOf
from ham.text import words
from ham.units import EvidenceUnit

NEARBY_WORDS = 40
TEMPLATE_VERSION = "2"


def _fields(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in pairs if value)


def position(unit: EvidenceUnit) -> str:
    """Where a unit is in its source: file, page (1-based) and the source's label ("page 4,
    Figure 3"), then the item's index in the source's own list (tree order when it has none)."""
    parts = [unit.source]
    if unit.page is not None:
        parts.append(f"page {unit.page + 1}")
    if unit.label:
        parts.append(unit.label)
    parts.append(f"item {unit.index if unit.index is not None else unit.order}")
    return ", ".join(parts)


def _neighbours(unit: EvidenceUnit) -> str:
    parts = [words(unit.local.get("prev_text", ""), NEARBY_WORDS, from_end=True),
             words(unit.local.get("next_text", ""), NEARBY_WORDS)]
    return " | ".join(p for p in parts if p)


def _path(unit: EvidenceUnit) -> str:
    return " > ".join(unit.full_path[1:])


@dataclass
class Context:
    """What a template may use beyond the unit: section summaries and image descriptions."""

    summaries: object | None = None      # ham.enrich.summaries.Summaries
    descriptions: object | None = None   # ham.enrich.descriptions.Descriptions or DescriptionFile

    def summaries_of(self, unit: EvidenceUnit) -> tuple[str, str]:
        return self.summaries.of(unit) if self.summaries is not None else ("", "")

    def description_of(self, unit: EvidenceUnit) -> str:
        if self.descriptions is None:
            return ""
        lookup = getattr(self.descriptions, "of", None)
        found = lookup(unit) if lookup else self.descriptions.get(unit.image_path)
        return found or ""


class Representation:
    """One way of turning units of one modality into the strings that get embedded."""

    name = ""
    modality = "text"
    uses_summaries = False
    uses_descriptions = False

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        raise NotImplementedError

    def sparse(self, unit: EvidenceUnit, ctx: Context) -> str:
        """What the sparse side (BM25) indexes: the embedded string unless a variant says otherwise."""
        return self(unit, ctx)

    def key(self, ctx: Context) -> dict:
        """What produced this representation's strings (recorded with its index)."""
        summaries = ctx.summaries
        return {"name": self.name, "template_version": TEMPLATE_VERSION,
                "summaries": summaries.stats.backend if self.uses_summaries and summaries is not None else None,
                "descriptions": getattr(ctx.descriptions, "model_id", None) if self.uses_descriptions else None}


class ContextualText(Representation):
    """``ct``: document, heading path, content, subsection and section summaries, neighbours.
    ``sparse``: what BM25 indexes, ``full`` (the same string) or ``path_content`` (document,
    heading path and content only: summaries and neighbours, shared by a whole section, would
    make every unit of a section match the same words)."""

    name, uses_summaries = "ct", True

    def __init__(self, sparse: Annotated[str, OneOf("full", "path_content"),
                                         Doc("what BM25 indexes: the full string, or the heading path and "
                                             "content only")] = "full") -> None:
        if sparse not in ("full", "path_content"):
            raise ValueError(f"ct: sparse must be 'full' or 'path_content', not {sparse!r}")
        self.sparse_text = sparse

    def sparse(self, unit: EvidenceUnit, ctx: Context) -> str:
        if self.sparse_text == "full":
            return self(unit, ctx)
        return _fields([("Document", unit.doc_title), ("Path", _path(unit)), ("Content", unit.content)])

    def key(self, ctx: Context) -> dict:
        return {**super().key(ctx), "sparse": self.sparse_text}

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        section, subsection = ctx.summaries_of(unit)
        return _fields([("Document", unit.doc_title), ("Path", _path(unit)), ("Content", unit.content),
                        ("Subsection summary", subsection), ("Section summary", section),
                        ("Neighbouring evidence", _neighbours(unit))])


class IsolatedText(Representation):
    """``st``: the content alone."""

    name = "st"

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        return unit.content


class FlatText(IsolatedText):
    """``flat_text``: the baselines' raw chunk, the same string as ``st`` (so both share one index)."""

    name = "flat_text"


class ContextualImage(Representation):
    """``si``: reference, position, document, path, caption, nearby text, description, summaries."""

    name, modality, uses_summaries, uses_descriptions = "si", "image", True, True

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        section, subsection = ctx.summaries_of(unit)
        return _fields([("Image", unit.image or ""), ("Position", position(unit)), ("Document", unit.doc_title),
                        ("Path", _path(unit)), ("Caption", unit.caption or unit.alt),
                        ("Nearby text", _neighbours(unit)), ("Description", ctx.description_of(unit)),
                        ("Subsection summary", subsection), ("Section summary", section)])


class LocalImage(Representation):
    """``li``: caption or alt and nearby text, no description."""

    name, modality = "li", "image"

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        return _fields([("Caption", unit.caption or unit.alt), ("Nearby text", _neighbours(unit))])


class FlatImage(Representation):
    """``flat_image``: the baselines' caption only (caption, else alt, else the image reference)."""

    name, modality = "flat_image", "image"

    def __call__(self, unit: EvidenceUnit, ctx: Context) -> str:
        return unit.caption or unit.alt or unit.image or ""


class Representer:
    """Serialises units: ``text`` for text and table units, ``image`` for images."""

    def __init__(self, text: Representation, image: Representation, descriptions=None, summaries=None) -> None:
        for rep, modality in ((text, "text"), (image, "image")):
            if not isinstance(rep, Representation) or rep.modality != modality:
                raise ValueError(f"{type(rep).__name__} is not a {modality} representation")
        self.text, self.image = text, image
        self.context = Context(summaries, descriptions)

    @property
    def descriptions(self):
        return self.context.descriptions

    def for_modality(self, modality: str) -> Representation:
        return self.image if modality == "image" else self.text

    def __call__(self, unit: EvidenceUnit) -> str:
        return self.for_modality(unit.modality)(unit, self.context)

    def key(self, modality: str) -> dict:
        return self.for_modality(modality).key(self.context)

    def sparse(self, unit: EvidenceUnit) -> str:
        return self.for_modality(unit.modality).sparse(unit, self.context)
