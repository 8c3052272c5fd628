"""Shapes of Docling's output that ``ham.ingest.docling`` reads besides its reading order: which
JSON file is a Docling export (and which files beside it are the same document in other formats),
table grids, key-value regions and chart data.

A file is a Docling export by its JSON's top-level keys, wherever they stand in the file (a
document written with sorted keys has ``schema_name`` after its pages and pictures): a
``DoclingDocument`` (``schema_name``), a docling-serve response (its ``document.json_content``), or
Docling 1's legacy JSON (``main-text``), which ham names as unsupported.
"""
from __future__ import annotations

import base64
import binascii
import json
import mmap
import re
from pathlib import Path

from ham.ingest.assets import store_image
from ham.ingest.report import resolve_image

# what the Docling CLI writes beside <stem>.json for --to md/html/text/doctags/yaml/vtt (older
# releases wrote <stem>.doctags.txt)
COMPANIONS = (".md", ".html", ".txt", ".doctags", ".doctags.txt", ".yaml", ".vtt")
_MARKS = (b'"DoclingDocument"', b'"main-text"')


def shape_of(path: Path) -> str:
    """``"document"``, ``"serve"`` (a docling-serve response), ``"v1"`` (Docling 1's legacy JSON)
    or ``""`` (not Docling's)."""
    if path.suffix.lower() != ".json":
        return ""
    try:
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            if not any(mm.find(mark) >= 0 for mark in _MARKS):   # most JSON files: no parse
                return ""
            data = json.loads(mm[:])
    except (OSError, ValueError):   # unreadable, empty, not JSON: not claimed here
        return ""
    return shape_of_data(data)


def shape_of_data(data) -> str:
    if not isinstance(data, dict):
        return ""
    if data.get("schema_name") == "DoclingDocument":
        return "document"
    inner = data.get("document")
    if isinstance(inner, dict) and isinstance(inner.get("json_content"), dict) \
            and inner["json_content"].get("schema_name") == "DoclingDocument":
        return "serve"
    if "main-text" in data:
        return "v1"
    return ""


def companions_of(path: Path, present: set[Path]) -> list[Path]:
    return [c for c in (path.with_name(path.stem + s) for s in COMPANIONS) if c in present]


def layer_excluded(layer: str) -> str:
    """How the report counts an item left out for its content layer."""
    return "furniture (Docling)" if layer == "furniture" else f"{layer} layer (Docling)"


def words(text) -> str:
    return " ".join(str(text or "").split())


def table_rows(data: dict, cell_text) -> list[list[str]]:
    """A table's rows from ``data.grid`` (else ``data.table_cells``). ``cell_text(cell, ref)`` gives a
    cell's text; ``ref`` is the cell's rich content (``ref`` of ``table_cells``: the grid's copies
    carry none, so it is found by where the cell starts)."""
    refs = {(c.get("start_row_offset_idx"), c.get("start_col_offset_idx")): c.get("ref")
            for c in data.get("table_cells") or [] if isinstance(c, dict) and c.get("ref")}
    grid = data.get("grid")
    if isinstance(grid, list) and grid:
        rows = []
        for row in grid:
            # a cell spanning columns is repeated in each of them: read once, by where it starts
            # (two cells of the same text are two cells)
            cells, starts = [], []
            for cell in row:
                cell = cell if isinstance(cell, dict) else {}
                start = (cell.get("start_row_offset_idx"), cell.get("start_col_offset_idx"))
                if cells and None not in start and start == starts[-1]:
                    continue
                cells.append(cell_text(cell, cell.get("ref") or refs.get(start)))
                starts.append(start)
            rows.append(cells)
        return rows
    n_rows, n_cols = int(data.get("num_rows") or 0), int(data.get("num_cols") or 0)
    table = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for cell in data.get("table_cells") or []:
        r, c = cell.get("start_row_offset_idx", 0), cell.get("start_col_offset_idx", 0)
        if r < n_rows and c < n_cols:
            table[r][c] = cell_text(cell, cell.get("ref"))
    return table


def rows_text(rows: list[list[str]]) -> str:
    return "\n".join(" | ".join(r) for r in rows if any(r))


