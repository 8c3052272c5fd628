"""Plain golds checked against the corpus before a run scores anything.

A gold image (``gold_images``), passage (``gold_text``) or page (``gold_pages``) that matches
nothing in the ingested corpus scores 0 on its metric for every system: a typo, or a path written
relative to another folder than the source's own reference, lowers every mean with no sign of it.
``gold_problems`` names each one; the run records them in ``run.json`` (``gold_problems``) and
warns. They are still scored, as the dataset asks (a gold that cannot be found is a miss), so the
numbers stay comparable with other tools, but never silently.

The rules are the metrics' own: an image by the reference its source writes (IR, Img-P/R/F1
compare these), unless a gold evidence item names it (MMDocRAG's crops of MMDocIR layouts): the
metrics match that one through the units the item resolves to, and the run's evidence mapping
(``evidence_mapping.json``) names an item that resolves to none; a passage inside a text unit
after whitespace and case normalisation (gold-text recall reads text units only, so a passage
held only by an image unit's caption is named as such); a page by a unit's source file or
document id.

Page judgments (``ham.datasets.pages.page_gold``: ViDoRe's qrels, MMDocIR's and MMLongBench-Doc's
pages) name a page by its document's file name alone; two documents of the corpus with one file
name in two folders both answer to such a key, so a page of the wrong one is credited. Each name a
judgment uses that two documents share is named (``page_gold_problems``).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from ham.datasets.pages import page_gold, page_gold_problems
from ham.datasets.questions import Question
from ham.text import normalise_ws
from ham.units import EvidenceUnit

SEPARATOR = "\x00"   # never inside a normalised passage, so no match spans two units


def gold_problems(questions: Sequence[Question], units: Iterable[EvidenceUnit]) -> list[str]:
    units = list(units)
    images = {u.image for u in units if u.modality == "image" and u.image}
    pages = {u.source for u in units} | {u.doc_id for u in units}
    texts = SEPARATOR.join(normalise_ws(u.content) for u in units if u.modality == "text")
    captions = SEPARATOR.join(normalise_ws(u.content) for u in units if u.modality == "image")
    problems = []
    for q in questions:
        by_evidence = {item.image for item in q.evidence if item.image}
        for image in q.gold_images:
            if image not in images and image not in by_evidence:
                problems.append(f"{q.id}: gold image {image!r} is no image of the corpus (as its source "
                                "references it)")
        for passage in q.gold_text:
            wanted = normalise_ws(passage)
            if wanted and wanted not in texts:
                where = "only in an image's caption, " if wanted in captions else ""
                problems.append(f"{q.id}: gold passage {_short(passage)!r} is in no text unit ({where}never "
                                "retrieved as text)")
        for page in q.gold_pages:
            if page not in pages:
                problems.append(f"{q.id}: gold page {page!r} is no source file or document of the corpus")
    judged = {key.rsplit("#", 1)[0] for q in questions for key in page_gold(q)}
    if judged:
        problems += page_gold_problems((u.doc_id for u in units), judged)
    return problems


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
