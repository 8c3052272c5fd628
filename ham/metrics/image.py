"""Image metrics on sets of image references (as the source writes them).

Answer-side (Image precision / recall / F1), with G the reference images and P the images the
answer shows, both as sets (an image cited twice counts once):
    precision = |G ∩ P| / |P|,  recall = |G ∩ P| / |G|,  F1 = harmonic mean (0 when P+R = 0)
Empty-set rules:
    G = ∅, P = ∅  ->  P = R = F1 = 1    (nothing to show, nothing shown: correct)
    G = ∅, P ≠ ∅  ->  P = 0, R = 1, F1 = 0
    G ≠ ∅, P = ∅  ->  P = 0, R = 0, F1 = 0
A failed generation has P = ∅ and scores 0 on all three regardless of G.

Retrieval-side IR (image recall of the retained set R): |G ∩ R| / |G|; undefined (None, left out
of the mean, the n reported) when G = ∅.

A gold image that a gold evidence item names and that is resolved to units (``Evidence.units``,
``ham.datasets.evidence``) is matched by those units, not by its reference alone: a retrieved row
or an answer image whose unit is one of them counts as that gold image. MMDocRAG names its gold
images by its own crops (``images/<doc>_imageN.jpg``) while the corpus is MMDocIR's layouts, whose
image references never equal them, so by reference alone IR and Img-P/R/F1 scored 0 whatever was
retrieved or shown. Quote P/R/F1 (``ham.metrics.quotes``) maps units onto quotes the same way.
"""
from __future__ import annotations

from typing import Iterable

from ham.metrics.registry import Case, Resources, metric
from ham.text import normalise_ws


def image_prf(gold: Iterable[str], predicted: Iterable[str]) -> dict[str, float]:
    g, p = set(gold), set(predicted)
    if not g and not p:
        return {"image_precision": 1.0, "image_recall": 1.0, "image_f1": 1.0}
    if not g:
        return {"image_precision": 0.0, "image_recall": 1.0, "image_f1": 0.0}
    hit = len(g & p)
    precision = hit / len(p) if p else 0.0
    recall = hit / len(g)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"image_precision": precision, "image_recall": recall, "image_f1": f1}


def failed_prf() -> dict[str, float]:
    return {"image_precision": 0.0, "image_recall": 0.0, "image_f1": 0.0}


def image_retrieval_recall(gold: Iterable[str], retrieved: Iterable[str]) -> float | None:
    g = set(gold)
    if not g:
        return None
    return len(g & set(retrieved)) / len(g)


def gold_text_recall(gold_passages: Iterable[str], retrieved_texts: Iterable[str]) -> float | None:
    """Share of gold passages contained in at least one retrieved unit after whitespace and case
    normalisation; None when the question has no gold text."""
    gold = [normalise_ws(g) for g in gold_passages if g.strip()]
    if not gold:
        return None
    texts = [normalise_ws(t) for t in retrieved_texts]
    return sum(any(g in t for t in texts) for g in gold) / len(gold)


def gold_by_unit(case: Case) -> dict[str, str]:
    """Unit id -> the gold image reference it shows, for gold images a resolved evidence item names
    (module docstring)."""
    gold = set(case.question.gold_images)
    out: dict[str, str] = {}
    for item in case.question.evidence:
        if item.image in gold:
            for unit in item.units:
                out.setdefault(unit, item.image)
    return out


def _as_gold(image: str | None, unit: str | None, by_unit: dict[str, str]) -> str | None:
    return by_unit.get(unit, image) if unit is not None else image


def retrieved_images(case: Case) -> list[str]:
    """The retrieved image rows' references, a row of a gold image's unit as that gold image."""
    by_unit = gold_by_unit(case)
    return [_as_gold(h.get("image"), h.get("unit_id"), by_unit) for h in case.images]


def answer_images(case: Case) -> list[str]:
    """The answer's image references, an image of a gold image's unit as that gold image (its unit
    the segment's, else that of the retrieved row showing the same reference)."""
    by_unit = gold_by_unit(case)
    if not by_unit:
        return case.answer.images
    row_unit = {h.get("image"): h.get("unit_id") for h in case.images if h.get("image")}
    out = [_as_gold(s.image, s.unit_id or row_unit.get(s.image), by_unit)
           for s in case.answer.segments if s.type == "image" and s.image]
    return list(dict.fromkeys(out))


@metric("ir", family="retrieval", label="IR", description="share of reference images among the k_v retrieved images")
def ir(case: Case, res: Resources) -> float | None:
    return image_retrieval_recall(case.question.gold_images, retrieved_images(case))


@metric("gold_text_recall", family="retrieval", label="Gold-text R",
        description="share of gold passages inside the k_t retrieved text units (of its gold pages, where named)")
def gold_text(case: Case, res: Resources) -> float | None:
    pages = set(case.question.gold_pages)
    # a passage found on another page (a twin tool's page, a tutorial repeating a command) is the
    # wrong evidence: with gold pages named, only their units count
    texts = [h["text"] for h in case.text
             if not pages or ("source" not in h and "doc_id" not in h) or pages & {h.get("source"), h.get("doc_id")}]
    return gold_text_recall(case.question.gold_text, texts)


def _prf(case: Case) -> dict[str, float]:
    return image_prf(case.question.gold_images, answer_images(case)) if case.answer is not None else failed_prf()


@metric("image_precision", label="Img-P", scale=100, description="|G∩P|/|P| over image sets")
def image_precision(case: Case, res: Resources) -> float:
    return _prf(case)["image_precision"]


@metric("image_recall", label="Img-R", scale=100, description="|G∩P|/|G| over image sets")
def image_recall(case: Case, res: Resources) -> float:
    return _prf(case)["image_recall"]


@metric("image_f1", label="Img-F1", scale=100, description="harmonic mean of image precision and recall")
def image_f1(case: Case, res: Resources) -> float:
    return _prf(case)["image_f1"]
