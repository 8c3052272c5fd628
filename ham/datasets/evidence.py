"""Gold evidence -> ham unit ids: fill each ``Evidence.units`` from an ingested corpus's units and
keep a record of how every item was matched, or why it was not.

Rules, tried in this order for each evidence item; the first that finds units decides:

``layout``   the document and the source's own layout id (``unit.extra["layout_id"]``, compared as
             strings). When the item also names a page, the unit must be on it, and when both
             have a bbox they must overlap (any area); otherwise the id is not used, this is
             noted, and the next rule decides (an id and a box that disagree say the ids are not
             the ones the corpus file uses).
``bbox``     the document, the same page and box overlap, MMDocIR's measure: for a gold box G and
             a unit box U, ``overlap(U) = area(G ∩ U) / area(G)`` (``recall_layout`` in MMDocIR's
             ``metric_eval.py`` sums this over retrieved layouts). A unit matches when
             ``area(G ∩ U) / area(G) >= BBOX_THRESHOLD`` or ``area(G ∩ U) / area(U) >=
             BBOX_THRESHOLD`` (it lies mostly inside the gold box), ``BBOX_THRESHOLD = 0.5``: a gold
             box drawn over two paragraphs maps to both, a neighbour it grazes does not. Each
             match records both shares, and the item records ``coverage``, the gold area the
             matched units cover (the sum of their ``area(G ∩ U) / area(G)``, at most 1).
``passage``  the item's text, whitespace-collapsed and lower-cased (``ham.text.normalise_ws``), is a
             substring of a unit's content (same normalisation), within the document when it
             has one.
``image``    the item's image reference equals a unit's ``image`` or ``image_path``, or their
             file names are equal, within the document when it has one.

Documents are matched by name: an item's ``doc`` against the unit's ``doc_id``, ``extra
["doc_name"]``, ``extra["doc_id"]`` (TopoGraph's integer ids) and ``source`` (the unit's file
relative to the corpus root, as ham's own question files name it, e.g. the demo's
``gnucash/cc-concepts1.html``), all as strings with a trailing ``.pdf`` dropped and whitespace
replaced by ``_`` (MMDocRAG writes names without ``.pdf``, MMDocIR with).

``resolve_evidence(questions, units)`` fills ``Evidence.units`` in place and returns a
``MappingRecord``: per question, each item's rule, units and scores, the unresolved items with the
reason, and notes (an id distrusted, a modality that disagrees with the unit's); ``to_dict()``
is what a run stores (e.g. as ``evidence_mapping.json``), with counts per rule.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterable

from ham.datasets.questions import Evidence, Question
from ham.text import normalise_ws
from ham.units import EvidenceUnit

BBOX_THRESHOLD = 0.5
RULES = ("layout", "bbox", "passage", "image")


def doc_key(value) -> str | None:
    """A document name as compared across datasets: string, no trailing ``.pdf``, whitespace ``_``."""
    if value is None:
        return None
    text = str(value).strip()
    if text.lower().endswith(".pdf"):
        text = text[:-4]
    return re.sub(r"\s+", "_", text) or None


def area(box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def intersection(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def doc_keys(unit: EvidenceUnit) -> set[str]:
    """Every name an evidence item may give the unit's document by (module docstring)."""
    keys = {doc_key(unit.doc_id), doc_key(unit.extra.get("doc_name")), doc_key(unit.extra.get("doc_id")),
            doc_key(unit.source)}
    keys.discard(None)
    return keys


def _unique(units: Iterable[EvidenceUnit]) -> list[EvidenceUnit]:
    """Units in order, each once (by unit id)."""
    return list({u.unit_id: u for u in units}.values())


def _unit_kind(unit: EvidenceUnit) -> str:
    """text | image | table, the vocabulary of ``Evidence.modality``."""
    if unit.kind == "table":
        return "table"
    if unit.kind == "image" or unit.extra.get("image_missing"):
        return "image"
    return "text"


@dataclass
class ItemMapping:
    """How one evidence item was matched: its index in ``Question.evidence``, the rule, units."""

    index: int
    rule: str
    units: list[str]
    scores: dict = field(default_factory=dict)   # bbox: unit -> {"of_gold", "of_unit"}
    coverage: float | None = None


