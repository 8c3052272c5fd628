"""LLM judges for TCR@15 and Overall Quality: a chat backend, versioned prompts, strict parsing and
an on-disk cache of judgments.

Clients (``judge.client._target_`` in ``conf/judge/``):
    openai   any OpenAI-compatible server through ``ham.backends.chat.ChatClient`` (retries 429/5xx/timeouts)
    hf       a local transformers model through ``ham.generate.hf.HFGenerator`` (``HFChat``: system
             and user messages joined into one user turn, greedy decoding)
``judge=none`` (``_target_: null``) is no judge: judged metrics are reported as not computed.

Concurrency: ``ajudge`` is the same judgment as a coroutine; the runner judges every question in
flight at once through it, bounded by the client's ``concurrency`` and subject to its retries,
deadline and request budget (one ``ChatClient`` per judge, bound to the runner's event loop). A
local (``hf``) judge runs one judgment at a time on its own thread.

Cache: a ``ham.cache.KeyedStore`` per (judge model and settings, prompt version) under
``<cache root>/judgments/``, one small JSON file per judgment keyed by the hash of the rendered
messages (the input), written by atomic rename so grid cells judging at once on a shared (NFS)
cache never tear each other's entries. Only valid judgments are cached; an API error or an
unparseable reply is a judge failure, recorded and counted, and asked again on the next run.
"""
from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from typing import Annotated

from ham.backends.aio import run_sync
from ham.backends.chat import ChatClient, ChatReply
from ham.cache import KeyedStore, key_of
from ham.enrich.calls import TextPrompt
from ham.generate.cache import WriteBehind
from ham.metrics.judge_prompt import JudgeParseError, JudgePrompt
from ham.settings import Doc, Model, PromptRef, Range, Runtime

# every judged metric's prompt (TCR@15, Qual., and TopoGraphRAG-Bench's: docs/topology.md)
DEFAULT_PROMPTS = {name: f"{name}_v1" for name in (
    "tcr15", "overall_quality", "context_precision", "context_recall", "answer_accuracy", "answer_accuracy_swapped",
    "faithfulness_statements", "faithfulness", "response_relevancy", "step_coverage")}


@dataclass
class Judgment:
    metric: str
    prompt: str
    model: str
    value: float | None = None
    scores: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    cached: bool = False
    reply: str | None = None
    usage: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"value": self.value, "scores": self.scores, "prompt": self.prompt, "cached": self.cached}
        if self.error:
            out = {"error": self.error, "prompt": self.prompt, "reply": (self.reply or "")[:500]}
        return out


class JudgmentCache:
    """Valid judgments of one (judge model, prompt version), one JSON file per input hash."""

    def __init__(self, root: Path, model: str, prompt: str, settings: dict | None = None) -> None:
        slug = re.sub(r"[^\w.-]+", "_", model)[:60]
        ident = [model, prompt] if not settings else [model, prompt, settings]
        self.store = KeyedStore(root, f"judgments/{slug}-{key_of(ident)[:8]}/{prompt}")
        self.path = self.store.folder

    def get(self, input_hash: str) -> dict | None:
        return self.store.get(input_hash)

    def put(self, entry: dict) -> None:
        self.store.put(entry["input"], entry)


