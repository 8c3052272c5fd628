"""MinerU output, every version: ``<stem>_content_list.json`` (magic-pdf 0.x to MinerU 3.x) or
``<stem>_content_list_v2.json`` (MinerU >= 2.7), with ``<stem>_middle.json`` when present; the
cloud API's ``<uuid>_content_list.json`` with ``layout.json`` (its middle json) and a bare
``content_list.json`` are the same format.

The rest of a MinerU output folder is claimed here so it is not read twice or as something else:
``<stem>.md`` / ``full.md`` (the same content without pages), ``_model.json``, ``_middle.json`` /
``layout.json``, the ``_origin`` copy and the debug renderings (``ham.ingest.mineru_files`` has the
names and the pairing rules). A MinerU folder with a Markdown file or ``_middle.json`` but neither
content list is an error naming the files ham expected; it is never read as plain Markdown.

Content list (v1): a flat JSON list in reading order; ``page_idx`` (0-based) is the page and the
item's position in the list its index. Every ``type``:

* ``text`` with ``text_level`` 1, 2, ... is a heading (levels recovered by ``ham.ingest.levels``
  when they are flat: the pipeline backend writes 1 for every heading), else body text;
  ``equation`` keeps its LaTeX; ``list`` (``list_items``), ``code`` (``code_caption``,
  ``code_body``) and ``page_footnote`` are text.
* ``image`` (``img_path``; captions in ``image_caption``, magic-pdf 0.x ``img_caption``; footnotes
  ``image_footnote``/``img_footnote``) and ``chart`` (``img_path``, ``chart_caption``,
  ``chart_footnote``) are images with their captions; a chart's ``content`` (MinerU 3.x: its data
  as a Markdown or HTML table) is a table unit after it, an image's (a seal's text) a text unit.
* Text, titles, list items and captions lose the Markdown escapes MinerU >= 3.1 writes
  (``ham.ingest.mineru_text``); code bodies, tables and equations are read as written.
* ``table``: its caption (``table_caption``), its HTML ``table_body`` as ``a | b`` rows and its
  footnotes form the unit's text; ``img_path`` stays its image. A caption line that is a numbered
  heading rather than a "Table N" label (MinerU puts some headings there) becomes a heading before
  the table. An empty table item is the stub MinerU leaves after merging a table across pages.
* Excluded on purpose and counted: ``header``, ``footer``, ``page_number`` (MinerU 3.x),
  ``aside_text`` (margin notes), ``discarded`` (MinerU 1.x-2.x: headers, footers, page numbers).
  Any other type with text is text; one without text is reported by index.

Content list v2: a list per page of ``{type, content}`` items (``title`` with ``title_content`` and
``level``, ``paragraph``, ``equation_interline``, ``image`` / ``chart`` / ``table`` with
``image_source.path``, ``html`` and captions, ``code``, ``algorithm``, ``list`` / ``index`` with
``list_items``, and the ``page_header`` / ``page_footer`` / ``page_number`` / ``page_aside_text``
furniture), with spans (``{type, content}``) as text; the same rules apply.

``middle.json`` gives each title block's line height in PDF points: the heading's font size, a
typographic level signal (``ham.ingest.mineru_middle``). Corrupt JSON, a content list that is not a list, or items without a
``type`` (not a MinerU content list) are reported naming the file.
"""
from __future__ import annotations

from pathlib import Path

from ham.document import Document
from ham.ingest.builder import LABEL, Block, build_document, doc_id_for
from ham.ingest.html_text import table_html_text
from ham.ingest.levels import numbering_of
from ham.ingest.mineru_files import (V1, V2, FOLDER_COMPANIONS, Outputs, find,
                                      is_v2, stem_of, unpaired_markdown)
from ham.ingest.mineru_middle import middle_sizes, title_key
from ham.ingest.mineru_text import unescape, visual_content
from ham.ingest.report import IngestReport, read_json, resolve_image

FURNITURE = {"header": "page header", "footer": "page footer", "page_number": "page number",
             "aside_text": "aside text", "discarded": "discarded (by MinerU)",
             "page_header": "page header", "page_footer": "page footer", "page_aside_text": "aside text"}


def claim(files: list[Path]) -> list[Path]:
    claimed = find(files).claimed()
    taken = set(claimed)
    # a MinerU folder without a content list: middle.json / model.json beside a .md (reported by parse)
    for path in files:
        for suffix in ("_middle.json", "_model.json"):
            if path.name.endswith(suffix) and len(path.name) > len(suffix) and path not in taken:
                claimed.append(path)
                taken.add(path)
                md = path.with_name(path.name[: -len(suffix)] + ".md")
                if md in files and md not in taken:
                    claimed.append(md)
                    taken.add(md)
    return claimed


