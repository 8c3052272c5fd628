"""Token usage and cost of a run, from the per-question usage in its predictions.

Prices come from the config's price table (``conf/cost/default.yaml``: US dollars per 1M prompt
and per 1M completion tokens, per backbone). A run is priced under ``cost.pricing`` when set (the
paper quotes every method under GPT-4o pricing), else under its generator's own ``pricing`` row;
a backbone without a row (self-hosted models) gets token counts but no cents. Neither setting is in
the run id: relaunching a finished run with another price writes its cost block again from the
recorded tokens (``ham.run.job.reprice``), asking no model. Totals are summed
over all questions and divided by the number of questions; a question without a reply (a
model-free generator, or a failure before any reply) counts zero tokens; a GraphRAG system's
question answered again also counts the attempts it replaced.

A reply whose server sent no token usage (``transformers serve`` never does; others only when
asked) is *unknown*, not free: ``questions_without_usage`` counts them, and with any such reply
the token totals cover only the questions with usage and ``cents_total`` is None with
``cents_unknown`` saying why.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Dict, Optional

from ham.settings import Doc, NotResult, setting


@dataclass
class CostSettings:
    """The ``cost`` group: the price table and the row a run is priced under (module docstring)."""

    pricing: Optional[str] = setting(None, NotResult("cents are computed from recorded tokens; a relaunch of a finished run prices it again"),
                                     Doc("price every run under this row (the paper: gpt4o); None: the "
                                         "generator's own row"))
    prices: Dict[str, Dict[str, float]] = setting(default_factory=dict, marks=(NotResult(
        "cents are computed from recorded tokens; a relaunch of a finished run prices it again"),), doc=Doc(
        "USD per 1M prompt and per 1M completion tokens, per backbone"))


def question_cents(usage: Mapping, price: Mapping) -> float:
    """Cents for one question: tokens / 1e6 * USD per 1M tokens * 100."""
    return (usage.get("prompt_tokens", 0) * float(price["prompt"]) +
            usage.get("completion_tokens", 0) * float(price["completion"])) / 1e4


def _totals(values: list[int], n: int) -> dict:
    total = sum(values)
    return {"total": total, "mean": round(total / n, 3) if n else None}


def cost_summary(rows: list[dict], cost_cfg: Mapping, generator_pricing: str | None) -> dict:
    pricing = cost_cfg.get("pricing") or generator_pricing
    prices = cost_cfg.get("prices") or {}
    if pricing is not None and pricing not in prices:
        raise ValueError(f"cost.pricing={pricing!r} has no row in the price table; known: {sorted(prices)}")
    price = prices.get(pricing) if pricing else None
    usages = [_usage(r) for r in rows]
    n = len(rows)
    # a reply came (raw text, or a reply cut at max_tokens) but without usage: its cost is unknown
    unknown = sum(1 for r, u in zip(rows, usages) if not u and _replied(r))
    summary = {"pricing": pricing, "usd_per_1m_tokens": dict(price) if price else None,
               "questions_with_usage": sum(1 for u in usages if u), "questions_without_usage": unknown,
               "cached_generations": sum(1 for r in rows if (r.get("generation") or {}).get("cached")),
               "prompt_tokens": _totals([u.get("prompt_tokens", 0) for u in usages], n),
               "completion_tokens": _totals([u.get("completion_tokens", 0) for u in usages], n),
               "cents_total": None, "cents_per_question": None}
    if price is not None and unknown:
        summary["cents_unknown"] = (f"{unknown} of {n} replies came without token usage from the server; "
                                    "their cost is unknown")
    elif price is not None:
        cents = sum(question_cents(u, price) for u in usages)
        summary.update(cents_total=round(cents, 4), cents_per_question=round(cents / n, 4) if n else None)
    return summary


def _usage(row: dict) -> dict:
    """A question's tokens: its reply's, plus, for a GraphRAG system's question answered again, the
    attempts it replaced (``system.usage_earlier``: they were paid for too)."""
    usage = dict((row.get("generation") or {}).get("usage") or {})
    earlier = (row.get("system") or {}).get("usage_earlier") or {}
    for key in ("prompt_tokens", "completion_tokens"):
        if earlier.get(key):
            usage[key] = usage.get(key, 0) + earlier[key]
    return usage


def _replied(row: dict) -> bool:
    """Whether a model replied to this question (a model-free generator has no ``finish_reason``
    and no attempts; a request that failed before any reply has no text)."""
    generation = row.get("generation") or {}
    if not (generation.get("attempts") or generation.get("finish_reason")):
        return False
    return row.get("raw_answer") is not None or generation.get("finish_reason") == "length"
