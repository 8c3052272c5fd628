"""Versioned prompt files of the topology builder (``ham/topo/prompts/<task>_v<N>.txt``) and the
strict parsing of their replies. The file stem is the prompt's version; it keys every cached call
and is recorded in the build report. A file holds YAML front matter and the messages::

    ---
    task: atomic_qa
    version: 1
    texts: {question: 1, answer: 1}        # text tags: exactly that many (null: one or more)
    scores: [answerable]                   # integer tags, each within range (once, or repeated equal)
    range: [0, 1]
    numbered: point                        # numbered text tags <point_1> .. <point_N>, N given at parse
    choices: {pattern: [comparison, ...]}  # a text tag's only allowed values (case-insensitive)
    ---
    ### system
    ...
    ### user
    ... {{field}} ...

Parsing is strict, as ham's judge prompts (``ham.metrics.judge_prompt``): a missing tag, an
empty text, a wrong number of tags, an integer tag holding anything but an integer in range or
given twice with different values, a numbered tag outside 1..N, a value outside its choices, or
a tag opened more often than closed (``<answerable>0</answerable> wait, actually <answerable>1``:
a second verdict, even unclosed, is not read as the first) raises ``ReplyError`` with the reason. The builder counts it as a failure of that task; nothing is
ever filled in for a reply that does not parse.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ham.prompt_file import (PromptFile, ReplyError, fields_of, numbered_tags, render, require_closed, tagged,
                             tagged_integer, tagged_texts)


@dataclass(frozen=True)
class TaskPrompt:
    name: str
    task: str
    messages: tuple[tuple[str, str], ...]
    texts: tuple[tuple[str, int | None], ...] = ()
    scores: tuple[str, ...] = ()
    low: int = 0
    high: int = 1
    numbered: str | None = None
    choices: dict = field(default_factory=dict)

    @classmethod
    def load(cls, name_or_path: str) -> "TaskPrompt":
        return cls.from_file(PromptFile.load(name_or_path, "ham.topo.prompts", "topology prompt"))

    @classmethod
    def parse(cls, text: str, name: str) -> "TaskPrompt":
        return cls.from_file(PromptFile.parse(text, name, "topology prompt"))

    @classmethod
    def from_file(cls, prompt: PromptFile) -> "TaskPrompt":
        meta, name = prompt.meta, prompt.name
        if "task" not in meta:
            raise ValueError(f"topology prompt {name}: front matter lacks task")
        low, high = (int(x) for x in meta.get("range") or (0, 1))
        choices = {str(k): tuple(str(c).lower() for c in v) for k, v in (meta.get("choices") or {}).items()}
        return cls(name, str(meta["task"]), prompt.messages, prompt.text_tags, prompt.score_tags,
                   low, high, meta.get("numbered"), choices)

    @property
    def fields(self) -> set[str]:
        return fields_of(self.messages)

    def render(self, fields: dict) -> list[dict]:
        return render(self.messages, fields, f"topology prompt {self.name}")

    def parse_reply(self, reply: str | None, n: int | None = None) -> dict:
        """The reply's tags (module docstring), strictly: text tags as a string when exactly one is
        asked for, else a list; integer tags as int; numbered tags as a list of N strings."""
        if not reply or not reply.strip():
            raise ReplyError("empty reply")
        out: dict = {}
        for tag in [t for t, _ in self.texts] + list(self.scores):   # before any tag is read
            require_closed(reply, tag, tagged(reply, tag))
        for tag, count in self.texts:
            found = tagged_texts(reply, tag, count)
            allowed = self.choices.get(tag)
            if allowed and any(t.lower() not in allowed for t in found):
                bad = next(t for t in found if t.lower() not in allowed)
                raise ReplyError(f"<{tag}> = {bad[:40]!r} is not one of {', '.join(allowed)}")
            if allowed:
                found = [t.lower() for t in found]
            out[tag] = found[0] if count == 1 else found
        for tag in self.scores:
            out[tag] = tagged_integer(reply, tag, self.low, self.high)
        if self.numbered:
            if n is None or n < 1:
                raise ValueError(f"topology prompt {self.name} has numbered tags: parse_reply needs n >= 1")
            items = []
            for tag in numbered_tags(reply, self.numbered, n):
                found = tagged(reply, tag)
                if len(found) != 1 or not found[0]:
                    raise ReplyError(f"<{tag}> missing, empty or repeated")
                items.append(found[0])
            out[self.numbered] = items
        return out
