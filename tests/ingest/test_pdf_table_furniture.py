"""Running heads and contents pages drawn as tables (rst2pdf, ReportLab's platypus): a ruled header
table of one row on every page is furniture, not a table leaf on each page; a contents table whose
page numbers sit in a column of their own, with no dot leaders, is a contents page, and so is the
page that continues it."""
from ham.ingest import ingest_corpus
from ham.ingest.pdf_furniture import is_toc_page, toc_span
from ham.ingest.pdf_text import Line

W, H = 595.0, 842.0
BODY = "Set the stylesheet with the -s option; several can be given, separated by commas."


def _header_table(c, left: str, right: str) -> None:
    top, bottom = H - 57, H - 75              # pdfplumber's top 57 to 75: rst2pdf's header
    c.rect(51, bottom, 493, 18)
    c.line(297, bottom, 297, top)
    c.setFont("Helvetica", 9)
    c.drawString(56, bottom + 5, left)
    c.drawString(302, bottom + 5, right)


def headed_pdf(path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    for n, title in enumerate(["Introduction", "Command line options", "Styling", "Stylesheets"], start=1):
        _header_table(c, f"Page {n}", f"{n} {title}")
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, H - 140, f"{n} {title}")
        c.setFont("Helvetica", 10)
        for i in range(3):
            c.drawString(72, H - 170 - 14 * i, BODY)
        c.showPage()
    c.save()


def test_a_header_drawn_as_a_table_is_furniture_not_a_table(tmp_path):
    headed_pdf(tmp_path / "manual.pdf")
    (doc,), report = ingest_corpus(tmp_path)
    leaves = doc.leaves()
    assert not [n for n in leaves if n.kind == "table"]
    assert not [n for n in leaves if "Page" in n.text]
    assert [c.title for c in doc.root.children] == ["1 Introduction", "2 Command line options", "3 Styling",
                                                    "4 Stylesheets"]
    assert report.excluded["manual.pdf"]["page number"] == 4


def _row(text: str, number: str, top: float) -> list[Line]:
    return [Line(text, 10.0, False, 72.0, 72.0 + 5 * len(text), top, top + 10, len(text)),
            Line(number, 10.0, False, 520.0, 530.0, top, top + 10, len(number))]


def test_a_contents_table_without_leaders_is_a_contents_page_and_so_is_its_next_page():
    first = [Line("Contents", 16.0, True, 72, 160, 60, 76, 8)]
    for i, (text, page) in enumerate([("1 Introduction", "4"), ("1.1 Related Reading", "4"),
                                      ("2 Command line options", "4"), ("2.1 General Options", "5")]):
        first += _row(text, page, 100 + 16 * i)
    assert is_toc_page(first)
    second = []
    for i, (text, page) in enumerate([("7 Customizing PDF Output", "11"), ("7.1 Using Stylesheets", "11"),
                                      ("8 Creating Stylesheets", "14")]):
        second += _row(text, page, 60 + 16 * i)
    assert is_toc_page(second, continues=True)
    assert not is_toc_page(second)           # alone, untitled and without leaders: a table of numbers
    # a page of running text after the contents is none, continued or not
    prose = [Line(BODY, 10.0, False, 72, 520, 60 + 14 * i, 70 + 14 * i, len(BODY)) for i in range(8)]
    assert not is_toc_page(prose, continues=True)


def test_the_contents_end_at_their_last_entry_and_text_below_them_is_the_documents():
    # ConTeXt's xtables manual: the contents, then "1 Introduction" and its text on the same page;
    # reading order puts the column of page numbers after the text beside and below it
    title = Line("Contents", 16.0, True, 72, 160, 60, 76, 8)
    rows = [_row(text, page, 100 + 16 * i) for i, (text, page) in enumerate(
        [("1 Introduction", "1"), ("2 The structure", "1"), ("3 Direct control", "2")])]
    heading = Line("1 Introduction", 14.3, True, 72, 200, 200, 214, 14)
    body = [Line(BODY, 10.0, False, 72, 520, 220 + 14 * i, 230 + 14 * i, len(BODY)) for i in range(3)]
    letters = Line("O S", 10.0, True, 72, 90, 300, 310, 3)      # an index's letter groups: not text
    lines = [title, *(r[0] for r in rows), heading, *body, letters, *(r[1] for r in rows)]
    assert is_toc_page(lines)
    contents = toc_span(lines)
    assert {id(ln) for ln in [title, letters, *(ln for r in rows for ln in r)]} == contents
    assert not {id(heading), *(id(ln) for ln in body)} & contents


def test_a_section_opening_on_the_contents_page_is_read(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "tables.pdf"), pagesize=(W, H))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, H - 80, "Contents")
    c.setFont("Helvetica", 10)
    for i, (text, page) in enumerate([("1 Introduction", "1"), ("2 The structure", "1"), ("3 Direct control", "2")]):
        c.drawString(72, H - 110 - 16 * i, text)
        c.drawString(520, H - 110 - 16 * i, page)
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 220, "1 Introduction")
    c.setFont("Helvetica", 10)
    for i in range(3):
        c.drawString(72, H - 245 - 14 * i, BODY)
    c.showPage()
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 80, "2 The structure")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 105, BODY)
    c.save()
    (doc,), report = ingest_corpus(tmp_path)
    assert [s.title for s in doc.root.children if s.kind == "section"] == ["1 Introduction", "2 The structure"]
    assert doc.root.children[0].children[0].text.startswith("Set the stylesheet")
    assert report.excluded["tables.pdf"]["table of contents"] == 7


