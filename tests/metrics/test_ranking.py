"""Page metrics against their references: nDCG@5/@10 against pytrec_eval (trec_eval's ndcg_cut,
the measure ViDoRe and MTEB report) on a graded fixture, MMDocIR's page and layout recall as its
metric_eval.py defines them, and evidence recall through pages."""
from __future__ import annotations

import numpy as np
import pytest

from ham.datasets.questions import Evidence, Question
from ham.metrics.ranking import layout_recall_at, ndcg_at, page_evidence_recall, page_recall_at, ranked_pages
from ham.metrics.registry import Case


def _page_row(doc: str, page: int, score: float = 0.0, units=()) -> dict:
    return {"page_id": f"{doc}#p{page}", "doc_id": doc, "page": page + 1, "score": score, "units": list(units)}


def _case(qrels: dict[str, int], pages=(), text=(), images=(), evidence=()) -> Case:
    q = Question(id="q", question="?", evidence=list(evidence), meta={"page_qrels": qrels})
    return Case(q, list(text), list(images), None, pages=list(pages))


@pytest.fixture(scope="module")
def graded_fixture():
    """30 queries over 40 pages of 4 documents: 1-6 judged pages each, grades 0-3 (0 = judged
    not relevant), and a ranking of 15 pages with distinct scores (some judged, some not)."""
    rng = np.random.default_rng(11)
    docs = [(f"doc{d}", p) for d in range(4) for p in range(10)]
    qrels, runs = {}, {}
    for qi in range(30):
        judged = rng.choice(len(docs), size=int(rng.integers(1, 7)), replace=False)
        grades = rng.integers(0, 4, size=len(judged))
        if not grades.any():
            grades[0] = 1
        qrels[f"q{qi}"] = {f"{docs[j][0]}#{docs[j][1]}": int(g) for j, g in zip(judged, grades)}
        ranked = rng.permutation(len(docs))[:15]
        scores = np.sort(rng.random(15))[::-1] + np.arange(15)[::-1]    # distinct, decreasing
        runs[f"q{qi}"] = [(docs[j], float(s)) for j, s in zip(ranked, scores)]
    return qrels, runs


def test_ndcg_agrees_with_pytrec_eval(graded_fixture):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the dev extra) is the reference")
    qrels, runs = graded_fixture
    run = {q: {f"{d}#{p}": s for (d, p), s in ranked} for q, ranked in runs.items()}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10"}).evaluate(run)
    compared = 0
    for q, ranked in runs.items():
        case = _case(qrels[q], pages=[_page_row(d, p, s) for (d, p), s in ranked])
        for k in (5, 10):
            assert ndcg_at(case, k) == pytest.approx(reference[q][f"ndcg_cut_{k}"], abs=1e-9), (q, k)
            compared += 1
    assert compared == 60
    assert 0 < np.mean([reference[q]["ndcg_cut_10"] for q in runs]) < 1   # a fixture that discriminates


def test_ndcg_counts_a_page_once_and_undefined_without_a_judgment():
    once = _case({"d#0": 1}, pages=[_page_row("d", 0), _page_row("d", 0), _page_row("d", 1)])
    assert ranked_pages(once) == [("d", 0), ("d", 1)] and ndcg_at(once, 5) == 1.0
    assert ndcg_at(_case({}, pages=[_page_row("d", 0)]), 5) is None                  # no judgment at all
    late = _case({"d#1": 1}, pages=[_page_row("d", 0), _page_row("d", 1)])
    assert ndcg_at(late, 5) == pytest.approx(1 / np.log2(3))


def test_units_alone_are_ranked_by_the_pages_they_lie_on_in_prompt_order():
    text = [{"unit_id": "a", "doc_id": "documents/rep", "page": 3}, {"unit_id": "b", "doc_id": "documents/rep", "page": 3},
            {"unit_id": "c", "doc_id": "documents/rep", "page": 1}]
    images = [{"unit_id": "i", "doc_id": "documents/rep", "page": 5}]
    case = _case({"rep#0": 1, "rep#4": 2}, text=text, images=images)
    assert ranked_pages(case) == [("documents/rep", 2), ("documents/rep", 0), ("documents/rep", 4)]
    ideal = 2 + 1 / np.log2(3)
    assert ndcg_at(case, 5) == pytest.approx((1 / np.log2(3) + 2 / np.log2(4)) / ideal)


