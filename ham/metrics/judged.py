"""The LLM-judged metrics of HAM-RAG (paper 5.1.3), through ``ham.metrics.judge.Judge``:

    tcr15            do the top-15 retrieved text units, as one set, suffice to answer? (0/1)
    overall_quality  1-5: correctness, completeness, grounding, text-image coherence; a failed
                     generation scores 0 without asking the judge

What each shows its judge is rendered here from the question's case. A reply without a valid
score is a judge failure: the value is None (left out of the mean) and the failure is counted.
Like every judged metric, each is a coroutine (``Judge.ajudge``): the runner judges every question
in flight at once.
"""
from __future__ import annotations

from ham.answer import InterleavedAnswer
from ham.metrics.registry import Case, Resources, Scored, metric

TCR_K = 15   # TCR@15 judges the top 15 retrieved text units as one set


def _render(answer: InterleavedAnswer | None, captions: dict[str, str]) -> str:
    if answer is None:
        return "(none)"
    parts = [s.text if s.type == "text" else f"[IMAGE: {s.image} | {captions.get(s.image) or s.text or 'no caption'}]"
             for s in answer.segments]
    return "\n".join(p for p in parts if p.strip())


def passages(hits: list[dict]) -> str:
    return "\n\n".join(f"[{i}] ({' > '.join(h.get('heading_path') or []) or 'no heading'})\n{h['text']}"
                       for i, h in enumerate(hits, 1)) or "(none)"


def tcr_fields(case: Case) -> dict[str, str]:
    return {"question": case.question.question, "reference": _render(case.reference, {}),
            "evidence": passages(case.text[:TCR_K])}


def quality_fields(case: Case) -> dict[str, str]:
    captions = {h["image"]: h.get("caption") or "" for h in case.images}
    images = "\n".join(f"[IMAGE: {h['image']} | {h.get('caption') or 'no caption'}]" for h in case.images)
    evidence = passages(case.text) + ("\n\nImages:\n" + images if images else "")
    return {"question": case.question.question, "reference": _render(case.reference, {}),
            "evidence": evidence, "answer": _render(case.answer, captions)}


FAILED_GENERATION = Scored(0.0, {"skipped": "generation failed: scored 0"})


def _fields(name: str, case: Case) -> dict[str, str] | None:
    """What the judge is shown for metric ``name``; None when the metric needs no judgment."""
    if name == "overall_quality":
        return None if case.answer is None else quality_fields(case)
    return tcr_fields(case)


async def judged(name: str, case: Case, res: Resources) -> Scored:
    fields = _fields(name, case)
    if fields is None:
        return FAILED_GENERATION
    judgment = await res.judge.ajudge(name, fields)
    return Scored(judgment.value, judgment.to_dict())


@metric("tcr15", family="retrieval", needs=("judge",), label="TCR@15",
        description="LLM judge: do the top-15 retrieved text units together suffice to answer (1) or not (0)")
async def tcr15(case: Case, res: Resources) -> Scored:
    return await judged("tcr15", case, res)


@metric("overall_quality", needs=("judge",), label="Qual.", value_range=(0.0, 5.0),
        description="LLM judge 1-5: correctness, completeness, grounding, text-image coherence (0 if failed)")
async def overall_quality(case: Case, res: Resources) -> Scored:
    return await judged("overall_quality", case, res)
