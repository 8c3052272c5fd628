"""Structure against pixels (``grid=structure_vs_pixels``): page-level retrieval quality against
what it costs, from the runs' own records.

    pixels_table    per dataset and variant: nDCG@5/@10, MMDocIR page recall@1/@5 and evidence
                    recall through pages, each x̄ ± 1.96 s/√n (n), beside the index bytes, bytes
                    per page and the query latency (p50 and p95 of the rows' ``retrieval_seconds``,
                    milliseconds)
    pareto_figure   two panels per dataset: the quality metric (nDCG@5, else page recall@1) with
                    its 95% CI against index bytes (log scale) and against p50 latency; the variants
                    no other beats on both axes (the Pareto front) joined by a line

Index bytes: what a query needs resident (``ham.index.footprint``): ham's unit indexes (dense faiss
and sparse, every modality) for ``pages=none``; the page index (``page_index.bytes``) for
``pages.mode=pages`` (the unit indexes it also builds are not used); both summed for
``mode=both``. Per page: over the pages the run indexed (``pages.pages``), else over the pages the
corpus's units lie on (``index_bytes.pages_of_units``), else not given. Latency is the whole retrieval of
one question as the run measured it (``retrieval_seconds.retrieve``: query encoding and scoring,
the unit retriever in mode both); the first question of a run also loads its models, so the
median is the figure to read. CPU figures from a shared machine are noisy: compare them within one
run of the grid, never across machines.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ham.metrics.confidence import normal_ci
from ham.report.figure import save

from .collect import Collection, Run
from .table_format import Column, Table
from .tables import per_question
from .versions import add_notes, mark_cells

QUALITY = ("ndcg_5", "ndcg_10", "page_recall_1", "page_recall_5", "page_evidence_recall")


def pixels_runs(collection: Collection) -> list[Run]:
    """Runs that computed a page metric for at least one question."""
    return [r for r in collection.runs
            if any(v is not None for m in QUALITY for v in per_question(r, m).values())]


def index_cost(run: Run) -> tuple[int | None, float | None]:
    """(index bytes, bytes per page) as the module docstring defines them."""
    info = run.metrics.get("index") or {}
    units = (info.get("index_bytes") or {}).get("total")
    page = info.get("page_index") or {}
    pages = (info.get("pages") or {}).get("pages") or (info.get("index_bytes") or {}).get("pages_of_units")
    if page:
        total = page.get("bytes", 0) + ((units or 0) if page.get("mode") == "both" else 0)
    else:
        total = units
    if total is None:
        return None, None
    return int(total), (total / pages if pages else None)


def latency_ms(run: Run) -> tuple[float | None, float | None]:
    values = [r["retrieval_seconds"]["retrieve"] * 1000 for r in run.rows
              if isinstance(r.get("retrieval_seconds"), dict) and "retrieve" in r["retrieval_seconds"]]
    if not values:
        return None, None
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def _ci_text(values) -> tuple[float | None, str]:
    ci = normal_ci(values)
    if ci.mean is None:
        return None, "–"
    half = (ci.high - ci.mean) if ci.high is not None else 0.0
    return ci.mean, f"{ci.mean:.3f} ± {half:.3f} ({ci.n})"


def pixels_table(collection: Collection) -> Table | None:
    runs = pixels_runs(collection)
    if not runs:
        return None
    cols = [Column(m, m, best=None) for m in QUALITY] + [
        Column("bytes", "index bytes", best="min", digits=0), Column("per_page", "bytes/page", best="min", digits=0),
        Column("p50", "p50 ms", best="min", digits=1), Column("p95", "p95 ms", best="min", digits=1)]
    from ham.metrics.registry import registry

    for col in cols[:len(QUALITY)]:
        col.header = registry()[col.key].title
    table = Table("structure_vs_pixels", "Structure against pixels: page retrieval quality (x̄ ± 1.96 s/√n (n)) "
                  "against index bytes and query latency", ["dataset", "variant"], cols,
                  bold_within="dataset")   # one dataset's bytes and latency are not another's
    for run in runs:
        values = {m: _ci_text(per_question(run, m).values())[1] for m in QUALITY}
        values["bytes"], values["per_page"] = index_cost(run)
        values["p50"], values["p95"] = latency_ms(run)
        mark_cells(collection.versions, values, [c.key for c in cols], [run])
        table.rows.append(([run.dataset, collection.label(run)], values))
    table.notes.append("Index bytes: resident for a query (unit indexes for pages=none, the page index for "
                       "mode=pages, both for mode=both; analysis/pixels.py). Latency: one question's retrieval "
                       "as the run measured it; the first question also loads the models. Bold: the least per "
                       "dataset.")
    add_notes(collection.versions, table, collection.name)
    return table


def _front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats on both axes (lower x, higher y), by x."""
    keep = [i for i, (x, y) in enumerate(points)
            if not any((x2 <= x and y2 >= y) and (x2, y2) != (x, y) for x2, y2 in points)]
    return sorted(keep, key=lambda i: points[i][0])


def pareto_figure(runs: list[Run], labels: list[str], stem: Path, title: str) -> list[Path]:
    metric = next((m for m in ("ndcg_5", "page_recall_1")
                   if any(v is not None for r in runs for v in per_question(r, m).values())), "ndcg_5")
    from ham.metrics.registry import registry

    fig = Figure(figsize=(10, 4), layout="constrained")
    axes = fig.subplots(1, 2)
    costs = [(index_cost(r)[0], latency_ms(r)[0]) for r in runs]
    intervals = [normal_ci(per_question(r, metric).values()) for r in runs]
    for ax, axis, xlabel in ((axes[0], 0, "index bytes (log)"), (axes[1], 1, "query latency p50, ms")):
        points = []
        for i, (run, label, ci) in enumerate(zip(runs, labels, intervals)):
            x = costs[i][axis]
            if x is None or ci.mean is None:
                continue
            err = [[ci.mean - (ci.low if ci.low is not None else ci.mean)],
                   [(ci.high if ci.high is not None else ci.mean) - ci.mean]]
            ax.errorbar([x], [ci.mean], yerr=err, fmt="o", color=f"C{i % 10}", capsize=4, label=label)
            ax.annotate(label, (x, ci.mean), xytext=(4, 4), textcoords="offset points", fontsize=7)
            points.append((x, ci.mean))
        front = _front(points)
        if len(front) > 1:
            ax.plot([points[i][0] for i in front], [points[i][1] for i in front], "--", color="grey", linewidth=0.8)
        if axis == 0 and points:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(registry()[metric].title)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{title}: {registry()[metric].title} (95% CI, x̄ ± 1.96 s/√n) against cost; dashed: Pareto front",
                 fontsize=9)
    return save(fig, stem)
