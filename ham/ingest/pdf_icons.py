"""Glyphs of icon fonts: pictures set as text, not letters.

asciidoctor-pdf (and other HTML-like toolchains) draws an admonition as a two-cell block: a Font
Awesome icon at twice the body size on the left, a vertical rule, the note's text on the right,
the icon centred on it. Read as a word, the icon's 24pt box overlapped two lines of the note at
once and merged them, so a note read "Very obsolete; early 147 DRBD is the versions ..." for
"Very early DRBD versions hijacked ... / obsolete; 147 is the ...". An icon's glyph is therefore
no word of any line: an admonition icon (``ADMONITION_ICONS``) is read as its label in front of the
first line of the note it stands beside (the lines right of the rule next to it, or else the
lines beside the icon itself), and any other icon is left out. The ingest report counts both.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ham.ingest.pdf_glyphs import base_font

_ICON_FONT = re.compile(r"awesome|material.?(?:icons|symbols)|glyphicons|octicons|ionicons|icomoon|fontello|"
                        r"codicon|bootstrap-?icons|remixicon|feather|lucide|tabler-?icons", re.I)
# Font Awesome's code points (versions 4 to 6 alike) for the five admonitions, as asciidoctor-pdf's
# default theme draws them: info-circle, lightbulb, exclamation-circle, exclamation-triangle, fire
ADMONITION_ICONS = {"\uf05a": "Note", "\uf0eb": "Tip", "\uf06a": "Important", "\uf071": "Warning",
                    "\uf06d": "Caution"}
BESIDE = 4.0       # of the icon's size: how far right of it a note's text or rule may start


def is_icon(word: dict) -> bool:
    """A word set in an icon font (Font Awesome, Material Icons, ...)."""
    return bool(_ICON_FONT.search(base_font(word.get("fontname", ""))))


def _rule_beside(icon: dict, rules: list[dict]) -> dict | None:
    """The vertical rule right of ``icon`` whose extent holds the icon's middle (an admonition's)."""
    middle = (icon["top"] + icon["bottom"]) / 2
    near = [r for r in rules if abs(r["x1"] - r["x0"]) < 2 and icon["x1"] <= r["x0"] <= icon["x1"] + BESIDE * icon["size"]
            and r["top"] <= middle <= r["bottom"]]
    return min(near, key=lambda r: r["x0"], default=None)


def place_icons(icons: list[dict], lines: list, rules: list[dict]) -> tuple[list, int, int]:
    """``lines`` with each admonition icon's label in front of its note's first line: (lines,
    icons read as labels, icons left out). ``rules``: the page's lines and rectangles (pdfplumber)."""
    labelled = dropped = 0
    lines = list(lines)
    for icon in icons:
        label = ADMONITION_ICONS.get(icon["text"].strip())
        if label is None:
            dropped += 1
            continue
        rule = _rule_beside(icon, rules)
        if rule is not None:    # the note: the lines right of the rule, along its length
            left, top, bottom = rule["x0"], rule["top"], rule["bottom"]
        else:                   # no rule: the lines beside the icon itself
            left, top, bottom = icon["x1"], icon["top"], icon["bottom"]
        beside = [i for i, ln in enumerate(lines) if left <= ln.x0 <= left + BESIDE * icon["size"]
                  and ln.bottom > top and ln.top < bottom]
        if not beside:
            dropped += 1
            continue
        first = min(beside, key=lambda i: (lines[i].top, lines[i].x0))
        ln = lines[first]
        text = f"{label}: {ln.text}"
        lines[first] = replace(ln, text=text, chars=len(text))
        labelled += 1
    return lines, labelled, dropped
