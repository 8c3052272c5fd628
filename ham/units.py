"""Evidence units e_i = {x, m, p, a, l, r} (paper, eq. 2), one per leaf of a hierarchy tree.

x  content         the text (for a table: caption, rows as ``a | b`` lines, footnotes), or for an
                   image its caption or alt text
m  modality        "text" (text and table leaves: they share the text budget and index) or
                   "image"; ``kind`` says "text", "table" or "image", so a table can be counted
p  path            root-to-leaf path: node ids, kinds and headings
a  ancestors       document title, heading titles, and the nearest section's lead text
l  local context   neighbouring text before and after, nearby images in the same section
r  relation        the unit's local relation to surrounding evidence (see ``relation_of``)

Every unit keeps provenance: document id, source file (relative to the corpus root), order
within the document (tree order), ``page`` (0-based) when the source has pages, ``index`` (the
item's index in the source's own list, e.g. a MinerU content-list item) and ``label`` (the
source's name for a figure or table, "Figure 3", "Table 2"). A table keeps its image
(``image``/``image_path``) for multimodal methods, and a table with an image is also retrievable
by the image side: a second unit, ``<table id>#image`` (modality "image", kind "table", its
caption as content, ``extra["table_unit"]`` naming the text unit), in the image index under the
image budget k_v. Gold evidence mapped by layout, box or image file finds both, and an evidence
item counts as retrieved when either is.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Iterable

from ham.document import Document, Node
from ham.text import words

SECTION_LEAD_WORDS = 60
NEIGHBOUR_WORDS = 60


@dataclass
class EvidenceUnit:
    unit_id: str
    doc_id: str
    modality: str
    kind: str
    content: str
    path: list[dict]
    ancestors: dict
    local: dict
    relation: dict
    source: str
    order: int
    page: int | None = None
    image: str | None = None
    image_path: str | None = None
    caption: str = ""
    alt: str = ""
    index: int | None = None
    label: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def heading_path(self) -> list[str]:
        """Headings from the top section down to the unit's parent (the document title excluded)."""
        return [step["title"] for step in self.path[1:] if step["title"]]

    @property
    def full_path(self) -> list[str]:
        """Document title then headings, without repeating a top heading equal to the title."""
        heads = self.heading_path
        if heads and heads[0] == self.doc_title:
            heads = heads[1:]
        return [self.doc_title] + heads

    @property
    def doc_title(self) -> str:
        return self.ancestors.get("doc_title", "")

    def section_ids(self) -> tuple[str | None, str | None]:
        """(section, subsection) node ids: the subsection is the nearest enclosing section node, the
        section the one enclosing that (procedural steps roll up into their section). A unit directly
        inside a top-level section has a section only; one outside every section has neither."""
        sections = [step["id"] for step in self.path if step["kind"] in ("section", "subsection")]
        if len(sections) < 2:
            return (sections[0] if sections else None), None
        return sections[-2], sections[-1]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "EvidenceUnit":
        return cls(**data)


def _section_lead(path: list[Node]) -> str:
    """Lead text of the nearest section-like ancestor: its direct text children other than the
    unit itself, capped at SECTION_LEAD_WORDS."""
    leaf = path[-1]
    for node in reversed(path[:-1]):
        if node.kind in ("section", "subsection", "document"):
            texts = [c.text for c in node.children
                     if c.kind == "text" and c.caption_of is None and c is not leaf]
            if texts:
                return words(" ".join(texts), SECTION_LEAD_WORDS)
    return ""


