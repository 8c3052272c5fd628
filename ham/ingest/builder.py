"""Turn a flat stream of blocks in source order into a hierarchy tree.

Every format parser (Markdown, MinerU, Docling, PDF, DOCX, MRAMG, each HTML page) reduces its
input to ``Block``s and lets ``TreeBuilder`` recover the hierarchy from heading levels (resolved
by ``ham.ingest.levels`` when the source's own are flat or missing), procedural steps,
figure-caption links and source order. ``build_document`` first runs the document-level passes of
``ham.ingest.structure`` (page furniture, front matter, title, levels, tables continued across
pages). Keeping this in one place means every format gets the same rules.

Rules the builder itself applies
    * A first heading equal to the document title is the title, not a section of its own: the
      headings below it become the sections (a single-page manual's ``h1``).
    * "Step N" headings and ``step`` blocks are procedure steps; numbering restarts with every list.
      A "Step N" heading with a level is a section at that level: its subheadings nest in it and
      the next heading at its level or above ends it
      (``Block.number``, else the count within the current run of steps).
    * A table leaf's text is its caption, then its rows (``a | b`` lines), then its footnotes, so
      every representation and prompt that shows a unit's content shows all three; its image stays
      on the node (``image``/``image_path``).
    * Text is cleaned of zero-width characters (``ham.text.clean_text``).
"""
from __future__ import annotations

import re

from ham.document import Document, Node
from ham.ingest.blocks import Block, same_title  # noqa: F401  (re-exported: every reader builds Blocks)
from ham.ingest.structure import prepare
from ham.ingest.levels import is_step_title, numbering_depth, numbering_of  # noqa: F401  (re-exported)
from ham.text import clean_text

CAPTION = re.compile(r"^\s*(?:Figure|Fig\.|Image|Screenshot|Chart|图)\s*[A-Z]?\d+(?:[.\-]\d+)*\s*[.:：]?", re.I)
# a caption as one is set: its label, then a colon or a full stop ("Figure 2: Drawing of ...")
SET_CAPTION = re.compile(r"^\s*(?:Figure|Fig\.|Image|Screenshot|Chart|图)\s*[A-Z]?\d+(?:[.\-]\d+)*"
                         r"(?:\s*[:：]|\.\s)", re.I)
LABEL = re.compile(r"^\s*(?P<kind>Figure|Fig\.?|Table|Tab\.?|Chart|Image|Screenshot|图|表)\s*"
                   r"(?P<n>[A-Z]?\d+(?:[.\-]\d+)*)", re.I)
_LABEL_NAMES = {"fig": "Figure", "fig.": "Figure", "figure": "Figure", "tab": "Table", "tab.": "Table",
                "table": "Table", "chart": "Chart", "image": "Image", "screenshot": "Screenshot",
                "图": "Figure", "表": "Table"}


def label_of(caption: str) -> str:
    """The source's name for a figure or table from its caption: "Fig. 3: ..." -> "Figure 3"."""
    m = LABEL.match(caption or "")
    if not m:
        return ""
    return f"{_LABEL_NAMES.get(m.group('kind').lower(), m.group('kind'))} {m.group('n')}"


