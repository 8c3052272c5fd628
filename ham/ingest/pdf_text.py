"""The text layer of a PDF page as lines: words with their spaces, lines in reading order.

Words come from pdfplumber with ``WORD_SETTINGS``, chosen by measurement on the PDF development
set (docs/pdf_trees.md): a gap wider than 0.15 of the font size separates two words. pdfplumber's
default, a fixed 3 pt, glued words together wherever a typesetter sets spaces narrower than that
(8% of the tokens of a dblatex manual, 5% of a Sphinx one); ``x_tolerance_ratio`` 0.15 and 0.1,
pdfminer's layout analysis and PDFium's text page all leave the same residue, about 0.1-0.4%
(compound identifiers such as "qdiscname"), and ``use_text_flow`` changes nothing.

Words are grouped into lines by vertical overlap (``OVERLAP`` of the smaller height; not by equal
tops: a word set in another font on the same baseline has another top, and used to start a line of
its own, splitting "6.1 The config" from "Command"; and by the extent of the words beside it, not of
the whole row: a heading in the other column would chain two body lines), then a line is cut where a gap wider than ``COLUMN_GAP`` font sizes
separates two words (a running head's left and right parts, a table of contents' page number, two
columns). Section numbers typeset with spaced dots ("1 . 2 . 1") are closed up ("1.2.1").
pdfplumber starts a new word at every font or size change; words that touch on one baseline are
joined without a space (``joined``: "checkbox," in code font and text font, not "checkbox ,").

Which lines look like headings by typography alone (``looks_like_heading``) is decided here too:
the PDF reader (``ham.ingest.pdf``) applies it below an outline or where there is none.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ham.ingest.levels import continues_decimal, numbering_of
from ham.ingest.pdf_glyphs import (base_font, copyright_signs, decoded, is_glyph_code, is_picture_glyph,
                                   is_private_use, needs_decoding)
from ham.ingest.pdf_icons import is_icon, place_icons

WORD_SETTINGS = {"x_tolerance_ratio": 0.15, "keep_blank_chars": False, "use_text_flow": False,
                 "extra_attrs": ["size", "fontname"]}
MARKERS_READ = "unmapped or private-use glyphs opening a line (read as list bullets)"
PICTURE_GLYPHS = "LaTeX picture-font glyphs left out (box corners, line pieces)"
COLUMN_GAP = 2.5
OVERLAP = 0.35     # a superscript footnote mark overlaps its line by about 45% of its height
_EXTENSION = re.compile(r"^(?:CMEX|LMEX|EUEX)\d|MathExtension|^esint", re.I)
DEEP = 0.5         # of its size: a box reaching this far below its baseline is the font's metrics, not ink
BASELINE = 0.2     # baselines this far apart (of the smaller size) are one: a superscript sits 0.3 or more above
SMALLER = 0.8      # a word this much smaller than its line, with its bottom off the line's, is raised or lowered
SMALL_TEXT = 0.8   # lines set below this share of the body size are not evidence of two columns
COLUMN_WORDS = 3   # ... nor lines of fewer words
# URW's Times clone names its bold "Medi" (NimbusRomNo9L-Medi, -MediItal: what pdfTeX embeds for
# Times-Bold); its Chancery's "MediItal" is the regular weight, so the name is matched whole
_BOLD = re.compile(r"bold|black|heavy|semibold|demi|NimbusRomNo9L-Medi", re.I)
# TeX's bold faces, whose names say so only in Karl Berry's codes: Computer Modern's cmbx/cmb/cmssbx
# and the EC (cm-super) sfbx, sfbi, sfbl, sfsx, sfxc, sfxi
_TEX_BOLD = re.compile(r"^(?:cm(?:ss)?bx|cmb\d|sf(?:bx|bi|bl|sx|xc|xi)\d)", re.I)
_FORCE_BOLD = 1 << 18      # font descriptor flag 19
# italic and oblique faces, TeX's among them (cmti, cmsl, cmbxti; URW's "ReguItal", "MediItal")
_ITALIC = re.compile(r"italic|oblique|ital\b|^cm(?:bx)?(?:ti|sl)\d", re.I)
_MONO = re.compile(r"mono|nimbusmon|courier|consol|cmtt|lmtt|sftt|txtt|typewriter|inconsolata|menlo|sfmono|code",
                   re.I)
# math fonts: TeX's (cmmi, cmsy, cmex, the AMS and Euler ones), OpenType math faces, Adobe's Symbol
_MATH = re.compile(r"^(?:cmmi|cmsy|cmex|cmbsy|msam|msbm|eufm|eusm|eurm|rsfs|lmmath|symbol(?:mt)?$)|math", re.I)
HEADING_RATIO = 1.15   # a line this much larger than the body text is a heading
FIGURE_CAPTION = re.compile(r"^\s*(?:Figure|Fig\.?|Image|Chart|图)\s*\d", re.I)
TABLE_CAPTION = re.compile(r"^\s*(?:Table|Tab\.?|表)\s*\d", re.I)
# a sentence about a table or figure ("Table 3.3 gives a few examples ...", "Figure 4 shows"): its
# label is followed by a word in lower case, where a caption's is followed by punctuation or a title
_ABOUT = re.compile(r"^\s*(?:Table|Tab\.?|Figure|Fig\.?|Image|Chart)\s*\d+(?:[.\-]\d+)*\s+[a-z]")


def is_caption(text: str) -> bool:
    """A figure's or table's caption ("Table 3.1: Most common format codes"), not a sentence about
    one ("Table 3.3 gives a few examples")."""
    return bool(FIGURE_CAPTION.match(text) or TABLE_CAPTION.match(text)) and not _ABOUT.match(text)
_BULLETS = set("•‣◦▪▫●○■□►▸➢➤–—")      # a list item, even set bold
_ITEM_MARKS = _BULLETS - set("–—")     # a dash opening a line may be a sentence's, wrapped


def opens_list_item(text: str) -> bool:
    """A line opening with a bullet and a space: a list item (not a dash, which a wrapped sentence
    may open a line with)."""
    text = text.lstrip()
    return len(text) > 2 and text[0] in _ITEM_MARKS and text[1] == " "
# an admonition's label set at the body size on a line of its own (dblatex's bold "Note",
# "Warning"): the note's text follows, and the section's text after the note is no part of it
ADMONITION_LABELS = {"note", "tip", "warning", "caution", "important", "attention", "danger", "hint", "see also",
                     "remark", "todo", "error"}
_SPACED_DOTS = re.compile(r"(?<=\d) ?\. ?(?=\d)")


def is_admonition_label(text: str) -> bool:
    """"Note", "See also:", "Warning!": an admonition's label (``ADMONITION_LABELS``)."""
    return text.strip().rstrip(" :.!").lower() in ADMONITION_LABELS


