"""MRAMG-Bench / HAM-Bench files: ``doc_{sub}.jsonl`` documents and ``{sub}_mqa.jsonl`` questions.

Documents
    Each line of ``doc_{sub}.jsonl`` is a JSON array ``[id, content, images_list]``; the document id
    is ``f"{sub}/{id}"``. Every ``<PIC>`` in ``content`` is the next image of ``images_list``, in
    order. Each image block's ``image`` is the image id as a string (the same string questions
    use as gold), its caption comes from the image collection
    ``IMAGE/images_info/{sub}_imgs_collection.json`` (``{id: {image_url, image_path,
    image_caption}}``) and its file is ``image_path`` looked up relative to the corpus root, the
    collection's folder, ``IMAGE/images/{SUB}/`` and finally by its file name in that folder.

Content rules
    Each line of ``content`` is a paragraph (blank lines only separate). A line starting with
    ``#`` is a heading of that many levels; a short numbered line without final punctuation
    ("2.1 Ingredients") is a heading whose depth comes from its numbering; a line opening with
    "Step N" is a step (TreeBuilder). ``<PIC>`` splits a line: text before, image, text after.

Problems (reported, never dropped silently)
    A line that is not ``[id, content, images_list]`` is skipped. When the ``<PIC>`` count differs
    from ``len(images_list)`` the matched images are placed in order; images without a marker are
    appended at the end of the document and markers without an image are left out, and the
    mismatch is reported. Unknown image ids and missing files are reported per image.
"""
from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from ham.document import Document
from ham.ingest.builder import Block, build_document, is_step_title, numbering_depth
from ham.ingest.report import IngestReport, read_text, resolve_image

PIC = "<PIC>"
_END_PUNCT = (".", "!", "?", ":", ";", ",")


def is_document_file(path: Path) -> bool:
    return path.name.startswith("doc_") and path.name.endswith(".jsonl")


def is_companion_file(path: Path) -> bool:
    """Question and image-collection files: read by path (load_mqa, ImageCollection), not parsed."""
    return path.name.endswith("_mqa.jsonl") or path.name.endswith("_imgs_collection.json")


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if is_document_file(f) or is_companion_file(f)]


def subset_of(path: Path) -> str:
    return path.name[len("doc_"): -len(".jsonl")]


# --------------------------------------------------------------------------- images

class ImageCollection:
    """The ``{sub}_imgs_collection.json`` of one subset and where its files live."""

    def __init__(self, doc_file: Path, root: Path, report: IngestReport) -> None:
        self.doc_file, self.root, self.report = doc_file, root, report
        self.sub = subset_of(doc_file)
        self.file: Path | None = None
        self.entries: dict[str, dict] = {}
        self.image_dir = doc_file.parent / "IMAGE" / "images" / self.sub.upper()
        self._loaded = False
        self._resolved: dict[str, str | None] = {}

    def ensure_loaded(self) -> None:
        """Find and read the collection the first time an image needs it."""
        if self._loaded:
            return
        self._loaded = True
        self.file = self.find_file()
        if self.file is not None:
            self.entries = self.load()
            self.image_dir = self.file.parent.parent / "images" / self.sub.upper()

    def find_file(self) -> Path | None:
        name = f"{self.sub}_imgs_collection.json"
        folder = self.doc_file.parent
        root = self.root.resolve()
        while True:
            for candidate in (folder / "IMAGE" / "images_info" / name, folder / "images_info" / name):
                if candidate.is_file():
                    return candidate
            if folder.resolve() == root or folder.parent == folder:
                break
            folder = folder.parent
        self.report.add(self.doc_file, f"image collection IMAGE/images_info/{name} not found: "
                                       "images keep their ids but have no file or caption", "image")
        return None

    def load(self) -> dict[str, dict]:
        text = read_text(self.file, self.report)
        try:
            data = json.loads(text) if text is not None else None
        except json.JSONDecodeError as exc:
            self.report.add(self.file, f"corrupt JSON (line {exc.lineno}: {exc.msg})", "image collection")
            return {}
        if not isinstance(data, dict):
            if text is not None:
                self.report.add(self.file, "image collection is not a JSON object", "image collection")
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, dict)}

    def caption(self, image_id: str) -> str:
        self.ensure_loaded()
        return " ".join(str(self.entries.get(image_id, {}).get("image_caption") or "").split())

    def resolve(self, image_id: str, where: str) -> str | None:
        self.ensure_loaded()
        if image_id not in self._resolved:
            self._resolved[image_id] = self._locate(image_id, where)
        return self._resolved[image_id]

    def _locate(self, image_id: str, where: str) -> str | None:
        if not self.entries:
            return None
        entry = self.entries.get(image_id)
        if entry is None:
            self.report.add(self.doc_file, f"{where}: image {image_id} is not in the image collection",
                            "image")
            return None
        ref = str(entry.get("image_path") or "").strip()
        if not ref:
            self.report.add(self.doc_file, f"{where}: image {image_id} has no image_path", "image")
            return None
        tries = [(self.root, ref), (self.file.parent, ref), (self.image_dir, ref),
                 (self.image_dir, PurePosixPath(ref).name)]
        root = self.root.resolve()
        for base, rel in tries:
            candidate = (base / PurePosixPath(rel)).resolve()
            if candidate.is_relative_to(root) and candidate.exists():
                return resolve_image(rel, base, self.root, self.report, self.doc_file)
        outside = all(not (b / PurePosixPath(r)).resolve().is_relative_to(root) for b, r in tries)
        problem = "points outside the corpus root (not read)" if outside else \
            f"file not found (looked under the corpus root, {self.report.rel(self.image_dir)})"
        self.report.add(self.doc_file, f"{where}: image {image_id} ({ref!r}) {problem}", "image")
        return None


