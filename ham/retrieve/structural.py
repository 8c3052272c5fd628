"""Structural retrieval: score sections from their units, then return the best units of the best
sections together (beyond the paper, which uses the hierarchy only inside each unit's
representation). Enabled by ``retrieval=structural``; ``Retriever`` calls ``rank`` per modality.

1. Plain hybrid search gives a candidate pool; each candidate's fused score is min-max scaled
   over the pool to ``f`` in [0, 1].
2. Each unit belongs to its nearest section node (procedural steps roll up into their section).
   A section's score is a decaying sum of its best candidates' scores,
   ``S = w_1 f_(1) + w_2 f_(2) + ...`` (default weights 1, 0.5), so a section where several
   units match outranks one stray match elsewhere.
3. Every unit of the ``expand`` best sections joins the pool and the pool is scored again, so a
   step that shares no words with the question can still come with its procedure.
4. Each unit's ranking score becomes ``(1 - section_weight) f + section_weight S / max S``.
   Walking units in that order, the first unit of a section not yet shown brings its section's
   group: the section's units (at most ``per_section``) whose own ``f`` is at least
   ``min_ratio`` times the best one's, in score order (``order=source``: in document order, so
   the steps of a procedure read in sequence). Right after the group come its parent and child
   sections whose score is at least ``family_ratio`` times its own, so a parent section and its
   child arrive as one group. Units not taken into a group follow in ranking order.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Sequence

import numpy as np

from ham.index.hybrid import HybridIndex, Query, ScoredUnit, _minmax
from ham.retrieve.sections import SectionMap, SectionMaps
from ham.settings import Doc, OneOf, Range
from ham.units import EvidenceUnit




class SectionRanker:
    def __init__(self, per_section: Annotated[int, Range(1), Doc("at most this many units per section "
                                                                 "group")] = 15,
                 weights: Annotated[Sequence[float], Doc("section score: decaying sum of its best candidates' "
                                                         "scaled scores")] = (1.0, 0.5),
                 expand: Annotated[int, Range(0), Doc("every unit of the best `expand` sections joins the "
                                                      "candidate pool")] = 2,
                 section_weight: Annotated[float, Range(0.0, 1.0), Doc("unit ranking score = (1 - w) own + w "
                                                                       "section score (scaled)")] = 0.3,
                 min_ratio: Annotated[float, Range(0.0, 1.0), Doc("a group keeps units scoring >= this x its "
                                                                  "best unit")] = 0.7,
                 family_ratio: Annotated[float, Range(0.0), Doc("parent/child sections scoring >= this x the "
                                                                "section's score follow it")] = 0.5,
                 order: Annotated[str, OneOf("score", "source"), Doc("within a group: by score, or in document "
                                                                     "order (steps in sequence)")] = "score") -> None:
        if order not in ("source", "score"):
            raise ValueError(f"structural retrieval: order must be 'source' or 'score', not {order!r}")
        self.per_section, self.weights, self.expand = per_section, list(weights), expand
        self.section_weight, self.min_ratio, self.family_ratio, self.order = section_weight, min_ratio, family_ratio, order
        self._maps = SectionMaps()

    def _map(self, index: HybridIndex, units: dict[str, EvidenceUnit]) -> SectionMap:
        return self._maps.of(index, units)

    def section_scores(self, own: np.ndarray, sections: list[str]) -> dict[str, float]:
        by_section: dict[str, list[float]] = defaultdict(list)
        for f, section in zip(own, sections):
            by_section[section].append(float(f))
        return {sec: sum(w * f for w, f in zip(self.weights, sorted(fs, reverse=True)))
                for sec, fs in by_section.items()}

    def rank(self, index: HybridIndex, query: Query, k: int, units: dict[str, EvidenceUnit],
             fusion=None, pool: int = 100, rerank=None) -> list[ScoredUnit]:
        """``rerank`` (the retriever's reranker, None without one) rescores the pool, expanded,
        before it is grouped, so a reranked run groups by the reranker's judgement."""
        if len(index) == 0 or k <= 0:
            return []
        rerank = rerank or (lambda scored: scored)
        smap = self._map(index, units)
        scored = index.search(query, None, fusion, pool)
        if self.expand:
            sections = [smap.section_of[index.row_of[s.unit_id]] for s in scored]
            first = self.section_scores(_minmax(np.array([s.score for s in scored])), sections)
            best = sorted(first, key=lambda sec: -first[sec])[: self.expand]
            extra = [row for sec in best for row in smap.rows_of[sec]]
            scored = index.search(query, None, fusion, pool, extra=extra)
        return self.group(rerank(scored), smap, index, units)[:k]

    def group(self, scored: list[ScoredUnit], smap: SectionMap, index: HybridIndex,
              units: dict[str, EvidenceUnit]) -> list[ScoredUnit]:
        """Reorder one query's scored candidates into section groups (steps 2 and 4 above)."""
        own = _minmax(np.array([s.score for s in scored], dtype=np.float64))
        sections = [smap.section_of[index.row_of[s.unit_id]] for s in scored]
        score_of = self.section_scores(own, sections)
        top = max(score_of.values()) or 1.0
        ranking = [((1 - self.section_weight) * f + self.section_weight * score_of[sec] / top, i)
                   for i, (f, sec) in enumerate(zip(own, sections))]
        ranking.sort(key=lambda t: (-t[0], t[1]))  # ties: the better plain rank first
        members: dict[str, list[int]] = defaultdict(list)
        for _, i in ranking:
            members[sections[i]].append(i)
        out: list[int] = []
        emitted: set[str] = set()

        def emit(section: str) -> None:
            emitted.add(section)
            best = members[section][: self.per_section]
            group = [best[0]] + [i for i in best[1:] if own[i] >= self.min_ratio * own[best[0]]]
            if self.order == "source":
                group.sort(key=lambda i: units[scored[i].unit_id].order)
            out.extend(group)

        for _, i in ranking:
            section = sections[i]
            if section in emitted:
                continue
            emit(section)
            for relative in [smap.parent_of.get(section)] + list(smap.children_of.get(section, [])):
                if relative in members and relative not in emitted \
                        and score_of[relative] >= self.family_ratio * score_of[section]:
                    emit(relative)
        taken = set(out)
        out += [i for _, i in ranking if i not in taken]
        new_score = {i: s for s, i in ranking}
        return [ScoredUnit(scored[i].unit_id, float(new_score[i]), scored[i].dense, scored[i].sparse) for i in out]
