"""Glyph codes pdfminer leaves unmapped, "(cid:N)", read back where the font's encoding is TeX's
(ham.ingest.pdf_glyphs): an old LaTeX manual's "fi" ligature is "fi", not "(cid:12)"."""
from ham.ingest.pdf_glyphs import decoded, unmapped
from ham.ingest.pdf_text import Line, looks_like_heading, page_lines


def _chars(text: str, font: str, x0: float = 72.0) -> list[dict]:
    out, x = [], x0
    for piece in text.replace("(cid:", "\0(cid:").split("\0"):
        head, _, tail = piece.partition(")") if piece.startswith("(cid:") else ("", "", piece)
        for t in ([head + ")"] if head else []) + list(tail):
            out.append({"text": t, "fontname": font, "x0": x, "x1": x + 5, "top": 100.0, "bottom": 110.0,
                        "size": 10.0, "upright": True, "matrix": (1, 0, 0, 1, x, 732.0)})
            x += 5
    return out


class _Page:
    """What ``page_lines`` asks of a pdfplumber page: its words with their chars, and its width."""
    width, height = 595.0, 842.0

    def __init__(self, words: list[list[dict]]) -> None:
        self.words = words

    def extract_words(self, **_):
        return [{"text": "".join(c["text"] for c in chars), "chars": list(chars), "x0": chars[0]["x0"],
                 "x1": chars[-1]["x1"], "top": min(c["top"] for c in chars),
                 "bottom": max(c["bottom"] for c in chars), "size": 10.0,
                 "fontname": chars[0]["fontname"]} for chars in self.words]


def test_tex_ligatures_and_symbols_are_read_back_by_font():
    assert decoded(_chars("(cid:12)nd", "ABCDEF+CMR10")) == "find"
    assert decoded(_chars("speci(cid:12)ed", "CMBX12")) == "specified"
    assert decoded(_chars("e(cid:14)cient", "CMTI10")) == "efficient"
    assert decoded(_chars("(cid:28)le", "SFRM1000")) == "file"            # cm-super, T1 encoding
    assert decoded(_chars("x(cid:20)y", "CMSY10")) == "x≤y"
    assert decoded(_chars("(cid:21)(cid:25)", "CMMI10")) == "λπ" and decoded(_chars("(cid:5)", "CMR10")) == "Π"
    # a typewriter face's low codes are other glyphs, and an unknown font keeps the code
    assert decoded(_chars("(cid:12)", "CMTT10")) == "(cid:12)"
    assert decoded(_chars("(cid:136)", "unknown")) == "(cid:136)" and unmapped("a (cid:136) b") == 1


def test_ascii_symbols_an_ot1_text_face_cannot_hold_are_read_back_as_its_glyphs():
    # no ToUnicode map, the standard encoding assumed: OT1's dashes and quotes read as ASCII
    assert decoded(_chars('(1.1)|(1.3) (\\shift") s15{s20', "ABCDEF+CMR10")) == "(1.1)—(1.3) (“shift”) s15–s20"
    assert decoded(_chars("glp | set", "CMBX12")) == "glp — set"
    assert decoded(_chars("+1", "CMR10") + _chars("1", "CMSY10")) == "+1∞"      # cmsy's infinity at "1"
    # a typewriter face holds the ASCII symbols, so do other fonts (T1 Latin Modern, math italic)
    for font in ("CMTT10", "LMRoman10-Regular", "CMMI10", "Helvetica", "CMBSY10"):
        assert decoded(_chars('a|b "c" x<y 1', font)) == 'a|b "c" x<y 1', font
    assert decoded(_chars("AB", "CMSY10")) == "AB"       # calligraphic capitals are letters
    assert decoded(_chars("{x}|", "CMSY10")) == "{x}|"   # glyphs cmsy holds, when the PDF maps them


def test_page_lines_read_the_words_with_their_glyphs_decoded():
    page = _Page([_chars("glp", "CMR10"), _chars("(cid:12)nd", "CMR10", x0=95), _chars("row", "CMR10", x0=125)])
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["glp find row"]
    page = _Page([_chars("(1.1)|(1.3)", "CMR10"), _chars("x|y", "CMTT10", x0=140)])
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["(1.1)—(1.3) x|y"]


def test_a_line_of_unmapped_glyphs_or_a_list_item_is_never_a_heading():
    # a music font's noteheads in a large example (lilypond's manual): glyph codes, not words
    def line(text):
        return Line(text, 16.0, False, 72, 300, 100, 116, len(text))
    assert looks_like_heading(line("Relocation files"), 10.9)
    assert not looks_like_heading(line("(cid:5) ª h h h h"), 10.9)
    assert not looks_like_heading(line("• pdebuild = pbuilder + dpkg-buildpackage"), 10.9)   # a list item


def test_a_symbol_font_glyph_on_a_line_joins_that_line_whatever_its_declared_depth():
    # texinfo's bullet from cmsy (descent 0.96 of the size): pdfminer boxes it 8pt below its item's
    # text, where it overlaps the next line more than its own
    def word(text, font, x0, baseline, depth):
        chars = _chars(text, font, x0)
        for ch in chars:
            ch["matrix"] = (1, 0, 0, 1, ch["x0"], 842.0 - baseline)
            ch["bottom"], ch["top"] = baseline + depth, baseline + depth - 10.0
        return chars
    page = _Page([word("•", "CMSY10", 99, 491.6, 10.5), word("LaTeX", "CMR10", 112, 491.6, 2.7),
                  word("labels;", "CMR10", 150, 491.6, 2.7), word("•", "CMSY10", 99, 507.2, 10.5),
                  word("the", "CMR10", 112, 507.2, 2.7), word("ability", "CMR10", 135, 507.2, 2.7)])
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["• LaTeX labels;", "• the ability"]
    # a big operator of a math extension font does reach that deep: its box stays
    page = _Page([word("(cid:88)", "CMEX10", 99, 491.6, 10.5), word("x", "CMMI10", 112, 491.6, 2.7)])
    assert max(round(ln.bottom, 1) for ln in page_lines(page, lambda w: False)) == 502.1


