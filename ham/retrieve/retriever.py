"""Online retrieval under separate budgets: top k_t text units and top k_v images (paper 3.3).

Every hit keeps its score, provenance (document, source file, position) and the unit itself, so
assembly can show heading paths, captions and local relations.

Tables are text units (caption, rows and footnotes are their text; ``Hit.to_row`` labels them
``table``) and live in the text index, so they share the text budget:

    k_tab: null   (default) text and table units are ranked together and the top ``k_t`` are kept,
                  whatever their kind: a table takes one of the k_t slots
    k_tab: N      the ``k_t`` best text units and, besides them, the ``N`` best tables are kept (so
                  ``k_t + N`` rows at most), in the order of the one ranking they come from; both
                  are drawn from the same candidate pool (``pool``), so fewer come back when the
                  pool holds fewer. ``k_tab: 0`` leaves tables out.

A table's image (``image``/``image_path``) travels with its row for multimodal methods, and a
table that has an image is also in the image index as its twin ``<id>#image`` (``ham.units``),
under the image budget k_v like any image. Plain ranking orders units by their fused score; ``retrieval=structural`` hands ranking to ``ham.retrieve.structural.SectionRanker``.
Indexes are built (or reused) by ``ham.index.build``.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Annotated, Sequence

from ham.index.hybrid import DenseOnly, HybridFusion, Query, ScoredUnit, SparseOnly
from ham.retrieve.budget import BudgetedText, TextLength, TreeAssembly, reranked_walk
from ham.retrieve.diversity import MMR, SectionCap
from ham.retrieve.sections import SectionMaps
from ham.retrieve.structural import SectionRanker
from ham.settings import Doc, OneOf, Range
from ham.text import tokenize
from ham.represent.templates import position
from ham.units import EvidenceUnit

log = logging.getLogger("ham.retrieve.retriever")


@dataclass
class Hit:
    unit: EvidenceUnit
    score: float
    rank: int
    dense: float = 0.0
    sparse: float = 0.0

    def to_row(self) -> dict:
        """The hit as predictions, metrics, judges and the viewer see it: unit id, modality
        (``text``, ``table`` or ``image``), source file, page (1-based, where the source has
        pages), the source's own index and label ("Figure 3"), the position as prompts write it,
        heading path, score, and the text or the image reference, file and caption; the document
        id, and the unit's box where the source gives one; a passage assembled under a budget adds its
        ``members`` and each one's page and box (``member_pages``)."""
        u = self.unit
        row = {"unit_id": u.unit_id, "modality": "table" if u.kind == "table" else u.modality,
               "doc_id": u.doc_id, "source": u.source, "page": None if u.page is None else u.page + 1, "index": u.index,
               "label": u.label, "position": position(u), "heading_path": u.heading_path,
               "score": round(self.score, 6)}
        if u.modality == "image" or u.image:
            row.update(image=u.image, image_path=u.image_path, caption=u.caption or u.alt)
        if u.modality != "image":
            row["text"] = u.content
        if u.extra.get("bbox"):   # the source's box on its page (MMDocIR layouts: page-size coordinates)
            row["bbox"] = list(u.extra["bbox"])
        if len(u.extra.get("members", ())) > 1 or u.extra.get("cut"):   # a passage assembled or cut under a budget
            row["members"] = list(u.extra["members"])                    # (ham.retrieve.budget)
            if "member_pages" in u.extra:   # each member's page (1-based) and box, in member order
                row["member_pages"] = [{"unit_id": m["unit_id"], "page": None if m["page"] is None else m["page"] + 1,
                                        **({"bbox": list(m["bbox"])} if m.get("bbox") else {})}
                                       for m in u.extra["member_pages"]]
        if u.extra.get("cut"):
            row["cut"] = dict(u.extra["cut"])
        return row


@dataclass
class Retrieved:
    text: list[Hit]
    images: list[Hit]
    pages: list = field(default_factory=list)    # page hits (``ham.retrieve.pages.PageHit``) offered to the
                                                 # generator (k_p), pages options only
    timing: dict = field(default_factory=dict)   # seconds per retrieval step, where a retriever measures them
    page_ranking: list = field(default_factory=list)   # the page ranking ``pages`` heads, as deep as the
                                                       # ranking metrics read (empty: ``pages`` is all of it)


