"""DOCX ingest (python-docx): heading styles, captions, lists, tables, embedded pictures, bad files."""
import io
import zipfile

import docx
import pytest
from docx.shared import Inches
from PIL import Image

from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, node_titled


def _png(size, colour):
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    buf.seek(0)
    return buf


@pytest.fixture
def manual(tmp_path):
    d = docx.Document()
    d.add_paragraph("Kettle K-1 Instructions", style="Title")
    d.add_paragraph("Keep this booklet.")
    d.add_heading("Safety", level=1)
    d.add_paragraph("Never immerse the base in water.")
    d.add_heading("Use", level=1)
    d.add_heading("Filling", level=2)
    d.add_paragraph("To fill the kettle:")
    d.add_paragraph("Open the lid.", style="List Number")
    d.add_paragraph("Pour in water up to the MAX mark.", style="List Number")
    d.add_paragraph().add_run().add_picture(_png((400, 300), "grey"), width=Inches(3))
    d.add_paragraph("Figure 1: The water gauge", style="Caption")
    p = d.add_paragraph("Press the switch ")
    p.add_run().add_picture(_png((16, 16), "red"), width=Inches(0.2))
    p.add_run(" to start.")
    d.add_paragraph("Table 1: Boiling times", style="Caption")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Volume", "Time"
    t.cell(1, 0).text, t.cell(1, 1).text = "1 l", "3 min"
    d.save(tmp_path / "kettle.docx")
    return tmp_path


def test_docx_heading_styles_title_steps_table_and_pictures(manual):
    docs, report = ingest_corpus(manual)
    assert report.problems == []
    doc = docs[0]
    assert doc.format == "docx" and doc.title == "Kettle K-1 Instructions"
    assert [n.title for n in doc.root.children if n.kind == "section"] == ["Safety", "Use"]
    filling = node_titled(doc, "Filling")
    assert heading_path(doc, filling) == ["Use"]
    steps = [c for c in filling.children if c.kind == "step"]
    assert [s.title for s in steps] == ["Step 1", "Step 2"]  # "To fill the kettle:" leads in
    image = next(n for n in doc.leaves() if n.kind == "image")
    assert image.caption == "Figure 1: The water gauge" and (manual / image.image_path).is_file()
    assert any(n.text.startswith("Press the switch") and "[" in n.text for n in doc.leaves())  # icon inline
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert table.text.splitlines() == ["Table 1: Boiling times", "Volume | Time", "1 l | 3 min"]
    assert report.excluded_totals()["inline icon (kept as text)"] == 1


def test_docx_that_is_not_a_word_file_is_reported_by_name(manual):
    (manual / "fake.docx").write_bytes(b"plain text, not a zip")
    with zipfile.ZipFile(manual / "other.docx", "w") as z:
        z.writestr("content.xml", "<office:document/>")  # an OpenDocument-ish zip, not Word
    docs, report = ingest_corpus(manual)
    assert [d.source for d in docs] == ["kettle.docx"]
    problems = {p.file: p.problem for p in report.problems}
    assert problems["fake.docx"].startswith("not a Word document") and "not a zip" in problems["fake.docx"]
    assert "without word/document.xml" in problems["other.docx"] and "content.xml" in problems["other.docx"]


def _table_doc(rows):
    d = docx.Document()
    d.add_heading("Specifications", level=1)
    t = d.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            t.cell(r, c).text = value
    return d, t


def test_docx_cells_of_equal_text_are_kept_and_a_merged_cell_is_read_once(tmp_path):
    d, t = _table_doc([("Port", "LAN1", "LAN2", "WAN"), ("Speed", "1 Gb", "1 Gb", "2.5 Gb"),
                                 ("PoE", "", "", "Yes"), ("Note", "", "", "")])
    t.cell(3, 1).merge(t.cell(3, 3)).text = "all ports"   # one cell spanning three columns
    d.save(tmp_path / "specs.docx")
    docs, _ = ingest_corpus(tmp_path)
    table = next(n for n in docs[0].leaves() if n.kind == "table")
    assert table.text.splitlines() == ["Port | LAN1 | LAN2 | WAN", "Speed | 1 Gb | 1 Gb | 2.5 Gb",
                                       "PoE |  |  | Yes", "Note | all ports"]


