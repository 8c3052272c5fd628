"""ViDoRe questions: a set folder as its hub ships it (``corpus/``, ``queries/``, ``qrels/``, each
parquet shards; the layout and column spellings are in ``ham.ingest.vidore``).

Each query becomes a ``Question``: id ``query_id`` as a string, its text, ``reference_answer``
v3's ``answer`` where there is one, ``kinds`` v3's ``query_types`` (lower-cased), and
``meta["page_qrels"]``: gold page key (``ham.datasets.pages.gold_page_key`` of the page
``ham.ingest.vidore.page_names`` gives the corpus row) -> the qrels score, 0 included (a judged,
not relevant page). ``meta`` also keeps ``language`` and the raw qrels by corpus id.

Problems (each naming the file): a folder without ``queries/`` or ``qrels/`` shards; a query
without text (skipped); a qrels row naming a query or corpus id that does not exist (left out);
a query without any qrels row (kept: nDCG is undefined for it and says so by its n).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Iterator

from ham.datasets.pages import gold_page_key
from ham.datasets.questions import Question, read_all
from ham.ingest import vidore


def _shards(folder: Path, name: str) -> list[Path]:
    return sorted((folder / name).glob("*.parquet")) if (folder / name).is_dir() else []


def iter_vidore(folder: str | Path, problems: list[str]) -> Iterator[Question]:
    folder = Path(folder)
    queries, qrels, corpus = _shards(folder, "queries"), _shards(folder, "qrels"), vidore.corpus_shards(folder)
    for name, shards in (("queries", queries), ("qrels", qrels), ("corpus", corpus)):
        if not shards:
            problems.append(f"{folder}: no {name}/*.parquet shards (not a ViDoRe BEIR set folder)")
            return
    names = vidore.page_names(corpus)
    judged: dict[str, dict[str, int]] = defaultdict(dict)
    for shard in qrels:
        cols = vidore.schema_names(shard) or set()
        qcol, ccol = vidore.column(cols, vidore.QUERY_ID), vidore.column(cols, vidore.ID)
        if qcol is None or ccol is None or "score" not in cols:
            problems.append(f"{shard}: not a qrels shard (needs query-id, corpus-id and score)")
            continue
        for n, row in enumerate(vidore.iter_rows(shard, [qcol, ccol, "score"])):
            cid = str(row[ccol])
            if cid not in names:
                problems.append(f"{shard}: row {n}: corpus id {cid} is not in the corpus (judgment left out)")
                continue
            judged[str(row[qcol])][cid] = int(row["score"])
    seen: set[str] = set()
    for shard in queries:
        cols = vidore.schema_names(shard) or set()
        qcol = vidore.column(cols, vidore.QUERY_ID)
        if qcol is None or "query" not in cols:
            problems.append(f"{shard}: not a queries shard (needs query-id and query)")
            continue
        for n, row in enumerate(vidore.iter_rows(shard, [qcol, "query", "answer", "language", "query_types"])):
            qid = str(row[qcol])
            text = str(row.get("query") or "").strip()
            if not text:
                problems.append(f"{shard}: row {n}: query {qid} has no text (skipped)")
                continue
            if qid in seen:
                problems.append(f"{shard}: row {n}: query id {qid} repeats (skipped)")
                continue
            seen.add(qid)
            qrels_by_corpus = judged.get(qid, {})
            if not qrels_by_corpus:
                problems.append(f"{shard}: row {n}: query {qid} has no qrels row (kept; its nDCG is undefined)")
            page_qrels = {gold_page_key(*names[cid]): score for cid, score in qrels_by_corpus.items()}
            kinds = [str(k).lower() for k in (row.get("query_types") or [])]
            answer = row.get("answer")
            yield Question(id=qid, question=text, reference_answer=str(answer) if answer else None, kinds=kinds,
                           meta={"page_qrels": page_qrels, "qrels": qrels_by_corpus, "language": row.get("language")})
    unknown = sorted(set(judged) - seen)
    if unknown:
        problems.append(f"{folder}: qrels name {len(unknown)} query id(s) no query has (e.g. {unknown[0]}); left out")


class VidoreReader:
    """A ViDoRe BEIR set folder (``dataset.questions`` is the folder)."""

    format = "vidore"

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(iter_vidore, path, "the set", (OSError,))
