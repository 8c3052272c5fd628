"""OpenAI-compatible chat completions (OpenAI, vLLM, SGLang, Ollama, ``transformers serve``)
through the ``openai`` SDK. Shared by generators, judges, summarisers and image describers.

Retries: the SDK retries 408/409/429/5xx responses, timeouts and connection errors with
exponential backoff and jitter (``max_retries``). A reply that still fails, or whose body cannot
be read, becomes a ``ChatReply`` with ``error`` set (never an exception), so callers can record
the failure and go on. ``stream=True`` aggregates a streamed reply, for servers that only answer
in chunks. The base URL and key come from the config or the environment (``OPENAI_BASE_URL``,
``OPENAI_API_KEY`` by default); keys are never written to disk by ham.
"""
from __future__ import annotations

import asyncio
import os
import time
from dataclasses import asdict, dataclass, field


@dataclass
class ChatReply:
    text: str | None
    usage: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


class ChatClient:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 base_url_env: str = "OPENAI_BASE_URL", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.2, max_tokens: int = 4000, timeout: float = 120.0,
                 max_retries: int = 5, stream: bool = False, extra_body: dict | None = None) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get(base_url_env) or None
        self._api_key = api_key or os.environ.get(api_key_env) or "EMPTY"  # local servers accept any key
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout
        self.max_retries, self.stream, self.extra_body = max_retries, stream, dict(extra_body or {})
        self._client = None

    def _async_client(self):
        from openai import AsyncOpenAI

        if self._client is None:
            self._client = AsyncOpenAI(base_url=self.base_url, api_key=self._api_key,
                                       timeout=self.timeout, max_retries=self.max_retries)
        return self._client

    async def achat(self, messages: list[dict], **overrides) -> ChatReply:
        import openai

        start = time.perf_counter()
        params = {"model": self.model, "messages": messages, "temperature": self.temperature,
                  "max_tokens": self.max_tokens, **overrides}
        if self.extra_body:
            params["extra_body"] = self.extra_body
        try:
            if self.stream:
                text, usage = await self._streamed(params)
            else:
                response = await self._async_client().chat.completions.create(**params)
                text = response.choices[0].message.content if response.choices else None
                usage = response.usage.model_dump() if response.usage else {}
        except openai.APIStatusError as exc:
            return ChatReply(None, error=f"api_error: HTTP {exc.status_code} after retries: {exc.message}",
                             seconds=time.perf_counter() - start)
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            return ChatReply(None, error=f"api_error: {exc.__class__.__name__} after retries",
                             seconds=time.perf_counter() - start)
        except (ValueError, openai.APIResponseValidationError, openai.APIError) as exc:
            return ChatReply(None, error=f"malformed_response: {exc.__class__.__name__}: {exc}",
                             seconds=time.perf_counter() - start)
        return ChatReply(text, usage, seconds=time.perf_counter() - start)

    async def _streamed(self, params: dict) -> tuple[str, dict]:
        parts: list[str] = []
        usage: dict = {}
        stream = await self._async_client().chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True})
        async for chunk in stream:
            for choice in chunk.choices or []:
                if choice.delta and choice.delta.content:
                    parts.append(choice.delta.content)
            if getattr(chunk, "usage", None):
                usage = chunk.usage.model_dump()
        return "".join(parts), usage

    def chat(self, messages: list[dict], **overrides) -> ChatReply:
        """Synchronous call (one event loop per call; use ``achat`` for concurrency)."""
        self._client = None  # an AsyncOpenAI client is bound to the loop that created it
        return asyncio.run(self.achat(messages, **overrides))
