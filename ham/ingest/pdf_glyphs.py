"""Glyphs a PDF names only by code: pdfminer (under pdfplumber) writes ``(cid:N)`` for a glyph
of a font that carries no Unicode mapping. TeX's Type 1 fonts embedded without one are the common
case: in an old LaTeX manual every "fi" ligature of Computer Modern reads "(cid:12)", so "find"
becomes "(cid:12)nd" and a bookmark "glp_find_row" no longer matches its printed heading.

The fonts' encodings are fixed (TeX's OT1 and T1 text encodings, the ``cmsy`` math symbols), so
those codes are read back by font family: ligatures, dashes and capital Greek of the text fonts,
the Greek letters of ``cmmi``, the common relation and operator symbols of ``cmsy``. A code
outside these tables stays ``(cid:N)``; the ingest report counts what is left ("glyphs without a
Unicode mapping").
"""
from __future__ import annotations

import re

_CID = re.compile(r"\(cid:(\d+)\)")
_SUBSET = re.compile(r"^[A-Z]{6}\+")     # "DAAAAA+Arial-BoldMT": a subset's tag, not the font

_GREEK_UPPER = dict(enumerate("ΓΔΘΛΞΠΣΥΦΨΩ"))
OT1_TEXT = {**_GREEK_UPPER, 11: "ff", 12: "fi", 13: "fl", 14: "ffi", 15: "ffl", 16: "ı", 17: "ȷ", 123: "–", 124: "—"}
OML_MATH = {**_GREEK_UPPER, **dict(enumerate("αβγδϵζηθικλμνξπρστυϕχψωεϑϖϱςφ", start=11))}
T1_TEXT = {21: "–", 22: "—", 27: "ff", 28: "fi", 29: "fl", 30: "ffi", 31: "ffl"}
CMSY = {0: "−", 1: "·", 2: "×", 3: "∗", 6: "±", 15: "•", 17: "≡", 20: "≤", 21: "≥", 24: "∼", 25: "≈",
        33: "→", 106: "|"}

# Computer Modern / Latin Modern text faces (OT1) but the typewriter ones, whose low codes are
# other glyphs; cm-super's text faces (T1); the math symbol and math italic fonts
_FAMILIES = ((re.compile(r"^(?:CM(?:R|BX|TI|SL|SS|CSC|B|DUNH|FIB|U|BXTI|BXSL|SSBX|SSI)|LMRoman|LMSans)\d*", re.I),
              OT1_TEXT),
             (re.compile(r"^SF(?:RM|BX|TI|SL|SS|CC|SX|SI)\d", re.I), T1_TEXT),
             (re.compile(r"^CMSY\d", re.I), CMSY),
             (re.compile(r"^CMMI(?:B)?\d", re.I), OML_MATH))


def base_font(fontname: str) -> str:
    """A PDF font's name without its subset tag."""
    return _SUBSET.sub("", fontname)


def table_of(fontname: str) -> dict[int, str]:
    name = base_font(fontname)
    return next((table for pattern, table in _FAMILIES if pattern.match(name)), {})


def decoded(chars: list[dict]) -> str:
    """The text of pdfplumber ``chars`` (each with ``text`` and ``fontname``), unmapped TeX glyph
    codes read back where the font's encoding is known."""
    out = []
    for ch in chars:
        text = ch.get("text", "")
        if text.startswith("(cid:"):
            table = table_of(ch.get("fontname", ""))
            text = _CID.sub(lambda m, table=table: table.get(int(m.group(1)), m.group(0)), text)
        out.append(text)
    return "".join(out)


def unmapped(text: str) -> int:
    """How many ``(cid:N)`` glyph codes ``text`` still holds."""
    return len(_CID.findall(text))