def mmdocir_recall(retrieved: list[int], ground_truth: list[int]) -> float:
    """MMDocIR metric_eval.py's ``recall``: set intersection over the gold pages."""
    return len(set(retrieved) & set(ground_truth)) / len(ground_truth) if ground_truth else 0


def test_page_recall_is_mmdocirs():
    rng = np.random.default_rng(12)
    for _ in range(50):
        gold = list(rng.choice(20, size=int(rng.integers(1, 4)), replace=False))
        ranking = list(rng.permutation(20))
        case = _case({f"doc#{p}": 1 for p in gold}, pages=[_page_row("doc", int(p)) for p in ranking])
        for k in (1, 3, 5):
            assert page_recall_at(case, k) == pytest.approx(mmdocir_recall([int(p) for p in ranking[:k]], gold))


def test_layout_recall_is_mmdocirs_overlap_over_gold_area():
    gold = [Evidence(doc="rep.pdf", page=2, bbox=[0, 0, 100, 100]), Evidence(doc="rep.pdf", page=3, bbox=[0, 0, 10, 10])]
    rows = [{"unit_id": "a", "doc_id": "rep", "page": 3, "bbox": [50, 50, 150, 150]},   # 2,500 of page 2's box
            {"unit_id": "b", "doc_id": "rep", "page": 3, "bbox": [0, 0, 100, 20]},      # 2,000 more
            {"unit_id": "c", "doc_id": "other", "page": 3, "bbox": [0, 0, 100, 100]},   # another document
            {"unit_id": "d", "doc_id": "rep", "page": 4, "bbox": [0, 0, 10, 10]}]       # page 3's box, whole
    case = _case({}, text=rows, evidence=gold)
    total = 100 * 100 + 10 * 10
    assert layout_recall_at(case, 1) == pytest.approx(2500 / total)
    assert layout_recall_at(case, 2) == pytest.approx(4500 / total)
    assert layout_recall_at(case, 10) == pytest.approx(4600 / total)
    assert layout_recall_at(_case({}, text=rows), 5) is None


def test_evidence_recall_counts_units_on_retrieved_pages():
    evidence = [Evidence(doc="d", units=["d:1"]), Evidence(doc="d", units=["d:7"]), Evidence(doc="d", units=["d:9"])]
    pages_only = _case({}, pages=[_page_row("d", 0, units=["d:1", "d:2"]), _page_row("d", 1, units=["d:7"])],
                       evidence=evidence)
    assert page_evidence_recall(pages_only) == pytest.approx(2 / 3)
    rows = _case({}, text=[{"unit_id": "d:9", "doc_id": "d", "page": 3}], evidence=evidence)
    assert page_evidence_recall(rows) == pytest.approx(1 / 3)
    assert page_evidence_recall(_case({}, evidence=[Evidence(doc="d")])) is None   # not resolved


def test_ranking_metrics_read_the_retrievers_ranking_and_evidence_recall_the_pages_shown():
    shown = [_page_row("d", p, units=[f"d:{p}"]) for p in range(5)]
    ranking = shown + [_page_row("d", p, units=[f"d:{p}"]) for p in range(5, 10)]
    q = Question(id="q", question="?", evidence=[Evidence(doc="d", units=["d:6"])], meta={"page_qrels": {"d#6": 1}})
    case = Case(q, [], [], None, pages=shown, ranking=ranking)
    assert ndcg_at(case, 10) == pytest.approx(1 / np.log2(8)) and ndcg_at(case, 5) == 0.0
    assert page_evidence_recall(case) == 0.0                     # page 7 was ranked, never shown


def test_page_retrieval_ranks_as_deep_as_the_deepest_ranking_metric():
    from ham.metrics.ranking import LAYOUT_RECALL_KS, NDCG_KS, PAGE_RECALL_KS
    from ham.retrieve.pages import RANKING_DEPTH

    assert max(NDCG_KS + PAGE_RECALL_KS + LAYOUT_RECALL_KS) <= RANKING_DEPTH


def test_a_judged_question_with_no_relevant_page_scores_0_as_pytrec_eval_does():
    """ViDoRe qrels can judge a query's pages all grade 0: pytrec_eval (and MTEB's mean over
    queries) scores it 0; leaving it out raised the mean and lowered n."""
    import pytrec_eval

    qrels = {"q1": {"d#0": 1}, "q2": {"d#1": 0}}
    run = {q: {"d#0": 2.0, "d#1": 1.0} for q in qrels}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5"}).evaluate(run)
    rows = [_page_row("d", 0), _page_row("d", 1)]
    for qid, judged in qrels.items():
        assert ndcg_at(_case(judged, pages=rows), 5) == pytest.approx(ref[qid]["ndcg_cut_5"])
    assert ref["q2"]["ndcg_cut_5"] == 0.0 and page_recall_at(_case(qrels["q2"], pages=rows), 5) == 0.0
    assert page_recall_at(_case({}, pages=rows), 5) is None


