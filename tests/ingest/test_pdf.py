"""PDF files read directly (pdfplumber): headings from font sizes and numbering, figures with
their captions, tables with caption and rows, page furniture removed; bad PDFs reported by name."""
import pytest

from ham.ingest import ingest_corpus
from ham.ingest.pdf_text import is_bold, is_mono
from ham.units import build_units
from tests.ingest.helpers import heading_path, node_titled
from tests.support.pdfs import fonts_pdf, manual_pdf, scanned_pdf


@pytest.fixture(scope="module")
def pump(tmp_path_factory):
    root = tmp_path_factory.mktemp("pdf")
    manual_pdf(root / "pump.pdf")
    for png in root.glob("*.png"):
        png.unlink()
    docs, report = ingest_corpus(root)
    assert report.problems == [] and len(docs) == 1
    return root, docs[0], report


def test_pdf_title_and_nesting_from_font_sizes_and_numbering(pump):
    _, doc, _ = pump
    assert doc.format == "pdf" and doc.title == "Pump P-300 Service Manual"  # not the metadata "Microsoft Word - ..."
    assert [n.title for n in doc.root.children if n.kind == "section"] == [
        "1 Installation", "2 Maintenance", "3 Troubleshooting"]
    wiring = node_titled(doc, "1.1 Wiring")
    assert heading_path(doc, wiring) == ["1 Installation"] and wiring.page == 0
    assert wiring.rule == "numbering 1.1 -> depth 2"


def test_pdf_figure_and_table_with_captions_and_images(pump):
    root, doc, _ = pump
    units = {(u.kind, u.modality): u for u in build_units(doc)}
    figure = units["image", "image"]
    assert figure.caption == "Figure 1: The pump on its concrete base." and figure.label == "Figure 1"
    assert figure.image_path.startswith(".ham/images/") and (root / figure.image_path).is_file()
    table = units["table", "text"]
    assert table.content.splitlines() == ["Table 1: Service intervals", "Part | Interval", "Oil | 1 month",
                                          "Seals | 24 months"]
    assert table.page == 1 and (root / table.image_path).is_file()  # the table keeps its image
    twin = units["table", "image"]   # and is retrievable by the image side too
    assert twin.image_path == table.image_path and twin.content == "Table 1: Service intervals"
    assert heading_path(doc, next(n for n in doc.leaves() if n.kind == "table")) == ["2 Maintenance"]


def test_pdf_running_header_and_page_footer_are_excluded(pump):
    _, doc, report = pump
    texts = " ".join(n.text for n in doc.leaves())
    assert "Rev. B" not in texts and "Page 2 of 3" not in texts
    assert report.excluded_totals()["page number"] == 3
    assert report.excluded_totals()["running head/footer (fixed text)"] == 3   # furniture by kind (issue 20)


@pytest.mark.parametrize("pages", [3, 2])
def test_a_logo_on_every_page_footer_is_furniture_not_an_image(tmp_path, pages):
    manual_pdf(tmp_path / "pump.pdf", pages=pages, logo=True)
    for png in tmp_path.glob("*.png"):
        png.unlink()
    docs, report = ingest_corpus(tmp_path)
    images = [u for u in build_units(docs[0]) if u.kind == "image"]
    excluded = report.excluded_totals().get("running image (header/footer logo)", 0)
    if pages == 3:       # the same place and size on every page: furniture, counted
        assert excluded == 3 and [u.caption for u in images] == ["Figure 1: The pump on its concrete base."]
    else:                # on two pages only it does not recur enough: kept as images
        assert excluded == 0 and len(images) == 3


def ruled_table(c, y: float, rows: list[tuple[str, str]]) -> None:
    """A ruled table of two 150pt columns, its first row's top at ``y`` + 18, one 18pt row each."""
    for r, (a, b) in enumerate(rows):
        c.rect(72, y - r * 18, 150, 18)
        c.rect(222, y - r * 18, 150, 18)
        c.drawString(77, y + 5 - r * 18, a)
        c.drawString(227, y + 5 - r * 18, b)


