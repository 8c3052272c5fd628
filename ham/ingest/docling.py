"""Docling's JSON export (a ``DoclingDocument``: ``schema_name: "DoclingDocument"``, versions
1.0 to 1.x), the other common parser interchange besides MinerU.

A ``.json`` file is claimed when its head names that schema. The reading order is ``body``'s
children, depth first through ``groups`` (references are ``{"$ref": "#/texts/3"}``, in 1.0
``{"cref": ...}``). By item ``label``:

* ``title`` is the document title; ``section_header`` a heading of its ``level`` (Docling's PDF
  pipeline gives most headers level 1: levels are recovered by ``ham.ingest.levels`` when flat);
* ``text``, ``paragraph``, ``reference``, ``footnote``, ``code``, ``formula`` are text; the
  ``list_item``s of one group are one text block ("- item", or "N. item" when ``enumerated``);
* an ``inline`` group is one text: Docling splits a paragraph, heading or list item into pieces
  wherever formatting, a link or inline code starts or ends; a heading or list item whose own
  ``text`` is empty takes its words from the inline groups it opens with;
* ``picture`` / ``chart`` items are images (``image.uri``: a file beside the JSON, or a ``data:``
  URI stored by ``ham.ingest.assets``) with their ``captions``; ``table`` items are table blocks
  from ``data.grid`` (else ``data.table_cells``) with their captions and footnotes; the grid repeats a
  cell spanning columns in each of them, read once by where it starts;
* excluded on purpose and counted: ``page_header`` / ``page_footer`` items and anything in the
  ``furniture`` content layer, ``document_index`` (a table of contents). Text inside a picture
  (its children) is part of the picture, not body text.

``prov[0].page_no`` (1-based) gives the page and its bbox the position on it.
"""
from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

from ham.document import Document
from ham.ingest.assets import store_image
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.report import IngestReport, read_json, resolve_image

_TEXT_LABELS = {"text", "paragraph", "reference", "footnote", "code", "formula", "checkbox_selected",
                "checkbox_unselected", "handwritten_text", "key_value_region", "form"}
_FURNITURE = {"page_header": "page header", "page_footer": "page footer"}


def is_docling(path: Path) -> bool:
    if path.suffix.lower() != ".json":
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b'"DoclingDocument"' in head and b"schema_name" in head


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if is_docling(f)]


def _ref(obj) -> str | None:
    if isinstance(obj, dict):
        return obj.get("$ref") or obj.get("cref")
    return None