# --------------------------------------------------------------------------- documents

def is_numbered_heading(line: str) -> bool:
    return numbering_depth(line) is not None and len(line.split()) <= 10 and not line.endswith(_END_PUNCT)


def is_step_line(line: str) -> bool:
    """"Step 2: Fry ..." or a numbered sentence ("1. Whisk the eggs.")."""
    if is_step_title(line):
        return True
    head = line.split(maxsplit=1)[0] if line.split() else ""
    return head[:-1].isdigit() and head[-1:] in (".", ")") and not is_numbered_heading(line)


def line_block(line: str) -> Block:
    """One content line (a piece before any ``<PIC>``): heading, step or text."""
    stripped = line.strip()
    if stripped.startswith("#"):
        level = len(stripped) - len(stripped.lstrip("#"))
        return Block(kind="heading", text=stripped[level:].strip(), level=min(level, 6))
    if is_step_line(stripped):
        return Block(kind="step", text=stripped)
    if is_numbered_heading(stripped):
        return Block(kind="heading", text=stripped, level=0)
    return Block(kind="text", text=stripped)


def content_blocks(content: str, images: list[str], collection: ImageCollection,
                   where: str) -> tuple[list[Block], int]:
    """Blocks of one document's content; returns them and the number of ``<PIC>`` markers."""
    blocks: list[Block] = []
    markers = 0
    in_steps = False
    for line in content.splitlines():
        pieces = line.split(PIC)
        for i, piece in enumerate(pieces):
            if i > 0:
                if markers < len(images):
                    blocks.append(image_block(images[markers], collection, where))
                markers += 1
            if not piece.strip():
                continue
            block = line_block(piece) if i == 0 else Block(kind="text", text=piece.strip())
            if i == 0 and in_steps and block.kind != "step":
                blocks.append(Block(kind="end_steps"))
            in_steps = block.kind == "step" or (in_steps and i > 0)
            blocks.append(block)
    return blocks, markers


def image_block(image_id: str, collection: ImageCollection, where: str) -> Block:
    return Block(kind="image", image=image_id, image_path=collection.resolve(image_id, where),
                 caption=collection.caption(image_id))


def record_mismatch(report: IngestReport, path: Path, where: str, markers: int, images: list[str]) -> None:
    if markers > len(images):
        detail = f"the last {markers - len(images)} <PIC> marker(s) have no image and were left out"
    else:
        extra = images[markers:]
        detail = f"image(s) {', '.join(extra)} have no <PIC> and were appended at the end of the document"
    report.add(path, f"{where}: {markers} <PIC> marker(s) but {len(images)} image(s) in images_list; "
                     f"{detail}", "image")


def parse_line(raw: str, lineno: int, path: Path, report: IngestReport,
               collection: ImageCollection) -> Document | None:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        report.add(path, f"line {lineno}: not valid JSON ({exc.msg})", "document")
        return None
    if not (isinstance(record, list) and len(record) == 3 and isinstance(record[1], str)
            and isinstance(record[2], list) and record[0] not in (None, "")):
        report.add(path, f"line {lineno}: not [id, content, images_list]", "document")
        return None
    doc_key, content, image_list = record
    images = [str(i) for i in image_list]
    where = f"line {lineno} (doc {doc_key})"
    blocks, markers = content_blocks(content, images, collection, where)
    if markers != len(images):
        record_mismatch(report, path, where, markers, images)
        blocks.extend(image_block(i, collection, where) for i in images[markers:])
    if not blocks:
        report.add(path, f"{where}: no content (empty document)", "document")
        return None
    rel = report.rel(path)
    for block in blocks:
        block.source = rel
    title = next((" ".join(b.text.split()) for b in blocks if b.kind == "heading" and b.text), "")
    return build_document(f"{subset_of(path)}/{doc_key}", title, rel, "mramg", blocks, report=report, path=path,
                          title_rule="title: the first heading" if title else "", fallback_title=str(doc_key))


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    docs: list[Document] = []
    for path in filter(is_document_file, files):
        text = read_text(path, report)
        if text is None:
            continue
        collection = ImageCollection(path, root, report)
        seen: set[str] = set()
        for lineno, raw in enumerate(text.splitlines(), 1):
            doc = parse_line(raw, lineno, path, report, collection) if raw.strip() else None
            if doc is not None and doc.id in seen:
                report.add(path, f"line {lineno}: duplicate document id {doc.id!r}", "document")
            elif doc is not None:
                seen.add(doc.id)
                docs.append(doc)
    return docs
