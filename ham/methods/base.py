"""What every method hands to a generator."""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from ham.retrieve import Retrieved


@dataclass
class Prompt:
    question: str
    text: str                              # the full prompt sent to a text model
    slots: dict[int, tuple[str, str]]      # image slot -> (unit id, image reference)
    retrieved: Retrieved
    template: str                          # template file name, which carries its version

    def to_dict(self) -> dict:
        return {"text": self.text, "template": self.template,
                "slots": {str(k): list(v) for k, v in self.slots.items()}}


def load_template(name: str) -> str:
    return resources.files("ham.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
