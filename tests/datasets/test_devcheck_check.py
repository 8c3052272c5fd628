"""data/devcheck/check.py resolves gold passages against the text units a run retrieves (the
default ``units`` option, captions on their images), not against ingest leaves."""
from __future__ import annotations

import runpy
from pathlib import Path

from PIL import Image

CHECK = runpy.run_path(str(Path(__file__).resolve().parents[2] / "data" / "devcheck" / "check.py"))
RUNNING = "The number of breaks used to construct the piecewise polynomial is a significant factor."
CAPTION = "The fit with many breaks exhibits a fast ripple that is not in the function."


def corpus(tmp_path: Path) -> Path:
    page = tmp_path / "corpus" / "man"
    page.mkdir(parents=True)
    Image.new("RGB", (40, 30), "white").save(page / "fit.png")
    (page / "fit.html").write_text(
        f"<html><head><title>Fitting</title></head><body><h1>Fitting</h1><h2>Splines</h2><p>{RUNNING}</p>"
        f'<figure><img src="fit.png" alt="two fits"><figcaption>Figure 1: {CAPTION}</figcaption></figure>'
        "<p>The piecewise polynomial fit has continuous derivatives.</p></body></html>", encoding="utf-8")
    return tmp_path / "corpus"


def question(passages: list[str]) -> dict:
    return {"id": "man-001", "manual": "man", "question": "Does the number of breaks matter?", "kinds": ["screenshot"],
            "reference_answer": "Yes.\n\n![two fits](fit.png)", "gold_text": passages, "gold_images": ["fit.png"],
            "gold_pages": ["man/fit.html"], "gold_headings": ["Splines"]}


def test_a_passage_in_running_text_passes(tmp_path):
    problems, stats = CHECK["check"]([question([RUNNING])], corpus(tmp_path))
    assert problems == [] and stats["passages"] == 1


def test_a_passage_only_in_a_figure_caption_is_a_problem(tmp_path):
    # the caption is a text leaf of the ingest, but under units.captions=image only the image unit holds it
    problems, _ = CHECK["check"]([question([RUNNING, CAPTION])], corpus(tmp_path))
    assert len(problems) == 1
    qid, problem = problems[0]
    assert qid == "man-001" and "no text unit" in problem and "fit.png" in problem
