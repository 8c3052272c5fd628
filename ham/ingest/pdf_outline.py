"""A PDF's outline (bookmarks) as its hierarchy, each bookmark aligned to its heading line.

The outline is read with pypdfium2 (``PdfDocument.get_toc``): level, title, destination page and,
where the destination says so, the vertical position. Each bookmark is matched to a line on its
destination page, searching from its position (a little above it: destinations often point at
the baseline or just above the heading) or from the page top, and after the bookmark aligned
before it on the same page: the line, or two or three consecutive lines of a wrapped title, whose
text equals the bookmark's title once whitespace, case, punctuation and numbering ("1.2",
"A.2.1", "Chapter 3", "II.") are set aside, or is close to it (``MATCH`` similarity), or starts
with it (a run-in heading: the line is cut after the title). A close match or a run-in heading
must stand out: bold, larger than the body text, or opening a paragraph at the destination;
and no bookmark starts on a code line (monospaced from its first word at the body size): Prawn's
manual prints no title for its sections, and its bookmarks had taken a sentence's "cursor" and
a listing's "canvas do". Failing that, a line at the destination itself (within ``AT_DEST_PT``)
whose first word is the title's first word (a reference page's bookmark "clear_alarm/1" for its
printed "clear_alarm(AlarmId) -> void()"). When nothing on the page matches, the first lines of
the next page are tried (a destination at the foot of a page). A bookmark that matches nowhere
still becomes a heading at its level, placed at its destination, after the headings of the
bookmarks before it on that page (outline order where destinations tie); one not found that points
exactly where an earlier entry of its level or deeper does opens where the next entry does. The
ingest report counts each way. An aligned heading takes the outline's spelling when the two
differ in symbols only (``authored_spelling``).

A bookmark that repeats an earlier one (same level, title and destination) is read once: it can
only name the same heading. An entry without a destination opens where the first entry below it
does (Prawn's grouping entries "Basics", "Shapes"); one with none below it is reported. Levels
are the bookmark's depth in the outline (1 for the top entries). An outline with a single top
entry that opens the document (the manual's own title, with everything under it) gives the
document its title and its children become the sections.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ham.ingest.pdf_items import Item
from ham.ingest.pdf_text import HEADING_RATIO, SET_OFF, Line
from ham.ingest.pdf_titles import authored_spelling, similarity, title_key
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
    how: list[str] = field(default_factory=list)


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
    _borrow_destinations(out)
    return out, ""


def split_title(bookmarks: list[Bookmark]) -> tuple[list[Bookmark], str]:
    """A single top entry that opens the outline is the document's title (its children the
    sections): the bookmarks without it, levels one up, and the title ("" when none)."""
    tops = [bm for bm in bookmarks if bm.level == 1]
    if len(bookmarks) > 1 and len(tops) == 1 and bookmarks[0] is tops[0]:
        for bm in bookmarks[1:]:
            bm.level -= 1
        return bookmarks[1:], tops[0].title
    return bookmarks, ""


def _borrow_destinations(bookmarks: list[Bookmark]) -> None:
    """An entry without a destination that groups others (Prawn's "Basics", "Shapes") opens where its
    first entry with a destination below it does: dropped, its children would rise a level."""
    for i, bm in enumerate(bookmarks):
        if bm.page is not None:
            continue
        for below in bookmarks[i + 1:]:
            if below.level <= bm.level:
                break
            if below.page is not None:
                bm.page, bm.top, bm.how = below.page, below.top, [UNDIRECTED]
                break


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


def _code(ln: Line, body: float) -> bool:
    """A program's line: monospaced from its first word, not set larger than the body text (a
    heading that names a function, "8.2.2 unify_with_occurs_check/2", opens with its number)."""
    return ln.mono and ln.edge_mono[0] and ln.size < body * HEADING_RATIO


def _prominent(ln: Line, body: float) -> bool:
    return ln.bold or ln.size >= body * HEADING_RATIO


def _opens(lines: list[Line], i: int, body: float) -> bool:
    """Whether line ``i`` has a paragraph's space above it: the line before it in reading order ends
    that far above, or is not above it (a column's or page's first line)."""
    before = next((ln for ln in reversed(lines[:i]) if not ln.furniture), None)
    return before is None or lines[i].top - before.bottom >= SET_OFF * body or before.top >= lines[i].top


def _set_apart(bookmark: Bookmark, lines: list[Line], i: int, n: int, body: float, below: bool = True) -> bool:
    """Whether lines ``i`` to ``i + n - 1`` open at the bookmark's destination with a paragraph's space
    above them and, with ``below``, below them (the page's edge counts as space)."""
    first, last = lines[i], lines[i + n - 1]
    if bookmark.top is None or abs(first.top - bookmark.top) > ABOVE_PT or not _opens(lines, i, body):
        return False
    after = next((ln for ln in lines[i + n:] if not ln.furniture), None) if below else None
    return after is None or after.top - last.bottom >= SET_OFF * body


def _best(bookmark: Bookmark, lines: list[Line], start: float | None, body: float) -> tuple[int, int, float] | None:
    """(index of the first line, number of lines, score) of the best match on one page, never from a
    code line. A line that is bold or larger than the body text may match; else the line that
    spells the title must open a paragraph (``_opens``), and a close match or a run-in heading's
    line (the title its first words) be set apart at the destination (``_set_apart``; a run-in
    heading's line opening a paragraph there): else a sentence's words are taken ("Cursor" from
    "cursor down both before and after ...", "Blend mode" from a paragraph's last line "blend
    mode.", "Indentation" from a sample's "No indentation")."""
    key = title_key(bookmark.title)
    if not key:
        return None
    best = None
    for i, ln in enumerate(lines):
        if ln.furniture or ln.role == "heading" or (start is not None and ln.bottom < start) \
                or not title_key(ln.text) or _code(ln, body):     # a wrapped title does not start with a bare label
            continue
        text = ""
        for n in range(1, 4):
            if i + n > len(lines):     # a wrapped title's next line may be all code: gprolog's predicates
                break
            text = (text + " " + lines[i + n - 1].text).strip()
            got = title_key(text)
            score = similarity(key, got) if abs(len(got) - len(key)) <= 0.3 * len(key) + 2 else 0.0
            if score >= MATCH and (best is None or score > best[2] + 1e-9) \
                    and (_prominent(ln, body) or (_opens(lines, i, body) if score == 1.0
                                                     else _set_apart(bookmark, lines, i, n, body))):
                best = (i, n, score)
            if len(got) >= len(key):
                break
        if best is not None and best[2] == 1.0:
            break
    if best is None and len(key) >= 4:
        for i, ln in enumerate(lines):
            if ln.furniture or ln.role == "heading" or (start is not None and ln.bottom < start) or _code(ln, body) \
                    or not title_key(ln.text).startswith(key):
                continue
            if _prominent(ln, body) or _set_apart(bookmark, lines, i, 1, body, below=False):
                return i, 0, 0.9      # n == 0: a run-in heading, cut out of the line
    return best


def _first_word(text: str) -> str:
    word = _WORD.match(text.strip())
    return word.group() if word else ""


def _at_destination(bookmark: Bookmark, lines: list[Line], body: float) -> tuple[int, int, float] | None:
    """A line at the destination opening with the title's first word; a code line (sasl's reference
    entry "clear_alarm(AlarmId) -> void()" for "clear_alarm/1") with that word as the title spells
    it, case included: a program's "canvas do" is no heading of "Canvas"."""
    first = _WORD.match(normalise_ws(bookmark.title))
    if bookmark.top is None or first is None or len(first.group()) < 3:
        return None
    for i, ln in enumerate(lines):
        if ln.furniture or ln.role == "heading" or abs(ln.top - bookmark.top) > AT_DEST_PT:
            continue
        word = _WORD.match(normalise_ws(ln.text))
        if word is not None and word.group() == first.group() and not (
                _code(ln, body) and _first_word(ln.text) != _first_word(bookmark.title)):
            return i, 1, 0.5
    return None


UNDIRECTED = "bookmarks without a destination (placed at the first entry below them)"
# how a bookmark's line was found, as the ingest report counts those found other than by their title
CLOSE = "bookmarks aligned to a line close to their title (not the same)"
RUN_IN = "bookmarks aligned to the start of a line (a run-in heading, cut from it)"
FIRST_WORD = "bookmarks aligned to a line at their destination by its first word"
NEXT_PAGE = "bookmarks aligned on the page after their destination"
TIED = "bookmarks pointing where an earlier entry is, not found (placed where the next entry opens)"
NEXT_PAGE_LINES = 3     # on the page after the destination, a heading is among its first lines


def align(bookmarks: list[Bookmark], pages: list[list[Line]], body: float) -> None:
    """Mark each bookmark's heading line (``Line.role = "heading"``, level, rule) on ``pages``
    (per page, lines in reading order; a run-in heading is inserted before its line), ``body``
    the body text's size. ``Bookmark.line`` is the aligned line, None when no line matched;
    ``Bookmark.how`` the ways other than its title that found it (``CLOSE`` ...)."""
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
            if page == bm.page:
                found = _best(bm, lines, start, body) or _at_destination(bm, lines, body)
                if found is None and start is not None and page not in floor:
                    found = _best(bm, lines, None, body)      # a destination that points below its heading
            else:       # a destination at the foot of a page: its heading opens the next one
                text = [k for k, ln in enumerate(lines) if not ln.furniture][:NEXT_PAGE_LINES]
                found = _best(bm, lines[:text[-1] + 1], start, body) if text else None
            if found is None:
                continue
            i, n, score = found
            how = [RUN_IN if n == 0 else FIRST_WORD if score < MATCH else CLOSE if score < 1.0 else ""]
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
            bm.how += [h for h in how + [NEXT_PAGE if page != bm.page else ""] if h]
            floor[page] = first.bottom
            break
    _untie(bookmarks)


def _untie(bookmarks: list[Bookmark]) -> None:
    """A bookmark not found that points exactly where an earlier entry of its level or deeper points
    cannot head there (gprolog's "References" shares "10.7.1 Example: asking for ancestors"'s
    destination and is printed pages later): it opens where the next entry does, so that outline
    order holds; at the tie, it would take the example's text."""
    for i, bm in enumerate(bookmarks):
        if bm.line is not None or bm.top is None or not any(
                e.page == bm.page and e.top == bm.top and e.level >= bm.level for e in bookmarks[:i]):
            continue
        after = next((b for b in bookmarks[i + 1:] if b.page is not None), None)
        if after is not None:
            bm.page, bm.top = after.page, after.top
            if after.line is not None:
                bm.page, bm.top = after.page + (NEXT_PAGE in after.how), after.line.top
            bm.how.append(TIED)


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


def place_unfound(items: list[Item], bookmarks: list[Bookmark], page: int, width: float) -> None:
    """Insert, into one page's ``items`` (in reading order), a heading for each bookmark of the page
    whose line was not found, at its destination: below every heading of a bookmark before it in
    the outline, so that outline order holds where destinations tie (gprolog's "References" shares
    its destination with the "10.7.1" entry before it; in front, it took that section as a child)."""
    floor = 0
    for bm in (b for b in bookmarks if b.page == page):
        if bm.line is not None:
            floor = next((k + 1 for k, it in enumerate(items) if any(ln is bm.line for ln in it.lines)), floor)
            continue
        top = bm.top or 0.0
        at = next((k for k in range(floor, len(items)) if items[k].top >= top), len(items))
        items.insert(at, Item("heading", top, top, 0, width, text=bm.title, level=bm.level,
                              rule=f"outline: bookmark level {bm.level} (its title was not found on page "
                                   f"{page + 1}: placed at its destination)"))
        floor = at + 1


def measure_outline(report, path, bookmarks: list[Bookmark]) -> list[Bookmark]:
    """Count how the outline was placed (ingest report): the bookmarks, those aligned to a line
    and, of those, the ones found other than by their title on their page (``CLOSE``, ``RUN_IN``,
    ``FIRST_WORD``, ``NEXT_PAGE``), and those placed where their first entry below opens
    (``UNDIRECTED``); return the bookmarks whose heading was not found on their page (placed at
    their destination). One without a destination and with none below it is reported."""
    missing = [bm for bm in bookmarks if bm.line is None and bm.page is not None]
    if not bookmarks:
        return missing
    report.measure(path, "outline bookmarks", len(bookmarks))
    report.measure(path, "bookmarks aligned to their heading line", sum(1 for bm in bookmarks if bm.line is not None))
    report.measure(path, "bookmarks not found on their page (placed at their destination)", len(missing))
    for what in (CLOSE, RUN_IN, FIRST_WORD, NEXT_PAGE, UNDIRECTED, TIED):
        n = sum(1 for bm in bookmarks if what in bm.how)
        if n:
            report.measure(path, what, n)
    undirected = [bm.title for bm in bookmarks if bm.page is None]
    if undirected:
        report.add(path, f"{len(undirected)} bookmark(s) without a destination page, not placed: "
                         + ", ".join(repr(t) for t in undirected[:5]), "heading")
    return missing
