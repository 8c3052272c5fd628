"""Each method's prompt on hand-made evidence (the small pump manual of tests/conftest.py)."""
import base64
import hashlib
import json
import re

import pytest

from ham.enrich.descriptions import DescriptionFile
from ham.methods.base import Method, Prompt, load_template
from ham.methods.ham import HamAssembler
from ham.methods.llm_based import LlmBasedMethod
from ham.methods.mllm_based import MllmBasedMethod
from ham.methods.rule_based import RuleBasedMethod
from tests.support.evidence import evidence

Q = "How do I install the pump and keep it running?"


@pytest.fixture
def corpus(tmp_path, manual_doc):
    return tmp_path / "corpus", evidence(manual_doc, tmp_path / "corpus")


def _section(text: str, name: str) -> str:
    return re.split(r"\n\[(?:User Query|Retrieved Text|Retrieved Image|Answer)\]", text.rsplit(f"[{name}]", 1)[1])[0]


def test_ham_prompt_carries_structure_context_and_descriptions(tmp_path, corpus):
    root, retrieved = corpus
    desc = tmp_path / "desc.jsonl"
    desc.write_text(json.dumps({"image": "img/oil.png", "description": "A round sight glass, half full."}) + "\n")
    prompt = HamAssembler(descriptions=DescriptionFile(desc))(Q, retrieved)
    text_part, image_part = _section(prompt.text, "Retrieved Text"), _section(prompt.text, "Retrieved Image")
    assert "[T4] Pump Manual > 1. Installation > 1.1. Wiring > Step 1  (source: manual.md; score 0.600)" in text_part
    assert "Followed by: Figure 1. The concrete base with anchor bolts." in text_part
    assert "<img1> img/base.png  (score 0.900)" in image_part
    assert "Position: manual.md, Figure 1, item 2; path: Pump Manual > 1. Installation" in image_part
    assert "Relation: illustrates step; belongs after text block T4" in image_part
    assert "Description: A round sight glass, half full." in image_part
    assert prompt.slots == {1: ("manual:3", "img/base.png"), 2: ("manual:9", "img/mains.png"),
                            3: ("manual:14", "img/oil.png")}
    record = prompt.to_dict()
    assert record["template"] == "ham_v2" and record["method"] == "ham" and len(record["template_sha"]) == 12
    assert prompt.messages() == [{"role": "user", "content": prompt.text}] and not prompt.images


def test_ham_prompt_shows_each_occurrences_own_description_not_the_files_first(corpus):
    # a VLM describes an image in its context: the same file in two places has two descriptions,
    # and the prompt must show the one the index embedded for this occurrence
    from ham.enrich.descriptions import Descriptions

    _, retrieved = corpus
    oil = next(h.unit for h in retrieved.images if h.unit.image == "img/oil.png")
    described = Descriptions({oil.unit_id: "Here: the oil sight glass of the maintenance check."}, "vlm",
                             by_path={"img/oil.png": "Elsewhere: the same file in the installation chapter."})
    image_part = _section(HamAssembler(descriptions=described)(Q, retrieved).text, "Retrieved Image")
    assert "Description: Here: the oil sight glass of the maintenance check." in image_part
    assert "Elsewhere" not in image_part


def test_llm_based_is_flat_with_textual_image_proxies(corpus):
    _, retrieved = corpus
    prompt = LlmBasedMethod()(Q, retrieved)
    text_part, image_part = _section(prompt.text, "Retrieved Text"), _section(prompt.text, "Retrieved Image")
    assert "[T1] Install the pump on a level concrete base." in text_part
    assert "Pump Manual >" not in prompt.text and "score" not in text_part, "no hierarchy, no structure"
    assert "<img2>\nCaption: mains switch\nText before: Switch off the mains supply." in image_part
    assert "<img1>\nCaption: Figure 1. The concrete base with anchor bolts.\nText before: Install the pump" in image_part
    assert prompt.slots[3] == ("manual:14", "img/oil.png") and prompt.template == "llm_based_v1"


def test_mllm_based_attaches_image_files_after_their_tags(corpus):
    root, retrieved = corpus
    prompt = MllmBasedMethod(max_images=2, corpus_root=root)(Q, retrieved)
    assert [i.path for i in prompt.images] == [root / "img/base.png", root / "img/mains.png"]
    assert prompt.slots == {1: ("manual:3", "img/base.png"), 2: ("manual:9", "img/mains.png")}
    assert [h.unit.unit_id for h in prompt.retrieved.images] == ["manual:3", "manual:9"], "IR sees the kept images"
    assert prompt.extra["image_filter"]["method"] == "retrieval_rank"
    content = prompt.messages()[0]["content"]
    kinds = [p["type"] for p in content]
    assert kinds.count("image_url") == 2
    first_image = kinds.index("image_url")
    assert content[first_image - 1]["text"].endswith("<img1> ")
    url = content[first_image]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == (root / "img/base.png").read_bytes()


def test_mllm_based_leaves_out_unreadable_images_and_says_which(corpus):
    root, retrieved = corpus
    (root / "img/base.png").write_bytes(b"truncated")
    prompt = MllmBasedMethod(max_images=5, corpus_root=root)(Q, retrieved)
    assert [i.slot for i in prompt.images] == [1, 2] and prompt.slots[1][0] == "manual:9"
    assert "img/base.png" in prompt.extra["image_filter"]["unreadable"]["manual:3"]


def test_mllm_based_without_corpus_root_is_a_clear_error(corpus):
    _, retrieved = corpus
    with pytest.raises(ValueError, match="corpus root"):
        MllmBasedMethod()(Q, retrieved)


def test_prompt_digest_follows_image_bytes(corpus):
    root, retrieved = corpus
    method = MllmBasedMethod(corpus_root=root)
    before = method(Q, retrieved).digest()
    assert method(Q, retrieved).digest() == before
    (root / "img/oil.png").write_bytes((root / "img/base.png").read_bytes())
    assert method(Q, retrieved).digest() != before


def test_a_transparent_image_is_shown_on_white_under_a_digest_of_its_own(corpus):
    from PIL import Image

    root, retrieved = corpus
    Image.new("RGBA", (20, 20), (0, 0, 0, 0)).save(root / "img/oil.png")
    image = next(i for i in MllmBasedMethod(corpus_root=root)(Q, retrieved).images if i.path.name == "oil.png")
    assert image.load().getpixel((0, 0)) == (255, 255, 255)
    # generations cached from the image turned black (keyed by its bytes alone) are not reused
    assert image.digest() != hashlib.sha256(image.path.read_bytes()).hexdigest()[:16]


def test_rule_based_prompt_is_text_only(corpus):
    _, retrieved = corpus
    prompt = RuleBasedMethod()(Q, retrieved)
    assert "[Retrieved Image]" not in prompt.text and "<img" not in prompt.text
    assert "[T6] Check the oil level every month." in prompt.text
    assert len(prompt.slots) == 3, "the candidates for post-hoc insertion"


def test_unknown_template_names_the_file():
    with pytest.raises(FileNotFoundError, match="ham/methods/prompts/ham_v9.txt"):
        load_template("ham_v9")


def test_every_template_renders_with_its_method(corpus):
    root, retrieved = corpus
    for method in (HamAssembler(), LlmBasedMethod(), MllmBasedMethod(corpus_root=root), RuleBasedMethod()):
        prompt = method(Q, retrieved)
        assert isinstance(prompt, Prompt) and Q in prompt.text and "{" not in prompt.text.replace("{}", "")
        assert isinstance(method, Method) and prompt.method == method.name