def test_an_unmapped_glyph_of_a_text_font_opening_a_line_is_a_list_bullet():
    # gnuplot's manual (dvips): its bullets are a Type 3 font's glyph 136, with no Unicode mapping
    page = _Page([_chars("(cid:136)", "unknown"), _chars("All", "CMR10", x0=90), _chars("evaluation", "CMR10", x0=110)])
    (line,) = page_lines(page, lambda w: False)
    assert line.text == "• All evaluation" and line.marker_read
    # a private-use glyph of any font opening a line is one too: Word's Symbol bullet (U+F0B7, and
    # Symbol is a math font), OpenOffice's OpenSymbol one (U+F0A7; coco-doc's manual: 43 of them)
    for glyph, font in (("\uf0b7", "Symbol"), ("\uf0a7", "FAAAAA+OpenSymbol")):
        (line,) = page_lines(_Page([_chars(glyph, font), _chars("Parser.cs", "Arial", x0=90)]), lambda w: False)
        assert line.text == "• Parser.cs" and line.marker_read
    # a math font's glyph (a big sum) and a run of glyph codes (a diagram's) stay as they are
    for words in ([_chars("(cid:88)", "CMEX10"), _chars("p", "CMMI10", x0=90)],
                  [_chars("(cid:5)", "XYATIP10"), _chars("(cid:5)", "XYATIP10", x0=90)]):
        (line,) = page_lines(_Page(words), lambda w: False)
        assert line.text.startswith("(cid:") and not line.marker_read


def test_tex_copyright_is_the_copyright_sign():
    # \copyright: cmsy's large circle with a roman "c" set inside it
    page = _Page([_chars("Copyright", "CMR10"), _chars("(cid:13)", "CMSY10", x0=130), _chars("c", "CMR10", x0=132),
                  _chars("2022", "CMR10", x0=145)])
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["Copyright © 2022"]
    page = _Page([_chars("(cid:13)", "CMSY10", x0=130), _chars("c", "CMR10", x0=160)])     # not inside it
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["(cid:13) c"]


def test_a_pages_chars_are_read_back_in_place_for_its_tables_too():
    from ham.ingest.pdf_glyphs import decode_chars

    # ReportLab's bullet in a standard font is WinAnsi code 127 (unused codes are bullets there);
    # cmsy's "≥" in a GLPK table cell; an unknown font's code stays
    chars = [{"text": "(cid:127)", "fontname": "Courier"}, {"text": "(cid:21)", "fontname": "ABCDEF+CMSY10"},
             {"text": "(cid:127)", "fontname": "ABCDEF+Foo"}, {"text": "x", "fontname": "Courier"}]
    decode_chars(chars)
    assert [c["text"] for c in chars] == ["•", "≥", "(cid:127)", "x"]
    # TeX's text fonts have no bullet at 127 (OT1's dieresis slot): it stays a code
    other = [{"text": "(cid:127)", "fontname": "ABCDEF+CMR10"}]
    decode_chars(other)
    assert other[0]["text"] == "(cid:127)"


def test_a_table_cell_reads_its_glyphs_back_as_running_text_does(tmp_path):
    from ham.ingest import ingest_corpus
    from tests.support.pdfs import winansi_table_pdf

    winansi_table_pdf(tmp_path / "options.pdf")
    (doc,), _ = ingest_corpus(tmp_path)
    (table,) = [n for n in doc.leaves() if n.kind == "table"]
    assert table.text.splitlines() == ["Option | Values", "-q | • quiet"]


def test_latex_picture_font_pieces_are_no_words_and_are_counted():
    # texinfo's @cartouche: its rounded corners are lcircle10 glyphs on the example's first line
    from collections import Counter
    from ham.ingest.pdf_text import PICTURE_GLYPHS
    page = _Page([_chars("(cid:11)", "MBWZLE+LCIRCLE10"), _chars("might", "CMR10", x0=95),
                  _chars("look", "CMR10", x0=130), _chars("(cid:8)", "LCIRCLE10", x0=500),
                  _chars("(cid:3)", "LINE10", x0=520)])
    tally = Counter()
    assert [ln.text for ln in page_lines(page, lambda w: False, tally=tally)] == ["might look"]
    assert tally[PICTURE_GLYPHS] == 3
    # the same codes in a text face are read as that face's glyphs, not dropped
    page = _Page([_chars("(cid:11)", "CMR10"), _chars("x", "CMR10", x0=95)])
    assert [ln.text for ln in page_lines(page, lambda w: False)] == ["ff x"]


def test_sphinx_admonition_labels_are_labels_not_headings():
    from ham.ingest.pdf_text import is_admonition_label
    # rinohtype sets Sphinx's "Todo" (the todo extension) like "Note": a bold label on its own line
    for label in ("Note", "See also:", "Warning!", "Todo", "Error"):
        assert is_admonition_label(label), label
        line = Line(label, 10.0, True, 72, 120, 100, 110, len(label))
        assert not looks_like_heading(line, 10.0), label
    assert not is_admonition_label("Todo list") and not is_admonition_label("Errors and warnings")
