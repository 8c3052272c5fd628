"""Icon fonts' glyphs (ham.ingest.pdf_icons): an asciidoctor-pdf admonition's Font Awesome icon,
24pt beside 10.5pt text, no longer merges the note's lines into one; it reads as the note's label.
The geometry is the DRBD User's Guide's (asciidoctor-pdf 1.6.2), page 9."""
from collections import Counter

from ham.ingest.pdf_icons import is_icon
from ham.ingest.pdf_text import page_lines

ICON_FONT = "BCDEFG+FontAwesome5Free-Solid"


def _word(text: str, x0: float, top: float, size: float = 10.5, font: str = "ABCDEF+NotoSerif") -> list[dict]:
    width = 0.5 * size * len(text)
    return [{"text": text, "fontname": font, "x0": x0, "x1": x0 + width, "top": top, "bottom": top + size,
             "size": size, "upright": True, "matrix": (1, 0, 0, 1, x0, 842.0 - top - 0.8 * size)}]


class _Page:
    """What ``page_lines`` asks of a pdfplumber page: words with their chars, the ruling lines."""
    width, height = 595.0, 842.0

    def __init__(self, words: list[list[dict]], rules: list[dict] = ()) -> None:
        self.words, self.lines, self.rects = words, list(rules), []

    def extract_words(self, **_):
        return [{"text": c[0]["text"], "chars": c, "x0": c[0]["x0"], "x1": c[0]["x1"], "top": c[0]["top"],
                 "bottom": c[0]["bottom"], "size": c[0]["size"], "fontname": c[0]["fontname"]} for c in self.words]


def _note(icon: str = "\uf05a", rule: bool = True) -> _Page:
    lines = [["Very", "early", "DRBD"], ["obsolete;", "147", "is"]]
    words = [_word(icon, 66.2, 668.2, size=24.0, font=ICON_FONT)]
    for row, top in zip(lines, (669.0, 684.8)):
        x = 120.2
        for text in row:
            words.append(_word(text, x, top))
            x = words[-1][0]["x1"] + 3.0
    rules = [{"x0": 108.0, "x1": 108.0, "top": 660.0, "bottom": 700.0}] if rule else []
    return _Page(words, rules)


def test_an_admonition_icon_is_its_label_and_merges_no_lines():
    tally = Counter()
    lines = page_lines(_note(), lambda w: False, tally=tally)
    assert [ln.text for ln in lines] == ["Note: Very early DRBD", "obsolete; 147 is"]
    assert tally["icon glyphs read as admonition labels"] == 1
    # the icon's 24pt box no longer stretches a line over two rows of text
    assert all(ln.bottom - ln.top < 12 for ln in lines)


def test_the_label_goes_to_the_notes_first_line_not_the_one_level_with_the_icon():
    # a five-line note: the icon is centred on it, level with its third and fourth lines
    words = [_word("\uf071", 66.2, 170.2, size=24.0, font=ICON_FONT)]
    for i, top in enumerate((139.4, 155.2, 171.0, 186.8, 202.5)):
        words.append(_word(f"line{i}", 120.2, top))
    page = _Page(words, [{"x0": 108.0, "x1": 108.0, "top": 131.0, "bottom": 220.0}])
    assert [ln.text for ln in page_lines(page, lambda w: False)][:2] == ["Warning: line0", "line1"]
    # without the rule, the label goes to the first line beside the icon itself
    page = _Page(words)
    assert [ln.text for ln in page_lines(page, lambda w: False)][:3] == ["line0", "line1", "Warning: line2"]


def test_any_other_icon_is_left_out_and_counted():
    tally = Counter()
    lines = page_lines(_note(icon="\uf0c5"), lambda w: False, tally=tally)   # Font Awesome's "copy"
    assert [ln.text for ln in lines] == ["Very early DRBD", "obsolete; 147 is"]
    assert tally["icon glyphs left out (icon fonts)"] == 1


def test_icon_fonts_are_told_by_name():
    assert is_icon({"fontname": "ABCDEF+FontAwesome"}) and is_icon({"fontname": "MaterialIcons-Regular"})
    assert not is_icon({"fontname": "ABCDEF+NotoSerif"}) and not is_icon({"fontname": "CMSY10"})
