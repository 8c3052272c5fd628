"""OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, Ollama, ``transformers serve``). Shared by generators, judges, summarisers and image describers.

    client = ChatClient("gpt-4o", concurrency=32)
    reply = client.chat([{"role": "user", "content": "..."}])           # or: await client.achat(...)
    replies = client.chat_many([messages_1, messages_2, ...])            # bounded concurrency

Deadline: ``timeout`` bounds each attempt's total wall time, streamed or not (connecting, waiting
and reading every byte), not only the gap between bytes; an attempt past it is cancelled.

Retries: 408/409/429/5xx responses, timeouts, connection errors and malformed bodies are retried
up to ``max_retries`` times with exponential backoff and full jitter
(``uniform(0, min(backoff_max, backoff_base * 2**n))``), never sooner than a ``Retry-After``
header asks. A reply that still fails becomes a ``ChatReply`` with ``error`` set (never an
exception), so callers record the failure and go on. Error strings start with a reason
(``ham.generate.base.FAILURE_REASONS``): ``api_error`` (HTTP errors, refused connections, each with
what to fix), ``timeout`` (no complete reply within ``timeout``), ``malformed_response``,
``over_length`` (the prompt exceeds the model's context), ``budget_exhausted`` (the
``RequestBudget`` ran out; every attempt, retries included, uses one).

Transport (``ham.backends.transport``, ``http_backend``): a plain aiohttp POST of the JSON body,
the reply read as bytes (default; the SDK's request machinery cost as much CPU as the exchange
itself), or the openai SDK's ``post`` over httpx. A reply sent as server-sent events, asked for
(``stream=True``) or not (``transformers serve`` 4.57 streams regardless), is aggregated.

``identity()`` is what, besides the messages, determines a reply: model, server, decoding
settings (the run's ``seed`` too while sampling: it is sent as the request's ``seed``) and stream
aggregation. Caches of generations, judgments, summaries and descriptions
key on it, so answers from one server are never served as another's (a server may serve any
weights under a name: ``transformers serve --force_model``).

The base URL and key come from the config or the environment (``OPENAI_BASE_URL``,
``OPENAI_API_KEY`` by default); a local server takes any key (``EMPTY`` is sent when none is set).
Keys are never written to disk by ham. Per-request HTTP logging (the SDK's ``httpx2`` logger) is
kept at WARNING unless the application sets its level.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import time
from dataclasses import dataclass, field

from typing import Annotated

from ham.backends.aio import run_sync
from ham.backends.transport import ConnectionFailed, HTTPStatusError, ReadTimeout, make_transport
from ham.settings import Doc, Model, OneOf, Range

log = logging.getLogger("ham.backends.chat")
RETRYABLE_STATUS = {408, 409, 429}
OPENAI_URL = "https://api.openai.com/v1"
_CONTEXT_ERRORS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long")

for _name in ("httpx2", "httpx"):   # one INFO line per request otherwise
    if logging.getLogger(_name).level == logging.NOTSET:
        logging.getLogger(_name).setLevel(logging.WARNING)


@dataclass
class ChatReply:
    text: str | None
    usage: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    attempts: int = 0
    finish_reason: str | None = None
    model: str | None = None      # the model the server says answered (its reply's ``model`` field)


@dataclass
class Completion:
    text: str | None
    usage: dict
    finish_reason: str | None
    model: str | None = None


class RequestBudget:
    """At most ``limit`` HTTP requests (retries included) for one run; ``None`` means no limit.
    Thread-safe, so one budget can be shared by clients used from several threads."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.limit is not None and self.used >= self.limit:
                return False
            self.used += 1
            return True


class MalformedResponse(Exception):
    """A 200 reply whose body is not a chat completion."""


class _Deadline(Exception):
    """An attempt ran past the client's ``timeout``."""


_SSE_FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")


