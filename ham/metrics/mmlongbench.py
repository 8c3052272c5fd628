"""MMLongBench-Doc's answer scoring, as its ``eval/eval_score.py`` computes it, on the answer ham's
generator gave.

Per question (``mmlongbench_score``, the mean is the benchmark's accuracy), by the reference's
``answer_format`` (``meta["answer_format"]``, from ``ham.datasets.mmlongbench``):

    Int     1 when ``int(float(prediction))`` equals the integer reference, else 0
    Float   both cleaned (``clean``) and read as numbers; 1 when the prediction equals the
            reference, the reference / 100 or the reference × 100, within 1% relative tolerance
            or after rounding both to the shorter precision (at least 2 places)
    Str, None
            both cleaned; exact match for references that look like a URL, a file name, a
            page, a phone number, a time, a date or an e-mail address, else ANLS (1 - normalised
            Levenshtein distance, 0 at or below 0.5)
    List    both read as lists (a string starting with "[" is a Python list literal); 0 when the
            lengths differ; else sorted and cleaned, exact match of the joined items when the
            first reference item is a number or an exact-match kind, else the smallest ANLS of
            the item pairs

``clean``: lower-cased and stripped, parenthesised parts removed, surrounding quotes, a leading
``$`` and a trailing ``%`` stripped. (The benchmark's ``get_clean_string`` also seems to strip
trailing "mile(s)"/"million", but its ``rstrip`` results are discarded, so it does not; neither
does ham.)

The benchmark first has GPT-4o turn the model's long response into a short answer ("Extracted
answer: ..."); ham scores the answer text as given, or the text after "Extracted answer:" when the
generator wrote one (a prompt can ask for that form).

F1 (``mmlongbench_f1``) is a corpus-level figure: recall = mean score over answerable references,
precision = the same sum over the predictions that are not "Not answerable" (exactly that string,
as the benchmark compares its extracted answer; a failed generation is a prediction scoring 0).
Its per-question value is the question's score with both answerable flags recorded beside it
(``Scored.detail``); the registry's ``mmlongbench_f1`` aggregation computes the run's F1 from
them, so metrics.json reports it as this metric's ``mean``.
"""
from __future__ import annotations

import ast
import re
from math import isclose

from ham.metrics.registry import Case, Resources, Scored, aggregation, metric

NOT_ANSWERABLE = "Not answerable"


def levenshtein(a: str, b: str) -> int:
    if len(a) > len(b):
        a, b = b, a
    row = list(range(len(a) + 1))
    for j, cb in enumerate(b, 1):
        prev, row[0] = row[0], j
        for i, ca in enumerate(a, 1):
            prev, row[i] = row[i], prev if ca == cb else 1 + min(prev, row[i], row[i - 1])
    return row[-1]


def anls(reference: str, prediction: str, threshold: float = 0.5) -> float:
    length = max(len(reference), len(prediction))
    value = 1.0 - (levenshtein(reference, prediction) / length if length else 0.0)
    return 0.0 if value <= threshold else value


def clean(value) -> str:
    s = str(value).lower().strip()
    s = re.sub(r"\s*\([^)]*\)", "", s).strip()
    s = re.sub(r"^['\"]|['\"]$", "", s).strip()
    return s.lstrip("$").strip().rstrip("%").strip()


