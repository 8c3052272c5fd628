"""Each GraphRAG system end to end on the demo topology questions (slow; each needs its venv,
``make systems-venv SYSTEM=...``, and skips saying so without it): its own code indexes the demo
corpus and answers against the loopback chat server replying in its own extraction formats
(tests.support.graph_replies), embeddings from ham's MiniLM on the loopback endpoint; then the same
command again resumes: the index comes from the cache and no question is asked again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ham.conf import compose
from ham.run.job import run
from tests.support.chat_server import ChatServer
from tests.support.graph_replies import GraphReplies

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = ("lightrag", "hipporag", "raganything")


@pytest.mark.parametrize("system", RUNNABLE)
def test_a_system_indexes_answers_and_resumes(system, tmp_path):
    if not (ROOT / f".venv-{system}" / "bin" / "python").exists():
        pytest.skip(f".venv-{system} is not built (make systems-venv SYSTEM={system})")
    replies = GraphReplies()
    with ChatServer(responder=replies) as chat:
        overrides = ["experiment=demo_topology", f"system={system}", "system.index_scope=corpus", "generator=openai",
                     "generator.client.model=scripted", f"generator.client.base_url={chat.base_url}", "limit=8",
                     f"paths.output_root={tmp_path}", "progress=false"]
        out = run(compose(overrides, return_hydra_config=False))
        asked = len(chat.requests)
        metrics = json.loads((out / "metrics.json").read_text())
        info = metrics["index"]["system"]
        assert info["index"]["indexed"] == 1 and info["index"]["nodes"] > 0 and info["index"]["llm_calls"] > 0
        rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(rows) == 8
        assert sum(1 for r in rows if r["failure"] is None) >= 6, [r["failure"] for r in rows]
        mapping = metrics["index"]["context_mapping"]
        assert mapping["by_kind"]["chunk"]["mapped"] > 0
        recall = metrics["metrics"]["gold_unit_recall"]
        assert recall["n"] > 0 and recall["mean"] > 0
        assert info["query"]["llm_calls"] >= 8
        # the same command again: finished, nothing rebuilt or asked
        run(compose(overrides, return_hydra_config=False))
        assert len(chat.requests) == asked
        # answering again (rerun) reuses the cached index: only query calls go out
        run(compose(overrides + ["rerun=true"], return_hydra_config=False))
        again = json.loads((out / "metrics.json").read_text())["index"]["system"]["index"]
        assert again["cached"] == 1