@dataclass
class Line:
    text: str
    size: float
    bold: bool
    x0: float
    x1: float
    top: float
    bottom: float
    chars: int
    mono: bool = False
    font: str = ""          # the font most of its letters are set in, subset prefix removed
    math: bool = False      # most of its letters set in a math font (a formula, a figure's symbol)
    edge_mono: tuple[bool, bool] = (False, False)   # its first and its last word monospaced
    marker_read: bool = False   # it opened with an unmapped or private-use glyph, read as a bullet
    # shares of its characters in a proportional face, and of its letters in neither a bold nor a monospaced one
    proportional: float = 0.0
    plain: float = 0.0
    # set by later passes: a furniture kind, or the outline level and rule of a heading
    furniture: str = ""
    level: int = 0
    rule: str = ""
    role: str = ""          # "heading" (aligned to a bookmark or typographic), "caption", "text"


@lru_cache(maxsize=1024)
def is_mono(fontname: str) -> bool:
    """A fixed-width (code) font: Courier and its clones (URW's Nimbus Mono), TeX's typewriter faces."""
    return bool(_MONO.search(base_font(fontname)))


@lru_cache(maxsize=1024)
def is_math(fontname: str) -> bool:
    return bool(_MATH.search(base_font(fontname)))


def bold_fonts(pdf) -> frozenset[str]:
    """Names (as pdfminer reports them: the descriptor's FontName) of the fonts of ``pdf`` whose
    descriptor says bold: FontWeight 600 or more, or the ForceBold flag. A face named only by its
    foundry's code (Linux Libertine's "LinLibertineOB") is known by its descriptor."""
    from pdfminer.pdftypes import resolve1

    names: set[str] = set()
    seen: set[int] = set()
    for page in pdf.pages:
        try:
            fonts = resolve1((resolve1(page.page_obj.resources) or {}).get("Font")) or {}
            for ref in fonts.values():
                spec = resolve1(ref)
                if not isinstance(spec, dict) or id(spec) in seen:
                    continue
                seen.add(id(spec))
                desc = resolve1(spec.get("FontDescriptor"))
                if desc is None and spec.get("DescendantFonts"):
                    desc = resolve1(resolve1(resolve1(spec["DescendantFonts"])[0]).get("FontDescriptor"))
                if not isinstance(desc, dict):
                    continue
                weight, flags = resolve1(desc.get("FontWeight")), resolve1(desc.get("Flags"))
                if (isinstance(weight, (int, float)) and weight >= 600) or \
                        (isinstance(flags, int) and flags & _FORCE_BOLD):
                    name = resolve1(desc.get("FontName"))
                    names.add(getattr(name, "name", str(name)))
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            continue          # an odd font dictionary: its fonts are judged by name
    return frozenset(names)


