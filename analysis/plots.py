"""Figures with matplotlib's object API (``Figure``: Agg for PNG, the PDF backend for PDF; no
pyplot, no global backend switch), each written as PNG and PDF.

    ablation_figure   Figure 3 of the paper: one panel each for Image F1, Img-CBS and Average
                      Score, one bar per variant, error bars the 95% CI x̄ ± 1.96 s/√n over the
                      questions. Average Score is the per-question mean of Img-F1, Img-CBS and
                      Qual./5; a run that did not compute a part (Qual. without a judge) averages
                      the others: its bar is marked † and the panel says what it lacks, bar by bar.
One run's own figure is ``ham.report.figure.run_figure``; the bars are drawn the same way.
"""
from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ham.metrics.average import AVERAGE_SCORE_PARTS
from ham.metrics.confidence import normal_ci
from ham.metrics.registry import registry
from ham.report.figure import CI_NOTE, bars, save

from .collect import Run
from .tables import PARTIAL, average_parts, parts_text, per_question

FIGURE3_METRICS = ("image_f1", "img_cbs", "average_score")


def ablation(runs: list[Run], labels: list[str], title: str) -> Figure:
    fig = Figure(figsize=(11, 3.8), layout="constrained")
    axes = fig.subplots(1, len(FIGURE3_METRICS))
    colors = [f"C{i % 10}" for i in range(len(runs))]
    lacking = {lab: [p for p in AVERAGE_SCORE_PARTS if p not in average_parts(run)] for lab, run in zip(labels, runs)}
    for ax, metric in zip(axes, FIGURE3_METRICS):
        intervals = [normal_ci(per_question(run, metric).values()) for run in runs]
        marked = [lab + (PARTIAL if metric == "average_score" and lacking[lab] else "") for lab in labels]
        bars(ax, [f"{lab}\n(n={c.n})" for lab, c in zip(marked, intervals)], intervals, colors)
        ax.set_title(registry()[metric].title, fontsize=10)
    said = sorted({parts_text(parts) for parts in lacking.values() if parts})
    if said:
        axes[-1].set_xlabel(f"{PARTIAL} without " + "; ".join(
            f"{text}: {', '.join(lab for lab, parts in lacking.items() if parts_text(parts) == text)}" for text in said)
            + "\n(the mean of the other parts: not comparable with a full bar)", fontsize=7)
    fig.suptitle(f"{title} ({CI_NOTE})", fontsize=10)
    return fig


def ablation_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    return save(ablation(runs, labels, title), stem)