class TreeBuilder:
    """Stack-based builder. Usage: ``b = TreeBuilder(doc_id, title, source, fmt); b.add(block)...;
    doc = b.finish()``. Node ids are ``{doc_id}:{n}`` in creation order, stable across runs."""

    def __init__(self, doc_id: str, title: str, source: str, fmt: str, title_rule: str = "") -> None:
        self.doc_id, self.source, self.fmt = doc_id, source, fmt
        self._n = 0
        self._order = 0
        self.root = Node(id=self._new_id(), kind="document", title=clean_text(title), source=source,
                         rule=title_rule)
        # stack of (level, node); the document is level 0
        self._stack: list[tuple[int, Node]] = [(0, self.root)]
        self._step: Node | None = None
        self._steps_in_run = 0
        self._pending_caption: Node | None = None
        self._adopted: dict[str, tuple[Node, Node]] = {}   # image id -> (image, the caption above it it took)
        self._last_leaf: Node | None = None
        self._title_level: int | None = None
        self._seen_heading = False

    def _new_id(self) -> str:
        nid = f"{self.doc_id}:{self._n}"
        self._n += 1
        return nid

    @property
    def _container(self) -> Node:
        return self._step if self._step is not None else self._stack[-1][1]

    def _heading_level(self, block: Block) -> tuple[int, str]:
        if block.level > 0:
            return block.level, block.rule or f"source level {block.level}"
        depth = numbering_depth(block.text)
        if depth:
            return depth, block.rule or f"numbering {numbering_of(block.text).number} -> depth {depth}"
        return self._stack[-1][0] + 1, block.rule or "unnumbered heading without a level: one below the last"

    def add(self, block: Block) -> None:
        handler = getattr(self, f"_add_{block.kind}", None)
        if handler is None:
            raise ValueError(f"unknown block kind {block.kind!r}")
        handler(block)

    def _node(self, kind: str, block: Block, **fields) -> Node:
        return Node(id=self._new_id(), kind=kind, source=block.source or self.source, order=self._next_order(),
                    page=block.page, index=block.index, meta=dict(block.meta), **fields)

    def _add_heading(self, block: Block) -> None:
        title = " ".join(clean_text(block.text).split())
        if not title:
            return
        self._step = None
        self._steps_in_run = 0
        first = not self._seen_heading
        self._seen_heading = True
        if is_step_title(title):
            node = self._node("step", block, title=title, rule="step heading (\"Step N\")")
            if block.level > 0:   # a step at its heading's level: its subheadings nest in it
                self._close_sections(block.level)
                self._stack[-1][1].children.append(node)
                self._stack.append((block.level, node))
            else:
                self._stack[-1][1].children.append(node)
            self._step = node
            return
        level, rule = self._heading_level(block)
        if first and len(self._stack) == 1 and same_title(title, self.root.title):
            # the document's own title as its top heading: not a section level of its own
            self._title_level = level
            if block.meta.get("anchors"):   # a link to the title names the document
                self.root.meta.setdefault("anchors", []).extend(block.meta["anchors"])
            self.root.rule = (self.root.rule + "; " if self.root.rule else "") + \
                f"top heading {title!r} is the document title (not a section)"
            return
        self._close_sections(level)
        kind = "section" if len(self._stack) == 1 else "subsection"
        node = self._node(kind, block, title=title, rule=rule)
        self._stack[-1][1].children.append(node)
        self._stack.append((level, node))

    def _add_step(self, block: Block) -> None:
        parent = self._stack[-1][1]
        self._steps_in_run += 1
        number = block.number or self._steps_in_run
        node = self._node("step", block, title=f"Step {number}", rule=block.rule or "procedure list item")
        parent.children.append(node)
        self._step = node
        if block.text.strip():
            self._add_text(Block(kind="text", text=block.text, page=block.page, source=block.source,
                                 index=block.index, meta=dict(block.meta)))

    def _add_end_steps(self, block: Block) -> None:
        self._step = None
        self._steps_in_run = 0

    def _add_end_section(self, block: Block) -> None:
        """The section opened at ``block.level`` (and any below it) ends: what follows belongs
        to the enclosing section (an HTML API object's ``dl`` has ended)."""
        self._add_end_steps(block)
        self._close_sections(block.level)

    def _close_sections(self, level: int) -> None:
        """Sections opened at ``level`` or deeper end (the document, level 0, stays open)."""
        while len(self._stack) > 1 and self._stack[-1][0] >= level:
            self._stack.pop()

    def _next_order(self) -> int:
        self._order += 1
        return self._order - 1

    def _leaf(self, kind: str, block: Block, **fields) -> Node:
        node = self._node(kind, block, **fields)
        self._container.children.append(node)
        self._last_leaf = node
        return node

    def _add_text(self, block: Block, is_caption: bool = False) -> None:
        text = clean_text(block.text).strip()
        if not text:
            return
        prev = self._last_leaf
        siblings = self._container.children
        prev_is_sibling = bool(siblings) and siblings[-1] is prev
        node = self._leaf("text", block, text=text)
        if is_caption or CAPTION.match(text):
            if prev is not None and prev.kind == "image" and not prev.caption and prev_is_sibling:
                prev.caption = " ".join(text.split())
                prev.label = prev.label or label_of(text)
                node.caption_of = prev.id
            else:
                self._pending_caption = node

    def _add_caption(self, block: Block) -> None:
        """A caption the source marks explicitly: the previous image's if it is the last leaf and
        uncaptioned, else the next image's."""
        self._add_text(block, is_caption=True)

    def _add_table(self, block: Block) -> None:
        caption = " ".join(clean_text(block.caption).split())
        body = clean_text(block.text).strip()
        notes = clean_text(block.footnote).strip()
        text = "\n".join(part for part in (caption, body, notes) if part)
        if not text and not block.image_path:
            return
        self._leaf("table", block, text=text, caption=caption, image=block.image, image_path=block.image_path,
                   label=label_of(caption))

    def _add_image(self, block: Block) -> None:
        prev = self._last_leaf
        caption = " ".join(clean_text(block.caption).split())
        node = self._leaf("image", block, image=block.image, image_path=block.image_path,
                          alt=" ".join(clean_text(block.alt).split()), caption=caption, label=label_of(caption))
        pending = self._pending_caption
        self._pending_caption = None
        if not node.caption and pending is not None and pending is prev and pending.caption_of is None:
            node.caption = " ".join(pending.text.split())
            node.label = label_of(node.caption)
            pending.caption_of = node.id
            self._adopted[node.id] = (node, pending)
        notes = " ".join(clean_text(block.footnote).split())
        if notes:   # the source's description of the image (DocBook's mediaobject caption): its, not text
            node.caption = f"{node.caption} {notes}".strip()

    def _captions_below(self) -> None:
        """An image that took the caption above it gives it back when a caption right below it
        is nobody's: figures are captioned below, and the one above was a listing's or a text
        figure's (graphviz's dot guide: "Figure 1: Small graph" above the drawing, "Figure 2:
        Drawing of small graph" below it). Where every figure is captioned above, the caption below
        an image is the next image's, so it is never nobody's."""
        if not self._adopted:
            return          # no image took a caption above it: no tree walk for the document
        parents = {c.id: n for n in self.root.walk() for c in n.children}
        for image, above in self._adopted.values():
            siblings = parents[image.id].children
            at = siblings.index(image)
            below = siblings[at + 1] if at + 1 < len(siblings) else None
            if below is None or below.kind != "text" or below.caption_of is not None \
                    or not SET_CAPTION.match(below.text) or label_of(below.text) == label_of(above.text):
                continue        # a sentence about the figure ("Figure 4 shows ...") is no caption
            above.caption_of = None
            image.caption = " ".join(below.text.split())
            image.label = label_of(image.caption)
            below.caption_of = image.id

    def finish(self) -> Document:
        self._captions_below()
        title = self.root.title or next((c.title for c in self.root.children if c.title), self.doc_id)
        self.root.title = title
        return Document(id=self.doc_id, title=title, source=self.source, format=self.fmt, root=self.root)


