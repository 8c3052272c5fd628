"""Diversity over the tree (``retrieval.diversity``): how the k_t text slots are shared out after
fusion, so they are not all spent on one section when a question spans a section and its parent.

``SectionCap`` (``per_section``, ``parents``):
    1. Walk the fused ranking; a unit is taken unless ``per_section`` units of its section are
       already taken, in which case it waits. Waiting units fill whatever slots remain, in
       ranking order.
    2. Parent passages: for each of the first ``parents_from`` taken units whose section has a
       parent section, the parent's best *own* passage (text directly under the parent heading,
       not in any of its subsections: options shared by a family of tools, a chapter's
       introduction) is scored against the query and put right after that unit, unless one of
       the parent's own passages is already taken. At most ``parents`` are added; the list is
       then cut to k, the added passages kept.
``MMR`` (``weight``): maximal marginal relevance over the pool, ``weight * relevance - (1 -
    weight) * max cosine to the units already taken``, relevance the fused score min-max scaled.

Diversity applies to the text budget; images keep their plain ranking (a screenshot sequence of
one dialog is often exactly what a question needs).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Callable

import numpy as np

from ham.index.hybrid import HybridIndex, Scored, _minmax
from ham.retrieve.sections import SectionMaps
from ham.settings import Doc, Range
from ham.units import EvidenceUnit


class SectionCap:
    name = "section_cap"

    def __init__(self, per_section: Annotated[int, Range(1), Doc("at most this many units of one section")] = 4,
                 parents: Annotated[int, Range(0), Doc("parent sections' best own passages brought in")] = 2,
                 parents_from: Annotated[int, Range(1), Doc("by the first N ranked child sections")] = 5) -> None:
        if per_section < 1 or parents < 0 or parents_from < 1:
            raise ValueError("section_cap: per_section and parents_from must be >= 1, parents >= 0")
        self.per_section, self.parents, self.parents_from = per_section, parents, parents_from
        self._maps = SectionMaps()

    def select(self, scored: list[Scored], k: int, index: HybridIndex, units: dict[str, EvidenceUnit],
               rescore: Callable[[list[int]], list[Scored]]) -> list[Scored]:
        """The k units to keep from the ranked pool ``scored``; ``rescore(rows)`` ranks the pool
        with those index rows added (how a parent passage outside the pool gets its score)."""
        smap = self._maps.of(index, units)
        section = [smap.section_of[index.row_of[s.unit_id]] for s in scored]
        taken, waiting, count = [], [], defaultdict(int)
        for s, sec in zip(scored, section):
            if count[sec] < self.per_section:
                taken.append(s)
                count[sec] += 1
            else:
                waiting.append(s)
            if len(taken) == k:
                break
        taken += waiting[: k - len(taken)]
        if self.parents:
            taken = self._with_parents(taken, index, smap, rescore, k)
        return taken[:k]

    def _with_parents(self, taken: list[Scored], index, smap, rescore, k) -> list[Scored]:
        have = {index.row_of[s.unit_id] for s in taken}
        wanted: dict[str, int] = {}     # parent section -> position after which its passage goes
        for pos, s in enumerate(taken[: self.parents_from]):
            parent = smap.parent_of.get(smap.section_of[index.row_of[s.unit_id]])
            own = smap.rows_of.get(parent, []) if parent else []
            if own and parent not in wanted and not have.intersection(own):
                wanted[parent] = pos
            if len(wanted) == self.parents:
                break
        if not wanted:
            return taken
        rows = [r for parent in wanted for r in smap.rows_of[parent]]
        rescored = {s.unit_id: s for s in rescore(rows)}
        added = []
        for parent, pos in wanted.items():
            candidates = [rescored[index.unit_ids[r]] for r in smap.rows_of[parent] if index.unit_ids[r] in rescored]
            if candidates:
                added.append((pos, max(candidates, key=lambda s: s.score)))
        out = list(taken)
        for pos, s in sorted(added, key=lambda a: -a[0]):
            out.insert(pos + 1, s)
        if len(out) > k:   # drop the lowest-ranked units that were not added
            extra = {id(s) for _, s in added}
            keep_plain = k - len(added)
            plain = [s for s in out if id(s) not in extra][:keep_plain]
            keep = {id(s) for s in plain} | extra
            out = [s for s in out if id(s) in keep]
        return out


class MMR:
    name = "mmr"

    def __init__(self, weight: Annotated[float, Range(0.0, 1.0), Doc("weight x relevance - (1 - weight) x max "
                                                                      "cosine to the units already taken")] = 0.7) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"mmr weight must lie in [0, 1], not {weight}")
        self.weight = weight

    def select(self, scored: list[Scored], k: int, index: HybridIndex, units: dict[str, EvidenceUnit],
               rescore: Callable[[list[int]], list[Scored]]) -> list[Scored]:
        if len(scored) <= 1 or k <= 1:
            return scored[:k]
        relevance = _minmax(np.array([s.score for s in scored], dtype=np.float64))
        rows = np.array([index.row_of[s.unit_id] for s in scored])
        vectors = np.asarray(index.vectors[np.sort(rows)], dtype=np.float32)[np.argsort(np.argsort(rows))]
        sims = vectors @ vectors.T
        chosen = [0]
        best_sim = sims[0].copy()
        while len(chosen) < min(k, len(scored)):
            gain = self.weight * relevance - (1 - self.weight) * best_sim
            gain[chosen] = -np.inf
            nxt = int(np.argmax(gain))
            chosen.append(nxt)
            best_sim = np.maximum(best_sim, sims[nxt])
        return [scored[i] for i in chosen]