def titled_page(path, title: str, heading: str):
    """A reportlab canvas whose first page has a 20pt title and a 14pt first heading drawn."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for size, y, text in ((20, 780, title), (14, 740, heading)):
        c.setFont("Helvetica-Bold", size)
        c.drawString(72, y, text)
    return c


def test_the_body_size_is_the_prose_size_even_where_code_listings_hold_more_text(tmp_path):
    c = titled_page(tmp_path / "api.pdf", "API Reference", "1 Setup")
    c.setFont("Helvetica", 9)
    for i in range(3):
        c.drawString(72, 715 - i * 12, f"pointer to the second particle of pair {i}")   # a member's brief
    c.setFont("Courier", 7)        # a Doxygen-style source listing: more characters than the prose
    for i in range(40):
        c.drawString(72, 670 - i * 9, f"    int value_{i} = compute_the_value_of_item({i}, table, options);")
    c.showPage()
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    heads = [n.title for n in doc.root.walk() if n.kind in ("section", "subsection")]
    assert heads == ["1 Setup"]             # 9pt prose is body text, not headings over a 7pt body
    prose = next(n for n in doc.leaves() if n.text and n.text.startswith("pointer to the second particle of pair 0"))
    assert heading_path(doc, prose) == ["1 Setup"]
    # URW's Courier clone, as Ghostscript and TeX embed it, is code too; its sans sibling is not
    assert is_mono("NBAIUF+NimbusMonL-Regu") and not is_mono("SZBQPY+NimbusSanL-Regu")


def test_a_large_symbol_in_a_math_font_is_not_a_heading(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "angles.pdf"))
    for font, size, y, text in [("Helvetica-Bold", 20, 780, "Geometry Notes"), ("Helvetica-Bold", 14, 740, "1 Angles"),
                                ("Helvetica", 10, 715, "The figure below marks the angle between the two arms."),
                                ("Symbol", 18, 660, "α + θ"),               # a figure's symbols, set large
                                ("Helvetica", 10, 610, "Measure it from the first arm to the second one.")]:
        c.setFont(font, size)
        c.drawString(72, y, text)
    c.showPage()
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    assert [n.title for n in doc.root.walk() if n.kind in ("section", "subsection")] == ["1 Angles"]
    after = next(n for n in doc.leaves() if n.text and n.text.startswith("Measure it"))
    assert heading_path(doc, after) == ["1 Angles"]


BODY_LINE = "The widget sorts screws by length and stores them in trays for you."


@pytest.mark.parametrize("flags, heading", [(262178, True), (34, False)])
def test_a_bold_face_named_by_its_foundry_code_is_bold_by_its_descriptor(tmp_path, flags, heading):
    # Linux Libertine's bold is "LinLibertineOB": only its font descriptor (ForceBold) says bold
    lines = ([("F1", 20, "Widget Handbook")] + [("F1", 11, BODY_LINE)] * 3 + [("F2", 11, "Cleaning the trays")]
             + [("F1", 11, BODY_LINE)] * 3)
    fonts = {"F1": ("ABCDEF+LinLibertineO", 34), "F2": ("GHIJKL+LinLibertineOB", flags)}
    fonts_pdf(tmp_path / "faces.pdf", lines, fonts)
    docs, _ = ingest_corpus(tmp_path)
    titles = [n.title for n in docs[0].root.walk() if n.kind in ("section", "subsection")]
    assert docs[0].title == "Widget Handbook" and titles == (["Cleaning the trays"] if heading else [])


def test_a_bold_lower_case_line_is_a_heading_only_when_set_off_by_space(tmp_path):
    regular, bold = ("ABCDEF+LinLibertineO", 34), ("GHIJKL+LinLibertineOB", 262178)
    solid = 11 * 1.2
    lines = ([("F1", 20, "Widget Handbook")] + [("F1", 11, BODY_LINE)] * 2
             + [("F2", 11, "nbconvert"), ("F1", 11, BODY_LINE)]                  # a tool's name as a heading
             + [("F2", 11, "begin", solid), ("F1", 11, "x := 1", solid),          # a listing's keywords, set solid
                ("F2", 11, "end", solid)]
             + [("F1", 11, BODY_LINE)])
    fonts_pdf(tmp_path / "listing.pdf", lines, {"F1": regular, "F2": bold})
    docs, _ = ingest_corpus(tmp_path)
    assert [n.title for n in docs[0].root.walk() if n.kind in ("section", "subsection")] == ["nbconvert"]


@pytest.mark.parametrize("name, bold", [("DECIFN+CMBX12", True), ("CMBX10", True), ("TYALVP+SFBX1000", True),
                                        ("CMSSBX10", True), ("Times-Bold", True), ("SourceSansPro-Semibold", True),
                                        ("CMR10", False), ("SFRM1000", False), ("CMSS10", False), ("CMBSY10", False),
                                        ("LinLibertineOB", False), ("ALWLRF+NimbusRomNo9L-Medi", True),
                                        ("NimbusRomNo9L-MediItal", True), ("URWChanceryL-MediItal", False)])
def test_tex_bold_faces_are_known_by_name(name, bold):
    assert is_bold(name) is bold       # LinLibertineOB: by its descriptor only (above)


def test_bad_pdfs_are_reported_by_name_and_the_rest_ingests(tmp_path):
    manual_pdf(tmp_path / "good.pdf")
    manual_pdf(tmp_path / "locked.pdf", encrypt="secret")
    scanned_pdf(tmp_path / "scan.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage")
    for png in tmp_path.glob("*.png"):
        png.unlink()
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["good.pdf"]
    problems = {p.file: p.problem for p in report.problems}
    assert problems["locked.pdf"].startswith("password-protected PDF")
    assert problems["scan.pdf"].startswith("no text layer") and "MinerU or Docling" in problems["scan.pdf"]
    assert problems["broken.pdf"].startswith("corrupt or unreadable PDF")


def test_a_ruled_box_of_one_column_is_text_with_its_line_breaks_not_a_table(tmp_path):
    """dblatex, Pandoc and FOP draw code listings and "Note:" boxes as a ruled frame; pdfplumber
    finds each as a one-column table (51 of FreedomBox's 62 "tables", 67 of maint-guide's 70)."""
    c = titled_page(tmp_path / "guide.pdf", "Build Guide", "1 Building")
    c.setFont("Helvetica", 10)
    c.drawString(72, 715, "Unpack the sources and build them:")
    listing = ["Build it", "$ tar -xzf pump-1.0.tar.gz", "$ cd pump-1.0", "$ make install"]
    for i, line in enumerate(listing):
        c.setFillGray(0.9)                        # dblatex shades a listing line by line
        c.rect(70, 681 - i * 14, 300, 14, stroke=0, fill=1)
        c.setFillGray(0)
        c.setFont("Helvetica-Bold" if i == 0 else "Courier", 10 if i == 0 else 9)   # the box's bold label
        c.drawString(76, 685 - i * 14, line)
    c.setFont("Helvetica", 10)
    c.drawString(72, 600, "The limits of each model:")
    ruled_table(c, 560, [("Model", "Flow"), ("P-300", "40 l/min")])   # a real table beside it
    c.showPage()
    c.save()
    docs, report = ingest_corpus(tmp_path)
    leaves = list(docs[0].leaves())
    box = next(n for n in leaves if n.text and n.text.startswith("Build it"))
    assert box.kind == "text" and box.text.splitlines() == listing     # its label is no heading
    assert heading_path(docs[0], box) == ["1 Building"]
    tables = [n for n in leaves if n.kind == "table"]
    assert [t.text.splitlines() for t in tables] == [["Model | Flow", "P-300 | 40 l/min"]]
    assert report.measures["guide.pdf"]["ruled boxes of one column read as text"] == 1


def _plot(c, x: float, y: float) -> None:
    """A line chart drawn in vector graphics, as a plotting library writes it to PDF: axes, a data
    curve, round markers, tick values below the x axis and a legend."""
    c.setLineWidth(1)
    c.line(x, y, x + 200, y)                           # the axes
    c.line(x, y, x, y + 120)
    path = c.beginPath()
    path.moveTo(x, y + 10)
    path.curveTo(x + 60, y + 110, x + 120, y + 20, x + 190, y + 100)
    c.drawPath(path, stroke=1, fill=0)
    for px, py in ((x + 40, y + 52), (x + 100, y + 60), (x + 160, y + 70)):
        c.circle(px, py, 3, stroke=1, fill=1)
    c.setFont("Helvetica", 7)
    for i, tick in enumerate(("0", "10", "20", "30")):
        c.drawString(x - 2 + i * 60, y - 14, tick)     # below the axis, outside the drawing
    c.drawString(x + 150, y + 110, "flow")


def test_a_figure_drawn_in_vector_graphics_is_an_image_with_its_labels_as_its_text(tmp_path):
    """A plot, a diagram or a logo converted from SVG has no embedded image: it used to vanish and
    its labels became text lines in the section (asymptote's manual: 36 such figures)."""
    c = titled_page(tmp_path / "pump.pdf", "Pump Guide", "1 Performance")
    c.setFont("Helvetica", 10)
    c.drawString(72, 715, "The flow rises with the speed of the impeller, as the chart shows.")
    c.drawString(72, 660, "It rises fast.")            # a paragraph's last line, at the margin just above
    _plot(c, 100, 530)
    c.setFont("Helvetica", 9)
    c.drawString(100, 490, "Figure 2: Flow against impeller speed.")
    c.setFont("Helvetica", 10)
    c.drawString(72, 460, "Below 10 rpm the pump does not prime.")
    # what is no figure: a rounded note box with a small round icon, a ruled table, a page rule
    c.roundRect(72, 380, 420, 50, 8)
    c.circle(90, 405, 7)
    c.drawString(105, 400, "Note: never run the pump dry.")
    ruled_table(c, 320, [("Speed", "Flow"), ("10 rpm", "4 l/min")])
    c.line(72, 60, 523, 60)
    c.showPage()
    c.save()
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    images = [u for u in build_units(doc) if u.kind == "image"]
    assert len(images) == 1
    figure = images[0]
    assert figure.caption == "Figure 2: Flow against impeller speed." and (tmp_path / figure.image_path).is_file()
    leaf = next(n for n in doc.leaves() if n.kind == "image")
    assert leaf.alt.split() == ["flow", "0", "10", "20", "30"] and heading_path(doc, leaf) == ["1 Performance"]
    texts = [n.text for n in doc.leaves() if n.kind == "text"]
    assert not any(t.split() == ["0"] or "flow" == t for t in texts)     # the labels left the running text
    assert "Note: never run the pump dry." in " ".join(texts) and "It rises fast." in " ".join(texts)
    assert [n.text.splitlines() for n in doc.leaves() if n.kind == "table"] == [["Speed | Flow", "10 rpm | 4 l/min"]]
    measures = report.measures["pump.pdf"]
    assert measures["figures drawn as vector graphics (rendered as images)"] == 1
    assert measures["lines of text inside vector figures (kept as the figure's text)"] == 5


def test_a_logo_drawn_in_vector_graphics_on_every_page_is_furniture(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "guide.pdf"))
    for n in range(4):
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, 760, f"{n + 1} Chapter {n + 1}")
        c.setFont("Helvetica", 10)
        c.drawString(72, 730, f"The text of chapter {n + 1}.")
        for x in (480, 500, 520):                            # the same drawn logo in every footer
            c.circle(x, 40, 14, fill=1)
        c.showPage()
    c.save()
    docs, report = ingest_corpus(tmp_path)
    assert not [n for n in docs[0].leaves() if n.kind == "image"]
    assert report.measures["guide.pdf"]["figures drawn as vector graphics (rendered as images)"] == 4
    assert report.excluded_totals()["running image (header/footer logo)"] == 4


