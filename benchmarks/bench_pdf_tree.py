#!/usr/bin/env python3
"""Score the trees ham builds from PDFs against each PDF's own outline (bookmarks).

    python data/pdfdev/fetch.py                     # the development set, from Debian packages
    PYTHONPATH=$PWD python benchmarks/bench_pdf_tree.py [PDF ...] [--mode outline|typography|both]

Ground truth is the outline read with pypdfium2 ``PdfDocument.get_toc()`` (level, title,
destination page); an outline with a single top entry that opens it is the document's title, and
its children are the top sections. Each PDF is ingested alone (a temporary corpus root), with its
outline (``outline``) or with outlines ignored (``typography``: the path for PDFs without one).
Each bookmark is matched to a heading of ham's tree on its destination page or the next one, in
order, by title (case, spacing, punctuation and numbering set aside; similarity >= 0.85), or, ranked
below those, by first word (three letters or more: a reference page's bookmark "clear_alarm/1" for
its printed heading "clear_alarm(AlarmId) -> void()"). Columns:

* ``recall``: bookmarks matched to a heading;
* ``depth``: of the matched, those at the bookmark's depth in ham's tree (section = 1);
* ``parent``: of the matched, those whose parent in ham's tree is the heading matched to the
  bookmark's parent (or the document, for a top entry);
* ``furn→head`` / ``furn→text``: headings and leaves whose text is page furniture: a line of the
  header or footer band (top and bottom 8% of the page, read independently with PDFium's text
  page) that recurs on 3 pages or more once digits are masked, or that repeats a bookmark title;
* ``glued``: glued tokens / text tokens, from the ingest report (``ham.ingest.pdf_glued``);
* ``spaced``: punctuation marks set off by a space that PDFium's text page does not set off
  ("radio ," where PDFium reads "radio,": a space inserted where the PDF has no gap, typically at
  a font change), per text token: for each (word, mark) pair, ham's count beyond PDFium's.

One row per document and mode; the last rows are the means over documents. Output is a Markdown
table (docs/pdf_trees.md holds the figures of the development set).

``--word-settings`` instead compares text extractions by the glued-token rate of each PDF's whole
text (``ham.ingest.pdf_glued``): pdfplumber's word settings, pdfminer's layout analysis and
PDFium's text page; the measurement behind ``ham.ingest.pdf_text.WORD_SETTINGS``.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BAND = 0.08
_WORD = re.compile(r"\w+")
# numbering: "1.2 ", "Chapter 3 ", and a dotted number glued to a capital ("2.3.2Tokens": OpenOffice's bookmarks)
_NUMBERING = re.compile(r"^(?:(?:chapter|part|appendix|section)\s+(?:\d+|[ivxlc]+|[a-z])\b[.:]?\s*"
                        r"|(?:\d+(?:\.\d+)*|[a-z](?:\.\d+)+|[ivxlc]+|[a-z])(?:\.|\))?\s+(?=\S)"
                        r"|\d+(?:\.\d+)*\.(?=(?-i:[A-Z]))|\d+(?:\.\d+)+(?=(?-i:[A-Z])))", re.I)


def key(text: str) -> str:
    text = _NUMBERING.sub("", " ".join(text.split()), count=1).lower()
    return re.sub(r"[\W_]+", "", text)


def gold_outline(path: Path) -> tuple[list[dict], str, int, str]:
    """(entries with level (1 = top section), title, page, parent index or None; the document title
    taken from a single opening top entry or ""; page count; producer). An entry that repeats an
    earlier one (level, title and destination page) is left out, as ingest reads it once."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(path))
    raw, seen = [], set()
    for item in doc.get_toc(max_depth=32):
        dest = item.get_dest()
        entry = {"level": item.level + 1, "title": " ".join((item.get_title() or "").split()),
                 "page": dest.get_index() if dest is not None else None}
        where = (entry["level"], key(entry["title"]), entry["page"])
        if entry["page"] is not None and where in seen:
            continue        # an entry listed again (htmldoc repeats a chapter per link to it): one heading
        seen.add(where)
        raw.append(entry)
    meta = doc.get_metadata_dict()
    producer = (meta.get("Creator") or "") + " / " + (meta.get("Producer") or "")
    pages = len(doc)
    doc.close()
    title = ""
    tops = [e for e in raw if e["level"] == 1]
    if len(raw) > 1 and len(tops) == 1 and raw[0] is tops[0]:
        title = raw[0]["title"]
        raw = raw[1:]
        for e in raw:
            e["level"] -= 1
    stack: list[int] = []
    for i, e in enumerate(raw):
        while stack and raw[stack[-1]]["level"] >= e["level"]:
            stack.pop()
        e["parent"] = stack[-1] if stack else None
        stack.append(i)
    return raw, title, pages, producer


