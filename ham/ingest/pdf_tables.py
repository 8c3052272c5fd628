"""A PDF page's ruled tables (``page_tables``: tables, one-column frames, tables in the running
head or foot band, page frames), and the rows of a ruled table that draws no rules between its rows.

pdfplumber's table finder knows rows by their rules: a LaTeX ``tabular`` ruled only round its
header (camlidl-doc's 39 attributes, each beside the context it may appear in) is one row of two
cells, each holding 38 lines, and read as "abstract bigarray camlint ... | typedef array type ...".
A row is split (``table_rows``) where each of its filled cells (two at least) holds the same
number of lines, on the same baselines from cell to cell, and the text needed none of the line
breaks in some cell and most of them (``CLEAR``) in no cell: the next line's first word would have
fitted on the line before it. A row whose cell wrapped its text (gprolog-doc's error tables: "The
predicate indicator Pred of Head is that of a" / "static procedure" beside "permission
error(modify," / "static procedure, Pred)") keeps its lines together; in a table of short entries a
break needed in one cell is that column's widest entry ("int_default ( camlint | ... | int64 )").
Nor is a row split after a line that leaves a bracket open or ends in a comma in one of its cells
("permission error(input," / "past end of stream, SorA)": the writer broke one entry by hand). A
line's raised or lowered characters (a subscript, "le₁") stay in it, not a line of their own.
"""
from __future__ import annotations

from pdfplumber.utils.text import LIGATURES

from ham.ingest.pdf_furniture import in_band
from ham.ingest.pdf_items import Item, page_frame
from ham.ingest.pdf_outline import pdf_errors

BASELINE = 0.3     # of the font size: characters whose baselines are this close share a line
SMALLER = 0.8      # a character this much smaller than the cell's largest is raised or lowered: no line of its own
SPACE = 0.15       # of the font size: a gap this wide between characters is a space
CLEAR = 0.75       # of a row's line breaks: those no cell needed (the others: a cell's widest line)


def _baseline(ch: dict) -> float:
    """From the page's top: the text matrix's where pdfplumber gives it (a box's bottom depends on
    the font's declared descent), else the box's bottom."""
    matrix = ch.get("matrix")
    return ch["bottom"] if not matrix or not ch.get("upright") or ch.get("page_height") is None \
        else ch["page_height"] - matrix[5]