def is_italic(fontname: str) -> bool:
    return bool(_ITALIC.search(base_font(fontname)))


def numbered_in_run(ln: Line, body: float, body_font: str, last: str | None) -> bool:
    """A line opening with a dotted decimal number right after the last numbered heading's
    (``last``: "3.1" after "3."), short, not ending a clause and set apart from the body text (bold,
    italic, or larger in another font) is a heading at any size: groff's mom sets its subsections
    in oblique type 0.3pt above the body ("3.1. Creating destination points at headings")."""
    text = ln.text.strip()
    n = numbering_of(text)
    if n is None or n.style != "decimal" or n.parts < 2 or last is None or not continues_decimal(last, n.number):
        return False        # one part ("6. Adding cutting planes") is as often a numbered list's item
    if len(text.split()) > 12 or text.endswith((".", ",", ";", ":")) or ln.mono or ln.math:
        return False
    return ln.bold or is_italic(ln.font) or (ln.size >= body + 0.2 and ln.font != body_font)


def is_bold(fontname: str, by_descriptor: frozenset[str] = frozenset()) -> bool:
    return fontname in by_descriptor or bool(_BOLD.search(fontname)) or bool(_TEX_BOLD.match(base_font(fontname)))


def _off_line(word: dict, main: dict) -> bool:
    """Whether ``word`` is raised or lowered off the baseline of ``main``. Baselines come from the text matrix (the bottom depends on the font's descent: a word
    in a mono font ends 2.8pt above the "." after it); a smaller word whose bottom is off too was
    raised by a text rise (PDF ``Ts``), which the matrix does not show."""
    size = min(word["size"], main["size"])
    if word.get("baseline") is not None and main.get("baseline") is not None and \
            abs(word["baseline"] - main["baseline"]) > BASELINE * size:
        return True
    return word["size"] < SMALLER * main["size"] and abs(word["bottom"] - main["bottom"]) > BASELINE * main["size"]


def joined(words: list[dict]) -> str:
    """Words of one line, left to right, as text. pdfplumber starts a new word at every change of
    font or size (``extra_attrs``), gap or no gap: a word closer to the one before it than the
    word-space tolerance of ``WORD_SETTINGS`` continues it ("checkbox" in code font and the ","
    after it: "checkbox,", not "checkbox ,"), unless it is raised or lowered off the line's
    baseline (a footnote mark keeps its space: "Miniforge 6,"), follows a full-size word off that
    baseline (words of two rows that one line took in) or overlaps the word before it by more
    than that tolerance (text printed twice)."""
    main = max(words, key=lambda w: len(w["text"]))
    text = words[0]["text"]
    for prev, word in zip(words, words[1:]):
        tolerance = WORD_SETTINGS["x_tolerance_ratio"] * prev["size"]
        touching = -tolerance <= word["x0"] - prev["x1"] <= tolerance
        after_mark = prev["size"] < SMALLER * main["size"]    # back on the line after a footnote mark
        continues = not _off_line(word, main) and (after_mark or not _off_line(prev, main))
        text += ("" if touching and continues else " ") + word["text"]
    return text


