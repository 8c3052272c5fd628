"""The shared OpenAI-compatible client against a real loopback chat-completions server."""
import pytest

from ham.backends.chat import ChatClient, MalformedResponse, parse_completion
from tests.support.chat_server import ChatServer

Q = [{"role": "user", "content": "question"}]


def client(server, **kw):
    kw = {"api_key": "k", "backoff_base": 0.01, "backoff_max": 0.05, **kw}
    return ChatClient("test-model", base_url=server.base_url, **kw)


def test_plain_reply_usage_and_settings():
    with ChatServer(responder=lambda body: "forty two") as server:
        reply = client(server).chat(Q)
    assert reply.error is None and reply.text == "forty two" and reply.finish_reason == "stop"
    assert reply.usage["completion_tokens"] == 2 and reply.attempts == 1 and reply.model == "test-model"
    body = server.requests[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.0 and body["max_tokens"] == 1024
    assert "stream" not in body


def test_reasoning_model_settings_omit_temperature():
    with ChatServer(responder=lambda body: "ok") as server:
        client(server, temperature=None, max_tokens_field="max_completion_tokens").chat(Q)
    body = server.requests[0]
    assert "temperature" not in body and body["max_completion_tokens"] == 1024 and "max_tokens" not in body


def test_retries_429_500_and_malformed_then_succeeds():
    with ChatServer(responder=lambda body: "ok") as server:
        server.script(429, 500, "malformed", 503)
        reply = client(server, max_retries=4).chat(Q)
    assert reply.text == "ok" and reply.attempts == 5 and len(server.requests) == 5


def test_a_retry_never_comes_sooner_than_retry_after():
    with ChatServer(responder=lambda body: "ok", retry_after="0.6") as server:
        server.script(429)
        reply = client(server, max_retries=1, backoff_max=5.0).chat(Q)   # its own backoff: at most 0.01 s
    assert reply.text == "ok" and reply.attempts == 2 and reply.seconds >= 0.6


def test_failure_after_retries_is_a_reply_with_error():
    with ChatServer() as server:
        server.script(500, 500, 500)
        reply = client(server, max_retries=2).chat(Q)
    assert reply.text is None and reply.error.startswith(f"api_error: HTTP 500 from {server.base_url} after 3 attempts")
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
    assert reply.error.startswith("timeout: ") and "after 2 attempts" in reply.error and reply.text is None


def test_context_overflow_is_over_length_and_not_retried():
    with ChatServer() as server:
        server.script((400, "This model's maximum context length is 8192 tokens"))
        reply = client(server, max_retries=3).chat(Q)
    assert reply.error.startswith("over_length: HTTP 400") and len(server.requests) == 1


def test_other_client_errors_are_not_retried():
    with ChatServer() as server:
        server.script(401)
        reply = client(server, max_retries=3).chat(Q)
    assert reply.error.startswith(f"api_error: HTTP 401 from {server.base_url} after 1 attempt:")
    assert "set $OPENAI_API_KEY" in reply.error and len(server.requests) == 1


def test_request_budget_counts_retries_and_stops_spending():
    with ChatServer(responder=lambda body: "ok") as server:
        server.script(500)   # one of the three first attempts fails; its retry would be a 4th request
        spender = client(server, request_budget=3, max_retries=2)
        replies = spender.chat_many([Q, Q, Q])
    assert len(server.requests) == 3 and spender.budget.used == 3
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


def test_an_event_stream_opening_with_a_comment_or_event_field_is_read():
    # OpenRouter keeps a stream alive with ": OPENROUTER PROCESSING"; others send "event:" lines
    chunk = b'data: {"choices": [{"delta": {"content": "six"}, "finish_reason": "stop"}], "model": "m"}\n\n'
    for head in (b": OPENROUTER PROCESSING\n\n", b"event: message\n", b"id: 1\nretry: 100\n"):
        reply = parse_completion(head + chunk + b"data: [DONE]\n\n")
        assert (reply.text, reply.finish_reason) == ("six", "stop")


def test_chat_many_keeps_input_order_under_concurrency():
    with ChatServer(responder=lambda body: body["messages"][0]["content"].upper(), latency=0.02) as server:
        replies = client(server, concurrency=4).chat_many([[{"role": "user", "content": f"q{i}"}]
                                                               for i in range(12)])
    assert [r.text for r in replies] == [f"Q{i}" for i in range(12)]


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"choices": []}', b'{"error": {"message": "overloaded"}}',
                                 b"data: {not json}\n\n", b'data: {"error": {"message": "overloaded"}}\n\n'])
