"""A ruled table that draws no rules between its rows (camlidl-doc's attribute table, a LaTeX
tabular ruled only round its header): pdfplumber finds one row whose cells hold a line per row;
``table_rows`` splits it where the cells' lines share baselines and the breaks were not needed,
and leaves a row whose cells wrapped their text one row."""
import pdfplumber

from ham.ingest.pdf_tables import table_rows

W, H = 612.0, 792.0
ROWS = [("abstract", "typedef"), ("bigarray", "array type"), ("camlint", "int or long integer type"),
        ("in", "function parameter"), ("ignore", "any pointer type")]


def _table(c, top: float, rows: list[tuple[str, str]], widths=(200.0, 200.0), wrap=None) -> float:
    """A header row ruled below, then ``rows`` set a line each with no rules between them; with
    ``wrap``, one more row below a rule whose two cells each wrap a long text over two lines."""
    x0, mid, x1 = 72.0, 72.0 + widths[0], 72.0 + sum(widths)
    c.setFont("Helvetica", 10)
    c.drawString(x0 + 4, H - top - 14, "Attribute")
    c.drawString(mid + 4, H - top - 14, "Context where it can appear")
    y = top + 20
    c.line(x0, H - y, x1, H - y)
    for i, (a, b) in enumerate(rows):
        c.drawString(x0 + 4, H - y - 14 - 12 * i, a)
        c.drawString(mid + 4, H - y - 14 - 12 * i, b)
    y += 20 + 12 * len(rows)
    if wrap:
        c.line(x0, H - y, x1, H - y)
        for i in range(2):
            c.drawString(x0 + 4, H - y - 14 - 12 * i, wrap[0][i])
            c.drawString(mid + 4, H - y - 14 - 12 * i, wrap[1][i])
        y += 32
    c.rect(x0, H - y, x1 - x0, y - top)
    c.line(mid, H - y, mid, H - top)
    return y


def _kept_as_found(tmp_path, rows, **table) -> int:
    """Draw ``rows`` as in ``_table``; ``table_rows`` must leave the table as pdfplumber finds it.
    Returns its number of rows."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "t.pdf"), pagesize=(W, H))
    _table(c, 100.0, rows, **table)
    c.save()
    with pdfplumber.open(tmp_path / "t.pdf") as pdf:
        page = pdf.pages[0]
        (found,) = page.find_tables()
        assert table_rows(page, found) == found.extract()
        return len(found.extract())


def test_a_table_without_rules_between_rows_is_read_row_by_row(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "t.pdf"), pagesize=(W, H))
    # the last row's two cells wrap their text to the cell's edge: one row of two lines each
    wrap = (("an attribute whose name is long", "and goes on"), ("the context of the attribute is", "described here"))
    _table(c, 100.0, ROWS, widths=(150.0, 150.0), wrap=wrap)
    c.save()
    with pdfplumber.open(tmp_path / "t.pdf") as pdf:
        page = pdf.pages[0]
        (table,) = page.find_tables()
        assert len(table.extract()) == 3
        rows = table_rows(page, table)
    assert rows[0] == ["Attribute", "Context where it can appear"]
    assert [tuple(r) for r in rows[1:6]] == ROWS
    assert len(rows) == 7
    assert rows[6][0].split() == "an attribute whose name is long and goes on".split()


def test_a_row_whose_cells_hold_unequal_lines_stays_one_row(tmp_path):
    rows = ROWS[:3] + [("", "and a second line")]      # three keywords, four lines of explanation
    _kept_as_found(tmp_path, rows)


def test_a_row_whose_entry_is_broken_by_hand_inside_a_bracket_stays_one_row(tmp_path):
    # gprolog-doc's error tables: short lines, so no break was needed, but one entry goes on
    rows = [("SorA has stream properties", "permission error(input,"),
            ("end of stream(past)", "past end of stream, SorA)")]
    assert _kept_as_found(tmp_path, rows) == 2


def test_a_row_whose_cell_wrapped_beside_short_lines_stays_one_row(tmp_path):
    # the left cell wrapped at its edge, the right one was broken to match it: one entry
    rows = [("The predicate indicator Pred of Head is", "permission error modify"),
            ("that of a static procedure", "static procedure Pred")]
    _kept_as_found(tmp_path, rows, widths=(190.0, 200.0))


def test_the_pdf_reader_reads_such_a_table_row_by_row(tmp_path):
    # end to end: ham's PDF reader calls table_rows, and the report counts the rows it split
    from reportlab.pdfgen import canvas

    from ham.ingest import ingest_corpus

    c = canvas.Canvas(str(tmp_path / "idl.pdf"), pagesize=(W, H))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, H - 60, "Attributes")
    _table(c, 100.0, ROWS)
    c.save()
    docs, report = ingest_corpus(tmp_path)
    (table,) = [n for n in docs[0].leaves() if n.kind == "table"]
    assert table.text.splitlines()[1:] == [f"{a} | {b}" for a, b in ROWS]
    assert report.measure_totals()["table rows read as several (cells of equal baseline-aligned lines)"] == len(ROWS) - 1


def test_a_cell_line_of_only_a_space_glyph_is_no_line_and_the_pdf_is_read(tmp_path):
    # Word and LibreOffice draw space glyphs on baselines of their own in table cells: such a "line"
    # had no visible character, the row split raised, and the whole PDF was skipped as corrupt
    from reportlab.pdfgen import canvas

    from ham.ingest import ingest_corpus

    c = canvas.Canvas(str(tmp_path / "t.pdf"), pagesize=(W, H))
    c.setFont("Helvetica", 10)
    c.drawString(72, 740, "Some body text before the table, a sentence of prose on the page.")
    for y in (700, 680, 640):
        c.line(72, y, 372, y)
    for x in (72, 222, 372):
        c.line(x, 700, x, 640)
    c.drawString(76, 686, "Name")
    c.drawString(226, 686, "Value")
    c.drawString(76, 666, "alpha")
    c.drawString(76, 652, "beta")
    c.drawString(226, 666, "one")
    c.drawString(226, 652, " ")
    c.save()
    docs, report = ingest_corpus(tmp_path)
    assert not report.problems and len(docs) == 1
    (table,) = [n for n in docs[0].leaves() if n.kind == "table"]
    assert table.text.splitlines()[0] == "Name | Value" and "alpha" in table.text and "one" in table.text


def test_a_failing_row_check_costs_the_table_its_split_not_the_document(tmp_path, monkeypatch):
    from reportlab.pdfgen import canvas

    import ham.ingest.pdf_tables as pdf_tables
    from ham.ingest import ingest_corpus

    c = canvas.Canvas(str(tmp_path / "idl.pdf"), pagesize=(W, H))
    _table(c, 100.0, ROWS)
    c.save()

    def broken(page, table, extracted=None):
        raise IndexError("list index out of range")

    monkeypatch.setattr(pdf_tables, "table_rows", broken)
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1 and [n for n in docs[0].leaves() if n.kind == "table"]
    assert any("could not be checked for rows set in one (IndexError" in str(p) for p in report.problems)
