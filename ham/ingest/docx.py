"""Word ``.docx`` files through python-docx (MIT), in body order: paragraphs and tables, also
those wrapped in content controls (``w:sdt``) or custom XML. A paragraph's text is its runs
wherever they sit: hyperlinks, inline content controls, tracked insertions (deletions left
out), simple fields.

* Heading levels come from the paragraph styles: the first ``Title`` is the document title (a
  second one, a subtitle set in that style, is text), ``Heading N``
  (or a style whose outline level is set, 0-8; 9 is body text) a heading of level N; the core
  properties' title is used when there is no ``Title`` paragraph. All headings at one level with nested numbering are
  re-levelled by ``ham.ingest.levels`` like any authored source.
* ``Caption`` paragraphs are captions (linked to the figure or table beside them); list
  paragraphs (numbering properties, their own or their style's, numbered or bulleted by the
  numbering definition's format: ``ham.ingest.docx_lists``) are collected into one text block per
  list (a paragraph of another numbering, ``numId``, starts another list), and a numbered list
  is a procedure when ``ham.ingest.evidence.is_procedure`` says so.
* Tables become table blocks of ``a | b`` rows, with a ``Table N`` caption before or after them;
  a cell merged across columns is read once (python-docx gives it once per column it spans), and
  neighbouring cells of one text stay two cells. A table nested in a cell is part of the cell's
  text ("a / b" per row, rows joined by "; "). A picture in a cell that is an icon stays in the
  cell as ``[alt]``; a real one (a screenshot) is marked ``[image: alt]`` there and follows the
  table with its row's text as its caption, as in HTML.
* Embedded pictures are stored by ``ham.ingest.assets``; a picture inside a sentence that is an
  icon (``ham.ingest.evidence.is_inline_icon``) stays in the text as ``[alt]``; one in the title's
  or a heading's line follows it, unless an icon (left out, counted as "icon in a heading or term").

Text boxes (DrawingML or VML) are read after the paragraph they are anchored in (in a table cell,
as part of the cell), and pictures drawn in VML as older documents draw them. What the reader
sees and cannot read is reported ("not read: …", ``ham.ingest.docx_xml.unread``): text in a part
of the body it does not know, charts, SmartArt, linked pictures, equations, an ``altChunk``,
footnotes and endnotes.

A file that is not a Word document (not a zip, or a zip of something else) is reported naming
the file; the rest of the corpus still ingests.
"""
from __future__ import annotations

import io
import re
import zipfile
from collections import Counter
from pathlib import Path

from ham.document import Document
from ham.ingest.assets import store_image
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.docx_lists import ListKinds
from ham.ingest.docx_xml import MC_FALLBACK as _MC_FALLBACK, W as _W
from ham.ingest.docx_xml import content, picture_of, run_text, text_boxes, unread, within
from ham.ingest.evidence import icon_text, is_inline_icon, is_procedure
from ham.ingest.report import IngestReport
from ham.text import split_sentences

SUFFIXES = {".docx"}
_HEADING = re.compile(r"^(?:heading|überschrift|titre|título|标题)\s*(\d)$", re.I)

_MISSED = {"text run": "text in a part of the document the reader does not know",
           "picture without its image part": "its image is missing from the file",
           "linked picture": "linked to a file outside the document, not embedded",
           "chart": "a chart's data is not read", "SmartArt diagram": "a diagram's text is not read",
           "equation": "Office Math is not read", "embedded document (altChunk)": "another document merged in",
           "footnote": "footnotes are not read", "endnote": "endnotes are not read"}


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if f.suffix.lower() in SUFFIXES]


def _level(paragraph, lists: ListKinds) -> tuple[str, int]:
    """("title" | "heading" | "caption" | "list-number" | "list-bullet" | "text", level)."""
    style = paragraph.style
    name = (style.name if style is not None else "") or ""
    if name.lower() == "title":
        return "title", 0
    m = _HEADING.match(name.strip())
    if m:
        return "heading", int(m.group(1))
    s = style
    while s is not None:
        ppr = s.element.find(f"{_W}pPr")
        lvl = ppr.find(f"{_W}outlineLvl") if ppr is not None else None
        if lvl is not None:
            val = lvl.get(f"{_W}val") or ""
            value = int(val) if val.isdigit() else 9
            if value >= 9:   # outline level 9 is Word's "Body Text" (some templates set it on Normal)
                break
            return "heading", value + 1
        s = s.base_style
    if name.lower().startswith("caption"):
        return "caption", 0
    return lists.kind(paragraph) or "text", 0


