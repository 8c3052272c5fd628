"""Docling's JSON export (a ``DoclingDocument``: ``schema_name: "DoclingDocument"``, versions
1.0 to 1.x), the other common parser interchange besides MinerU.

A ``.json`` file is claimed by its top-level keys (``ham.ingest.docling_parts.shape_of``: a
DoclingDocument, a docling-serve response holding one, or Docling 1's legacy JSON, reported as
unsupported), with the exports the Docling CLI writes beside it under the same stem (``.md``,
``.html``, ``.txt``, ``.doctags``, ...): the same document again, not read, counted as "Docling export
beside its JSON". The reading order is ``body``'s children, depth first through ``groups``
(references are ``{"$ref": "#/texts/3"}``, in 1.0 ``{"cref": ...}``), and, as Docling's own
``iterate_items``, each item is kept or left out by its own ``content_layer`` while its children are
still read: only ``body`` is read; ``furniture``, ``notes`` (comments, speaker notes), ``invisible``
(hidden sheets) and ``background`` are counted by layer name. A group has no content of its own: its
layer decides nothing. By item ``label``:

* ``title`` is the document title; ``section_header`` a heading of its ``level`` (Docling's PDF
  pipeline gives most headers level 1: levels are recovered by ``ham.ingest.levels`` when flat);
* ``text``, ``paragraph``, ``reference``, ``footnote``, ``code``, ``formula`` are text (a formula
  without ``text`` is its ``orig``; one without either is counted); the ``list_item``s of one group
  are one text block ("- item"; an enumerated item by its ``marker``, "3.", else its place "N.");
* ``key_value_region`` / ``form`` items (``key_value_items``, ``form_items``) are "key: value" lines
  from their ``graph`` of cells and links, text blocks of up to about 1,500 characters;
* an ``inline`` group is one text: Docling splits a paragraph, heading or list item into pieces
  wherever formatting, a link or inline code starts or ends; a heading or list item whose own
  ``text`` is empty takes its words from the inline groups it opens with;
* ``picture`` / ``chart`` items are images (``image.uri``: a file beside the JSON, or a ``data:``
  URI stored by ``ham.ingest.assets``) with their ``captions``; a chart's data
  (``meta.tabular_chart`` or a ``tabular_chart_data`` annotation) is a table block after it with
  the picture's caption, as for MinerU's charts; ``table`` items are table blocks
  from ``data.grid`` (else ``data.table_cells``) with their captions and footnotes; the grid repeats a
  cell spanning columns in each of them, read once by where it starts; a rich cell (empty ``text``,
  a ``ref`` to a group) is read through its ref (a nested table "a / b" per row, rows joined by
  "; "), and a picture in a cell is marked ``[image: caption]`` there and follows the table;
* a caption is read with its picture or table only where that is read; else where it stands;
* excluded on purpose and counted: ``page_header`` / ``page_footer`` items and the layers above,
  ``document_index`` (a table of contents). Text inside a picture (its children) is part of the
  picture, not body text.

A document with nothing but its title keeps the title as its one leaf.

``prov[0].page_no`` (1-based) gives the page and its bbox the position on it.
"""
from __future__ import annotations

import re
from pathlib import Path

from ham.document import Document
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.docling_parts import (chart_data, chunks, companions_of, image_of, join_pieces, key_value_lines,
                                      layer_excluded, list_marker, rows_text, shape_of, shape_of_data,
                                      table_rows, words)
from ham.ingest.report import IngestReport, read_json

_TEXT_LABELS = {"text", "paragraph", "reference", "footnote", "code", "formula", "checkbox_selected",
                "checkbox_unselected", "handwritten_text", "key_value_region", "form"}
_FURNITURE = {"page_header": "page header", "page_footer": "page footer"}
COMPANION = "Docling export beside its JSON (the same document; the JSON is read)"


def claim(files: list[Path]) -> list[Path]:
    present = set(files)
    claimed: list[Path] = []
    for f in files:
        shape = shape_of(f)
        if shape:
            claimed.append(f)
            if shape != "v1":
                claimed.extend(c for c in companions_of(f, present) if c not in claimed)
    return claimed


