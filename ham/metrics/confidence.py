"""The paper's 95% confidence interval of a mean, x̄ ± 1.96 s/√n (s with ddof=1), over the
per-question values defined (None and NaN left out; n says how many were used). Bootstrap and
paired intervals are in ``analysis.stats``."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

Z95 = 1.96   # the paper's multiplier, not the exact normal quantile 1.95996...


@dataclass(frozen=True)
class Interval:
    mean: float | None
    low: float | None
    high: float | None
    n: int


def clean(values: Iterable) -> np.ndarray:
    return np.asarray([float(v) for v in values if v is not None and not math.isnan(float(v))], dtype=float)


def normal_ci(values: Iterable) -> Interval:
    x = clean(values)
    if len(x) == 0:
        return Interval(None, None, None, 0)
    mean = float(x.mean())
    if len(x) == 1:
        return Interval(mean, None, None, 1)
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return Interval(mean, mean - half, mean + half, len(x))
