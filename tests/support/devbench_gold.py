"""Gold passages of the development benchmark against the current ingest.

    python -m tests.support.devbench_gold          # every manual under data/devbench/corpus

Each ``gold_text`` passage of ``data/devbench/questions*.jsonl`` must be a substring, after
collapsing whitespace and lower-casing (``ham.text.normalise_ws``), of one text or table leaf of
the manual's ingest, on one of the question's ``gold_pages``. Merging blocks keeps a passage
findable; splitting one (an icon, a heading or a step boundary in the middle) loses it.

``off_page`` lists the passages that also occur word for word on a page that is not one of their
question's gold pages (near-twin questions: the Schematic and PCB Editors share paragraphs). The
benchmarks credit a passage only on a gold page, so these are reported, not failed; where the
passage is not the whole leaf, extending it with the leaf's adjacent text may make it unique.

``check_patterns`` checks what the kinds claim, on the same ingest: the images the reference
answer shows are exactly ``gold_images``, and each is an image leaf on a gold page; a ``parent_general`` question has a passage in a section and
another in one of that section's ancestors (its parent's or a grandparent's own text); a
``tutorial`` question's passages lie in at least two different sections or procedure steps.
"""
from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from ham.ingest import ingest_corpus
from ham.text import normalise_ws

DEVBENCH = Path(__file__).resolve().parents[2] / "data" / "devbench"


def questions(devbench: Path = DEVBENCH) -> list[dict]:
    rows = []
    for path in sorted(devbench.glob("questions*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def _texts(manual: str, devbench: Path) -> dict[str, list[str]]:
    """page -> the normalised texts of its text and table leaves."""
    docs, _ = ingest_corpus(devbench / "corpus" / manual)
    by_page: dict[str, list[str]] = defaultdict(list)
    for doc in docs:
        for leaf in doc.leaves():
            if leaf.kind in ("text", "table"):
                by_page[f"{manual}/{leaf.source}"].append(normalise_ws(leaf.text))
    return by_page


def check(manual: str, rows: list[dict], devbench: Path = DEVBENCH) -> tuple[int, int, list[tuple[str, str]]]:
    """(found, total, missing (question id, passage)) for one manual."""
    by_page = _texts(manual, devbench)
    found, total, missing = 0, 0, []
    for row in rows:
        if row.get("manual") != manual:
            continue
        pages = row.get("gold_pages") or list(by_page)
        for passage in row.get("gold_text") or []:
            total += 1
            needle = normalise_ws(passage)
            if any(needle in text for page in pages for text in by_page.get(page, [])):
                found += 1
            else:
                missing.append((row["id"], passage))
    return found, total, missing


def off_page(manual: str, rows: list[dict], devbench: Path = DEVBENCH) -> list[tuple[str, str, list[str]]]:
    """(question id, passage, the other pages holding it) for each gold passage of one manual that
    also occurs on a page outside its question's gold pages."""
    by_page = _texts(manual, devbench)
    out = []
    for row in rows:
        pages = set(row.get("gold_pages") or ())
        if row.get("manual") != manual or not pages:
            continue
        for passage in row.get("gold_text") or []:
            needle = normalise_ws(passage)
            others = sorted(p for p, texts in by_page.items() if p not in pages and any(needle in t for t in texts))
            if needle and others:
                out.append((row["id"], passage, others))
    return out


def _leaves(manual: str, devbench: Path):
    """(page -> [(normalised text, containers)], page -> image references) of one manual, where
    containers are the leaf's enclosing section and step node ids, outermost first."""
    docs, _ = ingest_corpus(devbench / "corpus" / manual)
    texts: dict[str, list] = defaultdict(list)
    images: dict[str, set] = defaultdict(set)
    for doc in docs:
        for node_id, path in doc.paths().items():
            leaf = path[-1]
            page = f"{manual}/{leaf.source}"
            if leaf.kind in ("text", "table"):
                texts[page].append((normalise_ws(leaf.text),
                                    [(n.id, n.kind) for n in path[:-1] if n.kind in ("section", "subsection", "step")]))
            elif leaf.kind == "image" and leaf.image:
                images[page].add(leaf.image)
    return texts, images


def check_patterns(manual: str, rows: list[dict], devbench: Path = DEVBENCH) -> list[tuple[str, str]]:
    """(question id, problem) for every claim of the module docstring that does not hold."""
    texts, images = _leaves(manual, devbench)
    problems = []
    for row in rows:
        if row.get("manual") != manual:
            continue
        pages = row.get("gold_pages") or list(texts)
        shown = set(re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", row.get("reference_answer") or ""))
        if shown != set(row.get("gold_images") or []):
            problems.append((row["id"], f"the reference answer shows {sorted(shown)}, gold_images are "
                                        f"{sorted(row.get('gold_images') or [])}"))
        for image in row.get("gold_images") or []:
            if not any(image in images.get(page, ()) for page in pages):
                problems.append((row["id"], f"gold image {image} is no image leaf on its gold pages"))
        chains = []
        for passage in row.get("gold_text") or []:
            needle = normalise_ws(passage)
            chains += [c for page in pages for text, c in texts.get(page, []) if needle in text][:1]
        sections = [[n for n, kind in c if kind != "step"] for c in chains]
        kinds = row.get("kinds") or []
        if "parent_general" in kinds:
            own = {s[-1] for s in sections if s}
            # some passage's own section is the parent or grandparent of another passage's section
            if not any(s and set(s[-3:-1]) & own for s in sections):
                problems.append((row["id"], "parent_general: no passage in an ancestor (parent or grandparent) "
                                            "of another passage's section"))
        if "tutorial" in kinds and len({tuple(c) for c in chains}) < 2:
            problems.append((row["id"], "tutorial: the passages do not span two sections or steps"))
    return problems


def main() -> int:
    rows = questions()
    manuals = sorted({r["manual"] for r in rows if (DEVBENCH / "corpus" / r["manual"]).is_dir()})
    if not manuals:
        print("no devbench corpus or questions (python3 data/devbench/fetch.py)", file=sys.stderr)
        return 1
    bad = 0
    for manual in manuals:
        found, total, missing = check(manual, rows)
        print(f"{manual}: {found}/{total} gold passages found")
        for qid, passage in missing:
            print(f"  missing {qid}: {passage}")
        twins = off_page(manual, rows)
        print(f"{manual}: {len(twins)} gold passages also occur off their gold pages (credited only on a gold page)")
        for qid, passage, others in twins:
            print(f"  {qid}: {passage[:70]!r} also on {', '.join(others[:3])}" + (" ..." if len(others) > 3 else ""))
        problems = check_patterns(manual, rows)
        print(f"{manual}: {len(problems)} problems with gold images, parent_general and tutorial claims")
        for qid, problem in problems:
            print(f"  {qid}: {problem}")
        bad += len(missing) + len(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
