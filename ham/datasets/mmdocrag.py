"""MMDocRAG questions: ``dev_15.jsonl``, ``dev_20.jsonl``, ``evaluation_15.jsonl``,
``evaluation_20.jsonl`` (15 or 20 candidate quotes per question), one question per line.

Schema (checked against MMDocRAG/MMDocRAG ``dataset/README.md`` and ``eval_all.py``, and copies of
the released lines in public repositories, e.g. gouyuanshuo/MMDocRAG
``dataset/evaluation_smoke.jsonl`` and Aaryan-Sharma/mmdocrag-redundancy-baselines
``src/data_loader.py``)::

    {"q_id": 298, "doc_name": "2023.findings-emnlp.248", "domain": "Academic paper",
     "question": ..., "evidence_modality_type": ["figure", "table", "text"],
     "question_type": "Descriptive",
     "text_quotes": [{"quote_id": "text1", "type": "text", "text": ..., "page_id": 3,
                      "layout_id": 41}, ...],
     "img_quotes": [{"quote_id": "image1", "type": "image" | "table",
                     "img_path": "images/2023.findings-emnlp.248_image1.jpg",
                     "img_description": ..., "page_id": 2, "layout_id": 17}, ...],
     "gold_quotes": ["image3", "image2", "text4"], "answer_short": "Pyke",
     "answer_interleaved": "... solver Pyke [4].\\n\\n![Flowchart of LOGIC-LM](image3)"}

Where the real data differs from the issue's wording: an image quote's ``type`` is ``image`` or
``table`` (tables are cut out as images), not ``image``/``text``; ``doc_name`` has no ``.pdf``
(MMDocIR's has); ``answer_short`` is sometimes a stringified list ("['46', '27']").

The questions are over MMDocIR documents (the quotes are MMDocIR layouts: ``page_id`` counts from
0, ``layout_id`` is the document's layout id), so there is no separate quote corpus to ingest: a
run indexes the MMDocIR layouts and ``ham.datasets.evidence`` maps each gold quote to its layout
unit by (document, layout id).

In the ``Question``: id = ``q_id``; ``evidence`` = the gold quotes in ``gold_quotes`` order
(doc, layout, page, modality ``text``/``image``/``table``, the text of a text quote, the
``img_path`` of an image quote); ``gold_text`` = the gold text quotes' text; ``gold_images`` = the
gold image quotes' ``img_path``; ``reference_answer`` = ``answer_interleaved`` with each
``![..](imageN)`` pointing at that quote's ``img_path`` (``[N]`` text citations left as they
are; the raw answer is ``meta["answer_interleaved"]``); ``answer_short``; ``kinds`` = the
question type, lower-cased; every field kept in ``meta``. ``cited_quotes`` reads an answer's
citations the way MMDocRAG's ``eval_all.py`` does, for its quote-selection precision/recall/F1.

Problems (file and line): a line that is not JSON, or lacks ``q_id``/``question``, is skipped; a
gold quote that is not among the candidates, a quote without ``quote_id`` or an answer citing an
image quote that does not exist is noted and the question kept.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ham.datasets.questions import Evidence, Question, collect_questions, read_all
from ham.records import jsonl_records

_TEXT_CITE = re.compile(r"\[(\d+)\]")
_IMAGE_CITE = re.compile(r"\(image(\d+)\)")
_MD_IMAGE_QUOTE = re.compile(r"(!\[[^\]]*\]\()\s*(image\d+)\s*(\))")


def cited_quotes(answer: str) -> list[str]:
    """Quote ids an answer cites, MMDocRAG's rule: ``[N]`` is ``textN`` and ``(imageN)`` is
    ``imageN``; text citations first, then images, each in order of first appearance."""
    texts = list(dict.fromkeys(f"text{n}" for n in _TEXT_CITE.findall(answer or "")))
    images = list(dict.fromkeys(f"image{n}" for n in _IMAGE_CITE.findall(answer or "")))
    return texts + images


def _modality(quote: dict) -> str:
    kind = str(quote.get("type") or "").strip().lower()
    if kind == "table":
        return "table"
    return "text" if kind == "text" else "image"


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def mmdocrag_question(obj) -> tuple[Question, str | None]:
    if not isinstance(obj, dict) or obj.get("q_id") in (None, "") or not isinstance(obj.get("question"), str) \
            or not obj["question"].strip():
        raise ValueError("not an object with q_id and question")
    doc = str(obj.get("doc_name") or "")
    notes: list[str] = []
    quotes: dict[str, dict] = {}
    for group in ("text_quotes", "img_quotes"):
        items = obj.get(group) or []
        if not isinstance(items, list):
            raise ValueError(f"{group} is not a list")
        for q in items:
            if not isinstance(q, dict) or not q.get("quote_id"):
                notes.append(f"a quote in {group} has no quote_id (left out)")
                continue
            quotes[str(q["quote_id"])] = q
    gold = obj.get("gold_quotes") or []
    if not isinstance(gold, list):
        raise ValueError("gold_quotes is not a list")
    evidence: list[Evidence] = []
    gold_text: list[str] = []
    gold_images: list[str] = []
    for qid in map(str, gold):
        quote = quotes.get(qid)
        if quote is None:
            notes.append(f"gold quote {qid!r} is not among the candidate quotes (left out)")
            continue
        modality = _modality(quote)
        layout = quote.get("layout_id")
        item = Evidence(doc=doc or None, layout=None if layout is None else str(layout),
                        page=_int(quote.get("page_id")), modality=modality)
        if modality == "text":
            item.text = str(quote.get("text") or "") or None
            if item.text:
                gold_text.append(item.text)
        else:
            item.image = str(quote.get("img_path") or "") or None
            if item.image:
                gold_images.append(item.image)
        evidence.append(item)
    raw_answer = obj.get("answer_interleaved")
    raw_answer = None if raw_answer is None else str(raw_answer)
    missing: list[str] = []

    def to_path(m: re.Match) -> str:
        quote = quotes.get(m.group(2))
        path = str(quote.get("img_path") or "") if quote else ""
        if not path:
            missing.append(m.group(2))
            return m.group(0)
        return f"{m.group(1)}{path}{m.group(3)}"

    answer = _MD_IMAGE_QUOTE.sub(to_path, raw_answer) if raw_answer else None
    if missing:
        notes.append(f"answer_interleaved shows image quote(s) {', '.join(dict.fromkeys(missing))} "
                     "that are not among the candidates")
    short = obj.get("answer_short")
    qtype = obj.get("question_type")
    kinds = [" ".join(str(qtype).split()).lower().replace(" ", "_")] if qtype else []
    meta = {k: v for k, v in obj.items() if k not in ("question",)}
    question = Question(id=str(obj["q_id"]), question=obj["question"].strip(), reference_answer=answer or None,
                        gold_images=gold_images, gold_text=gold_text, kinds=kinds, evidence=evidence,
                        answer_short=None if short is None else str(short), meta=meta)
    if not gold_images:
        question.gold_images = []   # no gold image quote: the answer's images are not gold
    return question, "; ".join(notes) or None


def iter_mmdocrag(path: str | Path, problems: list[str]) -> Iterator[Question]:
    path = Path(path)
    yield from collect_questions(jsonl_records(path, problems), mmdocrag_question, path, problems)


class MmdocragReader:
    """MMDocRAG ``{dev,evaluation}_{15,20}.jsonl``."""

    format = "mmdocrag"

    def iter(self, path: str | Path, problems: list[str]) -> Iterator[Question]:
        return iter_mmdocrag(path, problems)

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(iter_mmdocrag, path, "the questions file")
