"""Structural retrieval: sections scored from their units, best sections' units returned together."""
import numpy as np
import pytest

from ham.cache import FolderCache
from ham.ingest.corpus import Corpus
from ham.index.encoders import SentenceTransformerEncoder
from ham.index.hybrid import HybridIndex, ScoredUnit
from ham.index.build import build_indexes
from ham.ingest.builder import Block, TreeBuilder
from ham.represent.templates import IsolatedText, LocalImage, Representer
from ham.retrieve.retriever import Retriever
from ham.retrieve.sections import SectionMap
from ham.retrieve.structural import SectionRanker
from ham.units import build_units


@pytest.fixture(scope="module")
def doc():
    b = TreeBuilder("pump", "Pump Manual", "pump.md", "markdown")
    b.add(Block("heading", "2. Filters", level=1))
    b.add(Block("text", "The filter keeps sand out of the pump. A clogged filter lowers the flow."))   # pump:2
    b.add(Block("text", "Filter cartridges come in fine and coarse grades."))                          # pump:3
    b.add(Block("heading", "3. Replacing the filter cartridge", level=1))
    b.add(Block("step", "Switch off the pump at the mains."))                                           # pump:6
    b.add(Block("step", "Undo the four housing screws with a 10 mm key."))                              # pump:8
    b.add(Block("step", "Pull out the old filter cartridge and push in the new one."))                  # pump:10
    b.add(Block("end_steps"))
    b.add(Block("heading", "3.1. Disposal", level=2))
    b.add(Block("text", "Put the used cartridge in general waste."))                                    # pump:12
    b.add(Block("heading", "4. Storage", level=1))
    b.add(Block("text", "Store spare filter cartridges in a dry place."))                              # pump:14
    return b.finish()


@pytest.fixture(scope="module")
def units(doc):
    return {u.unit_id: u for u in build_units(doc) if u.modality == "text"}


def _grouped(units, scores, **options):
    ids = list(units)
    index = HybridIndex(ids, None, None, None, {})
    scored = sorted((ScoredUnit(u, s, s, 0.0) for u, s in scores.items()), key=lambda s: -s.score)
    ranker = SectionRanker(**options)
    return [s.unit_id for s in ranker.group(scored, SectionMap.of(index, units), index, units)]


# plain ranking scatters the procedure: its steps at ranks 1, 4 and 6
SCORES = {"pump:10": 1.0, "pump:2": 0.95, "pump:3": 0.9, "pump:8": 0.85, "pump:14": 0.8, "pump:6": 0.75,
          "pump:12": 0.2}


def test_a_procedure_comes_back_as_one_group_in_source_order(units):
    out = _grouped(units, SCORES, order="source", min_ratio=0.5, family_ratio=9.0)
    assert out[:3] == ["pump:6", "pump:8", "pump:10"]
    assert out[3:5] == ["pump:2", "pump:3"] and set(out) == set(SCORES)


def test_score_order_keeps_the_best_unit_first(units):
    out = _grouped(units, SCORES, order="score", min_ratio=0.5, family_ratio=9.0)
    assert out[:3] == ["pump:10", "pump:8", "pump:6"]


def test_weak_units_stay_out_of_their_sections_group(units):
    # scaled over the pool: pump:8 -> 0.81, pump:6 -> 0.69 of the best
    out = _grouped(units, SCORES, order="score", min_ratio=0.75, family_ratio=9.0)
    assert out[:2] == ["pump:10", "pump:8"] and out.index("pump:6") > out.index("pump:2")


def test_a_child_section_follows_its_parent(units):
    scores = {"pump:10": 1.0, "pump:2": 0.9, "pump:12": 0.85, "pump:8": 0.8, "pump:6": 0.7, "pump:3": 0.6,
              "pump:14": 0.0}
    with_family = _grouped(units, scores, order="score", min_ratio=0.0, family_ratio=0.3)
    assert with_family[:4] == ["pump:10", "pump:8", "pump:6", "pump:12"]   # 3.1 Disposal follows 3.
    without = _grouped(units, scores, order="score", min_ratio=0.0, family_ratio=9.0)
    assert without == ["pump:10", "pump:8", "pump:6", "pump:2", "pump:3", "pump:12", "pump:14"]


def test_section_scores_reward_several_matches(units):
    ranker = SectionRanker(weights=(1.0, 0.5))
    scores = ranker.section_scores(np.array([1.0, 0.9, 0.9, 0.0]), ["a", "b", "b", "a"])
    assert scores == {"a": 1.0, "b": pytest.approx(1.35)}


def test_bad_order_is_rejected():
    with pytest.raises(ValueError, match="order must be 'source' or 'score'"):
        SectionRanker(order="random")


def test_end_to_end_the_procedure_comes_with_its_steps(doc, tmp_path):
    corpus = Corpus(tmp_path, "test", [doc], build_units(doc), {})
    encoder = SentenceTransformerEncoder("minilm")
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage()), encoder, FolderCache(tmp_path))
    question = "How do I replace the filter cartridge?"
    plain = Retriever(corpus, indexes, encoder, k_t=3, k_v=1)
    structural = Retriever(corpus, indexes, encoder, k_t=3, k_v=1,
                           ranker=SectionRanker(order="source", min_ratio=0.0, expand=1, family_ratio=9.0))
    steps = ["pump:6", "pump:8", "pump:10"]
    assert [h.unit.unit_id for h in plain.retrieve(question).text] != steps
    assert [h.unit.unit_id for h in structural.retrieve(question).text] == steps