def _line_of(words: list[dict]) -> Line:
    words = sorted(words, key=lambda w: w["x0"])
    # an unmapped glyph of a text font opening a line of text: a list item's marker (dvips' Type 3 bullet);
    # so is a private-use glyph of any font (Word's Symbol bullet U+F0B7, OpenOffice's OpenSymbol U+F0A7)
    marker = len(words) > 1 and "(cid:" not in words[1]["text"] and (
        (is_glyph_code(words[0]["text"]) and not is_math(words[0].get("fontname", "")))
        or is_private_use(words[0]["text"]))
    if marker:
        words[0] = {**words[0], "text": "•"}
    words = copyright_signs(words)
    text = _SPACED_DOTS.sub(".", joined(words))
    sizes = [w["size"] for w in words]
    fonts = [w.get("fontname", "") for w in words]
    letters = [len(w["text"]) for w in words]
    total = sum(letters) or 1
    bold = sum(n for n, w in zip(letters, words) if w.get("bold")) > total / 2
    in_mono = sum(n for n, f in zip(letters, fonts) if is_mono(f))
    mono = in_mono > total / 2
    size = statistics.median(sizes)     # a footnote mark's letters ("PyPI Page 70") are not the line's face
    alpha = [sum(c.isalpha() for c in w["text"]) if w["size"] >= SMALLER * size else 0 for w in words]
    plain = sum(n for n, f, w in zip(alpha, fonts, words) if not is_mono(f) and not w.get("bold")) / (sum(alpha) or 1)
    math = sum(n for n, f in zip(letters, fonts) if is_math(f)) > total / 2
    by_font: dict[str, int] = {}
    for n, f in zip(letters, fonts):
        by_font[base_font(f)] = by_font.get(base_font(f), 0) + n
    return Line(text, round(size, 1), bold, min(w["x0"] for w in words),
                max(w["x1"] for w in words), min(w["top"] for w in words), max(w["bottom"] for w in words),
                len(text), mono, font=max(by_font, key=by_font.get), math=math,
                edge_mono=(is_mono(fonts[0]), is_mono(fonts[-1])), marker_read=marker,
                proportional=1 - in_mono / total, plain=plain)


def _overlaps(word: dict, words: list[dict]) -> bool:
    if not words:
        return False
    top, bottom = min(x["top"] for x in words), max(x["bottom"] for x in words)
    height = max(word["bottom"] - word["top"], 0.1)
    return min(bottom, word["bottom"]) - max(top, word["top"]) >= OVERLAP * min(height, bottom - top)


def _near(word: dict, other: dict) -> bool:
    gap = max(other["x0"] - word["x1"], word["x0"] - other["x1"])
    return gap <= COLUMN_GAP * max(word["size"], other["size"])


def group_lines(words: list[dict]) -> list[Line]:
    """Words into lines: a word joins the line whose extent it overlaps by ``OVERLAP`` of the smaller
    height, counting only the line's first word or the words beside it (closer than a column gap),
    so a tall heading in one column does not chain two body lines of the other ("Line Line 0 1");
    each line is then cut at wide gaps. Returned top to bottom, left to right."""
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (w["top"], w["x0"])):
        best = None
        for row in rows[-6:]:
            if _overlaps(w, row) and (_overlaps(w, row[:1]) or _overlaps(w, [x for x in row if _near(w, x)])):
                best = row
        if best is None:
            rows.append([w])
        else:
            best.append(w)
    lines: list[Line] = []
    for row in rows:
        part: list[dict] = []
        for w in sorted(row, key=lambda w: w["x0"]):
            if part and w["x0"] - part[-1]["x1"] > COLUMN_GAP * max(w["size"], part[-1]["size"]):
                lines.append(_line_of(part))
                part = []
            part.append(w)
        if part:
            lines.append(_line_of(part))
    return sorted(lines, key=lambda ln: (round(ln.top), ln.x0))


