"""The metric registry: each metric knows whether higher is better, how it aggregates, and
whether it needs an LLM judge. Per-question values of None (undefined) are left out of the mean;
the number of questions used is reported beside every mean."""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricSpec:
    name: str
    family: str            # "retrieval" or "generation"
    higher_is_better: bool = True
    aggregation: str = "mean"
    needs_judge: bool = False
    description: str = ""


REGISTRY: dict[str, MetricSpec] = {}


def register(spec: MetricSpec) -> MetricSpec:
    if spec.name in REGISTRY:
        raise ValueError(f"metric {spec.name!r} registered twice")
    REGISTRY[spec.name] = spec
    return spec


for _spec in (
    MetricSpec("ir", "retrieval", description="share of reference images among the k_v retrieved images"),
    MetricSpec("gold_text_recall", "retrieval", description="share of gold passages inside the k_t retrieved text units"),
    MetricSpec("image_precision", "generation", description="|G∩P|/|P| over image sets"),
    MetricSpec("image_recall", "generation", description="|G∩P|/|G| over image sets"),
    MetricSpec("image_f1", "generation", description="harmonic mean of image precision and recall"),
    MetricSpec("img_cbs", "generation", description="BERTScore F1 of answer vs reference context around each correctly selected image"),
):
    register(_spec)


def aggregate(per_question: list[dict], names: list[str] | None = None) -> dict[str, dict]:
    """Mean and n of each metric over the questions where it is defined."""
    out = {}
    for name in names or list(REGISTRY):
        spec = REGISTRY[name]
        values = [q[name] for q in per_question if q.get(name) is not None]
        mean = sum(values) / len(values) if values else None
        out[name] = {"mean": mean, "n": len(values), "higher_is_better": spec.higher_is_better,
                     "family": spec.family}
        if mean is not None and math.isnan(mean):
            raise ValueError(f"metric {name} produced NaN")
    return out
