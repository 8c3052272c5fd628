"""MRAMG-Bench / HAM-Bench questions: ``{sub}_mqa.jsonl`` lines ``{id, question, ground_truth,
provenance, images_list}``; each ``<PIC>`` of ``ground_truth`` is the next image of
``images_list``, which are also the gold images. The documents are read by ``ham.ingest.mramg``."""
from __future__ import annotations

from pathlib import Path

from ham.datasets.questions import Question, collect_questions
from ham.records import jsonl_records

PIC = "<PIC>"


def reference_with_images(ground_truth: str, images: list[str]) -> tuple[str, int]:
    """Replace each ``<PIC>`` in order with ``![](ID)``; markers beyond the images are removed.
    Returns the answer and the number of markers."""
    pieces = ground_truth.split(PIC)
    out = [pieces[0]]
    for i, piece in enumerate(pieces[1:]):
        out.append((f"![]({images[i]})" if i < len(images) else "") + piece)
    return "".join(out), len(pieces) - 1


def mqa_question(obj: dict) -> tuple[Question, str | None]:
    if not isinstance(obj, dict) or obj.get("id") in (None, "") or not obj.get("question"):
        raise ValueError("not an object with id and question")
    images_list = obj.get("images_list") or []
    if not isinstance(images_list, list):
        raise ValueError("images_list must be a list")
    images = [str(i) for i in images_list]
    answer, markers = reference_with_images(str(obj.get("ground_truth") or ""), images)
    problem = None
    if markers != len(images):
        problem = f"{markers} <PIC> marker(s) in ground_truth but {len(images)} image(s) in images_list"
    question = Question(id=str(obj["id"]), question=str(obj["question"]),
                        reference_answer=answer or None, gold_images=images)
    return question, problem


class MramgReader:
    """``{sub}_mqa.jsonl``: a bad line is skipped; a ``<PIC>``/image count mismatch keeps the
    question and is noted with its line."""

    format = "mramg"

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        path = Path(path)
        problems: list[str] = []
        try:
            return collect_questions(jsonl_records(path, problems), mqa_question, path, problems), problems
        except (OSError, UnicodeDecodeError) as exc:
            return [], [f"{path}: cannot read the questions file ({exc})"]


def load_mqa(path: str | Path) -> tuple[list[Question], list[str]]:
    return MramgReader().read(path)
