#!/usr/bin/env python3
"""Check the gold of the check set (``questions.jsonl``) against ham's ingest of its manual.

    python3 data/devcheck/check.py        # after python3 data/devcheck/fetch.py; exit 1 on any problem

The same rules as ``tests/support/devbench_gold.py`` (this file does not import it, so that the
two can change apart), on ``ham.ingest.ingest_corpus("data/devcheck/corpus/<manual>")``:

* every ``gold_text`` passage is 20-280 characters and, after collapsing whitespace and
  lower-casing (``ham.text.normalise_ws``), a substring of exactly one text or table unit of the
  question's ``gold_pages``, the units a run retrieves as text: those of the default ``units``
  option (``ham/conf/config.yaml``; blocks, figure captions on their images), so a passage can
  neither be missing nor ambiguous on its page, nor only in a caption that no text unit holds;
* every ``gold_images`` entry is an image leaf's reference on a gold page, and the images the
  reference answer shows (``![alt](REF)``) are exactly ``gold_images``; ``screenshot`` questions
  have gold images, ``text_only`` ones none;
* every ``gold_pages`` entry holds a gold passage or a gold image;
* every ``gold_headings`` entry is the title of a section on the path of a unit holding a passage;
* ``parent_general``: one passage lies in an ancestor of another passage's section, its parent or
  grandparent. On one page that is ham's section tree; across pages it is ham's page tree (the
  pages whose sections enclose the other passage's page, nearest first, as the ingest nests them:
  the first passage's page is the parent or grandparent page of the other's). The page rule is
  needed because ham's current tree puts a texinfo page's own text in a section beside, not above,
  its child pages (see README.md); the strict section-tree count is printed as a note;
* ``tutorial``: the passages lie in at least two different sections.

Only the standard library and ham are used.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = {"near_twin", "procedure", "parent_child", "parent_general", "tutorial", "screenshot", "text_only"}
FIELDS = ("id", "manual", "question", "kinds", "reference_answer", "gold_text", "gold_images",
          "gold_pages", "gold_headings")
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def load_questions(path: Path = HERE / "questions.jsonl") -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def default_units():
    """The ``units`` option a run gets unless told otherwise, built (``units=blocks``)."""
    from ham.conf import compose, instantiate_optional

    return instantiate_optional(compose([], return_hydra_config=False).units)


def ingest(manual: str, corpus: Path, units=None):
    """page -> [(normalised text, [(section id, title, page)] outermost first)] of the text and
    table units of ``units`` (the default option's when None), page -> image refs of the image
    leaves, page -> [(normalised content, image ref)] of the image units (where a caption goes)."""
    from ham.ingest import ingest_corpus
    from ham.text import normalise_ws

    docs, _ = ingest_corpus(corpus / manual)
    units = units or default_units()
    docs = units.documents(docs)
    source = {n.id: n.source for doc in docs for path in doc.paths().values() for n in path}
    texts: dict[str, list] = defaultdict(list)
    images: dict[str, set] = defaultdict(set)
    captions: dict[str, list] = defaultdict(list)
    for doc in docs:
        for leaf in doc.leaves():
            if leaf.kind == "image" and leaf.image:
                images[f"{manual}/{leaf.source}"].add(leaf.image)
    for unit in units.build(docs):
        page = f"{manual}/{unit.source}"
        if unit.kind in ("text", "table") and unit.modality == "text":
            chain = [(n["id"], normalise_ws(n["title"] or ""), f"{manual}/{source.get(n['id'], unit.source)}")
                     for n in unit.path if n["kind"] in ("section", "subsection")]
            texts[page].append((normalise_ws(unit.content), chain))
        elif unit.modality == "image":
            captions[page].append((normalise_ws(unit.content), unit.image))
    return texts, images, captions


def pages_above(chain: list[tuple[str, str, str]]) -> list[str]:
    """The distinct pages of a leaf's enclosing sections, nearest first, its own page excluded."""
    pages = list(dict.fromkeys(page for _, _, page in chain))
    return pages[::-1][1:]


def well_formed(rows: list[dict], corpus: Path, ingest, fields, fetch: str, problems: list):
    """(row, id, the ingest of its manual) for each question with every field of ``fields``, an id
    ``<manual>-NNN`` and its manual's corpus present; the problems of the others (and of ids used
    twice) are appended to ``problems``. ``ingest(manual, corpus)`` is called once per manual.
    data/devlinks/check.py shares this."""
    cache: dict[str, tuple] = {}
    for qid, n in Counter(r.get("id") for r in rows).items():
        if n > 1:
            problems.append((str(qid), f"id used {n} times"))
    for row in rows:
        qid = row.get("id", "?")
        missing = [f for f in fields if f not in row]
        if missing:
            problems.append((qid, f"missing fields {missing}"))
            continue
        manual = row["manual"]
        if not re.fullmatch(rf"{re.escape(manual)}-\d{{3}}", qid):
            problems.append((qid, f"id is not {manual}-NNN"))
        if manual not in cache:
            if not (corpus / manual).is_dir():
                problems.append((qid, f"no corpus {corpus / manual} (python3 {fetch})"))
                continue
            cache[manual] = ingest(manual, corpus)
        yield row, qid, cache[manual]


def check(rows: list[dict], corpus: Path = HERE / "corpus") -> tuple[list[tuple[str, str]], dict]:
    from ham.text import normalise_ws

    problems: list[tuple[str, str]] = []
    stats: Counter = Counter()
    for row, qid, (texts, images, captions) in well_formed(rows, corpus, ingest, FIELDS, "data/devcheck/fetch.py",
                                                          problems):
        kinds = row["kinds"]
        if set(kinds) - KINDS:
            problems.append((qid, f"unknown kinds {sorted(set(kinds) - KINDS)}"))
        gold_images = row["gold_images"]
        if ("screenshot" in kinds) != bool(gold_images) or ("text_only" in kinds) == bool(gold_images):
            problems.append((qid, "screenshot/text_only does not agree with gold_images"))
        shown = set(_IMAGE.findall(row["reference_answer"]))
        if shown != set(gold_images):
            problems.append((qid, f"the reference answer shows {sorted(shown)}, gold_images are {sorted(gold_images)}"))
        pages = row["gold_pages"]
        for page in pages:
            if page not in texts and page not in images:
                problems.append((qid, f"gold page {page} is not in the ingest"))
        used_pages = set()
        for image in gold_images:
            stats["images"] += 1
            where = [p for p in pages if image in images.get(p, ())]
            if not where:
                problems.append((qid, f"gold image {image} is no image leaf on its gold pages"))
            used_pages.update(where)
        chains = []
        for passage in row["gold_text"]:
            stats["passages"] += 1
            if not 20 <= len(passage) <= 280:
                problems.append((qid, f"passage of {len(passage)} characters: {passage[:60]!r}"))
            needle = normalise_ws(passage)
            hits = [(p, chain) for p in pages for text, chain in texts.get(p, []) if needle in text]
            if not hits:
                elsewhere = [p for p, leaves in texts.items() if any(needle in t for t, _ in leaves)]
                shown = [image for p in pages for t, image in captions.get(p, []) if needle in t]
                where = (f" (only on image unit {shown[0]}: a caption, which no text unit holds)" if shown else
                         f" (but on {', '.join(elsewhere[:3])})" if elsewhere else "")
                problems.append((qid, f"passage in no text unit of its gold pages{where}: {passage[:70]!r}"))
                continue
            if len(hits) > 1:
                problems.append((qid, f"passage matches {len(hits)} text units on its gold pages: {passage[:70]!r}"))
            page, chain = hits[0]
            used_pages.add(page)
            chains.append((page, chain))
        for page in pages:
            if page not in used_pages:
                problems.append((qid, f"gold page {page} holds no gold passage or image"))
        titles = {title for _, chain in chains for _, title, _ in chain}
        for heading in row["gold_headings"]:
            stats["headings"] += 1
            if normalise_ws(heading) not in titles:
                problems.append((qid, f"gold heading {heading!r} is on no gold leaf's path"))
        own = [chain[-1][0] if chain else None for _, chain in chains]
        if "parent_general" in kinds:
            stats["parent_general"] += 1
            ok, strict = False, False
            for i, (page_i, chain_i) in enumerate(chains):
                for j, (page_j, chain_j) in enumerate(chains):
                    if i == j or own[i] is None or own[j] is None:
                        continue
                    above = [sid for sid, _, _ in chain_j[-3:-1]]
                    if own[i] in above:          # devbench's rule, on ham's section tree
                        ok = strict = True
                    elif page_i != page_j and page_i in pages_above(chain_j)[:2]:
                        ok = True                # the parent or grandparent page
            stats["parent_general_strict"] += strict
            if not ok:
                problems.append((qid, "parent_general: no passage in the parent or grandparent (section or "
                                      "page) of another passage's section"))
        if "tutorial" in kinds and len({tuple(c) for _, c in chains}) < 2:
            problems.append((qid, "tutorial: the passages do not span two sections"))
    return problems, stats


def main(questions: Path = HERE / "questions.jsonl", corpus: Path = HERE / "corpus") -> int:
    """Check ``questions`` against the manuals under ``corpus`` and print the summary; data/devpdf's
    check.py calls it with its own folder's."""
    rows = load_questions(questions)
    problems, stats = check(rows, corpus)
    kinds = Counter(k for r in rows for k in r.get("kinds", []))
    print(f"{len(rows)} questions; kinds: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print(f"{stats['passages']} gold passages, {stats['images']} gold image references, "
          f"{stats['headings']} gold headings, {len({p for r in rows for p in r.get('gold_pages', [])})} gold pages")
    print(f"parent_general: {stats['parent_general']} questions, {stats['parent_general_strict']} of them "
          "also hold on ham's section tree alone (devbench's rule)")
    print(f"{len(problems)} problems")
    for qid, problem in problems:
        print(f"  {qid}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
