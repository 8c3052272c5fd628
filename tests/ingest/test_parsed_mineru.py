"""Real-shaped MinerU outputs (tests/fixtures/ingest/parsed, built by its build.py): the failures
issue 11 found on a conference paper, a bilingual datasheet, a v2-only output and older/newer
content lists, each reproduced and checked."""
import json
import shutil

import bm25s
import pytest

from ham.ingest import ingest_corpus
from ham.text import tokenize
from ham.units import build_units
from tests.ingest.helpers import FIXTURES, heading_path, node_titled

PARSED = FIXTURES / "parsed"


def one(name):
    docs, report = ingest_corpus(PARSED / name)
    assert len(docs) == 1, [d.source for d in docs]
    return docs[0], report


def top_hit(doc, query, modality="text"):
    # one modality's units, as ham indexes them (text and images have separate indexes)
    units = [u for u in build_units(doc) if u.modality == modality]
    index = bm25s.BM25()
    index.index(tokenize([u.content for u in units]), show_progress=False)
    ids, _ = index.retrieve([tokenize([query])[0]], k=1, show_progress=False)
    return units[int(ids[0][0])]


def test_paper_flat_text_level_nests_by_numbering_and_font_size():
    doc, report = one("paper")
    assert doc.title == "Hierarchy-Aware Retrieval for Manuals"
    sections = [n.title for n in doc.root.children if n.kind == "section"]
    assert sections == ["Abstract", "1 Introduction", "Related Work", "2 Method", "3 Experiments", "References"]
    assert heading_path(doc, node_titled(doc, "1.2.1 Trees")) == ["1 Introduction", "1.2 Contributions"]
    # unnumbered subsections of an unnumbered section: middle.json's line heights
    graph = node_titled(doc, "Graph-based RAG")
    assert heading_path(doc, graph) == ["Related Work"] and graph.kind == "subsection"
    assert graph.rule.startswith("font size 10.9pt")
    assert node_titled(doc, "1.2 Contributions").rule == "numbering 1.2 -> depth 2"
    # discarded blocks (arXiv stamp, copyright, page number) are not content, and are counted
    texts = " ".join(n.text for n in doc.leaves())
    assert "arXiv" not in texts and "©" not in texts
    assert report.excluded_totals()["discarded (by MinerU)"] == 3
    # the .md and _origin.pdf beside the content list are part of it, not documents of their own
    assert report.ignored_files == [] and report.problems == []


def test_paper_unnumbered_sections_nest_by_vocabulary_without_middle_json(tmp_path):
    shutil.copytree(PARSED / "paper", tmp_path / "paper")
    (tmp_path / "paper" / "auto" / "paper_middle.json").unlink()
    doc, _ = one(tmp_path / "paper")
    related = node_titled(doc, "Related Work")
    assert related.kind == "section" and related.rule == "section vocabulary (paper): top level"
    assert heading_path(doc, node_titled(doc, "Multimodal RAG")) == ["Related Work"]


def test_paper_table_caption_is_retrievable_and_the_table_keeps_its_image():
    doc, _ = one("paper")
    unit = top_hit(doc, "results of the ablation study")
    assert unit.kind == "table" and unit.modality == "text"
    assert unit.content.startswith("Table 3: Results of ablation study\nVariant | EM")
    assert "Scores are exact match" in unit.content  # the footnote too
    assert unit.image_path and unit.image_path.endswith(".jpg") and unit.label == "Table 3"
    assert unit.page == 2 and unit.index is not None
    # the image side finds the same table by its caption, as a twin that names its text unit
    twin = top_hit(doc, "results of the ablation study", modality="image")
    assert twin.unit_id == unit.unit_id + "#image" and twin.kind == "table"
    assert twin.image_path == unit.image_path and twin.extra["table_unit"] == unit.unit_id
    assert twin.content == "Table 3: Results of ablation study" and twin.page == unit.page


def test_datasheet_title_skips_the_table_of_contents():
    doc, report = one("datasheet")
    assert doc.title == "LC-18650-26 锂离子电池规格书 Lithium-ion Cell Specification"
    assert "table of contents" in doc.root.rule or doc.root.rule.startswith("title:")
    texts = [n.text for n in doc.leaves()]
    assert not any("........" in t for t in texts)  # the TOC entries are gone
    assert report.excluded_totals()["table of contents"] == 2  # its heading and its entries


