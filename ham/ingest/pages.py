"""Page images of a corpus (``ham.pages.PageUnit``), found by scanning the corpus folder, so a
page is an image even where no text could be read from it (a scanned PDF ham reports as having
no text layer is still a set of pages):

    *.pdf                       every page rendered with pypdfium2 at ``dpi`` (PNG); MinerU's
                                ``<name>_origin.pdf`` (the PDF it parsed) is the pages of the MinerU
                                document ``<name>``; MinerU's debug renders (``_layout.pdf``,
                                ``_span.pdf``, ...) are not pages
    MMDocIR_pages.parquet       the page screenshots as shipped (``image_binary``, JPEG), pages of
                                a document numbered by their row order within it, as MMDocIR's
                                ``search.py`` numbers them
    ViDoRe corpus/*.parquet     the corpus images as shipped, each row the page
                                ``ham.ingest.vidore.page_names`` names

Images are stored under the cache (``pages/<key>/``), one entry per source file, keyed by the
file's content hash, the resolution (PDFs) and ``PAGES_VERSION``: moving the corpus keeps them,
changing a file or the dpi renders again. A page's ``units`` are the corpus units of its
document on its page number, in source order; its ``layouts`` the units with a box and a page
size (MMDocIR's layouts; a table's image twin is its table's box, listed once), for layout crops
(``layout_crop``). A PDF that pypdfium2 cannot open,
or a parquet row whose image cannot be decoded, is a problem naming the file (and the row); the
other pages are still collected.
"""
from __future__ import annotations

import json
import logging
from collections import defaultdict
from pathlib import Path

from ham.cache import FolderCache, content_hash, key_of
from ham.pages import PageUnit, page_id_of
from ham.units import is_table_image

log = logging.getLogger("ham.ingest.pages")
PAGES_VERSION = "1"
DEFAULT_DPI = 144
MINERU_RENDERS = ("_layout.pdf", "_span.pdf", "_spans.pdf", "_model.pdf", "_line_sort.pdf")   # _spans: magic-pdf 0.x


