"""Diversity over the tree: section caps, parent passages, MMR, on a fixed ranking."""
import numpy as np
import pytest

from ham.index.hybrid import ScoredUnit
from ham.ingest.builder import Block, TreeBuilder
from ham.retrieve.diversity import MMR, SectionCap
from ham.units import build_units


@pytest.fixture(scope="module")
def units():
    b = TreeBuilder("m", "Manual", "m.md", "markdown")
    b.add(Block("heading", "1. Tools", level=1))
    b.add(Block("text", "Every tool shares these options: size, colour, opacity."))     # m:2, parent's own
    b.add(Block("heading", "1.1. Brush", level=2))
    for i in range(6):
        b.add(Block("text", f"Brush option {i}."))                                          # m:4 .. m:9
    b.add(Block("heading", "1.2. Pencil", level=2))
    b.add(Block("text", "The pencil draws hard edges."))                                     # m:11
    b.add(Block("heading", "2. Files", level=1))
    b.add(Block("text", "Save often."))                                                      # m:13
    return {u.unit_id: u for u in build_units(b.finish()) if u.modality == "text"}


class FixedIndex:
    """A pool with fixed fused scores: what HybridIndex.search returns for one query."""

    def __init__(self, units, scores, pool):
        self.unit_ids = list(units)
        self.row_of = {u: i for i, u in enumerate(self.unit_ids)}
        self.scores, self.pool = scores, set(pool)
        rng = np.random.default_rng(0)
        self.vectors = rng.normal(size=(len(self.unit_ids), 8)).astype(np.float32)
        self.vectors /= np.linalg.norm(self.vectors, axis=1, keepdims=True)
        self.searches = []

    def __len__(self):
        return len(self.unit_ids)

    def search(self, query, k, fusion=None, pool=100, extra=()):
        self.searches.append(list(extra))
        members = self.pool | {self.unit_ids[r] for r in extra}
        ranked = sorted(members, key=lambda u: -self.scores[u])
        return [ScoredUnit(u, self.scores[u], self.scores[u], 0.0) for u in ranked][:k]


def _select(step, index, k, units):
    pool = index.search(None, None)
    return step.select(pool, k, index, units, lambda rows: index.search(None, None, extra=rows))


SCORES = {"m:4": 1.0, "m:5": 0.99, "m:6": 0.98, "m:7": 0.97, "m:8": 0.96, "m:9": 0.95, "m:11": 0.6,
          "m:13": 0.5, "m:2": 0.4}


def test_a_section_takes_at_most_its_cap_and_the_rest_fill_later(units):
    index = FixedIndex(units, SCORES, pool=[u for u in SCORES if u != "m:2"])
    out = [s.unit_id for s in _select(SectionCap(per_section=3, parents=0), index, 6, units)]
    assert out == ["m:4", "m:5", "m:6", "m:11", "m:13", "m:7"]


def test_a_high_child_section_brings_its_parents_own_passage(units):
    index = FixedIndex(units, SCORES, pool=[u for u in SCORES if u != "m:2"])   # the parent's passage: not in the pool
    out = [s.unit_id for s in _select(SectionCap(per_section=3, parents=1), index, 5, units)]
    assert out[:2] == ["m:4", "m:2"] and len(out) == 5, "the parent's passage follows the child's first unit"
    assert out[2:] == ["m:5", "m:6", "m:11"], "the lowest-ranked plain unit gave up its slot"
    assert index.searches[-1] == [units_row(index, "m:2")], "only the parent's own passages were scored"


def units_row(index, unit_id):
    return index.row_of[unit_id]


def test_no_parent_passage_when_one_is_already_taken(units):
    scores = {**SCORES, "m:2": 0.985}
    index = FixedIndex(units, scores, pool=list(scores))
    out = [s.unit_id for s in _select(SectionCap(per_section=3, parents=1), index, 5, units)]
    assert out.count("m:2") == 1 and len(index.searches) == 1, "the pool only: nothing to rescore"


def test_mmr_spreads_the_slots_and_validates_its_weight(units):
    index = FixedIndex(units, SCORES, pool=list(SCORES))
    index.vectors[[index.row_of[f"m:{i}"] for i in range(4, 10)]] = index.vectors[index.row_of["m:4"]]   # duplicates
    out = [s.unit_id for s in _select(MMR(weight=0.5), index, 3, units)]
    assert out[0] == "m:4" and not set(out[1:]) & {f"m:{i}" for i in range(5, 10)}
    assert [s.unit_id for s in _select(MMR(weight=1.0), index, 3, units)] == ["m:4", "m:5", "m:6"]
    with pytest.raises(ValueError, match="weight"):
        MMR(weight=1.5)
