"""Questions and their gold annotations: one internal form that every dataset reader produces and
every metric reads.

A question has its text, an optional reference answer (Markdown, images inline as
``![alt](REF)``) and any of these golds:

    gold_images      image references exactly as the source document writes them
    gold_text        verbatim passages (matched after collapsing whitespace, case-insensitively)
    gold_pages       source files relative to the corpus root
    kinds            labels for breakdowns (devbench: near_twin, procedure, parent_child, ...;
                     a dataset's question type, normalised)
    topology         single_hop | bridge_chain | synthesis (TopoGraphRAG-Bench), or None
    evidence         the gold evidence units in order (a bridge chain's hops in hop order), each
                     named as the dataset names it: document, the source's own layout id, page,
                     bbox, modality, passage or image; ``units`` lists the ham unit ids it
                     resolves to once matched against an ingested corpus
    bridge_entities  entities a bridge chain passes through without the question naming them
    hops             a chain's hops: sub-question, result, modality, its evidence (index)
    evidence_points  a synthesis question's required facts with their data points and evidence
    answer_short     a short answer where the dataset gives one besides the long reference
    meta             dataset-specific fields kept as given (raw type strings, domain, ...)

The JSONL form (``JsonlReader``) is one object per line with these keys; only ``id`` and
``question`` are required and unknown keys are ignored. A line that is not valid JSON, lacks
``id``/``question`` or has a field of the wrong type is reported with its file and line number and
skipped; the other questions still load.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from ham.records import jsonl_records
from ham.settings import REQUIRED, Content, Doc, NotResult, Range, setting

log = logging.getLogger("ham.datasets.questions")

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
TOPOLOGIES = ("single_hop", "bridge_chain", "synthesis")


@dataclass
class Evidence:
    modality: str | None = None     # text | image | table
    text: str | None = None
    image: str | None = None
    doc: str | None = None
    layout: str | None = None
    page: int | None = None         # 0-based, as the source counts
    bbox: list[float] | None = None
    units: list[str] = field(default_factory=list)


@dataclass
class Hop:
    sub_question: str
    result: str
    modality: str | None = None
    evidence: int | None = None     # index into Question.evidence


@dataclass
class EvidencePoint:
    fact: str
    data_points: list[str] = field(default_factory=list)
    evidence: int | None = None     # index into Question.evidence
    fact_id: str | None = None


@dataclass
class Question:
    id: str
    question: str
    reference_answer: str | None = None
    gold_images: list[str] = field(default_factory=list)
    gold_text: list[str] = field(default_factory=list)
    gold_pages: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    topology: str | None = None
    evidence: list[Evidence] = field(default_factory=list)
    bridge_entities: list[str] = field(default_factory=list)
    hops: list[Hop] = field(default_factory=list)
    evidence_points: list[EvidencePoint] = field(default_factory=list)
    answer_short: str | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.topology is not None and self.topology not in TOPOLOGIES:
            raise ValueError(f"topology {self.topology!r} is not one of {', '.join(TOPOLOGIES)}")
        # gold images default to those the reference answer shows, in order, without repeats
        if not self.gold_images and self.reference_answer:
            self.gold_images = reference_images(self.reference_answer)

    def to_dict(self) -> dict:
        return asdict(self)


def reference_images(markdown: str) -> list[str]:
    return list(dict.fromkeys(m.group(2) for m in _MD_IMAGE.finditer(markdown)))


_LISTS = ("gold_images", "gold_text", "gold_pages", "kinds", "bridge_entities")
_NESTED = {"evidence": Evidence, "hops": Hop, "evidence_points": EvidencePoint}


# a field's annotation (a string: postponed annotations) -> the JSON type its value must have
_SCALARS = {"str": str, "str | None": str, "int | None": int}


def _typed(key: str, value, annotation: str) -> None:
    kind = _SCALARS.get(annotation)
    if kind is None or (value is None and annotation.endswith("| None")):
        return
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"{key} must be {'a string' if kind is str else 'an integer'}, not {json.dumps(value)[:40]}")


def _strings(key: str, items) -> None:
    if not isinstance(items, list):
        raise ValueError(f"{key} must be a list")
    for n, item in enumerate(items):
        _typed(f"{key}[{n}]", item, "str")


def _nested(cls, key: str, items) -> list:
    if not isinstance(items, list):
        raise ValueError(f"{key} must be a list")
    types = {f.name: f.type for f in fields(cls)}
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"{key}[{n}] must be an object")
        for name, value in item.items():
            if name in types:
                _typed(f"{key}[{n}].{name}", value, types[name])
        if "data_points" in item and item["data_points"] is not None:
            _strings(f"{key}[{n}].data_points", item["data_points"])
        try:
            out.append(cls(**{k: v for k, v in item.items() if k in types}))
        except TypeError as exc:
            raise ValueError(f"{key}[{n}]: {exc}") from exc
    return out


def parse_question(obj: dict) -> Question:
    """A ``Question`` from one JSON object of the JSONL form (module docstring)."""
    if not isinstance(obj, dict):
        raise ValueError("line is not a JSON object")
    missing = [k for k in ("id", "question") if not obj.get(k)]
    if missing:
        raise ValueError(f"missing required field(s): {', '.join(missing)}")
    names = {f.name for f in fields(Question)}
    data = {k: v for k, v in obj.items() if k in names and v is not None}
    if not isinstance(data["id"], (str, int)) or isinstance(data["id"], bool):
        raise ValueError(f"id must be a string or an integer, not {json.dumps(data['id'])[:40]}")
    data["id"] = str(data["id"])
    for key in ("question", "reference_answer", "answer_short"):
        if key in data:
            _typed(key, data[key], "str")
    for key in _LISTS:
        if key in data:
            _strings(key, data[key])
    for key, cls in _NESTED.items():
        if key in data:
            data[key] = _nested(cls, key, data[key])
    if "meta" in data and not isinstance(data["meta"], dict):
        raise ValueError("meta must be an object")
    return Question(**data)


def read_all(iterate: Callable[[str | Path, list[str]], Iterator[Question]], path: str | Path, what: str,
             errors: tuple[type[BaseException], ...] = (OSError, UnicodeDecodeError)) -> tuple[list[Question], list[str]]:
    """Every question ``iterate(path, problems)`` yields, and the problems it reported; a file that
    cannot be read at all (``errors``) gives no questions and one problem naming it as ``what``."""
    problems: list[str] = []
    try:
        return list(iterate(path, problems)), problems
    except errors as exc:
        return [], problems + [f"{path}: cannot read {what} ({exc})"]


def collect_questions(records: Iterator[tuple[int, object]],
                      make: Callable[[object], tuple[Question, str | None]],
                      path: Path, problems: list[str]) -> list[Question]:
    """Questions from (line number, record) pairs through ``make`` (a question and a note on it, or
    None); a record ``make`` rejects (ValueError/TypeError) or a repeated id is reported with its
    line and skipped, a note is reported with its line and the question kept."""
    questions: list[Question] = []
    seen: set[str] = set()
    for lineno, record in records:
        try:
            q, note = make(record)
        except (ValueError, TypeError) as exc:
            problems.append(f"{path}:{lineno}: {exc} (question skipped)")
            continue
        if q.id in seen:
            problems.append(f"{path}:{lineno}: duplicate question id {q.id!r} (question skipped)")
            continue
        if note:
            problems.append(f"{path}:{lineno}: {note}")
        seen.add(q.id)
        questions.append(q)
    return questions


class JsonlReader:
    """ham's own questions format: JSONL in the form of the module docstring."""

    format = "jsonl"

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        path = Path(path)
        problems: list[str] = []
        questions = collect_questions(jsonl_records(path, problems), lambda r: (parse_question(r), None),
                                      path, problems)
        for msg in problems:
            log.warning("%s", msg)
        return questions, problems


