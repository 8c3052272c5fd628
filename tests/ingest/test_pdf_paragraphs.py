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
    _page(c, ["Many statistical techniques have been implemented. A few of these are built"])
    _page(c, ["into the base R environment, but many are supplied as packages.",
              "", "", "Every package ends here."])
    _page(c, ["Upper case opens a new paragraph, and so does a sentence that was closed."])
    c.save()
    texts, report = _texts(tmp_path)
    assert texts == [("Many statistical techniques have been implemented. A few of these are built into the base R "
                      "environment, but many are supplied as packages."),
                     "Every package ends here.",
                     "Upper case opens a new paragraph, and so does a sentence that was closed."]
    assert report.excluded["pages.pdf"]["paragraph run on over a page or column break (joined)"] == 1
