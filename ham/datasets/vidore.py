"""ViDoRe questions: a set folder as its hub ships it (``corpus/``, ``queries/``, ``qrels/``, each
parquet shards; the layout and column spellings are in ``ham.ingest.vidore``).

Each query becomes a ``Question``: id ``query_id`` as a string, its text, ``reference_answer``
v3's ``answer`` (or ``gold_answer``, as some v3 sets name it) where there is one, ``kinds`` v3's
``query_types`` (lower-cased), and ``meta["page_qrels"]``: gold page key
(``ham.datasets.pages.gold_page_key`` of the page ``ham.ingest.vidore.page_names`` gives the corpus
row) -> the qrels score, 0 included (a judged, not relevant page). ``meta`` also keeps ``language``
(lower-cased) and the raw qrels by corpus id.

Languages: v2 and v3 ship each query once per language (v2: english, french, spanish, german, as
MTEB's Vidore2 loaders filter them; v3: english, french, spanish, german, italian, portuguese),
each row with its language. Read as they are, one mean would mix the translations of every question
and its n (and CI) would count each question once per language. So where the queries have a
``language`` column, only the rows of ``language`` are kept (the reader's setting
``dataset.reader.language``, default ``english``); ``all`` keeps every row and says so; a
translation sharing its query's id (v2) is a question of its own, ``<query id>@<language>``,
judged by its query's qrels. The
language is read before the query id is checked for repeats, so a translation sharing its query's
id is left out with its language, not reported as a repeat, and never kept in place of the wanted
row. Either way the per-language counts of the set are reported as a problem line (a note on the
run's questions), and the qrels of the rows left out are left out with them, unreported. A set
without a ``language`` column (v1) is read whole, and so is a row without a language.

Problems (each naming the file): a folder without ``queries/`` or ``qrels/`` shards; a query
without text (skipped); a qrels row naming a query or corpus id that does not exist (left out);
a query without any qrels row (kept: nDCG is undefined for it and says so by its n); a queries
shard without an ``answer`` or ``gold_answer`` column (v1, v2: no reference answers, so answer
metrics are undefined); which languages were kept (above).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Annotated, Iterator

from ham.datasets.pages import gold_page_key
from ham.datasets.questions import Question, read_all
from ham.ingest import vidore
from ham.settings import Doc

ALL = "all"   # language: every row kept
ANSWERS = {"answer", "gold_answer"}   # v3's reference answer, under either name


def _shards(folder: Path, name: str) -> list[Path]:
    return sorted((folder / name).glob("*.parquet")) if (folder / name).is_dir() else []


def iter_vidore(folder: str | Path, problems: list[str], language: str = "english") -> Iterator[Question]:
    """The set's questions; ``language``: the rows kept where the queries have a language column
    (module docstring)."""
    folder, wanted = Path(folder), str(language).strip().lower()
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
    seen: set[str] = set()   # ids kept
    read: set[str] = set()   # ids of every query with text, whatever its language
    languages: Counter = Counter()   # rows read per language (with text, once per id and language)
    counted: set[tuple[str, str]] = set()
    for shard in queries:
        cols = vidore.schema_names(shard) or set()
        qcol = vidore.column(cols, vidore.QUERY_ID)
        if qcol is None or "query" not in cols:
            problems.append(f"{shard}: not a queries shard (needs query-id and query)")
            continue
        if not ANSWERS & cols:
            problems.append(f"{shard}: no answer column ({' or '.join(sorted(ANSWERS))}): its queries have no "
                            "reference answer (answer metrics undefined)")
        shared = _translated_ids(shard, qcol) if wanted == ALL else set()
        for n, row in enumerate(vidore.iter_rows(shard, [qcol, "query", *sorted(ANSWERS), "language", "query_types"])):
            qid = str(row[qcol])
            text = str(row.get("query") or "").strip()
            if not text:
                problems.append(f"{shard}: row {n}: query {qid} has no text (skipped)")
                continue
            read.add(qid)
            lang = row.get("language")
            if lang is not None:   # before the id check: a translation may share its query's id (v2)
                lang = str(lang).strip().lower()
                languages[lang] += (qid, lang) not in counted
                counted.add((qid, lang))
                if wanted != ALL and lang != wanted:
                    continue
            # every language kept: a translation sharing its query's id (v2's) is a question of its own,
            # "<id>@<language>" (one of them had been kept, whichever came first)
            key = f"{qid}@{lang}" if qid in shared and lang is not None else qid
            if key in seen:
                problems.append(f"{shard}: row {n}: query id {key} repeats (skipped)")
                continue
            seen.add(key)
            qrels_by_corpus = judged.get(qid, {})
            if not qrels_by_corpus:
                problems.append(f"{shard}: row {n}: query {qid} has no qrels row (kept; its nDCG is undefined)")
            page_qrels = {gold_page_key(*names[cid]): score for cid, score in qrels_by_corpus.items()}
            kinds = [str(k).lower() for k in (row.get("query_types") or [])]
            answer = row.get("answer") or row.get("gold_answer")
            yield Question(id=key, question=text, reference_answer=str(answer) if answer else None, kinds=kinds,
                           meta={"page_qrels": page_qrels, "qrels": qrels_by_corpus, "language": lang})
    if languages:
        problems.append(language_note(folder, languages, wanted))
    unknown = sorted(set(judged) - read)
    if unknown:
        problems.append(f"{folder}: qrels name {len(unknown)} query id(s) no query has (e.g. {unknown[0]}); left out")


def _translated_ids(shard, qcol: str) -> set[str]:
    """The query ids a queries shard holds in more than one language."""
    langs: dict[str, set] = {}
    for row in vidore.iter_rows(shard, [qcol, "language"]):
        if row.get("language") is not None:
            langs.setdefault(str(row[qcol]), set()).add(str(row["language"]).strip().lower())
    return {qid for qid, found in langs.items() if len(found) > 1}


def language_note(folder: Path, languages: Counter, wanted: str) -> str:
    """The line that says which languages a set has and which were kept."""
    counts = ", ".join(f"{lang} {n}" for lang, n in sorted(languages.items(), key=lambda kv: (-kv[1], kv[0])))
    if wanted == ALL:
        many = " (a query translated into several languages counts once per language)" if len(languages) > 1 else ""
        return (f"{folder}: every language kept (language=all): {sum(languages.values())} queries by language: "
                f"{counts}{many}")
    kept = languages.get(wanted, 0)
    return (f"{folder}: {kept} {wanted} queries kept of {sum(languages.values())} by language: {counts} "
            f"(dataset.reader.language=all keeps every row)")


class VidoreReader:
    """A ViDoRe BEIR set folder (``dataset.questions`` is the folder)."""

    format = "vidore"

    def __init__(self, language: Annotated[str, Doc("the queries kept where the set has a language column "
                                                    "(v2 ships each query in four, v3 in six): one language, or all "
                                                    "(each translation a question of its own)")] = "english") -> None:
        self.language = language

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(lambda p, problems: iter_vidore(p, problems, self.language), path, "the set", (OSError,))
