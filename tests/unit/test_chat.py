"""The shared OpenAI-compatible client against a real loopback chat-completions server."""
from ham.chat import ChatClient
from tests.support.chat_server import ChatServer


def test_plain_reply_and_usage():
    with ChatServer(responder=lambda body: "forty two") as server:
        reply = ChatClient("test-model", base_url=server.base_url, api_key="k").chat(
            [{"role": "user", "content": "question"}])
    assert reply.error is None and reply.text == "forty two"
    assert reply.usage["completion_tokens"] == 2
    assert server.requests[0]["model"] == "test-model" and server.requests[0]["temperature"] == 0.2


def test_retries_429_and_500_then_succeeds():
    with ChatServer(responder=lambda body: "ok") as server:
        server.script(429, 500)
        reply = ChatClient("m", base_url=server.base_url, max_retries=3).chat([{"role": "user", "content": "q"}])
    assert reply.text == "ok" and len(server.requests) == 3


def test_failure_after_retries_is_a_reply_with_error():
    with ChatServer() as server:
        server.script(500, 500, 500)
        reply = ChatClient("m", base_url=server.base_url, max_retries=2).chat([{"role": "user", "content": "q"}])
    assert reply.text is None and reply.error.startswith("api_error: HTTP 500")


def test_malformed_body_is_recorded():
    with ChatServer() as server:
        server.script("malformed")
        reply = ChatClient("m", base_url=server.base_url, max_retries=0).chat([{"role": "user", "content": "q"}])
    assert reply.text is None and reply.error.startswith("malformed_response")


def test_stream_aggregates_chunks():
    with ChatServer(responder=lambda body: "one two three", force_stream=True) as server:
        reply = ChatClient("m", base_url=server.base_url, stream=True).chat([{"role": "user", "content": "q"}])
    assert reply.text == "one two three" and reply.usage["completion_tokens"] == 3
