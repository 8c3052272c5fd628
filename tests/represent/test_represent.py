"""Golden tests: the exact strings each representation variant embeds."""
import json

import pytest

from ham.cache import KeyedStore
from ham.enrich.calls import CallStats
from ham.enrich.descriptions import DescriptionFile, Descriptions
from ham.represent.templates import (ContextualImage, ContextualText, FlatImage, FlatText, IsolatedText,
                                      LocalImage, Representer)
from ham.enrich.summaries import LeadSummariser, Summaries, summarise_sections
from ham.units import build_units


@pytest.fixture
def units(manual_doc):
    return {u.image or u.content: u for u in build_units(manual_doc)}


@pytest.fixture
def summaries():
    # manual:1 is "1. Installation", manual:5 its subsection "1.1. Wiring", manual:12 "2. Maintenance"
    return Summaries({"manual:1": "Installing the pump.", "manual:5": "Wiring the motor.",
                      "manual:12": "Routine checks."}, CallStats("test"))


@pytest.fixture
def descriptions(tmp_path):
    path = tmp_path / "desc.jsonl"
    path.write_text(json.dumps({"image": "img/mains.png", "description": "A red rotary mains isolator."}) + "\n")
    return DescriptionFile(path)


def test_ct_with_section_and_subsection_summaries(units, summaries):
    step = units["Switch off the mains supply."]
    assert Representer(ContextualText(), ContextualImage(), summaries=summaries)(step) == (
        "Document: Pump Manual\n"
        "Path: 1. Installation > 1.1. Wiring > Step 1\n"
        "Content: Switch off the mains supply.\n"
        "Subsection summary: Wiring the motor.\n"
        "Section summary: Installing the pump.")
    top = units["Install the pump on a level concrete base."]   # directly in a top-level section
    assert Representer(ContextualText(), ContextualImage(), summaries=summaries)(top) == (
        "Document: Pump Manual\n"
        "Path: 1. Installation\n"
        "Content: Install the pump on a level concrete base.\n"
        "Section summary: Installing the pump.\n"
        "Neighbouring evidence: Figure 1. The concrete base with anchor bolts.")


def test_st_and_flat_text_are_the_content_alone(units, summaries):
    unit = units["Install the pump on a level concrete base."]
    assert Representer(IsolatedText(), ContextualImage(), summaries=summaries)(unit) == "Install the pump on a level concrete base."
    assert Representer(FlatText(), FlatImage())(unit) == Representer(IsolatedText(), LocalImage())(unit)


def test_si_with_description_and_summaries_li_without(units, descriptions, summaries):
    mains = units["img/mains.png"]
    assert Representer(ContextualText(), ContextualImage(), descriptions, summaries)(mains) == (
        "Image: img/mains.png\n"
        "Position: manual.md, item 8\n"
        "Document: Pump Manual\n"
        "Path: 1. Installation > 1.1. Wiring > Step 1\n"
        "Caption: mains switch\n"
        "Nearby text: Switch off the mains supply.\n"
        "Description: A red rotary mains isolator.\n"
        "Subsection summary: Wiring the motor.\n"
        "Section summary: Installing the pump.")
    assert Representer(ContextualText(), LocalImage(), descriptions, summaries)(mains) == (
        "Caption: mains switch\nNearby text: Switch off the mains supply.")


def test_si_without_a_description_leaves_the_field_out(units, descriptions):
    oil = units["img/oil.png"]
    assert Representer(ContextualText(), ContextualImage(), descriptions)(oil) == (
        "Image: img/oil.png\nPosition: manual.md, item 13\nDocument: Pump Manual\nPath: 2. Maintenance\n"
        "Caption: oil sight glass\nNearby text: Check the oil level every month.")


def test_si_prefers_a_per_unit_description(units):
    mains = units["img/mains.png"]
    per_unit = Descriptions({mains.unit_id: "Isolator in the OFF position."}, "test")
    assert Representer(ContextualText(), ContextualImage(), per_unit)(mains).endswith("Description: Isolator in the OFF position.")


def test_flat_image_is_the_caption_else_alt_else_reference(units):
    rep = Representer(FlatText(), FlatImage())
    assert rep(units["img/base.png"]) == "Figure 1. The concrete base with anchor bolts."   # linked caption
    assert rep(units["img/mains.png"]) == "mains switch"                                  # alt text
    bare = units["img/oil.png"]
    bare.alt = ""
    assert rep(bare) == "img/oil.png"


def test_lead_summaries_feed_ct(manual_doc):
    units = build_units(manual_doc)
    lead = summarise_sections([manual_doc], units, LeadSummariser(sentences=1, max_words=5), KeyedStore("/unused", "x"))
    wiring_step = next(u for u in units if u.content == "Open the terminal cover.")
    assert lead.of(wiring_step) == ("Install the pump on a …", "Connect the motor leads to …")
    assert "Subsection summary: Connect the motor leads to …" in Representer(ContextualText(), ContextualImage(), summaries=lead)(wiring_step)


def test_section_context_excludes_the_unit_itself(units):
    # the Wiring subsection has no other text, so the lead of its parent section is used
    wiring = units["Connect the motor leads to the terminal block."]
    assert wiring.ancestors["section_context"] == "Install the pump on a level concrete base."
    caption = units["Figure 1. The concrete base with anchor bolts."]
    assert caption.ancestors["section_context"] == "Install the pump on a level concrete base."


def test_a_representation_of_the_wrong_modality_is_rejected():
    with pytest.raises(ValueError, match="is not a text representation"):
        Representer(ContextualImage(), ContextualImage())
    with pytest.raises(ValueError, match="is not a image representation"):
        Representer(ContextualText(), IsolatedText())


def test_missing_description_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        DescriptionFile(tmp_path / "nope.jsonl")


def test_ct_can_give_bm25_the_path_and_content_alone(units, summaries):
    unit = units["Connect the motor leads to the terminal block."]
    full = Representer(ContextualText(), ContextualImage(), summaries=summaries)
    lean = Representer(ContextualText(sparse="path_content"), ContextualImage(), summaries=summaries)
    assert full.sparse(unit) == full(unit) and "Section summary" in full(unit)
    assert lean(unit) == full(unit), "the embedded string does not change"
    assert lean.sparse(unit) == ("Document: Pump Manual\nPath: 1. Installation > 1.1. Wiring\n"
                                 "Content: Connect the motor leads to the terminal block.")
    with pytest.raises(ValueError, match="sparse"):
        ContextualText(sparse="half")