class _Reader:
    def __init__(self, path: Path, root: Path, report: IngestReport, data: dict) -> None:
        self.path, self.root, self.report, self.data = path, root, report, data
        self.rel = report.rel(path)
        self.blocks: list[Block] = []
        self.title = ""
        self.used_captions: set[str] = set()
        self.seen: set[str] = set()

    def resolve(self, ref: str):
        m = re.match(r"^#/(\w+)/(\d+)$", ref or "")
        if not m:
            return None
        items = self.data.get(m.group(1))
        i = int(m.group(2))
        return items[i] if isinstance(items, list) and i < len(items) else None

    def where(self, item: dict) -> dict:
        prov = item.get("prov") or []
        page = prov[0].get("page_no") if prov and isinstance(prov[0], dict) else None
        out: dict = {"page": page - 1 if isinstance(page, int) else None, "source": self.rel,
                     "index": len(self.blocks)}
        bbox = prov[0].get("bbox") if prov and isinstance(prov[0], dict) else None
        size = (self.data.get("pages") or {}).get(str(page), {}).get("size") if page else None
        if isinstance(bbox, dict) and isinstance(size, dict) and size.get("width") and size.get("height"):
            w, h = size["width"], size["height"]
            top, bottom = bbox.get("t", 0), bbox.get("b", 0)
            if bbox.get("coord_origin") == "BOTTOMLEFT":
                top, bottom = h - top, h - bottom
            out["bbox"] = (int(bbox.get("l", 0) * 1000 / w), int(top * 1000 / h),
                           int(bbox.get("r", 0) * 1000 / w), int(bottom * 1000 / h))
        return out

    def captions(self, item: dict, key: str = "captions") -> list[str]:
        out = []
        for ref in item.get(key) or []:
            target = self.resolve(_ref(ref))
            if isinstance(target, dict) and str(target.get("text") or "").strip():
                self.used_captions.add(_ref(ref))
                out.append(" ".join(str(target["text"]).split()))
        return out

    def walk(self, node: dict) -> None:
        for child in node.get("children") or []:
            ref = _ref(child)
            if ref in self.seen:
                continue
            self.seen.add(ref)
            item = self.resolve(ref)
            if isinstance(item, dict):
                self.item(ref, item)

    def item(self, ref: str, item: dict) -> None:
        label = str(item.get("label") or "")
        layer = item.get("content_layer", "body")
        kind = ref.split("/")[1]
        if layer == "furniture" or label in _FURNITURE:
            self.blocks.append(Block(kind="text", text=str(item.get("text") or label), furniture=_FURNITURE.get(
                label, "furniture (Docling)"), **self.where(item)))
            return
        if kind == "groups":
            if label in ("list", "ordered_list"):
                self.list_group(item)
            elif label == "inline":
                text = self.inline_text(item)
                if text:
                    self.blocks.append(Block(kind="text", text=text, **self.where(self.first_item(item))))
            else:
                self.walk(item)
            return
        if kind in ("pictures",) or label in ("picture", "chart"):
            self.picture(item)
            return
        if kind == "tables" or label == "table":
            self.table(item)
            return
        text = self.own_text(item)
        if label == "title":
            if not self.title:
                self.title = text
            else:
                self.blocks.append(Block(kind="heading", text=text, level=1, **self.where(item)))
        elif label == "section_header":
            level = item.get("level") if isinstance(item.get("level"), int) else 1
            self.blocks.append(Block(kind="heading", text=text, level=max(1, level), **self.where(item)))
        elif label == "document_index":
            self.report.exclude(self.path, "table of contents")
        elif label == "caption":
            if ref not in self.used_captions and text:
                self.blocks.append(Block(kind="caption", text=text, **self.where(item)))
        elif label == "list_item":
            self.blocks.append(Block(kind="text", text=f"- {text}", **self.where(item)))
        elif text and (label in _TEXT_LABELS or text):
            self.blocks.append(Block(kind="text", text=text, **self.where(item)))
        if kind != "pictures":
            self.walk(item)

    def text_groups(self, item: dict) -> list[str]:
        """The inline groups that hold an item's own text: a formatted heading or list item has an
        empty ``text`` and its words in the inline groups it opens with. (An item with text of its
        own may have inline children too: the paragraphs Docling's HTML reader nests under a heading.)"""
        if str(item.get("text") or "").strip():
            return []
        refs = []
        for child in item.get("children") or []:
            group = self.resolve(_ref(child))
            if not (isinstance(group, dict) and group.get("label") == "inline"):
                break
            refs.append(_ref(child))
        return refs

    def inline_text(self, group: dict) -> str:
        """An ``inline`` group's pieces (Docling splits a paragraph, heading or list item wherever
        its formatting, a link or inline code starts or ends) as the one text they are, read once."""
        pieces = []
        for child in group.get("children") or []:
            ref = _ref(child)
            self.seen.add(ref)
            piece = self.resolve(ref)
            if isinstance(piece, dict):
                pieces.append(self.inline_text(piece) if piece.get("label") == "inline" else self.own_text(piece))
        return _join_pieces(" ".join(p for p in pieces if p))

    def own_text(self, item: dict) -> str:
        """The item's text, or the text of the inline groups that hold it (``text_groups``)."""
        parts = [" ".join(str(item.get("text") or "").split())]
        for ref in self.text_groups(item):
            if ref not in self.seen:
                self.seen.add(ref)
                parts.append(self.inline_text(self.resolve(ref)))
        return " ".join(p for p in parts if p)

    def first_item(self, group: dict) -> dict:
        """The group's first item with a position (groups have none of their own)."""
        for child in group.get("children") or []:
            item = self.resolve(_ref(child))
            if isinstance(item, dict) and item.get("prov"):
                return item
        return group

    def list_group(self, group: dict) -> None:
        lines, first = [], None
        for n, child in enumerate(group.get("children") or [], 1):
            ref = _ref(child)
            self.seen.add(ref)
            item = self.resolve(ref)
            if not isinstance(item, dict):
                continue
            if item.get("label") != "list_item" or len(item.get("children") or []) > len(self.text_groups(item)):
                if lines:
                    self.blocks.append(Block(kind="text", text="\n".join(lines), **self.where(first)))
                    lines, first = [], None
                self.item(ref, item)
                continue
            first = first or item
            marker = f"{n}." if item.get("enumerated") else "-"
            lines.append(f"{marker} {self.own_text(item)}")
        if lines:
            self.blocks.append(Block(kind="text", text="\n".join(lines), **self.where(first)))

    def image_file(self, item: dict) -> tuple[str | None, str | None]:
        image = item.get("image") or {}
        uri = str(image.get("uri") or "") if isinstance(image, dict) else ""
        if not uri:
            return None, None
        if uri.startswith("data:"):
            header, _, payload = uri.partition(",")
            ext = (re.search(r"image/(\w+)", header) or re.search(r"(png)", "png")).group(1)
            try:
                data = base64.b64decode(payload, validate=False)
            except (binascii.Error, ValueError):
                self.report.add(self.path, "picture with an undecodable data: URI", "image")
                return None, None
            rel = store_image(self.root, self.report, self.path, data=data, ext="jpg" if ext == "jpeg" else ext)
            return rel, rel
        return uri, resolve_image(uri, self.path.parent, self.root, self.report, self.path)

    def picture(self, item: dict) -> None:
        ref, resolved = self.image_file(item)
        captions = self.captions(item)
        where = self.where(item)
        if ref is None:
            self.report.add(self.path, f"picture {item.get('self_ref')} has no image (export with images: "
                                       "referenced or embedded)", "image")
            for c in captions:
                self.blocks.append(Block(kind="text", text=c, **where))
            return
        self.blocks.append(Block(kind="image", image=ref, image_path=resolved, **where))
        if captions:
            self.blocks.append(Block(kind="caption", text=" ".join(captions), **where))
        for note in self.captions(item, "footnotes"):
            self.blocks.append(Block(kind="text", text=note, **where))

    def table(self, item: dict) -> None:
        data = item.get("data") or {}
        rows: list[list[str]] = []
        grid = data.get("grid")
        if isinstance(grid, list) and grid:
            for row in grid:
                # a cell spanning columns is repeated in each of them: read once, by where it starts
                # (two cells of the same text are two cells)
                cells, starts = [], []
                for cell in row:
                    cell = cell if isinstance(cell, dict) else {}
                    start = (cell.get("start_row_offset_idx"), cell.get("start_col_offset_idx"))
                    if cells and None not in start and start == starts[-1]:
                        continue
                    cells.append(" ".join(str(cell.get("text") or "").split()))
                    starts.append(start)
                rows.append(cells)
        else:
            n_rows, n_cols = int(data.get("num_rows") or 0), int(data.get("num_cols") or 0)
            table = [["" for _ in range(n_cols)] for _ in range(n_rows)]
            for cell in data.get("table_cells") or []:
                r, c = cell.get("start_row_offset_idx", 0), cell.get("start_col_offset_idx", 0)
                if r < n_rows and c < n_cols:
                    table[r][c] = " ".join(str(cell.get("text") or "").split())
            rows = table
        text = "\n".join(" | ".join(r) for r in rows if any(r))
        ref, resolved = self.image_file(item)
        self.blocks.append(Block(kind="table", text=text, caption=" ".join(self.captions(item)),
                                 footnote="\n".join(self.captions(item, "footnotes")), image=ref,
                                 image_path=resolved, **self.where(item)))


