"""Gold pages: how a benchmark's page judgments are named, and how a retrieved page (or a unit on
a page) is matched against them.

Every page benchmark ham reads names a page by document and page number: MMDocIR ``doc_name`` +
``page_id`` (0-based), MMLongBench-Doc ``doc_id`` + ``evidence_pages`` (1-based in the file, 0-based
here), ViDoRe a corpus row (its document and page, ``ham.ingest.vidore.page_names``). The loaders
store a question's judgments as ``meta["page_qrels"]``: gold key -> graded relevance (ViDoRe's
qrels scores; 1 for the others; a grade of 0 is a judged non-relevant page and is kept, as
trec_eval keeps it).

    gold_page_key("PH_2016.06.08_Economy-Final.pdf", 4) == "PH_2016.06.08_Economy-Final#4"
    page_keys("documents/PH_2016.06.08_Economy-Final", 4) == {"documents/PH_2016.06.08_Economy-Final#4",
                                                              "PH_2016.06.08_Economy-Final#4"}

A gold key is the document name's last path part normalised as ``doc_key`` normalises documents
(``.pdf`` dropped, whitespace ``_``); a page answers to its document id and that id's last path
part (ham's PDF ids keep the folder the file is in). Two documents with one file name in two
folders would answer to the same key: ``page_gold_problems`` says so for a corpus.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from ham.datasets.evidence import doc_key
from ham.datasets.questions import Question


def gold_page_key(doc, page: int) -> str:
    """A benchmark's name for a page (module docstring)."""
    return f"{doc_key(str(doc).replace(chr(92), '/').rsplit('/', 1)[-1])}#{int(page)}"


def page_keys(doc_id, page) -> set[str]:
    """Every key a page of ``doc_id`` answers to; empty when either is unknown."""
    if page is None or doc_id is None:
        return set()
    names = {doc_key(doc_id), doc_key(str(doc_id).rsplit("/", 1)[-1])}
    return {f"{n}#{int(page)}" for n in names if n}


def page_gold(question: Question) -> dict[str, int]:
    """The question's page judgments: ``meta["page_qrels"]`` when its loader stored them, else
    one judgment (grade 1) per gold evidence item that names a document and a page."""
    qrels = question.meta.get("page_qrels") if isinstance(question.meta, dict) else None
    if isinstance(qrels, dict):
        return {str(k): int(v) for k, v in qrels.items()}
    out: dict[str, int] = {}
    for item in question.evidence:
        if item.doc is not None and item.page is not None:
            out[gold_page_key(item.doc, item.page)] = 1
    return out


def page_gold_problems(doc_ids: Iterable[str], names: Iterable[str] | None = None) -> list[str]:
    """Documents whose last path part collides (their pages would answer to the same gold keys);
    ``names``: only these document names (the ones gold keys use), None: every name."""
    counts = Counter(doc_key(str(d).rsplit("/", 1)[-1]) for d in set(doc_ids))
    wanted = None if names is None else set(names)
    return [f"{n}: {c} documents share this name; their pages match the same gold page keys"
            for n, c in sorted(counts.items()) if c > 1 and (wanted is None or n in wanted)]
