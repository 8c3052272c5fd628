"""MMDocRAG's quote selection precision / recall / F1 (``eval_all.py``'s ``get_scores``), per
question, defined on MMDocRAG questions (gold quote ids in ``meta["gold_quotes"]``, e.g.
``["image3", "text4"]``; ``ham.datasets.mmdocrag``).

Cited quotes. MMDocRAG reads ``[N]`` as ``textN`` and ``(imageN)`` as ``imageN`` in answers
written over its candidate quotes (``cited_quotes``). A ham answer is written over retrieved
units instead, so each citation is mapped back to a quote id:

    [N] or [TN]     the N-th text block the generator was shown (``[T1]`` ... in ham's prompts);
                    its quote is the gold text quote whose resolved units hold that unit
    an image shown  its quote is the gold image quote whose resolved units hold the image's
                    unit, else the candidate image quote (``meta["img_quotes"]``) whose
                    ``img_path`` names the same file
    anything else   a citation of a non-gold unit or quote: it counts against precision under
                    its own name (``unit:<id>``), as a wrong quote would

With G the gold quote ids and P the cited ones (sets): precision = |G∩P| / |P|, recall =
|G∩P| / |G|, F1 their harmonic mean; each 0 when its denominator is 0 (MMDocRAG's rule, also for
G = ∅). A failed generation cites nothing and scores 0. Questions without ``gold_quotes`` (other
datasets): None.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from ham.metrics.registry import Case, Resources, metric

_TEXT_CITE = re.compile(r"\[\s*T?(\d+)\s*\]", re.IGNORECASE)


def quote_prf(gold, predicted) -> tuple[float, float, float]:
    """MMDocRAG's per-question precision, recall and F1 over quote id sets."""
    g, p = set(gold), set(predicted)
    tp = len(g & p)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _gold_quotes(case: Case) -> list[str] | None:
    gold = case.question.meta.get("gold_quotes")
    return [str(g) for g in gold] if isinstance(gold, list) else None


def cited(case: Case, gold: list[str]) -> list[str]:
    """The quote ids a ham answer cites (module docstring), in order, without repeats."""
    answer = case.answer
    if answer is None:
        return []
    meta = case.question.meta
    candidates = [q for key in ("text_quotes", "img_quotes") for q in meta.get(key) or [] if isinstance(q, dict)]
    known = {str(q.get("quote_id")) for q in candidates}
    # the reader keeps one Evidence per gold quote that is among the candidates, in gold order
    kept = [g for g in gold if g in known]
    by_unit: dict[str, str] = {}
    if len(kept) == len(case.question.evidence):
        for qid, item in zip(kept, case.question.evidence):
            for unit in item.units:
                by_unit.setdefault(unit, qid)
    by_file = {PurePosixPath(str(q["img_path"])).name: str(q.get("quote_id"))
               for q in meta.get("img_quotes") or [] if isinstance(q, dict) and q.get("img_path")}
    out: list[str] = []
    for seg in answer.segments:
        if seg.type == "text":
            for n in _TEXT_CITE.findall(seg.text):
                index = int(n) - 1
                unit = case.text[index].get("unit_id") if 0 <= index < len(case.text) else None
                out.append(by_unit.get(unit) or (f"unit:{unit}" if unit else f"text-block:{n}"))
        elif seg.image:
            quote = by_unit.get(seg.unit_id) or by_file.get(PurePosixPath(seg.image).name)
            out.append(quote or f"unit:{seg.unit_id or seg.image}")
    return list(dict.fromkeys(out))


def _prf(case: Case) -> tuple[float, float, float] | None:
    gold = _gold_quotes(case)
    if gold is None:
        return None
    return quote_prf(gold, cited(case, gold))


@metric("quote_precision", label="Quote-P", scale=100,
        description="MMDocRAG quote selection precision: cited gold quotes / cited quotes")
def quote_precision(case: Case, res: Resources) -> float | None:
    prf = _prf(case)
    return None if prf is None else prf[0]


@metric("quote_recall", label="Quote-R", scale=100,
        description="MMDocRAG quote selection recall: cited gold quotes / gold quotes")
def quote_recall(case: Case, res: Resources) -> float | None:
    prf = _prf(case)
    return None if prf is None else prf[1]


@metric("quote_f1", label="Quote-F1", scale=100,
        description="MMDocRAG quote selection F1 (per question, then averaged, as MMDocRAG's final F1)")
def quote_f1(case: Case, res: Resources) -> float | None:
    prf = _prf(case)
    return None if prf is None else prf[2]
