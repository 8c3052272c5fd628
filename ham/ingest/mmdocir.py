"""MMDocIR documents: ``MMDocIR_layouts.parquet``, one row per layout, rows of a document
contiguous (the annotations' ``layout_indices`` are inclusive row ranges into it).

Columns (MMDocRAG/MMDocIR ``dataset/README.md``; ``encode.py`` reads ``type``, ``text``,
``vlm_text``/``ocr_text``, ``bbox``, ``page_id``, ``image_binary``)::

    doc_name, domain, type, layout_id, page_id, image_path, image_binary, text, ocr_text,
    vlm_text, bbox [x1, y1, x2, y2], page_size [w, h]

The file is tens of GB with the image bytes, so it is streamed: ``ParquetFile.iter_batches`` with
only these columns, a few rows at a time; no whole table is ever loaded.

Tree: document -> page ("Page N", ``page`` = the 0-based ``page_id``) -> layout units in row
order. Layout ``type`` (the released code and data show ``text``, ``equation``, ``image``,
``table``):

    title (or a ``text_level`` > 0 where a file has that column)
                    a heading nesting the units after it on its page, plus a text unit holding the
                    title itself (MMDocIR's gold boxes can be a title layout)
    text, equation  a text unit (``text``)
    image, figure, chart
                    an image unit; the layout crop is ``image_path`` when that file exists under
                    the parquet's folder or the corpus root (the dataset's layout image archive unpacked), else
                    ``image_binary`` is written once to ``.ham/mmdocir/<doc>/<layout_id>.jpg``
                    under the root (a hidden folder: not part of the corpus hash)
    table           a table unit whose text is the table body (``ocr_text``, else ``text``, else
                    ``vlm_text``), its crop written or referenced as for images
                    (the unit's ``image_path``)
    anything else   a text unit when it has text

Every unit's ``Block.meta`` (-> the unit's ``extra``): ``doc_name``, ``domain``, ``layout_id``,
``layout_type`` (raw), ``modality`` (text | title | equation | figure | table), ``bbox``,
``page_size``, ``row`` (the row's index in the file), and for figures and tables ``ocr_text``
and ``vlm_text``. A figure whose image cannot be had becomes a text unit of its VLM/OCR text with
``meta["image_missing"] = True`` (so its evidence stays retrievable); this is reported.

Document id: ``doc_name`` without ``.pdf``, whitespace replaced by ``_``. The pages parquet
(``MMDocIR_pages.parquet``: page screenshots) and ``MMDocIR_annotations.jsonl`` are claimed and
left unread: pages are not layout units and questions are read by ``ham.datasets.mmdocir``.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path, PurePosixPath

from ham.document import Document
from ham.ingest.builder import Block, TreeBuilder
from ham.ingest.report import IngestReport, resolve_image

log = logging.getLogger("ham.ingest.mmdocir")

LAYOUT_COLUMNS = ("doc_name", "domain", "type", "layout_id", "page_id", "image_path", "image_binary",
                  "text", "ocr_text", "vlm_text", "bbox", "page_size", "text_level")
REQUIRED = {"doc_name", "type", "layout_id", "page_id"}
PAGE_COLUMNS = {"doc_name", "passage_id"}
IMAGE_DIR = ".ham/mmdocir"
BATCH_ROWS = 64
TITLE_TYPES = {"title", "section_title", "section-header", "heading"}
IMAGE_TYPES = {"image", "figure", "chart", "picture"}


def _schema_names(path: Path) -> set[str] | None:
    import pyarrow.parquet as pq
    from pyarrow import ArrowException

    try:
        return set(pq.read_schema(path).names)
    except (ArrowException, OSError):   # not a parquet file pyarrow can open: not ours
        return None


def is_layouts_file(path: Path) -> bool:
    if path.suffix.lower() != ".parquet":
        return False
    names = _schema_names(path)
    return names is not None and REQUIRED <= names


def is_pages_file(path: Path) -> bool:
    if path.suffix.lower() != ".parquet":
        return False
    names = _schema_names(path)
    return names is not None and PAGE_COLUMNS <= names and "layout_id" not in names


def claim(files: list[Path]) -> list[Path]:
    layouts = [f for f in files if is_layouts_file(f)]
    if not layouts:
        return []
    companions = [f for f in files if is_pages_file(f)
                  or (f.suffix == ".jsonl" and f.name.lower().startswith("mmdocir") and "annotation" in f.name.lower())]
    return layouts + companions


def doc_id_of(doc_name: str) -> str:
    stem = doc_name[:-4] if doc_name.lower().endswith(".pdf") else doc_name
    return re.sub(r"\s+", "_", stem.strip())


def _str(value) -> str:
    return "" if value is None else str(value)


def _floats(value) -> list[float] | None:
    if value is None:
        return None
    try:
        return [float(v) for v in value]
    except (TypeError, ValueError):
        return None


class _DocumentBuilder:
    """Blocks of one document from its rows, in row order."""

    def __init__(self, doc_name: str, source: str, root: Path, path: Path, report: IngestReport) -> None:
        self.doc_name, self.source, self.root, self.path, self.report = doc_name, source, root, path, report
        self.doc_id = doc_id_of(doc_name)
        self.builder = TreeBuilder(self.doc_id, doc_name, source, "mmdocir")
        self.page: int | None = None
        self.started = False
        self.leaves = 0
        self.empty = 0
        self.missing_images: list[str] = []

    def block(self, kind: str, row: dict, meta: dict, **fields) -> None:
        self.builder.add(Block(kind=kind, page=self.page, source=self.source, meta=meta, **fields))
        if kind in ("text", "image", "table"):
            self.leaves += 1

    def add(self, row: dict, index: int) -> None:
        page = row.get("page_id")
        page = int(page) if page is not None else None
        if not self.started or page != self.page:
            self.started, self.page = True, page
            title = f"Page {page + 1}" if page is not None else "Page ?"
            self.builder.add(Block(kind="heading", text=title, level=1, page=page, source=self.source))
        ltype = _str(row.get("type")).strip().lower()
        text = _str(row.get("text")).strip()
        meta = {"doc_name": self.doc_name, "domain": row.get("domain"), "layout_id": row.get("layout_id"),
                "layout_type": row.get("type"), "bbox": _floats(row.get("bbox")),
                "page_size": _floats(row.get("page_size")), "row": index}
        level = row.get("text_level")
        if ltype in TITLE_TYPES or (isinstance(level, int) and level > 0 and ltype == "text"):
            if not text:
                self.empty += 1
                return
            depth = 1 + (int(level) if isinstance(level, int) and level > 0 else 1)
            self.builder.add(Block(kind="heading", text=text, level=depth, page=self.page, source=self.source))
            self.block("text", row, {**meta, "modality": "title"}, text=text)
        elif ltype in IMAGE_TYPES or ltype == "table":
            self.visual(ltype, row, meta, text)
        elif text:
            self.block("text", row, {**meta, "modality": "equation" if ltype == "equation" else "text"}, text=text)
        else:
            self.empty += 1

    def visual(self, ltype: str, row: dict, meta: dict, text: str) -> None:
        ocr, vlm = _str(row.get("ocr_text")).strip(), _str(row.get("vlm_text")).strip()
        modality = "table" if ltype == "table" else "figure"
        meta = {**meta, "modality": modality, "ocr_text": ocr, "vlm_text": vlm}
        ref = _str(row.get("image_path")).strip() or f"{self.doc_id}/layout_{row.get('layout_id')}"
        image_path = self.image_file(row, ref)
        if modality == "table":
            body = ocr or text or vlm
            if not body:
                self.empty += 1
                return
            self.block("table", row, meta, text=body, image=ref, image_path=image_path)
        elif image_path is not None:
            self.block("image", row, meta, image=ref, image_path=image_path)
        else:
            self.missing_images.append(str(row.get("layout_id")))
            description = vlm or ocr or text
            if description:
                self.block("text", row, {**meta, "image_missing": True}, text=description)

    def image_file(self, row: dict, ref: str) -> str | None:
        """The crop as a path relative to the root: the dataset's own file when present, else the
        bytes written under IMAGE_DIR; None when neither can be had."""
        own = _str(row.get("image_path")).strip()
        if own and not PurePosixPath(own).is_absolute():
            for base in (self.path.parent, self.root):
                candidate = (base / PurePosixPath(own)).resolve()
                if candidate.is_file() and candidate.is_relative_to(self.root.resolve()):
                    return resolve_image(own, base, self.root, self.report, self.path)
        data = row.get("image_binary")
        if not data:
            return None
        rel = f"{IMAGE_DIR}/{self.doc_id}/{row.get('layout_id')}.jpg"
        target = self.root / rel
        try:
            if not target.is_file() or target.stat().st_size != len(data):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        except OSError as exc:
            self.report.add(self.path, f"{self.doc_name}: cannot write layout image {rel} ({exc})", "image")
            return None
        return resolve_image(rel, self.root, self.root, self.report, self.path)

    def finish(self) -> Document | None:
        where = f"{self.doc_name}"
        if self.missing_images:
            self.report.add(self.path, f"{where}: figure layout(s) {', '.join(self.missing_images)} have no usable "
                            "image; kept as text units of their VLM/OCR text", "image")
        if self.empty:
            log.info("%s: %d layout(s) without content left out", where, self.empty)
        if self.leaves == 0:
            self.report.add(self.path, f"{where}: no layout with content (empty document)", "document")
            return None
        return self.builder.finish()


def parse_layouts(path: Path, root: Path, report: IngestReport) -> list[Document]:
    import pyarrow.parquet as pq
    from pyarrow import ArrowException

    try:
        pf = pq.ParquetFile(path)
    except (ArrowException, OSError) as exc:   # a corrupt file
        report.add(path, f"cannot open the parquet file ({exc})", "document")
        return []
    names = set(pf.schema_arrow.names)
    missing = REQUIRED - names
    if missing:
        report.add(path, f"not an MMDocIR layouts file: no column(s) {', '.join(sorted(missing))}", "document")
        return []
    columns = [c for c in LAYOUT_COLUMNS if c in names]
    source = report.rel(path)
    docs: list[Document] = []
    done: set[str] = set()
    current: _DocumentBuilder | None = None
    index = 0
    skipping: str | None = None
    try:
        for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=columns):
            for row in batch.to_pylist():
                name = _str(row.get("doc_name"))
                if current is None or name != current.doc_name:
                    if current is not None:
                        doc = current.finish()
                        if doc is not None:
                            docs.append(doc)
                        done.add(current.doc_name)
                        current = None
                    if name in done:
                        if skipping != name:
                            report.add(path, f"rows of document {name!r} are not contiguous (row {index} comes "
                                       "after another document's rows); these rows were left out", "layout")
                        skipping = name
                        index += 1
                        continue
                    skipping = None
                    current = _DocumentBuilder(name, source, root, path, report)
                current.add(row, index)
                index += 1
    except (ArrowException, OSError) as exc:   # a truncated or corrupt file part-way through
        report.add(path, f"stopped reading at row {index} ({exc.__class__.__name__}: {exc})", "document")
    if current is not None:
        doc = current.finish()
        if doc is not None:
            docs.append(doc)
    return docs


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    docs: list[Document] = []
    for path in files:
        if is_layouts_file(path):
            docs.extend(parse_layouts(path, root, report))
    return docs
