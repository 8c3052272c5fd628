"""A definition list set the way texinfo and LaTeX set it (the term in the margin, its description
beside it on the same row, later lines under the description) is one leaf per entry, each holding
its own term. Before, each term was read as the last line of the entry above it ("... the current
font. lty=2" / "Line types. ..."). The PDFs are drawn with reportlab."""
from ham.ingest import ingest_corpus

TERM_X, TEXT_X = 72, 147
PROSE = ["Graphical parameters exist which control how these elements are drawn, for points and lines",
         "and text alike, on every device that R can draw on, and they are set as follows:"]


def _draw(c, x, y, text, font="Helvetica"):
    c.setFont(font, 11)
    c.drawString(x, y, text)


def definitions_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 740
    _draw(c, TERM_X, y, PROSE[0])
    _draw(c, TERM_X, y - 13, PROSE[1])
    y -= 40
    # "lty=2" is set apart from its text (a line of its own beside it), "lwd=2.50" close enough to
    # be one line with it
    entries = [("lty=2", ["Line types. Alternative line styles are not supported on all graphics devices",
                          "but line type 1 is always a solid line."]),
               ("lwd=2.50", ["Line widths. Desired width of lines, in multiples of the standard line width,",
                             "on every device."])]
    for term, lines in entries:
        _draw(c, TERM_X, y, term, "Courier")
        for k, text in enumerate(lines):
            _draw(c, TEXT_X, y - 13 * k, text)
        y -= 13 * len(lines) + 8
    _draw(c, TERM_X, y, "col.axis", "Courier")
    _draw(c, TERM_X, y - 13, "col.lab", "Courier")
    _draw(c, TERM_X, y - 26, "col.sub", "Courier")
    _draw(c, TEXT_X, y - 26, "The color to be used for axis annotation, x and y labels and sub-titles of")
    _draw(c, TEXT_X, y - 39, "the plot, respectively.")
    y -= 60
    _draw(c, TERM_X, y, "Had we given the function a different name, namely one of the form")
    _draw(c, TERM_X + 30, y - 16, "%anything%", "Courier")
    _draw(c, TERM_X, y - 32, "it could have been used as a binary operator in expressions instead.")
    y -= 56
    _draw(c, TERM_X, y, "class web commit 50%", "Courier")
    _draw(c, 300, y, "# the web servers", "Courier")
    _draw(c, TERM_X, y - 13, "class mail commit 50%", "Courier")
    _draw(c, 300, y - 13, "# the mail servers", "Courier")
    c.showPage()
    c.save()
    return path


def test_each_definition_is_one_leaf_with_its_own_term(tmp_path):
    definitions_pdf(tmp_path / "defs.pdf")
    docs, _ = ingest_corpus(tmp_path)
    texts = [leaf.text for leaf in docs[0].leaves()]
    assert texts[0] == " ".join(PROSE)
    assert texts[1] == ("lty=2 Line types. Alternative line styles are not supported on all graphics devices "
                        "but line type 1 is always a solid line.")
    assert texts[2] == ("lwd=2.50 Line widths. Desired width of lines, in multiples of the standard line width, "
                        "on every device.")
    assert texts[3] == ("col.axis col.lab col.sub The color to be used for axis annotation, x and y labels and "
                        "sub-titles of the plot, respectively.")
    # an indented display inside a sentence is no definition list: the sentence stays whole
    assert texts[4] == ("Had we given the function a different name, namely one of the form %anything% "
                        "it could have been used as a binary operator in expressions instead.")
    # a listing's comment set apart on its line stays in the listing
    assert texts[5] == "class web commit 50% # the web servers class mail commit 50% # the mail servers"
    assert len(texts) == 6


def test_the_first_definition_after_its_introducing_sentence_is_an_entry_of_its_own(tmp_path):
    """texinfo sets a list's first entry right below the sentence that introduces it, as close as
    a line: only the hanging indent under it says that a new entry began."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "first.pdf"))
    rows = [(72, "Graphical parameters exist which control how these graphical elements are drawn, as follows:"),
            (72, 'pch="+"   Character to be used for plotting points. The default value varies with the graphics'),
            (147, "drivers, but it is usually a small circle drawn a little above the point."),
            (72, "lty=2       Line types. Alternative line styles are not supported on all of the graphics devices"),
            (147, "but line type 1 is always a solid line.")]
    for k, (x, text) in enumerate(rows):
        _draw(c, x, 700 - 13 * k, text)
    c.showPage()
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    texts = [leaf.text for leaf in docs[0].leaves()]
    assert texts[0] == "Graphical parameters exist which control how these graphical elements are drawn, as follows:"
    assert texts[1].startswith('pch="+" Character to be used') and texts[1].endswith("drawn a little above the point.")
    assert texts[2].startswith("lty=2 Line types.")
