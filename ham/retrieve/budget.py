"""Budgeted retrieval (``retrieval.budget``): the text context is filled up to a length budget, not
a unit count, and assembled along the tree (beyond the paper, whose k_t counts units).

The budget is counted in characters of retrieved text (``budget_unit: chars``) or in tokens of the
generator's own tokenizer (``budget_unit: tokens``; a generator without one is refused). Small units
are scored (any ``units`` option; ``blocks`` or ``merged`` are meant) and ``TreeAssembly`` builds
passages from them, walking the fused ranking of the candidate pool (scores min-max scaled to ``f``):

1. Section passages. The first candidate of a section (its nearest section node; procedural steps
   roll up into it) opens that section's passage. Its *relevant* units are the section's candidates
   with ``f >= relevant``; when they hold at least ``merge_ratio`` of the section's own text, the
   passage is the whole section (its siblings merged), else those units. Members read in document
   order; the passage carries the section's heading path once. A later candidate of a section that
   already has a passage joins that passage.
2. Parent passages. For the first ``parents_from`` section passages, the enclosing sections with
   text of their own (an introduction, options shared by a family of tools, how to open the dialog,
   prerequisites), up to ``parent_depth`` levels up, nearest first, are included right after the
   child, each once and together at most ``parent_chars`` long: an ancestor's whole own text when
   it fits, else its best-scoring own units that fit. Such a passage is wanted because of where the
   child sits, not because it looks like the question. With ``ref_chars`` > 0 the sections the
   passage's units link to (``extra["refs"]``, ``ham.ingest.links``: "the options all selection
   tools share are described in Selection Tools") follow, in link order, together at most
   ``ref_chars`` long (role ``linked``): a link names a whole page or section, so all its text
   units count (its own and its subsections', none already in the context), the whole of it when
   it fits, else its best-scoring units for the query that fit. Off by default (``ref_chars`` = 0):
   it gains where questions need links and costs at short budgets elsewhere (docs/retrieval_budget.md).
3. The budget. A passage that does not fit is cut down (whole section -> its relevant units -> its
   best units that fit); when none of those fits, its best unit is cut to the room left, between
   words and marked with " …" (nothing of it when not one word fits; the row records the cut, and
   only the units shown whole count as retrieved), and the context is full (``last: cut``), or it is
   skipped and the walk goes on with smaller units (``last: skip``). At most ``k_t`` passages;
   passages are separated by a newline, counted.

With a reranker (``reranker=...``), it rescores the best ``top_n`` fused candidates before the walk,
and the walk reads them in the reranker's order: their ``f`` is the min-max scaled reranker score
(so ``relevant`` and the parents' and images' context weights read the reranker's judgement) and
the candidates beyond ``top_n`` follow at ``f = 0``, in their fused order.

Images follow the same rule: an image whose section is a passage's section, or that section's
parent, is added to the image candidates and scored; its ranking score is ``(1 - image_weight) f +
image_weight c``, with ``c`` the scaled score of the passage that brings it (half of it for a
parent's or a linked section's), so it wins a slot only when it also matches the query.

Tables are never merged with running text (as in ``ham.granularity``): a table is a passage of its
own and keeps its kind, label and image. A passage of several units is a new ``EvidenceUnit`` whose id is its first member's plus
``+<n-1>``; ``extra["members"]`` names the units it holds (metrics and the prompt's image
relations see every member), ``extra["member_pages"]`` each member's page and box (the passage's own
are its first member's; page and layout metrics read every member's), ``extra["role"]`` says
``section``, ``units``, ``parent`` or ``linked``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Annotated, Callable

import numpy as np

from ham.index.hybrid import HybridIndex, ScoredUnit, _minmax
from ham.retrieve.sections import SectionMap
from ham.settings import Doc, OneOf, Range
from ham.units import EvidenceUnit

TABLE_KEY = "|table:"
CUT_MARK = " …"   # ends a passage cut to the budget, so neither the model nor a reader takes it for whole


class TextLength:
    """How retrieved text is measured against the budget: characters, or the generator's tokens."""

    def __init__(self, unit: str = "chars", count_tokens: Callable[[str], int] | None = None) -> None:
        if unit not in ("chars", "tokens"):
            raise ValueError(f"retrieval.budget_unit must be 'chars' or 'tokens', not {unit!r}")
        if unit == "tokens" and count_tokens is None:
            raise ValueError("retrieval.budget_unit=tokens needs the generator's tokenizer, and this generator "
                             "has none (only local models do): count the budget in chars")
        self.unit, self._count = unit, count_tokens

    def __call__(self, text: str) -> int:
        return len(text) if self.unit == "chars" else int(self._count(text))

    def cut(self, text: str, budget: int) -> str:
        """The longest prefix of ``text`` that fits in ``budget`` and ends between words ("" when
        not one whole word fits): a cut passage never ends inside a word ("The DEFERRABLE tra")."""
        if self(text) <= budget:
            return text
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if self(text[:mid]) <= budget else (lo, mid - 1)
        if lo < len(text) and not text[lo].isspace():
            lo = max((i for i in range(lo) if text[i].isspace()), default=0)
        return text[:lo].rstrip()


