"""A paragraph is one leaf: not cut where its lines' boxes overlap (tight leading, a tall inline
code box) nor where it runs on over a page break. The PDFs are drawn with reportlab."""
from ham.ingest import ingest_corpus


def _page(c, lines, leading=14, size=11, font="Helvetica"):
    y = 700
    for text in lines:
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= leading
    c.showPage()


def _texts(tmp_path):
    docs, report = ingest_corpus(tmp_path)
    return [leaf.text for leaf in docs[0].leaves()], report


def test_lines_whose_boxes_overlap_are_one_paragraph(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "tight.pdf"))
    _page(c, ["Tight leading sets these lines closer than", "their boxes are tall, so each line's box",
              "overlaps the next one by a point or so."], leading=10.5, size=12)
    c.save()
    texts, _ = _texts(tmp_path)
    assert texts == [("Tight leading sets these lines closer than their boxes are tall, so each line's box "
                      "overlaps the next one by a point or so.")]


def test_a_paragraph_runs_on_over_a_page_break_and_a_new_one_does_not(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "pages.pdf"))
    c.setFont("Helvetica", 8)
    c.drawString(72, 80, "1 A footnote at the foot of the page does not end the paragraph above it.")
    _page(c, ["Many statistical techniques have been implemented. A few of these are built"])
    _page(c, ["into the base R environment, but many are supplied as packages.",
              "", "", "Every package ends here."])
    _page(c, ["Upper case opens a new paragraph, and so does a sentence that was closed."])
    c.save()
    texts, report = _texts(tmp_path)
    assert texts == [("Many statistical techniques have been implemented. A few of these are built into the base R "
                      "environment, but many are supplied as packages."),
                     "1 A footnote at the foot of the page does not end the paragraph above it.",
                     "Every package ends here.",
                     "Upper case opens a new paragraph, and so does a sentence that was closed."]
    assert report.excluded["pages.pdf"]["paragraph run on over a page or column break (joined)"] == 1


