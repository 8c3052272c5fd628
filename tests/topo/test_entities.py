"""The model-free entity extractor (RAKE keyphrases, normalised), anchors, and their cache."""
import pytest

from ham.cache import FolderCache
from ham.ingest.builder import Block, TreeBuilder
from ham.index.entities import (EntityIndex, RakeEntities, UnitEntities, corpus_entities, mentions, normalise,
                               singular, unit_text)
from ham.units import build_units


@pytest.mark.parametrize("word,expected", [("entries", "entry"), ("taxes", "tax"), ("accounts", "account"),
                                           ("branches", "branch"), ("glass", "glass"), ("status", "status"),
                                           ("analysis", "analysis"), ("bus", "bus"), ("gains", "gain")])
def test_plurals_become_singular_by_suffix_rules(word, expected):
    assert singular(word) == expected


def test_normalisation_folds_case_plural_possessive_and_punctuation():
    assert normalise("The Checking Accounts'") == "the checking account"
    assert normalise("Peter’s  LOANS,") == "peter loan"
    assert normalise("gcashdata_5") == "gcashdata_5"


def test_candidates_are_runs_between_stopwords_punctuation_and_numbers():
    rake = RakeEntities(max_words=4)
    runs = rake.candidates("Open the Loan Repayment Calculator, then enter 10% and $500 for the monthly "
                           "interest rate (see Figure 3).")
    flat = [" ".join(r) for r in runs]
    assert "Loan Repayment Calculator" in flat, "a stopword ('the') and a comma cut the run"
    assert "monthly interest rate" in flat and "interest rate" in flat and "monthly interest" in flat, \
        "a 3-word run yields its two-word sub-phrases"
    assert not any(any(ch.isdigit() for ch in f) for f in flat), "numbers and amounts are delimiters"
    assert "Open" not in " ".join(flat) and "Figure" in flat


def test_a_long_run_keeps_its_head_and_rake_scores_rank_phrases():
    rake = RakeEntities(max_words=2, per_unit=3)
    phrases = rake.extract("Reconcile the savings account. Savings accounts earn interest. Reconcile monthly.")
    entities = [p.entity for p in phrases]
    assert entities[0] == "saving account", "deg/freq: the two-word phrase outscores single words"
    assert len(entities) <= 3


def test_surface_form_is_the_most_frequent_spelling():
    rake = RakeEntities()
    found = UnitEntities.of({"a": rake.extract("The Savings Account is new."),
                             "b": rake.extract("Open your Savings Account."),
                             "c": rake.extract("savings accounts are boring.")})
    assert found.surface["saving account"] == "Savings Account"
    assert all("saving account" in es for es in found.of_unit.values())


def _units():
    b = TreeBuilder("d", "Guide", "d.md", "markdown")
    b.add(Block("heading", "1. Files", level=1))
    b.add(Block("text", "Start by opening gcashdata_5 from the previous chapter."))
    b.add(Block("text", "The account is in the account tree."))
    b.add(Block("heading", "2. Saving", level=1))
    b.add(Block("text", "Save the file as gcashdata_5 when you are done."))
    b.add(Block("text", "The account tree is where the account is."))
    b.add(Block("image", image="img/tree.png", image_path="img/tree.png", alt="account window"))
    b.add(Block("text", "The account is a word this guide uses everywhere."))
    return build_units(b.finish())


def test_anchors_need_two_units_and_stay_under_the_share_cap():
    units = _units()
    found = RakeEntities().extract_units(units)
    index = EntityIndex.build(found, [u.unit_id for u in units], min_units=2, max_share=0.4)
    assert set(index.units_of["gcashdata_5"]) == {units[0].unit_id, units[2].unit_id}
    assert all(len(us) >= 2 for us in index.units_of.values())
    assert set(index.units_of["account tree"]) == {units[1].unit_id, units[3].unit_id}
    assert "account" not in index.units_of, "in more than 40% of the units: no anchor"
    assert index.neighbours(units[0].unit_id)[units[2].unit_id][1] == "gcashdata_5"
    assert index.shared(units[0].unit_id, units[2].unit_id) == ["gcashdata_5"]
    assert index.summary()["anchors"] == len(index.units_of)
    with pytest.raises(ValueError, match="at least two units"):
        EntityIndex.build(found, min_units=1)


def test_a_figure_is_read_through_its_caption_description_and_ocr():
    image = next(u for u in _units() if u.modality == "image")
    image.extra["ocr_text"] = "Assets Liabilities"

    class Descriptions:
        def of(self, unit):
            return "A window listing the account tree with gcashdata_5 open."

    text = unit_text(image, Descriptions())
    assert "account window" in text and "gcashdata_5" in text and "Assets Liabilities" in text


def test_mentions_match_whole_normalised_words():
    assert mentions("Which file do the Checking Accounts use?", "checking account")
    assert not mentions("the checking-accounting office", "checking account")
    assert not mentions("gcashdata_50", "gcashdata_5")


def test_entities_are_cached_per_corpus(tmp_path, monkeypatch):
    units = _units()
    cache = FolderCache(tmp_path)
    first = corpus_entities(units, RakeEntities(), cache, corpus_key="c1")
    calls = []
    monkeypatch.setattr(RakeEntities, "extract_units", lambda self, *a: calls.append(1))
    again = corpus_entities(units, RakeEntities(), cache, corpus_key="c1")
    assert again.of_unit == first.of_unit and not calls, "the second corpus load reads the cache"
    assert len(list((tmp_path / "entities").iterdir())) == 1


def test_an_identifier_inside_a_run_is_also_a_candidate():
    runs = [" ".join(r) for r in RakeEntities().candidates("Open the data file gcashdata_5 now, then form W-2.")]
    assert "data file gcashdata_5" in runs and "gcashdata_5" in runs and "W-2" in runs
