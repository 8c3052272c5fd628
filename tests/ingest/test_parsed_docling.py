"""Docling's JSON export in the shapes docling-core writes (DoclingDocument 1.8-1.10): a table grid
that repeats a spanning cell in each column it covers, and ``inline`` groups, the pieces Docling
splits a formatted paragraph, heading or list item into."""
import json
import shutil

from ham.ingest import ingest_corpus
from tests.ingest.helpers import FIXTURES, heading_path, node_titled


def _cell(text, row, col, cols=1):
    return {"text": text, "row_span": 1, "col_span": cols, "start_row_offset_idx": row,
            "end_row_offset_idx": row + 1, "start_col_offset_idx": col, "end_col_offset_idx": col + cols,
            "column_header": row == 0, "row_header": False, "row_section": False}


def _text(i, label, text, parent, children=(), **extra):
    return {"self_ref": f"#/texts/{i}", "parent": {"$ref": parent}, "children": [{"$ref": c} for c in children],
            "content_layer": "body", "label": label, "prov": [], "orig": text, "text": text, **extra}


def _group(i, label, parent, children):
    return {"self_ref": f"#/groups/{i}", "parent": {"$ref": parent}, "children": [{"$ref": c} for c in children],
            "content_layer": "body", "name": "group", "label": label}


def _doc(texts=(), groups=(), body=(), tables=(), mimetype="text/html", **items):
    """A DoclingDocument (1.10) holding the given items, as docling-core writes one."""
    doc = {"schema_name": "DoclingDocument", "version": "1.10.0", "name": "guide",
           "origin": {"mimetype": mimetype, "binary_hash": 1,
                      "filename": "guide.pdf" if mimetype == "application/pdf" else "guide.html"},
           "furniture": {"self_ref": "#/furniture", "children": [], "content_layer": "furniture",
                         "name": "_root_", "label": "unspecified"},
           "body": {"self_ref": "#/body", "children": [{"$ref": c} for c in body], "content_layer": "body",
                    "name": "_root_", "label": "unspecified"},
           "groups": list(groups), "texts": list(texts), "pictures": [], "tables": list(tables),
           "key_value_items": [], "form_items": [], "pages": {}}
    doc.update(items)
    return doc


def _write(tmp_path, texts, groups=(), tables=(), body=()):
    doc = _doc(texts, groups, body, tables)
    (tmp_path / "guide.json").write_text(json.dumps(doc))
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1, report.summary()
    return docs[0]


def test_a_spanning_cell_is_read_once_and_equal_neighbours_are_two_cells(tmp_path):
    # the grid repeats "Formula" over both of its columns; "n/a" | "n/a" are two cells of their own
    grid = [[_cell("Class", 0, 0), _cell("Count", 0, 1), _cell("mAP", 0, 2), _cell("Human", 0, 3)],
            [_cell("Formula", 1, 0, cols=2), _cell("Formula", 1, 0, cols=2), _cell("n/a", 1, 2), _cell("n/a", 1, 3)],
            [_cell("Text", 2, 0), _cell("68", 2, 1), _cell("84-87", 2, 2), _cell("86-96", 2, 3)]]
    table = {"self_ref": "#/tables/0", "parent": {"$ref": "#/body"}, "children": [], "content_layer": "body",
             "label": "table", "prov": [], "captions": [], "references": [], "footnotes": [],
             "data": {"table_cells": [c for row in grid for c in row], "num_rows": 3, "num_cols": 4, "grid": grid}}
    doc = _write(tmp_path, [_text(0, "title", "Results", "#/body")], tables=[table], body=["#/texts/0", "#/tables/0"])
    rows = next(n for n in doc.leaves() if n.kind == "table").text.splitlines()
    assert rows == ["Class | Count | mAP | Human", "Formula | n/a | n/a", "Text | 68 | 84-87 | 86-96"]


