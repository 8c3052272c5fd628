"""Ingest: every supported document under a corpus root becomes a ``Document`` tree.

Formats: MRAMG/HAM-Bench JSONL, MinerU content lists (every version), MMDocIR and ViDoRe parquet, Docling JSON, HTML pages
and manuals, Markdown, PDF and DOCX (see docs/ingest.md). Known document formats ham does not read
(.doc, .odt, .rtf, .pptx, .epub, ...) are reported with what to do; other files are listed as
left alone.

Each format module exposes ``claim(files) -> files it parses`` and
``parse(files, root, report) -> list[Document]``. Formats are asked in ``FORMATS`` order, each
claiming from what the earlier ones left, so MinerU can take the ``.md`` that sits beside its
``*_content_list.json`` before the Markdown parser sees it. Links between documents (HTML and
Markdown) are resolved last, over the whole corpus (``ham.ingest.links``).
"""
from __future__ import annotations

import logging
from pathlib import Path

from ham.document import Document
from ham.ingest.builder import doc_id_for
from ham.ingest import docling, docx, html, markdown, mineru, mmdocir, mramg, pdf, topograph, vidore
from ham.ingest.links import resolve_refs
from ham.ingest.repeats import report_repeats
from ham.ingest.report import IngestReport

log = logging.getLogger("ham.ingest")

FORMATS = {"mramg": mramg, "mineru": mineru, "mmdocir": mmdocir, "vidore": vidore, "topograph": topograph,
           "docling": docling, "html": html, "markdown": markdown, "pdf": pdf, "docx": docx}


def corpus_files(root: Path) -> list[Path]:
    """Every regular file under ``root`` in a stable order, skipping hidden files and folders."""
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))


def ingest_corpus(root: str | Path, formats: list[str] | None = None,
                  pdf_outline: bool = True, only: Path | None = None) -> tuple[list[Document], IngestReport]:
    """``pdf_outline=False``: PDFs' outlines are ignored, headings come from typography alone (the
    path for PDFs without one; ``ham-tree --ignore-outline`` and benchmarks/bench_pdf_tree.py).
    ``only``: read that one file of the corpus (a PDF or DOCX, a document on its own), not its
    neighbours."""
    root = Path(root)
    report = IngestReport(root=root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus root {root} does not exist or is not a folder")
    remaining = corpus_files(root) if only is None else [Path(only)]
    documents: list[Document] = []
    for name in formats or list(FORMATS):
        module = FORMATS[name]
        claimed = module.claim(remaining)
        if not claimed:
            continue
        taken = set(claimed)
        remaining = [p for p in remaining if p not in taken]
        options = {"use_outline": pdf_outline} if module is pdf else {}
        documents.extend(module.parse(claimed, root, report, **options))
    for path in remaining:
        hint = _UNSUPPORTED.get(path.suffix.lower())
        if hint:
            report.add(path, f"{path.suffix.lower()} files are not read by ham: {hint}", "document")
    report.ignored_files = [report.rel(p) for p in remaining
                            if not _is_asset(p) and path_suffix(p) not in _UNSUPPORTED]
    unique: dict[str, Document] = {}
    for doc in documents:
        if doc.id in unique:
            # the same manual in two formats (bash.html and bash.pdf): the later one is read under its
            # file name with the suffix, and the ingest report says so
            taken, alt = doc.id, doc_id_for(doc.source, keep_suffix=True)
            if alt in unique:
                report.add(root / doc.source, f"document id {doc.id!r} is already taken by "
                           f"{unique[doc.id].source}, and {alt!r} too; rename the file", "document")
                continue
            _rename(doc, alt)
            report.measure(root / doc.source, "document id taken by another file (read under its file name)", 1)
            log.info("%s: document id %r is taken by %s; read as %r", doc.source, taken, unique[taken].source, alt)
        unique[doc.id] = doc
    report.documents = len(unique)
    docs = list(unique.values())
    resolve_refs(docs, report)   # links may cross documents and formats
    report_repeats(docs, report)
    return docs, report


def _rename(doc: Document, new_id: str) -> None:
    """``doc`` and its nodes (ids ``{doc id}:{n}``, and the caption links between them) under ``new_id``."""
    old = f"{doc.id}:"
    for node in doc.root.walk():
        if node.id.startswith(old):
            node.id = f"{new_id}:{node.id[len(old):]}"
        if node.caption_of and node.caption_of.startswith(old):
            node.caption_of = f"{new_id}:{node.caption_of[len(old):]}"
    doc.id = new_id


_CONVERT = "convert it to PDF or DOCX, or parse it with Docling or MinerU and ingest their JSON"
_UNSUPPORTED = {".doc": "old binary Word; save it as .docx", ".odt": _CONVERT, ".rtf": _CONVERT,
                ".pptx": _CONVERT, ".ppt": _CONVERT, ".epub": _CONVERT, ".xlsx": _CONVERT,
                ".djvu": "scanned pages: OCR them with MinerU or Docling and ingest their output"}


def path_suffix(path: Path) -> str:
    return path.suffix.lower()


_ASSET_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff", ".css", ".js"}


def _is_asset(path: Path) -> bool:
    """Images and styles are referenced by documents, not documents themselves."""
    return path.suffix.lower() in _ASSET_SUFFIXES
