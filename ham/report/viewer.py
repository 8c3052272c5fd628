"""The answer viewer: static HTML pages that open from disk, built from a run's files alone.

    write_run_report(run_dir)   ``report.html`` in the run folder: the run's metrics, then each
                                question with the generated interleaved answer (images inline
                                where they were placed), the reference answer, the retrieved text
                                and images with heading paths, pages and scores, and the
                                per-question metrics and judge verdicts
    render_page(...)            any page from the templates (``ham-analyze`` renders its grid
                                page with the same question views)

Everything a page shows comes from the run folder: the golds are in each prediction row, images
are found under the corpus root the run recorded (``run.json``), so no dataset is loaded again.
An image that cannot be found (the data moved, a file is gone) is listed in a banner at the top.
Every piece of document or model text goes through Jinja2 with autoescaping on.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import yaml
from jinja2 import Environment, PackageLoader

from ham.answer import parse_reference
from ham.metrics.registry import registry
from ham.run.predictions import read

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg"}
_ENV = Environment(loader=PackageLoader("ham.report", "templates"), autoescape=True,
                   trim_blocks=True, lstrip_blocks=True)
_ENV.filters["num"] = lambda v, d=3: "–" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


@dataclass
class RunFiles:
    """What a run folder holds, read back."""

    path: Path
    run_id: str
    choices: dict
    config: dict
    metrics: dict
    rows: list[dict]
    corpus_root: Path | None
    problems: list[str] = field(default_factory=list)


def read_run(run_dir: str | Path) -> RunFiles:
    run_dir = Path(run_dir)
    config = yaml.safe_load((run_dir / "config.yaml").read_text(encoding="utf-8")) or {}
    metrics = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    info_path = run_dir / "run.json"
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else {}
    predictions = read(run_dir / "predictions.jsonl")
    root = info.get("corpus_root") or (config.get("dataset") or {}).get("path")
    return RunFiles(run_dir, str(metrics.get("run_id") or run_dir.name), dict(config.get("choices") or {}),
                    config, metrics, list(predictions.rows.values()), Path(root) if root else None,
                    list(predictions.problems))


class ImageLocator:
    """Finds the file of an image reference: through the retrieved units (unit id or reference ->
    ``image_path`` under the corpus root), else by a unique path suffix among the corpus files."""

    def __init__(self, corpus_root: Path | None, rows: list[dict]) -> None:
        self.root = corpus_root
        self.by_unit: dict[str, str] = {}
        self.by_ref: dict[str, str] = {}
        for row in rows:
            for hit in row.get("retrieved_images") or []:
                if hit.get("image_path"):
                    self.by_unit[hit.get("unit_id")] = hit["image_path"]
                    self.by_ref.setdefault(hit.get("image"), hit["image_path"])
        self._files: list[str] | None = None

    def _corpus_files(self) -> list[str]:
        if self._files is None:
            self._files = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*")
                                 if p.suffix.lower() in IMAGE_SUFFIXES) if self.root and self.root.is_dir() else []
        return self._files

    def locate(self, ref: str | None, unit_id: str | None = None) -> Path | None:
        rel = self.by_unit.get(unit_id) or self.by_ref.get(ref)
        if rel is None and ref:
            parts = [p for p in Path(ref).as_posix().split("/") if p not in ("", ".", "..")]
            tail = "/".join(parts)
            rel = next((f for f in self._corpus_files() if f == tail or f.endswith("/" + tail)), None)
        if rel is None:
            return None
        path = Path(rel) if Path(rel).is_absolute() else (self.root or Path(".")) / rel
        return path if path.is_file() else None


def _src(path: Path | None, page_dir: Path) -> str | None:
    if path is None:
        return None
    return quote(Path(os.path.relpath(path.resolve(), page_dir.resolve())).as_posix(), safe="/")


def _segments(segments: list[dict], locator: ImageLocator, page_dir: Path, captions: dict[str, str]) -> list[dict]:
    out = []
    for seg in segments:
        if seg.get("type") == "image":
            ref = seg.get("image")
            out.append({"type": "image", "ref": ref, "caption": captions.get(ref) or seg.get("text") or "",
                        "src": _src(locator.locate(ref, seg.get("unit_id")), page_dir)})
        else:
            out.append({"type": "text", "text": seg.get("text", "")})
    return out


def _where(hit: dict) -> str:
    page = hit.get("page")
    return (hit.get("source") or "") + (f", page {page}" if page is not None else "")


def question_views(rows: list[dict], corpus_root: Path | None, page_dir: Path) -> list[dict]:
    """What a page shows of each prediction row."""
    locator = ImageLocator(corpus_root, rows)
    known = registry()
    views = []
    for row in rows:
        gold = row.get("gold") or {}
        captions = {h.get("image"): h.get("caption") or "" for h in row.get("retrieved_images") or []}
        cited = {s.get("image") for s in row.get("answer") or [] if s.get("type") == "image"}
        gold_images = set(gold.get("gold_images") or [])
        ref = gold.get("reference_answer")
        reference = parse_reference(ref).to_dict() if ref else None
        scores = row.get("metrics") or {}
        views.append({
            "id": str(row["id"]), "question": row.get("question", ""), "failure": row.get("failure"),
            "answer": _segments(row["answer"], locator, page_dir, captions) if row.get("answer") else None,
            "raw_answer": row.get("raw_answer"), "generation": row.get("generation") or {},
            "reference": _segments(reference, locator, page_dir, {}) if reference else None,
            "gold_images": sorted(gold_images), "has_gold": bool(gold),
            "text_hits": [{"rank": i, "heading": " › ".join(h.get("heading_path") or []), "source": _where(h),
                           "modality": h.get("modality", "text"), "score": h.get("score"), "text": h.get("text", "")}
                          for i, h in enumerate(row.get("retrieved_text") or [], 1)],
            "image_hits": [{"rank": i, "ref": h.get("image"), "caption": h.get("caption") or "",
                            "heading": " › ".join(h.get("heading_path") or []), "score": h.get("score"),
                            "gold": h.get("image") in gold_images, "cited": h.get("image") in cited,
                            "src": _src(locator.locate(h.get("image"), h.get("unit_id")), page_dir)}
                           for i, h in enumerate(row.get("retrieved_images") or [], 1)],
            "metrics": [{"label": known[m].title if m in known else m, "value": v}
                        for m, v in scores.items() if m != "judge"],
            "judge": scores.get("judge") or {},
        })
    return views


def metric_rows(metrics_json: dict) -> list[dict]:
    """The run's metrics as the summary table shows them (value, CI, n, why not computed)."""
    known = registry()
    rows = []
    for name, entry in (metrics_json.get("metrics") or {}).items():
        ci = entry.get("ci95") or [None, None]
        rows.append({"name": name, "label": known[name].title if name in known else name, "mean": entry.get("mean"),
                     "n": entry.get("n"), "low": ci[0], "high": ci[1], "reason": entry.get("reason"),
                     "n_failed": entry.get("n_failed")})
    return rows


