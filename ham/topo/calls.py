"""The builder's model calls: the run's generator (``generator`` group: ``openai`` or ``hf``, the same
objects generation uses, behind the same on-disk generation cache), prompts from versioned files,
replies parsed strictly, every call counted by task.

``ModelCalls.ask(task_prompt, items)`` renders one prompt per item, sends them in chunks of
``batch`` (an ``openai`` generator keeps ``concurrency`` requests in flight within a chunk, under its
``request_budget``; an ``hf`` generator runs ``batch_size`` at a time) and returns one ``Reply`` per
item: the parsed tags, or the failure (``generation``: the backend failed, e.g. ``api_error`` or
``budget_exhausted``; ``unparseable``: the reply broke the prompt's rules). Each chunk's replies
are in the generation cache before the next chunk is sent, so a killed build, run again, pays only
for what it had not received; transient failures are not cached and are asked again.

Per task the stats count calls, cache hits, fresh calls, failures by kind, and prompt and
completion tokens (fresh and from the cache: the tokens a build from scratch would spend).
"""
from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from ham.topo.prompt import ReplyError, TaskPrompt

log = logging.getLogger("ham.topo.calls")


@dataclass
class ChatPrompt:
    """A prompt as the generators take it: ``text`` (local models: system and user joined),
    ``messages()`` (chat APIs), ``digest()`` (the generation cache key), no images."""

    chat: list[dict]
    images: tuple = ()

    @property
    def text(self) -> str:
        return "\n\n".join(m["content"] for m in self.chat)

    def messages(self) -> list[dict]:
        return [dict(m) for m in self.chat]

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.chat, sort_keys=True).encode()).hexdigest()


@dataclass
class Reply:
    fields: dict | None
    error: str | None = None       # "generation: ..." or "unparseable: ..."
    raw: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class TaskStats:
    calls: int = 0
    cached: int = 0
    fresh: int = 0
    generation_failures: Counter = field(default_factory=Counter)
    unparseable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fresh_prompt_tokens: int = 0
    fresh_completion_tokens: int = 0
    examples: list = field(default_factory=list)   # the first few failures, for the report

    def to_dict(self) -> dict:
        return {"calls": self.calls, "cached": self.cached, "fresh": self.fresh,
                "generation_failures": dict(self.generation_failures), "unparseable": self.unparseable,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "fresh_prompt_tokens": self.fresh_prompt_tokens,
                "fresh_completion_tokens": self.fresh_completion_tokens, "failure_examples": self.examples}


class ModelCalls:
    def __init__(self, generator, batch: int = 64, progress: bool = False) -> None:
        if getattr(generator, "inner", generator).__class__.__name__ == "ExtractiveGenerator" or \
                str(getattr(generator, "model_id", "")).startswith("extractive"):
            raise ValueError("ham-topo needs a language model to write and check questions: "
                             "generator=openai generator.client.model=NAME (any OpenAI-compatible server) or "
                             "generator=smollm2 / generator=hf generator.model=FOLDER")
        self.generator, self.batch, self.progress = generator, max(1, int(batch)), progress
        self.stats: dict[str, TaskStats] = defaultdict(TaskStats)
        self.prompts: dict[str, str] = {}

    @property
    def model_id(self) -> str:
        return self.generator.model_id

    @property
    def model_name(self) -> str:
        return getattr(self.generator, "model_name", "") or self.generator.model_id

    def ask(self, prompt: TaskPrompt, items: Sequence[dict], n_of=None, what: str | None = None) -> list[Reply]:
        """One reply per item (``items``: the prompt's fields); ``n_of(item)`` gives the number of
        numbered tags the reply must hold."""
        task = what or prompt.task
        self.prompts[task] = prompt.name
        stats = self.stats[task]
        chats = [ChatPrompt(prompt.render(item)) for item in items]
        out: list[Reply] = []
        from tqdm import tqdm

        bar = tqdm(total=len(chats), desc=f"ham-topo {task}", unit="call", disable=not self.progress or not chats)
        for start in range(0, len(chats), self.batch):
            chunk = chats[start:start + self.batch]
            generations = self.generator.generate_batch(chunk)
            bar.update(len(chunk))
            for k, g in enumerate(generations):
                item = items[start + k]
                stats.calls += 1
                stats.cached += bool(g.cached)
                stats.fresh += not g.cached
                usage = g.usage or {}
                stats.prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
                stats.completion_tokens += int(usage.get("completion_tokens", 0) or 0)
                if not g.cached:
                    stats.fresh_prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
                    stats.fresh_completion_tokens += int(usage.get("completion_tokens", 0) or 0)
                if g.error:
                    stats.generation_failures[g.failure_reason or "error"] += 1
                    out.append(self._failed(stats, f"generation: {g.error}", None, g.cached))
                    continue
                try:
                    fields = prompt.parse_reply(g.text, n_of(item) if n_of else None)
                except ReplyError as exc:
                    stats.unparseable += 1
                    out.append(self._failed(stats, f"unparseable: {exc}", g.text, g.cached))
                    continue
                out.append(Reply(fields, raw=g.text, cached=bool(g.cached)))
        bar.close()
        return out

    @staticmethod
    def _failed(stats: TaskStats, error: str, raw, cached) -> Reply:
        if len(stats.examples) < 3:
            stats.examples.append({"error": error[:300], "reply": (raw or "")[:300]})
        return Reply(None, error, raw, bool(cached))

    def summary(self, price: dict | None = None) -> dict:
        tasks = {t: s.to_dict() for t, s in sorted(self.stats.items())}
        total = {k: sum(s[k] for s in tasks.values()) for k in
                 ("calls", "cached", "fresh", "unparseable", "prompt_tokens", "completion_tokens",
                  "fresh_prompt_tokens", "fresh_completion_tokens")}
        total["generation_failures"] = sum(sum(s["generation_failures"].values()) for s in tasks.values())
        out = {"model": self.model_id, "prompts": dict(sorted(self.prompts.items())), "tasks": tasks, "total": total,
               "usd_per_1m_tokens": price, "cents": None, "fresh_cents": None}
        if price:
            def cents(p, c):
                return round((p * float(price["prompt"]) + c * float(price["completion"])) / 1e4, 4)
            out["cents"] = cents(total["prompt_tokens"], total["completion_tokens"])
            out["fresh_cents"] = cents(total["fresh_prompt_tokens"], total["fresh_completion_tokens"])
        return out
