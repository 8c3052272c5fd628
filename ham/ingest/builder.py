"""Turn a flat stream of blocks in source order into a hierarchy tree.

Every format parser (Markdown, MinerU, MRAMG, each HTML page) reduces its input to ``Block``s and
lets ``TreeBuilder`` recover the hierarchy from heading levels, numbering patterns ("4.7.",
"Step 3"), ordered-list steps, figure-caption links and source order. Keeping this in one place
means every format gets the same rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ham.document import Document, Node

# "4.7. Change the Mode", "4.7 Change", "2.1.3) Foo", "A.2. Appendix"
_NUMBERED = re.compile(r"^\s*(?:(?:Chapter|Section|Part|Appendix)\s+)?((?:[A-Z]|\d+)(?:\.\d+)*)[.)]?\s+\S")
_STEP = re.compile(r"^\s*(?:Step|STEP)\s+(\d+)\b")
CAPTION = re.compile(r"^\s*(?:Figure|Fig\.|Image|Screenshot)\s*[A-Z]?\d+(?:[.\-]\d+)*\s*[.:]", re.I)


def numbering_depth(title: str) -> int | None:
    """Depth implied by a numbering prefix: "4." -> 1, "4.7." -> 2, "4.7.1" -> 3; None if absent."""
    m = _NUMBERED.match(title)
    if not m or not any(ch.isdigit() for ch in m.group(1)):
        return None
    return m.group(1).count(".") + 1


def is_step_title(title: str) -> bool:
    return bool(_STEP.match(title))


@dataclass
class Block:
    """One unit of source content in reading order.

    kind: ``heading`` (with ``level``; 0 means "infer from numbering"), ``text``, ``image``,
    ``table``, ``step`` (an ordered-list item of a procedure; its ``text`` is the step body),
    ``end_steps`` (closes the current run of steps) or ``caption`` (text the source marks as a
    figure caption, e.g. an HTML ``figcaption``: linked like a "Figure N." text even when it does
    not start with such a label).
    """

    kind: str
    text: str = ""
    level: int = 0
    image: str | None = None
    image_path: str | None = None
    alt: str = ""
    caption: str = ""
    page: int | None = None
    source: str = ""
    meta: dict = field(default_factory=dict)   # source facts kept on the node (layout id, bbox, ...)


class TreeBuilder:
    """Stack-based builder. Usage: ``b = TreeBuilder(doc_id, title, source, fmt); b.add(block)...;
    doc = b.finish()``. Node ids are ``{doc_id}:{n}`` in creation order, stable across runs."""

    def __init__(self, doc_id: str, title: str, source: str, fmt: str) -> None:
        self.doc_id, self.source, self.fmt = doc_id, source, fmt
        self._n = 0
        self._order = 0
        self.root = Node(id=self._new_id(), kind="document", title=title, source=source)
        # stack of (level, node); the document is level 0
        self._stack: list[tuple[int, Node]] = [(0, self.root)]
        self._step: Node | None = None
        self._pending_caption: Node | None = None
        self._last_leaf: Node | None = None

    def _new_id(self) -> str:
        nid = f"{self.doc_id}:{self._n}"
        self._n += 1
        return nid

    @property
    def _container(self) -> Node:
        return self._step if self._step is not None else self._stack[-1][1]

    def _heading_level(self, block: Block) -> int:
        if block.level > 0:
            return block.level
        return numbering_depth(block.text) or (self._stack[-1][0] + 1)

    def add(self, block: Block) -> None:
        handler = getattr(self, f"_add_{block.kind}", None)
        if handler is None:
            raise ValueError(f"unknown block kind {block.kind!r}")
        handler(block)

    def _add_heading(self, block: Block) -> None:
        title = " ".join(block.text.split())
        if not title:
            return
        self._step = None
        if is_step_title(title):
            parent = self._stack[-1][1]
            node = Node(id=self._new_id(), kind="step", title=title, source=block.source or self.source,
                        order=self._next_order(), page=block.page)
            parent.children.append(node)
            self._step = node
            return
        level = self._heading_level(block)
        while self._stack[-1][0] >= level:
            self._stack.pop()
        kind = "section" if len(self._stack) == 1 else "subsection"
        node = Node(id=self._new_id(), kind=kind, title=title, source=block.source or self.source,
                    order=self._next_order(), page=block.page)
        self._stack[-1][1].children.append(node)
        self._stack.append((level, node))

    def _add_step(self, block: Block) -> None:
        parent = self._stack[-1][1]
        number = sum(1 for c in parent.children if c.kind == "step") + 1
        node = Node(id=self._new_id(), kind="step", title=f"Step {number}",
                    source=block.source or self.source, order=self._next_order(), page=block.page)
        parent.children.append(node)
        self._step = node
        if block.text.strip():
            self._add_text(Block(kind="text", text=block.text, page=block.page, source=block.source))

    def _add_end_steps(self, block: Block) -> None:
        self._step = None

    def _next_order(self) -> int:
        self._order += 1
        return self._order - 1

    def _leaf(self, kind: str, block: Block, **fields) -> Node:
        node = Node(id=self._new_id(), kind=kind, source=block.source or self.source,
                    order=self._next_order(), page=block.page, meta=dict(block.meta), **fields)
        self._container.children.append(node)
        self._last_leaf = node
        return node

    def _add_text(self, block: Block, is_caption: bool = False) -> None:
        text = block.text.strip()
        if not text:
            return
        prev = self._last_leaf
        siblings = self._container.children
        prev_is_sibling = bool(siblings) and siblings[-1] is prev
        node = self._leaf("text", block, text=text)
        if is_caption or CAPTION.match(text):
            if prev is not None and prev.kind == "image" and not prev.caption and prev_is_sibling:
                prev.caption = text
                node.caption_of = prev.id
            else:
                self._pending_caption = node

    def _add_caption(self, block: Block) -> None:
        """A caption the source marks explicitly: the previous image's if it is the last leaf and
        uncaptioned, else the next image's."""
        self._add_text(block, is_caption=True)

    def _add_table(self, block: Block) -> None:
        self._leaf("table", block, text=block.text.strip(), caption=block.caption.strip())

    def _add_image(self, block: Block) -> None:
        prev = self._last_leaf
        node = self._leaf("image", block, image=block.image, image_path=block.image_path,
                          alt=" ".join(block.alt.split()), caption=" ".join(block.caption.split()))
        pending = self._pending_caption
        self._pending_caption = None
        if not node.caption and pending is not None and pending is prev and pending.caption_of is None:
            node.caption = " ".join(pending.text.split())
            pending.caption_of = node.id

    def finish(self) -> Document:
        title = self.root.title or next((c.title for c in self.root.children if c.title), self.doc_id)
        self.root.title = title
        return Document(id=self.doc_id, title=title, source=self.source, format=self.fmt, root=self.root)


def build_document(doc_id: str, title: str, source: str, fmt: str, blocks) -> Document:
    """A document from a finished block stream (formats that read a whole file at once)."""
    builder = TreeBuilder(doc_id, title, source, fmt)
    for block in blocks:
        builder.add(block)
    return builder.finish()


def doc_id_for(rel_source: str) -> str:
    """A stable document id from a source path relative to the corpus root: the path without its
    suffix, with whitespace replaced (``manuals/Car Loan.md`` -> ``manuals/Car_Loan``)."""
    stem = rel_source.rsplit(".", 1)[0] if "." in rel_source.rsplit("/", 1)[-1] else rel_source
    return re.sub(r"\s+", "_", stem)
