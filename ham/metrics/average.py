"""Scores derived from other metrics (paper 5.1.3 and 5.3).

    Average Score (per question) = mean of Img-F1, Img-CBS and Qual./5 over those defined for the
        question (a run without a judge averages Img-F1 and Img-CBS, and says so); where a part's
        judge call failed it fails too (``part_failed``, counted in ``n_failed``), never a mean
        over fewer parts
    M Avg. (a table column, analysis/tables.py) = unweighted mean over datasets of Img-F1,
        Img-CBS and Qual. x 20, all on a 0-100 scale (Img-F1 and Img-CBS x 100)
"""
from __future__ import annotations

import math

from ham.metrics.registry import Case, Resources, metric

AVERAGE_SCORE_PARTS = {"image_f1": 1.0, "img_cbs": 1.0, "overall_quality": 1 / 5}
M_AVG_PARTS = {"image_f1": 100.0, "img_cbs": 100.0, "overall_quality": 20.0}


def average_score(scores: dict) -> float | None:
    """Mean of Img-F1, Img-CBS and Qual./5 over the parts defined (not None); None when none is."""
    parts = [scores[k] * w for k, w in AVERAGE_SCORE_PARTS.items() if scores.get(k) is not None]
    return math.fsum(parts) / len(parts) if parts else None


@metric("average_score", after=tuple(AVERAGE_SCORE_PARTS), label="Average Score",
        description="per-question mean of Img-F1, Img-CBS and Qual./5 (those defined)")
def average(case: Case, res: Resources) -> float | None:
    return average_score(case.scores)
