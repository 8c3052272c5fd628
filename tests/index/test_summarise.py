"""Section summaries: the lead-sentences fallback, the OpenAI-compatible backend against a real
loopback chat server, a tiny local transformers model, the per-call cache and failure records."""
import re

import pytest

from ham.backends.chat import ChatClient

from ham.cache import KeyedStore
from ham.enrich.summaries import (ChatSummariser, HFSummariser, LeadSummariser, lead_sentences, section_inputs,
                           summarise_sections)
from ham.units import build_units
from tests.support.tiny_models import tiny_causal_lm
from tests.support.chat_server import ChatServer


def _section_of(body: dict) -> str:
    return re.search(r"Section: (.*)", body["messages"][-1]["content"]).group(1)


def test_lead_sentences():
    text = "Open the menu. Then click OK!  Finally check the totals? Extra."
    assert lead_sentences(text, 2, 50) == "Open the menu. Then click OK!"
    assert lead_sentences(text, 3, 4) == "Open the menu. Then …"
    assert lead_sentences("Section 4.7. Change the mode.", 1, 50) == "Section 4.7."


def test_units_know_their_section_and_subsection(manual_doc):
    by_content = {u.content: u for u in build_units(manual_doc)}
    assert by_content["Switch off the mains supply."].section_ids() == ("manual:1", "manual:5")   # a step
    assert by_content["Install the pump on a level concrete base."].section_ids() == ("manual:1", None)
    inputs = {s.node_id: s for s in section_inputs([manual_doc], {"manual:1", "manual:5"})}
    assert inputs["manual:5"].path == ["1. Installation", "1.1. Wiring"]
    assert inputs["manual:5"].text.split("\n") == ["Connect the motor leads to the terminal block.",
                                                   "Switch off the mains supply.", "Open the terminal cover."]
    assert "Figure 1." not in inputs["manual:1"].text   # figure captions describe images, not the section


def test_chat_summaries_are_cached_and_reused(manual_doc, tmp_path):
    units = build_units(manual_doc)
    store = KeyedStore(tmp_path, "summaries")
    with ChatServer(responder=lambda body: f"About {_section_of(body)}.") as server:
        backend = ChatSummariser(ChatClient("summ-model", base_url=server.base_url, max_retries=0))
        first = summarise_sections([manual_doc], units, backend, store)
        n_calls = len(server.requests)
        again = summarise_sections([manual_doc], units, backend, store)
    assert first.by_node == {"manual:1": "About 1. Installation.", "manual:5": "About 1. Installation > 1.1. Wiring.",
                             "manual:12": "About 2. Maintenance."}
    assert n_calls == 3 and len(server.requests) == 3, "the second run pays for nothing"
    assert (first.stats.computed, again.stats.cached, again.stats.computed) == (3, 3, 0)
    assert server.requests[0]["model"] == "summ-model"
    assert "Connect the motor leads" in next(r for r in server.requests if "Wiring" in _section_of(r))["messages"][0]["content"]
    step = next(u for u in units if u.content == "Open the terminal cover.")
    assert again.of(step) == ("About 1. Installation.", "About 1. Installation > 1.1. Wiring.")


def test_a_different_model_is_a_different_cache_entry(manual_doc, tmp_path):
    units = build_units(manual_doc)
    store = KeyedStore(tmp_path, "summaries")
    with ChatServer(responder=lambda body: body["model"]) as server:
        a = summarise_sections([manual_doc], units, ChatSummariser(ChatClient("a", base_url=server.base_url)), store)
        b = summarise_sections([manual_doc], units, ChatSummariser(ChatClient("b", base_url=server.base_url)), store)
    assert set(a.by_node.values()) == {"a"} and set(b.by_node.values()) == {"b"} and len(server.requests) == 6


def test_failed_calls_are_recorded_fall_back_to_lead_and_are_retried_later(manual_doc, tmp_path):
    units = build_units(manual_doc)
    store = KeyedStore(tmp_path, "summaries")
    with ChatServer(responder=lambda body: "A summary.") as server:
        server.script(500, "malformed")   # the first two calls fail (no retries configured)
        backend = ChatSummariser(ChatClient("m", base_url=server.base_url, max_retries=0, concurrency=1))
        out = summarise_sections([manual_doc], units, backend, store)
        assert out.stats.failed == 2 and out.stats.computed == 1
        failed = {f["id"] for f in out.stats.failures}
        for f in out.stats.failures:   # recorded per unit: every unit under the section
            assert f["units"] and all(f["id"] in next(u for u in units if u.unit_id == i).section_ids()
                                      for i in f["units"])
        assert {f["error"].split(":")[0] for f in out.stats.failures} == {"api_error", "malformed_response"}
        lead = LeadSummariser()
        for s in section_inputs([manual_doc], failed):
            assert out.by_node[s.node_id] == lead.run([s])[0].text   # the named fallback
        later = summarise_sections([manual_doc], units, backend, store)
    assert later.stats.cached == 1 and later.stats.computed == 2 and later.stats.failed == 0


@pytest.fixture(scope="module")
def llama_folder(tmp_path_factory):
    return tiny_causal_lm(tmp_path_factory.mktemp("llama"), emits_text=True)


def test_local_transformers_summariser_batches_like_single_calls(manual_doc, llama_folder, tmp_path):
    units = build_units(manual_doc)
    backend = HFSummariser(str(llama_folder), max_new_tokens=6, batch_size=3, device="cpu")
    out = summarise_sections([manual_doc], units, backend, KeyedStore(tmp_path, "summaries"))
    assert out.stats.computed == 3 and all(out.by_node.values())
    inputs = section_inputs([manual_doc], set(out.by_node))
    singles = {s.node_id: backend.run([s])[0].text for s in inputs}   # batch of one: no padding
    assert singles == out.by_node, "left padding must not change greedy output"
    assert all(len(t.split()) <= 6 for t in singles.values()) and backend.model_id == backend.generator.model_id
    cached = summarise_sections([manual_doc], units, backend, KeyedStore(tmp_path, "summaries"))
    assert cached.stats.cached == 3 and cached.by_node == out.by_node
    # summaries of another length are not served from these (max_new_tokens enters the key)
    longer = HFSummariser(str(llama_folder), max_new_tokens=9, batch_size=3, device="cpu")
    assert summarise_sections([manual_doc], units, longer, KeyedStore(tmp_path, "summaries")).stats.cached == 0


def test_local_model_that_is_not_there_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="never downloads"):
        HFSummariser("no-such-org/no-such-model")
