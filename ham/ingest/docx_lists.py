"""Whether a Word paragraph is a list item, and of which kind, for ``ham.ingest.docx``.

A paragraph is a list item when it has numbering properties (``w:numPr``), its own or its style's
(up the ``basedOn`` chain); the numbering definition says what the item shows: ``w:num`` ->
``w:abstractNum`` (followed through ``w:numStyleLink``) -> the ``w:lvl`` of the item's ``w:ilvl``
(a ``w:lvlOverride`` of the ``w:num`` first) -> ``w:numFmt``. "bullet" (and "none", no mark) is a
bulleted list, any other format (decimal, letters, Roman numerals) a numbered one. ``numId`` 0
switches numbering off. Word's usual numbered list is the style "List Paragraph" with numbering
properties of its own, so the style's name is the last resort: "List Number" / "List Bullet"
without numbering anywhere (a template whose list styles lost their definitions).
"""
from __future__ import annotations

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_BULLETS = {"bullet", "none"}


def _val(element, tag: str) -> str | None:
    child = element.find(f"{_W}{tag}") if element is not None else None
    return child.get(f"{_W}val") if child is not None else None


class ListKinds:
    """``kind(paragraph)``: "list-number", "list-bullet" or "" for one document."""

    def __init__(self, document) -> None:
        part = document.part
        numbering = next((rel.target_part for rel in part.rels.values()
                          if rel.reltype.endswith("/numbering") and not rel.is_external), None)
        self.numbering = numbering.element if numbering is not None else None
        self.styles = document.styles.element
        self.formats: dict[tuple[str, str], str] = {}

    def kind(self, paragraph) -> str:
        num_id, ilvl = self.numbering_of(paragraph)
        if num_id is not None and num_id != "0":
            if (num_id, ilvl) not in self.formats:
                self.formats[(num_id, ilvl)] = self.num_format(num_id, ilvl)
            fmt = self.formats[(num_id, ilvl)]
            # a definition that cannot be found: numbered, as before numbering formats were read
            return "list-bullet" if fmt in _BULLETS else "list-number"
        if num_id is None:
            style = paragraph.style
            name = ((style.name if style is not None else "") or "").lower()
            if name.startswith("list number"):
                return "list-number"
            if name.startswith("list bullet"):
                return "list-bullet"
        return ""

    @staticmethod
    def numbering_of(paragraph) -> tuple[str | None, str]:
        """(numId, ilvl): the paragraph's own numbering properties, what they leave out from its
        style's (a paragraph may set only the level of its style's list)."""
        num_id = ilvl = None
        ppr = paragraph._p.pPr
        style = paragraph.style
        while True:
            num_pr = ppr.find(f"{_W}numPr") if ppr is not None else None
            if num_pr is not None:
                ilvl = ilvl if ilvl is not None else _val(num_pr, "ilvl")
                num_id = num_id if num_id is not None else _val(num_pr, "numId")
            if num_id is not None or style is None:
                break
            ppr = style.element.find(f"{_W}pPr")
            style = style.base_style
        return num_id, ilvl or "0"

    def num_format(self, num_id: str, ilvl: str, depth: int = 0) -> str:
        """The ``w:numFmt`` of level ``ilvl`` of numbering ``num_id``; "" when not found."""
        if self.numbering is None or depth > 3:
            return ""
        num = next((n for n in self.numbering.iterchildren(f"{_W}num") if n.get(f"{_W}numId") == num_id), None)
        if num is None:
            return ""
        for override in num.iterchildren(f"{_W}lvlOverride"):
            lvl = override.find(f"{_W}lvl")
            if override.get(f"{_W}ilvl") == ilvl and _val(lvl, "numFmt"):
                return _val(lvl, "numFmt")
        abstract_id = _val(num, "abstractNumId")
        abstract = next((a for a in self.numbering.iterchildren(f"{_W}abstractNum")
                         if a.get(f"{_W}abstractNumId") == abstract_id), None)
        if abstract is None:
            return ""
        lvl = next((lv for lv in abstract.iterchildren(f"{_W}lvl") if lv.get(f"{_W}ilvl") == ilvl), None)
        if lvl is not None and _val(lvl, "numFmt"):
            return _val(lvl, "numFmt")
        link = _val(abstract, "numStyleLink")   # the list is defined by a numbering style
        if link:
            style = next((s for s in self.styles.iterchildren(f"{_W}style") if s.get(f"{_W}styleId") == link), None)
            num_pr = style.find(f"{_W}pPr/{_W}numPr") if style is not None else None
            linked = _val(num_pr, "numId")
            if linked and linked != num_id:
                return self.num_format(linked, ilvl, depth + 1)
        return ""