def test_a_logo_mirrored_on_facing_pages_is_a_running_image():
    from ham.ingest.pdf_furniture import running_images
    # a small logo in the footer band, left on even pages, right on odd ones, on 4 of 20 pages: as
    # one slot it recurs often enough, each side alone does not
    logo = [[] for _ in range(20)]
    for p in (2, 4):
        logo[p] = [(20.0, 790.0, 60.0, 825.0)]
    for p in (3, 5):
        logo[p] = [(535.0, 790.0, 575.0, 825.0)]
    heights, widths = [H] * 20, [W] * 20
    assert running_images(logo, heights, widths) == {p: {0} for p in (2, 3, 4, 5)}
    assert running_images(logo, heights) == {}, "placed by its left edge, neither side recurs enough"
    # the same image on one side only of two pages is none, mirrored or not
    assert running_images([logo[2], logo[3]] + [[] for _ in range(18)], heights, widths) == {}


def test_a_sentence_about_a_table_is_not_its_caption(tmp_path):
    from reportlab.pdfgen import canvas

    from ham.ingest.pdf_text import is_caption
    assert is_caption("Table 3.1: Most common format codes") and is_caption("Figure 2. The main window")
    assert is_caption("Table 1 Supported paper sizes")
    assert not is_caption("Table 3.3 gives a few examples on how the codes can be used.")
    assert not is_caption("Figure 4 shows the dialog.")
    # gpredict (LibreOffice): the sentence above the table names another table; its caption is below
    c = canvas.Canvas(str(tmp_path / "codes.pdf"), pagesize=(W, H))
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 80, "3 Time formats")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 110, "Table 3.3 gives a few examples on how the time format codes can be used.")
    rows = [("Code", "Description"), ("%a", "The abbreviated weekday name"), ("%b", "The abbreviated month name")]
    top = H - 130
    for i, (code, text) in enumerate(rows):
        y = top - 18 * i
        c.rect(72, y - 18, 100, 18)
        c.rect(172, y - 18, 300, 18)
        c.drawString(76, y - 13, code)
        c.drawString(176, y - 13, text)
    c.drawString(72, top - 18 * len(rows) - 16, "Table 3.1: Most common format codes")
    c.save()
    (doc,), _ = ingest_corpus(tmp_path)
    [table] = [n for n in doc.leaves() if n.kind == "table"]
    assert table.caption == "Table 3.1: Most common format codes"
    assert any(n.text.startswith("Table 3.3 gives") for n in doc.leaves() if n.kind == "text")


def framed_pdf(path) -> None:
    """Pages with a border round them and a rule between their two columns: pdfplumber finds one
    "table" of one row and two cells holding the whole page. The last page has a real table of two
    rows and three columns, holding most of its page's text but a small part of the page."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    names = ["Installation", "Wiring", "Operation", "Cleaning"]
    for n in range(2):
        c.rect(40, 40, W - 80, H - 80)
        c.line(W / 2, 40, W / 2, H - 40)
        for col, x in enumerate((60, W / 2 + 20)):
            name = names[2 * n + col]
            c.setFont("Helvetica-Bold", 16)
            c.drawString(x, H - 80, f"{2 * n + col + 1} {name}")
            c.setFont("Helvetica", 10)
            for k in range(8):
                c.drawString(x, H - 110 - 14 * k, f"Line {k} about {name.lower()} goes here.")
        c.showPage()
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, H - 80, "5 Specifications")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 110, "The pump's ratings.")
    for r, row in enumerate([("Supply voltage", "Rated current", "Rated power"),
                             ("400 V three-phase", "2 A at full load", "800 W continuous")]):
        for k, cell in enumerate(row):
            c.rect(72 + 100 * k, H - 160 - 18 * r, 100, 18)
            c.drawString(77 + 100 * k, H - 155 - 18 * r, cell)
    c.showPage()
    c.save()


def test_a_page_frame_with_a_column_rule_is_read_as_text_not_as_a_table(tmp_path):
    framed_pdf(tmp_path / "framed.pdf")
    (doc,), report = ingest_corpus(tmp_path)
    assert [c.title for c in doc.root.children] == ["1 Installation", "2 Wiring", "3 Operation", "4 Cleaning",
                                                    "5 Specifications"]
    assert [n.kind for n in doc.root.children[0].children] == ["text"]
    assert "Line 7 about installation goes here." in doc.root.children[0].children[0].text
    tables = [n for n in doc.leaves() if n.kind == "table"]
    assert [t.text for t in tables] == ["Supply voltage | Rated current | Rated power\n"
                                        "400 V three-phase | 2 A at full load | 800 W continuous"]
    assert report.measures["framed.pdf"][
        "page frames read as text (a ruled box of one or two rows around most of the page)"] == 2