class HFChat:
    """A local transformers model behind the ``chat(messages) -> ChatReply`` interface."""

    concurrency = 1   # one local model answers one call at a time

    def __init__(self, model: Annotated[str, Model(), Doc("smollm2 (bundled), a local folder, or a hub id in "
                                                          "the HF cache")] = "smollm2",
                 max_new_tokens: Annotated[int, Range(1)] = 512,
                 max_prompt_tokens: Annotated[int, Range(1)] = 6000,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 cache_root: Annotated[str, Doc("where the bundled GGUF is converted once")] = "outputs/cache") -> None:
        from ham.generate.hf import HFGenerator

        self.generator = HFGenerator(model=model, max_new_tokens=max_new_tokens, temperature=0.0,
                                     max_prompt_tokens=max_prompt_tokens, device=device, cache_root=cache_root,
                                     truncation_is_failure=False)
        self.model_id = self.generator.model_id   # the weights' content hash
        self._worker: ThreadPoolExecutor | None = None

    def identity(self) -> dict:
        """What besides the messages decides a verdict: the generation settings."""
        return self.generator.settings()

    def chat(self, messages: list[dict]) -> ChatReply:
        text = "\n\n".join(m["content"] for m in messages)
        g = self.generator.generate(TextPrompt(text))
        return ChatReply(g.text, g.usage, g.error, g.seconds)

    async def achat(self, messages: list[dict]) -> ChatReply:
        """``chat`` off the event loop, one call at a time."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ham-judge")
        return await asyncio.get_running_loop().run_in_executor(self._worker, self.chat, messages)

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=False)
            self._worker = None


class Judge:
    """Scores one metric's inputs with its prompt: cached, strictly parsed, failures as values."""

    def __init__(self, client: Annotated[ChatClient | HFChat, Doc("the judge model: an OpenAI-compatible server "
                                                                  "or a local model")],
                 prompts: Annotated[dict[str, str], PromptRef(), Doc("metric -> versioned prompt file in ham/metrics/prompts/ "
                                                        "(or a path)")] = DEFAULT_PROMPTS,
                 cache_root: Annotated[str | Path, Runtime()] = "outputs/cache") -> None:
        self.client, self.model, self.concurrency = client, client.model_id, client.concurrency
        self.prompts = {metric: JudgePrompt.load(name) for metric, name in dict(prompts).items()}
        for metric, prompt in self.prompts.items():
            if prompt.metric != metric:
                raise ValueError(f"judge prompt {prompt.name} is for {prompt.metric!r}, configured for {metric!r}")
        # what besides the messages determines a verdict: server, decoding settings (ChatClient.identity)
        settings = client.identity()
        self.caches = {m: JudgmentCache(Path(cache_root), self.model, p.name, settings)
                       for m, p in self.prompts.items()}
        self._writer = WriteBehind()
        self._inflight: dict[tuple, asyncio.Future] = {}

    def _lookup(self, metric: str, fields: dict[str, str]):
        prompt = self.prompts[metric]
        messages = prompt.render(fields)
        input_hash = key_of(messages)
        base = {"metric": metric, "prompt": prompt.name, "model": self.model}
        hit = self.caches[metric].get(input_hash)
        if hit is not None:
            return messages, input_hash, Judgment(**base, value=prompt.value(hit["scores"]),
                                                  scores=hit["scores"], cached=True, reply=hit.get("reply"))
        return messages, input_hash, None

    def judge(self, metric: str, fields: dict[str, str], n_items: int | None = None) -> Judgment:
        """One judgment of ``metric``'s prompt on ``fields``, synchronously (``ajudge`` is the form
        metrics and the runner use); ``n_items``: how many numbered verdicts a per-item prompt must
        return (``judge_prompt``)."""
        async def once():
            try:
                return await self.ajudge(metric, fields, n_items)
            finally:
                await self.aclose()
        return run_sync(once)

    async def ajudge(self, metric: str, fields: dict[str, str], n_items: int | None = None) -> Judgment:
        """``judge`` as a coroutine: many judgments in flight through one client. Identical
        judgments in flight at once are asked once (context precision per unit and joint ask the
        same thing when one unit is retrieved); the others share its reply, marked ``cached``."""
        messages, input_hash, hit = self._lookup(metric, fields)
        if hit is not None:
            return hit
        key = (metric, input_hash, n_items)
        pending = self._inflight.get(key)
        if pending is not None:
            return replace(await asyncio.shield(pending), cached=True)
        future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            judgment = await self._ask(metric, messages, input_hash, n_items)
            future.set_result(judgment)
            return judgment
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()   # retrieved: no "never retrieved" warning when nobody else waits
            raise
        finally:
            del self._inflight[key]

    async def _ask(self, metric: str, messages: list[dict], input_hash: str, n_items: int | None) -> Judgment:
        reply = await self.client.achat(messages)
        judgment, entry = self._parse(metric, input_hash, reply, n_items)
        if entry is not None:   # written off the event loop
            self._writer.put(self.caches[metric].store, entry["input"], entry)
        return judgment

    async def aclose(self) -> None:
        await asyncio.to_thread(self._writer.drain)
        await self.client.aclose()

    def _parse(self, metric: str, input_hash: str, reply: ChatReply,
               n_items: int | None = None) -> tuple[Judgment, dict | None]:
        """The judgment of a reply, and the cache entry to keep (None for a failure)."""
        prompt = self.prompts[metric]
        base = {"metric": metric, "prompt": prompt.name, "model": self.model}
        if reply.error:
            return Judgment(**base, error=reply.error, usage=reply.usage), None
        try:
            scores = prompt.parse_reply(reply.text, n_items)
        except JudgeParseError as exc:
            return Judgment(**base, error=f"unparseable: {exc}", reply=reply.text, usage=reply.usage), None
        entry = {"input": input_hash, "model": self.model, "prompt": prompt.name, "scores": scores,
                 "reply": reply.text, "usage": reply.usage}
        return Judgment(**base, value=prompt.value(scores), scores=scores, reply=reply.text,
                        usage=reply.usage), entry

    def info(self) -> dict:
        return {"model": self.model, "prompts": {m: p.name for m, p in self.prompts.items()},
                "cache": {m: str(c.path) for m, c in self.caches.items()}}
