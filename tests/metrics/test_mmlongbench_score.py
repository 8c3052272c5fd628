"""MMLongBench-Doc's answer scoring rules (its eval/eval_score.py) by answer format, the extracted
answer form, and its accuracy / F1."""
from __future__ import annotations

import pytest

from ham.datasets.questions import Question
from ham.answer import InterleavedAnswer, Segment
from ham.metrics.mmlongbench import acc_and_f1, anls, mmlongbench_score, prediction_of, score
from ham.metrics.registry import Case, Resources


@pytest.mark.parametrize("reference,prediction,fmt,expected", [
    ("8", "8", "Int", 1.0), ("8", "8.0", "Int", 1.0), ("8", "eight", "Int", 0.0), ("8", "9", "Int", 0.0),
    ("18.29%", "18.29", "Float", 1.0), ("0.35", "35", "Float", 1.0), ("0.35", "35%", "Float", 1.0),
    ("3.14", "3.13", "Float", 1.0), ("3.14", "3.1", "Float", 0.0), ("100", "100.4", "Float", 1.0), ("2.5", "n/a", "Float", 0.0),
    ("Less well-off", "less well-off", "Str", 1.0), ("Less well-off", "Less well off", "Str", pytest.approx(1 - 1 / 13)),
    ("Less well-off", "better off", "Str", 0.0), ("https://example.org/a", "https://example.org/b", "Str", 0.0),
    ("2024-05-01", "2024-05-01", "Str", 1.0), ("$1,200 (approx.)", "1,200", "Str", 1.0),
    ("Not answerable", "Not answerable", "None", 1.0),
    ("['City Museum', 'Harbour Gallery']", "['harbour gallery', 'city museum']", "List", 1.0),
    ("['City Museum', 'Harbour Gallery']", "['City Museum']", "List", 0.0),
    ("['3', '5']", "['5', '3']", "List", 1.0), ("['3', '5']", "['5', '4']", "List", 0.0),
])
def test_score_by_answer_format(reference, prediction, fmt, expected):
    assert score(reference, prediction, fmt) == expected


def test_anls_threshold():
    assert anls("abcd", "abcd") == 1.0
    assert anls("abcd", "abxy") == 0.0        # 1 - 2/4 = 0.5, at the threshold: 0
    assert anls("abcde", "abcdx") == pytest.approx(0.8)


def test_the_extracted_answer_is_scored_when_the_reply_has_one():
    reply = "The report says so.\nExtracted answer: 12 GW\nAnswer format: String"
    assert prediction_of(reply) == "12 GW" and prediction_of("  12 GW ") == "12 GW"


def _case(answer_text: str | None, fmt: str | None, reference: str = "12 GW") -> Case:
    q = Question(id="q", question="?", reference_answer=reference, meta={"answer_format": fmt} if fmt else {})
    answer = None if answer_text is None else InterleavedAnswer([Segment(type="text", text=answer_text)])
    return Case(q, [], [], answer)


def test_the_registered_metric_scores_the_answer_and_fails_as_zero():
    assert mmlongbench_score(_case("12 GW", "Str"), Resources()) == 1.0
    assert mmlongbench_score(_case(None, "Str"), Resources()) == 0.0       # a failed generation
    assert mmlongbench_score(_case("12 GW", None), Resources()) is None    # not an MMLongBench question


def test_accuracy_and_f1_as_the_benchmark_counts_them():
    rows = [(1.0, "12 GW", "12 GW"), (0.0, "7", "Not answerable"), (1.0, "Not answerable", "Not answerable"),
            (0.5, "blue", "bleu")]
    acc, f1 = acc_and_f1(rows)
    recall, precision = 1.5 / 3, 1.5 / 2
    assert acc == pytest.approx(2.5 / 4) and f1 == pytest.approx(2 * recall * precision / (recall + precision))
