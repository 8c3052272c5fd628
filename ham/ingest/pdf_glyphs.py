"""Glyphs a PDF names only by code: pdfminer (under pdfplumber) writes ``(cid:N)`` for a glyph
of a font that carries no Unicode mapping. TeX's Type 1 fonts embedded without one are the common
case: in an old LaTeX manual every "fi" ligature of Computer Modern reads "(cid:12)", so "find"
becomes "(cid:12)nd" and a bookmark "glp_find_row" no longer matches its printed heading.

The fonts' encodings are fixed (TeX's OT1 and T1 text encodings, the ``cmsy`` math symbols), so
those codes are read back by font family: ligatures, dashes and capital Greek of the text fonts,
the Greek letters of ``cmmi``, the common relation and operator symbols of ``cmsy``. A code
outside these tables stays ``(cid:N)``; the ingest report counts what is left ("glyphs without a
Unicode mapping").

A PDF that maps a Computer Modern text font's codes to ASCII instead (no ToUnicode map, the
standard encoding assumed) reads the OT1 glyphs whose slots hold ASCII symbols elsewhere as those
symbols: "(1.1)|(1.3)" for "(1.1)—(1.3)", "(\\shift")" for "(“shift”)", and ``cmsy``'s "+1" for
"+∞". Those fonts have no such ASCII glyphs at all, so the symbols are read back as the fonts'
glyphs (``OT1_ASCII``, ``CMSY``); the typewriter faces, whose slots do hold ASCII, and every
other font are left alone.
"""
from __future__ import annotations

import re
from functools import lru_cache

_CID = re.compile(r"\(cid:(\d+)\)")
_SUBSET = re.compile(r"^[A-Z]{6}\+")     # "DAAAAA+Arial-BoldMT": a subset's tag, not the font

_GREEK_UPPER = dict(enumerate("ΓΔΘΛΞΠΣΥΦΨΩ"))
OT1_TEXT = {**_GREEK_UPPER, 11: "ff", 12: "fi", 13: "fl", 14: "ffi", 15: "ffl", 16: "ı", 17: "ȷ", 123: "–", 124: "—"}
# cmmi's hooks (44, 45) are read as the arrows LaTeX builds with them ("←" + right hook is ↩): the
# marks doxygen, dblatex and Sphinx set where they broke a long line (``pdf_hyphens.unwrap``)
OML_MATH = {**_GREEK_UPPER, **dict(enumerate("αβγδϵζηθικλμνξπρστυϕχψωεϑϖϱςφ", start=11)), 44: "↪", 45: "↩"}
T1_TEXT = {21: "–", 22: "—", 27: "ff", 28: "fi", 29: "fl", 30: "ffi", 31: "ffl"}
OT1_ASCII = {'"': "”", "\\": "“", "{": "–", "|": "—", "<": "¡", ">": "¿"}
CMSY = {0: "−", 1: "·", 2: "×", 3: "∗", 4: "÷", 5: "⋄", 6: "±", 7: "∓", 8: "⊕", 9: "⊖", 10: "⊗", 11: "⊘",
        12: "⊙", 14: "◦", 15: "•", 16: "≍", 17: "≡", 18: "⊆", 19: "⊇", 20: "≤", 21: "≥", 22: "⪯", 23: "⪰",
        24: "∼", 25: "≈", 26: "⊂", 27: "⊃", 28: "≪", 29: "≫", 30: "≺", 31: "≻", 32: "←", 33: "→", 34: "↑",
        35: "↓", 36: "↔", 39: "≃", 40: "⇐", 41: "⇒", 42: "⇑", 43: "⇓", 44: "⇔", 47: "∝", 48: "′", 49: "∞",
        50: "∈", 51: "∋", 52: "△", 53: "▽", 56: "∀", 57: "∃", 58: "¬", 59: "∅", 62: "⊤", 63: "⊥", 64: "ℵ",
        91: "∪", 92: "∩", 94: "∧", 95: "∨", 96: "⊢", 97: "⊣", 98: "⌊", 99: "⌋", 100: "⌈", 101: "⌉", 102: "{",
        103: "}", 104: "⟨", 105: "⟩", 106: "|", 107: "‖", 110: "\\", 112: "√", 114: "∇", 115: "∫", 120: "§",
        121: "†", 122: "‡", 123: "¶"}

# Computer Modern / Latin Modern text faces (OT1) but the typewriter ones, whose low codes are
# other glyphs; cm-super's text faces (T1); the math symbol and math italic fonts
# WinAnsiEncoding maps its unused codes to the bullet (PDF 1.7, Annex D): ReportLab sets its bullets
# in the standard fonts as code 127, which pdfminer leaves unmapped
WIN_ANSI_BULLETS = dict.fromkeys((127, 129, 141, 143, 144, 157), "•")
_FAMILIES = ((re.compile(r"^(?:CM(?:R|BX|TI|SL|SS|CSC|B|DUNH|FIB|U|BXTI|BXSL|SSBX|SSI)|LMRoman|LMSans)\d*", re.I),
              OT1_TEXT),
             (re.compile(r"^SF(?:RM|BX|TI|SL|SS|CC|SX|SI)\d", re.I), T1_TEXT),
             (re.compile(r"^CMSY\d", re.I), CMSY),
             (re.compile(r"^CMMI(?:B)?\d", re.I), OML_MATH),
             (re.compile(r"^(?:Courier|Helvetica|Times)(?:-[A-Za-z]+)?$"), WIN_ANSI_BULLETS))


