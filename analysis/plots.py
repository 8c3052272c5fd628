"""Figures with matplotlib's object API (``Figure``: Agg for PNG, the PDF backend for PDF; no
pyplot, no global backend switch), each written as PNG and PDF.

    ablation_figure   Figure 3 of the paper: one panel each for Image F1, Img-CBS and Average
                      Score, one bar per variant, error bars the 95% CI x̄ ± 1.96 s/√n over the
                      questions. Average Score is the per-question mean of Img-F1, Img-CBS and
                      Qual./5; where Qual. was not computed (no judge) it is the mean of Img-F1
                      and Img-CBS, and the panel says so.
    run_figure        one run: every per-question metric it computed, mean with the same CI
                      (Qual. drawn as Qual./5 to share the 0-1 axis); not computed ones listed.
"""
from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from analysis.collect import Run
from analysis.stats import normal_ci
from analysis.tables import per_question
from ham.metrics import REGISTRY

FIGURE3_METRICS = ("image_f1", "img_cbs", "average_score")
RUN_METRICS = ("tcr15", "ir", "gold_text_recall", "image_precision", "image_recall", "image_f1", "img_cbs",
               "overall_quality", "average_score")
CI_NOTE = "bars: mean; whiskers: 95% CI, x̄ ± 1.96 s/√n"


def qual_computed(run: Run) -> bool:
    entry = run.metrics["metrics"].get("overall_quality") or {}
    return entry.get("computed", entry.get("mean") is not None) and entry.get("mean") is not None


def _save(fig: Figure, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    fig.savefig(paths[0], dpi=150)
    fig.savefig(paths[1])
    return paths


def _bars(ax, labels: list[str], intervals, colors) -> None:
    means = [c.mean if c.mean is not None else 0.0 for c in intervals]
    err = [[(c.mean - c.low) if c.low is not None else 0.0 for c in intervals],
           [(c.high - c.mean) if c.high is not None else 0.0 for c in intervals]]
    ax.bar(range(len(means)), means, yerr=err, capsize=4, color=colors, edgecolor="black", linewidth=0.5)
    for i, (c, m) in enumerate(zip(intervals, means)):
        ax.annotate("n/a" if c.mean is None else f"{m:.2f}", (i, (c.high if c.high is not None else m)),
                    xytext=(0, 3), textcoords="offset points", ha="center", fontsize=8)
    ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.1 if max(means, default=0) <= 1 else None)
    ax.grid(axis="y", alpha=0.3)


def ablation_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    fig = Figure(figsize=(11, 3.8), layout="constrained")
    axes = fig.subplots(1, len(FIGURE3_METRICS))
    colors = [f"C{i % 10}" for i in range(len(runs))]
    for ax, metric in zip(axes, FIGURE3_METRICS):
        intervals = [normal_ci(per_question(run, metric).values()) for run in runs]
        _bars(ax, [f"{lab}\n(n={c.n})" for lab, c in zip(labels, intervals)], intervals, colors)
        ax.set_title(REGISTRY[metric].title, fontsize=10)
    missing = [lab for lab, run in zip(labels, runs) if not qual_computed(run)]
    if missing:
        axes[-1].set_title("Average Score (Qual. not computed:\nmean of Img-F1 and Img-CBS)", fontsize=9)
    fig.suptitle(f"{title} ({CI_NOTE})", fontsize=10)
    return _save(fig, stem)


def run_figure(run: Run, stem: Path, title: str) -> list[Path]:
    shown, not_computed = [], []     # shown: (metric, label, interval)
    for metric in RUN_METRICS:
        values = [v for v in per_question(run, metric).values() if v is not None]
        if not values:
            not_computed.append(REGISTRY[metric].title)
            continue
        scale = 1 / 5 if metric == "overall_quality" else 1.0
        label = "Qual./5" if metric == "overall_quality" else REGISTRY[metric].title
        shown.append((metric, label, normal_ci(v * scale for v in values)))
    fig = Figure(figsize=(max(5.0, 0.9 * len(shown) + 1.5), 3.8), layout="constrained")
    ax = fig.subplots()
    colors = ["C0" if REGISTRY[m].family == "retrieval" else "C1" for m, _, _ in shown]
    _bars(ax, [f"{label}\n(n={c.n})" for _, label, c in shown], [c for _, _, c in shown], colors)
    note = f"{CI_NOTE}; blue: retrieval, orange: generation"
    if not_computed:
        note += f"\nnot computed or undefined for every question: {', '.join(not_computed)}"
    ax.set_xlabel(note, fontsize=8)
    suffix = "" if qual_computed(run) else "\n(Average Score without Qual.: mean of Img-F1 and Img-CBS)"
    ax.set_title(title + suffix, fontsize=9)
    return _save(fig, stem)
