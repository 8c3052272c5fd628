"""Several judge calls behind one per-question value (the RAGAS-style metrics: a verdict per
retrieved context, two ratings, statements then verdicts). No metric is registered here.

``Calls`` asks ``res.judge`` (``await calls.ask(...)``; ``calls.ask_all`` asks many at once, under
the judge client's concurrency) and keeps every judgment. The metric's value is computed only when
every call gave a valid judgment; otherwise it is None and the question's detail holds the first
call's ``error`` (the evaluator counts it in ``n_failed``; a failure is never scored 0). The detail
records the prompt versions, how many calls there were and whether all were answered from the
judge cache; a valid one also its value and what it was computed from under ``scores``
(verdicts, ratings, statements), as the run viewer shows a judgment.
"""
from __future__ import annotations

import asyncio

from ham.metrics.judge import Judgment
from ham.metrics.registry import Resources, Scored


class Calls:
    def __init__(self, res: Resources) -> None:
        self.judge = res.judge
        self.judgments: list[Judgment] = []

    async def ask(self, key: str, fields: dict[str, str], n_items: int | None = None) -> Judgment | None:
        """One judgment of prompt ``key``; None (and the failure kept) when it failed."""
        judgment = await self.judge.ajudge(key, fields, n_items)
        self.judgments.append(judgment)
        return None if judgment.error else judgment

    async def ask_all(self, key: str, many: list[dict[str, str]]) -> list[Judgment] | None:
        """Judgments of prompt ``key`` on each of ``many``, all in flight at once and kept in
        order; None when any failed."""
        found = list(await asyncio.gather(*(self.judge.ajudge(key, fields) for fields in many)))
        self.judgments.extend(found)
        return None if any(j.error for j in found) else found

    @property
    def error(self) -> str | None:
        return next((j.error for j in self.judgments if j.error), None)

    def detail(self) -> dict:
        failed = next((j for j in self.judgments if j.error), None)
        out = {"prompt": ", ".join(dict.fromkeys(j.prompt for j in self.judgments)), "calls": len(self.judgments),
               "cached": bool(self.judgments) and all(j.cached for j in self.judgments)}
        if failed is not None:
            out.update(error=failed.error, reply=(failed.reply or "")[:500])
        return out

    def result(self, value: float | None, **scores) -> Scored:
        """The metric's value with what it was computed from (``scores``: verdicts, ratings, ...),
        or None with the failure when any call failed."""
        if self.error:
            return Scored(None, self.detail())
        return Scored(value, {"value": value, "scores": scores, **self.detail()})


def verdicts(judgment: Judgment, tag: str, n: int) -> list[int]:
    """The numbered verdicts ``<tag_1>`` .. ``<tag_n>`` of a per-item judgment, in order."""
    return [int(judgment.scores[f"{tag}_{i}"]) for i in range(1, n + 1)]
