"""The items a PDF page is read into (text, headings, captions, tables, images) before they become
``Block``s, and the box tests the reader places them with."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from ham.ingest.blocks import Block
from ham.ingest.pdf_hyphens import continued
from ham.ingest.pdf_text import (FIGURE_CAPTION, TABLE_CAPTION, Line, ends_broken, is_admonition_label,
                                  opens_list_item)


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


def page_frame(box: tuple, page) -> bool:
    """A "table" box that is the page's frame: it covers half the page or more and holds most of
    the page's characters (a border round the page and a rule between its two columns, which
    pdfplumber reads as one row of two cells). Its words are the page's text, headings included."""
    x0, top, x1, bottom = box
    if (x1 - x0) * (bottom - top) < 0.5 * float(page.width) * float(page.height):
        return False
    chars = [c for c in page.chars if c.get("text", "").strip()]
    held = sum(1 for c in chars if inside(box, c["x0"], c["top"], c["x1"], c["bottom"]))
    return bool(chars) and held >= 0.6 * len(chars)


CAPTION_GAP = 60      # points: the most a caption sits from its figure or table


def place_figure_captions(items: list[Item]) -> list[Item]:
    """A page's items in reading order with each "Figure N" caption moved next to its image: the
    nearest image it sits directly below or above (overlapping it across, within ``CAPTION_GAP``,
    no text between them), after the image or before it. Reading order puts text set beside an
    image (wrapped to its right) between the two, and the TreeBuilder links a caption only to the
    image just before or after it. A caption already next to an image it sits under or over stays
    with it (the builder links them); the others pair nearest first, one caption per image."""
    images = [it for it in items if it.kind == "image"]
    captions = [it for it in items if it.kind == "caption" and FIGURE_CAPTION.match(it.text)]
    texts = [it for it in items if it.kind in ("text", "heading", "caption", "table")]

    def across(a: Item, b: Item) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) > 0

    def gap(im: Item, cap: Item) -> tuple[float, bool] | None:
        """(distance, below) when ``cap`` sits directly below or above ``im``, else None."""
        if not across(im, cap):
            return None
        below = cap.top >= im.bottom - 2
        if not below and cap.bottom > im.top + 2:
            return None
        lo, hi = (im.bottom, cap.top) if below else (cap.bottom, im.top)
        if hi - lo > CAPTION_GAP or any(t is not cap and across(t, im) and across(t, cap) and lo - 1 < t.top
                                        and t.bottom < hi + 1 for t in texts):
            return None
        return hi - lo, below

    def index(seq: list[Item], item: Item) -> int:      # by identity: Items compare by value
        return next(k for k, it in enumerate(seq) if it is item)

    out, used, placed = list(items), set(), set()
    for c, cap in enumerate(captions):
        at = index(out, cap)
        for k, below in ((at - 1, True), (at + 1, False)):
            im = out[k] if 0 <= k < len(out) else None
            if im is not None and im.kind == "image" and index(images, im) not in used \
                    and (g := gap(im, cap)) is not None and g[1] == below:
                used.add(index(images, im))
                placed.add(c)
                break
    pairs = sorted(((g, i, c) for i, im in enumerate(images) for c, cap in enumerate(captions)
                    if i not in used and c not in placed and (g := gap(im, cap)) is not None), key=lambda p: p[0][0])
    for (_, below), i, c in pairs:
        if i in used or c in placed:
            continue
        used.add(i)
        placed.add(c)
        im, cap = images[i], captions[c]
        out.pop(index(out, cap))
        at = index(out, im)
        out.insert(at + 1 if below else at, cap)
    return out


def framed(ln: Line, frames) -> int:
    """The index of the frame (a ruled box of one column, ``_Reader.tables``) holding the line, or -1."""
    return next((i for i, box in enumerate(frames) if inside(box, ln.x0, ln.top, ln.x1, ln.bottom)), -1)


def footnote(running: tuple | None, item: Item, page_no: int) -> bool:
    """``item`` is text set smaller than the open paragraph ``running`` (block index, item, page),
    below it on its page: a footnote between the paragraph and its continuation on the next page."""
    if running is None or item.kind != "text" or page_no != running[2]:
        return False
    prev = running[1]
    return bool(prev.size and item.size) and item.size < prev.size - 0.6 and item.top > prev.bottom


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


def same_row(a: Line, b: Line) -> bool:
    """``b`` sits on ``a``'s row, to its right."""
    return abs(a.top - b.top) < 0.3 * max(a.size, b.size) and b.x0 >= a.x1


def beside(a: Line, b: Line) -> bool:
    """``b`` is text on ``a``'s row, to its right: a definition's first line beside its term
    ("lty=2" | "Line types. ..."), the next cell of an unruled table's row; not a code comment set
    apart on a listing's line (monospaced)."""
    return same_row(a, b) and not b.mono


