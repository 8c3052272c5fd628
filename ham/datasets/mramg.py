"""MRAMG-Bench / HAM-Bench questions: ``{sub}_mqa.jsonl`` lines ``{id, question, ground_truth,
provenance, images_list}``; each ``<PIC>`` of ``ground_truth`` is the next image of
``images_list``, which are also the gold images. ``provenance`` (the ids of the documents the
answer comes from, in ``doc_{sub}.jsonl``) is kept as ``meta["gold_docs"]``, named as ham names
those documents (``{sub}/{id}``). The documents are read by ``ham.ingest.mramg``."""
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


def mqa_question(obj: dict, subset: str | None = None) -> tuple[Question, str | None]:
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
    provenance = obj.get("provenance")
    provenance = [] if provenance is None else provenance if isinstance(provenance, list) else [provenance]
    meta = {"gold_docs": [f"{subset}/{p}" if subset else str(p) for p in provenance]} if provenance else {}
    question = Question(id=str(obj["id"]), question=str(obj["question"]),
                        reference_answer=answer or None, gold_images=images, meta=meta)
    return question, problem


class MramgReader:
    """``{sub}_mqa.jsonl``: a bad line is skipped; a ``<PIC>``/image count mismatch keeps the
    question and is noted with its line."""

    format = "mramg"

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        path = Path(path)
        problems: list[str] = []
        try:
            return collect_questions(jsonl_records(path, problems), question_maker(path), path, problems), problems
        except (OSError, UnicodeDecodeError) as exc:
            return [], [f"{path}: cannot read the questions file ({exc})"]


def question_maker(path: Path):
    """``mqa_question`` for the subset ``{sub}_mqa.jsonl`` names (its gold documents' ids)."""
    subset = path.name[: -len("_mqa.jsonl")] if path.name.endswith("_mqa.jsonl") else None
    return lambda obj: mqa_question(obj, subset)


def load_mqa(path: str | Path) -> tuple[list[Question], list[str]]:
    return MramgReader().read(path)
