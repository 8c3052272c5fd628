"""The block stream every reader emits (``Block``) and the title comparison the tree passes share;
its own module so that the builder (``ham.ingest.builder``) and the document-level passes
(``ham.ingest.structure``) both import it and not each other."""
from __future__ import annotations

from dataclasses import dataclass, field

from ham.text import clean_text


def same_title(a: str, b: str) -> bool:
    def key(s: str) -> str:
        return " ".join(clean_text(s).casefold().split()).strip(" .:")
    return bool(a.strip()) and key(a) == key(b)


@dataclass
class Block:
    """One unit of source content in reading order.

    kind: ``heading`` (with ``level``; 0 means "infer from numbering"), ``text``, ``image``,
    ``table``, ``step`` (an ordered-list item of a procedure; its ``text`` is the step body),
    ``end_steps`` (closes the current run of steps), ``end_section`` (with ``level``: closes the
    section opened at that level, so what follows is the enclosing section's again) or ``caption`` (text the source marks as a
    figure caption, e.g. an HTML ``figcaption``: linked like a "Figure N." text even when it does
    not start with such a label).

    Evidence formats may add: ``page`` (0-based), ``index`` (the item's index in the source's own
    list), ``font_size`` (points; a heading's typographic level), ``font`` (the font a
    heading is set in: a second typographic signal where sizes tie), ``bbox`` (x0, y0, x1, y1 scaled
    0-1000 on its page), ``furniture`` (the source marks it page header/footer/number: the
    kind, e.g. "page header"), ``number`` (a step's number in its list), ``rule`` (why a heading
    has its level; set by ``ham.ingest.levels``), ``footnote`` (a table's or image's notes).
    """

    kind: str
    text: str = ""
    level: int = 0
    image: str | None = None
    image_path: str | None = None
    alt: str = ""
    caption: str = ""
    page: int | None = None
    source: str = ""
    meta: dict = field(default_factory=dict)   # source facts kept on the node (layout id, bbox, ...)
    index: int | None = None
    font_size: float | None = None
    font: str = ""
    bbox: tuple | None = None
    furniture: str = ""
    number: int | None = None
    rule: str = ""
    footnote: str = ""
