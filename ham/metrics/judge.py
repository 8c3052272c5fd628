"""LLM judges for TCR@15 and Overall Quality: a chat backend, versioned prompts, strict parsing and
an on-disk cache of judgments.

Backends (registry ``JUDGE_BACKENDS``, chosen by ``judge.backend`` in ``conf/judge/``):
    openai   any OpenAI-compatible server through ``ham.backends.chat.ChatClient`` (retries 429/5xx/timeouts)
    hf       a local transformers model through ``ham.generate.hf.HFGenerator`` (system and user
             messages joined into one user turn, greedy decoding)
    none     no judge: judged metrics are reported as not computed

Cache: a ``ham.cache.KeyedStore`` per (judge model, prompt version) under
``<cache root>/judgments/``, one small JSON file per judgment keyed by the hash of the rendered
messages (the input), written by atomic rename so grid cells judging at once on a shared (NFS)
cache never tear each other's entries. Only valid judgments are cached; an API error or an
unparseable reply is a judge failure, recorded and counted, and asked again on the next run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from omegaconf import OmegaConf

from ham.cache import KeyedStore, key_of
from ham.backends.chat import ChatClient, ChatReply
from ham.metrics.judge_prompt import JudgeParseError, JudgePrompt


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

    def __init__(self, root: Path, model: str, prompt: str) -> None:
        slug = re.sub(r"[^\w.-]+", "_", model)[:60]
        self.store = KeyedStore(root, f"judgments/{slug}-{key_of([model, prompt])[:8]}/{prompt}")
        self.path = self.store.folder

    def get(self, input_hash: str) -> dict | None:
        return self.store.get(input_hash)

    def put(self, entry: dict) -> None:
        self.store.put(entry["input"], entry)


class HFChat:
    """A local transformers model behind the ``chat(messages) -> ChatReply`` interface."""

    def __init__(self, **generator_kwargs) -> None:
        from ham.generate.hf import HFGenerator

        self.generator = HFGenerator(**generator_kwargs)

    def chat(self, messages: list[dict]) -> ChatReply:
        text = "\n\n".join(m["content"] for m in messages)
        g = self.generator.generate(SimpleNamespace(text=text))
        return ChatReply(g.text, g.usage, g.error, g.seconds)


def _openai_client(cfg: dict, cache_root: Path):
    return ChatClient(cfg["model"], base_url=cfg.get("base_url"), base_url_env=cfg.get("base_url_env", "OPENAI_BASE_URL"),
                      api_key_env=cfg.get("api_key_env", "OPENAI_API_KEY"), temperature=cfg.get("temperature", 0.0),
                      max_tokens=cfg.get("max_tokens", 1024), timeout=cfg.get("timeout", 120.0),
                      max_retries=cfg.get("max_retries", 5), stream=cfg.get("stream", False))


def _hf_client(cfg: dict, cache_root: Path):
    return HFChat(model=cfg["model"], max_new_tokens=cfg.get("max_tokens", 512), temperature=0.0,
                  max_prompt_tokens=cfg.get("max_prompt_tokens", 6000), device=cfg.get("device"),
                  cache_root=str(cache_root))


JUDGE_BACKENDS = {"openai": _openai_client, "hf": _hf_client}


class Judge:
    """Scores one metric's inputs with its prompt: cached, strictly parsed, failures as values."""

    def __init__(self, client, model: str, prompts: dict[str, str], cache_root: str | Path) -> None:
        self.client, self.model = client, model
        self.prompts = {metric: JudgePrompt.load(name) for metric, name in prompts.items()}
        for metric, prompt in self.prompts.items():
            if prompt.metric != metric:
                raise ValueError(f"judge prompt {prompt.name} is for {prompt.metric!r}, configured for {metric!r}")
        self.caches = {m: JudgmentCache(Path(cache_root), model, p.name) for m, p in self.prompts.items()}

    def judge(self, metric: str, fields: dict[str, str]) -> Judgment:
        prompt = self.prompts[metric]
        messages = prompt.render(fields)
        input_hash = key_of(messages)
        base = {"metric": metric, "prompt": prompt.name, "model": self.model}
        hit = self.caches[metric].get(input_hash)
        if hit is not None:
            return Judgment(**base, value=float(hit["scores"][prompt.main]), scores=hit["scores"], cached=True,
                            reply=hit.get("reply"))
        reply = self.client.chat(messages)
        if reply.error:
            return Judgment(**base, error=reply.error, usage=reply.usage)
        try:
            scores = prompt.parse_reply(reply.text)
        except JudgeParseError as exc:
            return Judgment(**base, error=f"unparseable: {exc}", reply=reply.text, usage=reply.usage)
        self.caches[metric].put({"input": input_hash, "model": self.model, "prompt": prompt.name,
                                 "scores": scores, "reply": reply.text, "usage": reply.usage})
        return Judgment(**base, value=float(scores[prompt.main]), scores=scores, reply=reply.text, usage=reply.usage)

    def info(self) -> dict:
        return {"model": self.model, "prompts": {m: p.name for m, p in self.prompts.items()},
                "cache": {m: str(c.path) for m, c in self.caches.items()}}


def build_judge(cfg, cache_root: str | Path) -> Judge | None:
    """The configured judge, or None for ``judge=none`` (or no judge group at all)."""
    if cfg is None:
        return None
    if not isinstance(cfg, dict):
        cfg = OmegaConf.to_container(cfg, resolve=True)
    backend = cfg.get("backend", "none")
    if backend == "none":
        return None
    if backend not in JUDGE_BACKENDS:
        raise ValueError(f"unknown judge backend {backend!r}; known: none, {', '.join(sorted(JUDGE_BACKENDS))}")
    prompts = dict(cfg.get("prompts") or {})
    client = JUDGE_BACKENDS[backend](cfg, Path(cache_root))
    return Judge(client, f"{backend}:{cfg['model']}", prompts, cache_root)

