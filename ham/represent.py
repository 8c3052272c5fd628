"""What gets embedded for each evidence unit: every representation variant in one place.

Text   ``ct``  hierarchy-aware: document title, heading path, section context, content, neighbours
       ``st``  isolated: the content alone
Image  ``si``  source position, heading path, caption/alt, nearby text, context-aware description
       ``li``  local: caption/alt and nearby text, no description
Each is a field-structured prompt; the exact strings are pinned by golden tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ham.describe import DescriptionFile
from ham.units import EvidenceUnit, words

NEARBY_WORDS = 40


def _fields(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in pairs if value)


def position(unit: EvidenceUnit) -> str:
    where = f"{unit.source}, item {unit.order}"
    return where + (f", page {unit.page + 1}" if unit.page is not None else "")


def _neighbours(unit: EvidenceUnit) -> str:
    parts = [words(unit.local.get("prev_text", ""), NEARBY_WORDS, from_end=True),
             words(unit.local.get("next_text", ""), NEARBY_WORDS)]
    return " | ".join(p for p in parts if p)


def text_ct(unit: EvidenceUnit, descriptions: DescriptionFile | None = None) -> str:
    return _fields([("Document", unit.doc_title),
                    ("Path", " > ".join(unit.full_path[1:])),
                    ("Section context", unit.ancestors.get("section_context", "")),
                    ("Content", unit.content),
                    ("Neighbouring evidence", _neighbours(unit))])


def text_st(unit: EvidenceUnit, descriptions: DescriptionFile | None = None) -> str:
    return unit.content


def image_li(unit: EvidenceUnit, descriptions: DescriptionFile | None = None) -> str:
    return _fields([("Caption", unit.caption or unit.alt), ("Nearby text", _neighbours(unit))])


def image_si(unit: EvidenceUnit, descriptions: DescriptionFile | None = None) -> str:
    description = descriptions.get(unit.image_path) if descriptions else None
    return _fields([("Image", unit.image or ""),
                    ("Position", position(unit)),
                    ("Document", unit.doc_title),
                    ("Path", " > ".join(unit.full_path[1:])),
                    ("Caption", unit.caption or unit.alt),
                    ("Nearby text", _neighbours(unit)),
                    ("Description", description or "")])


TEXT_REPRESENTATIONS: dict[str, Callable] = {"ct": text_ct, "st": text_st}
IMAGE_REPRESENTATIONS: dict[str, Callable] = {"si": image_si, "li": image_li}


@dataclass
class Representer:
    """Serialises units under the configured text and image variants."""

    text: str = "ct"
    image: str = "si"
    descriptions: DescriptionFile | None = None

    def __post_init__(self) -> None:
        if self.text not in TEXT_REPRESENTATIONS:
            raise ValueError(f"unknown text representation {self.text!r}; known: {sorted(TEXT_REPRESENTATIONS)}")
        if self.image not in IMAGE_REPRESENTATIONS:
            raise ValueError(f"unknown image representation {self.image!r}; known: {sorted(IMAGE_REPRESENTATIONS)}")

    def __call__(self, unit: EvidenceUnit) -> str:
        if unit.modality == "image":
            return IMAGE_REPRESENTATIONS[self.image](unit, self.descriptions)
        return TEXT_REPRESENTATIONS[self.text](unit, self.descriptions)

    def key(self) -> dict:
        """What identifies these strings in a cache key."""
        return {"text": self.text, "image": self.image,
                "descriptions": self.descriptions.model_id if self.descriptions else "none",
                "template_version": TEMPLATE_VERSION}


TEMPLATE_VERSION = "1"
