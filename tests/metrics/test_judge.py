"""The LLM judge against a real loopback chat-completions server: scores, strict failures,
retries, the on-disk cache, and what the run summary says with and without a judge."""
import json

import pytest

from ham.backends.chat import ChatClient
from ham.metrics.judge import Judge
from tests.support.chat_server import ChatServer

GOOD = "Correct and complete.\n<correctness>4</correctness><completeness>3</completeness>" \
       "<grounding>5</grounding><coherence>2</coherence><overall>4</overall>"
FIELDS = {"question": "How do I reconcile?", "reference": "Open the window.", "evidence": "[1] text",
          "answer": "Open it. [IMAGE: a.png | the window]"}


def _judge(server, tmp_path, model="judge-m", **client):
    client = ChatClient(model, base_url=server.base_url, temperature=0.0, max_tokens=1024,
                        **{"max_retries": 2, **client})
    return Judge(client, {"overall_quality": "overall_quality_v1", "tcr15": "tcr15_v1"}, cache_root=tmp_path)


def test_score_model_and_prompt_version_are_recorded(tmp_path):
    with ChatServer(responder=lambda body: GOOD) as server:
        j = _judge(server, tmp_path).judge("overall_quality", FIELDS)
    assert j.value == 4.0 and j.scores["coherence"] == 2 and j.error is None and not j.cached
    assert j.model == "openai:judge-m" and j.prompt == "overall_quality_v1"
    request = server.requests[0]
    assert request["model"] == "judge-m" and request["temperature"] == 0.0
    assert "How do I reconcile?" in request["messages"][1]["content"]
    assert j.to_dict()["value"] == 4.0 and j.to_dict()["prompt"] == "overall_quality_v1"


def test_second_run_is_answered_from_the_cache_without_a_request(tmp_path):
    with ChatServer(responder=lambda body: GOOD) as server:
        first = _judge(server, tmp_path).judge("overall_quality", FIELDS)
        again = _judge(server, tmp_path).judge("overall_quality", FIELDS)   # a fresh judge: reads the file
        other = _judge(server, tmp_path).judge("overall_quality", {**FIELDS, "answer": "different"})
    assert len(server.requests) == 2, "the repeated input made no request; the changed input did"
    assert again.cached and again.value == first.value and again.scores == first.scores and not other.cached
    files = list((tmp_path / "judgments").rglob("*.json"))
    assert len(files) == 2 and {f.parent.parent.name for f in files} == {"overall_quality_v1"}
    entries = [json.loads(f.read_text()) for f in files]
    assert {e["scores"]["overall"] for e in entries} == {4} and {e["model"] for e in entries} == {"openai:judge-m"}


def test_cache_is_keyed_by_judge_model_and_prompt_version(tmp_path):
    with ChatServer(responder=lambda body: GOOD) as server:
        _judge(server, tmp_path).judge("overall_quality", FIELDS)
        _judge(server, tmp_path, model="another-judge").judge("overall_quality", FIELDS)
    assert len(server.requests) == 2


def test_reply_without_a_valid_score_is_a_failure_and_not_cached(tmp_path):
    with ChatServer(responder=lambda body: "I would give it a 4 out of 5.") as server:
        j = _judge(server, tmp_path).judge("overall_quality", FIELDS)
        again = _judge(server, tmp_path).judge("overall_quality", FIELDS)
    assert j.value is None and j.error.startswith("unparseable: no <correctness> tag")
    assert j.to_dict()["reply"].startswith("I would give it")
    assert not again.cached and len(server.requests) == 2, "failures are asked again, never cached"


def test_retries_429_and_500_then_scores(tmp_path):
    with ChatServer(responder=lambda body: "Covered. <sufficient>1</sufficient>") as server:
        server.script(429, 500)
        j = _judge(server, tmp_path).judge("tcr15", {"question": "q", "reference": "r", "evidence": "e"})
    assert j.value == 1.0 and len(server.requests) == 3


def test_malformed_body_and_exhausted_retries_are_failures(tmp_path):
    with ChatServer(responder=lambda body: GOOD) as server:
        server.script("malformed", 500, 500, 500)
        judge = _judge(server, tmp_path, max_retries=0)
        malformed = judge.judge("overall_quality", FIELDS)
        judge = _judge(server, tmp_path, max_retries=2)
        exhausted = judge.judge("overall_quality", FIELDS)
    assert malformed.value is None and malformed.error.startswith("malformed_response")
    assert exhausted.value is None and exhausted.error.startswith("api_error: HTTP 500")


def test_torn_cache_entry_is_judged_again_with_a_warning(tmp_path, caplog):
    with ChatServer(responder=lambda body: GOOD) as server:
        judge = _judge(server, tmp_path)
        judge.judge("overall_quality", FIELDS)
        [path] = judge.caches["overall_quality"].path.rglob("*.json")
        path.write_text('{"input": "x", "sco')
        again = _judge(server, tmp_path).judge("overall_quality", FIELDS)
        third = _judge(server, tmp_path).judge("overall_quality", FIELDS)
    assert not again.cached and again.value == 4.0 and len(server.requests) == 2
    assert "unreadable cache entry" in caplog.text and str(path) in caplog.text
    assert third.cached, "the re-judged entry replaced the torn one"


def test_grid_cells_judging_at_once_share_one_cache(tmp_path):
    import threading

    with ChatServer(responder=lambda body: GOOD) as server:
        inputs = [{**FIELDS, "answer": f"answer {i}"} for i in range(12)]
        threads = [threading.Thread(target=lambda: [_judge(server, tmp_path).judge("overall_quality", f) for f in inputs])
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        later = [_judge(server, tmp_path).judge("overall_quality", f) for f in inputs]
    assert all(j.cached and j.value == 4.0 for j in later)
    assert len(list((tmp_path / "judgments").rglob("*.json"))) == 12


def test_no_judge_and_bad_configs():
    from ham.conf import compose, instantiate_optional

    assert instantiate_optional(compose(["judge=none"]).judge, cache_root="x") is None
    with pytest.raises(ValueError, match="is for 'tcr15', configured for 'overall_quality'"):
        Judge(ChatClient("m"), {"overall_quality": "tcr15_v1"}, "x")