def by_row(lines: list[Line]) -> list[Line]:
    """``lines`` with each row's lines left to right (a term set a fraction of a point lower than
    the definition beside it was sorted after it)."""
    out = list(lines)
    for i in range(len(out) - 1):
        if same_row(out[i + 1], out[i]):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def outdented(prev: Item, ln: Line, right: float) -> bool:
    """``ln`` starts left of a hanging indent ``prev`` set up: the next entry of a definition list,
    not a continuation line. A hanging indent: ``prev``'s last line is indented under an earlier
    line by more than two ems, and that earlier line's row runs to the text's right edge ``right``
    (it wrapped into the indented one; a short line above an indented display does not). Code keeps
    its indentation changes (a listing's line is no entry)."""
    if prev.kind != "text" or len(prev.lines) < 2 or prev.lines[-1].mono:
        return False
    last, em = prev.lines[-1], 2 * ln.size
    if ln.x0 >= last.x0 - em:
        return False

    def row_end(line: Line) -> float:      # a term's row ends where the definition beside it ends
        return max(other.x1 for other in prev.lines if abs(other.top - line.top) < 0.3 * line.size)
    return any(line.x0 < last.x0 - em and row_end(line) >= right - em for line in prev.lines[:-1])


def opens_list(prev: Item, ln: Line, after: Line | None, right: float) -> bool:
    """``ln`` is the first entry of a definition list right after the sentence introducing it
    ("... are drawn, as follows:" / 'pch="+" Character to be used ...'): ``prev`` ends in a colon,
    ``ln`` starts at ``prev``'s margin and runs to the ``right`` edge, and the line ``after`` it is
    prose indented under it by more than two ems (a hanging indent; a code display is not one)."""
    if after is None or prev.kind != "text" or after.mono or same_row(ln, after) or \
            not prev.lines[-1].text.rstrip().endswith(":"):
        return False
    em = ln.size
    return abs(ln.x0 - min(p.x0 for p in prev.lines)) < 1 and ln.x1 >= right - 2 * em and \
        after.x0 > ln.x0 + 2 * em and after.top - ln.top < 2 * em


