"""Images and their captions in PDFs: a caption below an image with text set beside the image
(wrapped to its right) is that image's, though reading order puts the text between them; a rule
drawn as a thin image is decoration."""
import pytest

from ham.ingest import ingest_corpus, pdf
from ham.units import build_units
from tests.ingest.helpers import leaf_with
from tests.support.pdfs import _picture

H = 842.0


def camera_pdf(path) -> None:
    """Figure 1 with three lines of text set to its right and its caption below it; Figure 2 with
    its caption right below it and nothing beside it; a third picture with no caption of its own
    and, 10pt below it, the caption set above the fourth picture."""
    from reportlab.pdfgen import canvas

    pic = str(_picture(path.with_suffix(".png"), "camera"))
    c = canvas.Canvas(str(path), pagesize=(595, H))
    c.setFont("Helvetica-Bold", 18)
    c.drawString(72, H - 80, "Camera Guide")
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 120, "1 Buttons")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 145, "The camera has several buttons on its top plate, described here.")
    c.drawImage(pic, 72, H - 345, width=200, height=150)
    for k, line in enumerate(["The shutter button takes a picture when", "pressed fully and focuses when pressed",
                              "halfway down. Hold it steady."]):
        c.drawString(290, H - 210 - 13 * k, line)
    c.setFont("Helvetica", 9)
    c.drawString(72, H - 360, "Figure 1: The top plate.")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 390, "The mode dial selects the exposure program.")
    c.drawImage(pic, 72, H - 560, width=200, height=150)
    c.setFont("Helvetica", 9)
    c.drawString(72, H - 575, "Figure 2: The mode dial.")
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 610, "2 Menus")
    c.showPage()
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 80, "Press MENU to open the menus.")
    c.drawImage(pic, 72, H - 250, width=200, height=150)
    c.drawString(290, H - 150, "The menu screen lists every setting of the camera.")
    c.setFont("Helvetica", 9)
    c.drawString(72, H - 268, "Figure 3: The settings tab.")
    c.drawImage(pic, 72, H - 450, width=200, height=150)
    c.showPage()
    c.save()


def test_a_caption_below_an_image_with_text_beside_it_is_the_images(tmp_path):
    camera_pdf(tmp_path / "cam.pdf")
    (doc,), _ = ingest_corpus(tmp_path)
    images = [n for n in doc.leaves() if n.kind == "image"]
    assert [im.caption for im in images] == ["Figure 1: The top plate.", "Figure 2: The mode dial.", "",
                                             "Figure 3: The settings tab."]
    assert [im.label for im in images] == ["Figure 1", "Figure 2", "", "Figure 3"]
    # the caption leaves are linked (a figure's caption is on its image unit, not a text unit)
    assert leaf_with(doc, "text", "Figure 1: The top plate.").caption_of == images[0].id
    assert leaf_with(doc, "text", "Figure 3: The settings tab.").caption_of == images[3].id
    units = build_units(doc, caption_units=False)     # units=blocks: the caption is on its image unit
    assert not any(u.modality == "text" and "Figure 1" in u.content for u in units)
    assert [u.caption for u in units if u.modality == "image"][0] == "Figure 1: The top plate."
    # the text beside the figure is kept, in one paragraph
    assert "The shutter button takes a picture" in leaf_with(doc, "text", "The shutter button").text


@pytest.mark.parametrize("rule_pt", [pdf.MIN_RULE_PT, 0])
def test_a_rule_drawn_as_a_thin_image_is_decoration_and_the_document_is_read(tmp_path, monkeypatch, rule_pt):
    """TeX draws a box's rules as images half a point thick (systemtap's tutorial): rendered, such
    a region is empty, and the error it raised skipped the whole PDF as "corrupt or unreadable".
    With no such rule (``rule_pt`` 0) the empty region is a problem named, not a lost document."""
    from reportlab.pdfgen import canvas

    monkeypatch.setattr(pdf, "MIN_RULE_PT", rule_pt)

    from PIL import Image

    Image.new("RGB", (400, 2), "black").save(tmp_path / "pic.png")
    pic = str(tmp_path / "pic.png")
    c = canvas.Canvas(str(tmp_path / "guide.pdf"), pagesize=(595, H))
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, H - 80, "1 Probes")
    c.setFont("Helvetica", 10)
    c.drawString(72, H - 110, "A probe names an event and the handler that runs when it occurs.")
    c.drawImage(pic, 140, H - 130, width=330, height=0.48)
    c.drawString(72, H - 150, "Handlers run with interrupts disabled.")
    c.showPage()
    c.save()
    (tmp_path / "pic.png").unlink()
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1 and not [n for n in docs[0].leaves() if n.kind == "image"]
    assert "Handlers run with interrupts disabled." in leaf_with(docs[0], "text", "Handlers").text
    if rule_pt:
        assert report.problems == []
        assert report.excluded["guide.pdf"]["rule drawn as an image (decoration)"] == 1
    else:
        assert [p.problem for p in report.problems] == [
            "page 1: cannot render a region (an empty region, 330.0 x 0.5 pt)"]