def test_docx_nested_tables_and_pictures_in_cells_are_read(tmp_path):
    d, t = _table_doc([("Port", "Speed"), ("LAN", "1 Gb")])
    inner = t.cell(1, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text, inner.cell(0, 1).text = "PoE", "802.3at"
    shots = d.add_table(rows=2, cols=2)
    shots.cell(0, 0).text = "The status page shows the link state."
    shots.cell(0, 1).paragraphs[0].add_run().add_picture(_png((600, 400), "grey"), width=Inches(3))
    shots.cell(1, 0).text = "Refresh"
    shots.cell(1, 1).paragraphs[0].add_run().add_picture(_png((16, 16), "red"), width=Inches(0.2))
    d.save(tmp_path / "specs.docx")
    docs, report = ingest_corpus(tmp_path)
    tables = [n for n in docs[0].leaves() if n.kind == "table"]
    assert tables[0].text.splitlines() == ["Port | Speed", "LAN | 1 Gb PoE / 802.3at"]
    assert tables[1].text.splitlines()[0] == "The status page shows the link state. | [image]"
    assert tables[1].text.splitlines()[1].startswith("Refresh | [")   # the icon stays in its cell
    image = next(n for n in docs[0].leaves() if n.kind == "image")
    assert image.caption == "The status page shows the link state." and (tmp_path / image.image_path).is_file()
    assert report.excluded_totals()["inline icon (kept as text)"] == 1


def _wrap(element, *tags):
    """Wrap ``element`` in place in nested elements: ``_wrap(p, "w:sdt", "w:sdtContent")``."""
    from docx.oxml import OxmlElement

    outer = inner = OxmlElement(tags[0])
    for tag in tags[1:]:
        inner.append(OxmlElement(tag))
        inner = inner[-1]
    element.addprevious(outer)
    inner.append(element)
    return outer


def test_docx_content_controls_and_revisions_are_read(tmp_path):
    d = docx.Document()
    d.add_heading("Warranty", level=1)
    _wrap(d.add_paragraph("Two years from the date of purchase.")._p, "w:sdt", "w:sdtContent")
    t = d.add_table(rows=1, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Region", "EU"
    _wrap(t._tbl, "w:customXml")
    p = d.add_paragraph("Registered on ")
    _wrap(p.add_run("12 May 2024")._r, "w:sdt", "w:sdtContent")   # a date picker
    p.add_run(" by ")
    _wrap(p.add_run("the dealer")._r, "w:ins")                     # a tracked insertion
    d.save(tmp_path / "warranty.docx")
    docs, _ = ingest_corpus(tmp_path)
    texts = [n.text for n in docs[0].leaves()]
    assert texts == ["Two years from the date of purchase.", "Region | EU", "Registered on 12 May 2024 by the dealer"]


def test_docx_second_title_paragraph_is_text_and_a_heading_keeps_its_picture(tmp_path):
    d = docx.Document()
    d.add_paragraph("Kettle K-1", style="Title")
    d.add_paragraph("Instructions for use and care of your new kettle", style="Title")
    h = d.add_heading("Safety", level=1)
    h.add_run().add_picture(_png((400, 300), "grey"), width=Inches(3))
    d.add_paragraph("Never immerse the base in water.")
    d.save(tmp_path / "k.docx")
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "Kettle K-1"
    assert any(n.text == "Instructions for use and care of your new kettle" for n in doc.leaves())
    safety = node_titled(doc, "Safety")
    assert [c.kind for c in safety.children] == ["image", "text"]


def test_docx_list_paragraph_numbered_or_bulleted_by_its_numbering_definition(tmp_path):
    import copy

    d = docx.Document()
    d.add_heading("Setup", level=1)
    d.add_paragraph("To connect the router:")

    def item(text, list_style):   # Word's usual list: "List Paragraph" with numbering of its own
        p = d.add_paragraph(text, style="List Paragraph")
        p._p.get_or_add_pPr().append(copy.deepcopy(d.styles[list_style].element.pPr.numPr))

    for text in ("Plug in the power cable.", "Press the power button."):
        item(text, "List Number")
    d.add_paragraph("The box holds:")
    for text in ("the router", "a power cable"):
        item(text, "List Bullet")
    d.add_paragraph("An indented remark.", style="List Paragraph")   # no numbering: no mark shown
    d.save(tmp_path / "router.docx")
    docs, _ = ingest_corpus(tmp_path)
    setup = node_titled(docs[0], "Setup")
    assert [c.kind for c in setup.children] == ["text", "step", "step", "text", "text", "text"]
    assert [c.text for c in setup.children[3:]] == ["The box holds:", "- the router\n- a power cable",
                                                    "An indented remark."]


_NS = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
       'xmlns:v="urn:schemas-microsoft-com:vml" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
       'xmlns:x="urn:example:unknown" '
       'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
       'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
       'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"')


def test_docx_text_boxes_and_vml_pictures_are_read_and_what_is_not_read_is_reported(tmp_path):
    from docx.oxml import parse_xml

    d = docx.Document()
    d.add_heading("Front panel", level=1)
    rid, _ = d.part.get_or_add_image(_png((500, 300), "grey"))
    body = d.element.body
    body.sectPr.addprevious(parse_xml(
        f'<w:p {_NS}><w:r><w:t>The lights:</w:t></w:r><w:r><w:pict><v:shape><v:textbox><w:txbxContent>'
        '<w:p><w:r><w:t>Green means online.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r></w:p>'))
    body.sectPr.addprevious(parse_xml(
        f'<w:p {_NS}><w:r><w:pict><v:shape alt="Front panel"><v:imagedata r:id="{rid}"/></v:shape></w:pict></w:r></w:p>'))
    body.sectPr.addprevious(parse_xml(   # a text box (a shape) holding a picture: one picture, the box's
        f'<w:p {_NS}><w:r><w:drawing><wp:anchor><wp:docPr id="7" name="Box"/><a:graphic><a:graphicData>'
        '<wps:wsp><wps:txbx><w:txbxContent><w:p><w:r><w:drawing><wp:inline><wp:docPr id="8" name="Pic" descr="Gauge"/>'
        f'<a:graphic><a:graphicData><pic:pic><pic:blipFill><a:blip r:embed="{rid}"/></pic:blipFill></pic:pic>'
        '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p></w:txbxContent></wps:txbx></wps:wsp>'
        '</a:graphicData></a:graphic></wp:anchor></w:drawing></w:r></w:p>'))
    body.sectPr.addprevious(parse_xml(f'<x:box {_NS}><w:p><w:r><w:t>Lost words</w:t></w:r></w:p></x:box>'))
    body.sectPr.addprevious(parse_xml(
        f'<w:p {_NS}><w:r><w:t>See the note</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>'))
    d.save(tmp_path / "panel.docx")
    docs, report = ingest_corpus(tmp_path)
    panel = node_titled(docs[0], "Front panel")
    assert [(c.kind, c.text or c.alt) for c in panel.children] == [
        ("text", "The lights:"), ("text", "Green means online."), ("image", "Front panel"), ("image", "Gauge"),
        ("text", "See the note")]
    problems = sorted(p.problem for p in report.problems)
    assert problems[0].startswith("not read: 1 × footnote") and problems[1].startswith("not read: 1 × text run")


def test_docx_outline_level_9_is_body_text_not_a_heading(tmp_path):
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    d = docx.Document()
    d.add_heading("Safety", level=1)
    lvl = OxmlElement("w:outlineLvl")
    lvl.set(qn("w:val"), "9")   # Word's "Body Text" outline level, set on Normal by some templates
    d.styles["Normal"].element.get_or_add_pPr().append(lvl)
    d.add_paragraph("Never immerse the base in water.")
    d.add_paragraph("Unplug before cleaning.")
    d.save(tmp_path / "k.docx")
    docs, _ = ingest_corpus(tmp_path)
    safety = node_titled(docs[0], "Safety")
    assert [(c.kind, c.text) for c in safety.children] == [
        ("text", "Never immerse the base in water."), ("text", "Unplug before cleaning.")]


def test_docx_two_numbered_lists_back_to_back_are_two_lists(tmp_path):
    import copy

    d = docx.Document()
    d.add_heading("Rules", level=1)
    numbering = d.part.numbering_part.element
    style_num = d.styles["List Number"].element.pPr.numPr
    abstract = numbering.num_having_numId(int(style_num.numId.val)).abstractNumId.val
    for items in (("The lid gasket", "The water filter"), ("The heating plate", "The power base")):
        num_id = numbering.add_num(abstract).numId
        for text in items:
            p = d.add_paragraph(text, style="List Paragraph")
            num_pr = copy.deepcopy(style_num)
            num_pr.numId.val = num_id
            p._p.get_or_add_pPr().append(num_pr)
    d.save(tmp_path / "rules.docx")
    docs, _ = ingest_corpus(tmp_path)
    rules = node_titled(docs[0], "Rules")
    assert [c.text for c in rules.children] == ["1. The lid gasket\n2. The water filter",
                                                "1. The heating plate\n2. The power base"]
