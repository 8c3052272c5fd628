"""PDF files read directly with pdfplumber (MIT; pdfminer.six for text, pypdfium2 for the outline
and to render regions), into the same Block stream as every other format.

Per page: words with their font size and name become lines (``ham.ingest.pdf_text``: spacing
chosen by measurement), page furniture is marked by position and recurrence
(``ham.ingest.pdf_furniture``), and lines become paragraphs (same size, small gaps).

Headings. When the PDF has an outline (``MIN_BOOKMARKS`` bookmarks or more) it is the hierarchy
(``ham.ingest.pdf_outline``): each bookmark is aligned to its heading line and takes the
outline's level (rule "outline"); typography only adds headings below the bookmarked ones (levels
deeper than any bookmark, so they never take a bookmarked heading as a child; one level per style,
``pdf_outline.nest_below_outline``), from the first bookmark's page on (found there or not), and not lines ending in "." or ":"
(bold run-in labels). Without an outline
(or with ``use_outline=False``), a line set clearly larger than the body text
(``pdf_text.HEADING_RATIO``), or a short bold line, is a heading with its font size: levels come from
``ham.ingest.levels`` (numbering first, then the ranked sizes and, where sizes tie, fonts). Either way, never a heading: a
line with no letters (a bare number), a caption ("Figure 3"), monospaced text (program output
printed large), a line of a table-of-contents page, furniture. A chapter opener ("CHAPTER" /
"ONE" / "INSTALLATION", "Chapter 3" above its title, a big numeral) is one heading: the label
joins the title ("Chapter 1 Installation"; with an outline, the bookmark's line alone).

The ingest report counts, per PDF: furniture by kind, table-of-contents lines, the bookmarks and
how many were found on their page, and the tokens, glued tokens and punctuation marks set off by a
space ("radio ,") of its text (``ham.ingest.pdf_glued``). Tables found by pdfplumber
(ruled tables) become table blocks with their rows and a rendered image of the table region;
their words are not read twice. A "table" of one column is a ruled box around a code listing or a
note (dblatex shades a listing line by line): its lines stay text, one block with their line
breaks, none of them a heading. A "table" of one or two rows that frames the page (half the page or
more, holding most of its characters: a border round the page and a rule between its columns) is
no table either: its words are the page's text, headings included (counted). Embedded images
become image blocks (the region rendered at ``DPI``, stored by ``ham.ingest.assets``); tiny ones
(under ``MIN_IMAGE_PT`` points) are decoration, and so are rules drawn as images (thinner than
``MIN_RULE_PT``); a region that renders empty is a problem named, never the document's end.
So do figures drawn in vector graphics (``ham.ingest.pdf_figures``), their labels as their text.
A "Figure N" / "Table N" paragraph is a caption: linked to the image it sits directly below or
above (by position, so text set beside the image does not part them:
``pdf_items.place_figure_captions``), or attached to the nearest table. Then the document passes
run: repeated page furniture (headers, footers, "Page 3 of 20") and front matter are excluded and
counted, the title is the largest heading on the first page (the PDF's metadata title when there
is none).

Reading order is top to bottom, left column before right when a page has two columns of text.
Scanned pages (no text layer), complex layouts and formulas are better served by MinerU or
Docling (OCR, layout models); their outputs are read by ``ham.ingest.mineru`` and
``ham.ingest.docling``. Problems are reported naming the file: a corrupt PDF, a password-
protected one, one with no text layer (pointing to OCR), the pages of one that have no text, and the
rest of the corpus still ingests.
"""
from __future__ import annotations

import logging
from collections import Counter
from itertools import groupby
from pathlib import Path

from ham.document import Document
from ham.ingest.assets import store_image
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.levels import numbering_of
from ham.ingest.pdf_figures import Figure, page_figures
from ham.ingest.pdf_furniture import (RUNNING_IMAGE, heading_key, is_toc_page, mark_slots, mark_title_heads,
                                     opener_label, opener_title, running_images, toc_span)
from ham.ingest.pdf_glued import measure_text
from ham.ingest.pdf_glyphs import decode_chars
from ham.ingest.pdf_hyphens import join_lines, unwrap, vocabulary
from ham.ingest.pdf_items import (Item, attach_captions, footnote, framed, inside, paragraphs,
                                  runs_on)
from ham.ingest.pdf_outline import (BELOW, Bookmark, align, measure_outline, nest_below_outline,  # noqa: F401
                                    pdf_errors, place_unfound, read_outline, split_title, title_key)
