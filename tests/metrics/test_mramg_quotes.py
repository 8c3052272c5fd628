"""MRAMG-Bench's image ordering score, ROUGE-Lsum and answer BERTScore, and MMDocRAG's quote
selection P / R / F1, on hand-computed cases with their empty-sequence rules."""
import pytest

from ham.datasets.questions import Evidence, Question
from ham.answer import parse_generated
from ham.metrics.evaluator import Evaluator
from ham.metrics.mramg import image_ordering_score, rouge_lsum, weighted_edit_distance
from ham.metrics.quotes import quote_prf
from ham.metrics.registry import Case

SLOTS = {1: ("ua", "a.png"), 2: ("ub", "b.png"), 3: ("uc", "c.png")}


@pytest.mark.parametrize("gold, pred, expected", [
    (["a", "b"], ["a", "b"], 1.0),
    (["a", "b"], ["b", "a"], 2 / 3),          # d = 2 substitutions, norm 2/2 = 1, penalty 1/3
    (["a", "b"], ["a"], 0.25),                # d = delete 3, norm 3/2, penalty 1/2, shared 1/2
    (["a"], ["a", "c", "d"], 5 / 9),          # d = two inserts 4, norm 4/3, penalty 4/9
    (["a"], ["a", "a"], 2 / 3),               # a repeat counts: one insert, norm 2/2
    (["a", "b", "c"], ["x"], 0.0),            # nothing shared
    ([], [], 1.0), ([], ["a"], 0.0), (["a"], [], 0.0),   # ham's empty-sequence rules
])
def test_image_ordering_score(gold, pred, expected):
    assert image_ordering_score(gold, pred) == pytest.approx(expected, abs=1e-12)


def test_weighted_edit_distance_costs():
    assert weighted_edit_distance(["a"], []) == 3 and weighted_edit_distance([], ["a"]) == 2
    assert weighted_edit_distance(["a"], ["b"]) == 1 and weighted_edit_distance(["a", "b"], ["b"]) == 3


def _case(raw, reference="Open it.\n![](a.png)\nClick OK.\n![](b.png)", question=None):
    q = question or Question("q", "How?", reference_answer=reference)
    answer = parse_generated(raw, SLOTS) if raw is not None else None
    return Case(q, [{"unit_id": "t1", "text": "x"}, {"unit_id": "t2", "text": "y"}], [], answer)


def test_mramg_metrics_through_the_evaluator(context_scorer):
    evaluator = Evaluator(["image_ordering", "rouge_lsum", "answer_bertscore"], bertscore=context_scorer)
    same = evaluator.score(_case("Open it. <img1> Click OK. <img2>"))
    assert same["image_ordering"] == 1.0 and same["rouge_lsum"] == 1.0
    assert same["answer_bertscore"] == pytest.approx(1.0, abs=1e-4)
    swapped = evaluator.score(_case("Open it. <img2> Click OK. <img1>"))
    assert swapped["image_ordering"] == pytest.approx(2 / 3, abs=1e-6)
    failed = evaluator.score(_case(None))
    assert failed == {"image_ordering": 0.0, "rouge_lsum": 0.0, "answer_bertscore": 0.0}
    no_text = evaluator.score(_case("Anything.", reference="![](a.png)"))
    assert no_text["rouge_lsum"] is None and no_text["answer_bertscore"] is None, "a reference without text"
    assert no_text["image_ordering"] == 0.0
    nothing = evaluator.score(_case("Just text.", reference="Just text."))
    assert nothing["image_ordering"] == 1.0, "no reference image and none shown"
    assert rouge_lsum("the cat sat on the mat", "the cat sat") == pytest.approx(2 * 1 * 0.5 / 1.5)


def _mmdocrag(**kw):
    meta = {"gold_quotes": ["image3", "text4"],
            "text_quotes": [{"quote_id": f"text{i}"} for i in range(1, 6)],
            "img_quotes": [{"quote_id": "image3", "img_path": "images/doc_image3.jpg"},
                           {"quote_id": "image5", "img_path": "images/doc_image5.jpg"}]}
    return Question("1", "?", evidence=[Evidence(modality="image", units=["ua"]),
                                        Evidence(modality="text", units=["t2"])], meta=meta, **kw)


@pytest.mark.parametrize("raw, expected", [
    ("As shown [2].\n<img1>", (1.0, 1.0, 1.0)),                 # [2] -> the 2nd text block (t2 = text4)
    ("See [T2] and [T2].", (1.0, 0.5, 2 / 3)),                  # ham's own block labels; repeats once
    ("See [1]. <img3>", (0.0, 0.0, 0.0)),                       # a non-gold unit and a non-gold image
    ("See [2]. <img3>", (0.5, 0.5, 0.5)),
    ("Nothing cited.", (0.0, 0.0, 0.0)),
    (None, (0.0, 0.0, 0.0)),                                    # failed generation
])
def test_quote_selection(raw, expected):
    evaluator = Evaluator(["quote_precision", "quote_recall", "quote_f1"])
    s = evaluator.score(_case(raw, question=_mmdocrag()))
    assert (s["quote_precision"], s["quote_recall"], s["quote_f1"]) == pytest.approx(expected)


def test_quote_file_name_fallback_and_other_datasets():
    slots = {1: ("unknown-unit", "corpus/pages/doc_image5.jpg")}
    q = _mmdocrag()
    case = Case(q, [], [], parse_generated("Look. <img1>", slots))
    from ham.metrics.quotes import cited
    assert cited(case, ["image3", "text4"]) == ["image5"], "an image quote found by its file name"
    evaluator = Evaluator(["quote_f1"])
    assert evaluator.score(_case("x [1]"))["quote_f1"] is None, "no gold_quotes: not an MMDocRAG question"
    assert quote_prf([], []) == (0.0, 0.0, 0.0) and quote_prf([], ["a"]) == (0.0, 0.0, 0.0)
