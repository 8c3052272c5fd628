"""MMLongBench-Doc questions: ``samples.json`` as its repository ships it (a JSON list; the hub's
copy as JSON lines or a parquet file with the same columns is read too)::

    {"doc_id": "PH_2016.06.08_Economy-Final.pdf", "doc_type": "Research report / Introduction",
     "question": "...", "answer": "Less well-off", "evidence_pages": "[5]",
     "evidence_sources": "['Chart']", "answer_format": "Str"}

``evidence_pages`` counts pages from 1 and is a stringified list (``"[]"`` for unanswerable
questions, whose answer is "Not answerable"); ``evidence_sources`` a stringified list of
MMLongBench's source labels; ``answer_format`` one of Str, Int, Float, List, None. The documents
are the PDFs under ``documents/`` (``dataset.path``), named by ``doc_id``.

Each sample becomes a ``Question``: id ``{doc_id without .pdf}#{n}`` (n counting the document's
samples from 0, in file order), ``reference_answer`` and ``answer_short`` the answer,
``kinds`` the evidence sources normalised as MMDocIR's labels (``ham.datasets.mmdocir.normalise_type``:
the two benchmarks share them), ``meta``: doc_id, doc_type, answer_format, evidence_pages
(0-based), evidence_sources (raw), ``page_qrels`` (each evidence page as a gold page key, grade 1),
unanswerable, multi_page (the benchmark's cross-page split, as its ``eval_score.py`` counts it:
``len(evidence_pages) != 1`` and the answer not "Not answerable", so an answerable sample listing no
page is cross-page and a page listed twice is two; None where evidence_pages did not parse), index
(the sample's position in the file).

Problems (each with the file and the sample's position): a sample that is not an object, or has
no question or doc_id (skipped); an unknown answer_format, evidence_pages that do not parse as a
list of page numbers >= 1 (kept, without gold pages).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from ham.datasets.mmdocir import normalise_type
from ham.datasets.pages import gold_page_key
from ham.datasets.questions import Question, read_all
from ham.records import records

FORMATS = ("Str", "Int", "Float", "List", "None")


def _records(path: Path, problems: list[str]) -> Iterator[tuple[int, object]]:
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        for n, row in enumerate(pq.read_table(path).to_pylist()):
            yield n, row
    else:   # samples.json (a JSON list) or JSON lines: a bad record is reported with its line, the rest read
        for n, (_, row) in enumerate(records(path, problems)):
            yield n, row


def _pages(raw) -> list[int] | None:
    value = raw
    if isinstance(raw, str):
        try:
            value = ast.literal_eval(raw.strip() or "[]")
        except (ValueError, SyntaxError):
            return None
    if isinstance(value, int):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, int) and p >= 1 for p in value):
        return None
    return [p - 1 for p in value]


def iter_mmlongbench(path: str | Path, problems: list[str]) -> Iterator[Question]:
    path = Path(path)
    per_doc: dict[str, int] = {}
    for n, sample in _records(path, problems):
        where = f"{path}: sample {n}"
        if not isinstance(sample, dict) or not str(sample.get("question") or "").strip() or not sample.get("doc_id"):
            problems.append(f"{where}: not a sample with question and doc_id (skipped)")
            continue
        doc = str(sample["doc_id"])
        fmt = sample.get("answer_format")
        if fmt not in FORMATS:
            problems.append(f"{where}: answer_format {fmt!r} is not one of {', '.join(FORMATS)} (scored as a list)")
        pages = _pages(sample.get("evidence_pages"))
        # MMLongBench-Doc's cross-page split (eval_score.py's show_results): not one evidence page
        # (duplicates counted, none included) and answerable; unknown where the pages did not parse
        answer = sample.get("answer")
        answer = None if answer is None else str(answer)
        multi_page = None if pages is None else len(pages) != 1 and answer != "Not answerable"
        if pages is None:
            problems.append(f"{where}: evidence_pages {sample.get('evidence_pages')!r} is not a list of page "
                            "numbers >= 1 (no gold pages)")
            pages = []
        kinds, _ = normalise_type(sample.get("evidence_sources"))
        stem = doc[:-4] if doc.lower().endswith(".pdf") else doc
        number = per_doc.get(stem, 0)
        per_doc[stem] = number + 1
        meta = {"doc_id": doc, "doc_type": sample.get("doc_type"), "answer_format": fmt, "evidence_pages": pages,
                "evidence_sources": sample.get("evidence_sources"),
                "page_qrels": {gold_page_key(doc, p): 1 for p in pages},
                "unanswerable": answer == "Not answerable", "multi_page": multi_page, "index": n}
        yield Question(id=f"{stem}#{number}", question=str(sample["question"]).strip(), reference_answer=answer,
                       answer_short=answer, kinds=kinds, meta=meta)


class MmlongbenchReader:
    """``samples.json`` (or .jsonl / .parquet with its columns)."""

    format = "mmlongbench"

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(iter_mmlongbench, path, "the samples file", (OSError, UnicodeDecodeError, ValueError))
