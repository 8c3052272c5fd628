"""Figures drawn in vector graphics: a plot, a diagram, a logo converted from SVG, drawn with lines
and curves instead of embedded as an image. pdfplumber lists no image for them, so without this
module they were lost, and their labels (tick values, node names, a legend) became lines of text
scattered through the section.

A page's line, curve and rectangle objects (outside tables and ruled boxes, not white fills, not
the frame of an embedded image) are joined into drawings where they lie within ``JOIN_PT`` of each
other. A drawing is part of a figure when it holds a *mark*: a curve (any path that is not one
straight segment or a rectangle) or a slanted line. Axis-aligned rules and boxes alone (a code
listing's frame, a table's grid, a shaded note, a page rule) are not, so no frame, table or
admonition becomes a figure by itself. Drawings with marks within ``MERGE_PT`` of each other are
one figure (a plot's curve and its legend; a logo's letters); a figure needs ``MIN_MARKS`` marks
that are not on the edge of their drawing (a rounded box's corners are) and a size of at least
``MIN_W`` x ``MIN_H`` points (an admonition's icon is smaller). Rules and boxes lying inside a
figure's region join it (a bar chart's bars between its curves).

A figure's text (labels inside its region, and short lines, ``LABEL_WORDS`` words or fewer, within
``LABEL_PT`` of it and within its width or its height, give or take ``LABEL_PT``, and no further than
twice ``LABEL_PT`` from the drawing: tick values below an axis and the axis title below them, not
the last line of a paragraph that starts at the margin above a centred figure, nor a list of short
items below it, nor a short line of several words ending a sentence: R-intro's "the following
figure." right above its figure) leaves the running text and becomes the figure's
text (``Block.alt``), so it is still searched with the figure. Never taken: a caption ("Figure 3"),
a heading, a table's or a ruled box's line.

Ruled tables a figure's drawing touches are the figure's too (``absorb_tables``): graphviz draws
record nodes and clusters as ruled rectangles, which the table finder reads as tables. Where the
edges between them alone make no figure (each edge is on its own drawing's edge), the page is
searched again with the tables drawn in, counting only marks outside them (an icon in a table
cell is no mark).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ham.ingest.pdf_items import framed
from ham.ingest.pdf_text import FIGURE_CAPTION, TABLE_CAPTION, Line

JOIN_PT = 4.0
MERGE_PT = 12.0
LABEL_PT = 12.0
LABEL_WORDS = 4
MIN_MARKS = 2
MIN_W, MIN_H = 36.0, 24.0
EDGE_PT = 2.0
MAX_OBJECTS = 20_000   # joining is quadratic where objects share a band: a denser page is not searched

Box = tuple[float, float, float, float]


@dataclass
class Figure:
    box: Box
    labels: list[Line] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)     # the text of ruled boxes it holds (graphviz's records)

    @property
    def text(self) -> str:
        return " ".join([ln.text for ln in self.labels] + self.tables)


def _white(obj: dict) -> bool:
    colour = obj.get("non_stroking_color")
    values = colour if isinstance(colour, (list, tuple)) else (colour,)
    return bool(values) and all(isinstance(v, (int, float)) and v >= 0.99 for v in values)


def _within(inner: Box, outer: Box, slack: float) -> bool:
    return (outer[0] - slack <= inner[0] and inner[2] <= outer[2] + slack
            and outer[1] - slack <= inner[1] and inner[3] <= outer[3] + slack)


def _near(a: Box, b: Box, gap: float) -> bool:
    return a[0] <= b[2] + gap and b[0] <= a[2] + gap and a[1] <= b[3] + gap and b[1] <= a[3] + gap


def _union(boxes) -> Box:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _groups(boxes: list[Box], gap: float) -> list[list[int]]:
    """Indexes of ``boxes`` joined where they lie within ``gap`` of each other (transitively)."""
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][1])
    for n, i in enumerate(order):
        for j in order[n + 1:]:
            if boxes[j][1] > boxes[i][3] + gap:
                break
            if _near(boxes[i], boxes[j], gap):
                parent[find(i)] = find(j)
    out: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        out.setdefault(find(i), []).append(i)
    return list(out.values())


def _is_mark(kind: str, box: Box) -> bool:
    return kind == "curve" or (kind == "line" and box[2] - box[0] > 1 and box[3] - box[1] > 1)


def _on_edge(box: Box, of: Box) -> bool:
    """The object lies along an edge of its drawing (a frame's side, a rounded corner) or is the
    whole drawing (a background, a border)."""
    w, h, width, height = box[2] - box[0], box[3] - box[1], of[2] - of[0], of[3] - of[1]
    if w >= 0.9 * width and h >= 0.9 * height:
        return True
    if (abs(box[1] - of[1]) <= EDGE_PT or abs(box[3] - of[3]) <= EDGE_PT) and h <= max(3.0, 0.1 * height):
        return True
    return (abs(box[0] - of[0]) <= EDGE_PT or abs(box[2] - of[2]) <= EDGE_PT) and w <= max(3.0, 0.1 * width)


def graphics(page, skip: list[Box]) -> list[tuple[str, Box]]:
    """The page's drawing objects (kind, box) outside ``skip`` (tables, ruled boxes, embedded images:
    a frame drawn around an image is the image's), white fills left out."""
    width, height = float(page.width), float(page.height)
    out = []
    for kind in ("line", "curve", "rect"):
        for obj in page.objects.get(kind, ()):
            box = (float(obj["x0"]), float(obj["top"]), float(obj["x1"]), float(obj["bottom"]))
            if box[3] < 0 or box[1] > height or box[2] < 0 or box[0] > width:
                continue
            if obj.get("fill") and not obj.get("stroke") and _white(obj):
                continue
            if any(_within(box, s, 4.0) for s in skip):
                continue
            out.append((kind, box))
    return out


def find_figures(objects: list[tuple[str, Box]], unmarked: list[Box] = ()) -> list[Box] | None:
    """The regions of the figures among ``objects`` (module docstring); None for a page of more than
    ``MAX_OBJECTS`` objects, which is not searched (the reader counts it). Nothing inside an
    ``unmarked`` box counts as a mark (a table's own drawing: an icon in a cell)."""
    if len(objects) > MAX_OBJECTS:
        return None
    boxes = [b for _, b in objects]
    drawings = []
    for members in _groups(boxes, JOIN_PT):
        region = _union(boxes[i] for i in members)
        marks = [i for i in members if _is_mark(objects[i][0], boxes[i])
                 and not any(_within(boxes[i], u, 1.0) for u in unmarked)]
        if marks:
            drawings.append((region, sum(1 for i in marks if not _on_edge(boxes[i], region))))
    figures = []
    for group in _groups([d[0] for d in drawings], MERGE_PT):
        region = _union(drawings[i][0] for i in group)
        marks = sum(drawings[i][1] for i in group)
        if marks >= MIN_MARKS and region[2] - region[0] >= MIN_W and region[3] - region[1] >= MIN_H:
            figures.append(region)
    # rules and boxes inside a figure are its own; a figure inside another is part of it
    figures.sort(key=lambda r: -(r[2] - r[0]) * (r[3] - r[1]))
    kept: list[Box] = []
    for region in figures:
        if not any(_within(region, k, 1.0) for k in kept):
            kept.append(region)
    return kept


def _label(ln: Line) -> bool:
    return ln.role != "heading" and not FIGURE_CAPTION.match(ln.text) and not TABLE_CAPTION.match(ln.text)


def take_labels(regions: list[Box], lines: list[Line], frames: list[Box] = ()) -> tuple[list[Figure], list[Line]]:
    """The figures with their text, and the page's lines that stay text (module docstring); a line
    of a ruled box (``frames``) stays text."""
    figures = [Figure(r) for r in regions]
    if not figures:
        return figures, lines
    taken: set[int] = set()
    for fig in figures:
        drawn, grew = fig.box, True     # labels grow the region, but never further than 2 LABEL_PT from the drawing
        while grew:
            grew = False
            for i, ln in enumerate(lines):
                if i in taken or ln.furniture or not _label(ln) or framed(ln, frames) >= 0:
                    continue
                box = (ln.x0, ln.top, ln.x1, ln.bottom)
                cx, cy = (ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2
                inside = fig.box[0] <= cx <= fig.box[2] and fig.box[1] <= cy <= fig.box[3]
                words = ln.text.split()
                beside = len(words) <= LABEL_WORDS and not (len(words) > 1 and ln.text.rstrip().endswith((".", ":"))) \
                    and _near(box, fig.box, LABEL_PT) and \
                    _near(box, drawn, 2 * LABEL_PT) and (
                    fig.box[0] - LABEL_PT <= ln.x0 and ln.x1 <= fig.box[2] + LABEL_PT          # above or below
                    or fig.box[1] - LABEL_PT <= ln.top and ln.bottom <= fig.box[3] + LABEL_PT)  # or beside it
                if inside or beside:
                    taken.add(i)
                    fig.labels.append(ln)
                    if not _within(box, fig.box, 0.0):
                        fig.box = _union([fig.box, box])
                        grew = True
    for fig in figures:
        fig.labels.sort(key=lambda ln: (round(ln.top), ln.x0))
    return figures, [ln for i, ln in enumerate(lines) if i not in taken]


def absorb_tables(regions: list[Box], tables: list[Box]) -> tuple[list[Box], dict[int, int]]:
    """Tables a figure's drawing touches (within ``JOIN_PT``) are part of it: graphviz draws a
    record node or a cluster as ruled rectangles, which the table finder reads as a table, and the
    edges drawn to it touch it. Returns the grown regions (overlapping ones merged) and, for each
    absorbed table's index, its region's."""
    regions = list(regions)
    owner: dict[int, int] = {}
    grew = True
    while grew:
        grew = False
        for j, table in enumerate(tables):
            if j in owner:
                continue
            for i, region in enumerate(regions):
                if _near(region, table, JOIN_PT):
                    regions[i], owner[j], grew = _union([region, table]), i, True
                    break
    merged = _groups(regions, 0.0)
    at = {i: n for n, group in enumerate(merged) for i in group}
    return [_union(regions[i] for i in group) for group in merged], {j: at[i] for j, i in owner.items()}


def page_figures(page, tables: list, frames: list[Box], pictures: list[Box], lines: list[Line], report,
                 path) -> tuple[list[Figure], list[Line], list]:
    """One page's drawn figures, the lines left to its text and the tables left to be tables
    (``tables``: items with ``x0``, ``top``, ``x1``, ``bottom`` and ``text``), counted in ``report``."""
    boxes = [(t.x0, t.top, t.x1, t.bottom) for t in tables]
    found = find_figures(graphics(page, boxes + frames + pictures))
    if found is None:
        report.measure(path, "pages with too many drawing objects to look for figures", 1)
    regions, owner = absorb_tables(found or [], boxes)
    left = [b for j, b in enumerate(boxes) if j not in owner]
    if left and found is not None:
        # a graph of record nodes: each edge alone is on its own drawing's edge, so no figure was
        # found; searched again with the tables drawn in, marks outside them count
        again = find_figures(graphics(page, [b for j, b in enumerate(boxes) if j in owner] + frames + pictures),
                             unmarked=left) or []
        grown = [r for r in again if any(_within(b, r, 1.0) for b in left)
                 and not any(_near(r, k, 0.0) for k in regions)]
        if grown:
            regions, owner = absorb_tables(regions + grown, boxes)
    drawn, lines = take_labels(regions, lines, frames)
    for j, i in sorted(owner.items()):
        drawn[i].tables.append(" ".join(tables[j].text.replace("|", " ").split()))
    if drawn:
        report.measure(path, "figures drawn as vector graphics (rendered as images)", len(drawn))
        report.measure(path, "lines of text inside vector figures (kept as the figure's text)",
                       sum(len(f.labels) for f in drawn))
    if owner:
        report.measure(path, "ruled tables inside vector figures (kept as the figure's text)", len(owner))
    return drawn, lines, [t for j, t in enumerate(tables) if j not in owner]
