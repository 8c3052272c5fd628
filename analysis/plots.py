"""Figures with matplotlib's object API (``Figure``: Agg for PNG, the PDF backend for PDF; no
pyplot, no global backend switch), each written as PNG and PDF.

    ablation_figure   Figure 3 of the paper: one panel each for Image F1, Img-CBS and Average
                      Score, one bar per variant, error bars the 95% CI x̄ ± 1.96 s/√n over the
                      questions. Average Score is the per-question mean of Img-F1, Img-CBS and
                      Qual./5; where Qual. was not computed (no judge) it is the mean of Img-F1
                      and Img-CBS, and the panel says so.
One run's own figure is ``ham.report.figure.run_figure``; the bars are drawn the same way.
"""
from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ham.metrics.confidence import normal_ci
from ham.metrics.registry import registry
from ham.report.figure import CI_NOTE, bars, qual_computed, save

from .collect import Run
from .tables import per_question

FIGURE3_METRICS = ("image_f1", "img_cbs", "average_score")



def ablation_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    fig = Figure(figsize=(11, 3.8), layout="constrained")
    axes = fig.subplots(1, len(FIGURE3_METRICS))
    colors = [f"C{i % 10}" for i in range(len(runs))]
    for ax, metric in zip(axes, FIGURE3_METRICS):
        intervals = [normal_ci(per_question(run, metric).values()) for run in runs]
        bars(ax, [f"{lab}\n(n={c.n})" for lab, c in zip(labels, intervals)], intervals, colors)
        ax.set_title(registry()[metric].title, fontsize=10)
    missing = [lab for lab, run in zip(labels, runs) if not qual_computed(run.metrics)]
    if missing:
        axes[-1].set_title("Average Score (Qual. not computed:\nmean of Img-F1 and Img-CBS)", fontsize=9)
    fig.suptitle(f"{title} ({CI_NOTE})", fontsize=10)
    return save(fig, stem)