@dataclass
class QuestionMapping:
    question_id: str
    matched: list[ItemMapping] = field(default_factory=list)
    unresolved: list[dict] = field(default_factory=list)   # {"index", "reason"}
    notes: list[str] = field(default_factory=list)


@dataclass
class MappingRecord:
    questions: list[QuestionMapping]
    bbox_threshold: float = BBOX_THRESHOLD

    def summary(self) -> dict:
        rules = Counter(m.rule for q in self.questions for m in q.matched)
        items = sum(len(q.matched) + len(q.unresolved) for q in self.questions)
        return {"questions": len(self.questions), "items": items,
                "matched": sum(rules.values()), "unresolved": items - sum(rules.values()),
                "by_rule": dict(sorted(rules.items())),
                "fully_resolved_questions": sum(1 for q in self.questions if not q.unresolved)}

    def to_dict(self) -> dict:
        return {"bbox_threshold": self.bbox_threshold, "rules": list(RULES), "summary": self.summary(),
                "questions": [asdict(q) for q in self.questions]}

    def write(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False))


class EvidenceResolver:
    """Indexes a corpus's units once; ``resolve(question)`` maps one question's evidence."""

    def __init__(self, units: Iterable[EvidenceUnit], bbox_threshold: float = BBOX_THRESHOLD) -> None:
        self.threshold = bbox_threshold
        self.units: dict[str, EvidenceUnit] = {}
        self.by_doc: dict[str, list[EvidenceUnit]] = defaultdict(list)
        self.by_layout: dict[tuple[str, str], list[EvidenceUnit]] = defaultdict(list)
        self.by_page: dict[tuple[str, int], list[EvidenceUnit]] = defaultdict(list)
        self.by_image: dict[str, list[EvidenceUnit]] = defaultdict(list)
        self._content: dict[str, str] = {}
        for unit in units:
            self.units[unit.unit_id] = unit
            keys = doc_keys(unit)
            layout = unit.extra.get("layout_id")
            for key in keys:
                self.by_doc[key].append(unit)
                if layout is not None:
                    self.by_layout[(key, str(layout))].append(unit)
                if unit.page is not None:
                    self.by_page[(key, unit.page)].append(unit)
            for ref in (unit.image, unit.image_path, unit.extra.get("image"), unit.extra.get("image_path")):
                if ref:
                    self.by_image[str(ref)].append(unit)
                    self.by_image["name:" + PurePosixPath(str(ref)).name].append(unit)

    # ------------------------------------------------------------------ rules

    def _by_layout(self, item: Evidence, doc: str | None) -> list[EvidenceUnit]:
        if item.layout is None or doc is None:
            return []
        return list(_unique(self.by_layout.get((doc, str(item.layout)), [])))

    def _by_bbox(self, item: Evidence, doc: str | None) -> tuple[list[EvidenceUnit], dict, float, float]:
        """(matches, scores, coverage, best share of the gold box among all candidates)."""
        if item.bbox is None or item.page is None or doc is None:
            return [], {}, 0.0, 0.0
        gold = item.bbox
        gold_area = area(gold)
        if gold_area <= 0:
            return [], {}, 0.0, 0.0
        matches, scores, best = [], {}, 0.0
        for unit in _unique(self.by_page.get((doc, item.page), [])):
            box = unit.extra.get("bbox")
            if not box or len(box) != 4:
                continue
            inter = intersection(gold, box)
            of_gold = inter / gold_area
            of_unit = inter / area(box) if area(box) > 0 else 0.0
            best = max(best, of_gold)
            if of_gold >= self.threshold or of_unit >= self.threshold:
                matches.append(unit)
                scores[unit.unit_id] = {"of_gold": round(of_gold, 4), "of_unit": round(of_unit, 4)}
        coverage = min(1.0, sum(s["of_gold"] for s in scores.values()))
        return matches, scores, round(coverage, 4), best

    def _content_of(self, unit: EvidenceUnit) -> str:
        if unit.unit_id not in self._content:
            self._content[unit.unit_id] = normalise_ws(unit.content or "")
        return self._content[unit.unit_id]

    def _by_passage(self, item: Evidence, doc: str | None) -> list[EvidenceUnit]:
        passage = normalise_ws(item.text or "")
        if not passage:
            return []
        pool = self.by_doc.get(doc, []) if doc is not None else self.units.values()
        return [u for u in _unique(pool) if passage in self._content_of(u)]

    def _by_image(self, item: Evidence, doc: str | None) -> list[EvidenceUnit]:
        if not item.image:
            return []
        ref = str(item.image)
        found = self.by_image.get(ref) or self.by_image.get("name:" + PurePosixPath(ref).name, [])
        keys = None if doc is None else {doc}
        return [u for u in _unique(found) if keys is None or keys & doc_keys(u)]

    # ------------------------------------------------------------------ one question

    def resolve(self, question: Question, fill: bool = True) -> QuestionMapping:
        record = QuestionMapping(question.id)
        for index, item in enumerate(question.evidence):
            mapping, reason = self._resolve_item(index, item, record.notes)
            if mapping is None:
                record.unresolved.append({"index": index, "reason": reason})
                if fill:
                    item.units = []
                continue
            record.matched.append(mapping)
            if fill:
                item.units = list(mapping.units)
            if item.modality:
                kinds = {_unit_kind(self.units[u]) for u in mapping.units}
                if kinds and item.modality not in kinds:
                    record.notes.append(f"evidence {index}: modality {item.modality!r} but matched "
                                        f"{'/'.join(sorted(kinds))} unit(s)")
        return record

    def _resolve_item(self, index: int, item: Evidence, notes: list[str]) -> tuple[ItemMapping | None, str]:
        doc = doc_key(item.doc)
        reasons = []
        if doc is not None and doc not in self.by_doc:
            return None, f"document {item.doc!r} is not in the corpus"
        found = self._by_layout(item, doc)
        if found and item.page is not None:
            agree = [u for u in found if u.page == item.page and (
                item.bbox is None or not u.extra.get("bbox") or intersection(item.bbox, u.extra["bbox"]) > 0)]
            if not agree:
                where = "is not on" if all(u.page != item.page for u in found) else "does not overlap the gold bbox on"
                notes.append(f"evidence {index}: layout id {item.layout} {where} page {item.page}; "
                             "the id is not used")
            elif len(agree) < len(found):   # the id names units elsewhere too: only those where the item is
                notes.append(f"evidence {index}: layout id {item.layout} also names {len(found) - len(agree)} "
                             f"unit(s) off page {item.page} or its bbox; those are not used")
            found = agree
        if found:
            return ItemMapping(index, "layout", [u.unit_id for u in found]), ""
        if item.layout is not None:
            reasons.append(f"no unit has layout id {item.layout}")
        if item.bbox is not None:
            matches, scores, coverage, best = self._by_bbox(item, doc)
            if matches:
                return ItemMapping(index, "bbox", [u.unit_id for u in matches], scores, coverage), ""
            if area(item.bbox) <= 0:
                reasons.append("the gold bbox has no area")
            elif item.page is None:
                reasons.append("the gold bbox has no page")
            else:
                reasons.append(f"no unit on page {item.page} overlaps the bbox by {self.threshold:g} "
                               f"(best share of the gold box {best:.2f})")
        if item.text:
            found = self._by_passage(item, doc)
            if found:
                return ItemMapping(index, "passage", [u.unit_id for u in found]), ""
            reasons.append("the passage is in no unit's content")
        if item.image:
            found = self._by_image(item, doc)
            if found:
                return ItemMapping(index, "image", [u.unit_id for u in found]), ""
            reasons.append(f"no unit shows image {item.image!r}")
        if not reasons:
            reasons.append("the item has no layout id, bbox, passage or image to match")
        return None, "; ".join(reasons)


def resolve_evidence(questions: Iterable[Question], units: Iterable[EvidenceUnit],
                     bbox_threshold: float = BBOX_THRESHOLD, fill: bool = True) -> MappingRecord:
    """Map every question's gold evidence to unit ids (filling ``Evidence.units`` unless
    ``fill=False``) and return the record of the mapping."""
    resolver = EvidenceResolver(units, bbox_threshold)
    return MappingRecord([resolver.resolve(q, fill) for q in questions], bbox_threshold)
