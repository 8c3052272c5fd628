"""Document-level passes over a block stream, run by ``build_document`` before the tree is built.

In order (parser outputs start with pass 4, so that a chapter's "1" is not taken for a page number):

1. **Page furniture.** Blocks the source marks as page header, footer, page number or discarded
   are left out and counted by kind. In sources with pages, lines that repeat at the top or bottom
   of the pages (digits ignored: running headers, "Page 3 of 20", "第 3 页 共 20 页",
   confidentiality footers) on at least 3 pages and 40% of them, page-number lines at a page edge,
   and a line at the very top or bottom of a page that repeats a heading of the document without
   its number (a chapter title as running header) are left out too ("running header/footer",
   "page number").
2. **Front matter.** A table of contents (a "Contents" / "目录" heading and the entries after it,
   or blocks of dot-leader lines "Introduction ........ 3") and the credits of a preamble (a
   "Copyright" / "Contributors" / "Feedback" / "Legal notice" label and what follows it up to the
   next heading; paragraphs before the first section that open with "Copyright", "©", "All rights
   reserved", "All trademarks" or, as GNU manuals' permission notices do, "Permission is granted
   to") are left out and counted.
3. **Tables continued across pages.** An empty table item right after a table is the stub a parser
   (MinerU) left when it merged the two: dropped and counted. A table that opens a page right after
   a table that ran to the foot of the previous one (by their bboxes), without a caption of its own,
   is joined to it (a repeated header row dropped): one unit (``ham.ingest.table_join``). An empty
   table anywhere else is reported as lost.
4. **Chapter openers.** In a parser's output (levels not chosen by an author), a heading that is
   only a chapter label ("1", "Chapter 3", "CHAPTER", "Part II") directly followed by a heading is
   joined to it: a Redbook's "1" and "Securing and protecting IBM DB2 data" become "1 Securing and
   protecting IBM DB2 data", numbered like its "1.1" (counted in the ingest report).
5. **Title.** Unless the format knows it, the title is the first heading on the first page that is
   not a table of contents, a running header, a legal line, a known section name or a numbered
   heading (the largest such heading where font sizes are known; the only level-1 heading where the
   source's levels differ). That heading leaves the stream; ``Document.root.rule`` says how.
6. **Levels.** When the source's heading levels are flat or missing, ``ham.ingest.levels``
   recovers them (numbering, font size, section vocabulary, context) and records the rule.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from ham.ingest.blocks import Block, same_title
from ham.ingest.levels import (CHAPTER_LABEL, LevelResolver, is_step_title, levels_informative, numbering_of,
                               vocabulary_of)
from ham.ingest.pdf_outline import RULE as OUTLINE_RULE
from ham.ingest.table_join import join_tables
from ham.text import clean_text, normalise_ws

_TOC_TITLES = {"contents", "table of contents", "目录", "目 录", "目次", "inhalt", "inhaltsverzeichnis",
               "sommaire", "table des matières", "índice", "indice", "contenido", "contenidos", "目录 contents",
               "目 录 contents", "contents 目录", "toc"}
_TOC_LINE = re.compile(r"^.{2,}?(?:\s*(?:\.{2,}|…+|·{2,}|_{3,}|-{3,})\s*|\t+)(?:\d{1,4}|[ivxlc]{1,6})\s*$", re.I)
_TOC_NUMBERED = re.compile(r"^.*?\S[\s.·…_]+(?:\d{1,4}|[ivxlc]{1,6})$", re.I)
_PAGE_CELL = re.compile(r"^(?:\d{1,4}|[ivxlc]{1,6})$", re.I)
_PAGE_NUMBER = re.compile(
    r"^(?:(?:page|pg\.?|p\.|seite|página)\s*\d+(?:\s*(?:of|/|von|de)\s*\d+)?"
    r"|第\s*\d+\s*页\s*[,，/]?\s*(?:共\s*\d+\s*页)?"
    r"|共\s*\d+\s*页\s*[,，]?\s*第\s*\d+\s*页"
    r"|[-–—]?\s*\d{1,4}\s*[-–—]?"
    r"|\d{1,4}\s*/\s*\d{1,4}"
    r"|[ivxlc]{1,6})$", re.I)
_FRONT_LABELS = {"copyright", "copyrights", "contributors", "feedback", "legal notice", "legal notices",
                 "license", "licence", "trademarks", "credits", "authors", "translators", "translation",
                 "publication date", "revision history", "disclaimer", "版权", "版权声明", "免责声明"}
_LEGAL = re.compile(r"^\s*(?:copyright\b|©|\(c\)\s*\d{4}|all rights reserved|all trademarks|"
                    r"permission is granted to\b|版权所有|保留所有权利|本文档版权)", re.I)


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", normalise_ws(text))


def is_toc_title(text: str) -> bool:
    return normalise_ws(text).strip(" :：") in _TOC_TITLES


def is_toc_text(text: str, listed: bool = False) -> bool:
    """Lines of a table of contents: "Introduction ........ 3" (most lines). ``listed``: inside a
    table of contents (after its heading), where leaders are often lost, also "1.2 研究意义 3" (a
    short line ending in a page number) and "1.1 研究背景" (a numbered title whose page number
    the parser dropped)."""
    lines = [ln.strip() for ln in clean_text(text).splitlines() if ln.strip()]
    if not lines:
        return False
    hits = sum(1 for ln in lines if _TOC_LINE.match(ln)
               or listed and len(ln) <= 80 and (_TOC_NUMBERED.match(ln) or numbering_of(ln) is not None))
    return hits >= max(1, 0.6 * len(lines))


def is_toc_table(text: str) -> bool:
    """A table of contents as a table (Marker's Markdown, a DOCX): most rows end in a page number
    after a cell with a title ("| 1.1 Abstract | 2 |")."""
    rows = [[c.strip() for c in ln.split("|")] for ln in clean_text(text).splitlines() if ln.strip()]
    entries = 0
    for cells in rows:
        filled = [c for c in cells if c]
        if len(filled) >= 2 and _PAGE_CELL.match(filled[-1]) and any(re.search(r"[^\W\d_]", c) for c in filled[:-1]):
            entries += 1
    return bool(rows) and entries >= max(2, 0.6 * len(rows))


def is_legal_line(text: str) -> bool:
    return bool(_LEGAL.match(clean_text(text)))


def _at_edge(block: Block, first: set[int], last: set[int], i: int) -> bool:
    if block.bbox is not None and len(block.bbox) == 4:
        return block.bbox[1] < 90 or block.bbox[3] > 910
    return i in first or i in last


def remove_furniture(blocks: list[Block], report, path) -> list[Block]:
    marked = [b for b in blocks if b.furniture]
    for what, n in Counter(b.furniture for b in marked).items():
        report.exclude(path, what, n)
    blocks = [b for b in blocks if not b.furniture]
    pages = sorted({b.page for b in blocks if b.page is not None})
    if len(pages) < 2:
        return blocks
    by_page: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(blocks):
        if b.page is not None and b.kind in ("text", "heading", "caption"):
            by_page[b.page].append(i)
    first = {i for idx in by_page.values() for i in idx[:2]}
    last = {i for idx in by_page.values() for i in idx[-2:]}
    drop: dict[int, str] = {}
    seen: dict[str, set[int]] = defaultdict(set)
    where: dict[str, list[int]] = defaultdict(list)
    for i, b in enumerate(blocks):
        if b.kind not in ("text", "heading", "caption") or b.page is None:
            continue
        text = " ".join(clean_text(b.text).split())
        if not text or len(text.split()) > 15 or len(text) > 120:
            continue
        edge = _at_edge(b, first, last, i)
        if edge and _PAGE_NUMBER.match(text):
            drop[i] = "page number"
            continue
        if edge:
            seen[_key(text)].add(b.page)
            where[_key(text)].append(i)
    need = max(3, 0.4 * len(pages)) if len(pages) > 2 else 2
    for key, on_pages in seen.items():
        if len(on_pages) >= need:
            for i in where[key]:
                drop[i] = "running header/footer"
    # a line at the very top or bottom of a page repeating a heading of the document (the chapter
    # title as running header), without its numbering
    heads = {normalise_ws(re.sub(r"^\S+\s+\S+\s+" if re.match(r"^(chapter|part|appendix)\b", b.text, re.I)
                                 else r"^[\d.]+\s+", "", clean_text(b.text)))
             for b in blocks if b.kind == "heading" and b.text.strip()}
    for i, b in enumerate(blocks):
        if i in drop or b.kind != "text" or b.bbox is None or len(b.bbox) != 4 or not (b.bbox[1] < 60 or b.bbox[3] > 940):
            continue
        if len(b.text.split()) <= 8 and normalise_ws(b.text) in heads:
            drop[i] = "running header/footer"
    for what, n in Counter(drop.values()).items():
        report.exclude(path, what, n)
    return [b for i, b in enumerate(blocks) if i not in drop]


def _entry_key(text: str) -> str:
    """A heading as a table of contents lists it and as the document sets it: its page number and
    dot leaders gone."""
    return re.sub(r"(?:[\s.·…_]*\d{1,4})?[\s.·…_]*$", "", normalise_ws(text))


def _toc_entry(blocks: list[Block], at: int, ahead: Counter) -> bool:
    """Inside a table of contents, a heading with no text of its own whose title (its page number
    gone) is a later heading of the document is an entry of it, not a section: a parser marks the
    entries of a thesis' "目录" as headings, "第二章 文献综述 7" then "2.1 理论基础 7", without leaders."""
    after = blocks[at + 1] if at + 1 < len(blocks) else None
    empty = after is None or after.kind == "heading" or (after.kind == "text" and is_toc_text(after.text, listed=True))
    return empty and ahead[_entry_key(blocks[at].text)] > 0


def remove_front_matter(blocks: list[Block], report, path, title: str = "",
                        keep: frozenset[int] = frozenset()) -> list[Block]:
    """Tables of contents and credits (rules: module docstring). ``keep``: headings (by index) that
    stay whatever their title: an HTML page's "Contents" section whose table of contents lists the
    pages placed there (the entries themselves are already out)."""
    out: list[Block] = []
    n_toc = n_credit = 0
    in_toc = in_credits = False
    headings_seen, cover = 0, None
    first_page = next((b.page for b in blocks if b.page is not None), None)
    ahead = Counter(_entry_key(b.text) for b in blocks if b.kind == "heading")   # headings not yet passed
    for at, b in enumerate(blocks):
        text = clean_text(b.text).strip()
        if b.kind == "heading":
            ahead[_entry_key(b.text)] -= 1
            if is_toc_title(text) and at not in keep:
                in_toc, in_credits = True, False
                n_toc += 1
                continue
            if in_toc and (_TOC_LINE.match(text) or not text or _toc_entry(blocks, at, ahead)):
                n_toc += 1
                continue
            in_toc = in_credits = False
            cover_only = headings_seen == 1 and cover is not None and b.page is not None and b.page > cover
            if normalise_ws(text) in _FRONT_LABELS and not same_title(text, title) and (headings_seen == 0 or cover_only):
                in_credits = True
                n_credit += 1
                continue
            if not same_title(text, title):
                headings_seen += 1
                if headings_seen == 1 and b.page is not None and b.page == first_page:
                    cover = b.page   # the one heading so far is on the first page: a cover's title
            out.append(b)
            continue
        if b.kind in ("text", "caption"):
            if in_toc and is_toc_text(text, listed=True):
                n_toc += 1
                continue
            in_toc = False
            early = headings_seen == 0 or (first_page is not None and b.page is not None and b.page <= first_page + 1
                                           and headings_seen <= 1)
            if is_toc_text(text) and len(text.splitlines()) >= 2 and early:
                n_toc += 1
                continue
            # a label is set as one ("License", "Authors:"); a lower-case word is an index entry or a
            # field name ("license" in a package manifest's reference), and credits would drop the rest
            if normalise_ws(text).rstrip(" :：") in _FRONT_LABELS and headings_seen == 0 and not text[:1].islower():
                in_credits = True
                n_credit += 1
                continue
            if in_credits or (early and is_legal_line(text) and len(text.split()) < 80):
                n_credit += 1
                continue
        elif in_toc and b.kind == "table" and is_toc_table(text):
            n_toc += 1
            continue
        elif in_toc and b.kind not in ("end_steps",):
            in_toc = False
        elif in_credits and b.kind in ("step", "table", "image"):
            in_credits = False
        out.append(b)
    report.exclude(path, "table of contents", n_toc)
    report.exclude(path, "front matter (copyright, credits)", n_credit)
    return out


def join_openers(blocks: list[Block], report, path) -> list[Block]:
    """Pass 4 (module docstring): a chapter label heading (``levels.CHAPTER_LABEL`` or a bare
    number up to 99) joined to the heading right after it."""
    out: list[Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if prev is not None and b.kind == "heading" and prev.kind == "heading" and prev.page == b.page \
                and not is_step_title(b.text) and numbering_of(b.text) is None:   # "2" then "2.1": no title
            label = " ".join(clean_text(prev.text).split()).strip(" .:")   # as printed: "Chapter 3", not "chapter 3"
            if CHAPTER_LABEL.match(label) or re.fullmatch(r"\d{1,2}", label):
                out[-1] = replace(b, text=f"{label} {b.text}",
                                  meta={**prev.meta, **b.meta,
                                        "anchors": [*prev.meta.get("anchors", ()), *b.meta.get("anchors", ())]})
                report.exclude(path, "chapter opener label (joined to its title)")
                continue
        out.append(b)
    return out


def detect_title(blocks: list[Block], informative: bool) -> tuple[int | None, str]:
    """(index of the heading block that is the title, rule), or (None, "") when no heading is."""
    heads = [(i, b) for i, b in enumerate(blocks) if b.kind == "heading" and clean_text(b.text).strip()]
    if not heads:
        return None, ""
    skipped: list[str] = []

    def plain(text: str) -> bool:
        if is_toc_title(text):
            skipped.append("a table of contents")
        elif is_legal_line(text):
            skipped.append("a legal line")
        else:
            return True
        return False

    if informative:
        usable = [(i, b) for i, b in heads if plain(" ".join(clean_text(b.text).split()))]
        if not usable:
            return None, ""
        i, b = usable[0]
        levels = [h.level for _, h in usable]
        if b.level == 1 and levels.count(1) == 1 and not is_step_title(b.text):
            note = f", skipping {', '.join(dict.fromkeys(skipped))}" if skipped else ""
            return i, f"title: the only level-1 heading{note}"
        return None, ""
    first_page = next((b.page for _, b in heads if b.page is not None and not is_toc_title(b.text)
                       and not is_legal_line(b.text)), None)
    sizes = [b.font_size for _, b in heads if b.font_size is not None]
    top = [(i, b) for i, b in heads if b.font_size is not None and b.font_size == max(sizes, default=None)
           and (first_page is None or b.page == first_page) and plain(" ".join(clean_text(b.text).split()))]
    if len(top) == 1 and sizes.count(top[0][1].font_size) == 1 and not is_step_title(top[0][1].text):
        # one heading set larger than every other: the title, even when numbered ("Chapter 6. ...")
        i, b = top[0]
        return i, f"title: the largest heading of the document ({b.font_size:g}pt), on its first page"
    skipped.clear()
    candidates = []
    for i, b in heads:
        text = " ".join(clean_text(b.text).split())
        if first_page is not None and b.page is not None and b.page > first_page:
            break
        if first_page is None and len(candidates) + len(skipped) >= 3:
            break
        if not plain(text):
            continue
        if vocabulary_of(text) or numbering_of(text) or is_step_title(text):
            skipped.append("section headings")
        elif len(text.split()) > 30:
            skipped.append("a long heading")
        else:
            candidates.append((i, b, list(skipped)))
    if not candidates:
        return None, ""

    def skipping(before: list[str]) -> str:
        return f", skipping {', '.join(dict.fromkeys(before))}" if before else ""

    sized = [c for c in candidates if c[1].font_size is not None]
    if len(sized) > 1:
        i, b, before = max(sized, key=lambda c: (c[1].font_size, -c[0]))
        return i, f"title: the largest heading on the first page ({b.font_size:g}pt){skipping(before)}"
    i, b, before = candidates[0]
    where = "on the first page" if first_page is not None else "of the document"
    return i, f"title: the first heading {where}{skipping(before)}"


def _informative(heads: list[Block], authored: bool) -> bool:
    """``levels.levels_informative`` for these headings; a PDF's outline levels are the author's
    and stay even where the numbering disagrees (lilypond's bookmarks set chapter 5 below 4)."""
    outlined = any(b.rule.startswith(OUTLINE_RULE) for b in heads)
    return levels_informative([b.level for b in heads], [b.text for b in heads], authored,
                              numbering_overrules=not outlined)


def resolve_levels(blocks: list[Block], authored: bool = True) -> list[Block]:
    heads = [b for b in blocks if b.kind == "heading" and not is_step_title(b.text)]
    if _informative(heads, authored):
        return blocks
    resolver = LevelResolver([(b.text, b.font_size, b.font) for b in heads])
    out = []
    for b in blocks:
        if b.kind == "heading" and not is_step_title(b.text):
            level, rule = resolver.next(b.text)
            b = replace(b, level=level, rule=rule)
        out.append(b)
    return out


def prepare(blocks: list[Block], title: str, report, path: Path | str,
            authored: bool = True) -> tuple[list[Block], str, str]:
    """The passes of the module docstring: (blocks, title, how the title was found). ``authored``:
    the heading levels were chosen by the author (Markdown, HTML, DOCX), not by a parser."""
    if not authored:      # before furniture: a chapter's "1" at the top of its page is no page number
        blocks = join_openers(blocks, report, path)
    blocks = remove_furniture(blocks, report, path)
    blocks = remove_front_matter(blocks, report, path, title)
    blocks = join_tables(blocks, report, path)
    rule = ""
    heads = [b for b in blocks if b.kind == "heading" and not is_step_title(b.text)]
    informative = _informative(heads, authored)
    if not title:
        at, rule = detect_title(blocks, informative)
        if at is not None:
            title = " ".join(clean_text(blocks[at].text).split())
            anchors = blocks[at].meta.get("anchors")
            blocks = blocks[:at] + blocks[at + 1:]
            if anchors and at < len(blocks):   # a link to the title lands where the document begins
                blocks[at] = replace(blocks[at], meta={**blocks[at].meta,
                                                       "anchors": [*anchors, *blocks[at].meta.get("anchors", ())]})
    else:
        rule = "title: given by the source"
    blocks = resolve_levels(blocks, authored)
    return blocks, title, rule