def _ref(obj) -> str | None:
    if isinstance(obj, dict):
        return obj.get("$ref") or obj.get("cref")
    return None


def _layer(item: dict) -> str:
    return str(item.get("content_layer") or "body")


SPREADSHEETS = {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.ms-excel",
                "application/vnd.ms-excel.sheet.macroEnabled.12", "application/vnd.oasis.opendocument.spreadsheet",
                "text/csv"}


class _Reader:
    def __init__(self, path: Path, root: Path, report: IngestReport, data: dict) -> None:
        self.path, self.root, self.report, self.data = path, root, report, data
        self.rel = report.rel(path)
        self.blocks: list[Block] = []
        self.title = ""
        self.title_item: dict = {}
        self.used_captions: set[str] = set()      # read with their picture or table
        self.loose_captions: list[tuple[Block, str]] = []   # read where they stand in body
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
        # a spreadsheet's "page" is a sheet and its bbox the cells' range, no position on a printed
        # page: the passes that read positions (furniture bands, tables continued across pages) get none
        sheet = str((self.data.get("origin") or {}).get("mimetype") or "") in SPREADSHEETS
        bbox = prov[0].get("bbox") if prov and isinstance(prov[0], dict) and not sheet else None
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
        """The texts of an item's captions (or footnotes), marked read with it: call only where the
        item is emitted."""
        out = []
        for ref in item.get(key) or []:
            target = self.resolve(_ref(ref))
            if isinstance(target, dict) and str(target.get("text") or "").strip():
                self.used_captions.add(_ref(ref))
                out.append(words(target["text"]))
        return out

    def walk(self, node: dict, only: set | None = None) -> None:
        for child in node.get("children") or []:
            ref = _ref(child)
            if ref in self.seen or (only is not None and ref not in only):
                continue
            self.seen.add(ref)
            item = self.resolve(ref)
            if isinstance(item, dict):
                self.item(ref, item)

    def left_out(self, ref: str, item: dict) -> None:
        """An item outside the body layer (or a page header/footer): counted, its children still read
        (each by its own layer, as Docling's iterate_items; of a picture or table only its captions:
        its other children are its own content)."""
        label, layer = str(item.get("label") or ""), _layer(item)
        if layer == "furniture" or label in _FURNITURE:
            self.blocks.append(Block(kind="text", text=str(item.get("text") or label), furniture=_FURNITURE.get(
                label, "furniture (Docling)"), **self.where(item)))
        else:
            self.report.exclude(self.path, layer_excluded(layer))
        visual = ref.split("/")[1] in ("pictures", "tables") or label in ("picture", "chart", "table")
        self.walk(item, {_ref(c) for c in item.get("captions") or []} if visual else None)

    def item(self, ref: str, item: dict) -> None:
        label = str(item.get("label") or "")
        kind = ref.split("/")[1]
        if kind == "groups":   # no content of its own: its layer decides nothing, its items do
            if label in ("list", "ordered_list"):
                self.list_group(item)
            elif label == "inline":
                text = self.inline_text(item)
                if text:
                    self.blocks.append(Block(kind="text", text=text, **self.where(self.first_item(item))))
            else:
                self.walk(item)
            return
        if _layer(item) != "body" or label in _FURNITURE:
            self.left_out(ref, item)
            return
        if kind in ("pictures",) or label in ("picture", "chart"):
            self.picture(item)
            return
        if kind == "tables" or label == "table":
            self.table(item)
            return
        if kind in ("key_value_items", "form_items") or label in ("key_value_region", "form"):
            self.key_values(item)
            return
        text = self.own_text(item)
        if label == "title":
            if not self.title:
                self.title, self.title_item = text, item
            else:
                self.blocks.append(Block(kind="heading", text=text, level=1, **self.where(item)))
        elif label == "section_header":
            level = item.get("level") if isinstance(item.get("level"), int) else 1
            self.blocks.append(Block(kind="heading", text=text, level=max(1, level), **self.where(item)))
        elif label == "document_index":
            self.report.exclude(self.path, "table of contents")
        elif label == "caption":
            if text:
                block = Block(kind="caption", text=text, **self.where(item))
                self.blocks.append(block)
                self.loose_captions.append((block, ref))
        elif label == "list_item":
            self.blocks.append(Block(kind="text", text=f"{list_marker(item)} {text}", **self.where(item)))
        elif label == "formula" and not text:
            self.report.exclude(self.path, "formula without text (Docling)")
        elif text and (label in _TEXT_LABELS or text):
            self.blocks.append(Block(kind="text", text=text, **self.where(item)))
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
        its formatting, a link or inline code starts or ends) as the one text they are, read once;
        a piece outside the body layer is counted, not read."""
        pieces = []
        for child in group.get("children") or []:
            ref = _ref(child)
            self.seen.add(ref)
            piece = self.resolve(ref)
            if not isinstance(piece, dict):
                continue
            if piece.get("label") == "inline" or (not piece.get("text") and piece.get("children")):
                pieces.append(self.inline_text(piece))   # a nested group, a field item (key, value)
            elif _layer(piece) != "body":
                self.report.exclude(self.path, layer_excluded(_layer(piece)))
            else:
                pieces.append(self.own_text(piece))
        return join_pieces(" ".join(p for p in pieces if p))

    def own_text(self, item: dict) -> str:
        """The item's text, or the text of the inline groups that hold it (``text_groups``); a
        formula's ``orig`` where its ``text`` is empty (Docling leaves it so where it could not
        read the formula as LaTeX)."""
        own = words(item.get("text"))
        if not own and item.get("label") == "formula":
            own = words(item.get("orig"))
        parts = [own]
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
            if item.get("label") != "list_item" or _layer(item) != "body" \
                    or len(item.get("children") or []) > len(self.text_groups(item)):
                if lines:
                    self.blocks.append(Block(kind="text", text="\n".join(lines), **self.where(first)))
                    lines, first = [], None
                self.item(ref, item)
                continue
            first = first or item
            lines.append(f"{list_marker(item, n)} {self.own_text(item)}")
        if lines:
            self.blocks.append(Block(kind="text", text="\n".join(lines), **self.where(first)))

    def picture(self, item: dict) -> None:
        ref, resolved = image_of(item, self.path, self.root, self.report)
        captions = self.captions(item)
        where = self.where(item)
        data = chart_data(item)   # a chart's data: a table unit with the picture's caption
        chart = rows_text(table_rows(data, lambda cell, _ref: words(cell.get("text")))) if data else ""
        if ref is None:
            self.report.add(self.path, f"picture {item.get('self_ref')} has no image (export with images: "
                                       "referenced or embedded)" + (" (its chart data is read)" if chart else ""),
                            "image")
            for c in captions if not chart else []:
                self.blocks.append(Block(kind="text", text=c, **where))
        else:
            self.blocks.append(Block(kind="image", image=ref, image_path=resolved, **where))
            if captions:
                self.blocks.append(Block(kind="caption", text=" ".join(captions), **where))
        for note in self.captions(item, "footnotes"):
            self.blocks.append(Block(kind="text", text=note, **where))
        if chart:
            self.blocks.append(Block(kind="table", text=chart, caption=" ".join(captions), **where))

    def table(self, item: dict) -> None:
        pictures: list[dict] = []
        text = rows_text(table_rows(item.get("data") or {}, lambda cell, ref: self.cell_text(cell, ref, pictures)))
        ref, resolved = image_of(item, self.path, self.root, self.report)
        self.blocks.append(Block(kind="table", text=text, caption=" ".join(self.captions(item)),
                                 footnote="\n".join(self.captions(item, "footnotes")), image=ref,
                                 image_path=resolved, **self.where(item)))
        for picture in pictures:   # pictures in its cells follow the table
            self.picture(picture)

    def cell_text(self, cell: dict, ref, pictures: list[dict]) -> str:
        """A cell's text; a rich cell's (empty ``text``, a ``ref``) from what its ref holds. The
        pictures a rich cell holds go to ``pictures``, to follow the table."""
        own = words(cell.get("text"))
        content = self.resolve(_ref(ref)) if ref else None
        if not isinstance(content, dict):
            return own
        parts: list[str] = []
        self.rich(content, parts, pictures)
        return own or " ".join(p for p in parts if p)

    def rich(self, node: dict, parts: list[str], pictures: list[dict]) -> None:
        if node.get("self_ref") in self.seen:   # read already (or a cycle of refs)
            return
        self.seen.add(node.get("self_ref"))
        label = node.get("label")
        if label in ("picture", "chart") or str(node.get("self_ref", "")).startswith("#/pictures/"):
            if _layer(node) == "body" and node not in pictures:
                pictures.append(node)
                parts.append(f"[image: {' '.join(self.caption_texts(node))}]".replace(": ]", "]"))
            return
        if label == "table" or str(node.get("self_ref", "")).startswith("#/tables/"):
            parts.append("; ".join(" / ".join(c for c in row if c) for row in table_rows(
                node.get("data") or {}, lambda cell, ref: self.cell_text(cell, ref, pictures)) if any(row)))
            return
        if label == "inline":
            parts.append(self.inline_text(node))
            return
        if node.get("text") and _layer(node) == "body":
            parts.append(words(node.get("text")))
        for child in node.get("children") or []:
            target = self.resolve(_ref(child))
            if isinstance(target, dict):
                self.rich(target, parts, pictures)

    def caption_texts(self, item: dict) -> list[str]:
        texts = (self.resolve(_ref(r)) for r in item.get("captions") or [])
        return [words(t.get("text")) for t in texts if isinstance(t, dict) and words(t.get("text"))]

    def key_values(self, item: dict) -> None:
        graph = item.get("graph") if isinstance(item.get("graph"), dict) else {}
        for text in chunks(key_value_lines(graph)):
            self.blocks.append(Block(kind="text", text=text, **self.where(item)))
        self.walk(item)


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    data = read_json(path, report)
    if data is None:
        return None
    shape = shape_of_data(data)
    if shape == "v1":
        report.add(path, "legacy Docling 1 JSON ('main-text'): not supported; convert again with Docling 2 "
                         "(`docling --to json`, a DoclingDocument)", "document")
        return None
    if shape == "serve":
        data = data["document"]["json_content"]
        report.measure(path, "docling-serve response (its document.json_content read)", 1)
    if not isinstance(data, dict) or data.get("schema_name") != "DoclingDocument" or not isinstance(data.get("body"), dict):
        report.add(path, "not a DoclingDocument export (expected schema_name 'DoclingDocument' and a body)",
                   "document")
        return None
    version = str(data.get("version") or "")
    if not version.startswith("1."):
        report.add(path, f"DoclingDocument version {version!r} is not supported (ham reads 1.x)", "document")
        return None
    reader = _Reader(path, root, report, data)
    reader.walk(data["body"])
    # a caption in body is read with its picture or table where that was read, else where it stands
    dropped = {id(b) for b, ref in reader.loose_captions if ref in reader.used_captions}
    blocks = [b for b in reader.blocks if id(b) not in dropped]
    title = reader.title
    if not any(b.text.strip() or b.kind == "image" for b in blocks if not b.furniture):
        if not title:
            report.add(path, "no content (empty DoclingDocument)", "document")
            return None
        # a title alone (a slide deck of one title slide): the title is the document's one leaf
        blocks.append(Block(kind="text", text=title, **reader.where(reader.title_item)))
    rel = report.rel(path)
    return build_document(doc_id_for(rel), title, rel, "docling", blocks, report=report, path=path,
                          title_rule="title: Docling's title item" if title else "",
                          fallback_title=str(data.get("name") or path.stem), authored=False)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    # ``claim`` took the Docling JSON files and their companions (never a .json)
    for companion in (p for p in files if p.suffix.lower() != ".json"):
        report.exclude(companion, COMPANION)
    jsons = [p for p in files if p.suffix.lower() == ".json"]
    return [d for d in (parse_file(p, root, report) for p in jsons) if d is not None]
