"""Page retrieval beside ham's units (config group ``pages``): page images (``ham.pages``) ranked by
a page encoder (``ham.index.page_encoders``) over a multi-vector index
(``ham.index.late_interaction``), under their own budget ``k_p``.

    pages=none        ham's units alone (k_t text, k_v images): the default
    mode=pages        page images alone: the k_p best pages, no units
    mode=both         ham's units under k_t and k_v as the unit retriever returns them, and k_p
                      pages ranked by reciprocal rank fusion (RRF, ``rrf_k``, Cormack et al. 2009)
                      of the page encoder's ranking and the pages the retrieved units lie on
                      (text rows in rank order, then image rows; a page's first row counts):
                      ``score(p) = 1/(rrf_k + rank_pages(p)) + 1/(rrf_k + rank_units(p))``, a missing
                      rank adding nothing; ties keep the page encoder's order

``level=layout`` (mode pages only) embeds layout crops instead of whole pages: every unit with a
box on a page that has one (MMDocIR's layouts, ``PageUnit.layouts``), cropped from the page image;
a hit is that unit's box, so MMDocIR's layout-level recall scores it. A page hit maps onto
evidence units through ``PageUnit.units`` (every unit on the page), which is how gold evidence
resolved to units is found by page retrieval (``ham.metrics.ranking``).

The generator is offered the first ``k_p`` pages (``Retrieved.pages``), but the ranking is kept
``RANKING_DEPTH`` (10) deep when ``k_p`` is smaller (``Retrieved.page_ranking``, the row's
``retrieved_pages``): the page ranking metrics read it to their deepest k (nDCG@10, layout
recall@10), so a relevant page ranked 6th to 10th is credited whatever ``k_p``, and arms of
different budgets are scored on rankings of the same depth.

Every retrieval records its seconds (query encoding, page scoring, the unit retriever) in
``Retrieved.timing``; the index's bytes per page and build record go in the run's info.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from ham.index.late_interaction import STORE_DTYPES, Item, MultiVectorIndex, build_index, file_digest
from ham.index.page_encoders import ColPaliEncoder, ColQwen2Encoder, VisRAGEncoder
from ham.ingest.pages import DEFAULT_DPI, collect_pages, layout_crop
from ham.pages import PageUnit, page_id_of
from ham.retrieve.retriever import Hit, Retrieved
from ham.settings import Doc, OneOf, Range

MODES = ("pages", "both")
# the deepest k a page ranking metric reads (ndcg_10, layout_recall_10; ham.metrics.ranking checks it)
RANKING_DEPTH = 10
LEVELS = ("page", "layout")


@dataclass
class PageHit:
    page: PageUnit
    score: float
    rank: int
    layout: dict | None = None           # level=layout: {"unit_id", "bbox", "page_size"}
    sources: dict = field(default_factory=dict)   # mode both: {"pages": rank or None, "units": rank or None}

    def to_row(self) -> dict:
        """The hit as predictions and metrics see it; ``page`` 1-based as unit rows write it."""
        p = self.page
        row = {"page_id": p.page_id, "doc_id": p.doc_id, "page": p.page + 1, "source": p.source,
               "image_path": p.image_path, "origin": p.origin, "score": round(self.score, 6), "units": list(p.units)}
        if "corpus_id" in p.extra:
            row["corpus_id"] = p.extra["corpus_id"]
        if self.layout is not None:
            row.update(unit_id=self.layout["unit_id"], bbox=list(self.layout["bbox"]), units=[self.layout["unit_id"]])
        if self.sources:
            row["fused_from"] = dict(self.sources)
        return row


def unit_page_ranking(hits: list[Hit]) -> list[str]:
    """Page ids of the pages the hits lie on, first occurrence first."""
    out: list[str] = []
    for hit in hits:
        if hit.unit.page is not None:
            pid = page_id_of(hit.unit.doc_id, hit.unit.page)
            if pid not in out:
                out.append(pid)
    return out


def rrf(rankings: dict[str, list[str]], k: int) -> list[tuple[str, float, dict]]:
    """Reciprocal rank fusion of named rankings: (id, score, {name: 1-based rank or None}), best
    first; ties keep the order of the first ranking, then the next."""
    order: list[str] = []
    for ranking in rankings.values():
        order.extend(i for i in ranking if i not in order)
    ranks = {name: {item: r for r, item in enumerate(ranking, 1)} for name, ranking in rankings.items()}
    scored = []
    for item in order:
        where = {name: ranks[name].get(item) for name in rankings}
        scored.append((item, sum(1.0 / (k + r) for r in where.values() if r is not None), where))
    return sorted(scored, key=lambda t: -t[1])


class PagedRetriever:
    """A unit retriever with page retrieval beside it (module docstring). ``retrieve`` returns the
    unit retriever's ``Retrieved`` (empty in mode pages) with ``page_ranking`` filled, at least
    ``RANKING_DEPTH`` deep, and ``pages`` its first ``k_p``."""

    def __init__(self, units, index: MultiVectorIndex, pages: list[PageUnit], encoder, k_p: int = 5,
                 mode: str = "both", level: str = "page", rrf_k: int = 60) -> None:
        self.units_retriever, self.index, self.encoder = units, index, encoder
        self.pages = {p.page_id: p for p in pages}
        self.layouts = {(p.page_id, lay["unit_id"]): lay for p in pages for lay in p.layouts}
        self.k_p, self.mode, self.level, self.rrf_k = k_p, mode, level, rrf_k
        self.encoder_id = encoder.model_id

    def __getattr__(self, name):
        # the unit retriever's own settings and hooks (count_with, bind, units, encoder) stay reachable
        if name == "units_retriever":
            raise AttributeError(name)
        return getattr(self.units_retriever, name)

    def page_ranking(self, question: str, k: int | None) -> tuple[list[tuple[str, float]], dict]:
        started = time.perf_counter()
        query = self.encoder.encode_queries([question])[0]
        encoded = time.perf_counter()
        ranked = self.index.search(query, k)
        return ranked, {"page_query_encode": encoded - started, "page_search": time.perf_counter() - encoded}

    def _hit(self, item_id: str, score: float, rank: int, sources=None) -> PageHit:
        if self.level == "layout":
            page_id, unit_id = item_id.split("|", 1)
            return PageHit(self.pages[page_id], score, rank, self.layouts[(page_id, unit_id)], sources or {})
        return PageHit(self.pages[item_id], score, rank, None, sources or {})

    def retrieve(self, question: str) -> Retrieved:
        depth = max(self.k_p, RANKING_DEPTH)
        if self.mode == "pages":
            ranked, timing = self.page_ranking(question, depth)
            hits = [self._hit(i, s, r) for r, (i, s) in enumerate(ranked, 1)]
            return Retrieved(text=[], images=[], pages=hits[: self.k_p], timing=timing, page_ranking=hits)
        started = time.perf_counter()
        units = self.units_retriever.retrieve(question)
        unit_seconds = time.perf_counter() - started
        ranked, timing = self.page_ranking(question, None)
        fused = rrf({"pages": [i for i, _ in ranked],
                     "units": [p for p in unit_page_ranking(units.text + units.images) if p in self.pages]},
                    self.rrf_k)[:depth]
        hits = [self._hit(i, s, r, where) for r, (i, s, where) in enumerate(fused, 1)]
        return Retrieved(text=units.text, images=units.images, pages=hits[: self.k_p],
                         timing={**units.timing, **timing, "units": unit_seconds}, page_ranking=hits)


class PageRetrieval:
    """``conf/pages/*``: which page encoder, how pages are rendered and indexed, and the budget.
    ``attach`` builds (or reuses) the page index for a corpus and wraps the unit retriever."""

    def __init__(self, encoder: Annotated[ColPaliEncoder | ColQwen2Encoder | VisRAGEncoder,
                                          Doc("the page encoder (conf/pages/*: its schema at pages.encoder)")],
                 k_p: Annotated[int, Range(1), Doc("pages shown the generator: a budget of its own, beside k_t and k_v "
                                                     "(the ranking metrics read 10 deep whatever k_p)")] = 5,
                 mode: Annotated[str, OneOf(*MODES), Doc("pages: page images alone; both: the units too, and "
                                                         "pages fused with the pages they lie on (RRF)")] = "both",
                 level: Annotated[str, OneOf(*LEVELS), Doc("layout: MMDocIR layout crops instead of whole pages "
                                                           "(mode=pages)")] = "page",
                 dpi: Annotated[int, Range(1), Doc("PDF page rendering resolution")] = DEFAULT_DPI,
                 pool_factor: Annotated[int, Range(1), Doc("1: every token vector (exact MaxSim); N: "
                                                           "hierarchical token pooling to about 1/N")] = 1,
                 store_dtype: Annotated[str, OneOf(*STORE_DTYPES), Doc("stored precision of the vectors "
                                                                       "(scores in float32)")] = "float16",
                 rrf_k: Annotated[int, Range(1), Doc("reciprocal rank fusion constant (mode=both)")] = 60,
                 show_progress: Annotated[bool, Doc("a progress bar while pages are encoded")] = False) -> None:
        if mode not in MODES:
            raise ValueError(f"pages.mode must be one of {', '.join(MODES)}, not {mode!r}")
        if level not in LEVELS:
            raise ValueError(f"pages.level must be one of {', '.join(LEVELS)}, not {level!r}")
        if level == "layout" and mode != "pages":
            raise ValueError("pages.level=layout ranks layout crops alone: it needs pages.mode=pages")
        if k_p < 1 or rrf_k < 1:
            raise ValueError(f"pages.k_p and pages.rrf_k must be >= 1, not {k_p} and {rrf_k}")
        self.encoder, self.k_p, self.mode, self.level, self.dpi = encoder, k_p, mode, level, dpi
        self.pool_factor, self.store_dtype, self.rrf_k = pool_factor, store_dtype, rrf_k
        self.show_progress = show_progress

    def items(self, pages: list[PageUnit]) -> list[Item]:
        """What is embedded: each page image, or (level=layout) each layout crop."""
        from ham.images import on_white

        # a page with transparency is embedded composited onto white: its vectors from the black form are not reused
        note = {p.page_id: ["on-white"] if on_white(Path(p.image_path)) else [] for p in pages}
        if self.level == "page":
            return [Item(p.page_id, file_digest(p.image_path, *note[p.page_id]), _loader(Path(p.image_path)))
                    for p in pages]
        items = []
        for p in pages:
            for lay in p.layouts:
                items.append(Item(f"{p.page_id}|{lay['unit_id']}",
                                  file_digest(p.image_path, lay["bbox"], lay["page_size"], *note[p.page_id]),
                                  lambda p=p, lay=lay: layout_crop(p, lay)))
        return items

    def attach(self, retriever, corpus, cache) -> tuple[PagedRetriever, dict]:
        pages, page_info = collect_pages(corpus, cache, self.dpi)
        if not pages:
            raise ValueError(f"pages: the corpus {corpus.root} has no page images (no PDF, MMDocIR pages "
                             "parquet or ViDoRe corpus under it)")
        items = self.items(pages)
        if not items:
            raise ValueError(f"pages.level=layout: no page of {corpus.root} has layout boxes with a page size")
        index, index_info = build_index(items, self.encoder, cache, self.pool_factor, self.store_dtype,
                                        self.show_progress)
        paged = PagedRetriever(retriever, index, pages, self.encoder, self.k_p, self.mode, self.level, self.rrf_k)
        return paged, {"pages": page_info, "page_index": {**index_info, "level": self.level, "mode": self.mode}}


def _loader(path: Path):
    def load():
        from ham.images import open_image

        return open_image(path)
    return load
