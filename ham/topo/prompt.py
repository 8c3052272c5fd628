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
given twice with different values, a numbered tag outside 1..N, or a value outside its choices
raises ``ReplyError`` with the reason. The builder counts it as a failure of that task; nothing is
ever filled in for a reply that does not parse.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)
_ROLE = re.compile(r"^###\s*(system|user|assistant)\s*$", re.MULTILINE)
_FIELD = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_INT = re.compile(r"\s*([+-]?\d+)\s*")


class ReplyError(ValueError):
    """A model reply that does not parse under its prompt's rules."""


def tagged(reply: str, tag: str) -> list[str]:
    """Contents of every ``<tag>...</tag>`` in the reply, in order, whitespace collapsed."""
    found = re.findall(rf"<\s*{tag}\s*>(.*?)<\s*/\s*{tag}\s*>", reply, re.IGNORECASE | re.DOTALL)
    return [" ".join(t.split()) for t in found]


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
        path = Path(name_or_path)
        if path.suffix == ".txt" and path.exists():
            return cls.parse(path.read_text(encoding="utf-8"), path.stem)
        ref = resources.files("ham.topo.prompts").joinpath(f"{name_or_path}.txt")
        if not ref.is_file():
            raise FileNotFoundError(f"topology prompt {name_or_path!r}: no file {name_or_path}.txt in "
                                    "ham/topo/prompts/ and no such path")
        return cls.parse(ref.read_text(encoding="utf-8"), name_or_path)

    @classmethod
    def parse(cls, text: str, name: str) -> "TaskPrompt":
        m = _FRONT.match(text)
        if not m:
            raise ValueError(f"topology prompt {name}: no YAML front matter between '---' lines")
        meta = yaml.safe_load(m.group(1)) or {}
        if "task" not in meta:
            raise ValueError(f"topology prompt {name}: front matter lacks task")
        parts = _ROLE.split(m.group(2))
        messages = tuple((role, body.strip()) for role, body in zip(parts[1::2], parts[2::2]))
        if not messages:
            raise ValueError(f"topology prompt {name}: no '### system' / '### user' message sections")
        texts = tuple((str(k), None if v is None else int(v)) for k, v in (meta.get("texts") or {}).items())
        low, high = (int(x) for x in meta.get("range") or (0, 1))
        choices = {str(k): tuple(str(c).lower() for c in v) for k, v in (meta.get("choices") or {}).items()}
        return cls(name, str(meta["task"]), messages, texts, tuple(str(s) for s in meta.get("scores") or ()),
                   low, high, meta.get("numbered"), choices)

    @property
    def fields(self) -> set[str]:
        return {f for _, body in self.messages for f in _FIELD.findall(body)}

    def render(self, fields: dict) -> list[dict]:
        unknown = self.fields - set(fields)
        if unknown:
            raise KeyError(f"topology prompt {self.name} needs fields {sorted(unknown)}")
        return [{"role": role, "content": _FIELD.sub(lambda m: str(fields[m.group(1)]), body)}
                for role, body in self.messages]

    def parse_reply(self, reply: str | None, n: int | None = None) -> dict:
        """The reply's tags (module docstring), strictly: text tags as a string when exactly one is
        asked for, else a list; integer tags as int; numbered tags as a list of N strings."""
        if not reply or not reply.strip():
            raise ReplyError("empty reply")
        out: dict = {}
        for tag, count in self.texts:
            found = tagged(reply, tag)
            if not found:
                raise ReplyError(f"no <{tag}> tag")
            if any(not t for t in found):
                raise ReplyError(f"an empty <{tag}>")
            if count is not None and len(found) != count:
                raise ReplyError(f"{len(found)} <{tag}> tags, {count} asked for")
            allowed = self.choices.get(tag)
            if allowed and any(t.lower() not in allowed for t in found):
                bad = next(t for t in found if t.lower() not in allowed)
                raise ReplyError(f"<{tag}> = {bad[:40]!r} is not one of {', '.join(allowed)}")
            if allowed:
                found = [t.lower() for t in found]
            out[tag] = found[0] if count == 1 else found
        for tag in self.scores:
            out[tag] = self._integer(reply, tag)
        if self.numbered:
            if n is None or n < 1:
                raise ValueError(f"topology prompt {self.name} has numbered tags: parse_reply needs n >= 1")
            numbers = {int(k) for k in re.findall(rf"<\s*{self.numbered}_(\d+)\s*>", reply, re.IGNORECASE)}
            extra = sorted(k for k in numbers if not 1 <= k <= n)
            if extra:
                raise ReplyError(f"<{self.numbered}_{extra[0]}> but only {n} were asked for")
            items = []
            for k in range(1, n + 1):
                found = tagged(reply, f"{self.numbered}_{k}")
                if len(found) != 1 or not found[0]:
                    raise ReplyError(f"<{self.numbered}_{k}> missing, empty or repeated")
                items.append(found[0])
            out[self.numbered] = items
        return out

    def _integer(self, reply: str, tag: str) -> int:
        found = tagged(reply, tag)
        if not found:
            raise ReplyError(f"no <{tag}> tag")
        values = set()
        for raw in found:
            m = _INT.fullmatch(raw)
            if not m:
                raise ReplyError(f"<{tag}> holds {raw[:40]!r}, not an integer")
            values.add(int(m.group(1)))
        if len(values) > 1:
            raise ReplyError(f"<{tag}> given {len(found)} times with different values {sorted(values)}")
        value = values.pop()
        if not self.low <= value <= self.high:
            raise ReplyError(f"<{tag}> = {value} is outside {self.low}..{self.high}")
        return value
