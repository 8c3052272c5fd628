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


def official_acc_and_f1(samples):
    """MMLongBench-Doc eval/eval_score.py's ``eval_acc_and_f1``, as its repository writes it."""
    evaluated_samples = [sample for sample in samples if "score" in sample]
    if not evaluated_samples:
        return 0.0, 0.0
    acc = sum([sample["score"] for sample in evaluated_samples]) / len(evaluated_samples)
    try:
        recall = sum([sample["score"] for sample in evaluated_samples if sample["answer"] != "Not answerable"]) / len(
            [sample for sample in evaluated_samples if sample["answer"] != "Not answerable"])
        precision = sum([sample["score"] for sample in evaluated_samples if sample["answer"] != "Not answerable"]) / len(
            [sample for sample in evaluated_samples if sample["pred"] != "Not answerable"])
        f1 = 2 * recall * precision / (recall + precision) if (recall + precision) > 0.0 else 0.0
    except ZeroDivisionError:
        f1 = 0.0
    return acc, f1


SAMPLES = [   # (reference, answer format, the generator's reply or None for a failed generation)
    ("12 GW", "Str", "Extracted answer: 12 GW"), ("7", "Int", "Not answerable"),
    ("Not answerable", "None", "Not answerable"), ("blue whale", "Str", "blue whales"),
    ("Not answerable", "None", "42"), ("0.35", "Float", None), ("['a', 'b']", "List", "['b', 'a']"),
]


def _run(samples):
    from ham.metrics.evaluator import Evaluator

    evaluator = Evaluator(["mmlongbench_score", "mmlongbench_f1"])
    rows = []
    for i, (ref, fmt, reply) in enumerate(samples):
        case = _case(reply, fmt, ref)
        rows.append({"id": str(i), "metrics": evaluator(case.question, [], [], case.answer)})
    return rows, evaluator.summary(rows)


@pytest.mark.parametrize("samples", [SAMPLES, SAMPLES[:2], [s for s in SAMPLES if s[0] == "Not answerable"],
                                     [("7", "Int", "Not answerable"), ("8", "Int", "Not answerable")]])
def test_the_runs_f1_is_the_benchmarks_eval_acc_and_f1(samples):
    """metrics.json reports MMLongBench-Doc's F1 (a corpus-level figure, not a mean) beside its
    accuracy, as its eval_acc_and_f1 computes both; ham-analyze recomputes it from the rows alike."""
    from ham_analysis.collect import summary_disagrees

    rows, summary = _run(samples)
    official = official_acc_and_f1([
        {"score": score(ref, prediction_of(reply), fmt) if reply is not None else 0.0, "answer": ref,
         "pred": prediction_of(reply) if reply is not None else ""} for ref, fmt, reply in samples])
    got = summary["metrics"]
    assert got["mmlongbench_score"]["mean"] == pytest.approx(official[0])
    assert got["mmlongbench_f1"]["mean"] == pytest.approx(official[1])
    assert got["mmlongbench_f1"]["n"] == len(samples) and "ci95" not in got["mmlongbench_f1"]
    assert summary_disagrees(summary, rows) is None


def test_the_f1_fixture_discriminates_f1_from_accuracy():
    _, summary = _run(SAMPLES)
    acc, f1 = summary["metrics"]["mmlongbench_score"]["mean"], summary["metrics"]["mmlongbench_f1"]["mean"]
    assert 0 < f1 < 1 and abs(f1 - acc) > 0.01
