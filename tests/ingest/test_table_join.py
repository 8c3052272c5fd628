"""Tables continued across pages (``ham.ingest.table_join``): joined only where the page break cut
the table, by the bboxes MinerU, Docling and the PDF reader give (0-1000 of the page)."""
import json

from ham.ingest import ingest_corpus
from ham.ingest.blocks import Block
from ham.ingest.builder import build_document
from ham.ingest.report import IngestReport

JOINED = "table continued across pages (joined into one unit)"


def _table(rows, page, bbox, caption=None):
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    item = {"type": "table", "table_body": f"<table>{body}</table>", "page_idx": page, "bbox": bbox}
    if caption:
        item["table_caption"] = [caption]
    return item


def _mineru(tmp_path, items):
    (tmp_path / "spec_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    return [n.text for n in docs[0].leaves() if n.kind == "table"], report


def test_only_the_table_opening_the_next_page_continues_one_that_ran_to_the_foot(tmp_path):
    # the audit's repro: Table 1 runs to the foot of page 1, its rest opens page 2, and a different
    # table ("Pin | Function") sits halfway down page 2; the bboxes are the SVOLT datasheet's
    items = [{"type": "text", "text": "Specification", "text_level": 1, "page_idx": 0, "bbox": [80, 60, 900, 90]},
             _table([["Param", "Value"], ["Voltage", "3.2 V"]], 0, [94, 799, 905, 928], "Table 1 Electrical"),
             _table([["Capacity", "196 Ah"]], 1, [94, 64, 857, 330]),
             _table([["Pin", "Function"], ["1", "Positive"]], 1, [94, 500, 857, 700])]
    tables, report = _mineru(tmp_path, items)
    assert tables == ["Table 1 Electrical\nParam | Value\nVoltage | 3.2 V\nCapacity | 196 Ah",
                      "Pin | Function\n1 | Positive"]
    assert report.excluded_totals()[JOINED] == 1


def test_a_table_over_three_pages_is_one_unit(tmp_path):
    items = [_table([["Cell", "Limit"], ["T1", "45"]], 4, [107, 673, 910, 915], "Table 3 Charge limits"),
             _table([["Cell", "Limit"], ["T2", "50"]], 5, [94, 89, 909, 929]),     # the header row repeated
             _table([["T3", "55"]], 6, [94, 70, 909, 300])]
    tables, report = _mineru(tmp_path, items)
    assert tables == ["Table 3 Charge limits\nCell | Limit\nT1 | 45\nT2 | 50\nT3 | 55"]
    assert report.excluded_totals()[JOINED] == 2


def test_no_join_without_room_left_or_a_page_position(tmp_path):
    blocks = [Block("table", "A | B\n1 | 2", caption="Table 1: Short", page=0, bbox=(80, 100, 900, 300)),
              Block("table", "C | D\n3 | 4", page=1, bbox=(80, 70, 900, 200)),          # page 1 had room left
              Block("table", "E | F\n5 | 6", caption="Table 2: Long", page=1, bbox=(80, 700, 900, 930)),
              Block("table", "G | H\n7 | 8", page=2, bbox=(80, 450, 900, 600)),         # halfway down page 3
              Block("table", "I | J\n9 | 0", caption="Table 3: Unplaced", page=2),
              Block("table", "K | L\n1 | 1", page=3)]                                   # no bbox: unknown
    report = IngestReport(root=__import__("pathlib").Path("."))
    doc = build_document("d", "Doc", "d.json", "mineru", blocks, report=report, path="d.json", authored=False)
    assert len([n for n in doc.leaves() if n.kind == "table"]) == 6
    assert JOINED not in report.excluded_totals()


def _sheet_table(n, rows, box):
    grid = [[{"text": c, "start_row_offset_idx": r, "start_col_offset_idx": k} for k, c in enumerate(row)]
            for r, row in enumerate(rows)]
    return {"self_ref": f"#/tables/{n}", "label": "table", "captions": [], "footnotes": [], "children": [],
            "content_layer": "body", "data": {"num_rows": len(rows), "num_cols": len(rows[0]), "grid": grid},
            "prov": [{"page_no": n + 1, "bbox": {"l": box[0], "t": box[1], "r": box[2], "b": box[3],
                                                 "coord_origin": "TOPLEFT"}, "charspan": [0, 0]}]}


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _two_sheets(tmp_path, boxes, sizes, mimetype=XLSX):
    """A Docling export of two sheets, a table each ("first | second", "col-1 | col-2") at ``boxes``
    on pages of ``sizes``: its table units and the ingest report."""
    doc = {"schema_name": "DoclingDocument", "version": "1.10.0", "name": "book",
           "origin": {"mimetype": mimetype, "filename": "book.xlsx" if mimetype == XLSX else "book.pdf"},
           "body": {"self_ref": "#/body", "children": [{"$ref": "#/tables/0"}, {"$ref": "#/tables/1"}]},
           "texts": [], "groups": [], "pictures": [],
           "tables": [_sheet_table(0, [["first", "second"], ["1", "2"]], boxes[0]),
                      _sheet_table(1, [["col-1", "col-2"], ["a", "b"]], boxes[1])],
           "pages": {str(n + 1): {"size": {"width": w, "height": h}, "page_no": n + 1}
                     for n, (w, h) in enumerate(sizes)}}
    (tmp_path / "book.json").write_text(json.dumps(doc))
    docs, report = ingest_corpus(tmp_path)
    return [n.text for n in docs[0].leaves() if n.kind == "table"], report


def test_tables_of_two_spreadsheet_sheets_stay_two(tmp_path):
    # Docling's XLSX export (xlsx_01.xlsx): a sheet is a page sized in cells, a table's bbox its cells
    tables, report = _two_sheets(tmp_path, [(0.0, 0.0, 2.0, 7.0), (0.0, 0.0, 4.0, 9.0)], [(2.0, 7.0), (16.0, 36.0)])
    assert tables == ["first | second\n1 | 2", "col-1 | col-2\na | b"]
    assert JOINED not in report.excluded_totals()


def test_a_spreadsheets_tables_have_no_page_position_to_join_by(tmp_path):
    # a sheet whose used range starts below its first row and ends above its last: the page-edge
    # test alone would join the two sheets' tables; the mimetype says the bbox is no page position
    boxes, sizes = [(1.0, 1.0, 3.0, 9.0), (1.0, 1.0, 3.0, 5.0)], [(4.0, 10.0), (4.0, 10.0)]
    tables, report = _two_sheets(tmp_path, boxes, sizes)
    assert tables == ["first | second\n1 | 2", "col-1 | col-2\na | b"]
    assert JOINED not in report.excluded_totals()
    # the same export from a PDF (a printed page) is a continuation
    tables, _ = _two_sheets(tmp_path, boxes, sizes, mimetype="application/pdf")
    assert len(tables) == 1
