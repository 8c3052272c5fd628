"""The title block of a PDF's first page: LaTeX's ``\\maketitle`` sets the title, then the authors
and the date larger than the body text, before the first section. Typography alone reads those
lines as headings: the asymptote package's manual had "John Bowman, Tom Prince, and Will Robertson"
and "2021/12/29 v1.37" as two top-level sections before "1 Introduction".

On the first page with text, the heading lines before the first heading a section is known by (a
bookmark's, a numbered one, a section name such as "Abstract" or "Contents") hold the title: the
largest of them, set larger than every other. The heading lines right below it, before any body
text, are text when they are set smaller, not bold, and in a typography (size, font, weight) that
heads nothing on any other page: an author line is set once in a regular face, section headings
are bold or recur. An outline without a title entry gets the title from here (the outline's own
sections start below it)."""
from __future__ import annotations

from ham.ingest.levels import numbering_of, vocabulary_of
from ham.ingest.pdf_outline import RULE
from ham.ingest.pdf_text import Line
from ham.ingest.structure import is_toc_title

TITLE_LINE = "document title (the largest line of the first page's title block)"
LARGER = 1.05       # of the body size: a line set this much larger is no body text


def _style(ln: Line) -> tuple:
    return round(ln.size, 1), ln.font, ln.bold


def _sectioning(ln: Line) -> bool:
    text = ln.text.strip()
    return ln.rule.startswith(RULE) or numbering_of(text) is not None or vocabulary_of(text) is not None \
        or is_toc_title(text)


def title_block(pages: list[list[Line]], body: float) -> tuple[Line | None, list[Line]]:
    """(the title line or None, the lines below it that are the authors' and the date) of the first
    page with text; the caller decides what each becomes."""
    first = next((n for n, lines in enumerate(pages) if any(not ln.furniture for ln in lines)), None)
    if first is None:
        return None, []
    lines = [ln for ln in pages[first] if not ln.furniture or ln.furniture.startswith("document title")]
    block: list[Line] = []
    for ln in lines:
        if ln.role == "heading" or ln.furniture:          # furniture here: the outline's title entry
            if _sectioning(ln):
                break
            block.append(ln)
    if not block:
        return None, []
    title = max(block, key=lambda ln: ln.size)
    if sum(1 for ln in block if ln.size >= title.size - 0.05) > 1:
        return None, []        # no one line stands out: no title block to read
    elsewhere = {_style(ln) for n, page in enumerate(pages) if n != first
                 for ln in page if ln.role == "heading" and not ln.furniture}
    credits: list[Line] = []
    for ln in lines[lines.index(title) + 1:]:
        if ln.role != "heading":
            if ln.size <= body * LARGER:
                break           # body text: the block has ended
            continue            # set larger, not a heading: an e-mail in typewriter type, a thanks mark
        if _sectioning(ln) or ln.bold or ln.size >= title.size or _style(ln) in elsewhere:
            break
        credits.append(ln)
    return title, credits


def read_title_page(pages: list[list[Line]], body: float, report, path, wants_title: bool) -> tuple[str, str] | None:
    """Apply ``title_block``: the authors' and date lines become text (counted); with
    ``wants_title`` (an outline without a title entry), the title line leaves the text and
    (title, rule) is returned."""
    title, credits = title_block(pages, body)
    for ln in credits:
        ln.role, ln.level, ln.rule = "text", 0, ""
    if credits:
        report.measure(path, "title block lines read as text (authors, date)", len(credits))
    if not wants_title or title is None or title.furniture:
        return None
    title.furniture = TITLE_LINE
    return title.text.strip(), "title: the largest line of the first page's title block"
