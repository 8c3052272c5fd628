"""PDF files read directly with pdfplumber (MIT; pdfminer.six for text, pypdfium2 to render
regions), into the same Block stream as every other format.

Per page: words with their font size and name are grouped into lines and lines into paragraphs
(same size, small gaps). A line set clearly larger than the body text (``HEADING_RATIO``), or a
short bold line that does not end a sentence, is a heading with its font size: levels come from
``ham.ingest.levels`` (numbering first, then the ranked sizes). Tables found by pdfplumber
(ruled tables) become table blocks with their rows and a rendered image of the table region;
their words are not read twice. Embedded images become image blocks (the region rendered at
``DPI``, stored by ``ham.ingest.assets``); tiny ones (under ``MIN_IMAGE_PT`` points) are decoration.
A "Figure N" / "Table N" paragraph is a caption: linked to the image above or below it, or
attached to the nearest table. Then the document passes run: repeated page furniture (headers,
footers, "Page 3 of 20") and front matter are excluded and counted, the title is the largest
heading on the first page (the PDF's metadata title when there is none).

Reading order is top to bottom, left column before right when a page has two columns of text.
Scanned pages (no text layer), complex layouts and formulas are better served by MinerU or
Docling (OCR, layout models); their outputs are read by ``ham.ingest.mineru`` and
``ham.ingest.docling``. Problems are reported naming the file: a corrupt PDF, a password-
protected one, one with no text layer (pointing to OCR), and the rest of the corpus still ingests.
"""
from __future__ import annotations

import logging
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ham.document import Document
from ham.ingest.assets import store_image
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.report import IngestReport


def pdf_errors() -> tuple[type[BaseException], ...]:
    """What pdfminer, pdfplumber and pypdfium2 raise on damaged, truncated or odd files: their
    own exception bases, plus the value, key, type and struct errors pdfminer lets through
    when a stream is corrupt, and OSError. Programming errors elsewhere are not caught."""
    import struct

    import pypdfium2
    from pdfminer.psexceptions import PSException
    from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

    return (PSException, PdfminerException, MalformedPDFException, pypdfium2.PdfiumError, ValueError, KeyError,
            TypeError, IndexError, struct.error, OSError)

SUFFIXES = {".pdf"}
HEADING_RATIO = 1.15
DPI = 144
MIN_IMAGE_PT = 24
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_FIGURE = re.compile(r"^\s*(?:Figure|Fig\.?|Image|Chart|图)\s*\d", re.I)
_TABLE = re.compile(r"^\s*(?:Table|Tab\.?|表)\s*\d", re.I)


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if f.suffix.lower() in SUFFIXES]


@dataclass
class Line:
    text: str
    size: float
    bold: bool
    x0: float
    x1: float
    top: float
    bottom: float
    chars: int


@dataclass
class Item:
    kind: str                      # text, heading, image, table, caption
    top: float
    bottom: float
    x0: float
    x1: float
    text: str = ""
    size: float | None = None
    lines: list[Line] = field(default_factory=list)
    image_path: str | None = None
    caption: str = ""


def _lines(words: list[dict]) -> list[Line]:
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - w["top"]) <= max(2.0, 0.35 * w["size"]) and \
                w["x0"] - rows[-1][-1]["x1"] < 3 * w["size"]:
            rows[-1].append(w)
        else:
            rows.append([w])
    out = []
    for row in rows:
        row.sort(key=lambda w: w["x0"])
        text = " ".join(w["text"] for w in row)
        sizes = [w["size"] for w in row]
        out.append(Line(text, round(statistics.median(sizes), 1),
                        sum(bool(_BOLD.search(w.get("fontname", ""))) for w in row) > len(row) / 2,
                        min(w["x0"] for w in row), max(w["x1"] for w in row),
                        min(w["top"] for w in row), max(w["bottom"] for w in row), len(text)))
    return out


def _columns(lines: list[Line], width: float) -> list[Line]:
    """Left column before the right one when most lines sit wholly in one half of the page."""
    mid = width / 2
    left = [ln for ln in lines if ln.x1 <= mid + 5]
    right = [ln for ln in lines if ln.x0 >= mid - 5]
    if len(left) >= 5 and len(right) >= 5 and len(left) + len(right) >= 0.8 * len(lines):
        spanning = [ln for ln in lines if ln not in left and ln not in right]
        top_span = [ln for ln in spanning if ln.top < min(x.top for x in left + right)]
        rest = [ln for ln in spanning if ln not in top_span]
        return sorted(top_span, key=lambda ln: ln.top) + sorted(left, key=lambda ln: ln.top) + \
            sorted(right, key=lambda ln: ln.top) + sorted(rest, key=lambda ln: ln.top)
    return sorted(lines, key=lambda ln: (ln.top, ln.x0))


