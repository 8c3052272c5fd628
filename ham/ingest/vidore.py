"""ViDoRe corpora in the BEIR layout its hub ships: ``corpus/``, ``queries/`` and ``qrels/``
folders of parquet shards (``test-00000-of-00002.parquet``, ...), as ``datasets.push_to_hub`` writes
a config per folder.

Columns, both spellings read (v1 ``*_beir`` and v2 sets use hyphens, v3 underscores)::

    corpus   corpus-id | corpus_id, image (an HF Image: {bytes, path}), and in v3 doc_id,
             page_number_in_doc, markdown
    queries  query-id | query_id, query (v3 also language, query_types, answer, ...)
    qrels    query-id | query_id, corpus-id | corpus_id, score (graded; 0 = judged not relevant)

Each corpus row is one page. ``page_names`` gives it a document and a page number: v3's
``doc_id`` and ``page_number_in_doc`` when the row has both and no other row has the same pair,
else ``corpus-<id>`` and page 0 (v1 and v2 rows name no document). The questions reader
(``ham.datasets.vidore``) and the page images (``ham.ingest.pages``) use the same names, so a
qrels row, a page hit and a unit on that page agree.

Documents: rows with text (v3's ``markdown``) become one document per document name: a
"Page N" heading per page, then the page's Markdown read by ``ham.ingest.markdown`` (headings one
level below the page, paragraphs, tables, lists; image references in the Markdown are left out
and counted); every unit's ``extra["corpus_id"]`` is its row's id. Rows without text are pages
only: retrievable by their image (``pages`` options), not by ham's text units. The queries and
qrels shards are claimed and left to the questions reader.
"""
from __future__ import annotations

import logging
from collections import Counter, defaultdict
from pathlib import Path

from ham.document import Document
from ham.ingest.builder import Block, TreeBuilder
from ham.ingest.mmdocir import _schema_names as schema_names   # a parquet's column names, None if not one
from ham.ingest.mmdocir import doc_id_of
from ham.ingest.report import IngestReport

log = logging.getLogger("ham.ingest.vidore")

ID = ("corpus-id", "corpus_id")
QUERY_ID = ("query-id", "query_id")
DOC = ("doc_id", "doc-id")
PAGE = ("page_number_in_doc", "page-number-in-doc")
TEXT = ("markdown", "text_description", "text")
BATCH_ROWS = 64


def column(names, choices: tuple[str, ...]) -> str | None:
    """The first of ``choices`` present in ``names``."""
    return next((c for c in choices if c in names), None)


def is_corpus_file(path: Path) -> bool:
    names = schema_names(path) if path.suffix.lower() == ".parquet" else None
    return bool(names) and column(names, ID) is not None and "image" in names and "layout_id" not in names


def is_companion(path: Path) -> bool:
    """A queries or qrels shard of a ViDoRe set."""
    names = schema_names(path) if path.suffix.lower() == ".parquet" else None
    return bool(names) and column(names, QUERY_ID) is not None and ("query" in names or "score" in names)


def claim(files: list[Path]) -> list[Path]:
    corpus = [f for f in files if is_corpus_file(f)]
    if not corpus:
        return []
    return corpus + [f for f in files if f not in corpus and is_companion(f)]


def corpus_shards(folder: Path) -> list[Path]:
    """The corpus shards of a ViDoRe set folder (``corpus/*.parquet``, else any corpus parquet under it)."""
    shards = sorted((folder / "corpus").glob("*.parquet")) if (folder / "corpus").is_dir() else []
    return shards or sorted(p for p in folder.rglob("*.parquet") if is_corpus_file(p))


def iter_rows(path: Path, columns: list[str]):
    """Rows of a parquet shard with only ``columns`` read, a batch at a time."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    present = [c for c in columns if c in set(pf.schema_arrow.names)]
    for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=present):
        yield from batch.to_pylist()


def page_names(shards: list[Path]) -> dict[str, tuple[str, int]]:
    """corpus id -> (document name, 0-based page) for every row of the shards (module docstring)."""
    rows: list[tuple[str, object, object]] = []
    for shard in shards:
        names = schema_names(shard) or set()
        id_col, doc_col, page_col = column(names, ID), column(names, DOC), column(names, PAGE)
        for row in iter_rows(shard, [c for c in (id_col, doc_col, page_col) if c]):
            rows.append((str(row[id_col]), row.get(doc_col) if doc_col else None,
                         row.get(page_col) if page_col else None))
    pairs = Counter((d, p) for _, d, p in rows if d is not None and p is not None)
    out: dict[str, tuple[str, int]] = {}
    for cid, doc, page in rows:
        if doc is not None and page is not None and pairs[(doc, page)] == 1:
            out[cid] = (vidore_doc_id(str(doc)), int(page))
        else:
            out[cid] = (f"corpus-{cid}", 0)
    return out


def vidore_doc_id(name: str) -> str:
    """A document name as ham's id: ``.pdf`` dropped, whitespace ``_`` (as MMDocIR's)."""
    return doc_id_of(name)


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    from ham.ingest.markdown import markdown_blocks

    corpus = [f for f in files if is_corpus_file(f)]
    names = page_names(corpus)
    pages: dict[str, list[tuple[int, str, str, Path]]] = defaultdict(list)   # doc -> (page, corpus id, text, shard)
    textless = 0
    for shard in corpus:
        cols = schema_names(shard) or set()
        id_col, text_col = column(cols, ID), column(cols, TEXT)
        if text_col is None:
            textless += sum(1 for _ in iter_rows(shard, [id_col]))
            continue
        for row in iter_rows(shard, [id_col, text_col]):
            cid = str(row[id_col])
            text = str(row.get(text_col) or "").strip()
            if not text:
                textless += 1
                continue
            doc, page = names[cid]
            pages[doc].append((page, cid, text, shard))
    if textless:
        report.exclude(corpus[0], "ViDoRe page without text (retrievable by its image only)", textless)
    docs = []
    for doc_id, entries in pages.items():
        source = report.rel(entries[0][3])
        builder = TreeBuilder(doc_id, doc_id, source, "vidore")
        scratch = IngestReport(root=root)
        for page, cid, text, shard in sorted(entries):
            builder.add(Block(kind="heading", text=f"Page {page + 1}", level=1, page=page, source=source))
            for block in markdown_blocks(text, shard, root, scratch):
                if block.kind == "image":
                    report.exclude(shard, "image reference in a ViDoRe page's Markdown")
                    continue
                block.page, block.source = page, source
                block.meta = {**block.meta, "corpus_id": cid}
                if block.kind == "heading":
                    block.level = max(1, block.level) + 1
                builder.add(block)
        docs.append(builder.finish())
    return docs
