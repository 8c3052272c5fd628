import pytest

from ham.metrics import aggregate
from ham.metrics.image import failed_prf, gold_text_recall, image_prf, image_retrieval_recall


def test_prf_hand_computed():
    # G = {a, b, c}, P = {a, d}: precision 1/2, recall 1/3, F1 = 2*(1/2*1/3)/(1/2+1/3) = 0.4
    m = image_prf(["a", "b", "c"], ["a", "d"])
    assert m["image_precision"] == pytest.approx(0.5)
    assert m["image_recall"] == pytest.approx(1 / 3)
    assert m["image_f1"] == pytest.approx(0.4)


def test_duplicates_count_once():
    assert image_prf(["a"], ["a", "a", "a"]) == {"image_precision": 1.0, "image_recall": 1.0, "image_f1": 1.0}


def test_empty_set_rules():
    assert image_prf([], []) == {"image_precision": 1.0, "image_recall": 1.0, "image_f1": 1.0}
    assert image_prf([], ["a"]) == {"image_precision": 0.0, "image_recall": 1.0, "image_f1": 0.0}
    assert image_prf(["a"], []) == {"image_precision": 0.0, "image_recall": 0.0, "image_f1": 0.0}
    assert failed_prf()["image_f1"] == 0.0


def test_ir():
    assert image_retrieval_recall(["a", "b"], ["b", "c", "d"]) == 0.5
    assert image_retrieval_recall([], ["b"]) is None


def test_gold_text_recall_normalises_whitespace_and_case():
    retrieved = ["Click  the\nReconcile button, then   OK.", "Other"]
    assert gold_text_recall(["click the reconcile button"], retrieved) == 1.0
    assert gold_text_recall(["click the reconcile button", "not there"], retrieved) == 0.5
    assert gold_text_recall([], retrieved) is None
    # the gold passage is normalised as well: written with its own case and line breaks
    assert gold_text_recall(["Click the\nReconcile  Button"], retrieved) == 1.0


def test_gold_text_recall_credits_a_passage_only_on_the_questions_gold_pages():
    from ham.datasets.questions import Question
    from ham.metrics.image import gold_text
    from ham.metrics.registry import Case, Resources

    twin = {"text": "Press E to edit the item.", "source": "eeschema.html", "doc_id": "eeschema"}
    own = {"text": "Press E to edit the item.", "source": "pcbnew.html", "doc_id": "pcbnew"}
    q = Question("q", "How do I edit a footprint?", gold_text=["Press E to edit the item."],
                 gold_pages=["pcbnew.html"])
    assert gold_text(Case(q, [twin], [], None), Resources()) == 0.0, "the twin page's copy is not the evidence"
    assert gold_text(Case(q, [twin, own], [], None), Resources()) == 1.0
    by_doc = Question("q", "?", gold_text=["Press E to edit the item."], gold_pages=["pcbnew"])
    assert gold_text(Case(by_doc, [own], [], None), Resources()) == 1.0, "a page named by document id"
    anywhere = Question("q", "?", gold_text=["Press E to edit the item."])
    assert gold_text(Case(anywhere, [twin], [], None), Resources()) == 1.0, "no gold pages: any page"


def test_aggregate_skips_undefined_and_reports_n():
    agg = aggregate([{"ir": 1.0}, {"ir": None}, {"ir": 0.0}], ["ir"])
    assert agg["ir"]["mean"] == 0.5 and agg["ir"]["n"] == 2 and agg["ir"]["higher_is_better"]


def test_duplicate_gold_images_and_repeated_citations_are_sets():
    # G = {a, b} written with a repeat, P = {a} cited three times: precision 1, recall 1/2, F1 2/3
    m = image_prf(["a", "b", "a"], ["a", "a", "a"])
    assert (m["image_precision"], m["image_recall"]) == (1.0, 0.5)
    assert m["image_f1"] == pytest.approx(2 / 3)
    assert image_retrieval_recall(["a", "a", "b"], ["a", "a"]) == 0.5


def test_generated_answer_citing_an_image_twice_counts_it_once():
    from ham.answer import parse_generated

    answer = parse_generated("See <img1>. Then <img2>, and again ![x](img1).", {1: ("u1", "a"), 2: ("u2", "c")})
    assert answer.images == ["a", "c"]
    assert image_prf(["a", "b"], answer.images) == {"image_precision": 0.5, "image_recall": 0.5, "image_f1": 0.5}


def test_aggregate_reports_not_computed_with_reason():
    agg = aggregate([{"overall_quality": None, "image_f1": 0.5}, {"image_f1": 0.0}],
                    ["overall_quality", "image_f1"], not_computed={"overall_quality": "no judge"})
    assert agg["overall_quality"] == {"mean": None, "n": 0, "computed": False, "reason": "no judge",
                                      "higher_is_better": True, "family": "generation", "aggregation": "mean"}
    assert agg["image_f1"]["mean"] == 0.25 and agg["image_f1"]["computed"]


def test_average_score_is_the_mean_of_what_is_defined():
    from ham.metrics.average import average_score

    assert average_score({"image_f1": 0.5, "img_cbs": 0.7, "overall_quality": 4}) == pytest.approx((0.5 + 0.7 + 0.8) / 3)
    assert average_score({"image_f1": 0.5, "img_cbs": None, "overall_quality": None}) == 0.5
    assert average_score({"image_f1": None}) is None


def test_registry_binds_compute_needs_and_aggregation():
    from ham.metrics import metric, registry

    known = registry()
    assert known["tcr15"].needs_judge and known["overall_quality"].needs_judge and "bertscore" in known["img_cbs"].needs
    assert not known["image_f1"].needs_judge and known["image_f1"].scale == 100
    assert known["overall_quality"].label == "Qual." and known["tcr15"].family == "retrieval"
    assert known["average_score"].after == ("image_f1", "img_cbs", "overall_quality")
    with pytest.raises(ValueError, match="registered twice"):
        metric("ir", family="retrieval")(lambda case, res: 1.0)
    with pytest.raises(ValueError, match="unknown aggregation"):
        metric("new_metric", aggregation="geometric")(lambda case, res: 1.0)
    assert "new_metric" not in known
