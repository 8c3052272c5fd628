"""Docling JSON in the shapes Docling's own ground truth has (docling-project/docling
tests/data/*/groundtruth, docling-core test/data; excerpts cut down to the items that matter): the
CLI's other exports beside the JSON, content layers, list markers, key-value regions, chart data,
rich table cells, sorted keys, Docling 1's legacy JSON and formulas without LaTeX."""
import json

from ham.ingest import ingest_corpus
from tests.ingest.test_parsed_docling import _cell, _group, _text
from tests.ingest.test_parsed_docling import _doc as docling_doc


def _doc(texts=(), groups=(), body=(), **items):
    return docling_doc(texts, groups, body, mimetype="application/pdf", **items)


def _ingest(tmp_path, doc, name="guide.json", **dump):
    (tmp_path / name).write_text(json.dumps(doc, **dump))
    return ingest_corpus(tmp_path)


def _one(tmp_path, doc, **dump):
    docs, report = _ingest(tmp_path, doc, **dump)
    assert len(docs) == 1, report.summary()
    return docs[0], report


def _leaves(doc):
    return [n.text for n in doc.leaves()]


def _item(kind, i, label, parent="#/body", children=(), **extra):
    return {"self_ref": f"#/{kind}/{i}", "parent": {"$ref": parent}, "children": [{"$ref": c} for c in children],
            "content_layer": "body", "label": label, "prov": [], **extra}


def _table_data(rows, refs=None):
    """``data`` of a table: its grid, and table_cells where a rich cell's ``ref`` sits (the grid's
    copies carry none, as docling-core writes them)."""
    grid = [[_cell(t, r, c) for c, t in enumerate(row)] for r, row in enumerate(rows)]
    cells = [dict(c, ref={"$ref": (refs or {})[(r, k)]}) if (r, k) in (refs or {}) else dict(c)
             for r, row in enumerate(grid) for k, c in enumerate(row)]
    return {"table_cells": cells, "num_rows": len(rows), "num_cols": len(rows[0]), "grid": grid}


def test_the_cli_exports_beside_the_json_are_the_same_document_not_read_again(tmp_path):
    # docling paper.pdf --to json --to md --to html --to text --to doctags
    doc = _doc([_text(0, "title", "Paper", "#/body"), _text(1, "text", "Body text.", "#/body")],
               body=["#/texts/0", "#/texts/1"])
    for suffix, text in ((".md", "# Paper\n\nBody text.\n"), (".html", "<h1>Paper</h1><p>Body text.</p>"),
                         (".txt", "Paper\n\nBody text.\n"), (".doctags", "<doctag><title>Paper</title></doctag>")):
        (tmp_path / f"paper{suffix}").write_text(text)
    (tmp_path / "notes.md").write_text("# Notes\n\nA note of my own.\n")
    docs, report = _ingest(tmp_path, doc, name="paper.json")
    assert sorted(d.source for d in docs) == ["notes.md", "paper.json"]
    excluded = report.to_dict()["excluded_by_file"]
    assert {f for f, c in excluded.items() if any("beside its JSON" in k for k in c)} == {
        "paper.md", "paper.html", "paper.txt", "paper.doctags"}
    assert not report.ignored_files and not report.measure_totals()


def test_only_the_body_layer_is_read_and_the_others_are_counted_by_name(tmp_path):
    # docx_comments: a reviewer's comment; pptx_sample: speaker notes; xlsx_01: a hidden sheet's table
    comment = dict(_text(1, "text", "Reviewer: please cite this.", "#/body"), content_layer="notes")
    notes = dict(_text(2, "text", "Say this slowly.", "#/groups/0"), content_layer="notes")
    back = dict(_text(3, "text", "DRAFT watermark", "#/body"), content_layer="background")
    hidden = dict(_item("tables", 0, "table", data=_table_data([["secret", "42"]]), captions=[], footnotes=[]),
                  content_layer="invisible")
    doc = _doc([_text(0, "text", "The visible paragraph.", "#/body"), comment, notes, back],
               [dict(_group(0, "unspecified", "#/body", ["#/texts/2"]), content_layer="notes")],
               body=["#/texts/0", "#/texts/1", "#/groups/0", "#/texts/3", "#/tables/0"], tables=[hidden])
    doc_, report = _one(tmp_path, doc)
    assert _leaves(doc_) == ["The visible paragraph."]
    assert report.excluded_totals() == {"notes layer (Docling)": 2, "background layer (Docling)": 1,
                                        "invisible layer (Docling)": 1}


