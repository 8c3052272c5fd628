"""MRAMG-Bench's own answer metrics, so its tables can be printed beside HAM-RAG's.

Image ordering score, with G the reference answer's image sequence (in order, as the reference
shows them) and P the answer's (in order, an image shown twice counted twice, as MRAMG's
evaluation reads every ``<imgN>`` of an answer), n = |G|, m = |P|:

    d       = weighted edit distance from G to P: delete 3, insert 2, substitute 1
    norm    = d / max(n, m)
    penalty = min(norm, 3) / 3
    score   = (|set(G) ∩ set(P)| / n) · (1 − penalty)

Empty-sequence rules (public copies of MRAMG's code disagree on G = ∅; ham takes the one its
image P / R / F1 already use, ``ham.metrics.image``):

    G = ∅, P = ∅  ->  1   (nothing to show, nothing shown)
    G = ∅, P ≠ ∅  ->  0
    G ≠ ∅, P = ∅  ->  0   (no shared image)
    failed generation  ->  0

ROUGE-Lsum: ``rouge_score.rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)`` (the
``rouge-score`` package, Apache-2.0), F-measure of the answer against the reference, both as text
with image markers removed and one line per text segment (ROUGE-Lsum takes the union LCS over
lines). Answer BERTScore: F1 of the answer's text against the reference's text with the run's
BERTScore scorer (``metrics.bertscore``, the one Img-CBS uses). For both: a reference without
text -> None (undefined); a failed generation -> 0; an answer with no text is a failed generation
(``ham.answer``).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from ham.answer import InterleavedAnswer
from ham.metrics.registry import Case, Resources, metric

DELETE, INSERT, SUBSTITUTE, CAP = 3.0, 2.0, 1.0, 3.0


def weighted_edit_distance(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Edit distance turning ``gold`` into ``predicted``: deleting a gold image costs 3, inserting
    a predicted one 2, substituting one for another 1."""
    n, m = len(gold), len(predicted)
    previous = [j * INSERT for j in range(m + 1)]
    for i in range(1, n + 1):
        current = [i * DELETE] + [0.0] * m
        for j in range(1, m + 1):
            cost = 0.0 if gold[i - 1] == predicted[j - 1] else SUBSTITUTE
            current[j] = min(previous[j] + DELETE, current[j - 1] + INSERT, previous[j - 1] + cost)
        previous = current
    return previous[m]


def image_ordering_score(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """MRAMG's image ordering score with ham's empty-sequence rules (module docstring)."""
    n, m = len(gold), len(predicted)
    if n == 0:
        return 1.0 if m == 0 else 0.0
    shared = len(set(gold) & set(predicted)) / n
    if shared == 0:
        return 0.0
    penalty = min(weighted_edit_distance(gold, predicted) / max(n, m), CAP) / CAP
    return shared * (1.0 - penalty)


def image_sequence(answer: InterleavedAnswer) -> list[str]:
    """Every image segment's reference, in order, repeats kept."""
    return [s.image for s in answer.segments if s.type == "image" and s.image]


def text_lines(answer: InterleavedAnswer | None) -> str:
    """The answer's text segments, one per line (image markers removed)."""
    if answer is None:
        return ""
    return "\n".join(s.text.strip() for s in answer.segments if s.type == "text" and s.text.strip())


@lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)


def rouge_lsum(reference: str, answer: str) -> float:
    return float(_rouge().score(reference, answer)["rougeLsum"].fmeasure)


@metric("image_ordering", label="Img-Ord.", scale=100,
        description="MRAMG image ordering: shared-image recall x (1 - capped weighted edit distance penalty)")
def image_ordering(case: Case, res: Resources) -> float:
    if case.answer is None:
        return 0.0
    gold = image_sequence(case.reference) if case.reference is not None else []
    return image_ordering_score(gold, image_sequence(case.answer))


@metric("rouge_lsum", label="ROUGE-Lsum", scale=100,
        description="ROUGE-Lsum F-measure of the answer text against the reference text (rouge-score, stemmed)")
def rouge_lsum_metric(case: Case, res: Resources) -> float | None:
    reference = text_lines(case.reference)
    if not reference:
        return None
    return rouge_lsum(reference, text_lines(case.answer)) if case.answer is not None else 0.0


@metric("answer_bertscore", label="BERTScore", scale=100, needs=("bertscore",),
        description="BERTScore F1 of the answer text against the reference text (the run's scorer)")
def answer_bertscore(case: Case, res: Resources) -> float | None:
    reference = text_lines(case.reference)
    if not reference:
        return None
    if case.answer is None:
        return 0.0
    return res.bertscore.f1([text_lines(case.answer)], [reference])[0]
