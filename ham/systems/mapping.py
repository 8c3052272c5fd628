"""A GraphRAG system's retrieved context -> ham evidence units, so ham's structural metrics (gold
unit recall, both hops, ordered chain, point coverage) and its judged ones score every system on
the same units as ham's own retrieval.

Each context item (``ham/systems/wrappers/protocol.py``: entities, relations, chunks, images, as
the system returned them) is mapped by the first rule that finds units:

``image``     an item naming an image file (an image; RAG-Anything's image chunk, ``Image Path:``):
              the units whose ``image`` or ``image_path`` has that file name, within its document
              when it names one. Tried first: the file is the evidence, and the caption it carries
              is often a text unit too (and repeated by the sentence before the figure).
``box``       an item with a document, a page and a bbox (RAG-Anything's content items): the units
              on that page whose box it overlaps by ``BBOX_THRESHOLD`` of either box (the gold
              evidence rule of ``ham.datasets.evidence``, the same threshold).
``text``      an item with text (a chunk, a passage): the units of its document (all units when it
              names none) that share word 4-grams with it: a unit maps when at least
              ``OVERLAP_THRESHOLD`` of its own 4-grams are in the item (the chunk holds most of the
              unit) or at least that share of the item's 4-grams are the unit's (the chunk lies
              mostly inside one long unit). A text unit of fewer than four words maps when its
              words occur, in order, in an item of its own document; an image or table unit never
              maps by so short a text (its content is a caption or label: "As Figure 3 shows" in a
              chunk does not retrieve the figure), nor does one when the item names no document. Text is compared whitespace-collapsed and lower-cased,
              as words (``\\w+``), so a system's re-spacing or markdown does not matter. An item
              naming an image (kind ``image`` or a file no unit has) maps by its text only to image
              units (its caption or description), never to text units repeating the caption. An
              item naming its page (0-based, as ``EvidenceUnit.page``: MegaRAG's page chunks, no box)
              maps to the matching units on that page (a unit of no known page counts as on it): a
              sentence printed on two pages maps to the page's copy; when none of the matching
              units is on that page the whole document's count, and the item is flagged
              ``page_fallback`` (counted in ``coverage``).
``page``      an item naming only a page of a document (MegaRAG's page images): every unit on that
              page. Coarse, as page-level retrieval is; the rule is recorded.

A document is named by its source path (looked up whole first: ``C#-primer.md``), or, for one of
several documents in one file, as ``<source>#<doc_id>`` (split at a '#' only where the part before
is a document of the corpus and the part after one of its documents).

Entities and relations carry descriptions the system's LLM wrote, not source text: they are
counted as ``unmapped`` with reason ``generated description`` (their chunks, when the system
returns them, are mapped as chunks). Nothing is dropped: every item is listed with its rule and
units, or its reason, and ``coverage`` counts them per kind.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import PurePosixPath

from ham.datasets.evidence import BBOX_THRESHOLD, EvidenceResolver, area, doc_key, intersection
from ham.text import normalise_ws
from ham.units import EvidenceUnit

OVERLAP_THRESHOLD = 0.5
SHINGLE = 4
KINDS = ("entity", "relation", "chunk", "image")
_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    return _WORD.findall(normalise_ws(text or "").lower())


def shingles(tokens: list[str], n: int = SHINGLE) -> set[tuple[str, ...]]:
    if len(tokens) < n:
        return {tuple(tokens)} if tokens else set()
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


@dataclass
class ContextItem:
    """One retrieved item in the system's order: its kind, the text it carries, what it names."""

    kind: str                       # entity | relation | chunk | image
    text: str = ""
    doc: str | None = None          # the document as the system names it (the source path ham gave it)
    page: int | None = None         # 0-based
    bbox: list[float] | None = None
    image: str | None = None
    raw: dict = field(default_factory=dict)


@dataclass
class Mapped:
    kind: str
    index: int                      # its place in the system's context order
    rule: str | None
    units: list[str]
    reason: str = ""
    scores: dict = field(default_factory=dict)
    page_fallback: bool = False     # by text, none on the item's page: matched in its whole document


