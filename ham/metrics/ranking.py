"""Page-level retrieval metrics: nDCG as trec_eval computes it (ViDoRe's numbers), MMDocIR's page
and layout recall as its ``metric_eval.py`` computes them, and evidence recall through pages.

The ranked pages of a question (``ranked_pages``): the retriever's page ranking when page
retrieval ran (``pages`` options: ``Case.ranking``, the row's ``retrieved_pages``, fused in mode
both, at least ``ham.retrieve.pages.RANKING_DEPTH`` deep whatever ``k_p``, so nDCG@10 and layout recall@10 see ten
pages, not the k_p the prompt shows), else the pages the retrieved units lie on, in the prompt's
evidence order (text rows in rank order, then image rows; a page counts at its first row). So
ham's units alone (``pages=none``) are scored on the same pages.

A passage assembled under a budget (``retrieval=budget``: a row with ``members``) put every
member's text in the prompt, so every member is located (``places``): its pages enter the
ranking at the passage's place, in member (document) order, each new page taking the next rank, and
each member's box is one layout box. The rank positions count pages (and boxes), as the page
ranking's do, so @k compares k pages of either arm and nDCG stays within [0, 1]; the order within a
passage is a tie broken by document order, as trec_eval breaks score ties by document id. A
passage cut to the budget counts the members it shows whole (``ham.metrics.topology.shown_units``),
and one showing none whole its first unit's page. The row itself keeps its first member's ``page``
and ``bbox``; reading only those had credited none of the other members' gold pages or boxes.
Each page is named by its keys (``ham.datasets.pages.page_keys``) and judged by the question's
page judgments (``page_gold``: ViDoRe's graded qrels; 1 per gold page of MMDocIR and
MMLongBench-Doc). A page appearing twice counts once, at its first rank.

    ndcg_5, ndcg_10        nDCG@k with trec_eval's ``ndcg_cut`` (the measure pytrec_eval, MTEB
                           and ViDoRe report): gain = the judged grade, discount log2(rank + 1),
                           DCG@k / ideal DCG@k over the question's grades > 0. A ranking is
                           scored as given; pytrec_eval re-sorts by score and breaks ties by
                           document id, which agrees whenever the scores are distinct
                           (tests/metrics/test_ranking.py checks against pytrec_eval)
    page_recall_1/3/5      MMDocIR's page recall@k: |top-k pages ∩ gold pages| / |gold pages|
    layout_recall_1/5/10   MMDocIR's layout recall@k: the top-k boxes (layout hits of
                           ``pages.level=layout``, else the boxes of the unit rows and their
                           members), for each the intersection area with every gold box on the
                           same page of the same document, summed, over the summed gold areas
                           (not capped at 1, as MMDocIR's ``recall_layout`` does not cap it; 0
                           when the gold boxes' area is 0, as there)
    page_evidence_recall   gold evidence items found / items, an item found when one of its
                           units is a retrieved row or lies on a page the generator saw (the k_p
                           shown, not the deeper ranking): the units' and the pages' arms on one
                           scale

nDCG and page recall of a question whose page judgments are all grade 0 (judged, none relevant:
ViDoRe qrels can be) are 0, as pytrec_eval's ndcg_cut (and so MTEB's mean) and MMDocIR's code
score it. Undefined (None, left out of the mean, n reported): nDCG and page recall for a question
with no page judgment at all (a ViDoRe query without a qrels row); layout recall without a gold box; evidence recall without fully
resolved gold evidence. MMDocIR ranks within the question's document; a ham run ranks over the
whole corpus (docs/visual_retrieval.md).
"""
from __future__ import annotations

import math

from ham.datasets.evidence import area, doc_key, intersection
from ham.datasets.pages import page_gold, page_keys
from ham.metrics.registry import Case, Resources, metric
from ham.metrics.topology import resolved, shown_units

# none deeper than ham.retrieve.pages.RANKING_DEPTH, the ranking page retrieval keeps beside the k_p pages it shows
# (a deeper k would score the pages past it as misses; tests/metrics/test_ranking.py checks it)
NDCG_KS, PAGE_RECALL_KS, LAYOUT_RECALL_KS = (5, 10), (1, 3, 5), (1, 5, 10)


