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


def test_aggregate_skips_undefined_and_reports_n():
    agg = aggregate([{"ir": 1.0}, {"ir": None}, {"ir": 0.0}], ["ir"])
    assert agg["ir"]["mean"] == 0.5 and agg["ir"]["n"] == 2 and agg["ir"]["higher_is_better"]
