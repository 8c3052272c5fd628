"""How the builder shows an evidence unit to a model: in full (a figure through its caption, its
context-aware description and any OCR / VLM text; a table through its caption and rows), or as a
text-only system would see it (the counterfactual contexts of ``ham.topo.validate``)."""
from __future__ import annotations

from ham.text import words
from ham.units import EvidenceUnit

WORDS = 220          # a unit's text is cut to this many words in prompts
LOCAL_WORDS = 60     # text before / after a figure or table in its text-only view


def modality(unit: EvidenceUnit) -> str:
    """text | image | table: the vocabulary of ``Evidence.modality``."""
    return "table" if unit.kind == "table" else ("image" if unit.modality == "image" else "text")


def modality_word(unit: EvidenceUnit) -> str:
    return {"image": "figure", "table": "table", "text": "passage"}[modality(unit)]


def section(unit: EvidenceUnit) -> str:
    return " > ".join(unit.full_path) or unit.doc_id


def full_text(unit: EvidenceUnit, descriptions=None) -> str:
    """The unit's evidence in words: a passage's or table's content; a figure's caption, its
    description and its OCR / VLM text, each labelled."""
    if modality(unit) != "image":
        return words(unit.content or "", WORDS)
    parts = [("Caption", unit.caption or unit.alt or unit.content or "")]
    description = descriptions.of(unit) if descriptions is not None else None
    parts += [("Description", description or ""), ("Text in the figure (OCR)", str(unit.extra.get("ocr_text") or "")),
              ("Figure description (VLM)", str(unit.extra.get("vlm_text") or ""))]
    return "\n".join(f"{label}: {words(value, WORDS)}" for label, value in parts if value.strip())


def text_only(unit: EvidenceUnit) -> str:
    """What a text-only system sees of the unit: a passage in full; for a figure or a table only its
    caption (or label) and the text before and after it, never its visual content, description or
    rows."""
    if modality(unit) == "text":
        return words(unit.content or "", WORDS)
    caption = unit.caption or unit.alt or unit.label or ""
    parts = [("Caption", caption), ("Text before", words(unit.local.get("prev_text", ""), LOCAL_WORDS, from_end=True)),
             ("Text after", words(unit.local.get("next_text", ""), LOCAL_WORDS))]
    return "\n".join(f"{label}: {value}" for label, value in parts if value.strip()) or "(nothing)"


def context(units: list[EvidenceUnit], descriptions=None, text_only_view: bool = False) -> str:
    """Units numbered as a prompt's context: ``[i] (modality | section) text``."""
    blocks = []
    for i, u in enumerate(units, 1):
        body = text_only(u) if text_only_view else full_text(u, descriptions)
        shown = f"text near a {modality_word(u)}" if text_only_view and modality(u) != "text" else modality_word(u)
        blocks.append(f"[{i}] ({shown} | {section(u)})\n{body}")
    return "\n\n".join(blocks) if blocks else "(no context)"