def test_datasheet_footers_and_running_header_are_excluded_on_every_page():
    doc, report = one("datasheet")
    texts = " ".join(n.text for n in doc.leaves())
    assert "第 3 页" not in texts and "规格书 Specification V1.2" not in texts
    totals = report.excluded_totals()
    assert totals["page number"] == 4 and totals["running header/footer"] == 3


def test_datasheet_merged_table_is_one_unit_and_the_heading_in_its_caption_is_a_heading():
    doc, report = one("datasheet")
    tables = [n for n in doc.leaves() if n.kind == "table"]
    assert len(tables) == 1
    assert report.excluded_totals()["table continuation stub (already merged by the parser)"] == 1
    assert not any("without body" in p.problem for p in report.problems)  # not reported as lost
    assert heading_path(doc, tables[0]) == ["2 电性能 Electrical characteristics", "2.1 基本参数 Basic parameters"]
    assert tables[0].caption == "表 1 电性能参数 Electrical characteristics" and tables[0].label == "Table 1"


def test_datasheet_chart_is_an_image_with_its_caption():
    doc, _ = one("datasheet")
    chart = next(n for n in doc.leaves() if n.kind == "image")
    assert chart.caption.startswith("图 1 放电曲线") and chart.label == "Figure 1" and chart.page == 3


def test_bilingual_question_finds_its_answer_row_with_cjk_tokens():
    doc, _ = one("datasheet")
    assert top_hit(doc, "额定容量是多少").kind == "table"
    assert "2600 mAh" in top_hit(doc, "电池的额定容量").content


def test_content_list_v2_alone_is_read_not_its_markdown():
    doc, report = one("manual_v2")
    assert doc.format == "mineru" and doc.source.endswith("manual_content_list_v2.json")
    assert report.ignored_files == [] and report.problems == []
    assert heading_path(doc, node_titled(doc, "1.1 Bolts")) == ["1 Installation"]
    assert not any(n.kind == "step" for n in doc.root.walk())  # "1. In addition, ..." is text
    image = next(n for n in doc.leaves() if n.kind == "image")
    assert image.page == 0 and image.caption == "Figure 1: The pump on its base"
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert table.text.splitlines() == ["Table 1: Bolt torques", "Bolt | Torque", "M10 | 45 Nm"] and table.page == 1
    assert report.excluded_totals() == {"page header": 1, "page number": 2}


def test_magic_pdf_0x_spelling():
    doc, _ = one("oldpdf")
    image = next(n for n in doc.leaves() if n.kind == "image")
    assert image.caption == "Fig. 1 The wall bracket" and image.label == "Figure 1"
    assert heading_path(doc, node_titled(doc, "1.1. Choosing a wall")) == ["1. Mounting"]


def test_mineru_3_types_are_content_or_counted_exclusions():
    doc, report = one("mineru3")
    texts = [n.text for n in doc.leaves() if n.kind == "text"]
    assert "Keep the router dry.\nUse the supplied adapter." in texts  # list
    assert "router> reset --factory" in texts and "1 The adapter is rated 12 V, 1 A." in texts
    assert not any("Confidential" in t or "Draft" in t for t in texts)
    chart = next(n for n in doc.leaves() if n.kind == "image")
    assert chart.caption == "Chart 1: Throughput by load"
    assert report.excluded_totals() == {"page header": 1, "page footer": 2, "page number": 2, "aside text": 1}
    assert report.problems == []


def test_mineru_output_without_a_content_list_is_an_error_naming_the_files(tmp_path):
    out = tmp_path / "doc" / "auto"
    out.mkdir(parents=True)
    (out / "doc.md").write_text("# Title\n\n1. In addition, text.\n")
    (out / "doc_middle.json").write_text(json.dumps({"pdf_info": []}))
    docs, report = ingest_corpus(tmp_path)
    assert docs == []  # never a silent fallback to the Markdown
    (problem,) = report.problems
    assert problem.file == "doc/auto/doc_middle.json"
    assert "doc_content_list.json" in problem.problem and "doc_content_list_v2.json" in problem.problem


