"""Confidence intervals and paired comparisons over per-question scores (scipy.stats).

    normal_ci        the paper's 95% interval, x̄ ± 1.96 s/√n (s with ddof=1), as in Figure 3
    bootstrap_ci     scipy.stats.bootstrap of the mean (BCa by default; percentile on request);
                     a sample whose values are all equal has the degenerate interval [x, x]
    paired           variant A vs B on the questions both answered with the metric defined: the
                     mean difference A − B with a paired bootstrap CI (questions resampled as
                     pairs) and the Wilcoxon signed-rank test (scipy.stats.wilcoxon, two-sided,
                     zero differences dropped as in Wilcoxon's method); n is reported

Values that are None or NaN (undefined for that question) are left out and n says how many were
used. Bootstraps are seeded, so the same data give the same interval.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping

import numpy as np
from scipy import stats

from ham.metrics.confidence import Interval, normal_ci  # noqa: F401  (the paper's interval, shared with ham)
from ham.metrics.confidence import clean as _clean



def bootstrap_ci(values: Iterable, n_resamples: int = 10_000, seed: int = 0, method: str = "BCa",
                 confidence: float = 0.95) -> Interval:
    x = _clean(values)
    if len(x) == 0:
        return Interval(None, None, None, 0)
    mean = float(x.mean())
    if len(x) == 1 or np.ptp(x) == 0:
        return Interval(mean, mean, mean, len(x))
    res = stats.bootstrap((x,), np.mean, n_resamples=n_resamples, confidence_level=confidence, method=method,
                          rng=np.random.default_rng(seed))
    return Interval(mean, float(res.confidence_interval.low), float(res.confidence_interval.high), len(x))


@dataclass(frozen=True)
class Paired:
    n: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None          # mean of A − B over the paired questions
    low: float | None           # paired bootstrap CI of the mean difference
    high: float | None
    wilcoxon: float | None      # the signed-rank statistic (scipy's: min of W+ and W− two-sided)
    p_value: float | None
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def pair_up(a: Mapping[str, object], b: Mapping[str, object]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Question ids scored (not None/NaN) in both, with their values in the same order."""
    def ok(v) -> bool:
        return v is not None and not math.isnan(float(v))
    ids = sorted(k for k in a.keys() & b.keys() if ok(a[k]) and ok(b[k]))
    return ids, np.array([float(a[k]) for k in ids]), np.array([float(b[k]) for k in ids])


def paired(a: Mapping[str, object], b: Mapping[str, object], n_resamples: int = 10_000, seed: int = 0,
           confidence: float = 0.95) -> Paired:
    """Compare A with B (question id -> score) on the questions both have."""
    ids, xa, xb = pair_up(a, b)
    n = len(ids)
    if n == 0:
        return Paired(0, None, None, None, None, None, None, None, "no question scored by both")
    d = xa - xb
    diff = float(d.mean())
    if n == 1 or np.ptp(d) == 0:
        low = high = diff
    else:
        res = stats.bootstrap((xa, xb), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True,
                              vectorized=True, n_resamples=n_resamples, confidence_level=confidence,
                              method="percentile", rng=np.random.default_rng(seed))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not np.any(d != 0):
        return Paired(n, float(xa.mean()), float(xb.mean()), diff, low, high, 0.0, 1.0,
                      "all paired differences are zero")
    w = stats.wilcoxon(xa, xb)
    return Paired(n, float(xa.mean()), float(xb.mean()), diff, low, high, float(w.statistic), float(w.pvalue))
