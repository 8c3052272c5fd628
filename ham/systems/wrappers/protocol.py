"""What every system wrapper shares. Runs inside a system's own venv (``.venv-<system>``) with the
standard library only (httpx, which every system's OpenAI SDK brings, for
``event_tolerant_http_client``): it never imports ham, and ham never imports it.

The protocol (``ham.systems.client`` is the other end): the wrapper is started as
``<venv>/bin/python wrappers/<system>.py`` with its settings in the JSON of ``$HAM_SYSTEM_CONFIG``
(the LLM endpoint, the embedding endpoint, the system's options; the API key in
``$HAM_SYSTEM_API_KEY``). It reads one JSON request per line on stdin and writes one JSON reply per
line on stdout:

    {"id": 1, "op": "info"}                          -> {"id": 1, "ok": true, "versions": {...}}
    {"id": 2, "op": "index", "workdir": DIR, "documents": [DOC, ...]}
                                                     -> {"id": 2, "ok": true, "graph": {...}, "usage": USAGE}
    {"id": 3, "op": "query", "workdir": DIR, "question": "..."}
                                                     -> {"id": 3, "ok": true, "answer": "...",
                                                         "context": CONTEXT, "raw": ..., "usage": USAGE}
    any op, failing                                  -> {"id": n, "ok": false, "reason": "...", "detail": "...",
                                                         "usage": USAGE}

DOC is one document as ham ingested it: ``{"doc_id", "source", "units": [{"unit_id", "kind",
"modality", "content", "page", "image_path" (absolute), "caption", "bbox"}]}`` in reading order; each
wrapper turns it into its system's own input format. CONTEXT is what the system retrieved, as it
returned it, in its order: ``{"entities": [...], "relations": [...], "chunks": [{"content",
"file_path", ...}], "images": [{"path", ...}]}``. USAGE is the LLM and embedding traffic of the op:
``{"llm_calls", "llm_failed_calls", "prompt_tokens", "completion_tokens", "embedding_calls",
"embedded_texts", "seconds"}`` (tokens as the server reported them; 0 where it reports none).

The system's own prints go to stderr (stdout carries the protocol only).
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback

LLM_ERRORS = ("APIConnectionError", "APITimeoutError", "RateLimitError", "APIStatusError", "InternalServerError",
              "ConnectError", "ConnectionRefusedError", "ClientConnectorError", "ReadTimeout", "BadRequestError")


def settings() -> dict:
    config = json.loads(os.environ.get("HAM_SYSTEM_CONFIG") or "{}")
    config["api_key"] = os.environ.get("HAM_SYSTEM_API_KEY") or "ham-local"
    return config


class Meter:
    """Counts the LLM and embedding calls a wrapper makes (thread-safe: systems call from threads)."""

    FIELDS = ("llm_calls", "llm_failed_calls", "prompt_tokens", "completion_tokens", "embedding_calls",
              "embedded_texts")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.totals = dict.fromkeys(self.FIELDS, 0)
        self.failures: dict[str, int] = {}   # failed LLM calls by reason, "ExceptionType: first words"

    def add(self, **counts) -> None:
        with self._lock:
            for key, value in counts.items():
                self.totals[key] += int(value or 0)

    def failed(self, exc: BaseException) -> None:
        """One failed LLM call, counted by reason (the exception's type and the start of its message)."""
        reason = f"{type(exc).__name__}: {' '.join(str(exc).split())[:80]}".rstrip(": ")
        with self._lock:
            self.totals["llm_failed_calls"] += 1
            self.failures[reason] = self.failures.get(reason, 0) + 1

    def snapshot(self) -> dict:
        with self._lock:
            return {**self.totals, "llm_failure_reasons": dict(self.failures)}

    def since(self, before: dict, started: float) -> dict:
        now = self.snapshot()
        out = {k: now[k] - before.get(k, 0) for k in self.FIELDS}
        earlier = before.get("llm_failure_reasons") or {}
        reasons = {r: n - earlier.get(r, 0) for r, n in now["llm_failure_reasons"].items() if n > earlier.get(r, 0)}
        if reasons:
            out["llm_failure_reasons"] = reasons
        out["seconds"] = round(time.perf_counter() - started, 3)
        return out


def usage_of(response) -> tuple[int, int]:
    """(prompt, completion) tokens of an OpenAI SDK response, 0 where the server sent none."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0
    return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)


class RegexTokenizer:
    """A reversible word tokenizer (words, single punctuation marks, whitespace runs; ids handed out
    as tokens are first seen), for systems whose default tokenizer is tiktoken: tiktoken fetches
    its BPE files from the internet on first use, which an offline machine cannot. Token counts
    (chunk sizes, context budgets) are then counted in words and marks, not BPE tokens; decode
    inverts encode exactly. Thread-safe."""

    PATTERN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._tokens: list[str] = []
        self._lock = threading.Lock()

    def encode(self, content: str) -> list[int]:
        out = []
        with self._lock:
            for token in self.PATTERN.findall(content or ""):
                if token not in self._ids:
                    self._ids[token] = len(self._tokens)
                    self._tokens.append(token)
                out.append(self._ids[token])
        return out

    def decode(self, tokens: list[int]) -> str:
        with self._lock:
            return "".join(self._tokens[t] for t in tokens)

    def __deepcopy__(self, memo):   # one vocabulary per process: copies (LightRAG's asdict) share it
        return self


def completion_from_events(body: bytes) -> dict:
    """A chat completion (the JSON a ``stream: false`` request expects) from a server-sent-event
    body: the deltas' text joined, the last finish reason, the usage where a chunk carries it."""
    text, finish, usage, model, rid = [], None, None, None, None
    for line in body.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        chunk = json.loads(line[5:].strip())
        model, rid, usage = chunk.get("model") or model, chunk.get("id") or rid, chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            text.append((choice.get("delta") or {}).get("content") or "")
            finish = choice.get("finish_reason") or finish
    return {"id": rid or "sse", "object": "chat.completion", "created": int(time.time()), "model": model or "",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(text)},
                         "finish_reason": finish or "stop"}],
            # a server that sends no usage (transformers serve): 0 tokens, as USAGE counts them; hipporag
            # reads response.usage unguarded
            "usage": usage or {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


_HTTP_CLIENTS: dict = {}


def event_tolerant_http_client(asynchronous: bool = True):
    """An httpx client for a system's OpenAI SDK that turns a server-sent-event reply to a
    request that did not ask for streaming into the plain completion the SDK expects.
    ``transformers serve`` streams every reply (docs/servers.md), which the SDK returns as a
    string, and the systems then fail on ``.choices``; ham's own client reads both forms. One
    client per process, which the SDK's ``close`` leaves open (LightRAG closes its client after
    every call, and its retries reuse the call's arguments)."""
    import httpx

    def to_plain(request, response) -> bool:
        if "text/event-stream" not in response.headers.get("content-type", ""):
            return False
        try:
            return not json.loads(request.content or b"{}").get("stream")
        except ValueError:
            return False

    def plain(request, response, body):
        return httpx.Response(response.status_code, headers={"content-type": "application/json"},
                              content=json.dumps(completion_from_events(body)).encode(), request=request)

    class AsyncTransport(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request):
            response = await super().handle_async_request(request)
            return plain(request, response, await response.aread()) if to_plain(request, response) else response

    class Transport(httpx.HTTPTransport):
        def handle_request(self, request):
            response = super().handle_request(request)
            return plain(request, response, response.read()) if to_plain(request, response) else response

    class Kept(httpx.AsyncClient):
        async def aclose(self) -> None:   # LightRAG closes its SDK client after each call, retries included
            pass

    class KeptSync(httpx.Client):
        def close(self) -> None:
            pass

    key = "async" if asynchronous else "sync"
    if key not in _HTTP_CLIENTS:
        timeout = httpx.Timeout(300.0, connect=30.0)
        _HTTP_CLIENTS[key] = (Kept(transport=AsyncTransport(), timeout=timeout) if asynchronous
                              else KeptSync(transport=Transport(), timeout=timeout))
    return _HTTP_CLIENTS[key]


def reason_of(exc: BaseException) -> str:
    """A failure's reason: the exception's own ``ham_reason`` (a wrapper's ``no_context``), an
    LLM endpoint error (``api_error``, as ham names it), a timeout, else ``system_error``."""
    if getattr(exc, "ham_reason", None):
        return exc.ham_reason
    names = {type(e).__name__ for e in _chain(exc)}
    text = " ".join(str(e) for e in _chain(exc)).lower()
    if any(n in names for n in LLM_ERRORS) or "connection error" in text or "connection refused" in text:
        return "api_error"
    if any("timeout" in n.lower() for n in names):
        return "timeout"
    return "system_error"


def _chain(exc: BaseException):
    seen = 0
    while exc is not None and seen < 10:
        yield exc
        exc = exc.__cause__ or exc.__context__
        seen += 1


def serve(handlers: dict, meter: Meter) -> None:
    """Answer requests until stdin closes (module docstring). An exception in a handler is a
    failed reply, and the wrapper goes on to the next request."""
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)                 # the system's prints (and its libraries') go to stderr
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        started, before = time.perf_counter(), meter.snapshot()
        try:
            request = json.loads(line)
            handler = handlers[request["op"]]
        except (ValueError, KeyError) as exc:
            out.write(json.dumps({"id": None, "ok": False, "reason": "bad_request", "detail": str(exc)}) + "\n")
            continue
        try:
            reply = {"id": request.get("id"), "ok": True, **handler(request)}
        except Exception as exc:   # noqa: BLE001 - one failed op is recorded; the rest goes on
            traceback.print_exc(file=sys.stderr)
            reply = {"id": request.get("id"), "ok": False, "reason": reason_of(exc),
                     "detail": f"{type(exc).__name__}: {exc}"[:2000]}
        reply["usage"] = meter.since(before, started)
        out.write(json.dumps(reply, ensure_ascii=False, default=str) + "\n")


def run(wrapper_class) -> None:
    """A wrapper script's main: its class built on the settings and a meter, serving info, index
    and query."""
    meter = Meter()
    wrapper = wrapper_class(settings(), meter)
    serve({"info": wrapper.info, "index": wrapper.index, "query": wrapper.query}, meter)
