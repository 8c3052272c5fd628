"""OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, Ollama, ``transformers serve``)
through the ``openai`` SDK. Shared by generators, judges, summarisers and image describers.

    client = ChatClient("gpt-4o", max_concurrency=32)
    reply = client.chat([{"role": "user", "content": "..."}])           # or: await client.achat(...)
    replies = client.chat_many([messages_1, messages_2, ...])            # bounded concurrency

Retries (tenacity): 408/409/429/5xx responses, timeouts, connection errors and malformed bodies
are retried up to ``max_retries`` times with exponential backoff and full jitter
(``uniform(0, min(backoff_max, backoff_base * 2**n))``), never sooner than a ``Retry-After``
header asks. A reply that still fails becomes a ``ChatReply`` with ``error`` set (never an
exception), so callers record the failure and go on. Error strings start with a reason:
``api_error``, ``malformed_response``, ``over_length`` (the prompt exceeds the model's context),
``budget_exhausted`` (the ``RequestBudget`` ran out; every attempt, retries included, uses one).

Transport: requests go through the SDK's ``post`` with the body as JSON and the reply read as
bytes, over the SDK's aiohttp transport when available. The typed ``chat.completions.create``
path validates and transforms every parameter and reply (about 0.5 ms of CPU per request), which
at 64 concurrent requests was the difference between 0.83 and 0.9 of ideal throughput on two
cores (benchmarks/bench_openai_throughput.py). A reply sent as server-sent events, asked for
(``stream=True``) or not (``transformers serve`` 4.57 streams regardless), is aggregated.

The base URL and key come from the config or the environment (``OPENAI_BASE_URL``,
``OPENAI_API_KEY`` by default); keys are never written to disk by ham.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import time
from dataclasses import asdict, dataclass, field

log = logging.getLogger("ham.backends.chat")
RETRYABLE_STATUS = {408, 409, 429}
_CONTEXT_ERRORS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long")


@dataclass
class ChatReply:
    text: str | None
    usage: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    attempts: int = 0
    finish_reason: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


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


class BudgetExhausted(Exception):
    pass


def _status_retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, MalformedResponse))


def _retry_after(exc: BaseException | None) -> float:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else 0.0
    except ValueError:
        return 0.0  # an HTTP date: fall back to our own backoff


def parse_completion(raw: bytes) -> tuple[str | None, dict, str | None]:
    """(text, usage, finish_reason) of a chat-completion body, plain JSON or server-sent events."""
    stripped = raw.lstrip()
    if stripped.startswith(b"data:"):
        return _parse_event_stream(stripped)
    try:
        data = json.loads(raw)
        if "error" in data and "choices" not in data:
            raise MalformedResponse(f"error object in a 200 reply: {str(data['error'])[:200]}")
        choice = data["choices"][0]
        return choice["message"].get("content"), data.get("usage") or {}, choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise MalformedResponse(f"{exc.__class__.__name__}: {exc}; body starts {raw[:80]!r}") from exc


def _parse_event_stream(raw: bytes) -> tuple[str | None, dict, str | None]:
    parts: list[str] = []
    usage: dict = {}
    finish = None
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
    return "".join(parts), usage, finish


class ChatClient:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 base_url_env: str = "OPENAI_BASE_URL", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float | None = 0.2, max_tokens: int = 4000, timeout: float = 120.0,
                 max_retries: int = 5, stream: bool = False, extra_body: dict | None = None,
                 max_tokens_field: str = "max_tokens", max_concurrency: int = 16,
                 backoff_base: float = 0.5, backoff_max: float = 30.0,
                 request_budget: RequestBudget | int | None = None, http_backend: str = "aiohttp") -> None:
        self.model = model
        self.model_id = f"openai:{model}"
        self.base_url = base_url or os.environ.get(base_url_env) or None
        self._api_key = api_key or os.environ.get(api_key_env) or "EMPTY"  # local servers accept any key
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout
        self.max_retries, self.stream, self.extra_body = max_retries, stream, dict(extra_body or {})
        self.max_tokens_field, self.max_concurrency = max_tokens_field, max_concurrency
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.budget = request_budget if isinstance(request_budget, RequestBudget) else RequestBudget(request_budget)
        self.http_backend = http_backend
        self._client = None
        self._loop = None
        self._sem: asyncio.Semaphore | None = None

    def _bind(self):
        """The SDK client and semaphore of the running event loop (both are bound to one loop)."""
        from openai import AsyncOpenAI

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = AsyncOpenAI(base_url=self.base_url, api_key=self._api_key, timeout=self.timeout,
                                       max_retries=0, http_client=self._http_client())
            self._sem = asyncio.Semaphore(self.max_concurrency)
            self._loop = loop
        return self._client

    _async_client = _bind   # the name callers of the first version used

    def _http_client(self):
        if self.http_backend != "aiohttp":
            return None
        import openai

        try:
            return openai.DefaultAioHttpClient(timeout=self.timeout)
        except (AttributeError, RuntimeError):  # an SDK without the aiohttp transport
            log.info("openai SDK has no aiohttp transport here; using its default httpx transport")
            return None

    def body(self, messages: list[dict], **overrides) -> dict:
        body = {"model": self.model, "messages": messages, self.max_tokens_field: self.max_tokens}
        if self.temperature is not None:  # reasoning models (GPT-5) reject any temperature but 1
            body["temperature"] = self.temperature
        if self.stream:
            body.update(stream=True, stream_options={"include_usage": True})
        return {**body, **self.extra_body, **overrides}

    def _wait(self, state) -> float:
        cap = min(self.backoff_max, self.backoff_base * 2 ** (state.attempt_number - 1))
        exc = state.outcome.exception() if state.outcome else None
        return min(self.backoff_max, max(_retry_after(exc), random.uniform(0, cap)))

    async def achat(self, messages: list[dict], **overrides) -> ChatReply:
        import openai
        from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

        client = self._bind()
        body = self.body(messages, **overrides)
        attempts = 0
        retrying = AsyncRetrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._wait,
                                 retry=retry_if_exception(_status_retryable), reraise=True)

        def failed(error: str) -> ChatReply:
            return ChatReply(None, error=error, seconds=time.perf_counter() - start, attempts=attempts)

        async with self._sem:
            start = time.perf_counter()   # time in the request, not in the queue for a slot
            try:
                async for attempt in retrying:
                    with attempt:
                        if not self.budget.take():
                            raise BudgetExhausted
                        attempts += 1
                        raw = await client.post("/chat/completions", body=body, cast_to=bytes)
                        text, usage, finish = parse_completion(raw)
            except BudgetExhausted:
                return failed(f"budget_exhausted: the run's request budget of {self.budget.limit} is used up")
            except openai.APIStatusError as exc:
                message = str(exc.message)
                if exc.status_code in (400, 413) and any(s in message.lower() for s in _CONTEXT_ERRORS):
                    return failed(f"over_length: HTTP {exc.status_code}: {message[:300]}")
                return failed(f"api_error: HTTP {exc.status_code} after {attempts} attempts: {message[:300]}")
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                return failed(f"api_error: {exc.__class__.__name__} after {attempts} attempts")
            except MalformedResponse as exc:
                return failed(f"malformed_response: after {attempts} attempts: {exc}")
        return ChatReply(text, usage, seconds=time.perf_counter() - start, attempts=attempts,
                         finish_reason=finish)

    async def achat_many(self, conversations: list[list[dict]], **overrides) -> list[ChatReply]:
        """Every conversation, at most ``max_concurrency`` in flight; replies in input order."""
        return list(await asyncio.gather(*(self.achat(m, **overrides) for m in conversations)))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
        self._client = self._loop = None

    def _run(self, coroutine_factory):
        async def scoped():
            try:
                return await coroutine_factory()
            finally:
                await self.aclose()
        return asyncio.run(scoped())

    def chat(self, messages: list[dict], **overrides) -> ChatReply:
        """Synchronous call (one event loop per call; use ``achat``/``chat_many`` for concurrency)."""
        return self._run(lambda: self.achat(messages, **overrides))

    def chat_many(self, conversations: list[list[dict]], **overrides) -> list[ChatReply]:
        return self._run(lambda: self.achat_many(conversations, **overrides))