def test_each_item_decides_its_own_layer_under_a_furniture_group(tmp_path):
    # docling-core's 2106.09680v1.json (1.3.0): body texts inside inline groups marked furniture
    texts = [dict(_text(0, "section_header", "Running head", "#/body", level=1), content_layer="furniture"),
             _text(1, "text", "Before diving into details, Figure", "#/groups/0"),
             _text(2, "text", "1", "#/groups/0"),
             _text(3, "text", "gives a peek at", "#/groups/0"),
             _text(4, "formula", "\\varepsilon", "#/groups/0"),
             _text(5, "text", ".", "#/groups/0")]
    group = dict(_group(0, "inline", "#/body", [f"#/texts/{i}" for i in range(1, 6)]), content_layer="furniture")
    doc, report = _one(tmp_path, _doc(texts, [group], body=["#/texts/0", "#/groups/0"]))
    assert _leaves(doc) == ["Before diving into details, Figure 1 gives a peek at \\varepsilon."]
    assert report.excluded_totals() == {"furniture (Docling)": 1}


def test_a_document_of_only_a_title_keeps_it(tmp_path):
    # powerpoint_bad_text.pptx: one slide with a title and nothing else
    title = "X-Library The fully customisable standard content template collection"
    doc, report = _one(tmp_path, _doc([_text(0, "title", title, "#/groups/0")],
                                      [_group(0, "chapter", "#/body", ["#/texts/0"])], body=["#/groups/0"]))
    assert doc.title == title and _leaves(doc) == [title] and not report.problems


def test_an_enumerated_list_item_is_numbered_by_its_marker(tmp_path):
    # docx_list_resumed_numbering: the ordered list resumes at 3 after a bulleted list
    texts = [_text(0, "list_item", "First ordered item", "#/groups/0", enumerated=True, marker="1."),
             _text(1, "list_item", "Second ordered item", "#/groups/0", enumerated=True, marker="2."),
             _text(2, "list_item", "bullet one", "#/groups/1", enumerated=False, marker="·"),
             _text(3, "list_item", "Third ordered item", "#/groups/2", enumerated=True, marker="3."),
             _text(4, "list_item", "No marker", "#/groups/2", enumerated=True, marker=""),
             # odf text_document_01: an item holding a nested list
             _text(5, "list_item", "Outer item", "#/groups/2", ["#/groups/3"], enumerated=True, marker="5."),
             _text(6, "list_item", "inner item", "#/groups/3", enumerated=False, marker="")]
    groups = [_group(0, "list", "#/body", ["#/texts/0", "#/texts/1"]), _group(1, "list", "#/body", ["#/texts/2"]),
              _group(2, "list", "#/body", ["#/texts/3", "#/texts/4", "#/texts/5"]),
              _group(3, "list", "#/texts/5", ["#/texts/6"])]
    doc, _ = _one(tmp_path, _doc(texts, groups, body=["#/groups/0", "#/groups/1", "#/groups/2"]))
    assert _leaves(doc) == ["1. First ordered item\n2. Second ordered item", "- bullet one",
                            "3. Third ordered item\n2. No marker", "5. Outer item", "- inner item"]


def _kv_cell(i, label, text):
    return {"label": label, "cell_id": i, "text": text, "orig": text}


def test_a_key_value_region_is_key_value_lines(tmp_path):
    # docling-core's doc_with_kv (a form) and Docling's XBRL reader (a fact: a key, several values)
    cells = [_kv_cell(0, "key", "TO:"), _kv_cell(1, "key", "PreferredStockValue"), _kv_cell(2, "value", "Jane Doe"),
             _kv_cell(3, "value", "value: 10"), _kv_cell(4, "value", "currency: USD"), _kv_cell(5, "value", "8623474")]
    links = [{"label": "to_value", "source_cell_id": 0, "target_cell_id": 2},
             {"label": "to_value", "source_cell_id": 1, "target_cell_id": 3},
             {"label": "to_key", "source_cell_id": 4, "target_cell_id": 1}]
    kv = _item("key_value_items", 0, "key_value_region", captions=[], references=[], footnotes=[],
               graph={"cells": cells, "links": links})
    doc, _ = _one(tmp_path, _doc(body=["#/key_value_items/0"], key_value_items=[kv]))
    assert _leaves(doc) == ["TO: Jane Doe\nPreferredStockValue: value: 10; currency: USD\n8623474"]


def test_chart_data_is_a_table_with_the_picture_caption(tmp_path):
    # pptx_chart (meta.tabular_chart) and docling-core's barchart.json (a tabular_chart_data annotation)
    data = _table_data([["Year", "Ducks"], ["2023", "12"]])
    meta_chart = _item("pictures", 0, "chart", captions=[{"$ref": "#/texts/0"}], references=[], footnotes=[],
                       annotations=[], meta={"tabular_chart": {"chart_data": data}})
    annotated = _item("pictures", 1, "picture", captions=[], references=[], footnotes=[],
                      annotations=[{"kind": "tabular_chart_data", "title": "bar_chart", "chart_data": data}])
    doc, _ = _one(tmp_path, _doc([_text(0, "caption", "Wild Duck Observations by Year", "#/body")],
                                 body=["#/pictures/0", "#/texts/0", "#/pictures/1"], pictures=[meta_chart, annotated]))
    tables = [n for n in doc.leaves() if n.kind == "table"]
    assert [t.text for t in tables] == ["Wild Duck Observations by Year\nYear | Ducks\n2023 | 12", "Year | Ducks\n2023 | 12"]
    assert "Wild Duck Observations by Year" not in [n.text for n in doc.leaves() if n.kind != "table"]


