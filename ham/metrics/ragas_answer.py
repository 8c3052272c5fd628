"""TopoGraphRAG-Bench's generation metrics, RAGAS's formulas (explodinggradients/ragas 0.4,
``metrics/collections/answer_accuracy``, ``faithfulness``, ``answer_relevancy``) with ham's own
prompts (``prompts/answer_accuracy_v1.txt``, ``answer_accuracy_swapped_v1.txt``,
``faithfulness_statements_v1.txt``, ``faithfulness_v1.txt``, ``response_relevancy_v1.txt``).

    answer_accuracy     two ratings r1, r2 in {0, 2, 4}: the answer rated against the reference
                        answer, then (a second prompt) the reference rated against the answer
                        (user and reference answers swapped); score = mean(r1/4, r2/4), so 0.5 is
                        partial credit. RAGAS keeps the one valid rating when the other fails;
                        ham counts the question as a judge failure instead
    faithfulness        the judge cuts the answer into self-contained statements, then gives
                        each a verdict (1 supported by the retrieved context, joined, 0 not);
                        score = supported / statements
    response_relevancy  the judge writes N = 3 questions the answer answers and says whether the
                        answer is noncommittal (one flag for the answer: RAGAS's three calls each
                        carry one, ham's one call asks once); score = mean cosine similarity of
                        the generated questions to the question under the run's encoder, 0 when
                        the answer is noncommittal (RAGAS: when all flags are)

A failed generation scores 0 on all three without asking the judge (and stays in the mean, as on
every generation metric). Undefined (None): answer accuracy without a reference answer,
faithfulness with nothing retrieved. A failed judge call makes the value None and is counted.
Answers and references are shown to the judge as text with images as ``[IMAGE: ref | caption]``.
"""
from __future__ import annotations

import asyncio

import numpy as np

from ham.metrics.judge_calls import Calls, verdicts
from ham.metrics.registry import Case, Resources, Scored, metric
from ham.metrics.topology import answer_text, contexts, numbered, reference_text

FAILED = {"skipped": "generation failed: scored 0"}


def accuracy(r1: float, r2: float) -> float:
    """RAGAS answer accuracy from the two 0/2/4 ratings."""
    return (r1 / 4.0 + r2 / 4.0) / 2.0


def supported_fraction(flags: list[int]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def relevancy(question_vec, generated_vecs, noncommittal: bool) -> float:
    """Mean cosine similarity of the generated questions' vectors to the question's, 0 when the
    answer is noncommittal or no question was generated."""
    if len(generated_vecs) == 0:
        return 0.0
    gen = np.asarray(generated_vecs, dtype=np.float64).reshape(len(generated_vecs), -1)
    q = np.asarray(question_vec, dtype=np.float64).reshape(1, -1)
    cosine = (gen @ q.T).reshape(-1) / (np.linalg.norm(gen, axis=1) * np.linalg.norm(q, axis=1))
    return float(cosine.mean()) * int(not noncommittal)


def _answer(case: Case) -> str:
    captions = {h["image"]: h.get("caption") or "" for h in case.images if h.get("image")}
    return answer_text(case.answer, captions)


@metric("answer_accuracy", needs=("judge",), label="AA", prompts=("answer_accuracy", "answer_accuracy_swapped"),
        description="RAGAS answer accuracy: mean of two 0/2/4 judge ratings /4 (second with the answers swapped)")
async def answer_accuracy(case: Case, res: Resources) -> Scored | None:
    reference = reference_text(case.question)
    if not reference:
        return None
    if case.answer is None:
        return Scored(0.0, FAILED)
    answer, q = _answer(case), case.question.question
    calls = Calls(res)
    first, second = await asyncio.gather(
        calls.ask("answer_accuracy", {"question": q, "user_answer": answer, "reference_answer": reference}),
        calls.ask("answer_accuracy_swapped", {"question": q, "user_answer": reference, "reference_answer": answer}))
    if first is None or second is None:
        return calls.result(None)
    return calls.result(accuracy(first.value, second.value), ratings=[int(first.value), int(second.value)])


@metric("faithfulness", needs=("judge",), label="Faith.", prompts=("faithfulness_statements", "faithfulness"),
        description="RAGAS faithfulness: the answer's statements supported by the retrieved context / statements")
async def faithfulness(case: Case, res: Resources) -> Scored | None:
    ctx = contexts(case.text, case.images)
    if not ctx:   # undefined without a context (the benchmark's None), answered or not
        return None
    if case.answer is None:
        return Scored(0.0, FAILED)
    calls = Calls(res)
    split = await calls.ask("faithfulness_statements", {"question": case.question.question, "answer": _answer(case)})
    if split is None:
        return calls.result(None)
    statements = list(split.scores["statement"])
    judged = await calls.ask("faithfulness", {"context": "\n".join(ctx), "statements": numbered(statements),
                                        "n": str(len(statements))}, n_items=len(statements))
    if judged is None:
        return calls.result(None)
    flags = verdicts(judged, "verdict", len(statements))
    return calls.result(supported_fraction(flags), statements=len(statements), verdicts=flags)


@metric("response_relevancy", needs=("judge", "encoder"), label="RR",
        description="RAGAS response relevancy: cosine of 3 judge-written questions to the question (0 if noncommittal)")
async def response_relevancy(case: Case, res: Resources) -> Scored:
    if case.answer is None:
        return Scored(0.0, FAILED)
    calls = Calls(res)
    judgment = await calls.ask("response_relevancy", {"answer": _answer(case)})
    if judgment is None:
        return calls.result(None)
    generated = list(judgment.scores["question"])
    noncommittal = bool(judgment.scores["noncommittal"])
    vectors = np.asarray(await res.on_cpu(res.encoder.encode, [case.question.question, *generated]))
    value = relevancy(vectors[0], vectors[1:], noncommittal)
    return calls.result(value, questions=generated, noncommittal=int(noncommittal))