_EXACT = [re.compile(p) for p in (r"\b\d+(-\d+|\s\d+)?\b", r"\b\d{4}[-\s]\d{2}[-\s]\d{2}\b", r"\b\d{4}[-\s]\d{2}\b",
                                  r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}")]


def needs_exact_match(s: str) -> bool:
    return ("https://" in s or s.endswith((".py", "ipynb")) or s.startswith("page") or "a.m." in s or "p.m." in s
            or any(p.fullmatch(s) for p in _EXACT))


def _number(s) -> float | None:
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def _precision(x: float) -> int:
    text = str(x)
    return len(text.split(".")[-1]) if "." in text else 3


def float_equal(reference: float, prediction: float) -> bool:
    for candidate in (reference / 100, reference, reference * 100):
        if isclose(candidate, prediction, rel_tol=0.01):
            return True
        places = max(min(_precision(prediction), _precision(candidate)), 2)
        if round(prediction, places) == round(candidate, places):
            return True
    return False


def _as_list(value) -> list:
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = ast.literal_eval(value)
            value = parsed if isinstance(parsed, list) else [parsed]
        except (ValueError, SyntaxError):
            value = [value]
    return value if isinstance(value, list) else [value]


def score(reference, prediction, answer_format: str) -> float:
    if answer_format == "Int":
        number = _number(prediction)
        try:
            return float(number is not None and int(reference) == int(number))
        except (TypeError, ValueError, OverflowError):
            return 0.0
    if answer_format == "Float":
        ref, pred = _number(clean(reference)), _number(clean(prediction))
        return float(ref is not None and pred is not None and float_equal(ref, pred))
    if answer_format in ("Str", "None"):
        ref, pred = clean(reference), clean(prediction)
        return float(ref == pred) if needs_exact_match(ref) else anls(ref, pred)
    refs, preds = _as_list(reference), _as_list(prediction)
    if len(refs) != len(preds):
        return 0.0
    refs, preds = sorted(clean(a) for a in refs), sorted(clean(a) for a in preds)
    if _number(refs[0]) is not None or needs_exact_match(refs[0]):
        return float("-".join(refs) == "-".join(preds))
    return min(anls(r, p) for r, p in zip(refs, preds))


def prediction_of(text: str) -> str:
    """The short answer in a generator's reply (module docstring)."""
    if "Extracted answer:" in text:
        text = text.split("Extracted answer:", 1)[1].split("Answer format:", 1)[0]
    return text.strip()


def f1(rows: list[tuple[float, bool, bool]]) -> float:
    """The benchmark's F1 (``eval_acc_and_f1``) over (score, reference answerable, prediction
    answerable): recall = the scores of answerable references summed over their number, precision
    = that sum over the predictions that are not "Not answerable"; 0 where either count is 0."""
    answerable = [s for s, ref_ok, _ in rows if ref_ok]
    predicted = sum(1 for _, _, pred_ok in rows if pred_ok)
    if not answerable or not predicted:
        return 0.0
    recall, precision = sum(answerable) / len(answerable), sum(answerable) / predicted
    return 2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0


def acc_and_f1(rows: list[tuple[float, str, str]]) -> tuple[float, float]:
    """(accuracy, F1) over (score, reference, prediction) triples, as the benchmark's
    ``eval_acc_and_f1``."""
    if not rows:
        return 0.0, 0.0
    acc = sum(s for s, _, _ in rows) / len(rows)
    return acc, f1([(s, ref != NOT_ANSWERABLE, pred != NOT_ANSWERABLE) for s, ref, pred in rows])


def _scored(case: Case) -> tuple[float, str] | None:
    """(score, prediction) of an MMLongBench question (a failed generation: 0 and ""), else None."""
    q = case.question
    fmt = q.meta.get("answer_format") if isinstance(q.meta, dict) else None
    if fmt is None or q.reference_answer is None:
        return None
    if case.answer is None:
        return 0.0, ""
    prediction = prediction_of(case.answer.text)
    return score(q.reference_answer, prediction, fmt), prediction


@metric("mmlongbench_score", family="generation", label="MMLB-Acc",
        description="MMLongBench-Doc's rule-based answer score by answer format (mean: its accuracy)")
def mmlongbench_score(case: Case, res: Resources) -> float | None:
    got = _scored(case)
    return None if got is None else got[0]


@aggregation("mmlongbench_f1")
def _f1_of_run(values: list[float], details: list[dict]) -> float:
    return f1([(v, d["reference_answerable"], d["prediction_answerable"]) for v, d in zip(values, details)])


@metric("mmlongbench_f1", family="generation", label="MMLB-F1", aggregation="mmlongbench_f1",
        description="MMLongBench-Doc's F1 over the run (its eval_acc_and_f1; per question: the score, "
                    "and whether reference and prediction are answerable)")
def mmlongbench_f1(case: Case, res: Resources) -> Scored | None:
    got = _scored(case)
    if got is None:
        return None
    value, prediction = got
    return Scored(value, {"reference_answerable": case.question.reference_answer != NOT_ANSWERABLE,
                          "prediction_answerable": prediction != NOT_ANSWERABLE})
