"""Pass 3 of ``ham.ingest.structure``: tables continued across pages become one unit.

A table continues the previous one only where the page break cut it: the previous table (its last
piece, once joined) runs to the foot of its page (its bbox ends below ``FOOT``), this one opens the
next page (starts above ``HEAD``), has no caption of its own and nothing but page furniture lies
between them. Without a bbox on both (a source without page positions) nothing is joined: the page
numbers alone cannot tell a continuation from the next table (a "Pin | Function" table halfway
down the page after a continued one). Bboxes are ``Block.bbox``'s 0-1000 of the page. A printed
page has margins: a table touching its very edge (0 or 1000) is not on one but fills a spreadsheet
sheet's used range (Docling gives an XLSX sheet as a page, its cells as the bbox), and sheets are
never joined.
"""
from __future__ import annotations

from dataclasses import replace

from ham.ingest.blocks import Block
from ham.text import normalise_ws

FOOT = 750   # a table ending below this runs to the foot of its page (margin, footer below)
HEAD = 250   # one starting above this opens its page (under a running header)


def _rows(text: str) -> list[str]:
    return [r for r in text.splitlines() if r.strip()]


def _box(block_or_box) -> tuple | None:
    box = block_or_box.bbox if isinstance(block_or_box, Block) else block_or_box
    return box if box is not None and len(box) == 4 else None


def continues(prev_page: int | None, prev_box, b: Block) -> bool:
    """``b`` continues a table whose last piece is on ``prev_page`` at ``prev_box``."""
    box, before = _box(b), _box(prev_box)
    return (b.kind == "table" and not b.caption.strip() and bool(b.text.strip())
            and b.page is not None and prev_page is not None and b.page == prev_page + 1
            and box is not None and before is not None and FOOT <= before[3] < 1000 and 0 < box[1] <= HEAD)


def join_tables(blocks: list[Block], report, path) -> list[Block]:
    out: list[Block] = []
    last_content: Block | None = None   # the previous kept block that is content
    tail: tuple = (None, None)          # (page, bbox) of last_content's last piece
    for b in blocks:
        if b.kind == "table" and not b.text.strip() and not b.image_path and not b.image and not b.caption.strip():
            if last_content is not None and last_content.kind == "table":
                report.exclude(path, "table continuation stub (already merged by the parser)")
            else:
                where = f" (page {b.page + 1})" if b.page is not None else ""
                report.add(path, f"table item{where} without body, image or caption", "table")
            continue
        if last_content is not None and last_content.kind == "table" and continues(*tail, b):
            prev_rows, rows = _rows(last_content.text), _rows(b.text)
            if rows and prev_rows and normalise_ws(rows[0]) == normalise_ws(prev_rows[0]):
                rows = rows[1:]
            merged = replace(last_content, text="\n".join(prev_rows + rows),
                             footnote="\n".join(x for x in (last_content.footnote, b.footnote) if x))
            out[out.index(last_content)] = merged
            last_content, tail = merged, (b.page, b.bbox)
            report.exclude(path, "table continued across pages (joined into one unit)")
            continue
        out.append(b)
        if b.kind in ("text", "table", "image", "heading", "step", "caption"):
            last_content, tail = b, (b.page, b.bbox)
    return out
