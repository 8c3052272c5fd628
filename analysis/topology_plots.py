"""TopoGraphRAG-Bench style figures (matplotlib's object API, PNG and PDF), one per dataset:

    topology_figure   Figure 3: grouped bars per subset (single-hop text / figure / table,
                      bridge-chain text-only and cross-modal ("Bridge-MM"), synthesis text-only and
                      cross-modal ("Synthesis-MM")), one bar per variant, a panel per metric
    path_figure       Figure 4: bridge chains by ordered modality path (text→text, figure→table,
                      ...), one bar per variant, a panel per metric

Panels: answer accuracy and step coverage where a judge scored them, and the judge-free
structural metrics (gold-unit recall; both hops and ordered chain for paths), each only where
some question has a value. Whiskers are the 95% CI x̄ ± 1.96 s/√n over the subset's questions;
n per bar is printed at its foot. A subset no question falls in is left out.
"""
from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ham.metrics.confidence import normal_ci
from ham.metrics.registry import registry
from ham.report.figure import CI_NOTE, save

from .collect import Run
from .topology import strata

FIGURE3_METRICS = ("answer_accuracy", "step_coverage", "gold_unit_recall")
FIGURE4_METRICS = ("answer_accuracy", "step_coverage", "both_hops", "ordered_chain")


def subset(row: dict) -> str | None:
    """The Figure 3 subset of a question."""
    s = strata(row)
    if not s:
        return None
    if s["topology"] == "single-hop":
        return "Single-hop " + s["path"].split(": ", 1)[1]
    name = "Bridge" if s["topology"] == "bridge-chain" else "Synthesis"
    return f"{name}-MM" if s["modality"] == "cross-modal" else f"{name}-text"


def bridge_path(row: dict) -> str | None:
    s = strata(row)
    return s["path"].split(": ", 1)[1] if s and s["topology"] == "bridge-chain" else None


def _grouped(ax, groups: list[str], runs: list[Run], labels: list[str], metric: str, key) -> None:
    width = 0.8 / max(1, len(runs))
    for j, (run, label) in enumerate(zip(runs, labels)):
        intervals = [normal_ci((r.get("metrics") or {}).get(metric) for r in run.rows if key(r) == g) for g in groups]
        xs = [i + (j - (len(runs) - 1) / 2) * width for i in range(len(groups))]
        means = [c.mean or 0.0 for c in intervals]
        err = [[(c.mean - c.low) if c.low is not None else 0.0 for c in intervals],
               [(c.high - c.mean) if c.high is not None else 0.0 for c in intervals]]
        ax.bar(xs, means, width=width, yerr=err, capsize=3, color=f"C{j % 10}", edgecolor="black", linewidth=0.5,
               label=label)
        for x, c in zip(xs, intervals):
            ax.annotate("n/a" if c.mean is None else f"n={c.n}", (x, 0), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=6, rotation=90 if len(runs) > 2 else 0)
    ax.set_xticks(range(len(groups)), groups, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.15)
    ax.set_title(registry()[metric].title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def _figure(runs: list[Run], labels: list[str], stem: Path, title: str, key, metrics, order) -> list[Path]:
    groups = sorted({g for run in runs for g in map(key, run.rows) if g is not None}, key=order)
    shown = [m for m in metrics if any((r.get("metrics") or {}).get(m) is not None
                                       for run in runs for r in run.rows if key(r) is not None)]
    if not groups or not shown:
        return []
    fig = Figure(figsize=(max(6.0, 1.2 * len(groups) * len(shown) + 2), 4.2), layout="constrained")
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    for ax, metric in zip(axes, shown):
        _grouped(ax, groups, runs, labels, metric, key)
    axes[0].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{title} ({CI_NOTE})", fontsize=10)
    return save(fig, stem)


_SUBSETS = ["Single-hop text", "Single-hop figure", "Single-hop table", "Bridge-text", "Bridge-MM",
            "Synthesis-text", "Synthesis-MM"]


def topology_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    return _figure(runs, labels, stem, f"{title}: by topology and modality", subset, FIGURE3_METRICS,
                   lambda g: (_SUBSETS.index(g) if g in _SUBSETS else len(_SUBSETS), g))


def path_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    return _figure(runs, labels, stem, f"{title}: bridge chains by ordered modality path", bridge_path,
                   FIGURE4_METRICS, lambda g: g)