def parse_completion(raw: bytes) -> Completion:
    """The text, usage, finish reason and model of a chat-completion body, plain JSON or
    server-sent events."""
    stripped = raw.lstrip()
    # an event stream may open with a comment (": OPENROUTER PROCESSING") or an event/id/retry field
    if stripped.startswith(_SSE_FIELDS):
        return _parse_event_stream(stripped)
    try:
        data = json.loads(raw)
        if "error" in data and "choices" not in data:
            raise MalformedResponse(f"error object in a 200 reply: {str(data['error'])[:200]}")
        choice = data["choices"][0]
        return Completion(choice["message"].get("content"), data.get("usage") or {}, choice.get("finish_reason"),
                          data.get("model"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise MalformedResponse(f"{exc.__class__.__name__}: {exc}; body starts {raw[:80]!r}") from exc


def _parse_event_stream(raw: bytes) -> Completion:
    parts: list[str] = []
    usage: dict = {}
    finish = model = None
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            break
        try:
            chunk = json.loads(payload)
            if chunk.get("error"):
                raise MalformedResponse(f"error event in the stream: {str(chunk['error'])[:200]}")
            for choice in chunk.get("choices") or []:
                parts.append((choice.get("delta") or {}).get("content") or "")
                finish = choice.get("finish_reason") or finish
        except (ValueError, AttributeError, TypeError) as exc:
            raise MalformedResponse(f"bad event-stream chunk: {payload[:80]!r}") from exc
        usage = chunk.get("usage") or usage
        model = chunk.get("model") or model
    return Completion("".join(parts), usage, finish, model)


class ChatClient:
    """One remote model on an OpenAI-compatible server: the client block of every remote model in
    a config (``generator.client``, ``judge.client``, ``summariser.client``, ``describer.client``)."""

    def __init__(self, model: Annotated[str, Model(), Doc("the model the server is asked for")],
                 base_url: Annotated[str | None, Doc("the server, ending in /v1 (else $base_url_env, else "
                                                     "OpenAI's)")] = None,
                 api_key: Annotated[str | None, Doc("the key itself (never written to a run folder); "
                                                    "better: $api_key_env")] = None,
                 base_url_env: Annotated[str, Doc("the variable holding the base URL")] = "OPENAI_BASE_URL",
                 api_key_env: Annotated[str, Doc("the variable holding the key")] = "OPENAI_API_KEY",
                 require_api_key: Annotated[bool, Doc("stop at once when $api_key_env is empty (hosted "
                                                      "APIs); local servers take any key")] = False,
                 temperature: Annotated[float | None, Range(0.0), Doc("None: the server's default (reasoning "
                                                                      "models refuse any but theirs)")] = 0.0,
                 max_tokens: Annotated[int, Range(1), Doc("completion tokens at most")] = 1024,
                 max_tokens_field: Annotated[str, OneOf("max_tokens", "max_completion_tokens"),
                                             Doc("max_completion_tokens for OpenAI reasoning models")] = "max_tokens",
                 stream: Annotated[bool, Doc("ask for a streamed reply and aggregate it")] = False,
                 extra_body: Annotated[dict | None, Doc("more request fields, as the server names them")] = None,
                 concurrency: Annotated[int, Range(1), Doc("requests in flight")] = 16,
                 timeout: Annotated[float, Range(0.0), Doc("seconds of wall time per attempt, streamed or not "
                                                           "(a timeout failure)")] = 120.0,
                 max_retries: Annotated[int, Range(0), Doc("408/409/429/5xx, timeouts, refused connections, "
                                                           "malformed bodies; backoff with jitter")] = 5,
                 backoff_base: Annotated[float, Range(0.0), Doc("first backoff, doubled per retry")] = 0.5,
                 backoff_max: Annotated[float, Range(0.0), Doc("longest backoff (Retry-After capped here)")] = 30.0,
                 request_budget: Annotated[int | None, Range(0), Doc("at most this many HTTP requests (retries "
                                                                     "included) per run")] = None,
                 http_backend: Annotated[str, OneOf("aiohttp", "httpx"), Doc("the transport")] = "aiohttp",
                 seed: Annotated[int | None, Doc("sent with each request while sampling (temperature > 0): "
                                                 "the run's seed")] = None) -> None:
        if require_api_key and not (api_key or os.environ.get(api_key_env)):
            raise ValueError(f"model {model}: the environment variable {api_key_env} holding its API key is not "
                             "set (a local server takes any key: client.require_api_key=false)")
        self.model = model
        self.model_id = f"openai:{model}"
        self.base_url = base_url or os.environ.get(base_url_env) or None
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            where = "the base URL" if base_url else f"${base_url_env}"
            raise ValueError(f"{where} {self.base_url!r} is not an http(s) URL; an OpenAI-compatible server's "
                             "looks like http://127.0.0.1:8000/v1")
        self.base_url_env, self.api_key_env = base_url_env, api_key_env
        self._api_key = api_key or os.environ.get(api_key_env) or "EMPTY"  # local servers accept any key
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout
        self.max_retries, self.stream, self.extra_body = max_retries, stream, dict(extra_body or {})
        self.max_tokens_field, self.concurrency = max_tokens_field, concurrency
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.budget = RequestBudget(request_budget)
        self.http_backend = http_backend
        self.seed = seed
        self._client = None
        self._loop = None
        self._sem: asyncio.Semaphore | None = None

    @property
    def server(self) -> str:
        """The endpoint requests go to, as the cache keys name it."""
        return (self.base_url or OPENAI_URL).rstrip("/")

    @property
    def sampling(self) -> bool:
        """Whether replies are sampled: a temperature above 0, or none set (the server's default)."""
        return self.temperature is None or self.temperature > 0

    @property
    def sampling_seed(self) -> int | None:
        """The seed sent with each request while sampling (servers that honour it, vLLM, SGLang
        and OpenAI among them, then sample reproducibly); None when decoding is greedy."""
        return self.seed if self.sampling else None

    def identity(self) -> dict:
        """What, besides the messages, determines a reply (module docstring)."""
        out = {"model": self.model, "server": self.server, "temperature": self.temperature,
               "max_tokens": self.max_tokens, "max_tokens_field": self.max_tokens_field,
               "stream": self.stream, "extra_body": self.extra_body}
        if self.sampling_seed is not None:   # greedy replies are shared by every seed
            out["seed"] = self.sampling_seed
        return out

    def _bind(self):
        """The transport and semaphore of the running event loop (both are bound to one loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = make_transport(self.http_backend, self.server, self._api_key, self.timeout,
                                          self.concurrency)
            self._sem = asyncio.Semaphore(self.concurrency)
            self._loop = loop
        return self._client

    def body(self, messages: list[dict], **overrides) -> dict:
        body = {"model": self.model, "messages": messages, self.max_tokens_field: self.max_tokens}
        if self.temperature is not None:  # reasoning models (GPT-5) reject any temperature but 1
            body["temperature"] = self.temperature
        if self.sampling_seed is not None:
            body["seed"] = self.sampling_seed
        if self.stream:
            body.update(stream=True, stream_options={"include_usage": True})
        return {**body, **self.extra_body, **overrides}

    def _backoff(self, attempt: int, exc: BaseException | None) -> float:
        cap = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        value = getattr(exc, "retry_after", None)
        try:
            asked = max(0.0, float(value)) if value is not None else 0.0
        except ValueError:
            asked = 0.0  # an HTTP date: fall back to our own backoff
        return min(self.backoff_max, max(asked, random.uniform(0, cap)))

    async def _attempt(self, client, body: dict) -> Completion:
        try:
            async with asyncio.timeout(self.timeout):
                raw = await client.post("/chat/completions", body)
        except TimeoutError as exc:
            raise _Deadline from exc
        return parse_completion(raw)

    async def achat(self, messages: list[dict], **overrides) -> ChatReply:
        client = self._bind()
        body = self.body(messages, **overrides)
        attempts = 0
        async with self._sem:
            start = time.perf_counter()   # time in the request, not in the queue for a slot
            while True:
                if not self.budget.take():
                    error = f"budget_exhausted: the run's request budget of {self.budget.limit} is used up"
                    break
                attempts += 1
                try:
                    done = await self._attempt(client, body)
                    return ChatReply(done.text, done.usage, seconds=time.perf_counter() - start, attempts=attempts,
                                     finish_reason=done.finish_reason, model=done.model)
                except (HTTPStatusError, ConnectionFailed, ReadTimeout, _Deadline, MalformedResponse) as exc:
                    error, retryable = self._describe(exc, attempts)
                    if not retryable or attempts > self.max_retries:
                        break
                    await asyncio.sleep(self._backoff(attempts, exc))
        return ChatReply(None, error=error, seconds=time.perf_counter() - start, attempts=attempts)

    def _describe(self, exc: BaseException, attempts: int) -> tuple[str, bool]:
        """(error string starting with its reason, whether another attempt may help)."""
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        if isinstance(exc, _Deadline):
            return f"timeout: no complete reply within {self.timeout:g} s ({tries}; the timeout setting)", True
        if isinstance(exc, MalformedResponse):
            return f"malformed_response: {tries}: {exc}", True
        if isinstance(exc, HTTPStatusError):
            status, message = exc.status, exc.message
            if status in (400, 413) and any(s in message.lower() for s in _CONTEXT_ERRORS):
                return f"over_length: HTTP {status}: {message}", False
            hint = self._status_hint(status)
            return (f"api_error: HTTP {status} from {self.server} {tries}: {message}{hint}",
                    status in RETRYABLE_STATUS or status >= 500)
        if isinstance(exc, ConnectionFailed):
            return (f"api_error: connection to {self.server} failed ({exc}) {tries}: "
                    f"is the server running, and is the base URL (or ${self.base_url_env}) right?"), True
        return f"timeout: {exc} ({tries}; the timeout setting)", True

    def _status_hint(self, status: int) -> str:
        if status == 404:
            if not self.server.endswith("/v1") and "/v1/" not in self.server + "/":
                return (f" (no chat-completions endpoint at {self.server}/chat/completions: OpenAI-compatible "
                        f"servers serve it under /v1, so the base URL is probably {self.server}/v1)")
            return f" (is the model name {self.model!r} served there, and the base URL right?)"
        if status in (401, 403):
            return (f" (authentication: set ${self.api_key_env} to a key this server accepts; "
                    f"{'it is not set' if self._api_key == 'EMPTY' else 'the key set was refused'})")
        return ""

    async def achat_many(self, conversations: list[list[dict]], **overrides) -> list[ChatReply]:
        """Every conversation, at most ``concurrency`` in flight; replies in input order."""
        return list(await asyncio.gather(*(self.achat(m, **overrides) for m in conversations)))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        self._client = self._loop = None

    def _run(self, coroutine_factory):
        async def scoped():
            try:
                return await coroutine_factory()
            finally:
                await self.aclose()
        return run_sync(scoped)

    def chat(self, messages: list[dict], **overrides) -> ChatReply:
        """Synchronous call (one event loop per call; use ``achat``/``chat_many`` for concurrency)."""
        return self._run(lambda: self.achat(messages, **overrides))

    def chat_many(self, conversations: list[list[dict]], **overrides) -> list[ChatReply]:
        return self._run(lambda: self.achat_many(conversations, **overrides))
