"""Tables are first-class evidence in every method's prompt: caption and rows in the text, and for
mllm_based the table's own image (not a citable <imgN>)."""
from PIL import Image

from ham.ingest.builder import Block, TreeBuilder
from ham.methods.ham import HamAssembler
from ham.methods.llm_based import LlmBasedMethod
from ham.methods.mllm_based import MllmBasedMethod
from ham.methods.rule_based import RuleBasedMethod
from ham.retrieve.retriever import Retrieved
from ham.units import is_table_image
from tests.support.evidence import evidence

Q = "What torque do the M10 bolts need?"


def table_doc():
    b = TreeBuilder("spec", "Pump Spec", "spec_content_list.json", "mineru")
    b.add(Block("heading", "1 Bolts", level=1, page=2))
    b.add(Block("table", "Bolt | Torque\nM10 | 45 Nm", caption="Table 4: Bolt torques", page=2, index=17,
                image="images/t.jpg", image_path="images/t.jpg"))
    b.add(Block("image", image="images/f.jpg", image_path="images/f.jpg", page=2))
    b.add(Block("caption", "Figure 2: The bolt pattern", page=2))
    return b.finish()


def test_every_method_shows_the_table_caption_and_rows(tmp_path):
    retrieved = evidence(table_doc(), tmp_path)
    (unit,) = [h.unit for h in retrieved.text if h.unit.kind == "table"]
    assert unit.content == "Table 4: Bolt torques\nBolt | Torque\nM10 | 45 Nm" and unit.label == "Table 4"
    Image.new("RGB", (200, 80), "white").save(tmp_path / "images" / "t.jpg")
    for method in (HamAssembler(), LlmBasedMethod(), RuleBasedMethod(), MllmBasedMethod(corpus_root=tmp_path)):
        text = method(Q, retrieved).text
        assert "Table 4: Bolt torques" in text and "M10 | 45 Nm" in text, method.name


def without_table_twins(retrieved):
    return Retrieved(retrieved.text, [h for h in retrieved.images if not is_table_image(h.unit)])


def test_mllm_based_shows_the_table_image_without_a_citable_tag(tmp_path):
    # the image side did not bring the table: its image comes with its text, not citable
    retrieved = without_table_twins(evidence(table_doc(), tmp_path))
    Image.new("RGB", (200, 80), "white").save(tmp_path / "images" / "t.jpg")
    prompt = MllmBasedMethod(max_images=3, corpus_root=tmp_path)(Q, retrieved)
    assert [i.path.name for i in prompt.images] == ["f.jpg", "t.jpg"]
    assert prompt.slots == {1: ("spec:3", "images/f.jpg")}  # only the figure can be cited
    assert "(the table as printed:) [[image:2]]" in prompt.text
    assert prompt.extra["table_images"] == ["spec:2"]
    assert [k for k, _ in prompt.parts()].count("image") == 2
    # no room left: the table image is left out, the table text stays
    prompt = MllmBasedMethod(max_images=1, corpus_root=tmp_path)(Q, retrieved)
    assert [i.path.name for i in prompt.images] == ["f.jpg"] and "M10 | 45 Nm" in prompt.text


def test_a_table_the_image_side_retrieved_is_one_citable_image_not_two(tmp_path):
    retrieved = evidence(table_doc(), tmp_path)
    (twin,) = [h.unit for h in retrieved.images if is_table_image(h.unit)]
    assert twin.unit_id == "spec:2#image" and twin.kind == "table" and twin.content == "Table 4: Bolt torques"
    prompt = MllmBasedMethod(max_images=3, corpus_root=tmp_path)(Q, retrieved)
    assert [i.path.name for i in prompt.images] == ["t.jpg", "f.jpg"]
    assert prompt.slots == {1: ("spec:2#image", "images/t.jpg"), 2: ("spec:3", "images/f.jpg")}
    assert "the table as printed" not in prompt.text and "table_images" not in prompt.extra
    assert "M10 | 45 Nm" in prompt.text, "the table's rows stay in the text"
