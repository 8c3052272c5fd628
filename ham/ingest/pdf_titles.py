"""Bookmark titles against printed headings: the key both match on (numbering, case, punctuation
and spaces set aside) and the outline's spelling where a font misread the page's symbols."""
from __future__ import annotations

import re
from difflib import SequenceMatcher

from ham.ingest.pdf_glyphs import OT1_ASCII
from ham.text import normalise_ws

# a dotted number glued to a capital is numbering too: OpenOffice writes the outline's titles
# without the tab between them ("2.3.2Tokens", "1.Overview")
_NUMBERING = re.compile(r"^(?:(?:chapter|part|appendix|section|lesson)\s+(?:\d+|[ivxlc]+|[a-z])\b[.:]?\s*"
                        r"|(?:\d+(?:\.\d+)*|[a-z](?:\.\d+)+|[ivxlc]+|[a-z])(?:\.|\))?\s+(?=\S)"
                        r"|\d+(?:\.\d+)*\.(?=(?-i:[A-Z]))|\d+(?:\.\d+)+(?=(?-i:[A-Z])))", re.I)


def title_key(text: str) -> str:
    """A heading or bookmark title for matching: no numbering, case, punctuation or spaces."""
    text = normalise_ws(_NUMBERING.sub("", " ".join(text.split()), count=1))   # before case goes: "2.3.2Tokens"
    return re.sub(r"[\W_]+", "", text)


def _letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text)


# What a symbol of LaTeX's OT1 text fonts reads back as when the PDF maps it to the ASCII code of its
# slot (``pdf_glyphs.OT1_ASCII``: dashes, quotes, ¡ ¿), and "}", its double acute accent
_MISREAD = frozenset(OT1_ASCII) | {"}"}
_ALNUM = re.compile(r"[^\W_]")


def _misread(printed: str, authored: str) -> bool:
    """Whether symbols the page prints between two letters are a misreading of the outline's: an
    OT1 slot read as ASCII, an underscore (LaTeX's \\_ draws a rule) read as a space or nothing, or
    a hyphen and a space where a wrapped title was broken."""
    marks = printed.replace(" ", "")
    if not marks:
        return bool(authored) and not authored.strip("_")
    if marks == "-":        # a title hyphenated where it wrapped: "reintro- ducing", "stable- backports"
        return authored in ("", "-")
    return set(marks) <= _MISREAD


def authored_spelling(printed: str, title: str) -> str:
    """The printed heading with the outline's symbols where the page's are ones a font's encoding
    misreads (``_MISREAD``), when both spell the same letters and digits: "glp intopt | solve" is
    "glp_intopt — solve", ``\\warm up"`` is ````warm up''``. Between two letters or digits the
    outline's symbols replace the printed ones only when those are misread (``_misread``), so the
    page's typographic quotes, its spacing and its numbering stay; any other difference (a word,
    case) keeps the printed line."""
    printed = " ".join(printed.split())
    numbering = _NUMBERING.match(printed)
    for candidate in (title, f"{numbering.group()}{title}" if numbering else None):
        if not candidate or _letters(candidate) != _letters(printed):
            continue
        between = _ALNUM.split(printed)      # the symbols around and between each letter or digit
        letters = _ALNUM.findall(printed)
        authored = _ALNUM.split(candidate)
        gaps = [b if _misread(a, b) else a for a, b in zip(between, authored)]
        return "".join(g + c for g, c in zip(gaps, [*letters, ""])).strip()
    return printed


def similarity(a: str, b: str) -> float:
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()