def columns(lines: list[Line], width: float) -> list[Line]:
    """Left column before the right one when most lines sit wholly in one half of the page."""
    mid = width / 2
    left = [ln for ln in lines if ln.x1 <= mid + 5]
    right = [ln for ln in lines if ln.x0 >= mid - 5]
    if len(left) >= 5 and len(right) >= 5 and len(left) + len(right) >= 0.8 * len(lines):
        spanning = [ln for ln in lines if ln not in left and ln not in right]
        top_span = [ln for ln in spanning if ln.top < min(x.top for x in left + right)]
        rest = [ln for ln in spanning if ln not in top_span]
        return sorted(top_span, key=lambda ln: ln.top) + sorted(left, key=lambda ln: ln.top) + \
            sorted(right, key=lambda ln: ln.top) + sorted(rest, key=lambda ln: ln.top)
    return sorted(lines, key=lambda ln: (round(ln.top), ln.x0))


def reading_order(items: list, lines: list[Line], width: float, body: float = 0.0) -> list:
    """A page's items (anything with ``top``, ``x0``, ``x1``) in reading order, given its ``lines``:
    top to bottom; on a two-column page the left column, then the right one (items that
    span both columns above them first, below them last). Only lines of running text count
    as column evidence: not furniture (a running head set on the right), not text set smaller
    than the body (a diagram's labels on the right of a one-column page), not lines of one or
    two words (a code listing's comments aligned far right, "// v1")."""
    mid = width / 2
    text = [ln for ln in lines if not ln.furniture and ln.size >= SMALL_TEXT * body
            and len(ln.text.split()) >= COLUMN_WORDS]
    two = sum(1 for ln in text if ln.x1 <= mid + 5) >= 5 and sum(1 for ln in text if ln.x0 >= mid - 5) >= 5
    if not two:
        return sorted(items, key=lambda it: (round(it.top), it.x0))
    cols = [ln.top for ln in text if ln.x1 <= mid + 5 or ln.x0 >= mid - 5]
    start = min(cols) if cols else 0

    def key(it) -> tuple:
        if it.x1 <= mid + 5:
            col = 1
        elif it.x0 >= mid - 5:
            col = 2
        else:
            col = 0 if it.top < start else 3
        return (col, round(it.top), it.x0)
    return sorted(items, key=key)


def _text_box(word: dict, baseline: float) -> None:
    """A word whose box reaches more than ``DEEP`` of its size below its baseline (``baseline``: from
    the page top) gets a text font's box instead, a quarter of its size below the baseline: the
    depth is the font's declared descent, not ink (``cmsy``'s is 0.96 of the size, so texinfo's
    bullets had boxes 8pt below their item's text and made lines of their own or joined the next).
    Not in a math extension font, whose big operators and radicals do reach that deep."""
    size = word["size"]
    if word["bottom"] - baseline > DEEP * size and not _EXTENSION.match(base_font(word.get("fontname", ""))):
        height = word["bottom"] - word["top"]
        word["bottom"] = baseline + 0.25 * size
        word["top"] = word["bottom"] - height


def page_lines(page, inside_tables, bold: frozenset[str] = frozenset(), tally: Counter | None = None) -> list[Line]:
    """The lines of a pdfplumber page, words inside a found table left out (read with the table).
    ``bold``: the PDF's bold fonts by descriptor (``bold_fonts``). Icon fonts' glyphs are no words
    (``ham.ingest.pdf_icons``), nor are LaTeX's picture-font pieces (``pdf_glyphs.is_picture_glyph``);
    ``tally`` counts what became of them and the glyphs read as list bullets."""
    words, icons = [], []
    for w in page.extract_words(**WORD_SETTINGS, return_chars=True):
        chars = w.pop("chars")
        first = chars[0]
        w["bold"] = is_bold(w.get("fontname", ""), bold)
        if needs_decoding(w["text"], w.get("fontname", "")):
            w["text"] = decoded(chars)
        if first.get("upright") and first.get("matrix"):
            w["baseline"] = first["matrix"][5]
            _text_box(w, float(page.height) - w["baseline"])
        if is_picture_glyph(w):
            if tally is not None:
                tally[PICTURE_GLYPHS] += 1
            continue
        if not inside_tables(w):
            (icons if is_icon(w) else words).append(w)
    lines = group_lines(words)
    if tally is not None:
        tally[MARKERS_READ] += sum(ln.marker_read for ln in lines)
    if icons:
        lines, labelled, dropped = place_icons(icons, lines, page.lines + page.rects)
        if tally is not None:
            tally["icon glyphs read as admonition labels"] += labelled
            tally["icon glyphs left out (icon fonts)"] += dropped
    return columns(lines, float(page.width))


