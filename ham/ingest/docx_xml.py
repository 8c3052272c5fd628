"""The WordprocessingML that python-docx does not read for ``ham.ingest.docx``: a paragraph's
text wherever its runs sit, blocks inside content controls, text boxes, pictures drawn in VML,
and an account of what the reader could not read (``unread``), for the ingest report."""
from __future__ import annotations

from collections import Counter

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_W = W
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
MC_FALLBACK = f"{_MC}Fallback"
_V = "{urn:schemas-microsoft-com:vml}"
_O = "{urn:schemas-microsoft-com:office:office}"
_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}chart"
_DIAGRAM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}relIds"

# not a paragraph's own text: deleted or moved-away revisions, properties, a text box's content (read
# as paragraphs of its own), and the fallback copy Word writes beside a drawing for older readers
_NOT_TEXT = {f"{_W}{tag}" for tag in ("del", "moveFrom", "pPr", "rPr", "sdtPr", "sdtEndPr", "txbxContent")}
_NOT_TEXT.add(f"{_MC}Fallback")
_CHARS = {f"{_W}tab": "\t", f"{_W}ptab": "\t", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}


def run_text(element, read: set) -> str:
    """A paragraph's text: its runs wherever they sit (hyperlinks, content controls, tracked
    insertions, simple fields, smart tags), each ``w:t`` read added to ``read``. python-docx's
    ``Paragraph.text`` reads only runs and hyperlinks directly under the paragraph."""
    parts = []
    for child in element.iterchildren():
        tag = child.tag
        if tag == f"{_W}t":
            read.add(child)
            parts.append(child.text or "")
        elif tag in _CHARS:
            parts.append(_CHARS[tag])
        elif isinstance(tag, str) and tag not in _NOT_TEXT:
            parts.append(run_text(child, read))
    return "".join(parts)


def content(element):
    """The paragraphs and tables of a body or cell in order, looking inside content controls
    (``w:sdt``) and custom XML elements, which wrap them."""
    for child in element.iterchildren():
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml"):
            yield from content(child)


# a text box is read as blocks of its own, a fallback copy not at all
_APART = {f"{_W}txbxContent", f"{_MC}Fallback"}
_GONE = {f"{_W}del", f"{_W}moveFrom", f"{_MC}Fallback"}   # not in the document as it reads


def within(element, top, tags: set) -> bool:
    """``element`` sits inside one of ``tags`` below ``top``."""
    parent = element.getparent()
    while parent is not None and parent is not top:
        if parent.tag in tags:
            return True
        parent = parent.getparent()
    return False


def text_boxes(element) -> list:
    """The text boxes anchored in ``element`` (not those inside another of them)."""
    return [box for box in element.iter(f"{_W}txbxContent") if not within(box, element, _APART)]


def picture_of(element) -> tuple[str | None, str, str]:
    """(relationship id or None, alt text, what it is) of a ``w:drawing`` or VML ``v:imagedata``;
    what: "picture", or what the reader cannot read: "linked picture", "chart", "SmartArt diagram",
    or "" for a shape or text box (its text is read)."""
    if element.tag == f"{_V}imagedata":
        shape = element.getparent()
        alt = (shape.get("alt") if shape is not None else "") or element.get(f"{_O}title") or ""
        rid = element.get(f"{_R}id")
        return rid, alt, "picture" if rid else "linked picture"
    doc_pr = next(element.iter(f"{_WP}docPr"), None)
    alt = (doc_pr.get("descr") or doc_pr.get("title") or "") if doc_pr is not None else ""
    own = {}   # not what a text box in the drawing holds: a shape around a picture is no picture
    for found in element.iter(f"{_A}blip", _CHART, _DIAGRAM):
        if found.tag not in own and not within(found, element, {f"{_W}txbxContent"}):
            own[found.tag] = found
    blip = own.get(f"{_A}blip")
    if blip is not None:
        rid = blip.get(f"{_R}embed")
        return rid, alt, "picture" if rid else "linked picture"
    if _CHART in own:
        return None, alt, "chart"
    if _DIAGRAM in own:
        return None, alt, "SmartArt diagram"
    return None, alt, ""


def unread(body, read: set) -> Counter:
    """What the body holds that the reader did not take: text (``w:t`` not in ``read``), and
    equations, embedded documents and notes it never reads."""
    found: Counter = Counter()
    for t in body.iter(f"{_W}t"):
        if t not in read and (t.text or "").strip() and not within(t, body, _GONE):
            found["text run"] += 1
    for tag, what in ((f"{_M}oMath", "equation"), (f"{_W}altChunk", "embedded document (altChunk)"),
                      (f"{_W}footnoteReference", "footnote"), (f"{_W}endnoteReference", "endnote")):
        found[what] += sum(1 for e in body.iter(tag) if not within(e, body, _GONE | {tag}))
    return +found
