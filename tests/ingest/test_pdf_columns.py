"""PDF reading order: a page of two text columns reads the left column, then the right one; a
one-column page whose diagram puts small labels (and whose running head puts a line) in the right
half, or a code listing's comments aligned far right, stays top to bottom, so a heading above the diagram still opens the text below it (a Doxygen
class page read as two columns put its heading after its own sections). A tall heading in one column,
set between two body lines of the other, does not merge those two lines into one (their words had
interleaved: "Line Line 0 1 about about")."""
from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, node_titled

W, H = 595.27, 841.89
LEFT = [f"Left column line {i} about the pump's inlet valve and its seals." for i in range(8)]
RIGHT = [f"Right column line {i} about the outlet and its pressure gauge." for i in range(8)]


def _line(c, font, size, x, y, text):
    c.setFont(font, size)
    c.drawString(x, y, text)


def two_columns_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    _line(c, "Helvetica-Bold", 20, 72, H - 80, "Pump Notes Spanning The Page Width Of The Sheet")
    for i, (left, right) in enumerate(zip(LEFT, RIGHT)):
        y = H - 130 - i * 13
        _line(c, "Helvetica", 7, 40, y, left)
        _line(c, "Helvetica", 7, W / 2 + 10, y, right)
    c.showPage()
    c.save()


def heading_between_lines_pdf(path):
    """Two columns; the right one's 16pt heading sits level with the gap between the left
    column's first two body lines and overlaps both."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    for col, (x, name) in enumerate(((60, "inlet"), (W / 2 + 20, "outlet"))):
        y = H - 80 - 40 * col
        _line(c, "Helvetica-Bold", 16, x, y, f"{col + 1} The {name.title()}")
        y -= 30
        for k in range(8):
            _line(c, "Helvetica", 10, x, y, f"Line {k} about the {name} goes here.")
            y -= 14
    c.showPage()
    c.save()


def diagram_page_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    _line(c, "Helvetica", 10, 430, H - 40, "Class Documentation")           # running head, right half
    _line(c, "Helvetica-Bold", 20, 72, H - 90, "Widget Reference")
    _line(c, "Helvetica-Bold", 14, 72, H - 130, "1 Widget Class Reference Spanning The Width")
    for i in range(6):
        _line(c, "Helvetica", 10, 72, H - 160 - i * 13, f"Body line {i} of the widget class.")
    for i, label in enumerate(["centre", "angle", "side", "v", "is_inside", "cocircular"]):
        _line(c, "Helvetica", 5.6, 330 + (i % 2) * 90, H - 260 - (i // 2) * 12, label)   # the diagram
    for i in range(6):
        _line(c, "Helvetica", 10, 72, H - 320 - i * 13, f"More body line {i} after the diagram.")
    c.showPage()
    c.save()


def code_page_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    _line(c, "Helvetica-Bold", 20, 72, H - 90, "Listing Guide")
    _line(c, "Helvetica-Bold", 14, 72, H - 130, "2 An Example Listing")
    for i in range(8):
        y = H - 160 - i * 13
        if i == 4:     # a long line of code crosses the middle of the page
            _line(c, "Courier", 10, 72, y, "total = combine(value_0, value_1, value_2) + adjust(value_3, value_4);")
            continue
        _line(c, "Courier", 10, 72, y, f"value_{i} = compute({i});")
        _line(c, "Courier", 10, 360, y, f"// v{i}")               # its comment, aligned far right
    c.showPage()
    c.save()


def _texts(doc):
    return [n.text for n in doc.leaves() if n.text]


def test_two_text_columns_read_left_then_right(tmp_path):
    two_columns_pdf(tmp_path / "notes.pdf")
    docs, _ = ingest_corpus(tmp_path)
    joined = "\n".join(_texts(docs[0]))
    assert joined.index(LEFT[0]) < joined.index(LEFT[-1]) < joined.index(RIGHT[0]) < joined.index(RIGHT[-1])


def test_a_tall_heading_in_one_column_does_not_merge_two_lines_of_the_other(tmp_path):
    heading_between_lines_pdf(tmp_path / "pump.pdf")
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    joined = "\n".join(_texts(doc))
    left = [f"Line {k} about the inlet goes here." for k in range(8)]
    right = [f"Line {k} about the outlet goes here." for k in range(8)]
    assert "Line Line" not in joined
    places = [joined.index(line) for line in left + right]
    assert places == sorted(places)
    outlet = node_titled(doc, "2 The Outlet")
    first = next(n for n in doc.leaves() if n.text and right[0] in n.text)
    assert heading_path(doc, first) == [outlet.title]


def test_small_diagram_labels_and_a_running_head_do_not_make_a_page_two_columns(tmp_path):
    diagram_page_pdf(tmp_path / "widget.pdf")
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    heading = node_titled(doc, "1 Widget Class Reference Spanning The Width")
    body = next(n for n in doc.leaves() if n.text and n.text.startswith("Body line 0"))
    after = next(n for n in doc.leaves() if n.text and n.text.startswith("More body line 0"))
    assert heading_path(doc, body) == [heading.title] and heading_path(doc, after) == [heading.title]
    texts = _texts(doc)
    assert next(i for i, t in enumerate(texts) if "Body line 0" in t) < next(
        i for i, t in enumerate(texts) if "More body line 0" in t)


def test_a_code_listing_with_comments_aligned_right_is_not_two_columns(tmp_path):
    code_page_pdf(tmp_path / "listing.pdf")
    docs, _ = ingest_corpus(tmp_path)
    joined = "\n".join(_texts(docs[0]))
    assert joined.index("value_3 = compute(3);") < joined.index("total = combine(") < joined.index(
        "value_5 = compute(5);")

