"""MinerU output: ``<name>_content_list.json`` (plus the ``<name>.md`` MinerU writes beside it).

The content list is a flat JSON list in reading order; ``page_idx`` becomes ``Block.page``.

* ``text`` with ``text_level`` 1, 2, ... is a heading of that level; without it (or 0) body text.
* ``image``: ``img_path`` is relative to the JSON's folder; its caption list (``image_caption``,
  older ``img_caption``) follows the image as a caption block (linked by TreeBuilder), its
  footnotes (``image_footnote``/``img_footnote``) as text.
* ``table``: ``table_body`` (HTML) flattened to ``a | b`` rows, ``table_caption`` as the table's
  caption, ``table_footnote`` as text; a table without a body falls back to its image.
* ``equation``: a text block keeping the LaTeX as written.
* MinerU 2 extras: ``list`` (``list_items``) and ``code`` (``code_body``) are text;
  ``header``/``footer``/``page_number`` are page chrome and dropped; ``aside_text`` and
  ``page_footnote`` are text. Any other item with a ``text`` is text; one without is reported.

``<stem>.md`` beside ``<stem>_content_list.json`` is the same document in MinerU Markdown: it is
claimed here and not parsed again (the content list is richer: it has pages). A lone MinerU
Markdown file is plain Markdown. Corrupt JSON or a non-list is reported and the document skipped.
"""
from __future__ import annotations

import json
from pathlib import Path

from ham.document import Document
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.html_content import table_html_text
from ham.ingest.report import IngestReport, read_text, resolve_image

SUFFIX = "_content_list.json"
PAGE_CHROME = {"header", "footer", "page_number"}


def stem_of(path: Path) -> str:
    return path.name[: -len(SUFFIX)]


def claim(files: list[Path]) -> list[Path]:
    present = set(files)
    claimed: list[Path] = []
    for path in files:
        if path.name.endswith(SUFFIX) and len(path.name) > len(SUFFIX):
            claimed.append(path)
            markdown = path.with_name(stem_of(path) + ".md")
            if markdown in present:
                claimed.append(markdown)
    return claimed


def as_lines(value) -> list[str]:
    """Caption/footnote fields are lists of strings (sometimes a bare string)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    return [" ".join(str(v).split()) for v in value if str(v).strip()]


class _Items:
    """Turns content-list items into Blocks."""

    def __init__(self, path: Path, root: Path, report: IngestReport) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)
        self.blocks: list[Block] = []

    def emit(self, kind: str, page: int | None, **fields) -> None:
        self.blocks.append(Block(kind=kind, page=page, source=self.rel, **fields))

    def run(self, items: list) -> list[Block]:
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                self.report.add(self.path, f"item {index} is not an object ({type(item).__name__})", "item")
                continue
            self.item(index, item)
        return self.blocks

    def item(self, index: int, item: dict) -> None:
        kind = item.get("type")
        page = item.get("page_idx") if isinstance(item.get("page_idx"), int) else None
        if kind == "text":
            self.text(item, page)
        elif kind == "image":
            self.image(index, item, page)
        elif kind == "table":
            self.table(index, item, page)
        elif kind == "equation":
            self.emit("text", page, text=str(item.get("text") or "").strip())
        elif kind == "list":
            self.emit("text", page, text="\n".join(as_lines(item.get("list_items"))))
        elif kind == "code":
            for caption in as_lines(item.get("code_caption")):
                self.emit("text", page, text=caption)
            self.emit("text", page, text=str(item.get("code_body") or item.get("text") or "").rstrip())
        elif kind in PAGE_CHROME:
            return
        elif str(item.get("text") or "").strip():
            self.emit("text", page, text=str(item["text"]).strip())
        else:
            self.report.add(self.path, f"item {index}: unknown type {kind!r} without text", "item")

    def text(self, item: dict, page: int | None) -> None:
        text = str(item.get("text") or "").strip()
        level = item.get("text_level") or 0
        if isinstance(level, int) and level > 0:
            self.emit("heading", page, text=text, level=level)
        else:
            self.emit("text", page, text=text)

    def resolve(self, ref: str) -> str | None:
        return resolve_image(ref, self.path.parent, self.root, self.report, self.path)

    def image(self, index: int, item: dict, page: int | None) -> None:
        ref = str(item.get("img_path") or "").strip()
        captions = as_lines(item.get("image_caption", item.get("img_caption")))
        footnotes = as_lines(item.get("image_footnote", item.get("img_footnote")))
        if ref:
            self.emit("image", page, image=ref, image_path=self.resolve(ref))
        else:
            self.report.add(self.path, f"item {index}: image without img_path", "image")
        if captions:
            self.emit("caption" if ref else "text", page, text=" ".join(captions))
        for note in footnotes:
            self.emit("text", page, text=note)

    def table(self, index: int, item: dict, page: int | None) -> None:
        body = str(item.get("table_body") or "")
        text = table_html_text(body) if body.strip() else ""
        caption = " ".join(as_lines(item.get("table_caption")))
        ref = str(item.get("img_path") or "").strip()
        if text:
            self.emit("table", page, text=text, caption=caption)
        elif ref:
            self.emit("image", page, image=ref, image_path=self.resolve(ref))
            if caption:
                self.emit("caption", page, text=caption)
        else:
            self.report.add(self.path, f"item {index}: table without table_body or img_path", "table")
            if caption:
                self.emit("text", page, text=caption)
        for note in as_lines(item.get("table_footnote")):
            self.emit("text", page, text=note)


def load_items(path: Path, report: IngestReport) -> list | None:
    text = read_text(path, report)
    if text is None:
        return None
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        report.add(path, f"corrupt JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", "document")
        return None
    if not isinstance(items, list):
        report.add(path, f"MinerU content list is not a JSON list ({type(items).__name__})", "document")
        return None
    return items


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    items = load_items(path, report)
    if items is None:
        return None
    blocks = _Items(path, root, report).run(items)
    if not any(b.text.strip() or b.kind == "image" for b in blocks):
        report.add(path, "no content (empty content list)", "document")
        return None
    rel = report.rel(path)
    first_h1 = next((b.text for b in blocks if b.kind == "heading" and b.level == 1 and b.text.strip()), "")
    title = " ".join(first_h1.split()) or stem_of(path)
    return build_document(doc_id_for(rel[: -len(SUFFIX)] + ".json"), title, rel, "mineru", blocks)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    docs = []
    for path in files:
        if path.name.endswith(SUFFIX):
            doc = parse_file(path, root, report)
            if doc is not None:
                docs.append(doc)
    return docs
