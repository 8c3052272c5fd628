"""A demo run judged through the config (judge=openai against a loopback server): judged metrics
in metrics.json with the judge recorded, a second run served from the judgment cache, and the
run's plot and report written. Marked slow: it builds the demo index."""
import json

import pytest
from ham.conf import compose

from ham.report import write_run_artifacts
from ham.run.job import run
from tests.support.chat_server import ChatServer

pytestmark = pytest.mark.slow
QUALITY = "<correctness>4</correctness><completeness>3</completeness><grounding>5</grounding>" \
          "<coherence>4</coherence><overall>4</overall>"


def _respond(body):
    return "Covered. <sufficient>1</sufficient>" if "[Retrieved passages]" in body["messages"][1]["content"] \
        else "Good. " + QUALITY


def _cfg(tmp_path, server, name):
    return compose([
            f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}", "limit=2",
            "progress=false", f"name={name}", "judge=openai", "judge.client.model=test-judge",
            f"judge.client.base_url={server.base_url}", "judge.client.max_retries=0"], return_hydra_config=False)


def test_judged_run_records_the_judge_and_reuses_its_cache(tmp_path):
    with ChatServer(responder=_respond) as server:
        out = run(_cfg(tmp_path, server, "judged"))
        first_requests = len(server.requests)
        again = run(_cfg(tmp_path, server, "judged_again"))
    assert first_requests == 4, "TCR@15 and Qual. for each of 2 questions"
    assert len(server.requests) == first_requests, "the second run is answered from the cache"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["metrics"]["tcr15"] == {**metrics["metrics"]["tcr15"], "mean": 1.0, "n": 2, "computed": True}
    assert metrics["metrics"]["overall_quality"]["mean"] == 4.0
    assert metrics["judge"]["model"] == "openai:test-judge" and metrics["judge"]["failures"] == {}
    prompts = metrics["judge"]["prompts"]
    assert {k: prompts[k] for k in ("tcr15", "overall_quality")} == {"tcr15": "tcr15_v1",
                                                                      "overall_quality": "overall_quality_v1"}
    again_metrics = json.loads((again / "metrics.json").read_text())
    assert again_metrics["judge"]["cached"] == {"tcr15": 2, "overall_quality": 2}
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert rows[0]["metrics"]["judge"]["overall_quality"]["scores"]["completeness"] == 3
    artifacts = write_run_artifacts(out)
    assert artifacts["plot"].stat().st_size > 0 and artifacts["plot_pdf"].exists()
    html = artifacts["report"].read_text()
    assert "openai:test-judge" in html and "overall_quality_v1" in html
