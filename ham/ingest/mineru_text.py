"""Text as MinerU writes it into a content list, read back as the document's text.

Markdown escapes. Since MinerU 3.1 (April 2026, ``mineru/backend/utils/markdown_utils.py``) the
v1 content list's text, titles, list items and captions are Markdown-escaped: a backslash before
``* _ ` ~ $`` in running text, and before a ``#``, ``-`` or ``+`` opening a text block ("\\- 40% of
respondents"). Code bodies, tables and equations are not escaped, and inline math sits between
unescaped ``$`` delimiters. ``unescape`` drops those backslashes outside inline math, so BM25, the
metrics and the prompt see "p_value", not "p\\_value". An older content list has no escapes; a
backslash before one of those characters in plain text is rare enough there that the same rule
reads both.

Chart data. MinerU 3.x gives a ``chart`` (and a seal ``image``) a ``content``: the chart's data as
a Markdown table (or HTML, from Office documents), the seal's text. ``visual_content`` returns it
as ``a | b`` rows (a table) or as text.
"""
from __future__ import annotations

import re

from ham.ingest.html_text import table_html_text

_ESCAPABLE = set("*_`~$")
_PREFIX = re.compile(r"^([ \t]{0,3})\\(#{1,6}|[+-])(?=[ \t])")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def unescape(text: str) -> str:
    """``text`` without MinerU's Markdown escapes (module docstring), inline math left as written."""
    if "\\" not in text:
        return text
    text = _PREFIX.sub(r"\1\2", text)
    out, math, i = [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if not math and nxt in _ESCAPABLE:
                out.append(nxt)          # an escaped character: itself
            else:
                out.append(ch + nxt)     # inside math, or another escape: as written
            i += 2
            continue
        if ch == "$":
            math = not math
        out.append(ch)
        i += 1
    return "".join(out)


def visual_content(content) -> tuple[str, str]:
    """(kind, text) of an image's or chart's ``content``: ``("table", rows)`` for a Markdown or
    HTML table, ``("text", text)`` otherwise, ``("", "")`` when there is none."""
    text = str(content or "").strip()
    if not text:
        return "", ""
    if "<table" in text.lower():
        return "table", table_html_text(text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 2 and all(ln.startswith("|") for ln in lines):
        rows = [" | ".join(cell.strip() for cell in ln.strip("|").split("|"))
                for ln in lines if not _SEPARATOR.match(ln)]
        return "table", "\n".join(unescape(r) for r in rows)
    return "text", unescape(text)
