"""Typography alone (a PDF without an outline): where numbered and unnumbered headings share a
font size, the font tells the levels apart (an office suite's default heading styles: 14 pt bold
italic for the numbered second level, 14 pt bold for the unnumbered third). Lettered numbering
("C.1.1") nests by its parts. The test PDFs are drawn with reportlab."""
import pytest

from ham.ingest import ingest_corpus
from ham.ingest.levels import LevelResolver
from tests.ingest.helpers import heading_path, node_titled

W, H = 595.27, 841.89
BODY = "The sequence map shows each base of the loaded sequence with its features drawn above it."
H1, H2, H3, H4 = ("Helvetica-Bold", 16), ("Helvetica-BoldOblique", 14), ("Helvetica-Bold", 14), \
    ("Helvetica-BoldOblique", 12)

PAGES = [
    [("Helvetica-Bold", 22, "The Manual"), (*H1, "I. About"), (*H2, "1. Conventions"), BODY, (*H2, "2. Copyright"), BODY,
     (*H1, "II. DNA"), (*H2, "1. Open and display"), BODY, (*H2, "2. Context menu"), BODY,
     (*H3, "Background"), BODY, (*H3, "Restriction sites"), BODY],
    [(*H2, "3. Databases"), BODY, (*H3, "Management"), BODY, (*H4, "Filter"), BODY, (*H4, "Lists"), BODY,
     (*H3, "Storage"), BODY, (*H4, "Sqlite"), BODY, (*H2, "4. Import"), BODY],
]


def styled_pdf(path, pages=PAGES, same_font: bool = False):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    for lines in pages:
        page = c.beginText(72, H - 80)
        for entry in lines:
            font, size, text = ("Times-Roman", 12, entry) if isinstance(entry, str) else entry
            page.setFont("Helvetica-Bold" if same_font and font.startswith("Helvetica") else font, size, size * 2.2)
            page.textLine(text)
        c.drawText(page)
        c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def styled(tmp_path_factory):
    root = tmp_path_factory.mktemp("styled")
    styled_pdf(root / "gentle.pdf")
    flat = tmp_path_factory.mktemp("flat")
    styled_pdf(flat / "gentle.pdf", same_font=True)
    return ingest_corpus(root)[0][0], ingest_corpus(flat)[0][0]


def test_a_font_distinct_at_one_size_is_a_level_below_the_numbered_headings(styled):
    doc, _ = styled
    assert heading_path(doc, node_titled(doc, "2. Context menu")) == ["II. DNA"]
    background = node_titled(doc, "Background")
    assert heading_path(doc, background) == ["II. DNA", "2. Context menu"]
    assert heading_path(doc, node_titled(doc, "Restriction sites")) == ["II. DNA", "2. Context menu"]
    assert "(Helvetica-Bold)" in background.rule and "below the 14pt (Helvetica-BoldOblique)" in background.rule
    # the 12pt headings go one level below the deepest 14pt class, not below the numbered one
    assert heading_path(doc, node_titled(doc, "Filter")) == ["II. DNA", "3. Databases", "Management"]
    assert heading_path(doc, node_titled(doc, "Sqlite")) == ["II. DNA", "3. Databases", "Storage"]
    assert heading_path(doc, node_titled(doc, "4. Import")) == ["II. DNA"]


def test_without_the_font_difference_the_same_size_means_the_same_level(styled):
    _, flat = styled
    assert heading_path(flat, node_titled(flat, "Background")) == ["II. DNA"]
    assert heading_path(flat, node_titled(flat, "Filter")) == ["II. DNA", "Management"]


def _levels(headings):
    resolver = LevelResolver(headings)
    return [resolver.next(h[0])[0] for h in headings]


