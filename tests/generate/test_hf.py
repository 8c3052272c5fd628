"""Local transformers backbones on tiny randomly initialised models built in the test."""
import pytest

from ham.generate.hf import HFGenerator
from ham.generate.hf_vision import HFVisionGenerator
from tests.generate.conftest import image_prompt, text_prompt

PROMPTS = ["Open the reconcile window.", "Check the oil level every month and then install the pump on a base.",
           "Level?", "Install the pump on a level concrete base with anchor bolts, then check it twice.",
           "Enter the closing balance."]


def test_batched_left_padded_generation_matches_one_at_a_time(causal_lm_folder):
    batched = HFGenerator(str(causal_lm_folder), max_new_tokens=6, batch_size=3, temperature=0.0)
    single = HFGenerator(str(causal_lm_folder), max_new_tokens=6, batch_size=1, temperature=0.0)
    prompts = [text_prompt(p) for p in PROMPTS]
    together = batched.generate_batch(prompts)
    alone = [single.generate(p) for p in prompts]
    assert [g.text for g in together] == [g.text for g in alone]
    assert [g.usage for g in together] == [g.usage for g in alone]
    lengths = [g.usage["prompt_tokens"] for g in together]
    assert len(set(lengths)) > 1, "prompts of different lengths, so the batch needed padding"
    assert all(0 < g.usage["completion_tokens"] <= 6 and g.finish_reason in ("stop", "length") for g in together)
    assert batched.tokenizer.padding_side == "left"
    assert batched.model_id.startswith("hf:") and batched.settings()["dtype"] == "float32"


def test_over_length_prompts_fail_without_stopping_the_batch(causal_lm_folder):
    gen = HFGenerator(str(causal_lm_folder), max_new_tokens=4, max_prompt_tokens=20, batch_size=4,
                      truncation_is_failure=False)
    out = gen.generate_batch([text_prompt("short"), text_prompt("word " * 40), text_prompt("also short")])
    assert out[1].text is None and out[1].failure_reason == "over_length" and out[1].usage["prompt_tokens"] > 20
    assert out[0].error is None and out[2].error is None and out[0].text is not None


def test_truncation_is_a_failure_only_when_asked(causal_lm_folder):
    prompt = text_prompt("Open the reconcile window.")
    lenient = HFGenerator(str(causal_lm_folder), max_new_tokens=1, truncation_is_failure=False).generate(prompt)
    strict = HFGenerator(str(causal_lm_folder), max_new_tokens=1, truncation_is_failure=True).generate(prompt)
    if lenient.finish_reason == "length":
        assert lenient.error is None and strict.failure_reason == "over_length"
    else:  # the random model happened to stop at once
        assert strict.error is None


def test_text_model_refuses_image_prompts(causal_lm_folder, image_files):
    with pytest.raises(ValueError, match="text-only"):
        HFGenerator(str(causal_lm_folder)).generate(image_prompt("What is shown?", image_files[:1]))


def test_missing_model_names_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="never downloads"):
        HFGenerator("no-such-org/no-such-model")


def test_vision_model_sees_each_image_and_batches(llava_folder, image_files):
    batched = HFVisionGenerator(str(llava_folder), max_new_tokens=5, batch_size=3, temperature=0.0,
                                truncation_is_failure=False)
    single = HFVisionGenerator(str(llava_folder), max_new_tokens=5, batch_size=1, temperature=0.0,
                               truncation_is_failure=False)
    prompts = [image_prompt("What is shown?", image_files[:1]), image_prompt("Compare them.", image_files),
               text_prompt("No image here.")]
    together = batched.generate_batch(prompts)
    assert [g.text for g in together] == [single.generate(p).text for p in prompts]
    per_image = 4   # (16 / 8) ** 2 patches
    assert together[1].usage["prompt_tokens"] - together[0].usage["prompt_tokens"] >= 2 * per_image
    rendered = batched._render(prompts[1])
    assert rendered.count("<image>") == 3 and rendered.index("<image>") > rendered.index("Compare")


def test_unreadable_image_fails_only_its_prompt(llava_folder, image_files):
    broken = image_files[0].with_name("broken.png")
    broken.write_bytes(b"not a png")
    gen = HFVisionGenerator(str(llava_folder), max_new_tokens=3, batch_size=4, truncation_is_failure=False)
    out = gen.generate_batch([image_prompt("Bad", [broken]), image_prompt("Good", image_files[1:2])])
    assert out[0].failure_reason == "bad_input" and "broken.png" in out[0].error
    assert out[1].error is None and out[1].text is not None


def test_a_local_model_counts_tokens_with_its_own_tokenizer(causal_lm_folder):
    gen = HFGenerator(str(causal_lm_folder), max_new_tokens=1)
    text = "Open the Plot dialog from the File menu."
    assert gen.count_tokens(text) == len(gen.tokenizer(text, add_special_tokens=False)["input_ids"]) > 0
    assert gen.count_tokens(text + " " + text) > gen.count_tokens(text)
