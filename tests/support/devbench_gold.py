"""Gold passages of the development benchmark against the current ingest.

    python -m tests.support.devbench_gold          # every manual under data/devbench/corpus

Each ``gold_text`` passage of ``data/devbench/questions*.jsonl`` must be a substring, after
collapsing whitespace and lower-casing (``ham.text.normalise_ws``), of one text or table leaf of
the manual's ingest, on one of the question's ``gold_pages``. Merging blocks keeps a passage
findable; splitting one (an icon, a heading or a step boundary in the middle) loses it.
"""
from __future__ import annotations

import json
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


def check(manual: str, rows: list[dict], devbench: Path = DEVBENCH) -> tuple[int, int, list[tuple[str, str]]]:
    """(found, total, missing (question id, passage)) for one manual."""
    docs, _ = ingest_corpus(devbench / "corpus" / manual)
    by_page: dict[str, list[str]] = defaultdict(list)
    for doc in docs:
        for leaf in doc.leaves():
            if leaf.kind in ("text", "table"):
                by_page[f"{manual}/{leaf.source}"].append(normalise_ws(leaf.text))
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
        bad += len(missing)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
