"""Confidence intervals and paired tests, checked by hand and against scipy on known data."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from ham_analysis.stats import bootstrap_ci, normal_ci, paired

# the signed differences of scipy's and many textbooks' Wilcoxon example (Cushny & Peebles data)
D = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]


def test_normal_ci_by_hand_and_against_scipy_sem():
    ci = normal_ci([1, 2, 3, 4, 5])
    half = 1.96 * math.sqrt(2.5) / math.sqrt(5)       # s = sqrt(2.5) with ddof=1
    assert (ci.mean, ci.n) == (3.0, 5)
    assert ci.low == pytest.approx(3 - half) and ci.high == pytest.approx(3 + half)
    x = np.random.default_rng(1).normal(0.6, 0.2, 540)
    ci = normal_ci(x)
    assert ci.high - ci.mean == pytest.approx(1.96 * sps.sem(x))


def test_undefined_values_are_left_out_and_n_says_so():
    ci = normal_ci([1.0, None, 3.0, float("nan")])
    assert ci.n == 2 and ci.mean == 2.0
    assert normal_ci([]).mean is None and normal_ci([0.5]).low is None


def test_bootstrap_agrees_with_scipy_and_with_the_normal_interval():
    x = np.random.default_rng(2).normal(0.5, 0.2, 400)
    ours = bootstrap_ci(x, n_resamples=2000, seed=7)
    theirs = sps.bootstrap((x,), np.mean, n_resamples=2000, rng=np.random.default_rng(7)).confidence_interval
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high))
    normal = normal_ci(x)
    assert ours.low == pytest.approx(normal.low, abs=0.004) and ours.high == pytest.approx(normal.high, abs=0.004)
    pct = bootstrap_ci(x, n_resamples=2000, seed=7, method="percentile")
    assert pct.low < normal.mean < pct.high


def test_bootstrap_of_constant_scores_is_degenerate():
    ci = bootstrap_ci([0.0] * 10)
    assert (ci.mean, ci.low, ci.high, ci.n) == (0.0, 0.0, 0.0, 10)


def test_wilcoxon_matches_the_exact_distribution_by_enumeration():
    a = {f"q{i}": 100 + d for i, d in enumerate(D)}
    b = {f"q{i}": 100 for i in range(len(D))}
    result = paired(a, b, n_resamples=2000)
    ranks = sps.rankdata(np.abs(D))
    w_minus = sum(r for r, d in zip(ranks, D) if d < 0)
    assert w_minus == 24 and result.wilcoxon == 24.0
    # exact two-sided p: share of the 2^15 sign assignments with min(W+, W-) <= 24
    total = ranks.sum()
    hits = sum(min(w, total - w) <= 24 for w in (sum(r for r, s in zip(ranks, signs) if s)
                                                 for signs in itertools.product((0, 1), repeat=len(D))))
    assert result.p_value == pytest.approx(hits / 2 ** len(D)) and result.p_value == pytest.approx(0.041259765625)
    assert result.n == 15 and result.diff == pytest.approx(np.mean(D))


def test_paired_uses_the_questions_both_scored():
    a = {"q1": 1.0, "q2": 0.5, "q3": None, "q4": 0.2}
    b = {"q1": 0.5, "q2": 0.5, "q3": 0.9, "q5": 1.0}
    r = paired(a, b)
    assert r.n == 2 and r.mean_a == 0.75 and r.mean_b == 0.5 and r.diff == 0.25
    same = paired({"q1": 1.0, "q2": 0.0}, {"q1": 1.0, "q2": 0.0})
    assert same.p_value == 1.0 and same.diff == 0.0 and "zero" in same.note
    assert paired({"q1": 1.0}, {"q2": 1.0}).n == 0


def test_paired_bootstrap_is_narrower_than_unpaired_on_correlated_scores():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 300)
    a = {f"q{i}": v + 0.05 + rng.normal(0, 0.02) for i, v in enumerate(base)}
    b = {f"q{i}": v for i, v in enumerate(base)}
    r = paired(a, b, n_resamples=2000)
    assert r.low < 0.05 < r.high and r.low > 0, "covers the true shift and excludes 0"
    unpaired_half = 1.96 * math.sqrt(np.var(list(a.values()), ddof=1) / 300 + np.var(base, ddof=1) / 300)
    assert (r.high - r.low) / 2 < unpaired_half / 5
    assert r.p_value < 1e-10