def test_parse_completion_rejects_bodies_that_are_not_completions(raw):
    with pytest.raises(MalformedResponse):
        parse_completion(raw)


def test_deadline_bounds_a_streamed_reply_that_keeps_sending():
    """Bytes arrive every 50 ms (no read timeout fires) but the reply would take seconds: the
    deadline is the attempt's total wall time."""
    import time

    with ChatServer(responder=lambda body: "one two three four", trickle_seconds=0.05) as server:
        server.script("trickle", "trickle")
        start = time.perf_counter()
        reply = client(server, stream=True, timeout=0.5, max_retries=1).chat(Q)
        seconds = time.perf_counter() - start
    assert reply.error.startswith("timeout: no complete reply within 0.5 s (after 2 attempts")
    assert seconds < 2.5, f"two attempts of 0.5 s took {seconds:.1f} s"


def test_deadline_bounds_an_unstreamed_reply_too():
    with ChatServer(responder=lambda body: "one two", trickle_seconds=0.05) as server:
        server.script("trickle")
        reply = client(server, timeout=0.4, max_retries=0).chat(Q)
    assert reply.error.startswith("timeout: no complete reply within 0.4 s")


@pytest.mark.parametrize("backend", ["aiohttp", "httpx"])
def test_refused_connection_says_what_to_fix(backend):
    import socket

    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = ChatClient("m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=1, backoff_base=0.01,
                   http_backend=backend, timeout=5)
    reply = c.chat(Q)
    assert reply.error.startswith(f"api_error: connection to http://127.0.0.1:{port}/v1 failed")
    assert "after 2 attempts" in reply.error and "is the server running" in reply.error, reply.error


def test_404_without_v1_names_the_base_url_to_use():
    with ChatServer() as server:
        server.script(404)
        root = server.base_url[: -len("/v1")]
        reply = ChatClient("m", base_url=root, api_key="k", max_retries=2).chat(Q)
    assert reply.error.startswith(f"api_error: HTTP 404 from {root} after 1 attempt")
    assert f"the base URL is probably {root}/v1" in reply.error and len(server.requests) == 1


def test_missing_key_is_sent_as_a_placeholder_and_401_says_it_is_not_set(monkeypatch):
    monkeypatch.delenv("HAM_NO_KEY", raising=False)
    with ChatServer(responder=lambda body: "ok") as server:
        assert ChatClient("m", base_url=server.base_url, api_key_env="HAM_NO_KEY").chat(Q).text == "ok"
        server.script(401)
        reply = ChatClient("m", base_url=server.base_url, api_key_env="HAM_NO_KEY").chat(Q)
    assert "set $HAM_NO_KEY to a key this server accepts; it is not set" in reply.error


def test_identity_names_server_settings_and_stream_aggregation():
    a = ChatClient("m", base_url="http://h:1/v1/")
    assert a.identity()["server"] == "http://h:1/v1" and a.identity()["stream"] is False
    assert ChatClient("m").identity()["server"] == "https://api.openai.com/v1" or \
        ChatClient("m").base_url is not None
    different = [ChatClient("m", base_url="http://h:1/v1", stream=True), ChatClient("m", base_url="http://h:2/v1"),
                 ChatClient("m", base_url="http://h:1/v1", max_tokens=10), ChatClient("n", base_url="http://h:1/v1")]
    assert all(c.identity() != a.identity() for c in different)


def test_per_request_http_logging_is_quiet_by_default():
    import logging

    assert logging.getLogger("httpx2").getEffectiveLevel() >= logging.WARNING


def test_a_base_url_without_scheme_is_refused_at_once():
    with pytest.raises(ValueError, match="'127.0.0.1:8000/v1' is not an http.s. URL"):
        ChatClient("m", base_url="127.0.0.1:8000/v1")


def test_the_proxy_comes_from_the_environment_once(monkeypatch):
    import asyncio

    from ham.backends.transport import AiohttpTransport

    async def proxy_of(url):
        transport = AiohttpTransport(url, "k", 5, 4)
        try:
            return transport.proxy
        finally:
            await transport.aclose()

    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "localhost")
    assert asyncio.run(proxy_of("http://models.invalid:8000/v1")) == "http://proxy.invalid:3128"
    assert asyncio.run(proxy_of("http://localhost:8000/v1")) is None
