#!/usr/bin/env python3
"""Check the gold of the linked-general set (``questions.jsonl``) against ham's ingest of its manual.

    python3 data/devlinks/check.py        # after python3 data/devlinks/fetch.py; exit 1 on any problem

The rules of ``data/devcheck/check.py`` that apply to this set (its row checks, ``well_formed``,
are shared), plus the linked rule, on
``ham.ingest.ingest_corpus("data/devlinks/corpus/<manual>")``:

* every question has the fields of devbench's format, an id ``<manual>-NNN`` used once, known
  kinds, and the kinds ``linked_general`` and ``text_only``;
* it has 2 or 3 ``gold_text`` passages; every passage is 20-280 characters and, after collapsing
  whitespace and lower-casing (``ham.text.normalise_ws``), a substring of exactly one text or table
  leaf of the question's ``gold_pages`` (so a passage can neither be missing nor ambiguous on its
  page);
* ``gold_images`` is empty and the reference answer shows no image (``![alt](REF)``): the set is
  text only;
* every ``gold_pages`` entry holds a gold passage;
* every ``gold_headings`` entry is the title of a section on the path of a leaf holding a passage;
* ``linked_general``: the leaf holding the **first** gold passage (the linking, specific text;
  by convention it comes first) has in ``leaf.meta["refs"]`` (the sections its HTML links point
  to, resolved by ``ham.ingest.links``) a section that encloses (is, or is an ancestor of) the leaf
  holding another gold passage (the linked, general text). This is the rule "some gold leaf links
  to a section enclosing another gold leaf" with the linking leaf fixed, so that a link back from
  the general text (gitattributes' export-subst links to git-archive) cannot stand in for it. A
  link to a whole page resolves to the page's first section, which encloses all of its text; a
  link to ``page.html#id`` to the section holding that anchor; a link to another document whose
  text sits at its root (a how-to without section headings) to that document's root, which counts
  as its section here. The question's target section is the innermost such section;
* spread: no target section is the target of more than 3 questions.

Printed: the counts of questions, kinds, passages, gold pages, specific (linking) pages, target
pages and distinct target sections, how far below its target section the linked passage lies (0:
the section's own text), and the questions per target section.

Only the standard library and ham are used.
"""
from __future__ import annotations

import re
import runpy
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
_DEVCHECK = runpy.run_path(str(HERE.parent / "devcheck" / "check.py"))
well_formed = _DEVCHECK["well_formed"]   # the shared row checks
KINDS = {"linked_general", "near_twin", "procedure", "text_only"}
REQUIRED_KINDS = ("linked_general", "text_only")
FIELDS = ("id", "manual", "question", "kinds", "reference_answer", "gold_text", "gold_images",
          "gold_pages", "gold_headings")
MAX_PER_TARGET = 3
LINKABLE = ("document", "section", "subsection")   # what a leaf's refs can name (ham.ingest.links)
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Leaf:
    """A text or table leaf of the ingest."""

    page: str                         # <manual>/<page>
    id: str
    text: str                         # normalised (ham.text.normalise_ws)
    chain: list[tuple[str, str]]      # enclosing sections, outermost first: (id, normalised title)
    enclosing: list[str]              # ids a link can name that enclose it: its document root, its sections
    refs: list[str]                   # ids its own links point to (leaf.meta["refs"])


def ingest(manual: str, corpus: Path) -> tuple[dict[str, list[Leaf]], dict[str, tuple[str, str]]]:
    """page -> its text and table leaves; section (or document root) id -> (page, title)."""
    from ham.ingest import ingest_corpus
    from ham.text import normalise_ws

    docs, _ = ingest_corpus(corpus / manual)
    leaves: dict[str, list[Leaf]] = defaultdict(list)
    sections: dict[str, tuple[str, str]] = {}
    for doc in docs:
        for path in doc.paths().values():
            node = path[-1]
            if node.kind in LINKABLE:
                sections[node.id] = (f"{manual}/{node.source}", node.title or "")
            if node.kind in ("text", "table") and not node.children:
                chain = [(n.id, normalise_ws(n.title or "")) for n in path[:-1]
                         if n.kind in ("section", "subsection")]
                enclosing = [n.id for n in path[:-1] if n.kind in LINKABLE]
                leaves[f"{manual}/{node.source}"].append(
                    Leaf(f"{manual}/{node.source}", node.id, normalise_ws(node.text), chain, enclosing,
                         list(node.meta.get("refs", []))))
    return leaves, sections


def link_target(linking: Leaf, others: list[Leaf]) -> tuple[str, int] | None:
    """(the innermost section among ``linking``'s refs that encloses one of the ``others``, how many
    section levels below it that leaf's own section lies: 0 when the passage is the section's own
    text), or None."""
    best: tuple[str, int] | None = None
    for leaf in others:
        if leaf.id == linking.id:
            continue
        for depth, sid in enumerate(leaf.enclosing):
            below = len(leaf.enclosing) - 1 - depth
            if sid in linking.refs and (best is None or below < best[1]):
                best = (sid, below)
    return best


