"""The hierarchy tree T_D = (V_D, E_D) of one structured document (paper, section 3.1).

Internal nodes are the document, its sections, subsections and procedural steps; leaves are the
retrievable text, image and table units. Trees are stored as JSON (never pickle): ``Document.to_dict``
and ``Document.from_dict`` round-trip exactly.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Iterator

INTERNAL_KINDS = ("document", "section", "subsection", "step")
LEAF_KINDS = ("text", "image", "table")


@dataclass(eq=False)
class Node:
    """One node of a hierarchy tree.

    ``title`` is the heading of an internal node. Leaves carry their content: ``text`` for text
    and tables (a table's caption and flattened body), and for images ``image`` (the reference
    exactly as the source writes it), ``image_path`` (resolved, relative to the corpus root, or
    None when the file could not be used), ``alt`` and ``caption``. A text leaf that is the
    caption of an image names that image's node id in ``caption_of`` (a figure-caption link). ``meta``
    keeps what the source says about the node beyond that (its own id for it, a bounding box, OCR or
    VLM text...); a leaf's ``meta`` becomes its unit's ``extra``.
    """

    id: str
    kind: str
    title: str = ""
    text: str = ""
    image: str | None = None
    image_path: str | None = None
    alt: str = ""
    caption: str = ""
    source: str = ""
    order: int = 0
    page: int | None = None
    caption_of: str | None = None
    meta: dict = field(default_factory=dict)
    index: int | None = None
    label: str = ""
    rule: str = ""
    children: list["Node"] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in INTERNAL_KINDS + LEAF_KINDS:
            raise ValueError(f"unknown node kind {self.kind!r} for node {self.id!r}")

    @property
    def is_leaf(self) -> bool:
        return self.kind in LEAF_KINDS

    def walk(self) -> Iterator["Node"]:
        """Pre-order traversal: source order for leaves."""
        yield self
        for child in self.children:
            yield from child.walk()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["children"] = [c.to_dict() for c in self.children]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Node":
        data = dict(data)
        children = [cls.from_dict(c) for c in data.pop("children", [])]
        return cls(**data, children=children)


@dataclass
class Document:
    """A parsed document: its id, title, the source file (relative to the corpus root) and tree."""

    id: str
    title: str
    source: str
    format: str
    root: Node

    def leaves(self) -> list[Node]:
        return [n for n in self.root.walk() if n.is_leaf]

    def paths(self) -> dict[str, list[Node]]:
        """Map each node id to its root-to-node path (inclusive)."""
        out: dict[str, list[Node]] = {}

        def visit(node: Node, trail: list[Node]) -> None:
            here = trail + [node]
            out[node.id] = here
            for child in node.children:
                visit(child, here)

        visit(self.root, [])
        return out

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "source": self.source,
                "format": self.format, "root": self.root.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> "Document":
        return cls(id=data["id"], title=data["title"], source=data["source"],
                   format=data["format"], root=Node.from_dict(data["root"]))


def render_tree(doc: Document, width: int = 80, why: bool = False) -> str:
    """A human-readable outline: headings indented by depth, each image under its heading path.
    With ``why``, each heading also says which rule placed it, and each leaf its page."""
    lines = [f"{doc.title}  [{doc.format}: {doc.source}]" + (f"  ({doc.root.rule})" if why and doc.root.rule else "")]

    def short(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= width else text[: width - 1] + "…"

    def where(node: Node) -> str:
        if not why or node.page is None:
            return ""
        return f"  (page {node.page + 1})"

    def visit(node: Node, depth: int) -> None:
        pad = "  " * depth
        if node.kind == "image":
            label = node.caption or node.alt
            status = "" if node.image_path else "  (file unusable)"
            lines.append(f"{pad}[image] {node.image}{status}" + (f" — {short(label)}" if label else "") + where(node))
        elif node.kind == "table":
            lines.append(f"{pad}[table] {short(node.text)}" + where(node))
        elif node.kind == "text":
            lines.append(f"{pad}· {short(node.text)}" + where(node))
        else:
            reason = f"  [{node.rule}]" if why and node.rule else ""
            lines.append(f"{pad}{node.kind}: {short(node.title)}{reason}")
        for child in node.children:
            visit(child, depth + 1)

    for child in doc.root.children:
        visit(child, 1)
    return "\n".join(lines)
