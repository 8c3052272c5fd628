"""Every metric set with every generator family (extractive, a local hf model, an openai server)
and an openai judge on the loopback server, through the real runner: judged metrics are awaited on
one execution path (never ``asyncio.run`` inside the running loop, the crash
``generator=openai judge=openai experiment=demo_topology`` hit), concurrently, and every judged
metric gets a value."""
from __future__ import annotations

import json

import pytest

from ham.conf import compose
from ham.run.job import run
from tests.support.chat_server import ChatServer
from tests.support.tiny_models import tiny_causal_lm
from tests.support.topology_judge import ScriptedJudge

METRIC_SETS = ["default", "mramg", "mmdocrag", "topology"]   # roberta_large needs roberta-large's weights
GENERATORS = ["extractive", "hf", "openai"]


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    root = tmp_path_factory.mktemp("judged-runs")
    return {"cache": root / "cache", "lm": tiny_causal_lm(root / "lm", emits_text=True), "root": root}


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("metrics", METRIC_SETS)
def test_every_metric_set_with_every_generator_family_and_a_served_judge(shared, generator, metrics, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    judge = ScriptedJudge()
    with ChatServer(responder=judge, latency=0.02) as judge_server, \
            ChatServer(responder=lambda body: "Open the account register first. <img1>") as gen_server:
        overrides = [f"metrics={metrics}", "limit=2", "progress=false", "judge=openai", "retrieval.k_t=3",
                     "retrieval.k_v=2",
                     f"judge.client.base_url={judge_server.base_url}", "judge.client.model=judge",
                     f"paths.output_root={shared['root'] / f'{metrics}-{generator}'}",
                     f"paths.cache_root={shared['cache']}", f"generator={generator}"]
        if generator == "openai":
            overrides += [f"generator.client.base_url={gen_server.base_url}", "generator.client.model=m"]
        if generator == "hf":
            overrides += [f"generator.model={shared['lm']}", "generator.max_new_tokens=8", "generator.temperature=0"]
        out = run(compose(overrides))
    summary = json.loads((out / "metrics.json").read_text())
    assert summary["n_questions"] == 2
    judged = [name for name, m in summary["metrics"].items() if m.get("computed") and "failure_reasons" in m]
    for name in judged:
        entry = summary["metrics"][name]
        assert entry["n_failed"] == 0, (name, entry)
    if judged:
        assert sum(judge.seen.values()) > 0 and judge_server.max_in_flight > 1, "judge requests were concurrent"
    if metrics == "topology":
        assert summary["metrics"]["context_precision"]["n"] == 2 and summary["metrics"]["faithfulness"]["n"] >= 1
