"""Judge-free structural retrieval metrics over exact gold unit ids (beyond TopoGraphRAG-Bench,
which scores retrieval with LLM judges only), and TopoGraphRAG-Bench's own judge-free entity
recall.

The retrieved set is what the generator was shown: the text/table rows (k_t, plus k_tab tables
where set) and the image rows (k_v); "@k" is those budgets. An evidence item is retrieved when any
of its resolved units is among them; its position is its place in the order the prompt presents
the evidence, text rows in rank order then image rows in rank order (``prompt_positions``).

    gold_unit_recall          retrieved gold items / gold items                 every topology
    both_hops                 1 if every hop's evidence item is retrieved, else 0   bridge chains
    ordered_chain             1 if every hop's item is retrieved and each hop comes before or
                              level with the next in the prompt (pos(hop h) <= pos(hop h+1)),
                              else 0                                             bridge chains
    evidence_point_coverage   evidence points whose item is retrieved / points        synthesis
    entity_recall             TopoGraphRAG-Bench's entity recall, as its evaluation code computes
                              it (``evaluation/eval_ragas_retrieval.py``): the bridge entities,
                              each hop's result, every evidence point's data points and the final
                              answer, de-duplicated case-insensitively, found when the item,
                              lower-cased, is a substring of the retrieved context, lower-cased;
                              hits / items, rounded to 4 places
    entity_recall_tokens      ham's looser variant (not the benchmark's number): an item is also
                              found, whitespace-collapsed, between word boundaries, or when all
                              its BM25 tokens occur anywhere in the context

Worked example of ``ordered_chain``: a chain whose hop 1 is a figure and hop 2 a passage, with 15
text rows and 10 image rows retrieved, the passage at text rank 4 and the figure at image rank 1.
The prompt shows T1..T15, then img1..img10: the passage is at position 4, the figure at 16, so
hop 1 comes after hop 2 and the chain is not ordered (0), though both hops are retrieved (1). A
generator reading the prompt in order meets the target hop before the hop that leads to it.

The retrieved context of the entity recalls is the one the judged retrieval metrics read
(``ham.metrics.topology.contexts``): each text row as its heading path and text, each image as
``[IMAGE: ref | caption]``, joined with newlines, as the generator's prompt orders them.

Undefined (None, left out of the mean, the n reported): for a question whose gold evidence is not
fully resolved to units (``evidence_mapping.json`` of the run says which item and why; a partly
resolved gold set would score against the wrong denominator), and for the topologies a metric does
not apply to. A question without gold evidence has no structural metrics. The entity recalls are
None when the question has no item (and need no resolved evidence).
"""
from __future__ import annotations

import re

from ham.metrics.registry import Case, Resources, metric
from ham.metrics.topology import contexts, hop_items, item_rank, prompt_positions, resolved
from ham.text import normalise_ws, tokenize


def _ranks(case: Case) -> dict[str, int]:
    return prompt_positions(case.text, case.images)


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
    """TopoGraphRAG-Bench's ground-truth entities of a question, in its order: bridge entities, hop
    results, data points, the final answer; de-duplicated case-insensitively, empty ones dropped.
    A single-hop record has an ``answer`` but no ``final_answer``, and the benchmark reads only the
    latter, so a single-hop question has no items (entity recall undefined, as there)."""
    q = case.question
    items = [*q.bridge_entities, *(h.result for h in q.hops),
             *(d for p in q.evidence_points for d in p.data_points)]
    if q.answer_short and q.topology != "single_hop":
        items.append(q.answer_short)
    out, seen = [], set()
    for item in (str(i).strip() for i in items if i):
        if item and item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


def retrieved_context(case: Case) -> str:
    return "\n".join(contexts(case.text, case.images))


def benchmark_entity_recall(items: list[str], context: str) -> float | None:
    """TopoGraphRAG-Bench's rule (module docstring)."""
    if not items:
        return None
    lowered = context.lower()
    return round(sum(item.lower() in lowered for item in items) / len(items), 4)


def found_in(item: str, text: str, tokens: set[str]) -> bool:
    """``entity_recall_tokens``'s match rule (module docstring)."""
    needle = normalise_ws(item)
    if needle and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text):
        return True
    own = tokenize([item])[0]
    return bool(own) and set(own) <= tokens


def entity_recall_of(items: list[str], context: str) -> tuple[float | None, list[bool]]:
    """``entity_recall_tokens``: the share of items found, and which."""
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
        description="bridge chains: 1 if every hop is retrieved and each comes before or level with the next in the "
                    "prompt's evidence order (text rows, then images)")
def ordered_chain(case: Case, res: Resources) -> float | None:
    return chain(case, ordered=True)


@metric("evidence_point_coverage", family="retrieval", label="Point cov.@k",
        description="synthesis: share of evidence points whose evidence unit is retrieved")
def evidence_point_coverage(case: Case, res: Resources) -> float | None:
    return point_coverage(case)


@metric("entity_recall", family="retrieval", label="Entity R",
        description="TopoGraphRAG-Bench's entity recall: its ground-truth entities found as case-insensitive "
                    "substrings of the retrieved context")
def entity_recall(case: Case, res: Resources) -> float | None:
    return benchmark_entity_recall(entity_items(case), retrieved_context(case))


@metric("entity_recall_tokens", family="retrieval", label="Entity R (tokens)",
        description="ham's looser entity recall: also found between word boundaries or by all BM25 tokens present")
def entity_recall_tokens(case: Case, res: Resources) -> float | None:
    return entity_recall_of(entity_items(case), retrieved_context(case))[0]
