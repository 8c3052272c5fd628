"""Any OpenAI-compatible server (OpenAI, Gemini's and DeepSeek's OpenAI endpoints, vLLM, SGLang,
Ollama, ``transformers serve``) as a backbone, through ``ham.backends.chat.ChatClient``.

The paper's settings are in the per-backbone configs: temperature 0.2, at most 4,000 completion
tokens, no streaming (``stream: true`` aggregates a streamed reply for servers that only answer in
chunks). Requests run concurrently (``concurrency`` in flight), each bounded by ``timeout`` seconds
of wall time (streamed or not), with retries, backoff and the run's request budget handled by the
client. Multimodal prompts (``mllm_based``) are sent as content parts with each image as a base64
data URL. A reply cut at ``max_tokens`` (``finish_reason: "length"``) is an ``over_length`` failure
unless ``truncation_is_failure`` is off. With ``require_api_key`` (the hosted APIs' configs) a
missing key stops the run before any question instead of failing every one; local servers take
any key.
"""
from __future__ import annotations

import asyncio
import os

from ham.backends.aio import run_sync
from ham.backends.chat import ChatClient
from ham.generate.base import Generation, Generator
from ham.images import UnreadableImage


class OpenAIGenerator(Generator):
    is_async = True

    def __init__(self, model: str, base_url: str | None = None, base_url_env: str = "OPENAI_BASE_URL",
                 api_key_env: str = "OPENAI_API_KEY", temperature: float | None = 0.2, max_tokens: int = 1024,
                 max_tokens_field: str = "max_tokens", stream: bool = False, concurrency: int = 16,
                 max_retries: int = 5, timeout: float = 300.0, backoff_base: float = 0.5, backoff_max: float = 60.0,
                 request_budget: int | None = None, truncation_is_failure: bool = True,
                 extra_body: dict | None = None, http_backend: str = "aiohttp", pricing: str | None = None,
                 require_api_key: bool = False, seed: int | None = None) -> None:
        if require_api_key and not os.environ.get(api_key_env):
            raise ValueError(f"generator {model}: the environment variable {api_key_env} holding its API key "
                             "is not set (a local server takes any key: generator.require_api_key=false)")
        self.client = ChatClient(model, base_url=base_url, base_url_env=base_url_env, api_key_env=api_key_env,
                                 temperature=temperature, max_tokens=max_tokens, timeout=timeout,
                                 max_retries=max_retries, stream=stream, extra_body=dict(extra_body or {}),
                                 max_tokens_field=max_tokens_field, max_concurrency=concurrency,
                                 backoff_base=backoff_base, backoff_max=backoff_max, request_budget=request_budget,
                                 http_backend=http_backend, seed=seed)
        self.model_id = f"openai:{model}"
        self.batch_size = concurrency
        self.truncation_is_failure, self.pricing = truncation_is_failure, pricing

    @property
    def budget(self):
        return self.client.budget

    def settings(self) -> dict:
        """The generation cache's key besides the prompt: server, decoding settings, stream
        aggregation (``ChatClient.identity``)."""
        return {**self.client.identity(), "truncation_is_failure": self.truncation_is_failure}

    async def agenerate(self, prompt) -> Generation:
        try:
            messages = prompt.messages()
        except (UnreadableImage, OSError) as exc:
            return Generation(None, self.model_id, error=f"bad_input: {exc}")
        reply = await self.client.achat(messages)
        error = reply.error
        if error is None and reply.finish_reason == "length" and self.truncation_is_failure:
            error = f"over_length: the reply reached max_tokens={self.client.max_tokens}"
        return Generation(None if error else reply.text, self.model_id, reply.usage, error, round(reply.seconds, 4),
                          reply.finish_reason, reply.attempts, served_model=reply.model)

    async def aclose(self) -> None:
        await self.client.aclose()

    def generate_batch(self, prompts: list) -> list[Generation]:
        async def all_prompts():
            try:
                return await asyncio.gather(*(self.agenerate(p) for p in prompts))
            finally:
                await self.aclose()
        return list(run_sync(all_prompts))
