"""The on-disk generation cache and the cost summary."""
import pytest

from ham.generate.base import Generation, Generator
from ham.generate.cache import CachedGenerator, with_generation_cache
from ham.generate.cost import cost_summary, question_cents
from ham.generate.extractive import ExtractiveGenerator
from tests.generate.conftest import image_prompt, text_prompt

PRICES = {"gpt4o": {"prompt": 2.5, "completion": 10.0}, "cheap": {"prompt": 0.1, "completion": 0.2}}


class Counting(Generator):
    """Replies with the prompt reversed, or fails the way it is told; counts calls."""

    model_id = "counting"

    def __init__(self, error=None, temperature=0.0):
        self.calls, self.error, self.temperature = 0, error, temperature

    def settings(self):
        return {"temperature": self.temperature}

    def generate(self, prompt):
        self.calls += 1
        if self.error:
            return Generation(None, self.model_id, error=self.error)
        return Generation(prompt.text[::-1], self.model_id, {"prompt_tokens": 3, "completion_tokens": 2})


def test_hits_misses_and_what_is_kept(tmp_path):
    inner = Counting()
    cached = CachedGenerator(inner, tmp_path)
    first = cached.generate_batch([text_prompt("abc"), text_prompt("xyz")])
    again = cached.generate_batch([text_prompt("xyz"), text_prompt("new")])
    assert inner.calls == 3 and again[0].cached and again[0].text == "zyx" and not again[1].cached
    assert again[0].usage == first[1].usage and not first[0].cached
    assert CachedGenerator(Counting(temperature=0.5), tmp_path).generate(text_prompt("abc")).cached is False


@pytest.mark.parametrize("error", ["api_error: HTTP 500 after 6 attempts", "budget_exhausted: used up",
                                   "bad_input: x.png", "timeout: no complete reply within 5 s",
                                   "over_length: prompt has 9000 tokens"])
def test_the_cache_never_keeps_a_failure(tmp_path, error):
    inner = Counting(error=error)
    CachedGenerator(inner, tmp_path).generate(text_prompt("q"))
    again = CachedGenerator(inner, tmp_path).generate(text_prompt("q"))
    assert inner.calls == 2 and not again.cached and not list(tmp_path.rglob("*.json"))


def test_a_failure_left_in_the_cache_by_an_older_version_is_never_returned(tmp_path):
    cached = CachedGenerator(Counting(), tmp_path)
    key = cached.key(text_prompt("q"))
    cached.store.put(key, {"model": "counting", "generation": Generation(None, "counting", error="over_length: x").to_dict()})
    out = cached.generate(text_prompt("q"))
    assert out.text == "q" and not out.cached and cached.inner.calls == 1


def test_key_follows_the_image_bytes(tmp_path, image_files):
    inner = Counting()
    cached = CachedGenerator(inner, tmp_path / "cache")
    cached.generate(image_prompt("what?", image_files[:1]))
    cached.generate(image_prompt("what?", image_files[:1]))
    image_files[0].write_bytes(image_files[1].read_bytes())
    cached.generate(image_prompt("what?", image_files[:1]))
    assert inner.calls == 2
    assert list((tmp_path / "cache" / "generations").rglob("*.json")), "JSON entries, never pickle"


def test_model_free_generators_are_not_wrapped(tmp_path):
    extractive = ExtractiveGenerator()
    assert with_generation_cache(extractive, tmp_path) is extractive
    assert isinstance(with_generation_cache(Counting(), tmp_path), CachedGenerator)


def test_cents_are_tokens_times_price():
    assert question_cents({"prompt_tokens": 1000, "completion_tokens": 500}, PRICES["gpt4o"]) == pytest.approx(0.75)
    assert question_cents({}, PRICES["gpt4o"]) == 0


def test_cost_summary_over_a_run():
    rows = [{"generation": {"usage": {"prompt_tokens": 1000, "completion_tokens": 500}, "cached": True}},
            {"generation": {"usage": {"prompt_tokens": 3000, "completion_tokens": 100}}},
            {"generation": {"usage": {}}, "failure": {"reason": "api_error"}}]
    cost = cost_summary(rows, {"pricing": None, "prices": PRICES}, "gpt4o")
    # (4000 * 2.5 + 600 * 10) / 1e6 USD = 0.016 USD = 1.6 cents over 3 questions
    assert cost["cents_total"] == pytest.approx(1.6) and cost["cents_per_question"] == pytest.approx(1.6 / 3, abs=1e-4)
    assert cost["prompt_tokens"] == {"total": 4000, "mean": pytest.approx(4000 / 3, abs=1e-3)}
    assert cost["questions_with_usage"] == 2 and cost["cached_generations"] == 1 and cost["pricing"] == "gpt4o"
    cheap = cost_summary(rows, {"pricing": "cheap", "prices": PRICES}, "gpt4o")
    assert cheap["pricing"] == "cheap" and cheap["cents_total"] == pytest.approx((4000 * 0.1 + 600 * 0.2) / 1e4)
    unpriced = cost_summary(rows, {"pricing": None, "prices": PRICES}, None)
    assert unpriced["cents_total"] is None and unpriced["completion_tokens"]["total"] == 600


def test_unknown_pricing_is_an_error():
    with pytest.raises(ValueError, match="no row in the price table"):
        cost_summary([], {"pricing": "gpt9", "prices": PRICES}, None)


def test_a_reply_without_usage_makes_the_cost_unknown_not_free():
    replied = {"raw_answer": "an answer", "generation": {"usage": {}, "attempts": 1, "finish_reason": "stop"}}
    priced = {"raw_answer": "x", "generation": {"usage": {"prompt_tokens": 10, "completion_tokens": 5},
                                               "attempts": 1, "finish_reason": "stop"}}
    never = {"raw_answer": None, "generation": {"usage": {}, "attempts": 3}, "failure": {"reason": "api_error"}}
    model_free = {"raw_answer": "extractive", "generation": {"usage": {}, "attempts": 0}}
    cost = cost_summary([replied, priced, never], {"pricing": "gpt4o", "prices": PRICES}, None)
    assert cost["cents_total"] is None and cost["questions_without_usage"] == 1
    assert cost["cents_unknown"].startswith("1 of 3 replies came without token usage")
    known = cost_summary([priced, never, model_free], {"pricing": "gpt4o", "prices": PRICES}, None)
    assert known["cents_total"] == pytest.approx((10 * 2.5 + 5 * 10) / 1e4) and known["questions_without_usage"] == 0
