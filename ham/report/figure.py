"""A run's metrics as a figure (matplotlib's object API: ``Figure``, Agg for PNG and the PDF
backend for PDF; no pyplot, no global backend switch), written as PNG and PDF.

``run_figure``: every per-question metric the run computed, its mean with the paper's 95% CI
x̄ ± 1.96 s/√n over the questions (Qual. drawn as Qual./5 to share the 0-1 axis); metrics not
computed or undefined for every question are listed under the axis. ``bars`` and ``save`` serve
``analysis.plots`` as well.
"""
from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ham.metrics.confidence import normal_ci
from ham.metrics.registry import registry
from ham.report.viewer import RunFiles

CI_NOTE = "bars: mean; whiskers: 95% CI, x̄ ± 1.96 s/√n"


def save(fig: Figure, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    fig.savefig(paths[0], dpi=150)
    fig.savefig(paths[1])
    return paths


def bars(ax, labels: list[str], intervals, colors) -> None:
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


def qual_computed(metrics_json: dict) -> bool:
    entry = (metrics_json.get("metrics") or {}).get("overall_quality") or {}
    return bool(entry.get("computed", False)) and entry.get("mean") is not None


def run_figure(run: RunFiles, stem: Path, title: str) -> list[Path]:
    known = registry()
    shown, not_computed = [], []     # shown: (metric, label, interval)
    for metric in run.metrics.get("metrics") or {}:
        spec = known.get(metric)
        values = [r["metrics"].get(metric) for r in run.rows if r.get("metrics", {}).get(metric) is not None]
        label = spec.title if spec else metric
        if not values:
            not_computed.append(label)
            continue
        high = spec.value_range[1] if spec else 1.0
        scale = 1 / high if high > 1 else 1.0
        shown.append((metric, f"{label}/{high:g}" if scale != 1 else label, normal_ci(v * scale for v in values)))
    fig = Figure(figsize=(max(5.0, 0.9 * len(shown) + 1.5), 3.8), layout="constrained")
    ax = fig.subplots()
    colors = ["C0" if (known.get(m) and known[m].family == "retrieval") else "C1" for m, _, _ in shown]
    bars(ax, [f"{label}\n(n={c.n})" for _, label, c in shown], [c for _, _, c in shown], colors)
    note = f"{CI_NOTE}; blue: retrieval, orange: generation"
    if not_computed:
        note += f"\nnot computed or undefined for every question: {', '.join(not_computed)}"
    ax.set_xlabel(note, fontsize=8)
    suffix = "" if qual_computed(run.metrics) else "\n(Average Score without Qual.: mean of Img-F1 and Img-CBS)"
    ax.set_title(title + suffix, fontsize=9)
    return save(fig, stem)