def load_questions(path: str | Path) -> tuple[list[Question], list[str]]:
    """Read a questions file in ham's JSONL form; the questions and one message per problem."""
    return JsonlReader().read(path)


@dataclass
class DatasetSettings:
    """The ``dataset`` group: what is indexed and which questions are asked (``ham/conf/dataset/``)."""

    name: str = setting(REQUIRED, NotResult("the dataset's display name; its files enter by content"),
                        Doc("the folder under outputs/runs/ and the name in tables"))
    path: str = setting(REQUIRED, Content(), Doc("the corpus folder (enters the run id by its content hash)"))
    questions: Optional[str] = setting(None, Content(), Doc("the questions file (by content hash)"))
    reader: Any = setting(default_factory=lambda: {"_target_": "ham.datasets.questions.JsonlReader"}, doc=Doc(
        "the question reader (by _target_): JsonlReader (ham's JSONL form), MramgReader, ..."))
    descriptions: Optional[str] = setting(None, Content(), Doc("JSONL of context-aware image descriptions for si"))
    subset: Optional[str] = setting(None, Doc("MRAMG/HAM-Bench subset"))
    sample: Optional[int] = setting(None, Range(1), Doc("a fixed random subset of this many questions"))
    sample_seed: Optional[int] = setting(None, Doc("the subset's seed; None: the run's seed"))