def check(rows: list[dict], corpus: Path = HERE / "corpus") -> tuple[list[tuple[str, str]], dict]:
    from ham.text import normalise_ws

    problems: list[tuple[str, str]] = []
    stats: dict = {"passages": 0, "headings": 0, "targets": Counter(), "target_pages": Counter(),
                   "specific_pages": Counter(), "linked": 0, "below": Counter()}
    stats["sections"] = {}
    for row, qid, (leaves, sections) in well_formed(rows, corpus, ingest, FIELDS, "data/devlinks/fetch.py", problems):
        stats["sections"].update(sections)
        kinds = row["kinds"]
        if set(kinds) - KINDS:
            problems.append((qid, f"unknown kinds {sorted(set(kinds) - KINDS)}"))
        for kind in REQUIRED_KINDS:
            if kind not in kinds:
                problems.append((qid, f"kinds lack {kind}"))
        if row["gold_images"] or _IMAGE.search(row["reference_answer"]):
            problems.append((qid, "the set is text only: gold_images must be [] and the answer show no image"))
        pages = row["gold_pages"]
        for page in pages:
            if page not in leaves:
                problems.append((qid, f"gold page {page} is not in the ingest"))
        if not 2 <= len(row["gold_text"]) <= 3:
            problems.append((qid, f"{len(row['gold_text'])} gold passages, not 2 or 3"))
        found: list[Leaf] = []
        first_found = False
        for index, passage in enumerate(row["gold_text"]):
            stats["passages"] += 1
            if not 20 <= len(passage) <= 280:
                problems.append((qid, f"passage of {len(passage)} characters: {passage[:60]!r}"))
            needle = normalise_ws(passage)
            hits = [leaf for p in pages for leaf in leaves.get(p, []) if needle in leaf.text]
            if not hits:
                elsewhere = [p for p, ls in leaves.items() if any(needle in leaf.text for leaf in ls)]
                problems.append((qid, f"passage not found on its gold pages{' (but on ' + ', '.join(elsewhere[:3]) + ')' if elsewhere else ''}: {passage[:70]!r}"))
                continue
            if len(hits) > 1:
                problems.append((qid, f"passage matches {len(hits)} leaves on its gold pages: {passage[:70]!r}"))
            found.append(hits[0])
            first_found = first_found or index == 0
        for page in pages:
            if page not in {leaf.page for leaf in found}:
                problems.append((qid, f"gold page {page} holds no gold passage"))
        titles = {title for leaf in found for _, title in leaf.chain}
        for heading in row["gold_headings"]:
            stats["headings"] += 1
            if normalise_ws(heading) not in titles:
                problems.append((qid, f"gold heading {heading!r} is on no gold leaf's path"))
        if "linked_general" in kinds and first_found:
            linking = found[0]
            hit = link_target(linking, found[1:])
            if hit is None:
                problems.append((qid, ("linked_general: the first passage's leaf links to no section "
                                       "enclosing another gold passage's leaf")))
                continue
            target, below = hit
            stats["linked"] += 1
            stats["below"][below] += 1
            stats["targets"][target] += 1
            stats["target_pages"][sections[target][0]] += 1
            stats["specific_pages"][linking.page] += 1
    for target, n in stats["targets"].items():
        if n > MAX_PER_TARGET:
            page, title = stats["sections"][target]
            problems.append(("*", f"{n} questions link to the same section {page} § {title!r} (at most {MAX_PER_TARGET})"))
    return problems, stats


def main() -> int:
    rows = _DEVCHECK["load_questions"](HERE / "questions.jsonl")
    problems, stats = check(rows)
    kinds = Counter(k for r in rows for k in r.get("kinds", []))
    print(f"{len(rows)} questions; kinds: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print(f"{stats['passages']} gold passages, {stats['headings']} gold headings, "
          f"{len({p for r in rows for p in r.get('gold_pages', [])})} gold pages")
    print(f"linked_general: {stats['linked']} questions hold the linked rule; "
          f"{len(stats['specific_pages'])} specific (linking) pages, {len(stats['target_pages'])} target pages, "
          f"{len(stats['targets'])} distinct target sections")
    below = stats["below"]
    print(f"  the linked passage is the target section's own text in {below[0]} questions, "
          + ", ".join(f"{n} level{'s' if n > 1 else ''} below it in {below[n]}" for n in sorted(below) if n)
          + " (a link to a whole page targets the page's first section)")
    sections = stats["sections"]
    for target, n in sorted(stats["targets"].items(), key=lambda kv: (-kv[1], sections[kv[0]])):
        page, title = sections[target]
        print(f"  {n}  {page} § {title}")
    print(f"{len(problems)} problems")
    for qid, problem in problems:
        print(f"  {qid}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