def test_a_list_that_is_not_a_content_list_names_what_was_expected(tmp_path):
    (tmp_path / "x_content_list.json").write_text(json.dumps([{"kind": "para", "body": "hello"}]))
    (tmp_path / "y_content_list_v2.json").write_text(json.dumps([{"type": "title"}]))
    docs, report = ingest_corpus(tmp_path)
    assert docs == []
    messages = {p.file: p.problem for p in report.problems}
    assert "no 'type' field" in messages["x_content_list.json"]
    assert "one list of {type, content} items per page" in messages["y_content_list_v2.json"]


def test_unsupported_files_are_named_in_the_summary(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    (tmp_path / "notes.rtf").write_text("{\\rtf1 hello}")
    (tmp_path / "data.xyz").write_text("?")
    _, report = ingest_corpus(tmp_path)
    assert "left alone): 1 file(s): data.xyz" in report.summary()
    (problem,) = report.problems  # a known document format ham does not read says what to do
    assert problem.file == "notes.rtf" and "convert it to PDF or DOCX" in problem.problem


@pytest.mark.parametrize("name", ["paper", "datasheet", "manual_v2", "oldpdf", "mineru3"])
def test_every_unit_of_a_paged_source_has_its_page(name):
    doc, _ = one(name)
    assert all(u.page is not None for u in build_units(doc))


def _content_list(tmp_path, items):
    out = tmp_path / "doc" / "auto"
    (out / "images").mkdir(parents=True)
    for name in ("c.jpg", "s.jpg"):
        (out / "images" / name).write_bytes((PARSED / "oldpdf" / "images").glob("*.jpg").__next__().read_bytes())
    (out / "doc_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1, report.summary()
    return docs[0], report


def test_mineru_3_chart_data_and_seal_text_are_read(tmp_path):
    # MinerU 3.x: a chart's `content` is its data as a Markdown table (HTML from Office files), a
    # seal image's `content` its text; both had been dropped
    doc, report = _content_list(tmp_path, [
        {"type": "text", "text": "Results", "text_level": 1, "page_idx": 0},
        {"type": "chart", "img_path": "images/c.jpg", "content": "| Year | Revenue |\n|---|---|\n| 2021 | 4.2 |\n"
         "| 2022 | 5.9 |", "chart_caption": ["Figure 2: Revenue by year"], "chart_footnote": [], "page_idx": 0},
        {"type": "image", "img_path": "images/s.jpg", "content": "ACME CORPORATION CONTRACT SEAL", "sub_type": "seal",
         "image_caption": [], "image_footnote": [], "page_idx": 0},
        {"type": "chart", "img_path": "", "content": "<table><tr><td>Q1</td><td>12</td></tr></table>",
         "chart_caption": ["Figure 3: Orders"], "page_idx": 1}])
    tables = [n for n in doc.leaves() if n.kind == "table"]
    assert [t.text.splitlines()[1:] for t in tables] == [["Year | Revenue", "2021 | 4.2", "2022 | 5.9"], ["Q1 | 12"]]
    assert tables[0].caption == "Figure 2: Revenue by year"
    assert "ACME CORPORATION CONTRACT SEAL" in [n.text for n in doc.leaves() if n.kind == "text"]
    assert any("chart without an image path (its data is read)" in p.problem for p in report.problems)


def test_mineru_markdown_escapes_are_removed_outside_math_and_code(tmp_path):
    # MinerU >= 3.1 escapes * _ ` ~ $ in text and a leading "-" or "#"; code and inline math are not escaped
    doc, _ = _content_list(tmp_path, [
        {"type": "text", "text": "2 Model\\_v2 results", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "Net revenue was \\$5.2 million; the p\\_value $p\\_0 < 0.05$ held.", "page_idx": 0},
        {"type": "text", "text": "\\- 40% chose option \\*A\\*.", "page_idx": 0},
        {"type": "list", "sub_type": "text", "list_items": ["run\\_all --fast", "stop\\_all"], "page_idx": 0},
        {"type": "code", "sub_type": "code", "code_body": "x = a\\_b", "code_caption": ["Listing 1: set\\_x"],
         "page_idx": 0}])
    texts = [n.text for n in doc.leaves()]
    assert "Net revenue was $5.2 million; the p_value $p\\_0 < 0.05$ held." in texts
    assert "- 40% chose option *A*." in texts and "run_all --fast\nstop_all" in texts
    assert "x = a\\_b" in texts and "Listing 1: set_x" in texts
    assert node_titled(doc, "2 Model_v2 results")
