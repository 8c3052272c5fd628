"""A PDF's outline (bookmarks) as its hierarchy, each bookmark aligned to its heading line.

The outline is read with pypdfium2 (``PdfDocument.get_toc``): level, title, destination page and,
where the destination says so, the vertical position. Each bookmark is matched to a line on its
destination page, searching from its position (a little above it: destinations often point at
the baseline or just above the heading) or from the page top, and after the bookmark aligned
before it on the same page: the line, or two or three consecutive lines of a wrapped title, whose
text equals the bookmark's title once whitespace, case, punctuation and numbering ("1.2",
"A.2.1", "Chapter 3", "II.") are set aside, or is close to it (``MATCH`` similarity), or starts with it (a
run-in heading: the line is cut after the title). Failing that, a line at the destination itself
(within ``AT_DEST_PT``) whose first word is the title's first word (a reference page's bookmark
"clear_alarm/1" for its printed "clear_alarm(AlarmId) -> void()"). When nothing on the page
matches, the next page is tried (a destination at the foot of a page). A bookmark that matches nowhere still becomes a
heading at its level, placed at its destination; the ingest report counts those. An aligned heading
takes the outline's spelling when the two differ in symbols only (``authored_spelling``).

A bookmark that repeats an earlier one (same level, title and destination) is read once: it can
only name the same heading. Levels are the bookmark's depth in the outline (1 for the top entries). An outline with a single
top entry that opens the document (the manual's own title, with everything under it) gives the
document its title and its children become the sections.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from ham.ingest.pdf_glyphs import OT1_ASCII
from ham.ingest.pdf_text import Line
from ham.text import normalise_ws

MATCH = 0.85
ABOVE_PT = 30.0
AT_DEST_PT = 12.0
_WORD = re.compile(r"\w+")
RULE = "outline"


@dataclass
class Bookmark:
    level: int              # 1 = a top entry of the outline
    title: str
    page: int | None        # 0-based destination page
    top: float | None       # destination from the page top in points, when the outline gives it
    line: Line | None = None


def pdf_errors() -> tuple[type[BaseException], ...]:
    """What pdfminer, pdfplumber and pypdfium2 raise on damaged, truncated or odd files: their
    own exception bases, plus the value, key, type and struct errors pdfminer lets through
    when a stream is corrupt, and OSError. Programming errors elsewhere are not caught."""
    import struct

    import pypdfium2
    from pdfminer.psexceptions import PSException
    from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

    return (PSException, PdfminerException, MalformedPDFException, pypdfium2.PdfiumError, ValueError, KeyError,
            TypeError, IndexError, struct.error, OSError)


def read_outline(path: Path) -> tuple[list[Bookmark], str]:
    """The bookmarks of the PDF at ``path`` in order, and a problem ("" when none): an unreadable
    outline is reported and the PDF is read by typography."""
    import pypdfium2

    try:
        doc = pypdfium2.PdfDocument(str(path))
    except pdf_errors() as exc:
        return [], f"cannot read the outline ({exc.__class__.__name__}: {str(exc)[:120]})"
    out: list[Bookmark] = []
    seen: set[tuple] = set()
    try:
        heights = [doc.get_page_size(i)[1] for i in range(len(doc))]
        for item in doc.get_toc(max_depth=32):
            title = normalise_ws(item.get_title() or "")
            if not title:
                continue
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            page = page if page is not None and 0 <= page < len(heights) else None
            top = None
            if dest is not None and page is not None:
                mode, pos = dest.get_view()
                if mode == 1 and len(pos) >= 2 and pos[1]:      # XYZ: left, top, zoom
                    top = max(0.0, heights[page] - float(pos[1]))
            where = (item.level, title_key(title), page, None if top is None else round(top))
            if page is not None and where in seen:
                continue        # the same entry again (htmldoc lists a chapter once per link to it)
            seen.add(where)
            out.append(Bookmark(item.level + 1, " ".join((item.get_title() or "").split()), page, top))
    except pdf_errors() as exc:
        return [], f"cannot read the outline ({exc.__class__.__name__}: {str(exc)[:120]})"
    finally:
        doc.close()
    return out, ""


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


def _similar(a: str, b: str) -> float:
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _cut(line: Line, key: str) -> Line | None:
    """A run-in heading: the first words of ``line`` whose key is ``key``, split off as a line of
    their own (the rest stays in ``line``). None when no prefix of words matches."""
    words = line.text.split()
    for k in range(1, len(words)):
        if title_key(" ".join(words[:k])) == key:
            head = Line(" ".join(words[:k]), line.size, line.bold, line.x0, line.x1, line.top, line.bottom,
                        len(" ".join(words[:k])), line.mono, font=line.font)
            line.text = " ".join(words[k:])
            line.chars = len(line.text)
            return head
    return None


def _best(bookmark: Bookmark, lines: list[Line], start: float | None) -> tuple[int, int, float] | None:
    """(index of the first line, number of lines, score) of the best match on one page."""
    key = title_key(bookmark.title)
    if not key:
        return None
    best = None
    for i, ln in enumerate(lines):
        if ln.furniture or ln.role == "heading" or (start is not None and ln.bottom < start) \
                or not title_key(ln.text):     # a wrapped title does not start with a bare label
            continue
        text = ""
        for n in range(1, 4):
            if i + n > len(lines):
                break
            text = (text + " " + lines[i + n - 1].text).strip()
            got = title_key(text)
            score = _similar(key, got) if abs(len(got) - len(key)) <= 0.3 * len(key) + 2 else 0.0
            if score >= MATCH and (best is None or score > best[2] + 1e-9):
                best = (i, n, score)
            if len(got) >= len(key):
                break
        if best is not None and best[2] == 1.0:
            break
    if best is None:
        for i, ln in enumerate(lines):
            if ln.furniture or ln.role == "heading" or (start is not None and ln.bottom < start):
                continue
            if len(key) >= 4 and title_key(ln.text).startswith(key):
                return i, 0, 0.9      # n == 0: a run-in heading, cut out of the line
    return best


def _at_destination(bookmark: Bookmark, lines: list[Line]) -> tuple[int, int, float] | None:
    first = _WORD.match(normalise_ws(bookmark.title))
    if bookmark.top is None or first is None or len(first.group()) < 3:
        return None
    for i, ln in enumerate(lines):
        if ln.furniture or ln.role == "heading" or abs(ln.top - bookmark.top) > AT_DEST_PT:
            continue
        word = _WORD.match(normalise_ws(ln.text))
        if word is not None and word.group() == first.group():
            return i, 1, 0.5
    return None


def align(bookmarks: list[Bookmark], pages: list[list[Line]]) -> None:
    """Mark each bookmark's heading line (``Line.role = "heading"``, level, rule) on ``pages``
    (per page, lines in reading order; a run-in heading is inserted before its line).
    ``Bookmark.line`` is the aligned line, None when no line matched."""
    floor: dict[int, float] = {}      # per page: the bottom of the last aligned heading
    for bm in bookmarks:
        if bm.page is None:
            continue
        for page in (bm.page, bm.page + 1):
            if page >= len(pages):
                break
            lines = pages[page]
            start = bm.top - ABOVE_PT if bm.top is not None and page == bm.page else None
            if page in floor:
                start = max(start or 0.0, floor[page] - 1)
            found = _best(bm, lines, start)
            if found is None and page == bm.page:
                found = _at_destination(bm, lines)
            if found is None and start is not None and page == bm.page and page not in floor:
                found = _best(bm, lines, None)      # a destination that points below its heading
            if found is None:
                continue
            i, n, _ = found
            if n == 0:
                head = _cut(lines[i], title_key(bm.title))
                if head is None:
                    continue
                lines.insert(i, head)
                n = 1
            first = lines[i]
            if n > 1:
                for extra in lines[i + 1:i + n]:
                    first.text = f"{first.text} {extra.text}"
                    first.bottom, first.x1 = max(first.bottom, extra.bottom), max(first.x1, extra.x1)
                del lines[i + 1:i + n]
            first.role, first.level = "heading", bm.level
            first.rule = f"{RULE}: bookmark level {bm.level}"
            first.text = authored_spelling(first.text, bm.title)
            bm.line = first
            floor[page] = first.bottom
            break


BELOW = "typography below the outline"
STYLE_LEVELS = 3        # heading styles told apart below the outline; smaller ones share the last level


def nest_below_outline(pages: list[list[Line]], deeper: int) -> None:
    """Give the headings typography found below the outline (``Line.rule`` starting with ``BELOW``,
    level ``deeper``) one level per style: the larger size, then bold, is the shallower, so a
    revision history's 12pt "1.55a (2022/04/10)" holds its 10.9pt bold "Bug fixes". Sizes within
    half a point are one style."""
    def style(ln: Line) -> tuple[float, bool]:
        return round(ln.size * 2) / 2, ln.bold

    heads = [ln for lines in pages for ln in lines if ln.role == "heading" and ln.rule.startswith(BELOW)]
    rank = {s: min(i, STYLE_LEVELS - 1) for i, s in enumerate(sorted({style(ln) for ln in heads}, reverse=True))}
    for ln in heads:
        ln.level = deeper + rank[style(ln)]
        ln.rule = f"{BELOW} ({ln.size:g}pt{', bold' if ln.bold else ''}): level {ln.level}"


def measure_outline(report, path, bookmarks: list[Bookmark]) -> list[Bookmark]:
    """Count how the outline was placed (ingest report); return the bookmarks whose heading was
    not found on their page (placed at their destination). One without a destination is reported."""
    missing = [bm for bm in bookmarks if bm.line is None and bm.page is not None]
    if not bookmarks:
        return missing
    report.measure(path, "outline bookmarks", len(bookmarks))
    report.measure(path, "bookmarks aligned to their heading line", sum(1 for bm in bookmarks if bm.line is not None))
    report.measure(path, "bookmarks not found on their page (placed at their destination)", len(missing))
    undirected = [bm.title for bm in bookmarks if bm.page is None]
    if undirected:
        report.add(path, f"{len(undirected)} bookmark(s) without a destination page, not placed: "
                         + ", ".join(repr(t) for t in undirected[:5]), "heading")
    return missing
