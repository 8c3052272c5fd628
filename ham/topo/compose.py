"""Composed candidates: bridge chains and multi-source synthesis (TopoGraphRAG-Bench 3.1), and the
single-hop candidates they sit beside. Every candidate keeps its ordered evidence units, their
modalities, the checks run on it and, when one failed, the check that rejected it.

Bridge chains. Two valid atomic QAs (``a1`` on unit u1, ``a2`` on unit u2, u1 != u2) are paired
through an anchor entity ``e`` both units contain. The pair's strength counts how the QAs use the
entity: +1 when a1's answer names ``e`` (the first hop finds the bridge), +1 when a2's question
names it (the second hop asks about the bridge); pairs below ``min_strength`` are not composed.
Entities are taken rarest first (highest IDF), at most ``per_entity`` pairs each and ``max`` in
all, preferring stronger, then cross-modal, then cross-page pairs; a unit pair is composed once.
The model writes one question through both hops (prompt ``bridge_compose_v1``), told not to name
``e``; the final answer is a2's answer, the hops are (a1, a2) in that order and the bridge entity
is ``e`` as written in the corpus. Whether the question names ``e`` anyway is checked
(``ham.topo.validate``, check ``bridge_unnamed``).

Synthesis. An anchor entity in at least ``min_units`` units of the corpus (5, the paper's rule)
whose units include at least ``min_points`` selected units gives one candidate: up to
``max_points`` (6) of those units, taken in corpus order preferring a new source page, then a new
modality, then the rest. The model states each unit's fact (numbered ``<point_i>``, one per unit),
a question needing them all, the conclusion and the pattern (prompt ``synthesis_v1``). Entities
are taken from the most units down, at most ``max`` candidates.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ham.cache import key_of
from ham.topo.atomic import Atomic
from ham.topo.calls import ModelCalls
from ham.index.entities import EntityIndex, mentions
from ham.topo.prompt import TaskPrompt
from ham.topo.views import context, modality
from ham.units import EvidenceUnit


@dataclass
class Candidate:
    id: str
    topology: str                  # single_hop | bridge_chain | synthesis
    question: str
    answer: str
    units: list[str]               # evidence units, in hop / point order
    modalities: list[str]
    hops: list[Atomic] = field(default_factory=list)
    bridge: str | None = None      # the bridge entity, normalised
    bridge_surface: str | None = None
    points: list[str] = field(default_factory=list)    # synthesis: the fact of each unit
    pattern: str | None = None
    entity: str | None = None
    meta: dict = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    rejected: dict | None = None
    required: list[int] | None = None                  # synthesis: points the leave-one-out check needs

    @property
    def cross_modal(self) -> bool:
        return any(m != "text" for m in self.modalities)

    def reject(self, check: str, reason: str) -> None:
        if self.rejected is None:
            self.rejected = {"check": check, "reason": reason}

    def to_dict(self) -> dict:
        return asdict(self)


def candidate_id(prefix: str, *parts) -> str:
    return f"{prefix}-{key_of(list(parts))[:10]}"


def single_hops(atomics: list[Atomic]) -> list[Candidate]:
    return [Candidate(candidate_id("topo-s", a.unit_id, a.question), "single_hop", a.question, a.answer,
                      [a.unit_id], [a.modality], hops=[a]) for a in atomics]


def _page(unit: EvidenceUnit) -> tuple:
    return (unit.source, unit.page)


def bridge_pairs(atomics: list[Atomic], index: EntityIndex, units: dict[str, EvidenceUnit], max_pairs: int = 50,
                 per_entity: int = 3, min_strength: int = 1) -> list[tuple[str, Atomic, Atomic, int]]:
    """(entity, hop 1, hop 2, strength) of the pairs to compose (module docstring)."""
    by_unit = {a.unit_id: a for a in atomics}
    ranked = []
    for e in sorted(index.units_of, key=lambda e: (-index.idf(e), e)):
        with_qa = [u for u in index.units_of[e] if u in by_unit]
        for u1 in with_qa:
            for u2 in with_qa:
                if u1 == u2:
                    continue
                a1, a2 = by_unit[u1], by_unit[u2]
                strength = int(mentions(a1.answer, e)) + int(mentions(a2.question, e))
                if strength < min_strength:
                    continue
                cross_modal = a1.modality != "text" or a2.modality != "text"
                cross_page = _page(units[u1]) != _page(units[u2])
                ranked.append((-strength, -cross_modal, -cross_page, -index.idf(e), e, u1, u2))
    ranked.sort()
    out, used, count = [], set(), {}
    for *_, e, u1, u2 in ranked:
        pair = frozenset((u1, u2))
        if pair in used or count.get(e, 0) >= per_entity:
            continue
        used.add(pair)
        count[e] = count.get(e, 0) + 1
        a1, a2 = by_unit[u1], by_unit[u2]
        out.append((e, a1, a2, int(mentions(a1.answer, e)) + int(mentions(a2.question, e))))
        if len(out) >= max_pairs:
            break
    return out


def compose_bridges(pairs, index: EntityIndex, calls: ModelCalls, prompt: TaskPrompt
                    ) -> tuple[list[Candidate], list[dict]]:
    items = [{"hop1_question": a1.question, "hop1_answer": a1.answer, "hop2_question": a2.question,
              "hop2_answer": a2.answer, "bridge": index.surface.get(e, e)} for e, a1, a2, _ in pairs]
    out, failures = [], []
    for (e, a1, a2, strength), reply in zip(pairs, calls.ask(prompt, items)):
        if not reply.ok:
            failures.append({"units": [a1.unit_id, a2.unit_id], "entity": e, "error": reply.error})
            continue
        q = reply.fields["question"]
        out.append(Candidate(candidate_id("topo-b", a1.unit_id, a2.unit_id, e, q), "bridge_chain", q, a2.answer,
                             [a1.unit_id, a2.unit_id], [a1.modality, a2.modality], hops=[a1, a2], bridge=e,
                             bridge_surface=index.surface.get(e, e), entity=e, meta={"strength": strength}))
    return out, failures


def synthesis_groups(index: EntityIndex, selected: list[str], units: dict[str, EvidenceUnit], min_units: int = 5,
                     min_points: int = 3, max_points: int = 6, max_groups: int = 20) -> list[tuple[str, list[str]]]:
    """(entity, its chosen units in corpus order) per synthesis candidate (module docstring)."""
    chosen_set = set(selected)
    order = {u: i for i, u in enumerate(units)}
    groups = []
    for e in sorted(index.units_of, key=lambda e: (-len(index.units_of[e]), e)):
        if len(index.units_of[e]) < min_units:
            break
        pool = sorted((u for u in index.units_of[e] if u in chosen_set), key=order.get)
        if len(pool) < min_points:
            continue
        picked: list[str] = []
        pages, kinds = set(), set()
        for want_new_page, want_new_kind in ((True, True), (True, False), (False, True), (False, False)):
            for u in pool:
                if len(picked) >= max_points or u in picked:
                    continue
                new_page = _page(units[u]) not in pages
                new_kind = modality(units[u]) not in kinds
                if (not want_new_page or new_page) and (not want_new_kind or new_kind):
                    picked.append(u)
                    pages.add(_page(units[u]))
                    kinds.add(modality(units[u]))
        groups.append((e, sorted(picked, key=order.get)))
        if len(groups) >= max_groups:
            break
    return groups


def no_synthesis_reason(index: EntityIndex, selected: list[str], min_units: int, min_points: int) -> str:
    """Which constraint left no synthesis group (for the report: on a small corpus the anchors'
    share cap alone rules synthesis out)."""
    cap = max(index.min_units, math.floor(index.max_share * index.n_units))
    if cap < min_units:
        return (f"no entity can anchor a synthesis group: an anchor occurs in at most max(min_units, "
                f"floor(topo.entities.max_share={index.max_share:g} x {index.n_units} units)) = {cap} units, "
                f"fewer than topo.synthesis.min_units={min_units}; a corpus this small needs a larger max_share "
                f"(>= {min_units / max(index.n_units, 1):.2f})")
    wide = [e for e, us in index.units_of.items() if len(us) >= min_units]
    if not wide:
        return f"no anchor occurs in topo.synthesis.min_units={min_units} units or more (the most: " \
               f"{max((len(us) for us in index.units_of.values()), default=0)})"
    chosen = set(selected)
    return (f"none of the {len(wide)} anchor(s) in >= {min_units} units has topo.synthesis.min_points={min_points} "
            f"selected units (the most: {max(sum(u in chosen for u in index.units_of[e]) for e in wide)})")


def synthesize(groups, index: EntityIndex, units: dict[str, EvidenceUnit], calls: ModelCalls, prompt: TaskPrompt,
               descriptions=None) -> tuple[list[Candidate], list[dict]]:
    items = [{"n": len(us), "entity": index.surface.get(e, e),
              "evidence": context([units[u] for u in us], descriptions)} for e, us in groups]
    out, failures = [], []
    for (e, us), item, reply in zip(groups, items, calls.ask(prompt, items, n_of=lambda item: item["n"])):
        if not reply.ok:
            failures.append({"units": us, "entity": e, "error": reply.error})
            continue
        f = reply.fields
        out.append(Candidate(candidate_id("topo-y", e, *us, f["question"]), "synthesis", f["question"], f["conclusion"],
                             list(us), [modality(units[u]) for u in us], points=list(f["point"]),
                             pattern=f["pattern"], entity=e, meta={"entity_units": len(index.units_of[e])}))
    return out, failures