@dataclass
class Passage:
    section: str
    role: str                          # section | units | parent | linked
    score: float                       # the best scaled score among its members (or what brought it)
    members: list[str] = field(default_factory=list)


class TreeAssembly:
    """The passages and images of one query under a budget (module docstring)."""

    def __init__(self, relevant: Annotated[float, Range(0.0, 1.0), Doc("a unit counts as relevant at this min-max "
                                                                        "scaled score")] = 0.5,
                 merge_ratio: Annotated[float, Range(0.0, 1.0), Doc("relevant units holding this share of their "
                                                                    "section's text bring the whole section (0: always)")] = 0.5,
                 parent_chars: Annotated[int, Range(0), Doc("a retrieved child brings its enclosing sections' "
                                                            "own text, together up to this length")] = 600,
                 parents_from: Annotated[int, Range(0), Doc("... for the first N section passages")] = 3,
                 parent_depth: Annotated[int, Range(0), Doc("... from the parent up to this many levels")] = 2,
                 ref_chars: Annotated[int, Range(0), Doc("... and the sections its text links to (a shared "
                                                         "options page), their best text together up to this "
                                                         "length (0, the default: links are not followed; "
                                                         "600 measured best on devlinks)")] = 0,
                 image_weight: Annotated[float, Range(0.0, 1.0), Doc("an image in or above a passage's section: "
                                                                     "score = (1 - w) own + w context (0.3 chosen "
                                                                     "on devbench)")] = 0.3,
                 last: Annotated[str, OneOf("cut", "skip"), Doc("a passage that no longer fits: cut to the room "
                                                                "left, or skip to smaller ones")] = "cut") -> None:
        if last not in ("cut", "skip"):
            raise ValueError(f"retrieval.assembly.last must be 'cut' or 'skip', not {last!r}")
        self.last = last
        if not all(0.0 <= x <= 1.0 for x in (relevant, merge_ratio, image_weight)):
            raise ValueError("retrieval.assembly: relevant, merge_ratio and image_weight must lie in [0, 1]")
        if parent_chars < 0 or parents_from < 0 or parent_depth < 0 or ref_chars < 0:
            raise ValueError("retrieval.assembly: parent_chars, parents_from, parent_depth and ref_chars must be >= 0")
        self.relevant, self.merge_ratio = relevant, merge_ratio
        self.parent_chars, self.parents_from, self.parent_depth = parent_chars, parents_from, parent_depth
        self.ref_chars = ref_chars
        self.image_weight = image_weight

    def passages(self, scored: list[ScoredUnit], own_units: Callable[[str], list[str]], section_of: Callable[[str], str],
                 ancestors_of: Callable[[str], list[str]], size: Callable[[list[str]], int], budget: int, k: int,
                 rescore: Callable[[list[str]], list[str]], gap: int = 1,
                 refs_of: Callable[[list[str]], list[str]] = lambda ids: [],
                 linked_units: Callable[[str], list[str]] = lambda key: []) -> list[Passage]:
        """Passages from the ranked candidates ``scored`` (steps 1-3 of the module docstring).
        ``own_units(section)``: the section's own unit ids in document order; ``size(ids)``: their
        length joined; ``rescore(ids)``: those units, best first for this query;
        ``ancestors_of(section)``: the enclosing sections, nearest first; ``gap``: the length of the
        separator between passages; ``refs_of(ids)``: the sections those units link to;
        ``linked_units(section)``: every text unit under a linked section, in document order."""
        if not scored or budget <= 0 or k <= 0:
            return []
        f = dict(zip((s.unit_id for s in scored), _minmax(np.array([s.score for s in scored])).tolist()))
        candidates: dict[str, list[str]] = {}
        for s in scored:
            candidates.setdefault(section_of(s.unit_id), []).append(s.unit_id)
        out: list[Passage] = []
        by_section: dict[str, Passage] = {}
        placed: set[str] = set()   # units in the context (a linked page's units sit outside its section key)
        parents_left, used = self.parents_from, 0
        for s in scored:
            if used >= budget:
                break
            if s.unit_id in placed:
                continue
            sec = section_of(s.unit_id)
            if sec in by_section:
                members = by_section[sec].members
                grow = size(members + [s.unit_id]) - size(members)
                if grow <= budget - used:
                    members.append(s.unit_id)
                    placed.add(s.unit_id)
                    used += grow
                continue
            if len(out) >= k:
                continue
            room = budget - used - (gap if out else 0)
            chosen = next(((role, ids) for role, ids in self.options(sec, s.unit_id, f, candidates, own_units, size)
                           if size(ids) <= room), None)
            if chosen is None:
                if out and (self.last == "skip" or room <= 0):
                    continue
                chosen = ("units", [s.unit_id])   # cut to the room left by the caller: the context is full
            passage = Passage(sec, chosen[0], f[s.unit_id], list(chosen[1]))
            out.append(passage)
            by_section[sec] = passage
            placed.update(passage.members)
            used += (gap if len(out) > 1 else 0) + min(size(passage.members), room)
            if parents_left > 0 and len(out) < k:
                parents_left -= 1
                context = [("parent", ancestors_of(sec)[: self.parent_depth], self.parent_chars, own_units)]
                if self.ref_chars:
                    context.append(("linked", refs_of(passage.members), self.ref_chars, linked_units))
                for role, sections, chars, units_of in context:
                    cap = min(chars, budget - used)
                    for other in sections:
                        if other in by_section or len(out) >= k:
                            continue
                        pool = [uid for uid in units_of(other) if uid not in placed]
                        ids = self.parent_units(pool, rescore, size, min(cap, budget - used - gap))
                        if ids:
                            p = Passage(other, role, f[s.unit_id], ids)
                            out.append(p)
                            by_section[other] = p
                            placed.update(ids)
                            used += gap + size(ids)
                            cap -= size(ids)
        return out

    def options(self, sec, first, f, candidates, own_units, size) -> list[tuple[str, list[str]]]:
        """What a section's passage can be, largest first: the whole section (when its relevant
        units hold ``merge_ratio`` of its text), its relevant units, then fewer of its best ones."""
        own = own_units(sec)
        relevant = [uid for uid in candidates.get(sec, []) if f[uid] >= self.relevant]   # best first
        if first not in relevant:
            relevant = [first] + relevant
        options = []
        if len(own) > len(relevant) and size(relevant) >= self.merge_ratio * size(own):
            options.append(("section", own))
        options += [("units", relevant[:n]) for n in range(len(relevant), 0, -1)]
        return options

    @staticmethod
    def parent_units(own: list[str], rescore, size, cap) -> list[str]:
        """A parent's own text (or a linked section's units) when it fits in ``cap``, else its best
        units that fit."""
        if cap <= 0 or not own:
            return []
        if size(own) <= cap:
            return own
        taken: list[str] = []
        for uid in rescore(own):
            if size(taken + [uid]) <= cap:
                taken.append(uid)
        return taken

    def image_context(self, passages: list[Passage], parent_of: Callable[[str], str | None]) -> dict[str, float]:
        """Section -> the context weight ``c`` an image in it gets (module docstring)."""
        weight: dict[str, float] = {}
        for p in passages:
            context = p.role in ("parent", "linked")
            own = 0.5 * p.score if context else p.score
            weight[p.section] = max(weight.get(p.section, 0.0), own)
            parent = parent_of(p.section)
            if parent is not None and not context:
                weight[parent] = max(weight.get(parent, 0.0), 0.5 * p.score)
        return weight

    def rank_images(self, scored: list[ScoredUnit], section_of: Callable[[str], str], context: dict[str, float],
                    k: int) -> list[ScoredUnit]:
        if not scored:
            return []
        f = _minmax(np.array([s.score for s in scored]))
        w = self.image_weight
        ranked = [((1 - w) * fi + w * context.get(section_of(s.unit_id), 0.0), i) for i, (fi, s) in enumerate(zip(f.tolist(), scored))]
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [ScoredUnit(scored[i].unit_id, float(v), scored[i].dense, scored[i].sparse) for v, i in ranked[:k]]


