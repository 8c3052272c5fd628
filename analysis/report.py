"""The answer viewer: static HTML pages that open from disk.

    write_run_report(run_dir)        ``report.html`` in the run folder: the run's metrics, then each
                                     question with the generated interleaved answer (images inline
                                     where they were placed), the reference answer, the retrieved
                                     text and images with heading paths and scores, and the
                                     per-question metrics and judge verdicts
    write_grid_report(coll, path)    one page for a grid: per question, the answers of every
                                     variant side by side with their metrics

Images are linked by relative paths from the page to the corpus files (from the run's
``dataset.path``), so the page renders when opened from disk as long as the outputs and the corpus
keep their places. An image that cannot be found or loaded is listed in a banner at the top.
Every piece of document or model text goes through Jinja2 with autoescaping on.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader
from omegaconf import OmegaConf

from analysis.collect import Collection, Run, load_run
from analysis.stats import normal_ci
from analysis.tables import per_question
from ham.generate.answer import parse_reference
from ham.metrics import REGISTRY
from ham.paths import resolve_path

log = logging.getLogger("ham.report")
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg"}
_ENV = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True,
                   trim_blocks=True, lstrip_blocks=True)
_ENV.filters["num"] = lambda v, d=3: "–" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


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


def load_references(run: Run) -> tuple[dict[str, object], str | None]:
    """Question id -> Question from the run's question file, or the reason it cannot be read."""
    try:
        from ham.run.pipeline import load_dataset_questions

        questions, _ = load_dataset_questions(OmegaConf.create(run.config))
        return {q.id: q for q in questions}, None
    except (OSError, ValueError, KeyError) as exc:   # the page says why; the rest renders
        reason = f"reference answers unavailable ({(run.config.get('dataset') or {}).get('questions')}): {exc}"
        log.warning("%s: %s", run.path, reason)
        return {}, reason


def corpus_root(run: Run) -> Path | None:
    path = (run.config.get("dataset") or {}).get("path")
    try:
        return resolve_path(path) if path else None
    except FileNotFoundError:
        return None


def question_views(run: Run, page_dir: Path) -> tuple[list[dict], str | None]:
    locator = ImageLocator(corpus_root(run), run.rows)
    references, ref_problem = load_references(run)
    views = []
    for row in run.rows:
        q = references.get(str(row["id"]))
        captions = {h.get("image"): h.get("caption") or "" for h in row.get("retrieved_images") or []}
        cited = {s.get("image") for s in row.get("answer") or [] if s.get("type") == "image"}
        gold = set(q.gold_images) if q else set()
        reference = parse_reference(q.reference_answer).to_dict() if q and q.reference_answer else None
        scores = row.get("metrics") or {}
        views.append({
            "id": str(row["id"]), "question": row.get("question", ""), "failure": row.get("failure"),
            "answer": _segments(row["answer"], locator, page_dir, captions) if row.get("answer") else None,
            "raw_answer": row.get("raw_answer"), "generation": row.get("generation") or {},
            "reference": _segments(reference, locator, page_dir, {}) if reference else None,
            "gold_images": sorted(gold),
            "text_hits": [{"rank": i, "heading": " › ".join(h.get("heading_path") or []), "source": h.get("source"),
                           "score": h.get("score"), "text": h.get("text", "")}
                          for i, h in enumerate(row.get("retrieved_text") or [], 1)],
            "image_hits": [{"rank": i, "ref": h.get("image"), "caption": h.get("caption") or "",
                            "heading": " › ".join(h.get("heading_path") or []), "score": h.get("score"),
                            "gold": h.get("image") in gold, "cited": h.get("image") in cited,
                            "src": _src(locator.locate(h.get("image"), h.get("unit_id")), page_dir)}
                           for i, h in enumerate(row.get("retrieved_images") or [], 1)],
            "metrics": [{"label": REGISTRY[m].title, "value": scores.get(m)} for m in REGISTRY if m in scores],
            "judge": scores.get("judge") or {},
        })
    return views, ref_problem


def run_summary(run: Run, label: str = "") -> dict:
    rows = []
    for name, spec in REGISTRY.items():
        entry = run.metrics["metrics"].get(name) or {}
        ci = normal_ci(per_question(run, name).values()) if run.rows else None
        mean = entry.get("mean", ci.mean if ci else None)   # older metrics.json: no Average Score
        rows.append({"label": spec.title, "mean": mean, "n": entry.get("n", ci.n if ci else None),
                     "low": ci.low if ci else None, "high": ci.high if ci else None,
                     "reason": entry.get("reason")})
    return {"run_id": run.run_id, "label": label, "axes": run.axes, "path": str(run.path), "metrics": rows,
            "n_questions": run.n_questions, "failures": run.metrics.get("failures") or {},
            "judge": run.metrics.get("judge") or {}, "bertscore_hash": run.metrics.get("bertscore_hash")}


def write_run_report(run_dir: str | Path, plot: str | None = None) -> Path:
    run_dir = Path(run_dir)
    run = load_run(run_dir, problems=[])
    views, ref_problem = question_views(run, run_dir)
    html = _ENV.get_template("run.html.j2").render(summary=run_summary(run), questions=views,
                                                  problems=[ref_problem] if ref_problem else [], plot=plot)
    out = run_dir / "report.html"
    out.write_text(html, encoding="utf-8")
    return out


def write_grid_report(collection: Collection, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    datasets: dict[str, dict] = {}
    problems = list(collection.problems)
    for run in collection.runs:
        views, ref_problem = question_views(run, out.parent)
        if ref_problem:
            problems.append(f"{run.path}: {ref_problem}")
        ds = datasets.setdefault(str(run.axes["dataset"]), {"variants": [], "questions": {}})
        label = collection.label(run)
        ds["variants"].append(run_summary(run, label))
        for view in views:
            entry = ds["questions"].setdefault(view["id"], {"id": view["id"], "question": view["question"],
                                                            "reference": view["reference"], "answers": {}})
            entry["reference"] = entry["reference"] or view["reference"]
            entry["answers"][label] = view
    html = _ENV.get_template("grid.html.j2").render(datasets=datasets, problems=problems)
    out.write_text(html, encoding="utf-8")
    return out
