"""TopoGraphRAG-Bench's retrieval metrics, RAGAS's formulas (explodinggradients/ragas 0.4,
``metrics/collections/context_precision`` and ``context_recall``) with ham's own prompts
(``prompts/context_precision_v1.txt``, ``context_recall_v1.txt``), judged against the question's
topology-enriched reference (``ham.metrics.topology``).

The retrieved context is what the generator was shown, in prompt order: text and table rows in
rank order, then image rows in rank order, each rendered as its heading path and text (an image
as ``[IMAGE: ref | caption]``).

    context_precision        one judge verdict v_k in {0, 1} per retrieved unit, in that order:
                             "was this context useful for arriving at the reference answer?";
                             score = Σ_k (Σ_{i<=k} v_i / k) · v_k / (Σ_k v_k + 1e-10)
                             (average precision; 0 when no unit is useful)
    context_precision_joint  the same formula over one verdict on the whole context joined into
                             one string with newlines, as TopoGraphRAG-Bench's own evaluation calls
                             RAGAS: v / (v + 1e-10), so 0 or 0.9999999999 per question
    context_recall           the enriched reference cut into claims (its answer's sentences, each
                             hop, the bridge entities, each evidence point); one judge call
                             classifies every claim as attributable to the joined context (1) or
                             not (0); score = attributed / claims

Nothing retrieved (a system that failed to retrieve, an empty context) scores 0, as
TopoGraphRAG-Bench's own evaluation scores it ("retrieval totally failed"): left undefined, a
system's failures would drop out of its mean and make it look better. Undefined (None): no
reference answer (nor short answer). A failed judge call makes the question's value None and is
counted (``judge_calls``). Context precision asks its
per-unit verdicts all at once (bounded by the judge client's concurrency).
"""
from __future__ import annotations

from ham.metrics.judge_calls import Calls, verdicts
from ham.metrics.registry import Case, Resources, Scored, metric
from ham.metrics.topology import contexts, enriched_reference, numbered, reference_claims

EPSILON = 1e-10   # RAGAS's guard in the average-precision denominator
NOTHING_RETRIEVED = Scored(0.0, {"value": 0.0, "reason": "nothing retrieved"})


def average_precision(verdicts_in_order: list[int]) -> float:
    """RAGAS context precision of binary verdicts in rank order (module docstring)."""
    v = [int(x) for x in verdicts_in_order]
    numerator = sum((sum(v[:k + 1]) / (k + 1)) * v[k] for k in range(len(v)))
    return numerator / (sum(v) + EPSILON)


def recall_fraction(attributed: list[int]) -> float | None:
    """Context recall: attributed claims / claims; None when there is no claim."""
    return sum(attributed) / len(attributed) if attributed else None


async def _precision(case: Case, res: Resources, joint: bool) -> Scored | None:
    reference = enriched_reference(case.question)
    ctx = contexts(case.text, case.images)
    if not reference:
        return None
    if not ctx:
        return NOTHING_RETRIEVED
    if joint:
        ctx = ["\n".join(ctx)]
    calls = Calls(res)
    judgments = await calls.ask_all("context_precision", [{"question": case.question.question,
                                                           "reference": reference, "context": c} for c in ctx])
    if judgments is None:
        return calls.result(None)
    found = [int(j.value) for j in judgments]
    return calls.result(average_precision(found), verdicts=found)


@metric("context_precision", family="retrieval", needs=("judge",), label="CP",
        description="RAGAS context precision: average precision of per-unit 'useful' verdicts in rank order")
async def context_precision(case: Case, res: Resources) -> Scored | None:
    return await _precision(case, res, joint=False)


@metric("context_precision_joint", family="retrieval", needs=("judge",), label="CP (joint)",
        prompts=("context_precision",),
        description="context precision as TopoGraphRAG-Bench computes it: one verdict on the whole context")
async def context_precision_joint(case: Case, res: Resources) -> Scored | None:
    return await _precision(case, res, joint=True)


@metric("context_recall", family="retrieval", needs=("judge",), label="CR",
        description="RAGAS context recall: claims of the topology-enriched reference attributed to the context")
async def context_recall(case: Case, res: Resources) -> Scored | None:
    claims = reference_claims(case.question)
    ctx = contexts(case.text, case.images)
    if not claims:
        return None
    if not ctx:
        return NOTHING_RETRIEVED
    calls = Calls(res)
    judgment = await calls.ask("context_recall", {"question": case.question.question, "context": "\n".join(ctx),
                                            "claims": numbered(claims), "n": str(len(claims))}, n_items=len(claims))
    if judgment is None:
        return calls.result(None)
    attributed = verdicts(judgment, "claim", len(claims))
    return calls.result(recall_fraction(attributed), verdicts=attributed)