class ContextMapper:
    """Indexes a corpus's units once; ``map(items)`` maps one question's retrieved context."""

    def __init__(self, units: list[EvidenceUnit], overlap: float = OVERLAP_THRESHOLD,
                 bbox_threshold: float = BBOX_THRESHOLD) -> None:
        self.overlap, self.bbox_threshold = overlap, bbox_threshold
        self.index = EvidenceResolver(units, bbox_threshold)
        self._order = {u.unit_id: (u.doc_id, u.order) for u in units}
        self._tokens: dict[str, list[str]] = {}
        self._shingles: dict[str, set] = {}
        self._postings: dict[tuple, list[str]] = defaultdict(list)
        # units a few words long may map by those words: text only (module docstring)
        self._short_text = {u.unit_id for u in units if u.modality == "text" and u.kind != "table"}
        self._image_units = {u.unit_id for u in units if u.modality == "image"}
        for unit in units:
            if unit.modality == "image" and not unit.content:
                continue
            tokens = words(unit.content)
            self._tokens[unit.unit_id] = tokens
            self._shingles[unit.unit_id] = shingles(tokens)
            for s in self._shingles[unit.unit_id]:
                self._postings[s].append(unit.unit_id)

    def _doc(self, item: ContextItem) -> str | None:
        """The document the item names: its source path, or ``<source>#<doc_id>`` for one of several
        documents in one file (``ham.systems.adapter.document_names``), by that document's id. The
        whole name is looked up first: a file may have '#' in its name (``C#-primer.md``)."""
        if item.doc is None:
            return None
        name = str(item.doc)
        key = doc_key(name)
        if key in self.index.by_doc:
            return key
        for i, ch in enumerate(name):
            if ch != "#":
                continue
            source, doc_id = doc_key(name[:i]), doc_key(name[i + 1:])
            if source in self.index.by_doc and doc_id in self.index.by_doc and any(
                    doc_key(u.source) == source for u in self.index.by_doc[doc_id]):
                return doc_id
        return None

    def _in_doc(self, unit_id: str, doc: str | None) -> bool:
        return doc is None or unit_id in {u.unit_id for u in self.index.by_doc[doc]}

    def by_box(self, item: ContextItem, doc: str | None) -> tuple[list[str], dict]:
        if item.bbox is None or item.page is None or doc is None or area(item.bbox) <= 0:
            return [], {}
        found, scores = [], {}
        for unit in self.index.by_page.get((doc, item.page), []):
            box = unit.extra.get("bbox")
            if not box or len(box) != 4 or area(box) <= 0:
                continue
            inter = intersection(item.bbox, box)
            of_item, of_unit = inter / area(item.bbox), inter / area(box)
            if max(of_item, of_unit) >= self.bbox_threshold and unit.unit_id not in scores:
                found.append(unit.unit_id)
                scores[unit.unit_id] = {"of_item": round(of_item, 4), "of_unit": round(of_unit, 4)}
        return found, scores

    def by_text(self, item: ContextItem, doc: str | None, images_only: bool = False) -> tuple[list[str], dict, bool]:
        """(units, their scores, whether the item's page held none of them so the whole document's
        count: ``page_fallback``). ``images_only``: only image units (an image item's caption)."""
        tokens = words(item.text)
        if not tokens:
            return [], {}, False
        mine = shingles(tokens)
        shared: Counter = Counter()
        for s in mine:
            for uid in self._postings.get(s, ()):
                shared[uid] += 1
        joined = " " + " ".join(tokens) + " "
        found, scores = [], {}
        doc_units = None if doc is None else {u.unit_id for u in self.index.by_doc[doc]}
        pool = self._tokens if doc_units is None else doc_units
        short = [uid for uid in pool if 0 < len(self._tokens.get(uid, ())) < SHINGLE
                 and uid in self._short_text] if doc_units is not None else []
        for uid in [*sorted(shared, key=lambda u: -shared[u]), *short]:
            if uid in scores or (doc_units is not None and uid not in doc_units) or (
                    images_only and uid not in self._image_units):
                continue
            unit_tokens = self._tokens[uid]
            if len(unit_tokens) < SHINGLE:
                if " " + " ".join(unit_tokens) + " " in joined:
                    found.append(uid)
                    scores[uid] = {"of_unit": 1.0, "of_item": round(len(unit_tokens) / len(tokens), 4)}
                continue
            of_unit = shared[uid] / len(self._shingles[uid])
            of_item = shared[uid] / len(mine)
            if of_unit >= self.overlap or of_item >= self.overlap:
                found.append(uid)
                scores[uid] = {"of_unit": round(of_unit, 4), "of_item": round(of_item, 4)}
        found.sort(key=self._order.__getitem__)
        fallback = False
        if found and item.page is not None and doc is not None:
            # the same sentence on two pages: a chunk that names its page (MegaRAG's pages) holds
            # that page's copy; a unit of no known page does not contradict it
            on_page = [u for u in found if self.index.units[u].page in (item.page, None)]
            fallback = not on_page
            found = on_page or found
            scores = {u: scores[u] for u in found}
        return found, scores, fallback

    def by_image(self, item: ContextItem, doc: str | None) -> list[str]:
        if not item.image:
            return []
        found = self.index.by_image.get("name:" + PurePosixPath(str(item.image)).name, [])
        return list(dict.fromkeys(u.unit_id for u in found if self._in_doc(u.unit_id, doc)))

    def by_page(self, item: ContextItem, doc: str | None) -> list[str]:
        if item.page is None or doc is None:
            return []
        return list(dict.fromkeys(u.unit_id for u in self.index.by_page.get((doc, item.page), [])))

    def map_one(self, index: int, item: ContextItem) -> Mapped:
        if item.kind in ("entity", "relation"):
            return Mapped(item.kind, index, None, [], "generated description")
        doc = self._doc(item)
        if item.doc is not None and doc is None:
            return Mapped(item.kind, index, None, [], f"document {item.doc!r} is not in the corpus")
        # an item naming an image file is that image when the file is a unit's; only failing that
        # may its text (a caption, a description) map, and then only to image units
        names_image = item.kind == "image" or bool(item.image)
        if names_image:
            found = self.by_image(item, doc)
            if found:
                return Mapped(item.kind, index, "image", found)
        found, scores = self.by_box(item, doc)
        if found:
            return Mapped(item.kind, index, "box", found, scores=scores)
        found, scores, fallback = self.by_text(item, doc, images_only=names_image)
        if found:
            return Mapped(item.kind, index, "text", found, scores=scores, page_fallback=fallback)
        found = self.by_page(item, doc)
        if found:
            return Mapped(item.kind, index, "page", found)
        tried = [what for what, present in (("box", item.bbox is not None), ("text", bool(item.text)),
                                            ("image file", bool(item.image)), ("page", item.page is not None))
                 if present]
        reason = ("no unit matches its " + ", ".join(tried)) if tried else "it names no text, file, page or box"
        return Mapped(item.kind, index, None, [], reason)

    def map(self, items: list[ContextItem]) -> list[Mapped]:
        return [self.map_one(i, item) for i, item in enumerate(items)]


def coverage(mapped: list[list[Mapped]] | list[Mapped]) -> dict:
    """Items, mapped and unmapped per kind, with rules and reasons, over one question's mappings
    or many questions'."""
    flat = [m for group in mapped for m in (group if isinstance(group, list) else [group])]
    out: dict = {"items": len(flat), "mapped": sum(1 for m in flat if m.units), "by_kind": {}}
    out["unmapped"] = out["items"] - out["mapped"]
    out["mapped_share"] = round(out["mapped"] / out["items"], 4) if flat else None
    out["page_fallback"] = sum(1 for m in flat if m.page_fallback)
    for kind in KINDS:
        of_kind = [m for m in flat if m.kind == kind]
        if not of_kind:
            continue
        out["by_kind"][kind] = {"items": len(of_kind), "mapped": sum(1 for m in of_kind if m.units),
                                "by_rule": dict(Counter(m.rule for m in of_kind if m.units)),
                                "page_fallback": sum(1 for m in of_kind if m.page_fallback),
                                "unmapped_reasons": dict(Counter(m.reason for m in of_kind if not m.units))}
    return out


def as_dicts(mapped: list[Mapped]) -> list[dict]:
    return [asdict(m) for m in mapped]