def passage_unit(passage: Passage, units: dict[str, EvidenceUnit], text: str | None = None) -> EvidenceUnit:
    """The evidence unit a passage is shown as: the unit itself when it holds one, else a new unit
    of its members' texts in document order under the section's heading path (module docstring).
    ``text`` replaces the content (the passage cut to the budget, ending in ``CUT_MARK``): its
    ``extra["cut"]`` says how much of it is shown, ``members`` then lists only the units shown
    whole (the metrics that count units credit those alone), and no neighbour follows it."""
    members = sorted(passage.members, key=lambda uid: units[uid].order)
    first, last = units[members[0]], units[members[-1]]
    extra = {"members": members, "role": passage.role}
    joined = "\n".join(units[uid].content for uid in members)
    if text is not None:
        extra |= {"members": [uid for uid in members if units[uid].content in text],
                  "cut": {"shown_chars": len(text), "full_chars": len(joined)}}
    # where each member lies (the passage itself keeps its first member's page and box): page metrics credit them all
    extra["member_pages"] = [{"unit_id": uid, "page": units[uid].page, "bbox": units[uid].extra.get("bbox")}
                             for uid in extra["members"]]
    if len(members) == 1:
        unit = first if text is None else replace(first, content=text, local={**first.local, "next_text": ""})
        return replace(unit, extra={**unit.extra, **extra})
    cut = next((i + 1 for i, step in enumerate(first.path) if step["id"] == passage.section), len(first.path))
    content = joined if text is None else text
    return replace(first, unit_id=f"{first.unit_id}+{len(members) - 1}", kind="text", content=content,
                   path=first.path[:cut], relation={"type": "section_text", "target": None},
                   local={**first.local, "next_text": last.local.get("next_text", "") if text is None else ""},
                   extra={**first.extra, **extra})


