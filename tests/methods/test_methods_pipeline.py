"""Every method through the demo pipeline, and an OpenAI-compatible backbone end to end against the
loopback server, with cost in metrics.json (slow: builds the demo index)."""
import json
from pathlib import Path

import pytest

from ham.generate.cost import question_cents
from ham.conf import DATA_DIR, compose
from ham.run.job import run
from tests.support.chat_server import ChatServer

pytestmark = pytest.mark.slow
N = 3


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("methods")


def cfg(tmp, *overrides):
    return compose([
        f"paths.output_root={tmp / 'out'}", f"paths.cache_root={tmp / 'cache'}", f"limit={N}",
        "progress=false", *overrides])


def rows(out):
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("method,template", [("ham", "ham_v2"), ("llm_based", "llm_based_v1"),
                                             ("mllm_based", "mllm_based_v1"), ("rule_based", "rule_based_v1")])
def test_each_method_runs_on_the_demo(tmp, method, template):
    out = run(cfg(tmp, f"method={method}", "name=m"))
    predictions = rows(out)
    assert len(predictions) == N
    for r in predictions:
        assert r["prompt"]["method"] == method and r["prompt"]["template"] == template
        assert r["failure"] is None and r["answer"]
        length = r["prompt_length"]   # every method records the prompt length it used
        assert length["retrieved_chars"] == len("\n".join(t["text"] for t in r["retrieved_text"]))
        assert length["prompt_chars"] == len(r["prompt"]["text"]) and length["prompt_tokens"] is None
    if method == "mllm_based":
        kept = predictions[0]["prompt"]["image_filter"]["kept"]
        assert len(kept) == 5 and [i["unit_id"] for i in predictions[0]["prompt"]["images"]] == kept
        assert all((DATA_DIR / "demo" / "corpus").resolve() in Path(i["path"]).parents
                   for i in predictions[0]["prompt"]["images"])
    if method == "rule_based":
        assert all("postprocessed_answer" in r or "<img" not in (r["raw_answer"] or "") for r in predictions)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["cost"]["cents_total"] is None   # extractive: unpriced
    assert metrics["prompt_length"]["retrieved_chars"] > 0 and metrics["prompt_length"]["questions"] == N


def test_openai_backbone_end_to_end_with_cost(tmp, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with ChatServer(responder=lambda body: "Open the Reconcile window.\n<img1>\nThen click Finish.") as server:
        out = run(cfg(tmp, "generator=gpt4o", f"generator.client.base_url={server.base_url}", "name=api"))
        assert len(server.requests) == N and server.requests[0]["model"] == "gpt-4o"
        again = run(cfg(tmp, "generator=gpt4o", f"generator.client.base_url={server.base_url}", "name=api",
                        "metrics.img_cbs_window=10"))
        assert len(server.requests) == N, "a re-scored run reads its generations from the cache"
    predictions = rows(out)
    assert all(r["failure"] is None and r["answer"][1]["type"] == "image" for r in predictions)
    cost = json.loads((out / "metrics.json").read_text())["cost"]
    expected = sum(question_cents(r["generation"]["usage"], {"prompt": 2.5, "completion": 10.0})
                   for r in predictions) / N
    assert cost["pricing"] == "gpt4o" and cost["cents_per_question"] == pytest.approx(expected, abs=1e-4)
    assert cost["prompt_tokens"]["total"] > 0
    assert json.loads((again / "metrics.json").read_text())["cost"]["cached_generations"] == N
