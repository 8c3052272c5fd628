"""MMDocIR layouts parquet -> one tree per document (document -> page -> layout units), streamed
by row batches, with the source facts on each unit."""
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from ham.document import Document
from ham.ingest import ingest_corpus, mmdocir
from ham.units import build_units, is_table_image
from tests.datasets.conftest import MMDOCIR


def _docs(root) -> dict[str, Document]:
    docs, _ = ingest_corpus(root)
    return {d.id: d for d in docs}


def test_one_tree_per_document_pages_then_titles_nesting_their_units(mmdocir_root):
    docs, report = ingest_corpus(mmdocir_root)
    assert [d.id for d in docs] == ["alpha-report", "beta-guide"]
    alpha = docs[0]
    assert alpha.title == "alpha-report.pdf" and alpha.format == "mmdocir"
    pages = alpha.root.children
    assert [(p.kind, p.title, p.page) for p in pages] == [("section", "Page 1", 0), ("section", "Page 2", 1)]
    intro = pages[0].children[0]
    assert (intro.kind, intro.title) == ("subsection", "1. Introduction")
    assert [c.kind for c in intro.children] == ["text", "text", "image", "text"]
    assert intro.children[0].text == "1. Introduction" and intro.children[0].meta["modality"] == "title"
    methods = pages[1].children[0]
    assert methods.title == "2. Methods"
    assert [c.kind for c in methods.children] == ["text", "table", "text", "text"]
    # the pages parquet and the annotations are claimed, not left as unknown files
    assert report.ignored_files == []


def test_units_keep_layout_id_bbox_page_size_and_ocr_vlm_text(mmdocir_units):
    by_layout = {(u.doc_id, u.extra["layout_id"]): u for u in mmdocir_units if not is_table_image(u)}
    chart = by_layout[("alpha-report", 2)]
    assert chart.kind == "image" and chart.page == 0
    assert chart.extra["bbox"] == [300.0, 170.0, 560.0, 400.0] and chart.extra["page_size"] == [612.0, 792.0]
    assert chart.extra["vlm_text"].startswith("A bar chart") and chart.extra["ocr_text"] == "2008 2015 67% 81%"
    assert chart.extra["doc_name"] == "alpha-report.pdf" and chart.extra["layout_type"] == "image"
    assert chart.image == "layout_images/alpha-report_2.jpg"
    assert chart.caption == "Figure 1: Confidence rose between 2008 and 2015."   # the caption layout after it
    table = by_layout[("alpha-report", 5)]
    assert table.kind == "table" and table.modality == "text"
    assert table.content == "Group | 2008 | 2015\nAdults | 67 | 81"
    assert table.image_path == ".ham/mmdocir/alpha-report/5.jpg"   # the table keeps its crop
    (twin,) = [u for u in mmdocir_units if u.extra.get("table_unit") == table.unit_id]
    assert twin.modality == "image" and twin.image_path == table.image_path and twin.extra["layout_id"] == 5
    assert by_layout[("alpha-report", 6)].extra["modality"] == "equation"
    assert ("alpha-report", 7) not in by_layout                # an empty text layout is left out
    assert [u.extra["row"] for u in mmdocir_units if u.doc_id == "beta-guide"] == [9, 10, 11, 12, 13]


def test_image_bytes_are_written_once_under_a_hidden_folder(mmdocir_root, mmdocir_units):
    written = mmdocir_root / ".ham" / "mmdocir" / "alpha-report" / "2.jpg"
    assert written.read_bytes()[:2] == b"\xff\xd8"
    chart = next(u for u in mmdocir_units if u.extra.get("layout_id") == 2 and u.doc_id == "alpha-report")
    assert chart.image_path == ".ham/mmdocir/alpha-report/2.jpg"
    mtime = written.stat().st_mtime_ns
    ingest_corpus(mmdocir_root)
    assert written.stat().st_mtime_ns == mtime


