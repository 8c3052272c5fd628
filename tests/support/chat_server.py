"""A real HTTP server on loopback that speaks the OpenAI chat-completions API, for tests and
benchmarks of every OpenAI-compatible backend (generators, judges, summarisers, describers).

    with ChatServer(responder=lambda body: "an answer", latency=0.1) as server:
        client = OpenAI(base_url=server.base_url, api_key="test")

Faults are scripted per request in arrival order: ``server.script(429, 500, "malformed", "ok")``
makes the next four requests fail that way (then normal service resumes). A status may carry its
error message: ``(400, "maximum context length is 8 tokens")``. ``"hang"`` sleeps
``hang_seconds`` before answering, to trigger client timeouts; ``"trickle"`` streams its reply one
word every ``trickle_seconds`` (bytes keep coming, the reply takes long: what a looping model
does); ``"length"`` answers normally but with ``finish_reason: "length"`` (a reply cut at
max_tokens); ``"no_usage"`` answers without token usage (as ``transformers serve`` does).
``server.max_in_flight`` is the most requests it was handling at once. ``force_stream=True``
answers in server-sent-event chunks even when the request asks for no streaming (as
``transformers serve`` 4.57 does). A 429 carries ``Retry-After: retry_after`` (``"0"`` unless
set). Every request body is kept in ``server.requests``.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def _last_user_text(body: dict) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


class _Server(ThreadingHTTPServer):
    request_queue_size = 256   # the default backlog of 5 drops connections under 64 concurrent clients
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # a client that timed out and hung up (what the timeout tests provoke) is not an error
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class ChatServer:
    def __init__(self, responder: Callable[[dict], str] | None = None, latency: float = 0.0,
                 force_stream: bool = False, hang_seconds: float = 5.0, trickle_seconds: float = 0.1,
                 retry_after: str = "0") -> None:
        self.responder = responder or (lambda body: f"echo: {_last_user_text(body)[:200]}")
        self.latency = latency
        self.force_stream = force_stream
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
        self.retry_after = retry_after
        self.requests: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self._faults: deque = deque()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, *faults) -> None:
        with self._lock:
            self._faults.extend(faults)

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_fault(self):
        with self._lock:
            return self._faults.popleft() if self._faults else "ok"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True   # else headers and body wait on delayed ACKs (~40 ms)

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._post()
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _post(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                fault = server._next_fault()
                if server.latency:
                    time.sleep(server.latency)
                if fault == "hang":
                    time.sleep(server.hang_seconds)
                if isinstance(fault, tuple):
                    fault, message = fault
                else:
                    message = f"injected {fault}"
                if isinstance(fault, int):
                    error = {"error": {"message": message, "type": "injected", "code": fault}}
                    headers_retry = fault == 429
                    self.send_response(fault)
                    if headers_retry:
                        self.send_header("Retry-After", server.retry_after)
                    payload = json.dumps(error).encode()
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if fault == "malformed":
                    self._send(200, b'{"id": "x", "choices": [ this is not json')
                    return
                text = server.responder(body)
                prompt_tokens = len(json.dumps(body.get("messages", [])).split())
                completion_tokens = len(text.split())
                if fault == "trickle":
                    self._trickle(body, text)
                    return
                if body.get("stream") or server.force_stream:
                    self._stream(body, text, prompt_tokens, completion_tokens, usage=fault != "no_usage")
                    return
                reply = {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                         "model": body.get("model", "test"),
                         "choices": [{"index": 0, "finish_reason": "length" if fault == "length" else "stop",
                                      "message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                   "total_tokens": prompt_tokens + completion_tokens}}
                if fault == "no_usage":
                    del reply["usage"]
                self._send(200, json.dumps(reply).encode())

            def _trickle(self, body: dict, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for word in (text.split(" ") * 50):
                        chunk = {"choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}],
                                 "model": body.get("model", "test")}
                        data = f"data: {json.dumps(chunk)}\n\n".encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        time.sleep(server.trickle_seconds)
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):   # the client gave up: what the test wants
                    pass

            def _stream(self, body: dict, text: str, prompt_tokens: int, completion_tokens: int,
                        usage: bool = True) -> None:
                words = text.split(" ")
                chunks = []
                for i, word in enumerate(words):
                    piece = word if i == 0 else " " + word
                    chunks.append({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                   "created": int(time.time()), "model": body.get("model", "test"),
                                   "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                chunks.append({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
                               "model": body.get("model", "test"),
                               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                if usage:
                    chunks[-1]["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                           "total_tokens": prompt_tokens + completion_tokens}
                payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                self._send(200, payload.encode(), "text/event-stream")

        return Handler
