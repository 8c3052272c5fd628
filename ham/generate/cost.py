"""Token usage and cost of a run, from the per-question usage in its predictions.

Prices come from the config's price table (``conf/cost/default.yaml``: US dollars per 1M prompt
and per 1M completion tokens, per backbone). A run is priced under ``cost.pricing`` when set (the
paper quotes every method under GPT-4o pricing), else under its generator's own ``pricing`` row;
a backbone without a row (self-hosted models) gets token counts but no cents. Totals are summed
over all questions and divided by the number of questions; a question without usage (a
model-free generator, or a failure before any reply) counts zero tokens.
"""
from __future__ import annotations

from collections.abc import Mapping


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
    usages = [(r.get("generation") or {}).get("usage") or {} for r in rows]
    n = len(rows)
    summary = {"pricing": pricing, "usd_per_1m_tokens": dict(price) if price else None,
               "questions_with_usage": sum(1 for u in usages if u),
               "cached_generations": sum(1 for r in rows if (r.get("generation") or {}).get("cached")),
               "prompt_tokens": _totals([u.get("prompt_tokens", 0) for u in usages], n),
               "completion_tokens": _totals([u.get("completion_tokens", 0) for u in usages], n),
               "cents_total": None, "cents_per_question": None}
    if price is not None:
        cents = sum(question_cents(u, price) for u in usages)
        summary.update(cents_total=round(cents, 4), cents_per_question=round(cents / n, 4) if n else None)
    return summary