def texinfo_pdf(path):
    """Paragraphs the way texinfo sets them: a first-line indent and a paragraph skip (3 points)
    smaller than a line, so that the space between paragraphs alone is within a line's reach; a
    code display indented under its sentence; then GLPK's control parameters: a term on its own
    line, its text below it at the term's indent."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    rows = [(0, 87, "The entities that R creates and manipulates are known as objects. These may be many things:"),
            (13, 72, "arrays of numbers, character strings or functions."),
            (16, 87, "During an R session, objects are created and stored by name; to list them all, use the command"),
            (13, 116, "> objects()", "Courier"),
            (13, 72, "which displays the names of the objects currently stored within R."),
            (16, 87, "To remove objects the function rm is available in every session that R runs, at any time:"),
            (13, 72, "it takes the objects to remove as its arguments."),
            (24, 87, "int out frq (default: 500)", "Courier"),
            (18, 87, "Output frequency, in iterations. This parameter specifies how frequently the solver sends"),
            (13, 72, "information about the solution process to the terminal.")]
    y = 700
    for dy, x, text, *font in rows:
        c.setFont(font[0] if font else "Helvetica", 11)
        y -= dy
        c.drawString(x, y, text)
    c.showPage()
    c.save()
    return path


def test_texinfo_paragraphs_are_apart_and_a_display_stays_with_its_sentence(tmp_path):
    texinfo_pdf(tmp_path / "texinfo.pdf")
    texts, _ = _texts(tmp_path)
    assert texts == [
        ("The entities that R creates and manipulates are known as objects. These may be many things: "
         "arrays of numbers, character strings or functions."),
        ("During an R session, objects are created and stored by name; to list them all, use the command "
         "> objects() which displays the names of the objects currently stored within R."),
        ("To remove objects the function rm is available in every session that R runs, at any time: "
         "it takes the objects to remove as its arguments."),
        ("int out frq (default: 500) Output frequency, in iterations. This parameter specifies how frequently "
         "the solver sends information about the solution process to the terminal.")]


def test_a_bulleted_line_opens_a_list_item(tmp_path):
    from reportlab.pdfgen import canvas

    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))      # shipped with reportlab; it has a bullet
    c = canvas.Canvas(str(tmp_path / "items.pdf"))
    y = 700
    for x, text in [(72, "The vector graphics language provides:"),
                    (80, "• a standard for typesetting mathematical figures, just as LaTeX is the de-facto"),
                    (90, "standard for typesetting equations;"),
                    (80, "• the ability to embed 3D graphics within HTML files;"),
                    (80, "• a natural framework for technical drawing.")]:
        c.setFont("Vera", 11)
        c.drawString(x, y, text)
        y -= 13
    c.save()
    texts, _ = _texts(tmp_path)
    assert texts == ["The vector graphics language provides:",
                     "• a standard for typesetting mathematical figures, just as LaTeX is the de-facto standard for "
                     "typesetting equations;",
                     "• the ability to embed 3D graphics within HTML files;",
                     "• a natural framework for technical drawing."]


def test_an_admonition_label_on_its_own_line_takes_the_text_below_it(tmp_path):
    # doxygen's LaTeX: the label, then its text indented on the next line, further apart than a
    # paragraph's lines (9pt between their boxes at 9pt type)
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "note.pdf"))
    for x, y, text in [(72, 700, "The tag sets the format of warning messages."), (96, 682, "See also"),
                       (118, 664, "WARN_LINE_FORMAT"), (96, 643, "The default value is: $file:$line: $text.")]:
        c.setFont("Helvetica", 9)
        c.drawString(x, y, text)
    c.save()
    texts, _ = _texts(tmp_path)
    assert texts == ["The tag sets the format of warning messages.", "See also WARN_LINE_FORMAT",
                     "The default value is: $file:$line: $text."]


def test_a_paragraph_at_the_margin_after_a_bulleted_list_is_no_part_of_its_last_item():
    from ham.ingest.pdf_items import paragraphs
    from ham.ingest.pdf_text import Line

    def line(text, x0, top, x1=540.0):
        return Line(text, 10.0, False, x0, x1, top, top + 10.0, len(text))
    # gutenprint's manual (LibreOffice): bullets at 74.8, the paragraph after the list at the margin
    page = [line("● A CUPS (Common UNIX Printing System) driver", 74.8, 298.2, 300),
            line("● A command-line utility to administer and maintain Epson printers", 74.8, 318.9, 420),
            line("This package requires the use of GNU Make to compile. On systems with both", 56.8, 339.6),
            line("another make installed, GNU Make may be named gmake or gnumake.", 56.8, 352.9, 400)]
    assert [len(p.lines) for p in paragraphs(page, [], 10.0, 595.0)] == [1, 1, 2]
    # an item's own second line at its text's indent, then the margin: still a new paragraph
    page = [line("• The scanner can be made case-sensitive or case-insensitive, and it can", 74.8, 100),
            line("read from any input stream.", 85.0, 113, 300),
            line("The parser is specified by a set of EBNF productions with attributes.", 56.8, 130, 500)]
    assert [len(p.lines) for p in paragraphs(page, [], 10.0, 595.0)] == [2, 1]
    # texinfo indents a paragraph's first line past the bullet, less than the item's text: the
    # paragraph opens there, its lines together (bashref, bullets at 98.9pt)
    page = [line("• filename expansion", 98.9, 100, 190),
            line("The order of expansions is: brace expansion; tilde expansion, parameter", 104.9, 113),
            line("pansion, arithmetic expansion, and command substitution.", 90.0, 126, 400)]
    assert [[ln.x0 for ln in p.lines] for p in paragraphs(page, [], 10.0, 595.0)] == [[98.9], [104.9, 90.0]]
    # an item's second line at its text's indent is the item's, whatever comes after it
    page[0] = line("• filename expansion, which matches the words against the names of files", 98.9, 100)
    page[1] = line("the first of seven kinds, done left to right, before any other", 108.9, 113)
    assert [[ln.x0 for ln in p.lines] for p in paragraphs(page, [], 10.0, 595.0)] == [[98.9, 108.9], [90.0]]