def test_the_datasets_own_layout_image_is_used_when_present(mmdocir_root):
    own = mmdocir_root / "layout_images" / "beta-guide_3.jpg"
    own.parent.mkdir()
    Image.new("RGB", (4, 4)).save(own, format="JPEG")
    units = [u for d in ingest_corpus(mmdocir_root)[0] for u in build_units(d)]
    figure = next(u for u in units if u.doc_id == "beta-guide" and u.kind == "image")
    assert figure.image_path == "layout_images/beta-guide_3.jpg"
    assert not (mmdocir_root / ".ham" / "mmdocir" / "beta-guide" / "3.jpg").exists()


def test_figure_without_image_bytes_stays_a_text_unit_and_is_reported(mmdocir_root):
    docs, report = ingest_corpus(mmdocir_root)
    units = [u for d in docs for u in build_units(d)]
    pie = next(u for u in units if u.extra.get("layout_id") == 8)
    assert pie.kind == "text" and pie.extra["image_missing"] is True and "pie chart" in pie.content
    assert any("figure layout(s) 8 have no usable image" in p.problem for p in report.problems)


def test_streams_in_small_batches_without_reading_the_whole_table(mmdocir_root, monkeypatch):
    whole = {d.id: d.to_dict() for d in ingest_corpus(mmdocir_root)[0]}
    monkeypatch.setattr(mmdocir, "BATCH_ROWS", 3)
    seen = []
    original = pq.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        seen.append((kwargs.get("batch_size"), tuple(kwargs.get("columns") or ())))
        return original(self, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("the whole table was read")

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    monkeypatch.setattr(pq.ParquetFile, "read", refuse)
    monkeypatch.setattr(pq, "read_table", refuse)
    assert {d.id: d.to_dict() for d in ingest_corpus(mmdocir_root)[0]} == whole
    assert seen and seen[0][0] == 3
    assert "image_binary" in seen[0][1] and "domain" in seen[0][1]


def _write(path, rows):
    pq.write_table(pa.Table.from_pylist(rows), path)


def _row(doc, lid, page, text, kind="text"):
    return {"doc_name": doc, "domain": "News", "type": kind, "layout_id": lid, "page_id": page,
            "text": text, "bbox": [0.0, 0.0, 10.0, 10.0], "page_size": [100.0, 100.0]}


def test_rows_of_a_document_that_come_back_later_are_reported_and_left_out(tmp_path):
    _write(tmp_path / "layouts.parquet", [_row("a.pdf", 0, 0, "one"), _row("b.pdf", 0, 0, "two"),
                                          _row("a.pdf", 1, 0, "three")])
    docs, report = ingest_corpus(tmp_path)
    assert [d.id for d in docs] == ["a", "b"]
    assert [n.text for n in docs[0].leaves()] == ["one"]
    assert any("rows of document 'a.pdf' are not contiguous" in p.problem for p in report.problems)


def test_a_parquet_file_without_the_layout_columns_is_not_claimed(tmp_path):
    _write(tmp_path / "other.parquet", [{"x": 1}])
    assert mmdocir.claim([tmp_path / "other.parquet"]) == []
    docs, report = ingest_corpus(tmp_path)
    assert docs == [] and report.ignored_files == ["other.parquet"]


def test_text_level_column_makes_headings_when_a_file_has_one(tmp_path):
    rows = [dict(_row("c.pdf", 0, 0, "Overview"), text_level=1), _row("c.pdf", 1, 0, "Body text."),
            dict(_row("c.pdf", 2, 0, "Details"), text_level=2), _row("c.pdf", 3, 0, "More text.")]
    _write(tmp_path / "layouts.parquet", rows)
    doc = ingest_corpus(tmp_path)[0][0]
    overview = doc.root.children[0].children[0]
    assert overview.title == "Overview" and overview.children[-1].title == "Details"


def test_fixture_parquet_has_several_row_groups_and_the_dataset_card_columns():
    pf = pq.ParquetFile(MMDOCIR / "MMDocIR_layouts.parquet")
    assert pf.metadata.num_row_groups > 1
    assert pf.schema_arrow.names == ["doc_name", "domain", "type", "layout_id", "page_id", "image_path",
                                     "image_binary", "text", "ocr_text", "vlm_text", "bbox", "page_size"]
    assert pq.ParquetFile(MMDOCIR / "MMDocIR_pages.parquet").schema_arrow.names == [
        "doc_name", "domain", "passage_id", "image_path", "image_binary", "ocr_text", "vlm_text"]