def _inside(ch: dict, box: tuple) -> bool:
    x, y = (ch["x0"] + ch["x1"]) / 2, (ch["top"] + ch["bottom"]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _text(chars: list[dict]) -> str:
    out, prev, gap = "", None, False
    for ch in sorted(chars, key=lambda c: c["x0"]):
        if not ch["text"].strip():
            gap = True
            continue
        if prev is not None and (gap or ch["x0"] - prev["x1"] > SPACE * max(prev["size"], ch["size"])):
            out += " "
        out, prev, gap = out + LIGATURES.get(ch["text"], ch["text"]), ch, False
    return out


def cell_lines(chars: list[dict]) -> list[list[dict]]:
    """A cell's characters as lines, top to bottom: full-size characters grouped by baseline, the
    smaller ones (sub- and superscripts) joined to the nearest line."""
    if not chars:
        return []
    big = max(c["size"] for c in chars)
    lines: list[list[dict]] = []
    for ch in sorted((c for c in chars if c["size"] >= SMALLER * big), key=_baseline):
        if lines and abs(_baseline(ch) - _baseline(lines[-1][0])) <= BASELINE * ch["size"]:
            lines[-1].append(ch)
        else:
            lines.append([ch])
    for ch in (c for c in chars if c["size"] < SMALLER * big):
        middle = (ch["top"] + ch["bottom"]) / 2
        min(lines, key=lambda ln: abs(_baseline(ln[0]) - middle), default=[]).append(ch)
    # a space glyph on a baseline of its own (Word's and LibreOffice's cells) is no line
    return [ln for ln in lines if any(c["text"].strip() for c in ln)]


def _first_word(line: list[dict]) -> float:
    """The width of a line's first word."""
    chars = sorted((c for c in line if c["text"].strip()), key=lambda c: c["x0"])
    end = chars[0]["x1"]
    for prev, ch in zip(chars, chars[1:]):
        if ch["x0"] - prev["x1"] > SPACE * ch["size"] or not prev["text"].strip():
            break
        end = ch["x1"]
    return end - chars[0]["x0"]


def _not_needed(lines: list[list[dict]], box: tuple, i: int) -> bool:
    """Whether the break after line ``i`` of a cell was the writer's: the next line's first word
    fits before the cell's right edge (less its left padding) after line ``i``."""
    pad = min(c["x0"] for ln in lines for c in ln) - box[0]
    line, size = lines[i], max(c["size"] for c in lines[i])
    return max(c["x1"] for c in line) + 0.3 * size + _first_word(lines[i + 1]) <= box[2] - pad


def _goes_on(text: str) -> bool:
    """A line its cell's next line continues: a bracket left open, or a comma or hyphen ending it."""
    text = text.rstrip()
    return text.endswith((",", "-")) or any(text.count(a) > text.count(b) for a, b in ("()", "[]", "{}"))


def split_row(chars: list[dict], boxes: list[tuple | None]) -> list[list[str]] | None:
    """A table row's cells (``boxes``, None where pdfplumber merged a cell) split into rows, one per
    line (module docstring), or None where the row is one row."""
    cells = [(box, cell_lines([c for c in chars if _inside(c, box)]) if box else []) for box in boxes]
    filled = [(box, lines) for box, lines in cells if lines]
    counts = {len(lines) for _, lines in filled}
    if len(filled) < 2 or len(counts) != 1 or counts == {1}:
        return None
    n, clear = counts.pop(), 0
    for i in range(n):
        bases = [_baseline(lines[i][0]) for _, lines in filled]
        size = max(c["size"] for _, lines in filled for c in lines[i])
        if max(bases) - min(bases) > BASELINE * size:
            return None
        if i + 1 < n:
            free = [_not_needed(lines, box, i) for box, lines in filled]
            if not any(free) or any(_goes_on(_text(lines[i])) for _, lines in filled):
                return None
            clear += all(free)
    if clear < CLEAR * (n - 1):
        return None
    return [[_text(lines[i]) if lines else ("" if box else None) for box, lines in cells] for i in range(n)]


def table_rows(page, table, extracted: list | None = None) -> list[list[str | None]]:
    """``table.extract()`` (pdfplumber; ``extracted`` where the caller has it already), with each
    row that holds several rows split (``split_row``)."""
    rows: list[list[str | None]] = []
    for row, text in zip(table.rows, table.extract() if extracted is None else extracted):
        _, top, _, bottom = row.bbox
        split = split_row([c for c in page.chars if top <= (c["top"] + c["bottom"]) / 2 <= bottom], row.cells)
        rows.extend(split if split is not None else [text])
    return rows


def page_tables(page, report, path) -> tuple[list[Item], list[tuple], list[tuple]]:
    """The page's ruled tables, and its frames: ruled boxes of one column (a code listing, a
    "Note:" box), whose words stay text lines, kept together as one text block. A table of one
    or two rows wholly in the header or footer band is no table: its words are lines, which the
    running heads and feet take, and never headings (its box is returned third); nor is one of
    one or two rows that frames the page (``page_frame``): its words are plain lines."""
    tables, frames, banded = [], [], []
    try:
        found = page.find_tables()
    except pdf_errors():   # pdfplumber's table finder on odd pages: the page's text still counts
        found = []
    for t in found:
        raw = t.extract()
        if all(len(row) <= 1 for row in raw):
            frames.append(t.bbox)
            report.measure(path, "ruled boxes of one column read as text", 1)
            continue
        if len(raw) <= 2 and in_band(t.bbox[1], t.bbox[3], float(page.height)):
            banded.append(t.bbox)   # a running head or foot drawn as a table (rst2pdf's): lines
            continue
        if len(raw) <= 2 and page_frame(t.bbox, page):
            report.measure(path, "page frames read as text (a ruled box of one or two rows around most of the page)", 1)
            continue
        try:
            split = table_rows(page, t, raw)
        except (IndexError, ValueError, KeyError) as exc:   # a heuristic's failure never costs the document
            split = raw
            report.add(path, f"page {page.page_number}: a table's rows could not be checked for rows set in one "
                             f"({exc.__class__.__name__}: {exc}); read as pdfplumber gives them", "row split")
        if len(split) > len(raw):
            report.measure(path, "table rows read as several (cells of equal baseline-aligned lines)",
                           len(split) - len(raw))
        rows = [[" ".join((c or "").split()) for c in row] for row in split]
        text = "\n".join(" | ".join(r) for r in rows if any(r))
        if text:
            x0, top, x1, bottom = t.bbox
            tables.append(Item("table", top, bottom, x0, x1, text=text))     # rendered once kept
    return tables, frames, banded
