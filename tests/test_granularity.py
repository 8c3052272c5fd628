"""Unit granularity: what merges, what never does, and what a merged unit keeps."""
import pytest

from ham.granularity import Blocks, Merged, Sections
from ham.ingest.builder import Block, TreeBuilder


@pytest.fixture
def doc():
    b = TreeBuilder("g", "Guide", "guide.md", "markdown")
    b.add(Block("heading", "1. Setup", level=1))
    for text in ("Unpack the box.", "Remove the foam.", "Check the parts list."):
        b.add(Block("text", text))
    b.add(Block("image", image="img/box.png", image_path="img/box.png", alt="the box"))
    b.add(Block("text", "Figure 1. The box as delivered."))
    b.add(Block("text", "Keep the box for returns."))
    b.add(Block("table", "part | count\nscrew | 4", caption="Table 1. Parts"))
    b.add(Block("text", "A long paragraph " * 20))
    b.add(Block("heading", "2. Use", level=1))
    b.add(Block("text", "Press start."))
    return b.finish()


def _texts(units):
    return [u.content for u in units if u.kind == "text"]


def test_blocks_are_one_unit_per_leaf_and_captions_live_on_their_image(doc):
    units = Blocks().build([doc])
    assert _texts(units)[:3] == ["Unpack the box.", "Remove the foam.", "Check the parts list."]
    image = next(u for u in units if u.kind == "image")
    assert image.caption == "Figure 1. The box as delivered."
    assert "Figure 1. The box as delivered." not in _texts(units)
    assert "Figure 1. The box as delivered." in _texts(Blocks(captions="both").build([doc]))


def test_merged_joins_short_runs_of_one_section_only(doc):
    units = Merged(min_chars=30, max_chars=200).build([doc])
    texts = _texts(units)
    # "Unpack the box." (15) + "Remove the foam." (16) reach 30: the third starts a new unit
    assert texts[0] == "Unpack the box.\nRemove the foam."
    assert texts[1] == "Check the parts list."      # an image follows: never merged across it
    assert "Keep the box for returns." in texts     # a table follows: never merged across it
    assert any(t.startswith("A long paragraph") for t in texts)
    assert texts[-1] == "Press start." and not any("Press start." in t and "\n" in t for t in texts)
    first = next(u for u in units if u.content.startswith("Unpack"))
    assert first.unit_id == "g:2" and first.extra["merged"] == ["g:2", "g:3"]
    table = next(u for u in units if u.kind == "table")
    assert table.content.startswith("Table 1. Parts")


def test_a_merged_unit_never_exceeds_max_chars_and_long_leaves_stay_whole(doc):
    units = Merged(min_chars=40, max_chars=40).build([doc])
    assert all(len(u.content) <= 40 for u in units if u.kind == "text" and "\n" in u.content)
    assert "Unpack the box.\nRemove the foam." in _texts(units)    # 32 chars: under the cap
    assert any(u.content.startswith("A long paragraph") and len(u.content) > 40 for u in units), \
        "a leaf longer than the cap is kept whole, never split"


def test_images_point_at_the_merged_text_they_belong_beside(doc):
    units = Merged(min_chars=100, max_chars=400).build([doc])
    image = next(u for u in units if u.kind == "image")
    target = next(u for u in units if u.unit_id == image.relation["target"])
    assert "Check the parts list." in target.content


def test_sections_merge_whole_runs_and_validation():
    b = TreeBuilder("s", "S", "s.md", "markdown")
    b.add(Block("heading", "1. A", level=1))
    for i in range(5):
        b.add(Block("text", f"Sentence number {i}."))
    units = Sections(max_chars=2000).build([b.finish()])
    assert _texts(units) == ["\n".join(f"Sentence number {i}." for i in range(5))]
    with pytest.raises(ValueError, match="min_chars <= max_chars"):
        Merged(min_chars=500, max_chars=100)
    with pytest.raises(ValueError, match="captions"):
        Blocks(captions="nowhere")


def test_text_only_steps_merge_as_numbered_running_text_and_steps_with_images_stay():
    b = TreeBuilder("p", "P", "p.md", "markdown")
    b.add(Block("heading", "1. Replace the filter", level=1))
    b.add(Block("step", "Switch off the pump."))
    b.add(Block("step", "Undo the screws."))
    b.add(Block("step", "Pull out the cartridge."))
    b.add(Block("image", image="img/c.png", image_path="img/c.png", alt="cartridge"))
    b.add(Block("step", "Push in the new one."))
    b.add(Block("end_steps"))
    doc = b.finish()
    merged = Merged(min_chars=200, max_chars=400).build([doc])
    texts = _texts(merged)
    assert texts[0] == "Step 1. Switch off the pump.\nStep 2. Undo the screws."
    image = next(u for u in merged if u.kind == "image")
    assert image.relation["type"] == "illustrates_step" and "Step 3" in image.heading_path
    kept = Merged(min_chars=200, max_chars=400, steps="keep").build([doc])
    assert _texts(kept)[0] == "Switch off the pump."
    with pytest.raises(ValueError, match="units.steps"):
        Merged(steps="fold")


def test_a_unit_made_of_several_leaves_keeps_every_leafs_links():
    b = TreeBuilder("r", "Refs", "r.md", "markdown")
    b.add(Block("heading", "1. Select", level=1))
    b.add(Block("text", "Short one.", meta={"refs": ["x:1"]}))
    b.add(Block("text", "Short two.", meta={"refs": ["x:2", "x:1"]}))
    b.add(Block("text", "Short three."))
    doc = b.finish()
    for option in (Merged(min_chars=100, max_chars=500), Sections(max_chars=500)):
        (unit,) = [u for u in option.build([doc]) if u.modality == "text"]
        assert unit.extra["refs"] == ["x:1", "x:2"], option.name
