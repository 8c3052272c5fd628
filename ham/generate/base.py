from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Generation:
    """A model's raw reply, or the reason there is none (``error``), with token usage."""

    text: str | None
    model: str
    usage: dict = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)