def build_document(doc_id: str, title: str, source: str, fmt: str, blocks, report=None, path=None,
                   title_rule: str = "", fallback_title: str = "", authored: bool = True) -> Document:
    """A document from a finished block stream (formats that read a whole file at once). With a
    ``report``, the document-level passes of ``ham.ingest.structure`` run first (furniture, front
    matter, title detection when ``title`` is empty, levels, continued tables) and count what they
    exclude against ``path``; ``fallback_title`` (the file stem) names a document without one;
    ``authored=False`` says the heading levels come from a parser (MinerU, PDF), not an author."""
    blocks = list(blocks)
    if report is not None:
        blocks, title, found = prepare(blocks, title, report, path if path is not None else source, authored)
        title_rule = title_rule or found
    if not title and fallback_title:
        title, title_rule = fallback_title, "title: no title heading found; the file name"
    builder = TreeBuilder(doc_id, title, source, fmt, title_rule)
    for block in blocks:
        builder.add(block)
    return builder.finish()


def doc_id_for(rel_source: str, keep_suffix: bool = False) -> str:
    """A stable document id from a source path relative to the corpus root: the path without its
    suffix (with it, ``keep_suffix``: where two formats of one document share a stem), with
    whitespace replaced (``manuals/Car Loan.md`` -> ``manuals/Car_Loan``)."""
    stem = rel_source.rsplit(".", 1)[0] if "." in rel_source.rsplit("/", 1)[-1] and not keep_suffix else rel_source
    return re.sub(r"\s+", "_", stem)
