"""The grid's answer viewer: one page where, per question, the answers of every variant stand
side by side with their metrics and evidence. Question views and templates are the run viewer's
(``ham.report.viewer``), so a grid page shows exactly what each run's own page shows."""
from __future__ import annotations

from pathlib import Path

from ham.report.viewer import RunFiles, metric_rows, question_views, render_page

from .collect import Collection, Run


def _files(run: Run) -> RunFiles:
    root = (run.config.get("dataset") or {}).get("path")
    info_root = None
    info = run.path / "run.json"
    if info.is_file():
        import json

        info_root = json.loads(info.read_text(encoding="utf-8")).get("corpus_root")
    corpus = info_root or root
    return RunFiles(run.path, run.run_id, run.choices, run.config, run.metrics, run.rows,
                    Path(corpus) if corpus else None)


def write_grid_report(collection: Collection, out: Path) -> Path:
    datasets: dict[str, dict] = {}
    problems = list(collection.problems)
    for run in collection.runs:
        files = _files(run)
        views = question_views(files.rows, files.corpus_root, out.parent)
        ds = datasets.setdefault(run.dataset, {"variants": [], "questions": {}})
        label = collection.label(run)
        ds["variants"].append({"run_id": run.run_id, "label": label, "n_questions": run.n_questions,
                               "metrics": metric_rows(run.metrics)})
        for view in views:
            entry = ds["questions"].setdefault(view["id"], {"id": view["id"], "question": view["question"],
                                                            "reference": view["reference"], "answers": {}})
            entry["reference"] = entry["reference"] or view["reference"]
            entry["answers"][label] = view
    return render_page("grid.html.j2", out, datasets=datasets, problems=problems)
