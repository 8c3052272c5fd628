"""TopoGraphRAG-Bench's step coverage (B.1): does the answer cover the reasoning steps its
topology requires? Prompt ``prompts/step_coverage_v1.txt``.

The steps (``ham.metrics.topology.required_steps``): for a bridge chain one per hop,
``Step i [modality]: sub-question -> result``; for a synthesis question one per evidence point,
``Step i [modality]: fact (data points: ...)``. One judge call gives every step a verdict, covered
(1) or not (0); score = covered / steps. A correct final answer that leaves out a hop's result
scores below 1, which answer accuracy does not show.

Undefined (None) for single-hop questions (the paper reports it on bridge-chain and synthesis
questions only) and for questions without hops or evidence points. A failed generation scores 0
without asking the judge; a failed judge call makes the value None and is counted.
"""
from __future__ import annotations

from ham.metrics.judge_calls import Calls, verdicts
from ham.metrics.ragas_answer import FAILED
from ham.metrics.registry import Case, Resources, Scored, metric
from ham.metrics.topology import answer_text, required_steps


def coverage(flags: list[int]) -> float | None:
    return sum(flags) / len(flags) if flags else None


@metric("step_coverage", needs=("judge",), label="Step cov.",
        description="judge: share of a bridge chain's hops or a synthesis question's evidence points the answer covers")
async def step_coverage(case: Case, res: Resources) -> Scored | None:
    steps = required_steps(case.question)
    if not steps:
        return None
    if case.answer is None:
        return Scored(0.0, FAILED)
    captions = {h["image"]: h.get("caption") or "" for h in case.images if h.get("image")}
    calls = Calls(res)
    judgment = await calls.ask("step_coverage", {"question": case.question.question, "steps": "\n".join(steps),
                                           "answer": answer_text(case.answer, captions), "n": str(len(steps))},
                         n_items=len(steps))
    if judgment is None:
        return calls.result(None)
    flags = verdicts(judgment, "covered", len(steps))
    return calls.result(coverage(flags), verdicts=flags)