K_T = Annotated[int, Range(0), Doc("text units retrieved (with a budget: passages at most)")]
K_V = Annotated[int, Range(0), Doc("images retrieved (a separate index: the budgets never compete)")]
K_TAB = Annotated[int | None, Range(0), Doc("tables: None = they share k_t with text; N = the N best tables besides "
                                            "k_t text units")]
POOL = Annotated[int, Range(1), Doc("each side's top `pool` units form the candidate pool")]
FUSION = Annotated[HybridFusion | DenseOnly | SparseOnly | None, Doc("how dense and sparse scores combine (None: "
                                                                     "0.7 dense + 0.3 sparse, min-max normalised)")]


class Retriever:
    def __init__(self, corpus, indexes, encoder, k_t: K_T = 15, k_v: K_V = 10, pool: POOL = 100,
                 fusion: FUSION = None,
                 ranker: Annotated[SectionRanker | None, Doc("retrieval=structural: sections ranked first")] = None,
                 diversity: Annotated[SectionCap | MMR | None, Doc("how the k_t text slots are shared out over the "
                                                                   "tree (section caps and parents, or MMR)")] = None,
                 k_tab: K_TAB = None, reranker=None,
                 budget: Annotated[int | None, Range(1), Doc("None: the k_t best units; N: the text context "
                                                             "assembled along the tree within N")] = None,
                 budget_unit: Annotated[str, OneOf("chars", "tokens"), Doc("chars of retrieved text, or tokens of "
                                                                           "the generator's tokenizer (local models "
                                                                           "only)")] = "chars",
                 assembly: Annotated[TreeAssembly | None, Doc("how the budgeted context is assembled (None: "
                                                              "TreeAssembly's defaults)")] = None) -> None:
        if ranker is not None and diversity is not None:
            raise ValueError("retrieval: a structural ranker and a diversity step both reorder the ranking; "
                             "choose one (retrieval.ranker or retrieval.diversity)")
        if budget is not None and any(x is not None for x in (ranker, diversity, k_tab)):
            raise ValueError("retrieval.budget assembles the text context itself: it does not combine with "
                             "retrieval.ranker, retrieval.diversity or retrieval.k_tab")
        for index in indexes.values():
            index.check_encoder(encoder.model_id)  # an index is never searched with another encoder
        self.units = corpus.by_id
        self.indexes = indexes
        self.encoder = encoder
        self.k_t, self.k_v, self.pool = k_t, k_v, pool
        self.k_tab = k_tab
        self.fusion = fusion or HybridFusion()
        self.ranker, self.diversity, self.reranker = ranker, diversity, reranker
        if budget_unit not in ("chars", "tokens"):
            raise ValueError(f"retrieval.budget_unit must be 'chars' or 'tokens', not {budget_unit!r}")
        if budget is not None and budget < 1:
            raise ValueError(f"retrieval.budget must be >= 1 (or null: no budget), not {budget}")
        self.budget, self.budget_unit = budget, budget_unit
        self.assembly = assembly if assembly is not None else TreeAssembly()
        self.length = TextLength("chars") if budget_unit == "chars" else None   # tokens: ``count_with``
        self._sections = SectionMaps()

    def bind(self, descriptions=None, cache=None) -> None:
        """The offline stage's image descriptions and the run's cache, for retrievers that read
        them (``retrieval=graph``); this one reads neither."""

    def count_with(self, count_tokens) -> None:
        """Bind the generator's token counter (``Generator.count_tokens``; None when it has no
        tokenizer). ``budget_unit=tokens`` needs one and says so here, before any question."""
        if self.budget is not None and self.budget_unit == "tokens":
            self.length = TextLength("tokens", count_tokens)

    def query(self, text: str) -> Query:
        enc = self.encoder.encode_query(text)
        lexical = enc.sparse[0] if enc.sparse else None
        return Query(text, enc.dense[0], tokenize([text])[0], lexical)

    def ranked(self, modality: str, query: Query, k: int) -> list[ScoredUnit]:
        index = self.indexes[modality]
        if self.ranker is not None:
            # a ranker is handed the reranker only when there is one (one that cannot take it fails loudly)
            rerank = {} if modality == "image" or self.reranker is None else {"rerank": lambda s: self.reranked(query, s)}
            return self.ranker.rank(index, query, k, self.units, self.fusion, self.pool, **rerank)
        if modality == "image" or (self.diversity is None and self.reranker is None):
            return index.search(query, k, self.fusion, self.pool)
        # text: the fused pool, reranked, then its k_t slots shared out (reranking and diversity
        # modules' docstrings); images keep their plain ranking
        scored = index.search(query, None, self.fusion, self.pool)
        if self.reranker is not None:
            scored = self.reranked(query, scored)
        if self.diversity is not None:
            scored = self.diversity.select(scored, k, index, self.units,
                                           lambda rows: index.search(query, None, self.fusion, self.pool, extra=rows))
        return scored[:k]

    def reranked(self, query: Query, scored: list[ScoredUnit]) -> list[ScoredUnit]:
        """A fused text pool after the reranker, on one scale (``reranked_walk``): the ``top_n`` it
        rescored in its order, min-max scaled to [0, 1], the rest at 0 in the fused order. What
        reads scores after it (diversity's relevance, structural section scores, graph propagation)
        then never ranks a candidate the reranker did not see above one it did, whatever the
        reranker's scale (raw logits with ``fused_weight`` 0)."""
        return reranked_walk(scored, self.reranker.rerank(query.text, scored, self.units), self.reranker.top_n)

    def retrieve(self, question: str) -> Retrieved:
        query = self.query(question)

        def hits(ranked: list[ScoredUnit]) -> list[Hit]:
            return [Hit(self.units[s.unit_id], s.score, rank, s.dense, s.sparse) for rank, s in enumerate(ranked, 1)]

        if self.budget is not None:
            return self.within_budget(query, hits)
        return Retrieved(text=hits(self.text_ranked(query)), images=hits(self.ranked("image", query, self.k_v)))

    def within_budget(self, query: Query, hits) -> Retrieved:
        """Text assembled along the tree within ``budget`` and images scored with that context
        (``ham.retrieve.budget``)."""
        if self.length is None:
            raise ValueError("retrieval.budget_unit=tokens: no token counter is bound (Retriever.count_with "
                             "with the generator's tokenizer); count the budget in chars")
        text_index, image_index = self.indexes["text"], self.indexes.get("image")
        tmap = self._sections.of(text_index, self.units)
        imap = self._sections.of(image_index, self.units) if image_index is not None else None
        text, images = BudgetedText(self.budget, self.length, self.assembly, self.reranker).retrieve(
            query, text_index, image_index, tmap, imap, self.units, self.fusion, self.pool, self.k_t, self.k_v)
        return Retrieved(text=[Hit(unit, score, rank) for rank, (unit, score) in enumerate(text, 1)],
                         images=hits(images))

    def text_ranked(self, query: Query) -> list[ScoredUnit]:
        """The text list under the table rule (module docstring)."""
        if self.k_tab is None:
            return self.ranked("text", query, self.k_t)
        return self.within_text_budgets(self.ranked("text", query, max(self.pool, self.k_t + self.k_tab)),
                                        lambda s: s.unit_id)

    def within_text_budgets(self, ranked: Sequence, unit_id=lambda item: item) -> list:
        """The table rule (module docstring) over a ranked text list: the first ``k_t`` items, or
        with ``k_tab`` the first ``k_t`` non-table and ``k_tab`` table units, in rank order."""
        if self.k_tab is None:
            return list(ranked[: self.k_t])
        budget = {"table": int(self.k_tab), "text": int(self.k_t)}
        kept = []
        for item in ranked:
            kind = "table" if self.units[unit_id(item)].kind == "table" else "text"
            if budget[kind] > 0:
                budget[kind] -= 1
                kept.append(item)
            if not any(budget.values()):
                break
        return kept