def band_lines(path: Path) -> dict[int, list[str]]:
    """Per page, the text lines of the header and footer bands, read with PDFium's text page."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(path))
    out: dict[int, list[str]] = {}
    for n in range(len(doc)):
        page = doc[n]
        width, height = page.get_size()
        text = page.get_textpage()
        lines = []
        for bottom, top in ((height * (1 - BAND), height), (0.0, height * BAND)):
            lines += [" ".join(ln.split()) for ln in text.get_text_bounded(0, bottom, width, top).splitlines()]
        out[n] = [ln for ln in lines if ln]
        text.close()
        page.close()
    doc.close()
    return out


def furniture_strings(path: Path, titles: set[str]) -> dict[int, tuple[set[str], set[str]]]:
    """Per page: (band lines that recur on 3 pages or more, digits masked; band lines that repeat a
    bookmark title). A heading set at the very top of its page also repeats its title: such a line
    counts as furniture in content only where a leaf is nothing but it."""
    lines = band_lines(path)
    seen = Counter(m for page in lines.values() for m in {re.sub(r"\d+", "#", ln.lower()) for ln in page})
    return {n: ({ln.lower() for ln in page if seen[re.sub(r"\d+", "#", ln.lower())] >= 3},
                {ln.lower() for ln in page if key(ln) in titles})
            for n, page in lines.items()}


def pdfium_texts(path: Path) -> list[str]:
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(path))
    texts = []
    for n in range(len(doc)):
        page = doc[n]
        text = page.get_textpage()
        texts.append(text.get_text_range())
        text.close()
        page.close()
    doc.close()
    return texts


def inserted_spaces(path: Path, doc) -> int:
    """Punctuation marks ham's text sets off by a space beyond what PDFium's text page does."""
    from ham.ingest.pdf_glued import spaced_punctuation

    ours = spaced_punctuation([n.title for n in doc.root.walk() if n.kind in ("section", "subsection")] +
                              [leaf.text or "" for leaf in doc.leaves()])
    theirs = spaced_punctuation(pdfium_texts(path))
    return sum(max(0, n - theirs[pair]) for pair, n in ours.items())


def headings_of(doc) -> list[dict]:
    out = []

    def walk(node, parent, depth):
        for child in node.children:
            if child.kind in ("section", "subsection"):
                out.append({"node": child, "parent": parent, "depth": depth, "key": key(child.title)})
                walk(child, child, depth + 1)
            elif child.children:
                walk(child, parent, depth)
    walk(doc.root, doc.root, 1)
    return out


def match(gold: list[dict], heads: list[dict]) -> list[int | None]:
    """For each gold entry, the index of its heading in ``heads`` (document order), or None."""
    taken: set[int] = set()
    found: list[int | None] = []
    last = -1
    for e in gold:
        k = key(e["title"])
        best = None
        for i, h in enumerate(heads):
            if i in taken or e["page"] is None or h["node"].page not in (e["page"], e["page"] + 1):
                continue
            score = 1.0 if h["key"] == k else SequenceMatcher(None, k, h["key"], autojunk=False).ratio()
            if score < 0.85:
                first = _WORD.match(" ".join(e["title"].lower().split()))
                if first is None or len(first.group()) < 3 or _WORD.match(h["node"].title.lower()) is None \
                        or _WORD.match(h["node"].title.lower()).group() != first.group():
                    continue
                score = 0.5
            rank = (score, i > last, -abs(i - last))
            if best is None or rank > best[0]:
                best = (rank, i)
        found.append(None if best is None else best[1])
        if best is not None:
            taken.add(best[1])
            last = best[1]
    return found


def score(path: Path, use_outline: bool) -> dict:
    from ham.ingest import ingest_corpus

    gold, gold_title, pages, producer = gold_outline(path)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(path, Path(tmp) / path.name)
        docs, report = ingest_corpus(Path(tmp), ["pdf"], pdf_outline=use_outline)
    if not docs:
        return {"doc": path.name, "error": report.summary()}
    doc = docs[0]
    heads = headings_of(doc)
    found = match(gold, heads)
    matched = [(e, heads[i]) for e, i in zip(gold, found) if i is not None]
    depth_ok = sum(1 for e, h in matched if h["depth"] == e["level"])
    parent_ok = 0
    for e, h in matched:
        want = doc.root if e["parent"] is None else (heads[found[e["parent"]]]["node"]
                                                       if found[e["parent"]] is not None else None)
        parent_ok += h["parent"] is want
    furniture = furniture_strings(path, {key(e["title"]) for e in gold} | {key(gold_title)})
    matched_ids = {id(h["node"]) for _, h in matched}
    none = (set(), set())
    furn_heads = sum(1 for h in heads if id(h["node"]) not in matched_ids
                     and " ".join(h["node"].title.lower().split()) in set.union(*furniture.get(h["node"].page, none)))
    furn_text = 0
    for leaf in doc.leaves():
        text = " ".join((leaf.text or "").lower().split())
        recurring, title_like = furniture.get(leaf.page, none)
        if text in recurring | title_like or any(
                len(f) >= 8 and (text.startswith(f + " ") or text.endswith(" " + f)) for f in recurring):
            furn_text += 1
    measures = report.measures.get(path.name, {})
    tokens = measures.get("text tokens", 0)
    return {"doc": path.name, "producer": producer, "pages": pages, "bookmarks": len(gold),
            "headings": len(heads), "recall": len(matched) / len(gold) if gold else 1.0,
            "depth": depth_ok / len(matched) if matched else 0.0,
            "parent": parent_ok / len(matched) if matched else 0.0,
            "furn_head": furn_heads, "furn_text": furn_text,
            "glued": measures.get("glued tokens", 0) / tokens if tokens else 0.0,
            "spaced": inserted_spaces(path, doc) / tokens if tokens else 0.0,
            "unaligned": measures.get("bookmarks not found on their page (placed at their destination)", 0)}


def _plumber(path: Path, **settings) -> list[str]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [" ".join(w["text"] for w in page.extract_words(**settings)) for page in pdf.pages]


def _pdfminer(path: Path) -> list[str]:
    from pdfminer.high_level import extract_text
    from pdfminer.layout import LAParams

    return [extract_text(str(path), laparams=LAParams())]


EXTRACTIONS = {
    "pdfplumber x_tolerance=3 (its default; ham before issue 20)": lambda p: _plumber(p),
    "pdfplumber x_tolerance=1.5": lambda p: _plumber(p, x_tolerance=1.5),
    "pdfplumber x_tolerance_ratio=0.15 (chosen)": lambda p: _plumber(p, x_tolerance_ratio=0.15),
    "pdfplumber x_tolerance_ratio=0.1": lambda p: _plumber(p, x_tolerance_ratio=0.1),
    "pdfplumber use_text_flow (x_tolerance=3)": lambda p: _plumber(p, use_text_flow=True),
    "pdfminer LAParams() (word_margin 0.1)": _pdfminer,
    "PDFium text page (get_text_range)": pdfium_texts,
}


def compare_word_settings(pdfs: list[Path]) -> None:
    import logging

    from ham.ingest.pdf_glued import count_glued

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    print("| extraction | " + " | ".join(p.name for p in pdfs) + " |")
    print("|---|" + "---|" * len(pdfs))
    for name, extract in EXTRACTIONS.items():
        counts = [count_glued(extract(p)) for p in pdfs]
        print(f"| {name} | " + " | ".join(f"{c.rate:.2%} ({c.glued})" for c in counts) + " |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--mode", choices=["outline", "typography", "both"], default="both")
    parser.add_argument("--word-settings", action="store_true",
                        help="compare text extractions by glued-token rate instead of scoring trees")
    args = parser.parse_args(argv)
    pdfs = args.pdfs or sorted((ROOT / "data" / "pdfdev" / "corpus").rglob("*.pdf"))
    if not pdfs:
        print("no PDFs: run data/pdfdev/fetch.py first, or name PDF files", file=sys.stderr)
        return 1
    if args.word_settings:
        compare_word_settings(pdfs)
        return 0
    modes = ["outline", "typography"] if args.mode == "both" else [args.mode]
    print("| document | mode | pages | bookmarks | headings | recall | depth | parent | furn→head | furn→text "
          "| glued | spaced | unaligned |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        rows = [score(p, mode == "outline") for p in pdfs]
        for r in rows:
            if "error" in r:
                print(f"| {r['doc']} | {mode} | error: {r['error'].splitlines()[-1]} |")
                continue
            print(f"| {r['doc']} | {mode} | {r['pages']} | {r['bookmarks']} | {r['headings']} | {r['recall']:.3f} "
                  f"| {r['depth']:.3f} | {r['parent']:.3f} | {r['furn_head']} | {r['furn_text']} "
                  f"| {r['glued']:.2%} | {r['spaced']:.2%} | {r['unaligned']} |", flush=True)
        ok = [r for r in rows if "error" not in r]
        if ok:
            mean = {k: sum(r[k] for r in ok) / len(ok) for k in ("recall", "depth", "parent", "glued", "spaced")}
            print(f"| **mean ({len(ok)})** | {mode} | | | | {mean['recall']:.3f} | {mean['depth']:.3f} "
                  f"| {mean['parent']:.3f} | {sum(r['furn_head'] for r in ok)} | {sum(r['furn_text'] for r in ok)} "
                  f"| {mean['glued']:.2%} | {mean['spaced']:.2%} | {sum(r['unaligned'] for r in ok)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