def reranked_walk(scored: list[ScoredUnit], reranked: list[ScoredUnit], top_n: int) -> list[ScoredUnit]:
    """The walk's candidates after a reranker (module docstring): its ``top_n`` in its order with
    their scores min-max scaled to [0, 1] (1 when they all tie), then the rest at 0 in the fused
    order of ``scored``."""
    head = reranked[:top_n]
    values = np.array([s.score for s in head], dtype=np.float64)
    f = _minmax(values).tolist() if np.ptp(values) > 1e-12 else [1.0] * len(head)   # all tied: all at the top
    seen = {s.unit_id for s in head}
    return ([replace(s, score=float(v)) for s, v in zip(head, f)]
            + [replace(s, score=0.0) for s in scored if s.unit_id not in seen])


class BudgetedText:
    """``retrieval.budget``: the text and image lists of one query (module docstring), over a text
    and an image index and their section maps; ``reranker`` (None: the fused order) reorders the
    text candidates before the walk."""

    def __init__(self, budget: int, length: TextLength, assembly: TreeAssembly | None = None,
                 reranker=None) -> None:
        self.budget, self.length, self.assembly = budget, length, assembly or TreeAssembly()
        self.reranker = reranker

    def retrieve(self, query, text_index: HybridIndex, image_index: HybridIndex | None, tmap: SectionMap,
                 imap: SectionMap | None, units: dict[str, EvidenceUnit], fusion, pool: int, k_t: int, k_v: int):
        """(text: [(unit, score)], images: [ScoredUnit]) for one query."""
        scored = text_index.search(query, None, fusion, pool)
        if self.reranker is not None and scored:
            scored = reranked_walk(scored, self.reranker.rerank(query.text, scored, units), self.reranker.top_n)
        lengths: dict[str, int] = {}

        def size(ids: list[str]) -> int:
            for uid in ids:
                if uid not in lengths:
                    lengths[uid] = self.length(units[uid].content)
            return sum(lengths[uid] for uid in ids) + self.length("\n") * max(len(ids) - 1, 0)

        # a table is never merged with running text (as in ``ham.granularity``): it is a passage of its
        # own, keyed by its section and its id, so it keeps its kind, label and image
        def section_of(uid: str) -> str:
            sec = tmap.section_of[text_index.row_of[uid]]
            return f"{sec}{TABLE_KEY}{uid}" if units[uid].kind == "table" else sec

        def text_units(rows: list[int]) -> list[str]:   # the rows' units but tables, in document order
            ids = (text_index.unit_ids[r] for r in rows)
            return sorted((u for u in ids if units[u].kind != "table"), key=lambda u: units[u].order)

        def own_units(key: str) -> list[str]:
            if TABLE_KEY in key:
                return [key.split(TABLE_KEY, 1)[1]]
            return text_units(tmap.rows_of.get(key, []))

        def rescore(ids: list[str]) -> list[str]:
            own = set(ids)
            rows = [text_index.row_of[u] for u in own]
            return [s.unit_id for s in text_index.search(query, None, fusion, pool, extra=rows) if s.unit_id in own]

        def ancestors_of(key: str) -> list[str]:
            return tmap.ancestors_of.get(key.split(TABLE_KEY, 1)[0], [])

        def refs_of(ids: list[str]) -> list[str]:
            return list(dict.fromkeys(ref for uid in ids for ref in units[uid].extra.get("refs", ())
                                      if tmap.subtree_rows.get(ref)))

        def linked_units(key: str) -> list[str]:
            return text_units(tmap.subtree_rows.get(key, []))

        gap = self.length("\n")
        passages = self.assembly.passages(scored, own_units, section_of, ancestors_of, size, self.budget, k_t,
                                          rescore, gap, refs_of, linked_units)
        text, shown, left = [], [], self.budget
        for p in passages:
            room = left - (gap if text else 0)
            unit = passage_unit(p, units)
            if self.length(unit.content) > room:   # the first or the last passage: cut to what is left
                cut = self.length.cut(unit.content, max(room - self.length(CUT_MARK), 0))
                if not cut:                        # not one whole word fits: the context is full
                    break
                unit = passage_unit(p, units, text=cut + CUT_MARK)
            left = room - self.length(unit.content)
            text.append((unit, p.score))
            shown.append(p)
        passages = shown
        if image_index is None or imap is None or k_v <= 0 or len(image_index) == 0:
            return text, []
        passages = [replace(p, section=p.section.split(TABLE_KEY, 1)[0]) for p in passages]
        context = self.assembly.image_context(passages, lambda s: tmap.parent_of.get(s))
        extra = [r for sec in context for r in imap.rows_of.get(sec, [])]
        images = image_index.search(query, None, fusion, pool, extra=extra)
        return text, self.assembly.rank_images(images, lambda uid: imap.section_of[image_index.row_of[uid]], context, k_v)
