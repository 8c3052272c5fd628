"""The shared OpenAI-compatible client against a real loopback chat-completions server."""
import pytest

from ham.backends.chat import ChatClient, MalformedResponse, RequestBudget, parse_completion
from tests.support.chat_server import ChatServer

Q = [{"role": "user", "content": "question"}]


def client(server, **kw):
    kw = {"api_key": "k", "backoff_base": 0.01, "backoff_max": 0.05, **kw}
    return ChatClient("test-model", base_url=server.base_url, **kw)


def test_plain_reply_usage_and_paper_settings():
    with ChatServer(responder=lambda body: "forty two") as server:
        reply = client(server).chat(Q)
    assert reply.error is None and reply.text == "forty two" and reply.finish_reason == "stop"
    assert reply.usage["completion_tokens"] == 2 and reply.attempts == 1
    body = server.requests[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.2 and body["max_tokens"] == 4000
    assert "stream" not in body


def test_reasoning_model_settings_omit_temperature():
    with ChatServer(responder=lambda body: "ok") as server:
        client(server, temperature=None, max_tokens_field="max_completion_tokens").chat(Q)
    body = server.requests[0]
    assert "temperature" not in body and body["max_completion_tokens"] == 4000 and "max_tokens" not in body


def test_retries_429_500_and_malformed_then_succeeds():
    with ChatServer(responder=lambda body: "ok") as server:
        server.script(429, 500, "malformed", 503)
        reply = client(server, max_retries=4).chat(Q)
    assert reply.text == "ok" and reply.attempts == 5 and len(server.requests) == 5


def test_failure_after_retries_is_a_reply_with_error():
    with ChatServer() as server:
        server.script(500, 500, 500)
        reply = client(server, max_retries=2).chat(Q)
    assert reply.text is None and reply.error.startswith("api_error: HTTP 500 after 3 attempts")
    assert len(server.requests) == 3


def test_malformed_body_is_recorded():
    with ChatServer() as server:
        server.script("malformed", "malformed")
        reply = client(server, max_retries=1).chat(Q)
    assert reply.text is None and reply.error.startswith("malformed_response: after 2 attempts")


def test_timeout_is_retried_then_recorded():
    with ChatServer(hang_seconds=2.0) as server:
        server.script("hang", "hang")
        reply = client(server, timeout=0.2, max_retries=1).chat(Q)
    assert reply.error == "api_error: APITimeoutError after 2 attempts"


def test_context_overflow_is_over_length_and_not_retried():
    with ChatServer() as server:
        server.script((400, "This model's maximum context length is 8192 tokens"))
        reply = client(server, max_retries=3).chat(Q)
    assert reply.error.startswith("over_length: HTTP 400") and len(server.requests) == 1


def test_other_client_errors_are_not_retried():
    with ChatServer() as server:
        server.script(401)
        reply = client(server, max_retries=3).chat(Q)
    assert reply.error.startswith("api_error: HTTP 401 after 1 attempts") and len(server.requests) == 1


def test_request_budget_counts_retries_and_stops_spending():
    budget = RequestBudget(3)
    with ChatServer(responder=lambda body: "ok") as server:
        server.script(500)   # one of the three first attempts fails; its retry would be a 4th request
        replies = client(server, request_budget=budget, max_retries=2).chat_many([Q, Q, Q])
    assert len(server.requests) == 3 and budget.used == 3
    assert sorted((r.error or "ok").split(":")[0] for r in replies) == ["budget_exhausted", "ok", "ok"]


def test_stream_aggregates_chunks():
    with ChatServer(responder=lambda body: "one two three", force_stream=True) as server:
        reply = client(server, stream=True).chat(Q)
    assert reply.text == "one two three" and reply.usage["completion_tokens"] == 3
    assert server.requests[0]["stream"] is True and server.requests[0]["stream_options"] == {"include_usage": True}


def test_unasked_stream_is_aggregated_too():
    with ChatServer(responder=lambda body: "four five", force_stream=True) as server:
        reply = client(server).chat(Q)
    assert reply.text == "four five" and reply.finish_reason == "stop"


def test_chat_many_keeps_input_order_under_concurrency():
    with ChatServer(responder=lambda body: body["messages"][0]["content"].upper(), latency=0.02) as server:
        replies = client(server, max_concurrency=4).chat_many([[{"role": "user", "content": f"q{i}"}]
                                                               for i in range(12)])
    assert [r.text for r in replies] == [f"Q{i}" for i in range(12)]


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"choices": []}', b'{"error": {"message": "overloaded"}}',
                                 b"data: {not json}\n\n", b'data: {"error": {"message": "overloaded"}}\n\n'])
def test_parse_completion_rejects_bodies_that_are_not_completions(raw):
    with pytest.raises(MalformedResponse):
        parse_completion(raw)