SET_OFF = 0.5      # of the body size: the space above and below a bold lower-case heading
MONO_TITLE = 0.25  # of its letters in a proportional face: a larger mostly-typewriter line is a title ("4 Using camlidl")
PLAIN = 0.1        # of its letters in a regular proportional face: a bold line this plain is a run-in label's
_BROKEN = re.compile(r"[^\W\d_]-$")    # a word hyphenated at the end of a line
RUN_ON_WORDS = 8   # a bold line this long whose sentence runs on to the next line is a paragraph's


def _runs_on(text: str, following: str) -> bool:
    """Whether a long line's sentence goes on in the line following it: not ended here, and the next
    line opens in lower case, is long itself or ends the sentence (a wrapped title does neither)."""
    if text.endswith((".", ":", "!", "?")):
        return False
    return (next((c for c in following if c.isalnum()), "").islower() or len(following.split()) >= RUN_ON_WORDS
            or following.endswith("."))


def ends_broken(text: str) -> bool:
    """A line ending in a word hyphenated where it wrapped ("AND CON-"): the next line goes on with it."""
    return bool(_BROKEN.search(text.rstrip()))


def looks_like_heading(ln: Line, body: float, before: Line | None = None, after: Line | None = None) -> bool:
    """Typography: larger than the body text, or bold and short. Never a bare number, a caption, a
    list item, an admonition's label ("Note", "Warning"), unmapped glyphs, code (monospaced text at the
    body size, or all but ``MONO_TITLE`` of it), a math font's line (a figure's large "θ"), a line ending
    a clause or one continuing a word hyphenated on the line ``before`` it (not a heading itself).
    A bold line is a heading only all bold (but code words), not a run-in label and its paragraph. A bold body-size line opening in lower case ("nbconvert") must be set off by
    space from the lines ``before`` and ``after`` it (None: the page's edge): set solid, it is a
    listing's keywords ("begin", "end if") or a table's column head ("classic"). Nor is a long bold
    body-size line whose sentence runs on, set solid and in lower case, to the bold line ``after``
    it: a bold paragraph ("We recommend that all packagers ... read this" / "manual carefully.")."""
    text = ln.text.strip()
    if not re.search(r"[^\W\d_]", text) or ln.math or FIGURE_CAPTION.match(text) or TABLE_CAPTION.match(text):
        return False
    if ln.mono and (ln.size < body * HEADING_RATIO or ln.proportional < MONO_TITLE):
        return False        # code; a title set larger with a command's name in it ("4 Using camlidl") is not
    if before is not None and before.role != "heading" and ends_broken(before.text) \
            and ln.top - before.bottom < SET_OFF * body:
        return False        # a bold list item's second line: "• A SQUARE ... AND CON-" / "TROL OF IB AT CORNERS"
    if text[:1] in _BULLETS or "(cid:" in text:     # a list item; glyphs without text (a music font's)
        return False
    if is_admonition_label(text) and ln.size < body * HEADING_RATIO:
        return False        # set larger, it heads a section ("See Also" of an Erlang reference page)
    if len(text.split()) > 15 or text.endswith((",", ";")) or ln.chars <= 1:
        return False
    if text.endswith(".") and len(text.split()) > 8:
        return False
    if ln.size >= body * HEADING_RATIO:
        return True
    if not ln.bold or ln.plain > PLAIN or ln.size < body - 0.2:
        return False        # a run-in label ("Deallocation of ... parameters: If a C function") is text
    space = SET_OFF * body
    if after is not None and after.bold and abs(after.size - ln.size) < 0.2 and after.top - ln.bottom < space \
            and len(text.split()) >= RUN_ON_WORDS and _runs_on(text, after.text.strip()):
        return False        # a bold paragraph's first line: its sentence runs on, set solid, to the next
    if not next((c for c in text if c.isalnum()), "").islower():
        return True
    return (before is None or ln.top - before.bottom >= space) and (after is None or after.top - ln.bottom >= space)
