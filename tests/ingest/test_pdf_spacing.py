"""No space where the PDF has no gap: pdfplumber starts a new word at every font change, and ham
used to join such words with a space ("checkbox , radio ,"). The test PDF is drawn with reportlab,
one text object whose font changes mid-line."""
from ham.ingest import ingest_corpus
from ham.ingest.pdf_glued import spaced_punctuation

RUNS = [("Helvetica", 11, 0, "Tick the "), ("Courier", 11, 0, "checkbox"), ("Helvetica", 11, 0, ", then the "),
        ("Courier", 11, 0, "radio"), ("Helvetica", 11, 0, " button; install it with "),
        ("Helvetica-Bold", 11, 0, "conda"), ("Helvetica", 11, 0, " from Miniforge"), ("Helvetica", 7, 4, "6"),
        ("Helvetica", 11, 0, ", then restart.")]


def mixed_fonts_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    line = c.beginText(72, 700)
    for font, size, rise, text in RUNS:
        line.setFont(font, size)
        line.setRise(rise)
        line.textOut(text)
    c.drawText(line)
    c.showPage()
    c.save()
    return path


def test_words_split_only_by_a_font_change_keep_no_space(tmp_path):
    mixed_fonts_pdf(tmp_path / "mixed.pdf")
    docs, report = ingest_corpus(tmp_path)
    text = " ".join(leaf.text for leaf in docs[0].leaves())
    assert "Tick the checkbox, then the radio button; install it with conda from Miniforge 6, then restart." in text
    assert report.measures["mixed.pdf"]["punctuation set off by a space"] == 0


def test_spaced_punctuation_counts_marks_after_a_space_not_dot_leaders():
    found = spaced_punctuation(["Tick the checkbox , then the radio ,", "1.1 Power . . . . . 4", "see ( a ) ."])
    assert found == {("checkbox", ","): 1, ("radio", ","): 1, ("a", ")"): 1}