# the OT1 text faces by their exact names (``_FAMILIES`` also reads Latin Modern's codes; its T1
# faces hold the ASCII symbols)
_OT1_FACE = re.compile(r"^CM(?:R|BX|TI|SL|SS|CSC|B|DUNH|FIB|U|BXTI|BXSL|SSBX|SSI|SSDC|SSQ|SSQI)\d+$", re.I)
_CMSY_FACE = re.compile(r"^CMSY\d+$", re.I)


def base_font(fontname: str) -> str:
    """A PDF font's name without its subset tag."""
    return _SUBSET.sub("", fontname)


def table_of(fontname: str) -> dict[int, str]:
    name = base_font(fontname)
    return next((table for pattern, table in _FAMILIES if pattern.match(name)), {})


# the ASCII a font without a Unicode map may read back: printable, but the letters (``cmsy``'s
# calligraphic capitals are letters)
_ASCII_SYMBOLS = frozenset(chr(c) for c in range(33, 127) if not chr(c).isalpha())
# not the ASCII symbols cmsy does hold ("{" is its code 102, mapped right when the PDF maps it)
_CMSY_ASCII = {chr(code): glyph for code, glyph in CMSY.items()
               if chr(code) in _ASCII_SYMBOLS and chr(code) not in CMSY.values()}


@lru_cache(maxsize=512)
def _ascii_misread(fontname: str) -> dict[str, str]:
    """The ASCII symbols the font cannot hold, read back as its glyphs ({} for most fonts)."""
    name = base_font(fontname)
    if _OT1_FACE.match(name):
        return OT1_ASCII
    return _CMSY_ASCII if _CMSY_FACE.match(name) else {}


def needs_decoding(text: str, fontname: str) -> bool:
    """Whether a word (one font) holds glyphs ``decoded`` reads back: a code, or an ASCII symbol
    its font cannot hold."""
    return "(cid:" in text or any(c in _ascii_misread(fontname) for c in text)


def decoded(chars: list[dict]) -> str:
    """The text of pdfplumber ``chars`` (each with ``text`` and ``fontname``), unmapped TeX glyph
    codes read back where the font's encoding is known, and ASCII symbols an OT1 text face cannot
    hold read back as its glyphs."""
    out = []
    for ch in chars:
        text = ch.get("text", "")
        if text.startswith("(cid:"):
            table = table_of(ch.get("fontname", ""))
            text = _CID.sub(lambda m, table=table: table.get(int(m.group(1)), m.group(0)), text)
        elif len(text) == 1 and text in _ASCII_SYMBOLS:
            text = _ascii_misread(ch.get("fontname", "")).get(text, text)
        out.append(text)
    return "".join(out)


def decode_chars(chars: list[dict]) -> None:
    """``decoded`` applied to each of a page's pdfplumber ``chars`` in place, so that every reader of
    the page (its words, and its tables' cells) sees the glyphs read back."""
    for ch in chars:
        text = ch.get("text", "")
        if needs_decoding(text, ch.get("fontname", "")):
            ch["text"] = decoded([ch])


# LaTeX's picture-mode fonts: quarter circles and line slopes that draw, never letters (texinfo's
# @cartouche sets its rounded corners in lcircle10, "(cid:8)" to "(cid:11)" beside the example's text)
_PICTURE_FONT = re.compile(r"^(?:LCIRCLE|LCIRCLEW|LINE|LINEW)\d+$", re.I)


def is_picture_glyph(word: dict) -> bool:
    """A word set in one of LaTeX's picture fonts (``lcircle10``, ``line10``): a piece of a
    drawing, no text."""
    return bool(_PICTURE_FONT.match(base_font(word.get("fontname", ""))))


def is_glyph_code(text: str) -> bool:
    """A word that is one glyph code pdfminer left unmapped, "(cid:136)"."""
    return bool(_CID.fullmatch(text))


def is_private_use(text: str) -> bool:
    """A word that is one character of Unicode's Private Use Area: a symbol font's glyph with no
    standard meaning (Word maps Symbol's bullet to U+F0B7, OpenOffice OpenSymbol's to U+F0A7)."""
    return len(text) == 1 and 0xE000 <= ord(text) <= 0xF8FF


def copyright_signs(words: list[dict]) -> list[dict]:
    """Words of one line, left to right, with TeX's \\copyright read as "©": cmsy's large circle
    (code 13) with a "c" set inside it, which reads "(cid:13)" and "c"."""
    out: list[dict] = []
    for w in words:
        prev = out[-1] if out else None
        if prev is not None and prev["text"] == "(cid:13)" and w["text"] == "c" and \
                _CMSY_FACE.match(base_font(prev.get("fontname", ""))) and prev["x0"] <= w["x0"] <= prev["x1"]:
            out[-1] = {**prev, "text": "©"}
            continue
        out.append(w)
    return out


def unmapped(text: str) -> int:
    """How many ``(cid:N)`` glyph codes ``text`` still holds."""
    return len(_CID.findall(text))
