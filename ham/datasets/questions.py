"""Questions and their gold annotations.

The questions file is JSONL, one object per line::

    {"id": "q1", "question": "...",
     "reference_answer": "Markdown, each image inline as ![alt](REF)",   # optional
     "gold_images": ["REF", ...],       # optional; REF exactly as the source document writes it
     "gold_text": ["verbatim passage", ...],                              # optional
     "gold_pages": ["source file relative to the corpus root", ...]}     # optional

Unknown fields are ignored. A line that is not valid JSON or lacks ``id``/``question`` is
reported with its file and line number and skipped; the other questions still run.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

log = logging.getLogger("ham.datasets.questions")

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@dataclass
class Question:
    id: str
    question: str
    reference_answer: str | None = None
    gold_images: list[str] = field(default_factory=list)
    gold_text: list[str] = field(default_factory=list)
    gold_pages: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # gold images default to those the reference answer shows, in order, without repeats
        if not self.gold_images and self.reference_answer:
            self.gold_images = list(dict.fromkeys(m.group(2) for m in _MD_IMAGE.finditer(self.reference_answer)))

    def to_dict(self) -> dict:
        return asdict(self)


_FIELDS = ("id", "question", "reference_answer", "gold_images", "gold_text", "gold_pages")


def parse_question(obj: dict) -> Question:
    if not isinstance(obj, dict):
        raise ValueError("line is not a JSON object")
    missing = [k for k in ("id", "question") if not obj.get(k)]
    if missing:
        raise ValueError(f"missing required field(s): {', '.join(missing)}")
    data = {k: obj[k] for k in _FIELDS if obj.get(k) is not None}
    data["id"] = str(data["id"])
    for key in ("gold_images", "gold_text", "gold_pages"):
        if key in data and not isinstance(data[key], list):
            raise ValueError(f"{key} must be a list")
    return Question(**data)


def load_questions(path: str | Path, limit: int | None = None) -> tuple[list[Question], list[str]]:
    """Read a questions JSONL file; return the questions and one message per skipped line."""
    path = Path(path)
    questions: list[Question] = []
    problems: list[str] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                q = parse_question(json.loads(line))
            except (json.JSONDecodeError, ValueError, TypeError) as exc:
                problems.append(f"{path}:{lineno}: {exc} (question skipped)")
                continue
            if q.id in seen:
                problems.append(f"{path}:{lineno}: duplicate question id {q.id!r} (question skipped)")
                continue
            seen.add(q.id)
            questions.append(q)
    for msg in problems:
        log.warning("%s", msg)
    if limit is not None:
        questions = questions[:limit]
    return questions, problems
