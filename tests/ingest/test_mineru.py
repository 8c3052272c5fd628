"""MinerU content lists: heading levels from text_level, pages, captions in both spellings, tables."""
import json
import shutil

from ham.ingest import ingest_corpus
from tests.ingest.helpers import FIXTURES, heading_path, node_titled, leaf_with

DOC = "solar_panels/auto/solar_panels_content_list.json"


def solar():
    docs, report = ingest_corpus(FIXTURES / "mineru")
    assert report.problems == []
    assert len(docs) == 1
    return docs[0], report


def test_content_list_claims_its_markdown_sibling():
    doc, report = solar()
    assert doc.format == "mineru" and doc.source == DOC
    assert doc.id == "solar_panels/auto/solar_panels"
    assert doc.title == "Maintaining Rooftop Solar Panels"
    assert report.ignored_files == []  # the .md is part of this document, not left over or reported


def test_text_level_nesting_and_page_idx():
    doc, _ = solar()
    schedule = node_titled(doc, "2.1 Schedule")
    assert heading_path(doc, schedule) == ["2 Cleaning"]  # the level-1 heading is the title
    assert schedule.page == 2
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert heading_path(doc, table) == ["2 Cleaning", "2.1 Schedule"]
    assert table.page == 2
    assert leaf_with(doc, "image", "3f9a2c7e").page == 1
    # text_level 0 is body text
    assert leaf_with(doc, "text", "Never use a pressure washer").kind == "text"


def test_image_caption_and_older_img_caption_spelling():
    doc, _ = solar()
    fig1 = leaf_with(doc, "image", "3f9a2c7e")
    assert fig1.image == "images/3f9a2c7e1b5d4a6f8e0c9b7a2d4e6f8a0b1c3d5e7f9a1b3c5d7e9f0a2b4c6d8e.jpg"
    assert fig1.image_path == "solar_panels/auto/" + fig1.image
    assert fig1.caption == "Figure 1: Daily yield of a 5 kW array during a dry month."
    assert leaf_with(doc, "text", "Figure 1: Daily yield").caption_of == fig1.id
    assert leaf_with(doc, "text", "Data logged every 15 minutes.").caption_of is None  # footnote
    fig2 = leaf_with(doc, "image", "c4d5e6f7")
    assert fig2.caption == "Figure 2: A soft brush on an extension pole."  # from "img_caption"
    assert heading_path(doc, fig2)[-1] == "2.2 Method"


def test_table_body_flattened_and_equation_kept_as_latex():
    doc, _ = solar()
    table = next(n for n in doc.leaves() if n.kind == "table")
    # caption, rows and footnote are the table's text: every representation and prompt shows them
    assert table.text == ("Table 1: Suggested cleaning interval\nClimate | Interval\nDry, dusty | Monthly\n"
                          "Temperate | Twice a year\nIntervals assume no nearby construction.")
    assert table.caption == "Table 1: Suggested cleaning interval" and table.label == "Table 1"
    assert table.image_path == "solar_panels/auto/" + table.image  # the table keeps its image
    equation = leaf_with(doc, "text", "\\cdot")
    assert equation.text == "$$\nE = A \\cdot r \\cdot H \\cdot PR\n$$"


def test_lone_mineru_markdown_is_plain_markdown(tmp_path):
    src = FIXTURES / "mineru" / "solar_panels" / "auto"
    shutil.copytree(src / "images", tmp_path / "images")
    shutil.copy(src / "solar_panels.md", tmp_path / "solar_panels.md")
    docs, report = ingest_corpus(tmp_path)
    assert [d.format for d in docs] == ["markdown"]
    assert report.problems == []
    image = next(n for n in docs[0].leaves() if n.kind == "image")
    assert image.caption == "Figure 1: Daily yield of a 5 kW array during a dry month."


def test_page_chrome_dropped_unknown_items_kept_or_reported(tmp_path):
    items = [
        {"type": "header", "text": "Company confidential", "page_idx": 0},
        {"type": "text", "text": "Title", "text_level": 1, "page_idx": 0},
        {"type": "list", "sub_type": "text", "list_items": ["- one", "- two"], "page_idx": 0},
        {"type": "page_footnote", "text": "1 A footnote.", "page_idx": 0},
        {"type": "page_number", "text": "1", "page_idx": 0},
        {"type": "mystery", "page_idx": 0},
        "not an object",
    ]
    (tmp_path / "x_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    texts = [n.text for n in docs[0].leaves()]
    assert texts == ["- one\n- two", "1 A footnote."]
    messages = [str(p) for p in report.problems]
    assert any("x_content_list.json: item 5: unknown type 'mystery'" in m for m in messages)
    assert any("x_content_list.json: item 6 is not an object" in m for m in messages)


def test_non_list_json_is_reported(tmp_path):
    (tmp_path / "x_content_list.json").write_text('{"type": "text"}')
    docs, report = ingest_corpus(tmp_path)
    assert docs == []
    assert "x_content_list.json: a MinerU content list is a JSON list of items, found a JSON dict (document skipped)" in \
        [str(p) for p in report.problems]


def test_a_chapter_number_heading_joins_the_title_after_it(tmp_path):
    # a Redbook's chapter opener as Docling and MinerU give it: "1" and the title, two headings
    items = [{"type": "text", "text": "Row and Column Access Control", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "1", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Securing and protecting IBM DB2 data", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Data is the most valuable asset of a business.", "page_idx": 1},
             {"type": "text", "text": "1.1 Security fundamentals", "text_level": 1, "page_idx": 2},
             {"type": "text", "text": "Start from a security policy.", "page_idx": 2}]
    (tmp_path / "redbook_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert [(n.kind, n.title) for n in doc.root.walk() if n.kind in ("section", "subsection")] == [
        ("section", "1 Securing and protecting IBM DB2 data"), ("subsection", "1.1 Security fundamentals")]
    assert report.excluded["redbook_content_list.json"]["chapter opener label (joined to its title)"] == 1
