"""Judge-free structural retrieval metrics over exact gold unit ids (beyond TopoGraphRAG-Bench,
which scores retrieval with LLM judges only), and its entity recall without a judge.

The retrieved set is what the generator was shown: the text/table rows (k_t, plus k_tab tables
where set) and the image rows (k_v), each list in rank order; "@k" is those budgets. An evidence
item is retrieved when any of its resolved units is among them; ranks are positions within each
unit's own list (``ham.metrics.topology``).

    gold_unit_recall          retrieved gold items / gold items                 every topology
    both_hops                 1 if every hop's evidence item is retrieved, else 0   bridge chains
    ordered_chain             1 if every hop's item is retrieved and each hop ranks before or
                              level with the next (rank(hop h) <= rank(hop h+1)), else 0   bridge chains
    evidence_point_coverage   evidence points whose item is retrieved / points        synthesis
    entity_recall             bridge entities, hop results, evidence data points and the short
                              answer found in the retrieved text (below) / their number

Undefined (None, left out of the mean, the n reported): for a question whose gold evidence is not
fully resolved to units (``evidence_mapping.json`` of the run says which item and why; a partly
resolved gold set would score against the wrong denominator), and for the topologies a metric does
not apply to. A question without gold evidence has no structural metrics.

Entity recall's retrieved text is every retrieved row's text and every image's caption, joined.
An item is found when, whitespace-collapsed and lower-cased, it occurs in that text between word
boundaries, or when every one of its BM25 tokens (``ham.text.tokenize``) occurs among the text's
tokens (so "Chapter 11, Capital Gains" is found in "... Chapter 11. Capital Gains ..."). None
when the question has no such item.
"""
from __future__ import annotations

import re

from ham.metrics.registry import Case, Resources, metric
from ham.metrics.topology import hop_items, item_rank, resolved, unit_ranks
from ham.text import normalise_ws, tokenize

def _ranks(case: Case) -> dict[str, int]:
    return unit_ranks(case.text, case.images)


def gold_recall(case: Case) -> float | None:
    q = case.question
    if not resolved(q):
        return None
    ranks = _ranks(case)
    found = [item_rank(q, i, ranks) for i in range(len(q.evidence))]
    return sum(r is not None for r in found) / len(found)


def chain(case: Case, ordered: bool) -> float | None:
    q = case.question
    items = hop_items(q) if q.topology == "bridge_chain" and q.hops else None
    if items is None or not resolved(q):
        return None
    ranks = _ranks(case)
    hop_ranks = [item_rank(q, i, ranks) for i in items]
    if any(r is None for r in hop_ranks):
        return 0.0
    return float(not ordered or all(a <= b for a, b in zip(hop_ranks, hop_ranks[1:])))


def point_coverage(case: Case) -> float | None:
    q = case.question
    if q.topology != "synthesis" or not q.evidence_points or not resolved(q):
        return None
    items = [p.evidence for p in q.evidence_points]
    if any(i is None or not 0 <= i < len(q.evidence) for i in items):
        return None
    ranks = _ranks(case)
    return sum(item_rank(q, i, ranks) is not None for i in items) / len(items)


def entity_items(case: Case) -> list[str]:
    q = case.question
    items = [*q.bridge_entities, *(h.result for h in q.hops),
             *(d for p in q.evidence_points for d in p.data_points)]
    if q.answer_short:
        items.append(q.answer_short)
    return list(dict.fromkeys(i.strip() for i in items if i and i.strip()))


def retrieved_text(case: Case) -> str:
    return "\n".join([*(r.get("text") or "" for r in case.text),
                      *(r.get("caption") or "" for r in case.images), *(r.get("text") or "" for r in case.images)])


def found_in(item: str, text: str, tokens: set[str]) -> bool:
    """The entity-recall match rule (module docstring)."""
    needle = normalise_ws(item)
    if needle and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text):
        return True
    own = tokenize([item])[0]
    return bool(own) and set(own) <= tokens


def entity_recall_of(items: list[str], context: str) -> tuple[float | None, list[bool]]:
    if not items:
        return None, []
    text = normalise_ws(context)
    tokens = set(tokenize([context])[0])
    hits = [found_in(i, text, tokens) for i in items]
    return sum(hits) / len(hits), hits


@metric("gold_unit_recall", family="retrieval", label="Gold R@k",
        description="share of gold evidence items with a unit among the retrieved rows (exact unit ids)")
def gold_unit_recall(case: Case, res: Resources) -> float | None:
    return gold_recall(case)


@metric("both_hops", family="retrieval", label="Both hops@k",
        description="bridge chains: 1 if the evidence of every hop is retrieved (exact unit ids)")
def both_hops(case: Case, res: Resources) -> float | None:
    return chain(case, ordered=False)


@metric("ordered_chain", family="retrieval", label="Ordered chain@k",
        description="bridge chains: 1 if every hop is retrieved and each ranks before or level with the next")
def ordered_chain(case: Case, res: Resources) -> float | None:
    return chain(case, ordered=True)


@metric("evidence_point_coverage", family="retrieval", label="Point cov.@k",
        description="synthesis: share of evidence points whose evidence unit is retrieved")
def evidence_point_coverage(case: Case, res: Resources) -> float | None:
    return point_coverage(case)


@metric("entity_recall", family="retrieval", label="Entity R",
        description="share of bridge entities, hop results, data points and the short answer in the retrieved text")
def entity_recall(case: Case, res: Resources) -> float | None:
    return entity_recall_of(entity_items(case), retrieved_text(case))[0]
