"""Any OpenAI-compatible server (OpenAI, Gemini's and DeepSeek's OpenAI endpoints, vLLM, SGLang,
Ollama, ``transformers serve``) as a backbone, through ``ham.backends.chat.ChatClient``.

Everything about the server, the model and decoding is the ``client`` block (``generator.client``,
``ham.backends.chat.ChatClient``): the paper's settings are in the per-backbone configs
(temperature 0.2, at most 4,000 completion tokens, no streaming). Requests run concurrently
(``client.concurrency`` in flight), each bounded by ``client.timeout`` seconds of wall time, with
retries, backoff and the run's request budget handled by the client. Multimodal prompts
(``mllm_based``) are sent as content parts with each image as a base64 data URL. A reply cut at
``max_tokens`` (``finish_reason: "length"``) is an ``over_length`` failure unless
``truncation_is_failure`` is off. With ``client.require_api_key`` (the hosted APIs' configs) a
missing key stops the run before any question.
"""
from __future__ import annotations

import asyncio

from typing import Annotated

from ham.backends.aio import run_sync
from ham.backends.chat import ChatClient
from ham.generate.base import Generation, Generator
from ham.images import UnreadableImage
from ham.settings import Doc


class OpenAIGenerator(Generator):
    is_async = True

    def __init__(self, client: Annotated[ChatClient, Doc("the server, the model and its decoding settings")],
                 truncation_is_failure: Annotated[bool, Doc("a reply cut at max_tokens is an over_length "
                                                            "failure")] = True,
                 pricing: Annotated[str | None, Doc("row of the price table (cost) this backbone is priced "
                                                    "at")] = None) -> None:
        self.client = client
        self.model_id = f"openai:{client.model}"
        self.batch_size = client.concurrency
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
