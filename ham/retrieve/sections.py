"""Which section each indexed unit belongs to, each section's units and the section tree, as the
structural ranker and the diversity step see an index. A unit's section is its nearest section
node (procedural steps roll up into it); its parent section is the one above that."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ham.index.hybrid import HybridIndex
from ham.units import EvidenceUnit


@dataclass
class SectionMap:
    """Which section each indexed row belongs to, each section's rows, and the section tree."""

    section_of: list[str]
    rows_of: dict[str, list[int]]
    parent_of: dict[str, str | None]
    children_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    ancestors_of: dict[str, list[str]] = field(default_factory=dict)   # enclosing sections, nearest first
    subtree_rows: dict[str, list[int]] = field(default_factory=dict)   # rows anywhere under a section or document

    @classmethod
    def of(cls, index: HybridIndex, units: dict[str, EvidenceUnit]) -> "SectionMap":
        section_of, rows_of, parent_of, ancestors_of, subtree = [], defaultdict(list), {}, {}, defaultdict(list)
        for row, unit_id in enumerate(index.unit_ids):
            unit = units[unit_id]
            for step in unit.path:
                if step["kind"] in ("document", "section", "subsection"):
                    subtree[step["id"]].append(row)
            section, subsection = unit.section_ids()
            own = subsection or section or unit.path[0]["id"]
            section_of.append(own)
            rows_of[own].append(row)
            parent_of.setdefault(own, section if subsection else None)
            if own not in ancestors_of:
                enclosing = [s["id"] for s in unit.path if s["kind"] in ("section", "subsection")]
                ancestors_of[own] = enclosing[:-1][::-1] if enclosing and enclosing[-1] == own else []
        out = cls(section_of, dict(rows_of), parent_of, ancestors_of=ancestors_of, subtree_rows=dict(subtree))
        for child, parent in parent_of.items():
            if parent is not None:
                out.children_of[parent].append(child)
        return out


class SectionMaps:
    """One ``SectionMap`` per index, built on first use."""

    def __init__(self) -> None:
        self._maps: dict[int, SectionMap] = {}

    def of(self, index: HybridIndex, units: dict[str, EvidenceUnit]) -> SectionMap:
        if id(index) not in self._maps:
            self._maps[id(index)] = SectionMap.of(index, units)
        return self._maps[id(index)]