def relation_of(node: Node, parent: Node, captions: dict[str, Node]) -> dict:
    """The local relation r_i of a leaf.

    Images, first rule that applies:
      ``figure_caption``      a caption paragraph is linked to it; target = the text before the figure
      ``illustrates_step``    it sits inside a procedural step; target = the step's first text
      ``supports_preceding``  the nearest text sibling before it; target = that text
      ``precedes_text``       otherwise the next text sibling; target = that text
    Text: ``caption_of`` (target = the image), ``step_text`` (inside a step), ``section_text``.
    ``target`` is the text unit the image belongs beside: generators place the image after it.
    """
    siblings = parent.children
    idx = next(i for i, c in enumerate(siblings) if c is node)
    before = [c for c in reversed(siblings[:idx]) if c.kind in ("text", "table") and c.caption_of is None]
    after = [c for c in siblings[idx + 1:] if c.kind in ("text", "table") and c.caption_of is None]
    if node.kind == "image":
        anchor = before[0] if before else (after[0] if after else None)
        target = anchor.id if anchor else None
        if node.id in captions:
            return {"type": "figure_caption", "target": target, "caption_unit": captions[node.id].id}
        if parent.kind == "step":
            first = next((c for c in siblings if c.kind == "text"), None)
            return {"type": "illustrates_step", "target": first.id if first else target, "step": parent.title}
        if before:
            return {"type": "supports_preceding", "target": target}
        return {"type": "precedes_text", "target": target}
    if node.caption_of:
        return {"type": "caption_of", "target": node.caption_of}
    if parent.kind == "step":
        return {"type": "step_text", "target": None, "step": parent.title}
    return {"type": "section_text", "target": None}


def _local_context(node: Node, parent: Node) -> dict:
    """The text around a leaf. An image's is the running text beside it, never a caption (its own
    is on it already: as its neighbour it would be said twice and the paragraph after it lost),
    as ``relation_of`` reads it."""
    siblings = parent.children
    idx = next(i for i, c in enumerate(siblings) if c is node)

    def near(c: Node) -> bool:
        return c.kind in ("text", "table") and (node.kind != "image" or c.caption_of is None)

    prev_text = next((c.text for c in reversed(siblings[:idx]) if near(c)), "")
    next_text = next((c.text for c in siblings[idx + 1:] if near(c)), "")
    images = [c.id for c in siblings if c.kind == "image" and c is not node]
    return {"prev_text": words(prev_text, NEIGHBOUR_WORDS, from_end=True),
            "next_text": words(next_text, NEIGHBOUR_WORDS), "images": images}


def build_units(doc: Document, caption_units: bool = True) -> list[EvidenceUnit]:
    """All evidence units of one document, in source order. With ``caption_units`` False a figure
    caption is not a text unit of its own (it is on its image unit; ``ham.granularity``)."""
    paths = doc.paths()
    captions = {n.caption_of: n for n in doc.root.walk() if n.caption_of}
    units = []
    for leaf in doc.leaves():
        if leaf.kind == "image" and leaf.image_path is None:
            continue  # unusable file: ingest already reported it; there is nothing to show or embed
        if leaf.caption_of is not None and not caption_units:
            continue
        path = paths[leaf.id]
        parent = path[-2]
        ancestors = {"doc_title": doc.title,
                     "headings": [n.title for n in path[1:-1] if n.title],
                     "section_context": _section_lead(path)}
        content = leaf.text if leaf.kind != "image" else (leaf.caption or leaf.alt)
        unit = EvidenceUnit(
            unit_id=leaf.id, doc_id=doc.id, modality="image" if leaf.kind == "image" else "text",
            kind=leaf.kind, content=content,
            path=[{"id": n.id, "kind": n.kind, "title": n.title} for n in path[:-1]],
            ancestors=ancestors, local=_local_context(leaf, parent),
            relation=relation_of(leaf, parent, captions), source=leaf.source or doc.source,
            order=leaf.order, page=leaf.page, image=leaf.image, image_path=leaf.image_path,
            caption=leaf.caption, alt=leaf.alt, index=leaf.index, label=leaf.label,
            extra=dict(leaf.meta))
        units.append(unit)
        if leaf.kind == "table" and leaf.image_path is not None:
            units.append(table_image_unit(unit))
    return units


TABLE_IMAGE = "#image"


def table_image_unit(table: EvidenceUnit) -> EvidenceUnit:
    """The image-side twin of a table that has an image (module docstring)."""
    caption = table.caption or table.label or (table.content.splitlines() or [""])[0]
    return replace(table, unit_id=table.unit_id + TABLE_IMAGE, modality="image", content=caption,
                   caption=caption, extra={**table.extra, "table_unit": table.unit_id})


def is_table_image(unit: EvidenceUnit) -> bool:
    return "table_unit" in unit.extra




def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
