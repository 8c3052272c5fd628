"""Page furniture of a PDF found by position and recurrence, not by identity; table-of-contents
pages; chapter-opener labels.

Furniture: a line in the header or footer band (the top and bottom ``BAND`` of the page) sits in
a *slot*: the same vertical position, within ``SLOT_PT``, on other pages. A slot on at least
``MIN_PAGES`` pages (and ``MIN_SHARE`` of them) whose lines mostly repeat (digits masked: "Page 3
of 20" and "Page 4 of 20" are one text) is a running head or foot, and *every* line in it is
furniture, including the ones whose varying part (the current section's title) occurs once. A band
line that repeats a heading of the document (a bookmark title, or one of the slot's titles) is
furniture too. Kinds, counted in the ingest report: "page number", "running head (section title)"
(a varying running head: the section or chapter it names), "running head/footer (fixed text)".
An image wholly inside a band at the same place and size on as many pages (a logo, a "PDF by
dblatex" badge) is furniture too: "running image (header/footer logo)", never an image unit.

A folio set above the footer band (LaTeX's on a letter page with wide margins: 690pt of 792, the
band starts at 697) is found by its place instead (``mark_folios``): the page's lowest (or
highest) line, a page number only, in one slot on ``MIN_PAGES`` pages (and ``MIN_SHARE`` of them)
whose numbers step with the pages. A numbered list's item or a table's number never is one: it
is no page's last line at one height on most pages, counting up page by page.

A table-of-contents page is a page most of whose lines are entries ending in a page number (or
with the page number set apart on the same row: a contents table, rst2pdf's), with a "Contents"
line, at least ``TOC_MIN_LEADERS`` dot leaders, or right after a contents page (a page of numeric
tables or of footnote-marked lists is not one): its contents' lines are never headings, and are
left out. The contents are the lines from the "Contents" title down to the last entry or page
number, by position (``toc_span``); a section opening below them on the same page is read.

A chapter opener's label ("CHAPTER" / "ONE", "Chapter 3", a big numeral) on the lines just above
a chapter title belongs to that title (``opener_label``; ``opener_title`` joins them when
typography names the heading: "Chapter 1 Installation").
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

from ham.ingest.levels import CHAPTER_LABEL
from ham.ingest.pdf_text import Line
from ham.text import normalise_ws

BAND = 0.12
SLOT_PT = 3.0
MIN_PAGES = 3
MIN_SHARE = 0.15
TOC_MIN_LEADERS = 3
PAGE_NUMBER = "page number"
SECTION_HEAD = "running head (section title)"
FIXED_HEAD = "running head/footer (fixed text)"
RUNNING_IMAGE = "running image (header/footer logo)"

_ROMAN = r"[ivxlcdm]{1,7}"
_LEADER = re.compile(rf"(?:(?:\.\s?){{3,}}|…|·{{3,}})\s*(?:\d{{1,4}}|{_ROMAN})$", re.I)
_PAGE_ONLY = re.compile(rf"^(?:(?:page|pg\.?|p\.|seite)\s*)?(?:\d{{1,4}}|{_ROMAN})(?:\s*(?:/|of|von|de)\s*\d{{1,4}})?$",
                        re.I)
_WORD = re.compile(r"[^\W\d_]{2}")       # two letters in a row: a word, not a number or a mark
_TOC_ENTRY = re.compile(rf"^.{{2,}}?(?:\s*(?:\.\s?){{2,}}|…+|\s)\s*(?:\d{{1,4}}|{_ROMAN})$", re.I)
_NUMBER_WORDS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}


def masked(text: str) -> str:
    return re.sub(r"\d+", "#", normalise_ws(text))


def heading_key(text: str) -> str:
    """A title without numbering, case or punctuation: what a running head repeats of it."""
    text = normalise_ws(text)
    text = re.sub(rf"^(?:(?:chapter|part|appendix|section)\s+)?(?:[\d.]+|{_ROMAN}\.|[a-z]\.)\s+", "", text)
    return re.sub(r"[^\w]+", " ", text).strip()


def in_band(top: float, bottom: float, height: float) -> str:
    """"top" or "bottom" when the extent lies wholly in that band of the page, else ""."""
    if bottom <= height * BAND:
        return "top"
    if top >= height * (1 - BAND):
        return "bottom"
    return ""


def _merged(slots: dict[tuple[str, int], list]) -> dict[tuple[str, int], list]:
    """Slots ``SLOT_PT`` apart merged: neighbouring slots are one position."""
    merged: dict[tuple[str, int], list] = defaultdict(list)
    for (band, y), members in sorted(slots.items()):
        key = next((k for k in ((band, y - 1), (band, y - 2)) if k in merged), (band, y))
        merged[key].extend(members)
    return merged


def mark_slots(pages: list[list[Line]], heights: list[float]) -> tuple[Counter, set[str]]:
    """Set ``Line.furniture`` on the lines of running-head and running-foot slots of ``pages``
    (one list of lines per page). Returns the counts by kind and the heading keys of the slots'
    lines (the titles running heads repeat)."""
    slots: dict[tuple[str, int], list[tuple[int, Line]]] = defaultdict(list)
    for p, (lines, height) in enumerate(zip(pages, heights)):
        for ln in lines:
            band = in_band(ln.top, ln.bottom, height)
            if band and ln.text.strip():
                slots[band, int(round(ln.top / SLOT_PT))].append((p, ln))
    merged = _merged(slots)
    need = max(MIN_PAGES, MIN_SHARE * len(pages))
    counts: Counter = Counter()
    titles: set[str] = set()
    for members in merged.values():
        on_pages = len({p for p, _ in members})
        texts = Counter(masked(ln.text) for _, ln in members)
        if on_pages < need or sum(n for n in texts.values() if n >= 2) < 0.5 * len(members):
            continue
        for _, ln in members:
            if _PAGE_ONLY.match(normalise_ws(ln.text)):
                kind = PAGE_NUMBER
            elif texts[masked(ln.text)] >= max(2, 0.5 * on_pages):
                kind = FIXED_HEAD
            else:
                kind = SECTION_HEAD
                titles.add(heading_key(ln.text))
            if not ln.furniture:
                ln.furniture = kind
                counts[kind] += 1
    counts[PAGE_NUMBER] += mark_folios(pages, need)
    return counts, titles - {""}


def _folio_value(text: str) -> int | None:
    number = re.search(r"\d+", text)
    return int(number.group()) if number else None


def mark_folios(pages: list[list[Line]], need: float) -> int:
    """Page numbers outside the bands (module docstring): a page's lowest or highest line that is a
    bare number, in a slot (``SLOT_PT``) on ``need`` pages at least, where half its arabic numbers
    or more are the page's index plus one offset (roman front-matter numbers go with them: they
    sit in the same slot). Returns the count marked."""
    slots: dict[tuple[str, int], list[tuple[int, Line]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        shown = [ln for ln in lines if ln.text.strip() and not ln.furniture]
        if len(shown) < 2:
            continue
        for edge, ln in (("bottom", max(shown, key=lambda ln: ln.bottom)), ("top", min(shown, key=lambda ln: ln.top))):
            if _PAGE_ONLY.match(normalise_ws(ln.text)):
                slots[edge, int(round(ln.top / SLOT_PT))].append((p, ln))
    n = 0
    for members in _merged(slots).values():
        offsets = Counter(v - p for p, ln in members if (v := _folio_value(ln.text)) is not None)
        arabic = sum(offsets.values())
        if len({p for p, _ in members}) < need or not arabic or offsets.most_common(1)[0][1] < 0.5 * arabic:
            continue
        offset = offsets.most_common(1)[0][0]
        for p, ln in members:   # an arabic number off the count (a table's last cell, "2048") is text
            value = _folio_value(ln.text)
            if not ln.furniture and (value is None or value - p == offset):
                ln.furniture = PAGE_NUMBER
                n += 1
    return n


def running_images(boxes: list[list[tuple[float, float, float, float]]],
                   heights: list[float], widths: list[float] | None = None) -> dict[int, set[int]]:
    """Page -> indexes of its images that are furniture: ``boxes`` holds each page's image boxes
    (x0, top, x1, bottom); an image wholly in the header or footer band whose position and size
    (within ``SLOT_PT``) recur on ``MIN_PAGES`` pages and ``MIN_SHARE`` of them. With the pages'
    ``widths``, its place across the page counts from the nearer edge, so a logo mirrored on
    facing pages (ConTeXt's, beside the page number: left on even pages, right on odd ones) is one."""
    slots: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for p, (page, height) in enumerate(zip(boxes, heights)):
        width = widths[p] if widths else None
        for i, (x0, top, x1, bottom) in enumerate(page):
            band = in_band(top, bottom, height)
            if band:
                across = min(x0, width - x1) if width else x0
                slots[(band, *(round(v / SLOT_PT) for v in (across, top, x1 - x0, bottom - top)))].append((p, i))
    need = max(MIN_PAGES, MIN_SHARE * len(boxes))
    out: dict[int, set[int]] = defaultdict(set)
    for members in slots.values():
        if len({p for p, _ in members}) >= need:
            for p, i in members:
                out[p].add(i)
    return out


def mark_title_heads(pages: list[list[Line]], heights: list[float], titles: set[str], body: float) -> int:
    """A header or footer band line, outside any slot, that repeats one of ``titles`` (heading
    keys: bookmarks, running heads) and is not itself a heading (aligned to a bookmark, or set
    larger than the body text: a chapter title near the top of its first page): a running head.
    Returns the count."""
    n = 0
    for lines, height in zip(pages, heights):
        for ln in lines:
            if ln.furniture or ln.role == "heading" or not in_band(ln.top, ln.bottom, height) \
                    or len(ln.text.split()) > 15 or ln.size > body * 1.1:
                continue
            if heading_key(ln.text) in titles:
                ln.furniture = SECTION_HEAD
                n += 1
    return n


def _toc_lines(lines: list[Line]) -> tuple[list[Line], list[str], list[bool], list[bool]]:
    """The page's lines that are not furniture, their texts, which are entries (a title ending in
    a page number, or with its number set apart on the same row) and which are page numbers."""
    kept = [ln for ln in lines if ln.text.strip() and not ln.furniture]
    texts = [normalise_ws(ln.text) for ln in kept]
    numbers = [bool(_PAGE_ONLY.match(t)) for t in texts]
    numbered = [ln for ln, is_number in zip(kept, numbers) if is_number]

    def entry(ln: Line, t: str) -> bool:
        if _PAGE_ONLY.match(t) or not _WORD.search(t):
            return False
        return bool(_TOC_ENTRY.match(t)) or any(abs(n.top - ln.top) <= 2 and n.x0 > ln.x1 for n in numbered)
    return kept, texts, [entry(ln, t) for ln, t in zip(kept, texts)], numbers


def _is_toc_title(text: str) -> bool:
    return text.strip(" :").lower() in ("contents", "table of contents")


def is_toc_page(lines: list[Line], continues: bool = False) -> bool:
    """A table of contents page: most lines are entries ending in a page number, or titles whose
    page number is set apart on the same row (a contents table of two columns: rst2pdf's,
    ReportLab's), or those page numbers; titled "Contents", with dot leaders, or (``continues``)
    right after a contents page."""
    kept, texts, entries, numbers = _toc_lines(lines)
    if not kept:
        return False
    leaders = sum(1 for t in texts if _LEADER.search(t))
    titled = any(_is_toc_title(t) for t in texts)
    return (sum(entries) + sum(numbers)) >= 0.5 * len(texts) and sum(entries) >= 2 \
        and (titled or leaders >= TOC_MIN_LEADERS or continues)


def toc_span(lines: list[Line]) -> set[int]:
    """Of a contents page's lines, the ids (``id(line)``) of those set from its "Contents" title (or
    its first entry) down to its last entry or page number: the contents. Text set on the same page
    below the last entry (ConTeXt opens "1 Introduction" right below its contents) or above the
    contents is the document's. By position on the page, not reading order: a column of page
    numbers is read after the text beside and below it."""
    kept, texts, entries, numbers = _toc_lines(lines)
    marks = [ln for ln, e, n in zip(kept, entries, numbers) if e or n]
    if not marks:
        return set()
    first = min(m.top for m in marks)
    titles = [ln for ln, t in zip(kept, texts) if _is_toc_title(t) and ln.top <= first]
    top = min([first, *(ln.top for ln in titles)])
    bottom = max(m.bottom for m in marks)
    # outside it, lines without a word (an index's letter groups, "O S") are the contents' too
    return {id(ln) for ln in kept if (ln.top >= top - 1 and ln.bottom <= bottom + 1)
            or not _WORD.search(ln.text)}


def opener_label(line: Line, body: float) -> bool:
    """A chapter opener's label: "CHAPTER", "ONE", "Chapter 3", "Part II", "Section 3:" (Word's
    manuals), or a big numeral; set like the body (a sentence's last line, "... see" / "Section
    10."), it is text."""
    if line.size < body + 0.5 and not line.bold:
        return False
    text = normalise_ws(line.text).strip(" .:")
    if CHAPTER_LABEL.match(text) or text in _NUMBER_WORDS:
        return True
    return bool(re.fullmatch(r"\d{1,2}|[ivxlc]{1,5}|[a-z]", text)) and line.size >= 1.6 * body


def opener_title(labels: list[Line], title: Line) -> str:
    """"CHAPTER" + "ONE" + "FOREWORD" -> "Chapter 1 FOREWORD"; "Chapter 3" + "Title" -> "Chapter 3 Title"."""
    words = [str(_NUMBER_WORDS.get(w.lower(), w)) for w in " ".join(ln.text for ln in labels).split()]
    if words and words[0].isupper() and len(words[0]) > 1:
        words[0] = words[0].capitalize()
    return " ".join(words + [title.text])
