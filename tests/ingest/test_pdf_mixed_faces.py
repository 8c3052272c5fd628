"""Lines set in two faces (camlidl-doc's and freefem-doc's LaTeX manuals): a title set larger with a
command's name in typewriter type is a heading, though most of its letters are monospaced; a bold
run-in label opening a paragraph's first line is no heading, though most of its letters are bold;
nor is the second line of a bold list item hyphenated where it wrapped."""
from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, leaf_with

W, H = 612.0, 792.0
BODY = "The stub generator reads the interface file and writes the C and OCaml stubs for it"


def _runs(c, x: float, y: float, runs: list[tuple[str, str, float]]) -> None:
    for font, text, size in runs:
        c.setFont(font, size)
        c.drawString(x, y, text)
        x += c.stringWidth(text, font, size) + 0.3 * size


def _body(c, y: float, n: int = 3) -> float:
    for _ in range(n):
        _runs(c, 72, y, [("Helvetica", BODY, 10)])
        y -= 13
    return y - 10


def test_a_title_in_two_faces_heads_its_section_and_a_run_in_label_or_wrapped_item_heads_none(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "camlidl.pdf"), pagesize=(W, H))
    y = H - 80
    _runs(c, 72, y, [("Helvetica-Bold", "1 Overview", 14)])
    y = _body(c, y - 24)
    _runs(c, 72, y, [("Helvetica-Bold", "1.1 Attributes", 12)])
    y = _body(c, y - 20)
    # 4 letters of "2 Using" in bold, 7 of "camlidl" in typewriter type: monospaced by majority
    _runs(c, 72, y, [("Helvetica-Bold", "2 Using", 14), ("Courier", "camlidl", 14)])
    y = _body(c, y - 24)
    _runs(c, 72, y, [("Helvetica-Bold", "2.1 Compiling", 12)])
    y = _body(c, y - 20)
    _runs(c, 72, y, [("Helvetica-Bold", "Deallocation of function results and parameters:", 10),
                     ("Helvetica", "If a C function allocates", 10)])
    y = _body(c, y - 13, 2)
    _runs(c, 72, y, [("Helvetica-Bold", "• A SQUARE WITH WELL IDENTIFIED SIDES AND CON-", 10)])
    _runs(c, 82, y - 13, [("Helvetica-Bold", "TROL OF IB AT CORNERS", 10)])
    _body(c, y - 36)
    c.save()
    (doc,), _ = ingest_corpus(tmp_path)
    titles = [n.title for n in doc.root.walk() if n.children and n is not doc.root]
    assert titles == ["1 Overview", "1.1 Attributes", "2 Using camlidl", "2.1 Compiling"]
    run_in = leaf_with(doc, "text", "Deallocation of function results")
    assert "If a C function allocates" in run_in.text
    assert heading_path(doc, run_in) == ["2 Using camlidl", "2.1 Compiling"]
    item = leaf_with(doc, "text", "A SQUARE")       # the item's second line is its own, not a paragraph
    assert "AND CON" in item.text and item.text.endswith("TROL OF IB AT CORNERS")
    assert heading_path(doc, item) == ["2 Using camlidl", "2.1 Compiling"]


def test_a_footnote_mark_in_the_text_face_leaves_a_bold_heading_bold(tmp_path):
    import pdfplumber
    from reportlab.pdfgen import canvas

    from ham.ingest.pdf_text import looks_like_heading, page_lines

    c = canvas.Canvas(str(tmp_path / "marks.pdf"), pagesize=(W, H))
    # nbsphinx: "Version 0.8.11 – 2022-12-29 – PyPI" with its link's mark "Page 70" at 7.6pt
    _runs(c, 72, H - 100, [("Helvetica-Bold", "Version 0.8.11 - PyPI", 10), ("Helvetica", "Page 70", 7.6)])
    _runs(c, 72, H - 140, [("Helvetica-Bold", "Deallocation of results:", 10), ("Helvetica", "If a C function", 10)])
    c.save()
    with pdfplumber.open(tmp_path / "marks.pdf") as pdf:
        marked, run_in = page_lines(pdf.pages[0], lambda w: False)
    assert marked.text.startswith("Version") and looks_like_heading(marked, 10.0)
    assert run_in.bold and not looks_like_heading(run_in, 10.0)