def chart_data(picture: dict) -> dict | None:
    """A chart's data as table data: ``meta.tabular_chart.chart_data`` (docling-core >= 2.48) or a
    ``tabular_chart_data`` annotation's ``chart_data`` (earlier)."""
    meta = picture.get("meta") if isinstance(picture.get("meta"), dict) else {}
    chart = meta.get("tabular_chart")
    if isinstance(chart, dict) and isinstance(chart.get("chart_data"), dict):
        return chart["chart_data"]
    for note in picture.get("annotations") or []:
        if isinstance(note, dict) and note.get("kind") == "tabular_chart_data" and isinstance(note.get("chart_data"), dict):
            return note["chart_data"]
    return None


def key_value_lines(graph: dict) -> list[str]:
    """A key-value region's (or form's) ``graph`` as "key: value" lines in the order of its cells:
    a key with its values (``to_value`` links, or ``to_key`` from a value), "; " between values;
    a key without a value and a value without a key are lines of their own."""
    cells = [c for c in graph.get("cells") or [] if isinstance(c, dict)]
    by_id = {c.get("cell_id"): c for c in cells}
    values: dict = {}
    for link in graph.get("links") or []:
        if not isinstance(link, dict):
            continue
        src, tgt = link.get("source_cell_id"), link.get("target_cell_id")
        if link.get("label") == "to_key":
            src, tgt = tgt, src
        elif link.get("label") != "to_value":
            continue   # to_child / to_parent: the keys' hierarchy, not their values
        if src in by_id and tgt in by_id and tgt not in values.get(src, []):
            values.setdefault(src, []).append(tgt)
    owned = {v for vs in values.values() for v in vs}
    lines = []
    for cell in cells:
        cid, text = cell.get("cell_id"), words(cell.get("text"))
        if cid in values:
            vals = "; ".join(t for t in (words(by_id[v].get("text")) for v in values[cid]) if t)
            key = text.rstrip(":：").rstrip()   # a form's key is often written "TO:"
            lines.append(f"{key}: {vals}" if key and vals else text or vals)
        elif cid not in owned and text:
            lines.append(text)
    return [line for line in lines if line]


def chunks(lines: list[str], size: int = 1500) -> list[str]:
    """Lines joined into texts of at most about ``size`` characters, broken between lines (an XBRL
    filing's facts are hundreds of lines: one unit each would be tiny, one unit for all too long)."""
    out, cur = [], []
    for line in lines:
        if cur and sum(len(x) + 1 for x in cur) + len(line) > size:
            out.append("\n".join(cur))
            cur = []
        cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def list_marker(item: dict, n: int | None = None) -> str:
    """A list item's marker: Docling's ``marker`` for an enumerated item ("3." where a list resumed
    after another), else its place ``n`` in its group where known; a bullet is "-" whatever its glyph."""
    marker = str(item.get("marker") or "").strip()
    if item.get("enumerated") and any(ch.isalnum() for ch in marker):
        return marker
    return f"{n}." if item.get("enumerated") and n else "-"


def join_pieces(text: str) -> str:
    """No space where a piece boundary fell before closing or after opening punctuation."""
    return re.sub(r"([(\[]) ", r"\1", re.sub(r" ([.,;:!?)\]])", r"\1", text))


def image_of(item: dict, path: Path, root: Path, report) -> tuple[str | None, str | None]:
    """A picture's or table's image: (as referenced, path under the corpus root); a ``data:`` URI is
    stored by ``ham.ingest.assets``."""
    image = item.get("image") or {}
    uri = str(image.get("uri") or "") if isinstance(image, dict) else ""
    if not uri:
        return None, None
    if uri.startswith("data:"):
        header, _, payload = uri.partition(",")
        ext = (re.search(r"image/(\w+)", header) or re.search(r"(png)", "png")).group(1)
        try:
            data = base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError):
            report.add(path, "picture with an undecodable data: URI", "image")
            return None, None
        rel = store_image(root, report, path, data=data, ext="jpg" if ext == "jpeg" else ext)
        return rel, rel
    return uri, resolve_image(uri, path.parent, root, report, path)