class _Reader:
    def __init__(self, path: Path, root: Path, report: IngestReport) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)

    def page_items(self, page, body: float) -> list[Item]:
        tables = []
        try:
            found = page.find_tables()
        except pdf_errors():   # pdfplumber's table finder on odd pages: the page's text still counts
            found = []
        for t in found:
            rows = [[" ".join((c or "").split()) for c in row] for row in t.extract()]
            text = "\n".join(" | ".join(r) for r in rows if any(r))
            if text:
                x0, top, x1, bottom = t.bbox
                tables.append(Item("table", top, bottom, x0, x1, text=text, image_path=self.render(page, t.bbox)))

        def in_table(w) -> bool:
            return any(t.x0 - 1 <= w["x0"] and w["x1"] <= t.x1 + 1 and t.top - 1 <= w["top"] and w["bottom"] <= t.bottom + 1
                       for t in tables)

        words = [w for w in page.extract_words(extra_attrs=["size", "fontname"], keep_blank_chars=False)
                 if not in_table(w)]
        lines = _columns(_lines(words), float(page.width))
        items: list[Item] = []
        for ln in lines:
            heading = (ln.size >= body * HEADING_RATIO or (ln.bold and ln.size >= body - 0.2)) and \
                len(ln.text.split()) <= 15 and not ln.text.rstrip().endswith((".", ",", ";")) and ln.chars > 1
            kind = "heading" if heading else "text"
            prev = items[-1] if items else None
            if prev is not None and prev.kind == kind and prev.lines and \
                    abs(prev.lines[-1].size - ln.size) < 0.6 and 0 <= ln.top - prev.bottom <= 0.9 * ln.size and \
                    (kind == "text" or len(prev.lines) < 3):
                prev.lines.append(ln)
                prev.bottom, prev.x1 = ln.bottom, max(prev.x1, ln.x1)
                continue
            items.append(Item(kind, ln.top, ln.bottom, ln.x0, ln.x1, size=ln.size, lines=[ln]))
        for item in items:
            item.text = " ".join(ln.text for ln in item.lines)
            if item.kind == "text" and (_FIGURE.match(item.text) or _TABLE.match(item.text)):
                item.kind = "caption"
        for n, im in enumerate(page.images):
            x0, top, x1, bottom = im["x0"], im["top"], im["x1"], im["bottom"]
            if max(x1 - x0, bottom - top) < MIN_IMAGE_PT:
                self.report.exclude(self.path, "tiny image (decoration)")
                continue
            bbox = (max(0, x0), max(0, top), min(float(page.width), x1), min(float(page.height), bottom))
            items.append(Item("image", top, bottom, x0, x1, image_path=self.render(page, bbox)))
        items += tables
        return self.attach_captions(self.reading_order(items, lines, float(page.width)))

    @staticmethod
    def reading_order(items: list[Item], lines: list[Line], width: float) -> list[Item]:
        """Top to bottom; on a two-column page the left column, then the right one (items that
        span both columns above them first, below them last)."""
        mid = width / 2
        two = sum(1 for ln in lines if ln.x1 <= mid + 5) >= 5 and sum(1 for ln in lines if ln.x0 >= mid - 5) >= 5
        if not two:
            return sorted(items, key=lambda it: (round(it.top), it.x0))
        cols = [ln.top for ln in lines if ln.x1 <= mid + 5 or ln.x0 >= mid - 5]
        start = min(cols) if cols else 0

        def key(it: Item):
            if it.x1 <= mid + 5:
                col = 1
            elif it.x0 >= mid - 5:
                col = 2
            else:
                col = 0 if it.top < start else 3
            return (col, round(it.top), it.x0)
        return sorted(items, key=key)

    @staticmethod
    def attach_captions(items: list[Item]) -> list[Item]:
        """A table caption moves onto the nearest table; figure captions stay beside their image
        (TreeBuilder links a caption to the image just before or after it)."""
        out = list(items)
        for cap in [i for i in items if i.kind == "caption" and _TABLE.match(i.text)]:
            tables = [t for t in out if t.kind == "table" and not t.caption]
            if tables:
                near = min(tables, key=lambda t: min(abs(t.top - cap.bottom), abs(cap.top - t.bottom)))
                if min(abs(near.top - cap.bottom), abs(cap.top - near.bottom)) < 60:
                    near.caption = cap.text
                    out.remove(cap)
        return out

    def render(self, page, bbox) -> str | None:
        try:
            image = page.crop(bbox).to_image(resolution=DPI).original
        except pdf_errors() as exc:   # a region that cannot be rendered: named, the page goes on
            self.report.add(self.path, f"page {page.page_number}: cannot render a region ({exc})", "image")
            return None
        return store_image(self.root, self.report, self.path, image=image)

    def blocks(self, pdf) -> list[Block] | None:
        sizes: Counter = Counter()
        pages_words = []
        for page in pdf.pages:
            chars = page.chars
            pages_words.append(len(chars))
            for ch in chars:
                sizes[round(ch["size"], 1)] += 1
        if not sizes:
            images = sum(len(p.images) for p in pdf.pages)
            self.report.add(self.path, f"no text layer ({len(pdf.pages)} page(s)"
                                       f"{', ' + str(images) + ' image(s)' if images else ''}): a scanned PDF? "
                                       "Run OCR with MinerU or Docling and ingest their output instead", "document")
            return None
        body = sizes.most_common(1)[0][0]
        blocks: list[Block] = []
        for page_no, page in enumerate(pdf.pages):
            width, height = float(page.width) or 1.0, float(page.height) or 1.0
            for item in self.page_items(page, body):
                bbox = (int(item.x0 * 1000 / width), int(item.top * 1000 / height),
                        int(item.x1 * 1000 / width), int(item.bottom * 1000 / height))
                common = dict(page=page_no, source=self.rel, bbox=bbox, index=len(blocks))
                if item.kind == "heading":
                    blocks.append(Block(kind="heading", text=item.text, level=0, font_size=item.size, **common))
                elif item.kind == "image":
                    if item.image_path:
                        blocks.append(Block(kind="image", image=item.image_path, image_path=item.image_path,
                                            **common))
                elif item.kind == "table":
                    blocks.append(Block(kind="table", text=item.text, caption=item.caption,
                                        image=item.image_path, image_path=item.image_path, **common))
                elif item.kind == "caption":
                    blocks.append(Block(kind="caption", text=item.text, **common))
                else:
                    blocks.append(Block(kind="text", text=item.text, **common))
        return blocks


