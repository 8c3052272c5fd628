"""MMDocIR questions: ``MMDocIR_annotations.jsonl``, one document per line.

Schema (checked against the released file, MMDocRAG/MMDocIR ``dataset/MMDocIR_annotations.jsonl``:
313 lines, 1,658 questions, and the readers in that repository's ``encode.py``/``search.py``)::

    {"doc_name": "PH_2016.06.08_Economy-Final.pdf", "domain": "Research report / Introduction",
     "page_indices": [18196, 18218], "layout_indices": [158789, 158941],
     "questions": [{"Q": ..., "A": ..., "page_id": [4], "type": "['Chart']",
                    "layout_mapping": [{"page": 4, "page_size": [612.0, 792.0],
                                        "bbox": [366, 229, 514, 383]}],
                    "evidence": "...", "layoutindex": [45]}]}

``page_indices``/``layout_indices`` are inclusive row ranges into the pages/layouts parquet files
(the dataset card spells the second ``layout_indinces``; the file and MMDocIR's own code use
``layout_indices``, and both are read). ``page_id`` and ``layout_mapping[].page`` count pages from
0. 864 questions (those typed ``text-only``, ``multimodal-t``, ``multimodal-f``, ``meta-data``,
``una-web``) also carry ``evidence`` (a quoted passage or an explanation) and ``layoutindex``, one
layout id per ``layout_mapping`` entry, in the same order.

Each question becomes a ``Question`` with

    id               ``{doc_name}#{n}``, n counting the document's questions from 0
    reference_answer ``A`` as given (some are stringified lists: "['White', '10%']"); also
                     ``answer_short``
    kinds            the normalised ``type`` (``normalise_type``); the raw string is
                     ``meta["type_raw"]``
    evidence         one ``Evidence`` per ``layout_mapping`` entry, in order: doc = ``doc_name``,
                     page, bbox and, where ``layoutindex`` has one, layout (the id as a string);
                     modality only when the kinds name one (``evidence_modality``).
                     Gold evidence is a bbox; ``ham.datasets.evidence`` maps it to layout units.
    meta             doc_name, domain, type_raw, page_id, layout_mapping, evidence, layoutindex,
                     page_indices, layout_indices, question_index, global_index (the question's
                     position in the file: MMDocIR's own query id), multi_page, multi_layout,
                     page_qrels (each ``page_id`` as a gold page key, ``ham.datasets.pages``)

``type`` is irregular in the real file: DocBench-style labels (``text-only``, ``multimodal-t``,
``multimodal-f``, ``meta-data``, ``una-web``), MMLongBench-style stringified lists
(``"['Chart']"``, ``"['Table', 'Pure-text (Plain-text)']"``) and ``"[]"`` (17 questions, no kind).

Problems (each with the file and line): a line that is not JSON or not a document object skips
the document; a question without ``Q`` skips that question; an unknown type label, a
``layoutindex`` whose length differs from ``layout_mapping``, a malformed mapping entry, a gold
bbox of zero area or a mapping page outside ``page_id`` is noted and the question kept.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from ham.datasets.pages import gold_page_key
from ham.datasets.questions import Evidence, Question, read_all
from ham.records import jsonl_records

# raw label -> kind; both label families of the real file
TYPE_KINDS = {
    "pure-text (plain-text)": "text",
    "generalized-text (layout)": "layout",
    "chart": "chart",
    "table": "table",
    "figure": "figure",
    "text-only": "text",
    "multimodal-t": "table",
    "multimodal-f": "figure",
    "meta-data": "meta",
    "una-web": "unanswerable",
    "una": "unanswerable",
}


def normalise_type(raw) -> tuple[list[str], list[str]]:
    """Kinds for one raw ``type`` value and the labels that are not known MMDocIR types (kept,
    lower-cased). ``"['Table', 'Pure-text (Plain-text)']"`` -> ``["table", "text"]``; ``"[]"``
    -> ``[]``; ``"multimodal-t"`` -> ``["table"]``. Kinds keep the order given, without repeats."""
    if raw is None:
        return [], []
    labels: list[str]
    if isinstance(raw, list):
        labels = [str(x) for x in raw]
    else:
        text = str(raw).strip()
        labels = [text]
        if text.startswith("["):
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, (list, tuple)):
                labels = [str(x) for x in value]
    kinds: list[str] = []
    unknown: list[str] = []
    for label in labels:
        key = " ".join(label.split()).lower()
        if not key:
            continue
        kind = TYPE_KINDS.get(key)
        if kind is None:
            unknown.append(key)
            kind = key
        if kind not in kinds:
            kinds.append(kind)
    return kinds, unknown


# kinds that say which modality every gold layout of the question has
_KIND_MODALITY = {"text": "text", "layout": "text", "table": "table", "figure": "image", "chart": "image"}


def evidence_modality(kinds: list[str]) -> str | None:
    """The modality of a question's gold layouts when its kinds name exactly one (``["chart",
    "figure"]`` -> ``image``, ``["table"]`` -> ``table``); None for mixed, meta or untyped."""
    found = {_KIND_MODALITY.get(k) for k in kinds}
    return found.pop() if len(found) == 1 and None not in found else None


def _bbox(value) -> list[float] | None:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        return None
    try:
        box = [float(v) for v in value]
    except (TypeError, ValueError):
        return None
    return box


def _question(doc: dict, n: int, qa, global_index: int) -> tuple[Question, list[str]]:
    """One QA item of a document line; raises ValueError when it cannot be a question."""
    if not isinstance(qa, dict):
        raise ValueError("is not an object")
    text = qa.get("Q")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("has no Q")
    doc_name = doc["doc_name"]
    notes: list[str] = []
    kinds, unknown = normalise_type(qa.get("type"))
    if unknown:
        notes.append(f"type {qa.get('type')!r}: label(s) {', '.join(map(repr, unknown))} are not known "
                     "MMDocIR types (kept as kinds)")
    pages = qa.get("page_id")
    pages = pages if isinstance(pages, list) else ([pages] if isinstance(pages, int) else [])
    mapping = qa.get("layout_mapping") or []
    if not isinstance(mapping, list):
        notes.append("layout_mapping is not a list (no gold evidence)")
        mapping = []
    layout_ids = qa.get("layoutindex")
    if layout_ids is not None and (not isinstance(layout_ids, list) or len(layout_ids) != len(mapping)):
        notes.append(f"layoutindex {layout_ids!r} does not pair with the {len(mapping)} layout_mapping "
                     "entries (layout ids ignored)")
        layout_ids = None
    evidence: list[Evidence] = []
    modality = evidence_modality(kinds)
    for i, entry in enumerate(mapping):
        box = _bbox(entry.get("bbox")) if isinstance(entry, dict) else None
        page = entry.get("page") if isinstance(entry, dict) else None
        if box is None or not isinstance(page, int):
            notes.append(f"layout_mapping[{i}] is not {{page, page_size, bbox[4]}} (entry skipped)")
            continue
        if (box[2] - box[0]) * (box[3] - box[1]) <= 0:
            notes.append(f"layout_mapping[{i}]: bbox {entry['bbox']} has no area")
        if pages and page not in pages:
            notes.append(f"layout_mapping[{i}]: page {page} is not in page_id {pages}")
        layout = str(layout_ids[i]) if layout_ids is not None and layout_ids[i] is not None else None
        evidence.append(Evidence(doc=doc_name, page=page, bbox=box, layout=layout, modality=modality))
    answer = qa.get("A")
    answer = None if answer is None else str(answer)
    meta = {
        "doc_name": doc_name, "domain": doc.get("domain"), "type_raw": qa.get("type"),
        "page_id": pages, "layout_mapping": mapping, "question_index": n, "global_index": global_index,
        "page_indices": doc.get("page_indices"), "layout_indices": doc.get("layout_indices",
                                                                           doc.get("layout_indinces")),
        "multi_page": len(set(pages)) > 1, "multi_layout": len(mapping) > 1,
        "page_qrels": {gold_page_key(doc_name, p): 1 for p in pages if isinstance(p, int)},
    }
    for key in ("evidence", "layoutindex"):
        if key in qa:
            meta[key] = qa[key]
    question = Question(id=f"{doc_name}#{n}", question=text.strip(), reference_answer=answer or None,
                        answer_short=answer or None, kinds=kinds, evidence=evidence, meta=meta)
    return question, notes


def iter_mmdocir(path: str | Path, problems: list[str]) -> Iterator[Question]:
    """Questions of an annotations file in file order, one line (document) at a time; problems
    are appended to ``problems`` as they are found."""
    path = Path(path)
    seen_docs: dict[str, int] = {}
    seen_ids: set[str] = set()
    global_index = 0
    for lineno, doc in jsonl_records(path, problems):
        where = f"{path}:{lineno}"
        if not isinstance(doc, dict) or not isinstance(doc.get("doc_name"), str) or not doc["doc_name"]:
            problems.append(f"{where}: not a document object with doc_name (document skipped)")
            continue
        items = doc.get("questions")
        if not isinstance(items, list):
            problems.append(f"{where}: document {doc['doc_name']!r} has no questions list (document skipped)")
            continue
        name = doc["doc_name"]
        if name in seen_docs:
            problems.append(f"{where}: document {name!r} already appeared on line {seen_docs[name]} "
                            "(its questions are read again under new ids)")
        seen_docs.setdefault(name, lineno)
        for n, qa in enumerate(items):
            index = global_index
            global_index += 1
            try:
                question, notes = _question(doc, n, qa, index)
            except ValueError as exc:
                problems.append(f"{where}: question {n} {exc} (question skipped)")
                continue
            if question.id in seen_ids:
                question.id = f"{question.id}@{lineno}"
            seen_ids.add(question.id)
            problems.extend(f"{where}: question {n}: {note}" for note in notes)
            yield question


class MmdocirReader:
    """``MMDocIR_annotations.jsonl``: one document per line, its questions in order."""

    format = "mmdocir"

    def iter(self, path: str | Path, problems: list[str]) -> Iterator[Question]:
        return iter_mmdocir(path, problems)

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(iter_mmdocir, path, "the annotations file")