class _Reader:
    def __init__(self, path: Path, root: Path, report: IngestReport) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)
        self.blocks: list[Block] = []
        self.title = ""
        self.pending_list: list[str] = []
        self.list_kind = ""
        self.list_id: str | None = None   # the numbering (numId) of the pending list
        self.read: set = set()   # the w:t elements read
        self.missed: Counter = Counter()   # what the reader saw and could not read, by kind

    def emit(self, kind: str, **fields) -> None:
        if kind != "list":
            self.flush_list()
        self.blocks.append(Block(kind=kind, source=self.rel, index=len(self.blocks), **fields))

    def flush_list(self) -> None:
        if not self.pending_list:
            return
        items, kind = self.pending_list, self.list_kind
        self.pending_list, self.list_kind = [], ""
        if kind == "list-number":
            last = next((b for b in reversed(self.blocks) if b.kind in ("text", "heading")), None)
            lead = split_sentences(last.text)[-1] if last is not None and last.kind == "text" and last.text else ""
            steps, why = is_procedure(items, lead)
            if steps:
                for n, item in enumerate(items, 1):
                    self.blocks.append(Block(kind="step", text=item, number=n, rule=f"numbered list: {why}",
                                             source=self.rel, index=len(self.blocks)))
                self.blocks.append(Block(kind="end_steps", source=self.rel))
                return
            text = "\n".join(f"{n}. {item}" for n, item in enumerate(items, 1))
        else:
            text = "\n".join(f"- {item}" for item in items)
        self.blocks.append(Block(kind="text", text=text, source=self.rel, index=len(self.blocks)))

    def pictures(self, element) -> list[tuple[bytes, str, str]]:
        """The pictures in ``element`` (DrawingML, or VML as older documents draw them), not those
        in its text boxes (read with the box) nor the fallback copies Word writes beside them;
        a chart, a SmartArt diagram or a linked picture is counted in ``self.missed``."""
        out = []
        for found in element.iter(f"{_W}drawing", "{urn:schemas-microsoft-com:vml}imagedata"):
            if within(found, element, {f"{_W}txbxContent", _MC_FALLBACK}):
                continue
            rid, alt, what = picture_of(found)
            part = self.part.related_parts.get(rid) if rid else None
            if part is not None:
                ext = Path(getattr(part, "partname", "x.png")).suffix.lstrip(".") or "png"
                out.append((part.blob, ext, alt))
            elif what:
                rel = self.part.rels.get(rid) if rid else None
                if what == "picture":
                    what = "linked picture" if rel is not None and rel.is_external else "picture without its image part"
                self.missed[what] += 1
        return out

    def text_boxes(self, p) -> None:
        """A text box anchored in a paragraph: its paragraphs and tables after the paragraph's."""
        for box in text_boxes(p):
            for child in content(box):
                self.block(child)

    def paragraph(self, p) -> None:
        kind, level = _level(p, self.lists)
        text = " ".join(run_text(p._p, self.read).split())
        pics = self.pictures(p._p)
        heading_line = False   # the title's or a heading's: its pictures follow it, its icons are left out
        if kind == "title":
            kind = "text"   # a second Title paragraph (a subtitle set in the Title style) is text
            if text and not self.title:
                self.title, text, heading_line = text, "", True
        elif kind == "heading" and text:
            self.emit("heading", text=text, level=level)
            text, heading_line = "", True
        inline = []
        standalone = []
        for data, ext, alt in pics:
            rel = store_image(self.root, self.report, self.path, data=data, ext=ext)
            if rel is None:
                continue
            if heading_line and is_inline_icon(rel, self.root / rel, in_text=True):
                self.report.exclude(self.path, "icon in a heading or term")
            elif text and is_inline_icon(rel, self.root / rel, in_text=True):
                self.report.exclude(self.path, "inline icon (kept as text)")
                inline.append(icon_text(alt, rel))
            else:
                standalone.append((rel, alt))
        if inline:
            text = (text + " " + " ".join(inline)).strip()
        for rel, alt in standalone:
            self.emit("image", image=rel, image_path=rel, alt=alt)
        if not text:
            return
        if kind == "caption":
            tables = [b for b in self.blocks[-1:] if b.kind == "table" and not b.caption]
            if tables and re.match(r"^\s*(Table|Tab\.?|表)\s*\d", text, re.I):
                tables[0].caption = text
            else:
                self.emit("caption", text=text)
        elif kind.startswith("list"):
            list_id = self.lists.numbering_of(p)[0]   # another numbering is another list, numbered from 1
            if self.list_kind and (self.list_kind != kind or self.list_id != list_id):
                self.flush_list()
            self.list_kind, self.list_id = kind, list_id
            self.pending_list.append(text)
        else:
            self.emit("text", text=text)

    def table(self, table) -> None:
        rows, plain, real, seen = [], [], [], set()
        for row in table.rows:
            cells, previous = [], None
            for cell in row.cells:
                if cell._tc is previous:  # a cell merged across columns comes once per column it spans
                    continue
                previous = cell._tc
                text = self.cell_text(cell._tc)
                marks = []
                if cell._tc not in seen:   # a cell merged down the rows holds its pictures once
                    seen.add(cell._tc)
                    marks = self.cell_pictures(cell._tc, text, real, len(rows))
                cells.append((text, marks))
            row_plain = " | ".join(text for text, _ in cells if text)
            if row_plain or any(marks for _, marks in cells):
                rows.append(" | ".join(" ".join([text, *marks]).strip() for text, marks in cells))
                plain.append(row_plain)
        caption = ""
        prev = self.blocks[-1] if self.blocks else None
        if prev is not None and prev.kind in ("caption", "text") and re.match(r"^\s*(Table|Tab\.?|表)\s*\d", prev.text, re.I):
            caption = prev.text
            self.blocks.pop()
        if any(plain):
            self.emit("table", text="\n".join(rows), caption=caption)
        elif caption:
            self.emit("caption", text=caption)
        for rel, alt, row in real:   # a screenshot in a cell: its row's text is its caption
            self.emit("image", image=rel, image_path=rel, alt=alt, caption=plain[row])

    def cell_text(self, tc) -> str:
        """A cell's paragraphs and nested tables in order (a nested table's cells joined by " / ",
        its rows by "; ")."""
        parts = []
        for child in content(tc):
            if child.tag == f"{_W}p":
                parts.append(run_text(child, self.read))
                parts.extend(self.cell_text(box) for box in text_boxes(child))
            else:
                from docx.table import Table

                nested = []
                for row in Table(child, None).rows:
                    cells, previous = [], None
                    for cell in row.cells:
                        if cell._tc is not previous:
                            previous = cell._tc
                            cells.append(self.cell_text(cell._tc))
                    if any(cells):
                        nested.append(" / ".join(cells))
                parts.append("; ".join(nested))
        return " ".join(" ".join(parts).split())

    def cell_pictures(self, tc, text: str, real: list, row: int) -> list[str]:
        """The pictures in a cell: an icon stays in the cell's text as ``[alt]``; a real picture is
        marked ``[image: alt]`` there and added to ``real`` to follow the table."""
        marks = []
        for data, ext, alt in self.pictures(tc):
            rel = store_image(self.root, self.report, self.path, data=data, ext=ext)
            if rel is None:
                continue
            if is_inline_icon(rel, self.root / rel, in_text=bool(text), in_cell=True):
                self.report.exclude(self.path, "inline icon (kept as text)")
                marks.append(icon_text(alt, rel))
            else:
                real.append((rel, alt, row))
                marks.append(f"[image: {alt}]" if alt else "[image]")
        return [m for m in marks if m]

    def block(self, element) -> None:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        if element.tag == f"{_W}p":
            self.paragraph(Paragraph(element, self.document))
            self.text_boxes(element)
        else:
            self.flush_list()
            self.table(Table(element, self.document))

    def run(self, document) -> list[Block]:
        self.document, self.part = document, document.part
        self.lists = ListKinds(document)
        body = document.element.body
        for child in content(body):
            self.block(child)
        self.flush_list()
        self.missed.update(unread(body, self.read))
        for what, n in sorted(self.missed.items()):
            self.report.add(self.path, f"not read: {n} × {what} ({_MISSED[what]})", "content")
        return self.blocks