def open_pdf(path: Path, report: IngestReport):
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    try:
        pdf = pdfplumber.open(path)
        _ = pdf.pages  # parses the page tree: corrupt files fail here
        return pdf
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        report.add(path, f"password-protected PDF ({exc.__class__.__name__}); decrypt it first "
                         "(e.g. qpdf --decrypt) and ingest the copy", "document")
    except pdf_errors() as exc:
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else (exc.__cause__ or exc)
        if isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError)):
            report.add(path, f"password-protected PDF ({inner.__class__.__name__}); decrypt it first "
                             "(e.g. qpdf --decrypt) and ingest the copy", "document")
            return None
        exc = inner if isinstance(inner, Exception) else exc
        name = exc.__class__.__name__
        if "Password" in name or "password" in str(exc).lower():
            report.add(path, f"password-protected PDF ({name}); decrypt it first and ingest the copy", "document")
        else:
            report.add(path, f"corrupt or unreadable PDF ({name}: {str(exc)[:200]})", "document")
    return None


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    pdf = open_pdf(path, report)
    if pdf is None:
        return None
    try:
        blocks = _Reader(path, root, report).blocks(pdf)
        meta = str((pdf.metadata or {}).get("Title") or "").strip()
    except pdf_errors() as exc:   # a damaged page stream: name the file, go on
        report.add(path, f"corrupt or unreadable PDF while reading its pages ({exc.__class__.__name__}: "
                         f"{str(exc)[:200]})", "document")
        return None
    finally:
        pdf.close()
    if blocks is None:
        return None
    if not any(b.text.strip() or b.kind == "image" for b in blocks):
        report.add(path, "no content (empty PDF)", "document")
        return None
    rel = report.rel(path)
    fallback = meta if meta and not meta.lower().startswith(("microsoft word", "untitled")) else path.stem
    return build_document(doc_id_for(rel), "", rel, "pdf", blocks, report=report, path=path,
                          fallback_title=fallback, authored=False)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    return [d for d in (parse_file(p, root, report) for p in files) if d is not None]

