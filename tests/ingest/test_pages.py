"""Page images of a corpus: the demo PDF's pages and the units on them, resolution, the cache,
bad files, MinerU's origin PDF, MMDocIR's page screenshots and layout crops, ViDoRe's corpus."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ham.cache import FolderCache
from ham.conf import DATA_DIR
from ham.ingest.corpus import load_corpus
from ham.ingest.pages import collect_pages, layout_crop
from tests.support.pdfs import manual_pdf, scanned_pdf

DEMO_PDF = DATA_DIR / "demo" / "corpus" / "pdf"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


def _collect(root: Path, cache_root: Path, dpi: int = 72):
    cache = FolderCache(cache_root)
    corpus = load_corpus(root, cache)
    pages, info = collect_pages(corpus, cache, dpi)
    return corpus, pages, info


def test_demo_pdf_pages_list_exactly_the_units_printed_on_them(tmp_path):
    corpus, pages, info = _collect(DEMO_PDF, tmp_path)
    assert [(p.page_id, p.page, p.source, p.origin) for p in pages] == [
        ("expense_accounts#p0", 0, "expense_accounts.pdf", "pdf"), ("expense_accounts#p1", 1, "expense_accounts.pdf", "pdf")]
    for page in pages:
        expected = [u.unit_id for u in sorted(corpus.units, key=lambda u: u.order)
                    if u.doc_id == page.doc_id and u.page == page.page]
        assert page.units == expected and expected
    listed = [uid for p in pages for uid in p.units]
    assert len(listed) == len(set(listed)) == sum(1 for u in corpus.units if u.page is not None)
    texts = {u.unit_id: u.content for u in corpus.units}
    assert any("Tot Rebate" in texts[u] for u in pages[0].units)            # the register columns, page 1
    assert any("Equity account" in texts[u] for u in pages[1].units)        # zeroing transactions, page 2
    assert (pages[0].width, pages[0].height) == (612, 792)                  # US Letter at 72 dpi
    assert pages[0].extra == {"dpi": 72, "points": [612.0, 792.0]} and info["with_units"] == 2


def test_resolution_is_configured_and_renders_are_cached_by_content(tmp_path):
    _, pages, info = _collect(DEMO_PDF, tmp_path)
    assert info["built"] == 1
    _, again, info = _collect(DEMO_PDF, tmp_path)
    assert info["reused"] == 1 and again[0].image_path == pages[0].image_path
    _, sharp, info = _collect(DEMO_PDF, tmp_path, dpi=144)
    assert info["built"] == 1 and (sharp[0].width, sharp[0].height) == (1224, 1584)
    with pytest.raises(ValueError, match="dpi"):
        _collect(DEMO_PDF, tmp_path, dpi=0)


def test_a_corrupt_pdf_is_a_problem_naming_it_and_the_rest_are_pages(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    manual_pdf(root / "manual.pdf", pages=2)
    (root / "manual.fig.png").unlink()
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a PDF")
    scanned_pdf(root / "scan.pdf")
    _, pages, info = _collect(root, tmp_path / "cache")
    assert {p.doc_id for p in pages} == {"manual", "scan"}
    assert any(p.startswith("broken.pdf: cannot render its pages") for p in info["problems"])
    scan = [p for p in pages if p.doc_id == "scan"]
    assert scan and all(p.units == [] for p in scan)     # no text layer: pages all the same, no units


def test_mineru_origin_pdf_is_the_pages_of_its_document(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    manual_pdf(root / "pump_origin.pdf", pages=2)
    (root / "pump_origin.fig.png").unlink()
    shutil.copy(root / "pump_origin.pdf", root / "pump_layout.pdf")   # MinerU's debug render: not pages
    (root / "pump_content_list.json").write_text(json.dumps([
        {"type": "text", "text": "Pump manual", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "Install the pump on a level base.", "page_idx": 0},
        {"type": "text", "text": "Check the oil every month.", "page_idx": 1}]))
    corpus, pages, _ = _collect(root, tmp_path / "cache")
    assert [(p.doc_id, p.page, p.origin) for p in pages] == [("pump", 0, "pdf"), ("pump", 1, "pdf")]
    texts = {u.unit_id: u.content for u in corpus.units}
    assert [texts[u] for u in pages[1].units] == ["Check the oil every month."]


def test_mmdocir_screenshots_are_pages_and_layout_boxes_crop_them(tmp_path):
    root = tmp_path / "mmdocir"
    root.mkdir()
    for name in ("MMDocIR_layouts.parquet", "MMDocIR_pages.parquet"):
        shutil.copy(FIXTURES / "mmdocir" / name, root / name)
    corpus, pages, info = _collect(root, tmp_path / "cache")
    assert info["by_origin"] == {"mmdocir": 4}
    by_id = {p.page_id: p for p in pages}
    page = by_id["alpha-report#p1"]
    units = {u.unit_id: u for u in corpus.units}
    assert all(units[u].page == 1 and units[u].doc_id == "alpha-report" for u in page.units)
    assert "alpha-report:10#image" in page.units                       # a table's image twin is on its page
    assert [lay["unit_id"] for lay in page.layouts].count("alpha-report:10") == 1
    assert "alpha-report:10#image" not in [lay["unit_id"] for lay in page.layouts]   # its box once
    table = next(lay for lay in page.layouts if lay["unit_id"] == "alpha-report:10")
    from PIL import Image

    big = tmp_path / "page.png"
    Image.new("RGB", (612 * 2, 792 * 2), "white").save(big)
    page.image_path, page.width, page.height = str(big), 612 * 2, 792 * 2
    assert layout_crop(page, table).size == (2 * (560 - 50), 2 * (300 - 80))   # page coordinates x 2
    tiny = layout_crop(page, {**table, "bbox": [50, 80, 560, 82]})          # a 4-pixel strip is enlarged
    assert tiny.size == (round(1020 * 28 / 4), 28)
    assert page.extra["passage_id"] == "1"


def test_vidore_corpus_rows_are_pages_with_their_units(tmp_path):
    corpus, pages, info = _collect(FIXTURES / "vidore" / "v3", tmp_path)
    assert info["by_origin"] == {"vidore": 5} and info["pages"] == 5
    units = {u.unit_id: u for u in corpus.units}
    for page in pages:
        assert all(units[u].extra["corpus_id"] == page.extra["corpus_id"] for u in page.units)
    image_only = [p for p in pages if not p.units]
    assert [(p.doc_id, p.page, p.extra["corpus_id"]) for p in image_only] == [("energy-report", 2, "2")]