def _two_page_section():
    """A report section whose two text units lie on pages 0 and 1, each with its layout box."""
    from ham.ingest.builder import Block, TreeBuilder
    from ham.units import build_units

    b = TreeBuilder("rep", "Report", "rep.pdf", "pdf")
    b.add(Block("heading", "1. Results", level=1, page=0))
    b.add(Block("text", "Wind supplied 40 percent of the grid.", page=0, meta={"bbox": [10, 10, 500, 60]}))    # rep:2
    b.add(Block("text", "Solar grew to 12 GW by the end of the year.", page=1, meta={"bbox": [10, 100, 500, 160]}))  # rep:3
    b.add(Block("text", "Storage doubled.", page=2, meta={"bbox": [10, 10, 300, 40]}))                       # rep:4
    return {u.unit_id: u for u in build_units(b.finish())}


def test_a_budget_passage_is_credited_with_every_members_page_and_box():
    """retrieval=budget joins units into one row that keeps its first member's page and box; the
    gold page and box of its second member were in the prompt and must be credited."""
    from ham.retrieve.budget import Passage, passage_unit
    from ham.retrieve.retriever import Hit

    units = _two_page_section()
    passage = passage_unit(Passage(section="rep:1", role="section", score=1.0, members=["rep:3", "rep:2"]), units)
    row = Hit(passage, 1.0, 1).to_row()
    assert (row["unit_id"], row["page"], row["bbox"]) == ("rep:2+1", 1, [10, 10, 500, 60])   # the row as before
    assert row["member_pages"] == [{"unit_id": "rep:2", "page": 1, "bbox": [10, 10, 500, 60]},
                                   {"unit_id": "rep:3", "page": 2, "bbox": [10, 100, 500, 160]}]
    after = Hit(units["rep:4"], 0.5, 2).to_row()
    gold = [Evidence(doc="rep.pdf", page=1, bbox=[10, 100, 500, 160])]
    case = _case({"rep#1": 1}, text=[row, after], evidence=gold)
    # the passage's pages at its place, in member order, each taking the next rank; then the next row's
    assert ranked_pages(case) == [("rep", 0), ("rep", 1), ("rep", 2)]
    assert page_recall_at(case, 1) == 0.0 and page_recall_at(case, 3) == 1.0
    assert ndcg_at(case, 5) == pytest.approx(1 / np.log2(3))
    assert layout_recall_at(case, 1) == 0.0 and layout_recall_at(case, 5) == pytest.approx(1.0)


def test_a_passage_cut_to_the_budget_is_located_by_the_members_it_shows_whole():
    from ham.retrieve.budget import Passage, passage_unit
    from ham.retrieve.retriever import Hit

    units = _two_page_section()
    shown = units["rep:2"].content + "\nSolar grew …"
    cut = passage_unit(Passage(section="rep:1", role="section", score=1.0, members=["rep:2", "rep:3"]), units, text=shown)
    row = Hit(cut, 1.0, 1).to_row()
    assert row["members"] == ["rep:2"] and [m["page"] for m in row["member_pages"]] == [1]
    case = _case({"rep#1": 1}, text=[row], evidence=[Evidence(doc="rep.pdf", page=1, bbox=[10, 100, 500, 160])])
    assert ranked_pages(case) == [("rep", 0)] and page_recall_at(case, 5) == 0.0 and layout_recall_at(case, 5) == 0.0


def test_layout_recall_of_gold_boxes_without_area_is_0_as_mmdocirs():
    """MMDocIR's recall_layout returns 0.0 when the gold area is 0 and the mean keeps the question."""
    flat = [Evidence(doc="rep.pdf", page=0, bbox=[10, 10, 10, 80])]
    rows = [{"unit_id": "a", "doc_id": "rep", "page": 1, "bbox": [0, 0, 100, 100]}]
    assert layout_recall_at(_case({}, text=rows, evidence=flat), 5) == 0.0
    assert layout_recall_at(_case({}, text=rows, evidence=[Evidence(doc="rep.pdf", page=0)]), 5) is None   # no box