def test_a_rich_cell_is_read_through_its_ref_and_a_picture_in_a_cell_keeps_its_caption(tmp_path):
    # docx_rich_cells (a nested table in a cell of empty text) and html_rich_table_cells (a picture in a
    # cell, its caption in body after the table)
    nested = _item("tables", 1, "table", parent="#/groups/0", captions=[], footnotes=[],
                   data=_table_data([["A", "B"], ["Cell 1", "Cell 2"]]))
    picture = _item("pictures", 0, "picture", parent="#/groups/1", captions=[{"$ref": "#/texts/0"}],
                    references=[], footnotes=[])
    outer = _item("tables", 0, "table", children=["#/groups/0", "#/groups/1"], captions=[], footnotes=[],
                  data=_table_data([["Name", "Detail"], ["Nested", ""], ["White-headed duck", ""]],
                                   refs={(1, 1): "#/groups/0", (2, 1): "#/groups/1"}))
    groups = [_group(0, "unspecified", "#/tables/0", ["#/tables/1"]),
              _group(1, "unspecified", "#/tables/0", ["#/pictures/0"])]
    doc, _ = _one(tmp_path, _doc([_text(0, "caption", "White-headed duck thumbnail", "#/body")], groups,
                                 body=["#/tables/0", "#/texts/0"], tables=[outer, nested], pictures=[picture]))
    assert _leaves(doc) == ["Name | Detail\nNested | A / B; Cell 1 / Cell 2\n"
                            "White-headed duck | [image: White-headed duck thumbnail]",
                            "White-headed duck thumbnail"]


def test_a_docling_json_is_known_by_its_keys_wherever_they_stand(tmp_path):
    # json.dump(sort_keys=True): "schema_name" after "pages" and "pictures", past the first 4 KiB
    pages = {str(n): {"page_no": n, "size": {"width": 612.0, "height": 792.0}} for n in range(1, 120)}
    doc = _doc([_text(0, "text", "Sorted but whole.", "#/body")], body=["#/texts/0"], pages=pages)
    (tmp_path / "sorted.json").write_text(json.dumps(doc, sort_keys=True, indent=2))
    assert (tmp_path / "sorted.json").read_text().index('"schema_name"') > 4096
    legacy = {"_name": "", "type": "pdf-document", "description": {"title": None}, "file-info": {"filename": "a.pdf"},
              "main-text": [{"text": "Hello world body", "type": "paragraph", "name": "Text"}]}
    (tmp_path / "legacy.json").write_text(json.dumps(legacy))
    (tmp_path / "other.json").write_text(json.dumps({"note": "mentions DoclingDocument in a value"}))
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["sorted.json"] and _leaves(docs[0]) == ["Sorted but whole."]
    assert [(p.file, "legacy Docling 1 JSON" in p.problem) for p in report.problems] == [("legacy.json", True)]
    assert report.ignored_files == ["other.json"]


def test_a_formula_without_latex_keeps_its_orig_and_one_without_either_is_counted(tmp_path):
    # 2203.01017v2, code_and_formula: Docling leaves `text` empty where it could not read the formula
    texts = [_text(0, "text", "The sum is", "#/body"), dict(_text(1, "formula", "", "#/body"), orig="a 2 +8 = 12"),
             dict(_text(2, "formula", "", "#/body"), orig="")]
    doc, report = _one(tmp_path, _doc(texts, body=["#/texts/0", "#/texts/1", "#/texts/2"]))
    assert _leaves(doc) == ["The sum is", "a 2 +8 = 12"]
    assert report.excluded_totals() == {"formula without text (Docling)": 1}


def test_a_field_item_inside_an_inline_group_is_read(tmp_path):
    # docling-core's field_region_kv: an inline key and value under an inline group of a field region
    texts = [_text(0, "field_key", "my inline key1:", "#/field_items/0"),
             _text(1, "field_value", "my inline value1", "#/field_items/0")]
    region = _item("field_regions", 0, "field_region", children=["#/groups/0"])
    field = _item("field_items", 0, "field_item", parent="#/groups/0", children=["#/texts/0", "#/texts/1"])
    doc, _ = _one(tmp_path, _doc(texts, [_group(0, "inline", "#/field_regions/0", ["#/field_items/0"])],
                                 body=["#/field_regions/0"], field_regions=[region], field_items=[field]))
    assert _leaves(doc) == ["my inline key1: my inline value1"]
