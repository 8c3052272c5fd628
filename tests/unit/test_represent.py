"""Golden tests: the exact strings each representation variant embeds."""
import json

import pytest

from ham.describe import DescriptionFile
from ham.represent import Representer
from ham.units import build_units


@pytest.fixture
def units(manual_doc):
    return {u.image or u.content: u for u in build_units(manual_doc)}


@pytest.fixture
def descriptions(tmp_path):
    path = tmp_path / "desc.jsonl"
    path.write_text(json.dumps({"image": "img/mains.png", "description": "A red rotary mains isolator."}) + "\n")
    return DescriptionFile(path)


def test_ct_and_st(units):
    unit = units["Install the pump on a level concrete base."]
    assert Representer("ct", "si")(unit) == (
        "Document: Pump Manual\n"
        "Path: 1. Installation\n"
        "Content: Install the pump on a level concrete base.\n"
        "Neighbouring evidence: Figure 1. The concrete base with anchor bolts.")
    assert Representer("st", "si")(unit) == "Install the pump on a level concrete base."
    oil = units["Check the oil level every month."]
    assert Representer("ct", "si")(oil) == (
        "Document: Pump Manual\nPath: 2. Maintenance\nContent: Check the oil level every month.")


def test_si_with_description_and_li_without(units, descriptions):
    mains = units["img/mains.png"]
    assert Representer("ct", "si", descriptions)(mains) == (
        "Image: img/mains.png\n"
        "Position: manual.md, item 8\n"
        "Document: Pump Manual\n"
        "Path: 1. Installation > 1.1. Wiring > Step 1\n"
        "Caption: mains switch\n"
        "Nearby text: Switch off the mains supply.\n"
        "Description: A red rotary mains isolator.")
    assert Representer("ct", "li", descriptions)(mains) == (
        "Caption: mains switch\nNearby text: Switch off the mains supply.")


def test_section_context_excludes_the_unit_itself(units):
    # the Wiring subsection has no other text, so the lead of its parent section is used
    wiring = units["Connect the motor leads to the terminal block."]
    assert wiring.ancestors["section_context"] == "Install the pump on a level concrete base."
    caption = units["Figure 1. The concrete base with anchor bolts."]
    assert caption.ancestors["section_context"] == "Install the pump on a level concrete base."


def test_unknown_variant_is_rejected():
    with pytest.raises(ValueError, match="unknown text representation 'xt'"):
        Representer("xt", "si")