def test_unnumbered_fonts_at_one_size_rank_by_first_appearance():
    heads = [("Overview", 18, "Sans-Bold"), ("Setup", 14, "Sans-BoldItalic"), ("Cables", 14, "Sans-Bold"),
             ("Power", 14, "Sans-Bold"), ("Use", 14, "Sans-BoldItalic"), ("Buttons", 14, "Sans-Bold")]
    assert _levels(heads) == [1, 2, 3, 3, 2, 3]
    swapped = [(t, s, {"Sans-Bold": "Sans-BoldItalic", "Sans-BoldItalic": "Sans-Bold"}[f]) if s == 14 else (t, s, f)
               for t, s, f in heads]
    assert _levels(swapped) == [1, 2, 3, 3, 2, 3]          # the style does not matter, the order does
    assert _levels([(t, s) for t, s, _ in heads]) == [1, 2, 2, 2, 2, 2]   # no fonts: sizes alone


def test_the_numbered_font_ranks_first_and_a_font_used_once_is_no_level():
    heads = [("Preface", 14, "Sans-Bold"), ("1. Setup", 14, "Sans-BoldItalic"), ("Cables", 14, "Sans-Bold"),
             ("2. Use", 14, "Sans-BoldItalic"), ("Buttons", 14, "Sans-Bold")]
    assert _levels(heads) == [2, 1, 2, 1, 2]     # "Preface" before any numbered heading: below them too
    once = [("1. Setup", 14, "Sans-Bold"), ("Cables", 14, "Sans-Bold"), ("Note", 14, "Serif-Bold"),
            ("2. Use", 14, "Sans-Bold")]
    assert _levels(once) == [1, 1, 1, 1]


def test_lettered_chapters_nest_by_their_parts_like_decimal_numbers():
    # a Word manual numbered "A", "C.1", "C.1.1", "D.1.1.1" (no decimal sections before them)
    heads = [("A Introduction", 18), ("B Installation", 18), ("C Browser", 18), ("C.1 Toolbar", 16),
             ("C.1.1 Load Image File", 14), ("C.1.2 Open", 14), ("D Viewer", 18), ("D.1 Image Viewer", 16),
             ("D.1.1 Toolbar", 14), ("D.1.1.1 Load Image File", 12), ("D.2 Print", 16)]
    assert _levels(heads) == [1, 1, 1, 2, 3, 3, 1, 2, 3, 4, 2]
    # nested below another numbering, letters still count their parts: IEEE "I." then "A."
    assert _levels([("I. Method", 12), ("A. Data", 11), ("B. Model", 11), ("II. Results", 12)]) == [1, 2, 2, 1]


def test_a_bold_paragraphs_first_line_is_no_heading_where_a_wrapped_title_is():
    from ham.ingest.pdf_text import Line, looks_like_heading

    def bold(text, top):
        return Line(text, 12.0, True, 56.8, 540.0, top, top + 12.0, len(text))
    # the Gutenprint manual (LibreOffice): a bold paragraph at the body size, set solid
    first = bold("We recommend that all packagers of Gutenprint, such as Linux distribution vendors, read this", 486.8)
    for after in ("manual carefully. There are important notes throughout.", "Gutenprint release."):
        assert not looks_like_heading(first, 12.0, after=bold(after, 500.1))
    # a title that wraps is a heading still, and so is the first line set off by space
    title = bold("Changes to the Foomatic Interface and the Ghostscript Driver of", 486.8)
    assert looks_like_heading(title, 12.0, after=bold("Gutenprint 5.2", 500.1))
    assert looks_like_heading(first, 12.0, after=bold("manual carefully.", 512.0))


def test_a_section_label_above_its_title_opens_a_chapter_but_not_as_body_text():
    from ham.ingest.pdf_furniture import opener_label, opener_title
    from ham.ingest.pdf_text import Line

    def line(text, size, bold=False):
        return Line(text, size, bold, 72.0, 300.0, 100.0, 100.0 + size, len(text))
    # CLIPS's reference manual (Word): "Section 3:" at 18pt above the chapter's 24pt title
    label = line("Section 3:", 18.0)
    assert opener_label(label, 12.0)
    assert opener_title([label], line("Deftemplate Construct", 24.0)) == "Section 3: Deftemplate Construct"
    # a sentence's last line in the body is text, never a label (it was joined to the heading below)
    assert not opener_label(line("Section 10.", 12.0), 12.0)
    assert opener_label(line("CHAPTER", 12.0, bold=True), 12.0)
