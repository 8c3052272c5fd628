"""The view of one run, from its folder alone: ``report.html`` (every answer with its images
inline, the reference, the retrieved evidence and the scores) and ``metrics.png``/``.pdf``.
``ham``, ``ham-ask`` and ``ham-analyze`` all render through it.

    viewer.py   reading a run folder; question views; the Jinja2 pages (autoescaped)
    figure.py   the run's metrics with 95% CIs (matplotlib object API)
"""
from __future__ import annotations

from pathlib import Path


def write_run_artifacts(run_dir: str | Path) -> dict[str, Path]:
    """``metrics.png``/``.pdf`` and ``report.html`` in the run folder."""
    from ham.report.figure import run_figure
    from ham.report.viewer import read_run, write_run_report

    run = read_run(run_dir)
    shown = ("dataset", "method", "generator", "text_repr", "image_repr")
    title = f"run {run.run_id}: " + ", ".join(f"{k}={v}" for k, v in run.choices.items() if k in shown)
    png, pdf = run_figure(run, run.path / "metrics", title)
    return {"plot": png, "plot_pdf": pdf, "report": write_run_report(run.path, plot=png.name)}
