"""Retrieval along the evidence graph (``retrieval=graph``): hybrid seeds, then expansion along the
document tree, the units' local relations and shared entities, every reached unit scored against
the query, all within the same budgets k_t and k_v.

The graph (built once per corpus; entity links cached per corpus, ``ham.index.entities``). Each
edge kind is named, so ``graph.follow`` chooses what is followed and each choice is its own
variant in tables:

    tree      a unit's siblings (units under the same parent node: a section's paragraphs, a
              step's text and its image) and its parent section's own units (the units directly
              under the section that encloses the unit's section)
    captions  the units' local relations r_i (``ham.units.relation_of``), both ways: a figure and
              its caption unit, a caption and the figure or table it captions, a figure and the
              text it sits beside, a step's image and the step's text
    entities  units sharing an anchor entity (RAKE keyphrases, normalised; an anchor occurs in at
              least ``min_units`` and at most ``max_share`` of the units), weighted by the
              anchor's IDF scaled to (0, 1] by the corpus's largest

Per query:

1. Seeds: the hybrid ranking of each modality over the candidate pool (the configured
   ``ranker``/``diversity`` apply, as for ``hybrid``); its top ``seeds`` text units and top
   ``seeds`` images are expanded. Every unit of the ranking keeps its fused score ``f`` in [0, 1].
2. Expansion, ``hops`` times: from every unit of the frontier (the seeds, then the units the
   previous hop reached), each followed edge kind offers its neighbours; the ``fan_out`` best of
   each kind by their own fused score against the query are reached. A neighbour outside the pool
   is scored on the pool's scale: its exact dense and sparse scores, each clipped to the pool's
   range, fused as the pool was (so it never outscores the pool on a side it was not in the top of).
3. Rescoring: a reached unit ``u`` from source ``s`` over an edge of weight ``w_e`` (1 for tree
   and captions, the scaled IDF for entities) scores
   ``max(f_u, (1 - weight) * f_u + weight * w_e * score_s)``; a unit reached several ways keeps
   its best. So an expansion never lowers a unit, a neighbour of a strong seed that matches the
   query a little rises above weak plain matches, and a hop further carries ``weight`` once more.
4. Budgets: text units (tables under the ``k_tab`` rule of ``Retriever``) and images are ranked
   by that score and cut to k_t and k_v.

Every hit records how it was reached (``GraphHit.via``, ``to_row()["via"]``): ``how`` is
``seed`` (the hybrid ranking; ``seed_rank`` its rank there, ``expanded`` whether it was one of the
seeds expanded) or the edge kind, ``tree``, ``caption``, ``entity``, with ``from`` (the unit it was
reached from), ``hop``, ``relation`` (sibling, parent, or the local relation's name) and for
entities the ``entity``. ``follow: []`` is plain hybrid retrieval with the same ranking.
"""
from __future__ import annotations

import logging
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Annotated, List

from ham.index.entities import EntitySettings
from ham.index.hybrid import ScoredUnit
from ham.retrieve.diversity import MMR, SectionCap
from ham.retrieve.retriever import FUSION, K_T, K_TAB, K_V, POOL, Hit, Retrieved, Retriever
from ham.retrieve.structural import SectionRanker
from ham.settings import Checked, Doc, Range, as_settings, setting

log = logging.getLogger("ham.retrieve.graph")
FOLLOW = ("tree", "captions", "entities")
HOW = {"tree": "tree", "captions": "caption", "entities": "entity"}


@dataclass
class GraphSettings(Checked):
    """What is followed from the hybrid seeds (module docstring)."""

    follow: List[str] = setting(default_factory=lambda: list(FOLLOW),
                                doc=Doc("edge kinds followed: tree, captions, entities ([] = plain hybrid)"))
    seeds: int = setting(5, Range(1), Doc("top units of each modality's ranking expanded"))
    hops: int = setting(1, Range(1), Doc("expansion rounds"))
    fan_out: int = setting(3, Range(1), Doc("neighbours reached per source unit and edge kind"))
    weight: float = setting(0.5, Range(0.0, 1.0), Doc("share of the source's score a reached unit can take"))
    entities: EntitySettings = setting(default_factory=EntitySettings, doc=Doc("entity extraction and anchors"))


@dataclass
class GraphHit(Hit):
    via: dict = field(default_factory=dict)

    def to_row(self) -> dict:
        return {**super().to_row(), "via": dict(self.via)}


@dataclass
class Edge:
    target: str
    kind: str            # tree | captions | entities
    relation: str        # sibling, parent, figure_caption, caption_of, ..., or "entity"
    weight: float = 1.0
    entity: str | None = None


