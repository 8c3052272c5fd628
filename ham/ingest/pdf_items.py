"""The items a PDF page is read into (text, headings, captions, tables, images) before they become
``Block``s, and the box tests the reader places them with."""
from __future__ import annotations

from dataclasses import dataclass, field

from ham.ingest.blocks import Block
from ham.ingest.pdf_text import Line


@dataclass
class Item:
    kind: str                      # text, heading, image, table, caption
    top: float
    bottom: float
    x0: float
    x1: float
    text: str = ""
    size: float | None = None
    font: str = ""
    lines: list[Line] = field(default_factory=list)
    image_path: str | None = None
    caption: str = ""
    level: int = 0
    rule: str = ""
    frame: int = -1                # text inside a ruled box of one column: the box's index on its page
    alt: str = ""                  # a vector figure's text (``ham.ingest.pdf_figures``)

    def block(self, common: dict) -> Block | None:
        """The Block this item becomes (``common``: page, source, bbox, index); None for an image
        that could not be rendered."""
        if self.kind == "heading":
            return Block(kind="heading", text=self.text, level=self.level, rule=self.rule, font_size=self.size,
                         font=self.font, **common)
        if self.kind == "image":
            return Block(kind="image", image=self.image_path, image_path=self.image_path, alt=self.alt,
                         **common) if self.image_path else None
        if self.kind == "table":
            return Block(kind="table", text=self.text, caption=self.caption, image=self.image_path,
                         image_path=self.image_path, **common)
        return Block(kind=self.kind, text=self.text, **common)


def inside(box, x0: float, top: float, x1: float, bottom: float) -> bool:
    """The region lies in ``box`` (x0, top, x1, bottom), give or take a point."""
    return box[0] - 1 <= x0 and x1 <= box[2] + 1 and box[1] - 1 <= top and bottom <= box[3] + 1


def framed(ln: Line, frames) -> int:
    """The index of the frame (a ruled box of one column, ``_Reader.tables``) holding the line, or -1."""
    return next((i for i, box in enumerate(frames) if inside(box, ln.x0, ln.top, ln.x1, ln.bottom)), -1)


def runs_on(prev: Item, item: Item, next_page: bool) -> bool:
    """``item`` continues the paragraph ``prev`` over a page or column break: running text of the
    same size, ``prev`` ends without closing its sentence, ``item`` opens in lower case at the top
    of the next page or of the next column (above ``prev``), neither in a code font."""
    if item.kind != "text" or item.frame >= 0 or not item.lines or not prev.lines:
        return False
    end, text = prev.text.rstrip(), item.text.lstrip()
    return (next_page or item.top < prev.top) and bool(text) and text[0].islower() and \
        not end.endswith((".", "!", "?", ":", ";")) and abs((prev.size or 0) - (item.size or 0)) < 0.6 and \
        not prev.lines[-1].mono and not item.lines[0].mono