def as_lines(value) -> list[str]:
    """Caption/footnote fields and v1 list items: a list of strings (sometimes a bare string; MinerU's
    Markdown escapes removed), or in v2 a list of spans."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    out = []
    for v in value:
        text = spans_text(v) if isinstance(v, (dict, list)) else unescape(str(v))
        if text.strip():
            out.append(" ".join(text.split()))
    return out


def spans_text(spans) -> str:
    """Text of v2 spans (``{type, content}``; hyperlinks too), or a plain string."""
    if spans is None:
        return ""
    if isinstance(spans, str):
        return spans
    if isinstance(spans, dict):
        if "item_content" in spans:
            return spans_text(spans["item_content"])
        content = spans.get("content", "")
        if spans.get("type") == "equation_inline" and content:
            return f"${content}$"
        return spans_text(content) if isinstance(content, (list, dict)) else str(content or "")
    return "".join(spans_text(s) for s in spans)


def split_table_caption(lines: list[str]) -> tuple[list[str], list[str]]:
    """(headings, caption lines): a caption line that is a numbered heading and not a table label."""
    heads, captions = [], []
    for line in lines:
        if not LABEL.match(line) and numbering_of(line) is not None and len(line.split()) <= 12 \
                and not line.rstrip().endswith((".", "。")) and not captions:
            heads.append(line)
        else:
            captions.append(line)
    return heads, captions


class _Items:
    """Turns content-list items (v1 or v2) into Blocks."""

    def __init__(self, path: Path, root: Path, report: IngestReport, sizes: dict) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)
        self.blocks: list[Block] = []
        self.sizes = sizes
        self.unknown: dict[str, int] = {}

    def emit(self, kind: str, page: int | None, index: int | None, bbox=None, **fields) -> None:
        self.blocks.append(Block(kind=kind, page=page, index=index, source=self.rel,
                                 bbox=tuple(bbox) if isinstance(bbox, list) and len(bbox) == 4 else None, **fields))

    def resolve(self, ref: str) -> str | None:
        return resolve_image(ref, self.path.parent, self.root, self.report, self.path)

    @staticmethod
    def image_ref(ref: str) -> str:
        ref = str(ref or "").strip()
        return "" if not ref or ref.endswith("/") else ref   # v2 writes "images/" for no image

    # -- v1
    def run_v1(self, items: list) -> list[Block]:
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                self.report.add(self.path, f"item {index} is not an object ({type(item).__name__})", "item")
                continue
            page = item.get("page_idx") if isinstance(item.get("page_idx"), int) else None
            self.item_v1(index, item, page, item.get("bbox"))
        return self.blocks

    def item_v1(self, index: int, item: dict, page: int | None, bbox) -> None:
        kind = item.get("type")
        text = str(item.get("text") or "").strip()
        if kind != "equation":
            text = unescape(text)   # MinerU >= 3.1 escapes Markdown in text (ham.ingest.mineru_text)
        if kind == "text":
            level = item.get("text_level") or 0
            if isinstance(level, int) and level > 0:
                self.heading(text, level, page, index, bbox)
            else:
                self.emit("text", page, index, bbox, text=text)
        elif kind in ("image", "chart"):
            captions = as_lines(item.get(f"{kind}_caption", item.get("img_caption")))
            notes = as_lines(item.get(f"{kind}_footnote", item.get("img_footnote")))
            self.visual(index, item.get("img_path"), captions, notes, page, bbox, kind, item.get("content"))
        elif kind == "table":
            self.table(index, str(item.get("table_body") or ""), as_lines(item.get("table_caption")),
                       as_lines(item.get("table_footnote")), item.get("img_path"), page, bbox)
        elif kind == "equation":
            self.emit("text", page, index, bbox, text=text)
        elif kind == "list":
            self.emit("text", page, index, bbox, text="\n".join(as_lines(item.get("list_items"))) or text)
        elif kind == "code":
            for caption in as_lines(item.get("code_caption")):
                self.emit("text", page, index, bbox, text=caption)
            self.emit("text", page, index, bbox, text=str(item.get("code_body") or text).rstrip())
            for note in as_lines(item.get("code_footnote")):
                self.emit("text", page, index, bbox, text=note)
        elif kind in FURNITURE:
            self.emit("text", page, index, bbox, text=text or kind, furniture=FURNITURE[kind])
        elif text:
            self.emit("text", page, index, bbox, text=text)
        else:
            self.report.add(self.path, f"item {index}: unknown type {kind!r} without text", "item")

    # -- v2
    def run_v2(self, pages: list) -> list[Block]:
        index = 0
        for page, items in enumerate(pages):
            if not isinstance(items, list):
                self.report.add(self.path, f"page {page} is not a list of items ({type(items).__name__})", "page")
                continue
            for item in items:
                if not isinstance(item, dict) or not isinstance(item.get("content", {}), dict):
                    self.report.add(self.path, f"item {index} (page {page + 1}) is not a {{type, content}} object",
                                    "item")
                else:
                    self.item_v2(index, item, page, item.get("bbox"))
                index += 1
        return self.blocks

    def item_v2(self, index: int, item: dict, page: int, bbox) -> None:
        kind = str(item.get("type") or "")
        c = item.get("content") or {}
        if kind == "title":
            level = c.get("level") if isinstance(c.get("level"), int) else 1
            self.heading(spans_text(c.get("title_content")).strip(), level, page, index, bbox)
        elif kind == "paragraph":
            self.emit("text", page, index, bbox, text=spans_text(c.get("paragraph_content")).strip())
        elif kind == "equation_interline":
            self.emit("text", page, index, bbox, text=str(c.get("math_content") or "").strip())
        elif kind in ("image", "chart"):
            self.visual(index, (c.get("image_source") or {}).get("path"), as_lines(c.get(f"{kind}_caption")),
                        as_lines(c.get(f"{kind}_footnote")), page, bbox, kind, c.get("content"))
        elif kind == "table":
            self.table(index, str(c.get("html") or ""), as_lines(c.get("table_caption")),
                       as_lines(c.get("table_footnote")), (c.get("image_source") or {}).get("path"), page, bbox)
        elif kind in ("code", "algorithm"):
            for caption in as_lines(c.get(f"{kind}_caption")):
                self.emit("text", page, index, bbox, text=caption)
            self.emit("text", page, index, bbox, text=spans_text(c.get(f"{kind}_content")).rstrip())
            for note in as_lines(c.get(f"{kind}_footnote")):
                self.emit("text", page, index, bbox, text=note)
        elif kind in ("list", "index"):
            items = [" ".join(spans_text(i).split()) for i in c.get("list_items") or []]
            self.emit("text", page, index, bbox, text="\n".join(i for i in items if i))
        elif kind == "page_footnote":
            self.emit("text", page, index, bbox, text=spans_text(c.get("page_footnote_content")).strip())
        elif kind in FURNITURE:
            self.emit("text", page, index, bbox, text=spans_text(c.get(f"{kind}_content")) or kind,
                      furniture=FURNITURE[kind])
        else:
            text = " ".join(spans_text(v) for v in c.values() if isinstance(v, (list, str))).strip()
            if text:
                self.emit("text", page, index, bbox, text=text)
            else:
                self.report.add(self.path, f"item {index} (page {page + 1}): unknown type {kind!r} without text",
                                "item")

    # -- shared
    def heading(self, text: str, level: int, page, index, bbox) -> None:
        size = self.sizes.get((page, title_key(text)))
        self.emit("heading", page, index, bbox, text=text, level=level, font_size=size)

    def visual(self, index, ref, captions, notes, page, bbox, kind, content=None) -> None:
        ref = self.image_ref(ref)
        data_kind, data = visual_content(content)   # a chart's data, a seal's text (MinerU 3.x)
        if ref:
            self.emit("image", page, index, bbox, image=ref, image_path=self.resolve(ref))
            if captions:
                self.emit("caption", page, index, bbox, text=" ".join(captions))
        else:
            self.report.add(self.path, f"item {index}: {kind} without an image path"
                            + (f" (its {'data' if data_kind == 'table' else 'text'} is read)" if data else ""), "image")
            if data_kind != "table":
                for caption in captions:
                    self.emit("text", page, index, bbox, text=caption)
        if data_kind == "table":
            self.emit("table", page, index, bbox, text=data, caption=" ".join(captions))
        elif data:
            self.emit("text", page, index, bbox, text=data)
        for note in notes:
            self.emit("text", page, index, bbox, text=note)

    def table(self, index, body, caption_lines, notes, ref, page, bbox) -> None:
        heads, captions = split_table_caption(caption_lines)
        for head in heads:
            self.heading(head, 0, page, index, bbox)
        text = table_html_text(body) if body.strip() else ""
        ref = self.image_ref(ref)
        self.emit("table", page, index, bbox, text=text, caption=" ".join(captions), footnote="\n".join(notes),
                  image=ref or None, image_path=self.resolve(ref) if ref else None)


def _is_v1(items) -> str | None:
    """Why ``items`` is not a v1 content list, or None."""
    if not isinstance(items, list):
        return f"a MinerU content list is a JSON list of items, found a JSON {type(items).__name__}"
    typed = [i for i in items if isinstance(i, dict)]
    if typed and not any("type" in i for i in typed):
        return ("items have no 'type' field: not a MinerU content list (expected items like "
                "{\"type\": \"text\", \"text\": ..., \"page_idx\": 0})")
    if items and all(isinstance(i, list) for i in items):
        return "a list of pages: this is the v2 layout; name the file <stem>_content_list_v2.json"
    return None


def _is_v2(pages) -> str | None:
    if not isinstance(pages, list) or not all(isinstance(p, list) for p in pages):
        return ("a MinerU content_list_v2 is a JSON list with one list of {type, content} items per page, found "
                + (f"a JSON {type(pages).__name__}" if not isinstance(pages, list) else "items that are not pages"))
    return None


def parse_file(path: Path, root: Path, report: IngestReport, outputs: Outputs) -> Document | None:
    stem = stem_of(path)
    data = read_json(path, report)
    if data is None:
        return None
    v2 = is_v2(path)
    problem = _is_v2(data) if v2 else _is_v1(data)
    if problem:
        report.add(path, problem, "document")
        return None
    middle = outputs.middle_of(path)
    sizes = middle_sizes(middle, report) if middle is not None else {}
    items = _Items(path, root, report, sizes)
    blocks = items.run_v2(data) if v2 else items.run_v1(data)
    if not any(b.text.strip() or b.kind == "image" for b in blocks if not b.furniture):
        report.add(path, "no content (empty content list)", "document")
        return None
    rel = report.rel(path)
    # a stemless content_list.json is named by its folder
    folder = rel[: -len(path.name)]
    base = folder + stem if stem else (folder.rstrip("/") or path.stem)
    return build_document(doc_id_for(base + ".json"), "", rel, "mineru", blocks, report=report, path=path,
                          fallback_title=stem or path.parent.name or path.stem, authored=False)


def _report_pairing(outputs: Outputs, report: IngestReport) -> None:
    for md, path in outputs.guessed.items():
        report.add(md, f"taken for the Markdown of {path.name} beside it (a content list without a document "
                       f"name) and not read again; name the list {md.stem}{V1} to pair them by name", "file")
    for path in outputs.lists:
        mds = unpaired_markdown(path, outputs)
        if not mds:
            continue
        report.add(path, f"a content list without a document name beside {len(mds)} Markdown files "
                         f"({', '.join(p.name for p in mds)}): ham cannot tell which is its own and reads them "
                         f"as Markdown too; name the list <stem>{V1} after its .md", "file")
    for path, why in outputs.unpaired:
        report.add(path, why, "file")


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    outputs = find(files)
    docs = []
    v1_stems = {(p.parent, stem_of(p)) for p in outputs.lists if not is_v2(p)}
    for path in outputs.lists:
        if is_v2(path) and (path.parent, stem_of(path)) in v1_stems:
            continue  # MinerU 3 writes both lists; the v1 list is read
        doc = parse_file(path, root, report, outputs)
        report.exclude(path, "MinerU file named by its folder (full.md, layout.json; not read again)",
                       sum(p.name in FOLDER_COMPANIONS for p in outputs.companions[path]))
        if doc is not None:
            docs.append(doc)
    _report_pairing(outputs, report)
    listed = {(p.parent, stem_of(p)) for p in outputs.lists}
    for path in files:
        for suffix in ("_middle.json", "_model.json"):
            if path.name.endswith(suffix) and (path.parent, path.name[: -len(suffix)]) not in listed:
                stem = path.name[: -len(suffix)]
                report.add(path, f"MinerU output without a content list: expected {stem}{V1} (MinerU 0.6-3.x) or "
                                 f"{stem}{V2} (MinerU >= 2.7) beside it; ham reads those, not {stem}.md "
                                 "(the Markdown has no pages, captions or tables as items)", "document")
                listed.add((path.parent, stem))
    return docs