def _visible(root: Path, suffix: str) -> list[Path]:
    return sorted(p for p in root.rglob(f"*{suffix}") if p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def pdf_doc_id(path: Path, root: Path) -> str | None:
    """The ham document id a PDF's pages belong to (None: a MinerU debug render, not pages)."""
    from ham.ingest.builder import doc_id_for
    from ham.ingest.mineru_files import V1, V2

    rel = path.relative_to(root).as_posix()
    if path.name.endswith(MINERU_RENDERS):
        return None
    if path.name.endswith("_origin.pdf"):
        stem = path.name[: -len("_origin.pdf")]
        if (path.parent / f"{stem}{V1}").exists() or (path.parent / f"{stem}{V2}").exists():
            return doc_id_for(rel[: -len("_origin.pdf")] + ".json")
    return doc_id_for(rel)


def render_pdf(path: Path, folder: Path, dpi: int) -> list[dict]:
    """Every page of ``path`` as ``page-NNNNN.png`` in ``folder``; one record per page."""
    import pypdfium2

    records = []
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        for n in range(len(pdf)):
            page = pdf[n]
            width_pt, height_pt = page.get_size()
            image = page.render(scale=dpi / 72).to_pil().convert("RGB")
            name = f"page-{n:05d}.png"
            image.save(folder / name, format="PNG")
            records.append({"doc": None, "page": n, "file": name, "width": image.width, "height": image.height,
                            "extra": {"dpi": dpi, "points": [round(width_pt, 2), round(height_pt, 2)]}})
            page.close()
    finally:
        pdf.close()
    return records


def _image_bytes(value) -> bytes | None:
    """Image bytes of a parquet cell: raw bytes, or an HF Image struct ``{bytes, path}``."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, dict) and isinstance(value.get("bytes"), (bytes, bytearray)):
        return bytes(value["bytes"])
    return None


def _store(data: bytes | None, folder: Path, stem: str, name: str) -> tuple[str, int, int]:
    """Write the bytes as shipped, once they are known to decode; (file name, width, height)."""
    from ham.images import probe_bytes

    fmt, width, height = probe_bytes(data, name)
    file = f"{stem}.{ {'JPEG': 'jpg', 'PNG': 'png', 'WEBP': 'webp'}.get(fmt, 'img') }"
    (folder / file).write_bytes(data)
    return file, width, height


def parquet_pages(path: Path, folder: Path, problems: list[str]) -> list[dict]:
    """Page images of an MMDocIR pages parquet or a ViDoRe corpus shard (module docstring)."""
    from ham.images import UnreadableImage
    from ham.ingest import mmdocir, vidore

    records = []
    if mmdocir.is_pages_file(path):
        count: dict[str, int] = defaultdict(int)
        for n, row in enumerate(vidore.iter_rows(path, ["doc_name", "passage_id", "image_binary"])):
            doc = mmdocir.doc_id_of(str(row.get("doc_name") or ""))
            page = count[doc]
            count[doc] += 1
            try:
                name, w, h = _store(_image_bytes(row.get("image_binary")), folder, f"{n:06d}",
                                    f"row {n} ({doc} page {page})")
            except UnreadableImage as exc:
                problems.append(f"page image unusable: {exc}")
                continue
            records.append({"doc": doc, "page": page, "file": name, "width": w, "height": h,
                            "extra": {"passage_id": row.get("passage_id"), "row": n}})
        return records
    id_col = vidore.column(vidore.schema_names(path) or set(), vidore.ID)
    for n, row in enumerate(vidore.iter_rows(path, [id_col, "image"])):
        cid = str(row[id_col])
        try:
            name, w, h = _store(_image_bytes(row.get("image")), folder, f"{n:06d}", f"row {n} (corpus id {cid})")
        except UnreadableImage as exc:
            problems.append(f"page image unusable: {exc}")
            continue
        # the page's document and number are named over the whole set (``collect_pages``)
        records.append({"doc": None, "page": None, "file": name, "width": w, "height": h,
                        "extra": {"corpus_id": cid, "row": n}})
    return records


def page_sources(root: Path) -> list[tuple[Path, str]]:
    """(file, origin) of every page source under the corpus root (module docstring)."""
    from ham.ingest import mmdocir, vidore

    out = [(p, "pdf") for p in _visible(root, ".pdf") if pdf_doc_id(p, root) is not None]
    for p in _visible(root, ".parquet"):
        if mmdocir.is_pages_file(p):
            out.append((p, "mmdocir"))
        elif vidore.is_corpus_file(p):
            out.append((p, "vidore"))
    return out


def collect_pages(corpus, cache: FolderCache, dpi: int = DEFAULT_DPI) -> tuple[list[PageUnit], dict]:
    """The corpus's pages (module docstring) and a record: pages per origin, cache entries reused,
    problems."""
    if dpi < 1:
        raise ValueError(f"pages.dpi must be >= 1, not {dpi}")
    root = Path(corpus.root)
    on_page: dict[tuple[str, int], list] = defaultdict(list)
    for unit in sorted(corpus.units, key=lambda u: (u.doc_id, u.order)):
        if unit.page is not None:
            on_page[(unit.doc_id, unit.page)].append(unit)
    pages: list[PageUnit] = []
    info = {"by_origin": {}, "reused": 0, "built": 0, "problems": [], "dpi": dpi}
    set_names: dict[Path, dict] = {}   # ViDoRe set folder -> its pages' names
    for path, origin in page_sources(root):
        problems: list[str] = []
        key = key_of(["pages", content_hash(path), origin, dpi if origin == "pdf" else None, PAGES_VERSION])

        def build(folder: Path, path=path, origin=origin, problems=problems) -> None:
            records = render_pdf(path, folder, dpi) if origin == "pdf" else parquet_pages(path, folder, problems)
            (folder / "pages.json").write_text(json.dumps({"records": records, "problems": problems}))

        try:
            folder, reused = cache.get_or_build("pages", key, build)
        except _render_errors() as exc:
            info["problems"].append(f"{path.relative_to(root).as_posix()}: cannot render its pages "
                                    f"({exc.__class__.__name__}: {exc})")
            continue
        stored = json.loads((folder / "pages.json").read_text())
        info["problems"].extend(f"{path.relative_to(root).as_posix()}: {p}" for p in stored["problems"])
        info["reused" if reused else "built"] += 1
        rel = path.relative_to(root).as_posix()
        if origin == "vidore" and path.parent not in set_names:
            set_names[path.parent] = vidore_names(path.parent)
        names = set_names.get(path.parent, {})
        for rec in stored["records"]:
            if origin == "vidore":
                rec = {**rec, "doc": names[rec["extra"]["corpus_id"]][0], "page": names[rec["extra"]["corpus_id"]][1]}
            doc_id = rec["doc"] or pdf_doc_id(path, root)
            units = on_page.get((doc_id, rec["page"]), [])
            layouts = [{"unit_id": u.unit_id, "bbox": u.extra["bbox"], "page_size": u.extra["page_size"]}
                       for u in units if _has_box(u) and not is_table_image(u)]
            pages.append(PageUnit(page_id_of(doc_id, rec["page"]), doc_id, rec["page"], rel,
                                  str(folder / rec["file"]), rec["width"], rec["height"], origin,
                                  [u.unit_id for u in units], layouts, rec.get("extra") or {}))
        info["by_origin"][origin] = info["by_origin"].get(origin, 0) + len(stored["records"])
    seen: dict[str, PageUnit] = {}
    for page in pages:
        if page.page_id in seen:
            info["problems"].append(f"{page.source}: page {page.page + 1} of {page.doc_id} is also in "
                                    f"{seen[page.page_id].source}; the first one is kept")
            continue
        seen[page.page_id] = page
    for problem in info["problems"]:
        log.warning("%s", problem)
    info["pages"] = len(seen)
    info["with_units"] = sum(1 for p in seen.values() if p.units)
    return list(seen.values()), info


def vidore_names(folder: Path) -> dict[str, tuple[str, int]]:
    """``ham.ingest.vidore.page_names`` over every corpus shard of a set folder."""
    from ham.ingest import vidore

    return vidore.page_names(sorted(p for p in folder.glob("*.parquet") if vidore.is_corpus_file(p)))


def _render_errors() -> tuple[type[BaseException], ...]:
    import pypdfium2
    from pyarrow import ArrowException

    return (pypdfium2.PdfiumError, ArrowException, OSError, ValueError)


def _has_box(unit) -> bool:
    box, size = unit.extra.get("bbox"), unit.extra.get("page_size")
    return bool(box) and len(box) == 4 and bool(size) and len(size) == 2 and size[0] > 0 and size[1] > 0


MIN_CROP_SIDE = 28   # a crop narrower than this is enlarged: image processors guess the channel axis from shape


def layout_crop(page: PageUnit, layout: dict):
    """The region of ``page``'s image a layout's box covers (box in page-size coordinates, scaled to
    the image), as an RGB image; a crop under ``MIN_CROP_SIDE`` pixels on a side (a rule line, a
    page number) is enlarged to it, keeping its aspect ratio."""
    from ham.images import open_image

    image = open_image(Path(page.image_path))
    sx, sy = image.width / layout["page_size"][0], image.height / layout["page_size"][1]
    x0, y0, x1, y1 = layout["bbox"]
    box = (max(0, int(x0 * sx)), max(0, int(y0 * sy)), min(image.width, max(int(x1 * sx), int(x0 * sx) + 1)),
           min(image.height, max(int(y1 * sy), int(y0 * sy) + 1)))
    crop = image.crop(box)
    if min(crop.size) < MIN_CROP_SIDE:
        scale = MIN_CROP_SIDE / min(crop.size)
        crop = crop.resize((max(MIN_CROP_SIDE, round(crop.width * scale)), max(MIN_CROP_SIDE, round(crop.height * scale))))
    return crop
