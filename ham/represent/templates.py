"""What gets embedded for each evidence unit: every representation variant, in this one file.

Text   ``ct``         hierarchy-aware (paper 3.2, Figure 2): document title, heading path, the
                      content, subsection summary, section summary, neighbouring evidence
       ``st``         isolated: the content alone
       ``flat_text``  the baselines' raw chunk: the same string as ``st`` (so the two share one index)
Image  ``si``         image reference, source position, document, heading path, caption or alt,
                      nearby text, context-aware description, subsection and section summaries
       ``li``         local: caption or alt and nearby text, no description
       ``flat_image`` the baselines' caption only (caption, else alt, else the image reference)

Each is a field-structured prompt ("Name: value" lines, empty fields left out). Short position
fields come first and the content before the summaries, so a short encoder window (MiniLM: 256
tokens) truncates context, never the content. ``ham-show-unit`` prints any unit's string; golden
tests pin them. Summaries: ``ham.enrich.summaries``; descriptions: ``ham.enrich.descriptions``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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


def text_ct(unit: EvidenceUnit, ctx: Context) -> str:
    section, subsection = ctx.summaries_of(unit)
    return _fields([("Document", unit.doc_title), ("Path", _path(unit)), ("Content", unit.content),
                    ("Subsection summary", subsection), ("Section summary", section),
                    ("Neighbouring evidence", _neighbours(unit))])


def text_st(unit: EvidenceUnit, ctx: Context) -> str:
    return unit.content


def image_si(unit: EvidenceUnit, ctx: Context) -> str:
    section, subsection = ctx.summaries_of(unit)
    return _fields([("Image", unit.image or ""), ("Position", position(unit)), ("Document", unit.doc_title),
                    ("Path", _path(unit)), ("Caption", unit.caption or unit.alt),
                    ("Nearby text", _neighbours(unit)), ("Description", ctx.description_of(unit)),
                    ("Subsection summary", subsection), ("Section summary", section)])


def image_li(unit: EvidenceUnit, ctx: Context) -> str:
    return _fields([("Caption", unit.caption or unit.alt), ("Nearby text", _neighbours(unit))])


def image_flat(unit: EvidenceUnit, ctx: Context) -> str:
    return unit.caption or unit.alt or unit.image or ""


TEXT_REPRESENTATIONS: dict[str, Callable[[EvidenceUnit, Context], str]] = {
    "ct": text_ct, "st": text_st, "flat_text": text_st}
IMAGE_REPRESENTATIONS: dict[str, Callable[[EvidenceUnit, Context], str]] = {
    "si": image_si, "li": image_li, "flat_image": image_flat}
USES_SUMMARIES = {"ct", "si"}
USES_DESCRIPTIONS = {"si"}


class Representer:
    """Serialises units under the configured text and image variants."""

    def __init__(self, text: str = "ct", image: str = "si", descriptions=None, summaries=None) -> None:
        if text not in TEXT_REPRESENTATIONS:
            raise ValueError(f"unknown text representation {text!r}; known: {sorted(TEXT_REPRESENTATIONS)}")
        if image not in IMAGE_REPRESENTATIONS:
            raise ValueError(f"unknown image representation {image!r}; known: {sorted(IMAGE_REPRESENTATIONS)}")
        self.text, self.image = text, image
        self.context = Context(summaries, descriptions)

    @property
    def descriptions(self):
        return self.context.descriptions

    def __call__(self, unit: EvidenceUnit) -> str:
        if unit.modality == "image":
            return IMAGE_REPRESENTATIONS[self.image](unit, self.context)
        return TEXT_REPRESENTATIONS[self.text](unit, self.context)

    def name_for(self, modality: str) -> str:
        return self.image if modality == "image" else self.text

    def key(self, modality: str) -> dict:
        """What produced one modality's strings (recorded with its index)."""
        name = self.name_for(modality)
        summaries = self.context.summaries
        return {"name": name, "template_version": TEMPLATE_VERSION,
                "summaries": summaries.stats.backend if name in USES_SUMMARIES and summaries is not None else None,
                "descriptions": getattr(self.descriptions, "model_id", None) if name in USES_DESCRIPTIONS else None}