def test_inline_groups_are_one_text_and_hold_a_formatted_heading_and_list_items(tmp_path):
    bold = {"bold": True, "italic": False, "underline": False, "strikethrough": False, "script": "baseline"}
    texts = [
        _text(0, "title", "Contributing", "#/body"),
        _text(1, "text", "Create your branch (", "#/groups/0"),
        _text(2, "code", "git checkout -b feature", "#/groups/0"),
        _text(3, "text", ").", "#/groups/0"),
        _text(4, "section_header", "", "#/body", children=["#/groups/1"], level=1),
        _text(5, "text", "Partially", "#/groups/1", formatting=bold),
        _text(6, "text", "formatted heading", "#/groups/1"),
        _text(7, "list_item", "", "#/groups/2", children=["#/groups/3"], enumerated=False, marker="-"),
        _text(8, "text", "Pull the", "#/groups/3"),
        _text(9, "text", "repository", "#/groups/3", formatting=bold, hyperlink="https://example.org/repo"),
        _text(10, "text", ".", "#/groups/3"),
        _text(11, "list_item", "Open a pull request", "#/groups/2", enumerated=False, marker="-"),
    ]
    groups = [_group(0, "inline", "#/body", ["#/texts/1", "#/texts/2", "#/texts/3"]),
              _group(1, "inline", "#/texts/4", ["#/texts/5", "#/texts/6"]),
              _group(2, "list", "#/body", ["#/texts/7", "#/texts/11"]),
              _group(3, "inline", "#/texts/7", ["#/texts/8", "#/texts/9", "#/texts/10"])]
    doc = _write(tmp_path, texts, groups, body=["#/texts/0", "#/groups/0", "#/texts/4", "#/groups/2"])
    leaves = [n.text for n in doc.leaves()]
    assert leaves == ["Create your branch (git checkout -b feature).",
                      "- Pull the repository.\n- Open a pull request"]
    heading = node_titled(doc, "Partially formatted heading")
    assert heading_path(doc, next(n for n in doc.leaves() if n.text.startswith("- Pull"))) == [heading.title]


def test_an_inline_group_under_a_titled_heading_is_a_paragraph_not_the_title(tmp_path):
    # Docling's HTML reader nests a page's paragraphs under its title item
    texts = [_text(0, "title", "Something", "#/body", children=["#/groups/0"]),
             _text(1, "text", "Please follow the link to:", "#/groups/0"),
             _text(2, "text", "This page", "#/groups/0", hyperlink="https://example.org"),
             _text(3, "text", ".", "#/groups/0")]
    doc = _write(tmp_path, texts, [_group(0, "inline", "#/texts/0", ["#/texts/1", "#/texts/2", "#/texts/3"])],
                 body=["#/texts/0"])
    assert doc.title == "Something"
    assert [n.text for n in doc.leaves()] == ["Please follow the link to: This page."]


def test_docling_json_export(tmp_path):
    shutil.copytree(FIXTURES / "parsed" / "docling", tmp_path / "docling", ignore=shutil.ignore_patterns(".ham"))
    docs, report = ingest_corpus(tmp_path / "docling")
    assert len(docs) == 1
    doc = docs[0]
    assert doc.format == "docling" and doc.title == "Dryer D-9 User Manual"
    assert heading_path(doc, node_titled(doc, "1.1 Controls")) == ["1 Overview"]  # flat levels re-derived
    image = next(n for n in doc.leaves() if n.kind == "image")
    assert image.caption == "Figure 1: The control panel" and (tmp_path / "docling" / image.image_path).is_file()
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert table.text.splitlines() == ["Table 1: Filter cleaning", "Load | Clean filter", "Every load | Remove lint by hand"]
    assert table.page == 1
    assert "- Start button\n- Timer dial" in [n.text for n in doc.leaves()]
    assert report.excluded_totals() == {"page header": 1, "page footer": 1}


def test_a_docling_file_of_another_version_is_an_error(tmp_path):
    (tmp_path / "d.json").write_text(json.dumps({"schema_name": "DoclingDocument", "version": "2.0.0", "body": {}}))
    docs, report = ingest_corpus(tmp_path)
    assert docs == [] and "version '2.0.0' is not supported" in report.problems[0].problem
