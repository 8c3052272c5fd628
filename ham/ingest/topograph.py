"""TopoGraphRAG-Bench documents: ``loaded_info.json``, the parsed MMDocIR documents the benchmark
was built from.

Schema (RichardLRC/TopoGraphRAG-Bench: ``construction/README.md`` and the scripts that read and
write the file, ``construction/extract_captions.py``, ``construction/multihop/
generate_atomic_qa.py``, ``construction/multihop/filter_modality.py``): one JSON array (written with
``indent=2``) of ``{doc_id, doc_name, layouts: [{layout_id, page_id, modality, text, caption,
topic, vlm_text, ocr_text}]}``; ``modality`` is ``text``, ``figure`` or ``table``; ``text`` is set
for text layouts, ``caption``/``topic`` (VLM-extracted) and ``vlm_text``/``ocr_text`` for figures
and tables. The file has no image paths; the data package ships ``layout_images/`` (cropped
figures and tables) beside it.

Tree: document (title = ``doc_name``) -> page ("Page N", ``page`` = the 0-based ``page_id``) ->
layout units in the file's order:

    text    a text unit
    figure  an image unit captioned with ``caption``; its crop is the layout's own ``img_path`` /
            ``image_path`` field when it has one, else ``layout_images/<doc stem>_<layout_id>.jpg``
            (or ``.png``, or ``layout_images/<doc stem>/<layout_id>.jpg``) beside the JSON. A figure
            without a usable file becomes a text unit of its caption, VLM and OCR text with
            ``meta["image_missing"] = True`` (reported), so the evidence stays retrievable.
    table   a table unit: text = caption + body (``ocr_text``, else ``text``, else ``vlm_text``),
            its crop (found as for figures) as its ``image_path``

``Block.meta`` (-> the unit's ``extra``): ``doc_id`` (TopoGraph's integer id, which its questions
use), ``doc_name``, ``layout_id``, ``modality`` (the source's word), and for figures and tables
``caption``, ``topic``, ``vlm_text``, ``ocr_text``. Document id: ``doc_name`` without ``.pdf``,
whitespace replaced by ``_`` (the same as ``ham.ingest.mmdocir``). ``benchmark.json`` beside it (or
in ``annotations/``) is claimed and left to ``ham.datasets.topograph``.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from ham.records import json_array_records
from ham.document import Document
from ham.ingest.builder import Block, build_document
from ham.ingest.mmdocir import doc_id_of
from ham.ingest.report import IngestReport, resolve_image

NAME = "loaded_info.json"


def is_corpus_file(path: Path) -> bool:
    return path.name == NAME or (path.suffix == ".json" and path.name.endswith("_" + NAME))


def claim(files: list[Path]) -> list[Path]:
    corpus = [f for f in files if is_corpus_file(f)]
    if not corpus:
        return []
    return corpus + [f for f in files if f.name == "benchmark.json"]


def _str(value) -> str:
    return "" if value is None else str(value).strip()


class _Layouts:
    def __init__(self, path: Path, root: Path, report: IngestReport, doc: dict) -> None:
        self.path, self.root, self.report = path, root, report
        self.doc_name = _str(doc.get("doc_name"))
        self.doc_id = doc.get("doc_id")
        self.stem = self.doc_name[:-4] if self.doc_name.lower().endswith(".pdf") else self.doc_name
        self.source = report.rel(path)
        self.blocks: list[Block] = []
        self.page: object = object()
        self.missing: list[str] = []

    def image(self, layout: dict) -> tuple[str, str | None]:
        """(reference as written or derived, resolved path or None)."""
        lid = layout.get("layout_id")
        own = _str(layout.get("img_path") or layout.get("image_path") or layout.get("image"))
        tries = [own] if own else []
        tries += [f"layout_images/{self.stem}_{lid}.jpg", f"layout_images/{self.stem}_{lid}.png",
                  f"layout_images/{self.stem}/{lid}.jpg"]
        base = self.path.parent
        for ref in tries:
            candidate = (base / PurePosixPath(ref)).resolve()
            if candidate.is_file() and candidate.is_relative_to(self.root.resolve()):
                return ref, resolve_image(ref, base, self.root, self.report, self.path)
        return (own or tries[0]), None

    def add(self, index: int, layout) -> None:
        if not isinstance(layout, dict):
            self.report.add(self.path, f"{self.doc_name}: layout {index} is not an object", "layout")
            return
        page = layout.get("page_id") if isinstance(layout.get("page_id"), int) else None
        if page != self.page:
            self.page = page
            title = f"Page {page + 1}" if page is not None else "Page ?"
            self.blocks.append(Block(kind="heading", text=title, level=1, page=page, source=self.source))
        modality = _str(layout.get("modality")).lower()
        meta = {"doc_id": self.doc_id, "doc_name": self.doc_name, "layout_id": layout.get("layout_id"),
                "modality": modality}
        text = _str(layout.get("text"))
        if modality in ("figure", "table"):
            caption, topic = _str(layout.get("caption")), _str(layout.get("topic"))
            ocr, vlm = _str(layout.get("ocr_text")), _str(layout.get("vlm_text"))
            meta.update({"caption": caption, "topic": topic, "ocr_text": ocr, "vlm_text": vlm})
            ref, image_path = self.image(layout)
            if modality == "table":
                body = ocr or text or vlm
                if body or caption:   # the builder puts the caption before the body
                    self.emit("table", page, meta, text=body, caption=caption, image=ref, image_path=image_path)
            elif image_path is not None:
                self.emit("image", page, meta, image=ref, image_path=image_path, caption=caption)
            else:
                self.missing.append(str(layout.get("layout_id")))
                description = "\n".join(p for p in (caption, vlm, ocr) if p)
                if description:
                    self.emit("text", page, meta | {"image_missing": True}, text=description)
        elif text:
            if modality != "text":
                self.report.add(self.path, f"{self.doc_name}: layout {layout.get('layout_id')} has modality "
                                f"{layout.get('modality')!r}; read as text", "layout")
            self.emit("text", page, meta, text=text)

    def emit(self, kind: str, page, meta: dict, **fields) -> None:
        self.blocks.append(Block(kind=kind, page=page, source=self.source, meta=meta, **fields))


def parse_document(path: Path, root: Path, report: IngestReport, lineno: int, doc) -> Document | None:
    if not isinstance(doc, dict) or not _str(doc.get("doc_name")) or not isinstance(doc.get("layouts"), list):
        report.add(path, f"line {lineno}: not a document {{doc_id, doc_name, layouts}}", "document")
        return None
    layouts = _Layouts(path, root, report, doc)
    for i, layout in enumerate(doc["layouts"]):
        layouts.add(i, layout)
    if layouts.missing:
        report.add(path, f"{layouts.doc_name}: figure layout(s) {', '.join(layouts.missing)} have no image file "
                   "under layout_images/; kept as text units of their caption and VLM/OCR text", "image")
    if not any(b.kind in ("text", "image", "table") for b in layouts.blocks):
        report.add(path, f"line {lineno}: {layouts.doc_name}: no layout with content (empty document)", "document")
        return None
    return build_document(doc_id_of(layouts.doc_name), layouts.doc_name, layouts.source, "topograph",
                          layouts.blocks)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    docs: list[Document] = []
    for path in filter(is_corpus_file, files):
        problems: list[str] = []
        try:
            for lineno, doc in json_array_records(path, problems):
                parsed = parse_document(path, root, report, lineno, doc)
                if parsed is not None:
                    docs.append(parsed)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            report.add(path, f"cannot read the file ({exc})", "document")
        prefix = f"{path}:"
        for problem in problems:
            report.add(path, "line " + problem[len(prefix):] if problem.startswith(prefix) else problem,
                       "document")
    return docs