class EvidenceGraph:
    """The corpus's edges by kind (module docstring): unit id -> edges."""

    def __init__(self, units: dict, entities=None) -> None:
        self.edges: dict[str, dict[str, list[Edge]]] = {k: defaultdict(list) for k in FOLLOW}
        self._tree(units)
        self._relations(units)
        self.entities = entities
        if entities is not None:
            self._entities(entities)

    def _tree(self, units: dict) -> None:
        by_parent: dict[str, list[str]] = defaultdict(list)
        for uid, u in units.items():
            if u.path:
                by_parent[u.path[-1]["id"]].append(uid)
        for uid, u in units.items():
            if not u.path:
                continue
            for other in by_parent[u.path[-1]["id"]]:
                if other != uid:
                    self.edges["tree"][uid].append(Edge(other, "tree", "sibling"))
            if len(u.path) >= 2:
                for other in by_parent.get(u.path[-2]["id"], []):
                    self.edges["tree"][uid].append(Edge(other, "tree", "parent"))

    def _relations(self, units: dict) -> None:
        seen = set()

        def link(a: str, b: str, relation: str) -> None:
            for x, y in ((a, b), (b, a)):
                if x in units and y in units and x != y and (x, y) not in seen:
                    seen.add((x, y))
                    self.edges["captions"][x].append(Edge(y, "captions", relation))

        for uid, u in units.items():
            rel = u.relation or {}
            kind = rel.get("type")
            for key in ("target", "caption_unit"):
                if rel.get(key):
                    link(uid, rel[key], "caption_of" if kind == "caption_of" else str(kind))

    def _entities(self, index) -> None:
        top = max((index.idf(e) for e in index.units_of), default=1.0) or 1.0
        for uid in index.of_unit:
            for other, (idf, entity) in index.neighbours(uid).items():
                self.edges["entities"][uid].append(Edge(other, "entities", "entity", idf / top, entity))

    def of(self, unit_id: str, kind: str) -> list[Edge]:
        return self.edges[kind].get(unit_id, [])

    def summary(self) -> dict:
        return {kind: sum(len(v) for v in edges.values()) for kind, edges in self.edges.items()}


