"""Generators (backbones). Each takes ``Prompt`` objects and returns ``Generation`` objects.

A generator has ``model_id``, ``settings()`` (the decoding settings that, with the model and the
prompt, identify a generation in the cache) and either ``generate_batch(prompts)`` (local models:
``batch_size`` prompts at a time) or, when ``is_async``, ``agenerate(prompt)`` (remote backbones:
many requests in flight). ``pricing`` names its row of the price table (``conf/cost``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Generation:
    """A model's raw reply, or the reason there is none (``error``: "reason: detail"), with token
    usage, the number of HTTP attempts (remote backbones) and whether it came from the cache."""

    text: str | None
    model: str
    usage: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    finish_reason: str | None = None
    attempts: int = 0
    cached: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def failure_reason(self) -> str | None:
        return self.error.split(":", 1)[0] if self.error else None


class Generator:
    model_id = ""
    pricing: str | None = None
    batch_size = 1
    is_async = False
    cacheable = True     # False for model-free generators: recomputing is cheaper than a file

    def settings(self) -> dict:
        return {}

    def generate(self, prompt) -> Generation:
        return self.generate_batch([prompt])[0]

    def generate_batch(self, prompts: list) -> list[Generation]:
        return [self.generate(p) for p in prompts]