def places(row: dict) -> list[tuple[str, int, list | None]]:
    """(doc id, 0-based page, box or None) of what a row shows, in member order: an assembled
    passage (``member_pages``) by each member it shows whole, any other row by its own page and box
    (module docstring)."""
    if row.get("doc_id") is None:
        return []
    spots = row.get("member_pages") or [row]
    return [(str(row["doc_id"]), int(s["page"]) - 1, s.get("bbox") or None) for s in spots if s.get("page") is not None]


def ranked_rows(case: Case) -> list[dict]:
    """The rows whose pages are ranked (module docstring)."""
    return list(case.ranking or case.pages) or [*case.text, *case.images]


def ranked_pages(case: Case) -> list[tuple[str, int]]:
    """(doc id, 0-based page) in rank order, each once."""
    out: list[tuple[str, int]] = []
    for row in ranked_rows(case):
        for doc, page, _ in places(row):
            if (doc, page) not in out:
                out.append((doc, page))
    return out


def gains(case: Case, k: int) -> tuple[list[int], dict[str, int]]:
    """The grade at each of the first ``k`` ranked pages (0 when not judged relevant; a gold key
    already credited earns nothing again) and the judgments."""
    gold = page_gold(case.question)
    credited: set[str] = set()
    out = []
    for doc, page in ranked_pages(case)[:k]:
        keys = [key for key in page_keys(doc, page) if key in gold and key not in credited]
        best = max(keys, key=lambda key: gold[key], default=None)
        if best is None:
            out.append(0)
            continue
        credited.update(keys)
        out.append(gold[best])
    return out, gold


def ndcg_at(case: Case, k: int) -> float | None:
    got, gold = gains(case, k)
    ideal = sorted((g for g in gold.values() if g > 0), reverse=True)[:k]
    if not ideal:
        return 0.0 if gold else None   # judged, none relevant: trec_eval's 0
    dcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(got, 1))
    return dcg / sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, 1))


def page_recall_at(case: Case, k: int) -> float | None:
    got, gold = gains(case, k)
    relevant = sum(1 for g in gold.values() if g > 0)
    if not relevant:
        return 0.0 if gold else None
    return sum(1 for g in got if g > 0) / relevant


def gold_boxes(case: Case) -> list[tuple[str, int, list[float]]]:
    return [(doc_key(item.doc), item.page, item.bbox) for item in case.question.evidence
            if item.bbox is not None and item.page is not None and item.doc is not None]


def layout_recall_at(case: Case, k: int) -> float | None:
    gold = gold_boxes(case)
    if not gold:
        return None
    total = sum(area(box) for _, _, box in gold)
    if total <= 0:
        return 0.0   # MMDocIR's recall_layout: 0 when the gold area is 0, and the question kept
    boxes = [place for row in ranked_rows(case) for place in places(row) if place[2]][:k]
    covered = 0.0
    for doc, page, bbox in boxes:
        names = {doc_key(doc), doc_key(doc.rsplit("/", 1)[-1])}
        covered += sum(intersection(bbox, box) for gdoc, gpage, box in gold if gdoc in names and gpage == page)
    return covered / total


def page_evidence_recall(case: Case) -> float | None:
    q = case.question
    if not resolved(q):
        return None
    found = {uid for row in [*case.text, *case.images] for uid in shown_units(row)}
    for row in case.pages:
        found.update(row.get("units", ()))
    return sum(1 for item in q.evidence if found & set(item.units)) / len(q.evidence)


def _register() -> None:
    for k in NDCG_KS:
        metric(f"ndcg_{k}", family="retrieval", label=f"nDCG@{k}",
               description=f"nDCG@{k} over ranked pages, trec_eval's ndcg_cut (graded page judgments)")(
            lambda case, res, k=k: ndcg_at(case, k))
    for k in PAGE_RECALL_KS:
        metric(f"page_recall_{k}", family="retrieval", label=f"PageR@{k}",
               description=f"MMDocIR page recall@{k}: gold pages among the top {k} ranked pages")(
            lambda case, res, k=k: page_recall_at(case, k))
    for k in LAYOUT_RECALL_KS:
        metric(f"layout_recall_{k}", family="retrieval", label=f"LayoutR@{k}",
               description=f"MMDocIR layout recall@{k}: gold box area covered by the top {k} boxes")(
            lambda case, res, k=k: layout_recall_at(case, k))


_register()


@metric("page_evidence_recall", family="retrieval", label="EvR(pages)",
        description="gold evidence items retrieved as a row or lying on a retrieved page / items")
def _page_evidence_recall(case: Case, res: Resources) -> float | None:
    return page_evidence_recall(case)