class GraphRetriever(Retriever):
    """Hybrid seeds expanded along the evidence graph (module docstring), within k_t and k_v; the
    budgeted tree assembly is plain hybrid retrieval's (``retrieval=budget``), not this one's."""

    def __init__(self, corpus, indexes, encoder, k_t: K_T = 15, k_v: K_V = 10, pool: POOL = 100,
                 fusion: FUSION = None,
                 ranker: Annotated[SectionRanker | None, Doc("seeds from the structural ranking")] = None,
                 diversity: Annotated[SectionCap | MMR | None, Doc("seeds from a diversified ranking")] = None,
                 k_tab: K_TAB = None, reranker=None,
                 graph: Annotated[GraphSettings | None, Doc("what is followed from the seeds (None: "
                                                            "GraphSettings' defaults)")] = None,
                 cache_root=None) -> None:
        super().__init__(corpus, indexes, encoder, k_t=k_t, k_v=k_v, pool=pool, fusion=fusion, ranker=ranker,
                         diversity=diversity, k_tab=k_tab, reranker=reranker)
        g = as_settings(GraphSettings, graph) or GraphSettings()
        self.follow = tuple(g.follow)
        unknown = [f for f in self.follow if f not in FOLLOW]
        if unknown:
            raise ValueError(f"retrieval.graph.follow: unknown edge kind(s) {unknown}; known: {list(FOLLOW)}")
        self.hops, self.fan_out, self.seeds, self.weight = g.hops, g.fan_out, g.seeds, g.weight
        self.entities = g.entities
        self.cache_root = cache_root
        self.corpus = corpus
        self.descriptions = None
        self._graph: EvidenceGraph | None = None
        self.stats = {"queries": 0, "reached": 0, "scored_outside_pool": 0}

    def bind(self, descriptions=None, cache=None) -> None:
        """The offline stage's image descriptions (figures' entities are read from them) and the
        cache the entity links are kept in; ``build_pipeline`` calls this."""
        self.descriptions = descriptions
        if cache is not None:
            self.cache_root = str(cache.root)
        self._graph = None

    @property
    def graph(self) -> EvidenceGraph:
        if self._graph is None:
            entities = None
            if "entities" in self.follow:
                from ham.cache import FolderCache
                from ham.index.entities import corpus_entities

                cache = FolderCache(self.cache_root) if self.cache_root else None
                units = list(self.units.values())
                found = corpus_entities(units, self.entities.extractor(), cache, self.descriptions,
                                        getattr(self.corpus, "content_hash", ""))
                entities = self.entities.index(found, [u.unit_id for u in units])
            self._graph = EvidenceGraph(self.units, entities)
            log.info("evidence graph: %s edges", self._graph.summary())
        return self._graph

    def modality_of(self, unit_id: str) -> str:
        return self.units[unit_id].modality

    def retrieve(self, question: str) -> Retrieved:
        query = self.query(question)
        self.stats["queries"] += 1
        own: dict[str, dict[str, ScoredUnit]] = {}
        best: dict[str, tuple[float, dict]] = {}
        for modality in ("text", "image"):
            ranked = self.ranked(modality, query, self.pool)
            own[modality] = {s.unit_id: s for s in ranked}
            for rank, s in enumerate(ranked, 1):
                best[s.unit_id] = (s.score, {"how": "seed", "seed_rank": rank, "expanded": rank <= self.seeds})
        frontier = {s.unit_id: best[s.unit_id][0] for m in ("text", "image")
                    for s in list(own[m].values())[: self.seeds]}
        graph = self.graph if self.follow else None
        for hop in range(1, self.hops + 1):
            if graph is None or not frontier:
                break
            offers = [(src, e) for src in frontier for kind in self.follow for e in graph.of(src, kind)
                      if e.target in self.units]
            self._score_missing(query, {e.target for _, e in offers}, own)
            reached: dict[str, float] = {}
            by_source_kind: dict[tuple[str, str], list[Edge]] = defaultdict(list)
            for src, e in offers:
                by_source_kind[(src, e.kind)].append(e)
            for (src, kind), edges in by_source_kind.items():
                edges = sorted(edges, key=lambda e: (-self._own(e.target, own), e.target))[: self.fan_out]
                for e in edges:
                    f = self._own(e.target, own)
                    score = max(f, (1 - self.weight) * f + self.weight * e.weight * frontier[src])
                    if e.target not in best or score > best[e.target][0] + 1e-12:
                        via = {"how": HOW[kind], "from": src, "hop": hop, "relation": e.relation}
                        if e.entity:
                            via["entity"] = e.entity
                        best[e.target] = (score, via)
                        reached[e.target] = score
            self.stats["reached"] += len(reached)
            frontier = reached
        return self._budgeted(best, own)

    def _own(self, unit_id: str, own: dict) -> float:
        s = own[self.modality_of(unit_id)].get(unit_id)
        return s.score if s is not None else 0.0

    def _score_missing(self, query, targets: set[str], own: dict) -> None:
        """Fused scores for reached units outside the pool, on the pool's scale: their exact dense
        and sparse scores, clipped to the pool's range on each side, fused with the pool (a unit
        below the pool's lowest score on a side scores that lowest), so seeds and reached units
        compare on one scale and the pool's scores stay as they are. After a reranker the text
        pool is on the reranked scale (``Retriever.reranked``), where a unit it did not rescore is
        at 0, and so is every reached text unit outside the pool."""
        import numpy as np

        for modality in ("text", "image"):
            index = self.indexes[modality]
            missing = [u for u in sorted(targets) if self.modality_of(u) == modality
                       and u not in own[modality] and u in index.row_of]
            if not missing or not own[modality]:
                continue
            pool = list(own[modality].values())
            rows = np.array([index.row_of[u] for u in missing])
            dense = np.asarray(index.vectors[np.sort(rows)], dtype=np.float32)[np.argsort(np.argsort(rows))] \
                @ query.row[0]
            sparse = index.sparse_scores(query)[rows]
            have = np.array([[s.dense for s in pool], [s.sparse for s in pool]], dtype=np.float32)
            lo, hi = have.min(axis=1, keepdims=True), have.max(axis=1, keepdims=True)
            extra = np.clip(np.vstack([dense, sparse]).astype(np.float32), lo, hi)
            if modality == "text" and self.reranker is not None:   # the reranked pool's scale: unseen at 0
                fused = np.zeros(len(missing), dtype=np.float32)
            else:
                fused = self.fusion(np.hstack([have, extra]))[len(pool):]
            for uid, f, d, sp in zip(missing, fused.tolist(), dense.tolist(), sparse.tolist()):
                own[modality][uid] = ScoredUnit(uid, float(f), float(d), float(sp))
            self.stats["scored_outside_pool"] = self.stats.get("scored_outside_pool", 0) + len(missing)

    def _budgeted(self, best: dict[str, tuple[float, dict]], own: dict) -> Retrieved:
        def ordered(modality: str) -> list[str]:
            ids = [u for u in best if self.modality_of(u) == modality]
            return sorted(ids, key=lambda u: (-best[u][0], best[u][1].get("seed_rank", math.inf), u))

        def hit(uid: str, rank: int) -> GraphHit:
            s = own[self.modality_of(uid)].get(uid)
            return GraphHit(self.units[uid], best[uid][0], rank, s.dense if s else 0.0, s.sparse if s else 0.0,
                            via=best[uid][1])

        text = self.within_text_budgets(ordered("text"))
        images = ordered("image")[: self.k_v]
        return Retrieved(text=[hit(u, r) for r, u in enumerate(text, 1)],
                         images=[hit(u, r) for r, u in enumerate(images, 1)])