from ham.ingest.pdf_tables import page_tables
from ham.ingest.pdf_text import (Line, base_font, bold_fonts, is_caption, is_mono,
                                 looks_like_heading, numbered_in_run, page_lines, reading_order)
from ham.ingest.pdf_title import read_title_page
from ham.ingest.report import IngestReport


SUFFIXES = {".pdf"}
DPI = 144
MIN_IMAGE_PT = 24
MIN_RULE_PT = 2
MIN_BOOKMARKS = 2


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if f.suffix.lower() in SUFFIXES]


def page_ranges(numbers: list[int]) -> str:
    """"1, 8-9, 11" for ascending page numbers."""
    runs = [[n for _, n in run] for _, run in groupby(enumerate(numbers), lambda p: p[1] - p[0])]
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


class _Reader:
    def __init__(self, path: Path, root: Path, report: IngestReport) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)
        self.title, self.title_rule, self.outlined = "", "", False
        self.body_font, self.last_number = "", None     # the last decimal-numbered heading's number
        self.vocab: Counter = Counter()     # the document's words, to rejoin words hyphenated at a line break
        self.rejoined = 0

    def mark_headings(self, lines: list[Line], body: float, deeper: int | None, toc: bool) -> None:
        """Typographic headings and chapter openers on one page's lines (module docstring).
        ``deeper``: with an outline, the level for unbookmarked headings (None: no outline)."""
        kept: list[Line] = [ln for ln in lines if not ln.furniture]
        contents = toc_span(lines) if toc else set()
        for i, ln in enumerate(kept):
            if id(ln) in contents and ln.role != "heading":
                ln.furniture = "table of contents"
                continue
            before, after = kept[i - 1] if i else None, kept[i + 1] if i + 1 < len(kept) else None
            if ln.role or opener_label(ln, body) or not (
                    looks_like_heading(ln, body, before, after)
                    or deeper is None and numbered_in_run(ln, body, self.body_font, self.last_number)):
                continue
            number = numbering_of(ln.text.strip())
            if number is not None and number.style == "decimal":
                self.last_number = number.number
            if deeper is not None:
                if ln.text.rstrip().endswith((".", ":")):
                    continue     # below an outline, a bold label ("Note:", "see Documentation .") is text
                ln.role, ln.level, ln.rule = "heading", deeper, BELOW     # its level: nest_below_outline
            else:
                ln.role = "heading"
        for i, ln in enumerate(kept):
            if ln.role != "heading" or ln.furniture:
                continue
            labels = []
            for prev in reversed(kept[max(0, i - 3):i]):
                if prev.role or prev.furniture or not opener_label(prev, body) or ln.top - prev.bottom > 4 * ln.size:
                    break
                labels.insert(0, prev)
            if not labels:
                continue
            for label in labels:
                label.furniture = "chapter opener label (joined to its title)"
            if deeper is None and not ln.level:
                ln.text = opener_title(labels, ln)

    def page_items(self, page, lines: list[Line], tables: list[Item], body: float,
                   furniture_images: set[int] = frozenset(), frames: list[tuple] = (),
                   figures: list[Figure] = ()) -> list[Item]:
        for ln in lines:
            if ln.furniture:
                self.report.exclude(self.path, ln.furniture)
        items = paragraphs([ln for ln in lines if not ln.furniture], frames, body, float(page.width))
        for item in items:
            # a frame's lines are a listing's lines: they keep their breaks
            if item.frame >= 0:
                item.text = "\n".join(unwrap([ln.text for ln in item.lines]))
            else:
                item.text, n = join_lines([ln.text for ln in item.lines], self.vocab, [ln.edge_mono for ln in item.lines])
                self.rejoined += n
            if item.kind == "text" and is_caption(item.text):
                item.kind = "caption"
        for i, im in enumerate(page.images):
            x0, top, x1, bottom = im["x0"], im["top"], im["x1"], im["bottom"]
            if i in furniture_images:
                self.report.exclude(self.path, RUNNING_IMAGE)
                continue
            if max(x1 - x0, bottom - top) < MIN_IMAGE_PT:
                self.report.exclude(self.path, "tiny image (decoration)")
                continue
            if min(x1 - x0, bottom - top) < MIN_RULE_PT:    # a rule drawn as an image (TeX's boxes): too
                self.report.exclude(self.path, "rule drawn as an image (decoration)")     # thin to render
                continue
            bbox = (max(0, x0), max(0, top), min(float(page.width), x1), min(float(page.height), bottom))
            items.append(Item("image", top, bottom, x0, x1, image_path=self.render(page, bbox)))
        for i, fig in enumerate(figures, start=len(page.images)):
            if i in furniture_images:
                self.report.exclude(self.path, RUNNING_IMAGE)
                continue
            x0, top, x1, bottom = fig.box
            bbox = (max(0, x0 - 2), max(0, top - 2), min(float(page.width), x1 + 2), min(float(page.height), bottom + 2))
            items.append(Item("image", top, bottom, x0, x1, image_path=self.render(page, bbox), alt=fig.text))
        items += tables
        return attach_captions(reading_order(items, lines, float(page.width), body))

    def render(self, page, bbox) -> str | None:
        try:
            image = page.crop(bbox).to_image(resolution=DPI).original
            if not image.width or not image.height:
                raise ValueError(f"an empty region, {bbox[2] - bbox[0]:.1f} x {bbox[3] - bbox[1]:.1f} pt")
        except pdf_errors() as exc:   # a region that cannot be rendered: named, the page goes on
            self.report.add(self.path, f"page {page.page_number}: cannot render a region ({exc})", "image")
            return None
        return store_image(self.root, self.report, self.path, image=image)

    def blocks(self, pdf, bookmarks: list[Bookmark]) -> list[Block] | None:
        sizes: Counter = Counter()
        faces: Counter = Counter()      # (size, font name) of prose's letters: code listings set smaller must
        for page in pdf.pages:          # not set the body size
            for ch in page.chars:
                size, font = round(ch["size"], 1), ch.get("fontname", "")
                sizes[size] += 1
                if not is_mono(font):
                    faces[(size, font)] += 1
        prose: Counter = Counter()
        for (size, _), n in faces.items():
            prose[size] += n
        if not sizes:
            images = sum(len(p.images) for p in pdf.pages)
            self.report.add(self.path, f"no text layer ({len(pdf.pages)} page(s)"
                                       f"{', ' + str(images) + ' image(s)' if images else ''}): a scanned PDF? "
                                       "Run OCR with MinerU or Docling and ingest their output instead", "document")
            return None
        blank = [n for n, page in enumerate(pdf.pages, start=1) if not page.chars]
        if blank:       # their text, if they had any, is lost: say which
            self.report.add(self.path, f"no text on {len(blank)} of {len(pdf.pages)} page(s) ({page_ranges(blank)}): "
                                       "blank, or scanned or their text missing from the PDF (run OCR with MinerU "
                                       "or Docling if they hold text)", "page")
        body = (prose or sizes).most_common(1)[0][0]
        body_faces: Counter = Counter()
        for (size, font), n in faces.items():
            if size == body:
                body_faces[base_font(font)] += n
        self.body_font = max(body_faces, key=body_faces.get, default="")
        pages, heights, tables, boxes, frames, figures, widths = [], [], [], [], [], [], []
        glyphs: Counter = Counter()     # icon glyphs and list-bullet glyphs, by what became of them
        bold = bold_fonts(pdf)
        for page in pdf.pages:
            decode_chars(page.chars)     # before tables and words read them
            found, boxed, banded = page_tables(page, self.report, self.path)

            def in_table(w, found=found) -> bool:
                return any(inside((t.x0, t.top, t.x1, t.bottom), w["x0"], w["top"], w["x1"], w["bottom"]) for t in found)
            lines = page_lines(page, in_table, bold, glyphs)
            for ln in lines:
                if framed(ln, boxed) >= 0 or framed(ln, banded) >= 0:
                    ln.role = "text"        # a listing's, a note box's or a band table's line is no section heading
            pictures = [(im["x0"], im["top"], im["x1"], im["bottom"]) for im in page.images]
            drawn, lines, found = page_figures(page, found, boxed, pictures, lines, self.report, self.path)
            for t in found:
                t.image_path = self.render(page, (t.x0, t.top, t.x1, t.bottom))
            pages.append(lines)
            figures.append(drawn)
            heights.append(float(page.height) or 1.0)
            widths.append(float(page.width) or 1.0)
            tables.append(found)
            frames.append(boxed)
            boxes.append(pictures + [f.box for f in drawn])   # a logo drawn in vectors can run too
        for what, n in glyphs.items():
            if n:
                self.report.measure(self.path, what, n)
        _, head_titles = mark_slots(pages, heights)
        logos = running_images(boxes, heights, widths)
        root_title = bookmarks[0].title if bookmarks else ""
        bookmarks, self.title = split_title(bookmarks)
        self.title_rule = "title: the outline's only top-level entry" if self.title else ""
        if len(bookmarks) < MIN_BOOKMARKS:      # one bookmark is no hierarchy: typography decides
            bookmarks = []
        self.outlined = bool(bookmarks)
        if bookmarks:
            align(bookmarks, pages, body)
            if self.title:
                root = next((ln for ln in pages[0] + (pages[1] if len(pages) > 1 else [])
                             if not ln.role and not ln.furniture and title_key(ln.text) == title_key(root_title)), None)
                if root is not None:
                    root.furniture = "document title (the outline's top entry)"
        mark_title_heads(pages, heights, head_titles | {heading_key(bm.title) for bm in bookmarks}, body)
        # typography adds headings from the first bookmark's page on, found on its page or not
        first = min((bm.page for bm in bookmarks if bm.page is not None), default=None)
        deeper = max((bm.level for bm in bookmarks), default=0) + 1 if bookmarks else None
        toc = False
        for n, lines in enumerate(pages):
            before_first = first is not None and n < first
            toc = is_toc_page(lines, continues=toc)
            self.mark_headings(lines, body, None if before_first else deeper, toc)
            if before_first:
                for ln in lines:
                    if ln.role == "heading" and not ln.level:
                        ln.role = ""
        if deeper is not None:
            nest_below_outline(pages, deeper)
        found = read_title_page(pages, body, self.report, self.path, wants_title=bool(bookmarks) and not self.title)
        if found:
            self.title, self.title_rule = found
        missing = measure_outline(self.report, self.path, bookmarks)
        self.vocab = vocabulary(ln.text for lines in pages for ln in lines if not ln.furniture and not ln.mono)
        blocks: list[Block] = []
        texts: list[str] = []
        running: tuple[int, Item, int] | None = None    # the last paragraph's block, item and page
        for page_no, page in enumerate(pdf.pages):
            width, height = float(page.width) or 1.0, heights[page_no]
            items = self.page_items(page, pages[page_no], tables[page_no], body, logos.get(page_no, set()),
                                    frames[page_no], figures[page_no])
            if any(b.page == page_no for b in missing):
                place_unfound(items, bookmarks, page_no, width)
            for item in items:
                if item.kind in ("heading", "text", "caption"):
                    texts.append(item.text)
                if running is not None and runs_on(running[1], item, page_no > running[2]):
                    block = blocks[running[0]]
                    block.text, n = join_lines([block.text, item.text], self.vocab,
                                               [running[1].lines[-1].edge_mono, item.lines[0].edge_mono])
                    self.rejoined += n
                    self.report.exclude(self.path, "paragraph run on over a page or column break (joined)")
                    running = (running[0], item, page_no)
                    continue
                block = item.block(dict(page=page_no, source=self.rel, index=len(blocks),
                                        bbox=(int(item.x0 * 1000 / width), int(item.top * 1000 / height),
                                              int(item.x1 * 1000 / width), int(item.bottom * 1000 / height))))
                if footnote(running, item, page_no):
                    pass            # a footnote below the paragraph leaves it open, as a float does
                elif item.kind == "text" and item.frame < 0 and block is not None:
                    running = (len(blocks), item, page_no)
                elif item.kind not in ("image", "caption", "table"):    # a float between leaves the paragraph open
                    running = None
                if block is not None:
                    blocks.append(block)
        measure_text(self.report, self.path, texts)
        if self.rejoined:
            self.report.measure(self.path, "words hyphenated at a line break (rejoined)", self.rejoined)
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


def parse_file(path: Path, root: Path, report: IngestReport, use_outline: bool = True) -> Document | None:
    pdf = open_pdf(path, report)
    if pdf is None:
        return None
    reader = _Reader(path, root, report)
    try:
        bookmarks: list[Bookmark] = []
        if use_outline:
            bookmarks, problem = read_outline(path)
            if problem:
                report.add(path, f"{problem}; headings from typography instead", "outline")
        blocks = reader.blocks(pdf, bookmarks)
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
    # bookmark levels are the author's: kept even when the outline is flat
    return build_document(doc_id_for(rel), reader.title, rel, "pdf", blocks, report=report, path=path,
                          fallback_title=fallback, authored=reader.outlined, title_rule=reader.title_rule)


def parse(files: list[Path], root: Path, report: IngestReport, use_outline: bool = True) -> list[Document]:
    """``use_outline=False`` ignores the PDFs' outlines: headings from typography alone."""
    return [d for d in (parse_file(p, root, report, use_outline) for p in files) if d is not None]