def _join_pieces(text: str) -> str:
    """No space where a piece boundary fell before closing or after opening punctuation."""
    return re.sub(r"([(\[]) ", r"\1", re.sub(r" ([.,;:!?)\]])", r"\1", text))


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    data = read_json(path, report)
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("schema_name") != "DoclingDocument" or not isinstance(data.get("body"), dict):
        report.add(path, "not a DoclingDocument export (expected schema_name 'DoclingDocument' and a body)",
                   "document")
        return None
    version = str(data.get("version") or "")
    if not version.startswith("1."):
        report.add(path, f"DoclingDocument version {version!r} is not supported (ham reads 1.x)", "document")
        return None
    reader = _Reader(path, root, report, data)
    # captions referenced by pictures and tables are read with them, wherever they sit in body
    for kind in ("pictures", "tables"):
        for item in data.get(kind) or []:
            for cap in (item.get("captions") or []) + (item.get("footnotes") or []):
                reader.used_captions.add(_ref(cap))
    reader.walk(data["body"])
    blocks = reader.blocks
    if not any(b.text.strip() or b.kind == "image" for b in blocks if not b.furniture):
        report.add(path, "no content (empty DoclingDocument)", "document")
        return None
    rel = report.rel(path)
    title = reader.title
    return build_document(doc_id_for(rel), title, rel, "docling", blocks, report=report, path=path,
                          title_rule="title: Docling's title item" if title else "",
                          fallback_title=str(data.get("name") or path.stem), authored=False)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    return [d for d in (parse_file(p, root, report) for p in files) if d is not None]
