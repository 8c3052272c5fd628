"""MinerU's ``middle.json``: each title block's line height, as a font size for the heading levels
(``ham.ingest.levels``), matched to the content list's titles by ``title_key``.

Line heights are not font sizes to the point: MinerU 2.x's pipeline measures lines on the page
image, so the lines of one 10pt paragraph measure 10-15pt. Each file's own noise is measured
(``line_height_noise``) and heading sizes it cannot tell apart are one size (``size_chains``).
"""
from __future__ import annotations

import statistics
import unicodedata
from pathlib import Path

from ham.ingest.report import IngestReport, read_json
from ham.text import clean_text

NOISE_LINES = 20   # lines of multi-line paragraphs needed to measure line-height noise


def title_key(text: str) -> str:
    """A title as both files can be matched on: ``middle.json`` keeps the PDF's ligatures ("ﬂow")
    and splits lines into spans (CJK ones with no space between them), while the content list
    spells "flow" and joins the spans; so NFKC, case-folded, without any whitespace."""
    return "".join(unicodedata.normalize("NFKC", clean_text(text)).casefold().split())


def _line_heights(block: dict) -> list[float]:
    return [ln["bbox"][3] - ln["bbox"][1] for ln in block.get("lines") or []
            if isinstance(ln, dict) and isinstance(ln.get("bbox"), list) and len(ln["bbox"]) == 4]


def line_height_noise(blocks: list[dict]) -> float:
    """How far a line's height strays from its paragraph's (whose lines share one font size): the
    90th percentile of the distance of each line of a text block with three lines or more from its
    block's median, over the whole file; 0 with fewer than ``NOISE_LINES`` such lines to go by.
    MinerU 2.x's pipeline measures lines on the page image, and a 10pt paragraph's lines then vary
    by about 2pt."""
    gaps: list[float] = []
    for block in blocks:
        heights = _line_heights(block) if block.get("type") == "text" else []
        if len(heights) >= 3:
            mid = statistics.median(heights)
            gaps += [abs(h - mid) for h in heights]
    if len(gaps) < NOISE_LINES:
        return 0.0
    return sorted(gaps)[int(0.9 * (len(gaps) - 1))]


def size_chains(sizes: list[float], noise: float) -> dict[float, float]:
    """Each heading size mapped to the largest size of its chain: sizes no more than ``noise``
    apart, one after the other, cannot be told apart by these measurements, so a run of them is one
    size (a continuum of 12-19pt line heights says nothing about levels)."""
    out: dict[float, float] = {}
    head = prev = None
    for size in sorted(set(sizes), reverse=True):
        if prev is None or prev - size > noise:
            head = size
        out[size], prev = head, size
    return out


def middle_sizes(path: Path, report: IngestReport) -> dict:
    """(page_idx, ``title_key`` of the title) -> the title block's median line height in points
    (a font size), from ``middle.json``; sizes that this file's own line-height noise cannot tell
    apart are one size (``size_chains``)."""
    data = read_json(path, report)
    if not isinstance(data, dict) or not isinstance(data.get("pdf_info"), list):
        if data is not None:
            report.add(path, "not a MinerU middle.json (no pdf_info list); font sizes not used", "font sizes")
        return {}
    sizes: dict = {}
    blocks: list[dict] = []
    for n, page in enumerate(data["pdf_info"]):
        if not isinstance(page, dict):
            continue
        page_idx = page.get("page_idx", n)
        for block in page.get("para_blocks") or []:
            if not isinstance(block, dict):
                continue
            blocks.append(block)
            if block.get("type") != "title":
                continue
            lines = [ln for ln in block.get("lines") or [] if isinstance(ln, dict)]
            text = "".join(str(s.get("content", "")) + " " for ln in lines for s in ln.get("spans") or []
                           if isinstance(s, dict) and s.get("type") in ("text", "inline_equation"))
            heights = _line_heights(block)
            if text.strip() and heights:
                sizes[(page_idx, title_key(text))] = round(statistics.median(heights), 1)
    chains = size_chains(list(sizes.values()), line_height_noise(blocks))
    return {key: chains[size] for key, size in sizes.items()}
