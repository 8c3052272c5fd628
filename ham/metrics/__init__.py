"""The metric registry: each metric knows whether higher is better, how it aggregates, whether it
needs an LLM judge, its label in tables and the scale it is printed on.

Per-question values of None are left out of the mean and the number of questions used is reported
beside every mean. None means *undefined* for that question (IR or Img-CBS without reference
images) or, for a judged metric, that the judge gave no valid score (a judge failure, counted in
``metrics.json``). A judged metric of a run without a judge is *not computed*: its summary says so
with the reason instead of a mean.

Derived scores (paper 5.1.3 and 5.3):
    Average Score (per question) = mean of Img-F1, Img-CBS and Qual./5 over those defined for
        the question; without a judge it averages Img-F1 and Img-CBS and says so.
    M Avg. (a table column, analysis/tables.py) = unweighted mean over datasets of Img-F1,
        Img-CBS and Qual. x 20, all on a 0-100 scale (Img-F1 and Img-CBS x 100).
"""
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
    label: str = ""        # column header in tables and plots
    table_scale: float = 1.0   # printed value = mean x table_scale (Table 3 prints Img-F1 x 100)
    value_range: tuple[float, float] = (0.0, 1.0)

    @property
    def title(self) -> str:
        return self.label or self.name


REGISTRY: dict[str, MetricSpec] = {}


def register(spec: MetricSpec) -> MetricSpec:
    if spec.name in REGISTRY:
        raise ValueError(f"metric {spec.name!r} registered twice")
    if spec.aggregation not in AGGREGATIONS:
        raise ValueError(f"metric {spec.name!r}: unknown aggregation {spec.aggregation!r}")
    REGISTRY[spec.name] = spec
    return spec


AGGREGATIONS = {"mean": lambda values: math.fsum(values) / len(values)}

for _spec in (
    MetricSpec("tcr15", "retrieval", needs_judge=True, label="TCR@15",
               description="LLM judge: do the top-15 retrieved text units together suffice to answer (1) or not (0)"),
    MetricSpec("ir", "retrieval", label="IR", description="share of reference images among the k_v retrieved images"),
    MetricSpec("gold_text_recall", "retrieval", label="Gold-text R",
               description="share of gold passages inside the k_t retrieved text units"),
    MetricSpec("image_precision", "generation", label="Img-P", table_scale=100, description="|G∩P|/|P| over image sets"),
    MetricSpec("image_recall", "generation", label="Img-R", table_scale=100, description="|G∩P|/|G| over image sets"),
    MetricSpec("image_f1", "generation", label="Img-F1", table_scale=100,
               description="harmonic mean of image precision and recall"),
    MetricSpec("img_cbs", "generation", label="Img-CBS", table_scale=100,
               description="BERTScore F1 of answer vs reference context around each correctly selected image"),
    MetricSpec("overall_quality", "generation", needs_judge=True, label="Qual.", value_range=(0.0, 5.0),
               description="LLM judge 1-5: correctness, completeness, grounding, text-image coherence (0 if failed)"),
    MetricSpec("average_score", "generation", label="Average Score",
               description="per-question mean of Img-F1, Img-CBS and Qual./5 (those defined)"),
):
    register(_spec)

AVERAGE_SCORE_PARTS = {"image_f1": 1.0, "img_cbs": 1.0, "overall_quality": 1 / 5}
M_AVG_PARTS = {"image_f1": 100.0, "img_cbs": 100.0, "overall_quality": 20.0}


def average_score(scores: dict) -> float | None:
    """Per-question Average Score: mean of Img-F1, Img-CBS and Qual./5 over the parts defined
    (not None) for this question; None when none is."""
    parts = [scores[k] * w for k, w in AVERAGE_SCORE_PARTS.items() if scores.get(k) is not None]
    return math.fsum(parts) / len(parts) if parts else None


def aggregate(per_question: list[dict], names: list[str] | None = None,
              not_computed: dict[str, str] | None = None) -> dict[str, dict]:
    """Mean and n of each metric over the questions where it is defined. Metrics named in
    ``not_computed`` (name -> reason) get ``mean`` None, ``computed`` False and the reason."""
    not_computed = not_computed or {}
    out = {}
    for name in names or list(REGISTRY):
        spec = REGISTRY[name]
        entry = {"higher_is_better": spec.higher_is_better, "family": spec.family}
        if name in not_computed:
            out[name] = {"mean": None, "n": 0, "computed": False, "reason": not_computed[name], **entry}
            continue
        values = [q[name] for q in per_question if q.get(name) is not None]
        mean = AGGREGATIONS[spec.aggregation](values) if values else None
        if mean is not None and math.isnan(mean):
            raise ValueError(f"metric {name} produced NaN")
        out[name] = {"mean": mean, "n": len(values), "computed": True, **entry}
    return out