def run_summary(run: RunFiles, label: str = "") -> dict:
    return {"run_id": run.run_id, "label": label, "axes": run.choices, "path": str(run.path),
            "metrics": metric_rows(run.metrics), "n_questions": run.metrics.get("n_questions", len(run.rows)),
            "failures": run.metrics.get("failures") or {}, "judge": run.metrics.get("judge") or {},
            "bertscore_hash": run.metrics.get("bertscore_hash")}


def page_problems(run: RunFiles, views: list[dict]) -> list[str]:
    problems = list(run.problems)
    if views and not any(v["has_gold"] for v in views):
        problems.append(f"{run.path}: the predictions carry no golds (written before rows recorded them): "
                        "reference answers are not shown")
    missing = sorted({s["ref"] for v in views for s in (v["answer"] or []) + (v["reference"] or [])
                      if s["type"] == "image" and not s["src"]})
    if missing:
        where = run.corpus_root or "the corpus"
        problems.append(f"{len(missing)} image(s) not found under {where}: {', '.join(missing[:10])}"
                        + (" …" if len(missing) > 10 else ""))
    return problems


def render_page(template: str, out: Path, **context) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_ENV.get_template(template).render(**context), encoding="utf-8")
    return out


def write_run_report(run_dir: str | Path, plot: str | None = None, out: Path | None = None) -> Path:
    run = read_run(run_dir)
    out = out or run.path / "report.html"
    views = question_views(run.rows, run.corpus_root, out.parent)
    return render_page("run.html.j2", out, summary=run_summary(run), questions=views,
                       problems=page_problems(run, views), plot=plot)


def write_rows_report(rows: list[dict], corpus_root: Path | None, out: Path, title: str = "ham-ask") -> Path:
    """The run page for rows that are not a run's (``ham-ask``): the same question views."""
    views = question_views(rows, corpus_root, out.parent)
    summary = {"run_id": title, "label": "", "axes": {}, "path": str(corpus_root or ""), "metrics": [],
               "n_questions": len(rows), "failures": {}, "judge": {}, "bertscore_hash": None}
    missing = sorted({s["ref"] for v in views for s in (v["answer"] or []) if s["type"] == "image" and not s["src"]})
    problems = [f"{len(missing)} image(s) not found under {corpus_root}: {', '.join(missing)}"] if missing else []
    return render_page("run.html.j2", out, summary=summary, questions=views, problems=problems, plot=None)
