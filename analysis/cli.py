"""``ham-analyze PATH... [--out DIR]``: every table and figure of a grid, from ``outputs/`` alone.

    ham-analyze outputs/runs/demo                   # -> outputs/runs/demo/analysis/
    python -m ham_analysis outputs/runs/a outputs/runs/b --out paper/ --reference ct+si

Writes into ``--out`` (default ``<first PATH>/analysis``) and prints each path:
    runs.csv, questions.csv            the tidy tables (one row per run; per run and question)
    table3.{md,tex}, table4.{md,tex}   Tables 3 and 4 of the paper, best value per column in bold
    robustness_cost.{md,tex}           failures, tokens and cents per question
    ci.{md,tex,csv}                    means with the normal and the bootstrap 95% CI
    paired.{md,tex,csv}                each variant vs the reference: paired bootstrap, Wilcoxon
    figure3_<dataset>.{png,pdf}        Figure 3 style ablation bars with 95% CIs
    mramg.{md,tex}                     MRAMG-Bench's metrics, where runs computed them (metrics=mramg)
    structure_vs_pixels.{md,tex}       page nDCG / recall with 95% CIs against index bytes and query
                                       latency, where runs computed page metrics (metrics=pages;
                                       grid=structure_vs_pixels; analysis/pixels.py), printed as well
    pareto_<dataset>.{png,pdf}         the same as a Pareto plot: quality against bytes and latency
  and where runs answered topology questions (TopoGraphRAG-Bench, experiment=demo_topology;
  analysis/topology.py), printed as well:
    table2.{md,tex}, table2_ci.{md,tex}      retrieval and generation overall, and with CIs and n
    topology_{topology,path,pages,modality,pattern}.{md,tex}
                                       mean ± 1.96·SE (n) by topology, ordered modality path,
                                       cross-/same-page, cross-modal/text-only, synthesis pattern
    topology_paired.{md,tex,csv}       each variant vs the reference (--reference, else the full
                                       HAM cell ct+si+hybrid) by topology: paired bootstrap CI, p
    topology_<dataset>.{png,pdf}, paths_<dataset>.{png,pdf}   TopoGraphRAG's Figure 3 and 4 style
    report.html                        the answers of every variant side by side
    analysis.json                      the bootstrap seed and resamples, the reference, the run ids,
                                       the files written (a later analysis into the same folder
                                       removes them first, so no earlier output looks current)
    problems.txt                       run folders or lines that were skipped, and runs kept with a
                                       warning (mixed ingest or metrics versions), and why

A run's own ``report.html`` and ``metrics.png`` are written by ``ham`` itself (``ham.report``).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from .collect import collect, questions_table, runs_table, skipped
from .pixels import pareto_figure, pixels_runs, pixels_table
from .plots import ablation_figure
from .report import write_grid_report
from .table_format import write_table
from .table_format import to_markdown
from .tables import ci_table, mramg_table, paired_table, robustness_cost, table3, table4
from .systems_cost import cost_table
from .topology import topology_runs, topology_tables
from .topology_paired import topology_paired
from .topology_plots import path_figure, topology_figure


def _slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text)


# what an analysis.json written before it listed its files may have beside it (ham's names only)
_EARLIER = re.compile(r"(runs|questions|table[234]|table2_ci|robustness_cost|ci|paired|mramg|structure_vs_pixels|cost"
                      r"|(figure3|pareto|topology|paths)_.+)\.(md|tex|csv|png|pdf)|report\.html|problems\.txt")


def clear_previous(out: Path) -> None:
    """Remove what an earlier analysis wrote into ``out``: the files its ``analysis.json`` lists
    (one from before the list: the files named as ham names its outputs). Nothing else is touched:
    a file ham did not write stays."""
    try:
        earlier = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return
    if not isinstance(earlier, dict):
        return
    listed = earlier.get("files")
    if isinstance(listed, list):
        names = [n for n in listed if isinstance(n, str) and n not in (".", "..") and Path(n).name == n]
    else:
        names = [p.name for p in out.iterdir() if _EARLIER.fullmatch(p.name)]
    for name in names:
        path = out / name
        if path.is_file() and not path.is_symlink():
            path.unlink()


def analyze(paths: list[str | Path], out: Path, reference: str | None = None, n_resamples: int = 10_000,
            seed: int = 0, printed: list[str] | None = None) -> tuple[list[Path], list[str]]:
    """Write every table and figure into ``out``; the topology tables' Markdown is also appended
    to ``printed`` (``ham-analyze`` prints it)."""
    collection = collect(paths)
    if not collection.runs:
        raise ValueError(f"no usable run under {', '.join(map(str, paths))}" +
                         "".join(f"\n  {p}" for p in collection.problems))
    out.mkdir(parents=True, exist_ok=True)
    clear_previous(out)
    written: list[Path] = []
    for name, frame in (("runs", runs_table(collection)), ("questions", questions_table(collection))):
        frame.to_csv(out / f"{name}.csv", index=False)
        written.append(out / f"{name}.csv")
    for table in (table3(collection), table4(collection), robustness_cost(collection)):
        written += write_table(table, out)
    for table, records in (ci_table(collection, n_resamples, seed),
                           paired_table(collection, reference, n_resamples, seed)):
        written += write_table(table, out)
        pd.DataFrame.from_records(records).to_csv(out / f"{table.name}.csv", index=False)
        written.append(out / f"{table.name}.csv")
    for dataset in sorted({r.dataset for r in collection.runs}):
        runs = [r for r in collection.runs if r.dataset == dataset and r.rows]
        if runs:
            written += ablation_figure(runs, [collection.label(r) for r in runs], out / f"figure3_{_slug(dataset)}",
                                       f"{dataset}: {len(runs)} variant(s)")
    mramg = mramg_table(collection)
    if mramg is not None:
        written += write_table(mramg, out)
    pixels = pixels_table(collection)
    if pixels is not None:
        written += write_table(pixels, out)
        if printed is not None:
            printed.append(to_markdown(pixels))
        for dataset in sorted({r.dataset for r in pixels_runs(collection)}):
            runs = [r for r in pixels_runs(collection) if r.dataset == dataset]
            written += pareto_figure(runs, [collection.label(r) for r in runs], out / f"pareto_{_slug(dataset)}",
                                     dataset)
    for table in topology_tables(collection):
        written += write_table(table, out)
        if printed is not None:
            printed.append(to_markdown(table))
    cost = cost_table(collection)
    if cost is not None:
        written += write_table(cost, out)
        if printed is not None:
            printed.append(to_markdown(cost))
    paired_topology, records = topology_paired(collection, reference, n_resamples, seed)
    if paired_topology is not None:
        written += write_table(paired_topology, out)
        pd.DataFrame.from_records(records).to_csv(out / "topology_paired.csv", index=False)
        written.append(out / "topology_paired.csv")
        if printed is not None:
            printed.append(to_markdown(paired_topology))
    topo = topology_runs(collection)
    for dataset in sorted({r.dataset for r in topo}):
        runs = [r for r in topo if r.dataset == dataset]
        labels = [collection.label(r) for r in runs]
        written += topology_figure(runs, labels, out / f"topology_{_slug(dataset)}", dataset)
        written += path_figure(runs, labels, out / f"paths_{_slug(dataset)}", dataset)
    written.append(write_grid_report(collection, out / "report.html"))
    problems_file = out / "problems.txt"
    problems_file.write_text("".join(f"{p}\n" for p in collection.problems), encoding="utf-8")
    written.append(problems_file)
    settings = out / "analysis.json"   # what the tables' resampled figures depend on, and what was written
    settings.write_text(json.dumps({"paths": [str(p) for p in paths], "seed": seed, "resamples": n_resamples,
                                    "reference": reference, "runs": [r.run_id for r in collection.runs],
                                    "files": sorted(p.name for p in written)}, indent=2))
    written.append(settings)
    return written, collection.problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ham-analyze", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="run folders, or folders holding runs (e.g. outputs/runs/demo)")
    parser.add_argument("--out", type=Path, help="output folder (default: <first path>/analysis)")
    parser.add_argument("--reference", help="variant the others are compared with (default: best Average Score)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    args = parser.parse_args(argv)
    out = args.out or Path(args.paths[0]) / "analysis"
    printed: list[str] = []
    try:
        written, problems = analyze(args.paths, out, args.reference, args.resamples, args.seed, printed)
    except (ValueError, FileNotFoundError) as exc:
        print(f"ham-analyze: {exc}", file=sys.stderr)
        return 1
    for text in printed:
        print(text)
    for problem in problems:
        print(f"{'skipped' if skipped(problem) else 'warning'}: {problem}", file=sys.stderr)
    print(f"wrote {len(written)} files to {out}/")
    for path in written:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