def leading(lines: list[Line], body: float) -> float:
    """The page's line pitch in running text: the median distance from one body-size line's top to
    the next one's (0 when fewer than three pairs show it)."""
    steps = sorted(b.top - a.top for a, b in pairwise(lines)
                   if abs(a.size - body) < 0.6 and abs(b.size - body) < 0.6 and 0 < b.top - a.top < 2 * body)
    return steps[len(steps) // 2] if len(steps) >= 3 else 0.0


def new_paragraph(prev: Item, ln: Line, pitch: float, left: float, right: float, after: Line | None = None) -> bool:
    """``ln`` opens a paragraph of its own although it sits close below ``prev``'s last line, by
    what the page shows: a bullet opening it (a list item), more space above it than the page's line
    ``pitch`` (a paragraph skip smaller than a line, as texinfo sets it), or a first-line indent
    after a line that ended short of the ``right`` edge. A display (a line indented from the
    ``left`` margin: code, or a short line indented further than a first line) stays with the
    sentence that introduces it ("... with the command" / "> source(...)"), and
    the line after it continues that paragraph unless it is indented as a new one's first line
    (less than the display; GLPK's "int out frq (default: 500)" sets its text at the term's indent)."""
    last = prev.lines[-1]
    if prev.kind != "text" or prev.frame >= 0 or same_row(last, ln):
        return False
    if opens_list_item(ln.text):
        return True
    em = ln.size
    if after_list_item(prev, ln, em, after):
        return True

    def display(line: Line) -> bool:     # code, or a short line indented past a paragraph's first-line indent
        return line.x0 > left + 0.8 * em and (line.mono or (line.x0 > left + 2 * em and line.x1 < right - 2 * em))
    if display(ln):
        return False
    if display(last):      # indented as a first line, less than the display: a new paragraph
        return left + 0.8 * em < ln.x0 < last.x0 - 0.5 * em
    if ends_broken(last.text):
        return False       # its word goes on here: "• A SQUARE ... AND CON-" / "TROL OF IB AT CORNERS"
    if pitch and ln.top - last.top > pitch + 0.2 * em and last.text.rstrip().endswith((".", "!", "?")):
        return True        # space after a closed sentence (not after a term, "int out frq (default: 500)", nor "Examples:")
    return not ln.mono and not last.mono and ln.x0 > last.x0 + 0.8 * em and last.x1 < right - 2 * em


def after_list_item(prev: Item, ln: Line, em: float, after: Line | None = None) -> bool:
    """``ln`` starts left of the bullet of the list item ``prev`` whose lines so far are its own: the
    bullet's line and continuation lines aligned with each other (a hanging indent). A paragraph
    after a bulleted list, at the margin (LibreOffice's "● A command-line utility ..." / "This
    package requires ..."). Or ``ln`` is the indented first line of such a paragraph: right after
    the bullet's line, set past the bullet by less than the item's text (texinfo: bullet at 98.9pt,
    "The order of expansions is ..." at 104.9), with the line ``after`` it back left of the bullet."""
    first = prev.lines[0]
    if not opens_list_item(first.text):
        return False
    rest = prev.lines[1:]
    if ln.x0 > first.x0 - 0.5 * em:
        return not rest and after is not None and first.x0 + 0.3 * em < ln.x0 <= first.x0 + 0.8 * em \
            and after.x0 < first.x0 - 0.5 * em
    if len(rest) == 1:      # one line below the bullet's: the item's own only at its text's indent
        return rest[0].x0 > first.x0 + 0.8 * em
    return all(abs(r.x0 - rest[0].x0) < 1.0 for r in rest)


def labels(prev: Item, ln: Line, kind: str, frame: int) -> bool:
    """``prev`` is an admonition's label on a line of its own ("Note", "See also") and ``ln`` the
    note's text below it, at or right of the label and within two lines: doxygen sets the text on
    the next line, further apart than a paragraph's lines, and each label was a leaf of its own."""
    head = prev.lines[0]
    return kind == prev.kind == "text" and prev.frame == frame and len(prev.lines) == 1 and \
        is_admonition_label(head.text) and ln.x0 >= head.x0 - 1 and 0 <= ln.top - head.bottom <= 2 * ln.size


def joins(prev: Item, ln: Line, kind: str, frame: int) -> bool:
    """The line continues the item before it: a frame's lines all join (a listing's lines are
    apart or of mixed sizes); elsewhere a line close below one of its size and kind (boxes may
    overlap by a quarter of its size: tight leading, a tall inline code box), a heading of at
    most three lines."""
    if frame >= 0 or prev.frame >= 0:
        return kind == prev.kind == "text" and prev.frame == frame
    return prev.kind == kind and bool(prev.lines) and not ln.level and not prev.level and \
        abs(prev.lines[-1].size - ln.size) < 0.6 and -0.25 * ln.size <= ln.top - prev.bottom <= 0.9 * ln.size and \
        (kind == "text" or len(prev.lines) < 3)


def paragraphs(lines: list[Line], frames, body: float, width: float) -> list[Item]:
    """A page's lines (furniture left out) grouped into text and heading items: lines close below
    each other join (``joins``); a definition's term opens its entry and its text beside it joins
    it (``beside``), an admonition's label takes the note's text below it (``labels``), an entry
    outdented from a hanging indent opens the next one (``outdented``), a paragraph opens where the
    page shows one (``new_paragraph``)."""
    lines = by_row(lines)
    right = max((ln.x1 for ln in lines if abs(ln.size - body) < 0.6), default=width)
    left = min((ln.x0 for ln in lines if abs(ln.size - body) < 0.6), default=0.0)
    pitch = leading(lines, body)
    items: list[Item] = []
    for i, ln in enumerate(lines):
        kind = "heading" if ln.role == "heading" else "text"
        frame = framed(ln, frames)
        prev = items[-1] if items else None
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        # a term beside its definition opens an entry, unless it is the last of terms stacked above it
        term = nxt is not None and beside(ln, nxt) and not (
            prev is not None and all(p.mono for p in prev.lines) and abs(prev.lines[0].x0 - ln.x0) < 1)
        first = prev is not None and opens_list(prev, ln, nxt, right)
        if prev is not None and i and same_row(lines[i - 1], ln) and prev.lines[-1] is lines[i - 1] \
                and prev.kind == kind and prev.frame == frame:
            pass        # a definition beside its term, a table row's next cell, a listing line's comment
        elif prev is not None and labels(prev, ln, kind, frame):
            pass        # a note's text below its label
        elif prev is not None and prev.kind == kind == "text" and prev.frame == frame \
                and continued(prev.lines[-1].text, ln.text) is not None:
            pass        # a line LaTeX broke to fit, marked ↩ or ↪: its continuation
        elif prev is None or term or first or outdented(prev, ln, right) or \
                new_paragraph(prev, ln, pitch, left, right, nxt) or \
                not joins(prev, ln, kind, frame):
            prev = None
        if prev is not None:
            prev.lines.append(ln)
            prev.bottom, prev.x1 = max(prev.bottom, ln.bottom), max(prev.x1, ln.x1)
            continue
        items.append(Item(kind, ln.top, ln.bottom, ln.x0, ln.x1, size=ln.size, font=ln.font, lines=[ln],
                          level=ln.level, rule=ln.rule, frame=frame if kind == "text" else -1))
    return items


def attach_captions(items: list[Item]) -> list[Item]:
    """A table caption moves onto the nearest table; a figure caption moves next to the image it
    sits under or over (``place_figure_captions``: TreeBuilder links a caption to the image just
    before or after it)."""
    out = place_figure_captions(items)
    for cap in [i for i in items if i.kind == "caption" and TABLE_CAPTION.match(i.text)]:
        tables = [t for t in out if t.kind == "table" and not t.caption]
        if tables:
            near = min(tables, key=lambda t: min(abs(t.top - cap.bottom), abs(cap.top - t.bottom)))
            if min(abs(near.top - cap.bottom), abs(cap.top - near.bottom)) < CAPTION_GAP:
                near.caption = cap.text
                out.remove(cap)
    return out