def test_a_page_too_dense_to_search_for_drawn_figures_is_counted_not_searched(monkeypatch):
    from ham.ingest import pdf_figures

    monkeypatch.setattr(pdf_figures, "MAX_OBJECTS", 2)
    strokes = [("curve", (0.0, 0.0, 50.0, 50.0)), ("curve", (10.0, 10.0, 20.0, 20.0)),
               ("curve", (30.0, 5.0, 45.0, 30.0))]
    assert pdf_figures.find_figures(strokes) is None
    monkeypatch.setattr(pdf_figures, "MAX_OBJECTS", 3)
    assert pdf_figures.find_figures(strokes) == [(0.0, 0.0, 50.0, 50.0)]


def _maketitle_pdf(path, credits_font: str, outline: bool, subsection_font: str = "Helvetica-Bold") -> None:
    """LaTeX's \\maketitle: a 17pt title, authors and date at 12pt, then numbered sections; page 2
    has a 12pt subsection."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 780
    page1 = [("Times-Roman", 17, "The widget package"), (credits_font, 12, "Jane Doe and John Roe"),
             (credits_font, 12, "March 3, 2024"), ("Helvetica-Bold", 14, "1 Introduction")] + \
        [("Times-Roman", 10, f"The widget package draws widgets of kind {i} on every page.") for i in range(20)]
    page2 = [("Helvetica-Bold", 14, "2 Usage"), (subsection_font, 12, "2.1 Options")] + \
        [("Times-Roman", 10, f"Option {i} sets the widget's colour and size for the whole document.")
         for i in range(20)]
    for lines in (page1, page2):
        for font, size, text in lines:
            if text[:1].isdigit() and outline:
                c.bookmarkPage(text, fit="XYZ", left=72, top=y + 20)
                c.addOutlineEntry(text, text, level=text.count("."))
            c.setFont(font, size)
            c.drawString(72, y, text)
            y -= size * 2.2
        c.showPage()
        y = 780
    c.save()


@pytest.mark.parametrize("outline", [False, True])
def test_authors_and_date_below_the_title_are_text_not_sections(tmp_path, outline):
    _maketitle_pdf(tmp_path / "widget.pdf", "Times-Roman", outline)
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "The widget package"     # with an outline that has no title entry too
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["1 Introduction", "2 Usage"]
    authors = next(n for n in doc.leaves() if n.text and n.text.startswith("Jane Doe"))
    assert heading_path(doc, authors) == []      # text under the document, before its first section
    assert report.measure_totals()["title block lines read as text (authors, date)"] == 2


@pytest.mark.parametrize("credits_font, subsection_font", [("Times-Roman", "Times-Roman"),
                                                           ("Times-Bold", "Helvetica-Bold")])
def test_a_line_set_like_a_section_heading_stays_a_heading_below_the_title(tmp_path, credits_font, subsection_font):
    # set like page 2's subsection, or bold: sections, not credits
    _maketitle_pdf(tmp_path / "widget.pdf", credits_font, False, subsection_font)
    docs, report = ingest_corpus(tmp_path)
    titles = [n.title for n in docs[0].root.walk() if n.kind in ("section", "subsection")]
    assert "Jane Doe and John Roe" in titles and "March 3, 2024" in titles
    assert report.measure_totals()["title block lines read as text (authors, date)"] == 0


def test_a_heading_after_body_text_below_the_title_stays_a_heading(tmp_path):
    # a one-page note: its regular-weight heading follows body text, so it is no author line
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "note.pdf"))
    y = 780
    for font, size, text in [("Times-Roman", 17, "Widget care"), ("Times-Roman", 10, BODY_LINE),
                             ("Times-Roman", 10, BODY_LINE), ("Times-Roman", 13, "Storing the widget"),
                             ("Times-Roman", 10, BODY_LINE), ("Times-Roman", 10, BODY_LINE)]:
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= size * 2.2
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    assert docs[0].title == "Widget care"
    assert [n.title for n in docs[0].root.walk() if n.kind == "section"] == ["Storing the widget"]


def _record(c, x: float, y: float, cells: list[str]) -> None:
    """A graphviz record node: a ruled rectangle of cells, one row."""
    for i, cell in enumerate(cells):
        c.rect(x + i * 40, y, 40, 18)
        c.drawString(x + 4 + i * 40, y + 5, cell)


def test_record_nodes_a_graph_draws_as_ruled_boxes_are_part_of_its_figure(tmp_path):
    """graphviz's record nodes are ruled rectangles, read as tables; the edges between them alone
    were no figure, and the graph came out as tables and stray curves."""
    c = titled_page(tmp_path / "graph.pdf", "Graph Guide", "1 Records")
    c.setFont("Helvetica", 10)
    c.drawString(72, 715, "Records hold fields; edges join a field to another record.")
    c.drawString(150, 644, "as the figure shows.")       # a paragraph's last line, right above the graph
    _record(c, 150, 620, ["left", "mid", "right"])
    _record(c, 110, 540, ["one", "two"])
    _record(c, 230, 540, ["three", "four"])
    for x_start, x_end in ((170, 150), (250, 270)):   # two edges apart, each a curve alone: no figure by itself
        path = c.beginPath()
        path.moveTo(x_start, 620)
        path.curveTo(x_start, 600, x_end, 580, x_end, 558)
        c.drawPath(path, stroke=1, fill=0)
    c.drawString(72, 500, "Figure 1: Records joined by edges")
    ruled_table(c, 420, [("Attribute", "Default"), ("shape", "ellipse")])   # a table of its own
    for r in range(2):
        c.circle(365, 429 - r * 18, 3)             # an icon in each row's last cell: the table's own
    c.showPage()
    c.save()
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    figures = [n for n in doc.leaves() if n.kind == "image"]
    assert len(figures) == 1 and figures[0].caption == "Figure 1: Records joined by edges"
    assert all(word in figures[0].alt.split() for word in ("left", "mid", "right", "one", "two", "three", "four"))
    assert "shows" not in figures[0].alt and any(n.text == "as the figure shows." for n in doc.leaves())
    assert [n.text.splitlines() for n in doc.leaves() if n.kind == "table"] == [["Attribute | Default",
                                                                                  "shape | ellipse"]]
    assert report.measures["graph.pdf"]["ruled tables inside vector figures (kept as the figure's text)"] == 3


def test_an_admonition_label_on_its_own_line_is_no_heading(tmp_path):
    # dblatex sets "Warning" bold above the note's text; as a heading it took the section's text after the note
    c = titled_page(tmp_path / "ref.pdf", "Debian Reference", "1 Basic precautions")
    y = 715
    for font, text in [("Helvetica", "Install packages from one suite only."), ("Helvetica-Bold", "Warning"),
                       ("Helvetica", "Do not mix suites."), ("Helvetica", ""),
                       ("Helvetica", "Stay with the stable release when you are new.")]:
        c.setFont(font, 10)
        c.drawString(72, y, text)
        y -= 14 if text else 10
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, y - 20, "2 Packages")
    c.setFont("Helvetica", 10)
    c.drawString(72, y - 45, "Packages come from the archive.")
    c.setFont("Helvetica", 13)
    c.drawString(72, y - 75, "See Also")           # set larger: a reference page's section, kept
    c.setFont("Helvetica", 10)
    c.drawString(72, y - 100, "apt(8), dpkg(1)")
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    assert [n.title for n in doc.root.walk() if n.kind in ("section", "subsection")] == ["1 Basic precautions",
                                                                                          "2 Packages", "See Also"]
    note = next(n for n in doc.leaves() if n.text and "Do not mix suites." in n.text)
    assert "Warning Do not mix suites." in note.text and heading_path(doc, note) == ["1 Basic precautions"]
    after = next(n for n in doc.leaves() if n.text and "Stay with the stable" in n.text)
    assert heading_path(doc, after) == ["1 Basic precautions"]


def test_a_numbered_line_continuing_the_numbering_in_another_face_is_a_heading(tmp_path):
    # groff's mom sets subsections in oblique type 0.3pt above the body: "3.1. Creating ..."
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "mom.pdf"))
    y = 780
    for font, size, text in [("Helvetica-Bold", 14, "Producing PDFs"), ("Helvetica-Bold", 11.5, "1. Introduction"),
                             *[("Helvetica", 10.5, BODY_LINE)] * 3,
                             ("Helvetica-Oblique", 10.8, "1.1. Creating destination points"),
                             *[("Helvetica", 10.5, BODY_LINE)] * 3,
                             ("Helvetica", 10.5, "1.2 is the version that added links"),      # body face: text
                             ("Helvetica-Oblique", 10.8, "1.4. A number that skips one"),     # not the next: text
                             ("Helvetica-Oblique", 10.8, "2. Adding cutting planes"),   # one part: a list's item
                             ("Helvetica-Bold", 11.5, "2. Using groff"), *[("Helvetica", 10.5, BODY_LINE)] * 3]:
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= size * 2.2
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    heads = [(n.kind, n.title) for n in docs[0].root.walk() if n.kind in ("section", "subsection")]
    assert heads == [("section", "1. Introduction"), ("subsection", "1.1. Creating destination points"),
                     ("section", "2. Using groff")]