def open_docx(path: Path, report: IngestReport):
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml import etree

    try:
        data = path.read_bytes()
    except OSError as exc:
        report.add(path, f"cannot read file ({exc})", "document")
        return None
    if not zipfile.is_zipfile(io.BytesIO(data)):
        report.add(path, "not a Word document (.docx files are zip packages; this is not a zip)", "document")
        return None
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    if "word/document.xml" not in names:
        shown = ", ".join(names[:5]) + (" …" if len(names) > 5 else "")
        report.add(path, f"not a Word document: a zip without word/document.xml (holds {shown or 'nothing'})",
                   "document")
        return None
    try:
        return docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile, etree.LxmlError) as exc:
        report.add(path, f"unreadable Word document ({exc.__class__.__name__}: {str(exc)[:200]})", "document")
    return None


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    document = open_docx(path, report)
    if document is None:
        return None
    reader = _Reader(path, root, report)
    blocks = reader.run(document)
    if not any(b.text.strip() or b.kind == "image" for b in blocks):
        report.add(path, "no content (empty document)", "document")
        return None
    title = reader.title or " ".join((document.core_properties.title or "").split())
    rel = report.rel(path)
    return build_document(doc_id_for(rel), title, rel, "docx", blocks, report=report, path=path,
                          title_rule="title: the Title paragraph or the document properties" if title else "",
                          fallback_title=path.stem)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    return [d for d in (parse_file(p, root, report) for p in files) if d is not None]
