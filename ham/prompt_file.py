"""Versioned prompt files and the strict parsing of tagged replies, shared by the judges
(``ham/metrics/prompts/``) and ``ham-topo`` (``ham/topo/prompts/``).

A prompt file is YAML front matter between ``---`` lines, then message sections headed
``### system`` / ``### user`` / ``### assistant``, with ``{{field}}`` placeholders. Its stem is its
version: a new wording is a new file, so every cached reply names the exact prompt it answered.

Replies carry their answers in tags, ``<score>4</score>``; a reply is taken only when every tag
asked for is there, once (or the number asked for), non-empty and in range: anything else is a
``ReplyError``, which callers count as a failure and never turn into a value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)
_ROLE = re.compile(r"^###\s*(system|user|assistant)\s*$", re.MULTILINE)
_FIELD = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_INT = re.compile(r"\s*([+-]?\d+)\s*")


class ReplyError(ValueError):
    """A model reply that does not parse under its prompt's rules."""


@dataclass(frozen=True)
class PromptFile:
    name: str                                   # the file stem: the prompt's version
    meta: dict                                  # the front matter
    messages: tuple[tuple[str, str], ...]       # (role, template text)

    @classmethod
    def load(cls, name_or_path: str, package: str, kind: str) -> "PromptFile":
        """A ``.txt`` path, or the file ``<name>.txt`` shipped in ``package``; ``kind`` names the
        prompt in errors ("judge prompt", "topology prompt")."""
        path = Path(name_or_path)
        if path.suffix == ".txt" and path.exists():
            return cls.parse(path.read_text(encoding="utf-8"), path.stem, kind)
        ref = resources.files(package).joinpath(f"{name_or_path}.txt")
        if not ref.is_file():
            folder = package.replace(".", "/")
            raise FileNotFoundError(f"{kind} {name_or_path!r}: no file {name_or_path}.txt in {folder}/ and no such path")
        return cls.parse(ref.read_text(encoding="utf-8"), name_or_path, kind)

    @property
    def text_tags(self) -> tuple[tuple[str, int | None], ...]:
        """Front matter ``texts``: (tag, exact count, or None for one or more)."""
        return tuple((str(k), None if v is None else int(v)) for k, v in (self.meta.get("texts") or {}).items())

    @property
    def score_tags(self) -> tuple[str, ...]:
        """Front matter ``scores``: the integer tags."""
        return tuple(str(s) for s in self.meta.get("scores") or ())

    @classmethod
    def parse(cls, text: str, name: str, kind: str) -> "PromptFile":
        m = _FRONT.match(text)
        if not m:
            raise ValueError(f"{kind} {name}: no YAML front matter between '---' lines")
        parts = _ROLE.split(m.group(2))
        messages = tuple((role, body.strip()) for role, body in zip(parts[1::2], parts[2::2]))
        if not messages:
            raise ValueError(f"{kind} {name}: no '### system' / '### user' message sections")
        return cls(name, yaml.safe_load(m.group(1)) or {}, messages)


def fields_of(messages) -> set[str]:
    return {f for _, body in messages for f in _FIELD.findall(body)}


def render(messages, fields: dict, label: str) -> list[dict]:
    """Chat messages with every ``{{field}}`` filled; a missing field is a KeyError naming it."""
    unknown = fields_of(messages) - set(fields)
    if unknown:
        raise KeyError(f"{label} needs fields {sorted(unknown)}")
    return [{"role": role, "content": _FIELD.sub(lambda m: str(fields[m.group(1)]), body)}
            for role, body in messages]


def tagged(reply: str, tag: str) -> list[str]:
    """The contents of every ``<tag>...</tag>`` of the reply, in order, whitespace collapsed."""
    found = re.findall(rf"<\s*{tag}\s*>(.*?)<\s*/\s*{tag}\s*>", reply, re.IGNORECASE | re.DOTALL)
    return [" ".join(t.split()) for t in found]


def tagged_texts(reply: str, tag: str, count: int | None) -> list[str]:
    """Every ``<tag>``: at least one, none empty, exactly ``count`` when it is given."""
    found = tagged(reply, tag)
    if not found:
        raise ReplyError(f"no <{tag}> tag")
    if any(not t for t in found):
        raise ReplyError(f"an empty <{tag}>")
    if count is not None and len(found) != count:
        raise ReplyError(f"{len(found)} <{tag}> tags, {count} asked for")
    return found


def require_closed(reply: str, tag: str, found: list[str]) -> None:
    """Raise when ``<tag>`` is opened more often than it is closed (``found``: ``tagged(reply, tag)``):
    a second verdict left unclosed is not read as the first."""
    opened = len(re.findall(rf"<\s*{tag}\s*>", reply, re.IGNORECASE))
    if opened > len(found):
        raise ReplyError(f"<{tag}> opened {opened} times, closed {len(found)}")


def tagged_integer(reply: str, tag: str, low: int, high: int, values: tuple[int, ...] | None = None) -> int:
    """The one integer of ``<tag>`` (repeated only with the same value), within low..high and
    among ``values`` when given. A tag opened more often than closed (``<score>3</score> ... on
    reflection <score>4``) is a second verdict, not read as the first: the reply does not parse."""
    found = tagged(reply, tag)
    if not found:
        raise ReplyError(f"no <{tag}> tag")
    require_closed(reply, tag, found)
    seen = set()
    for raw in found:
        m = _INT.fullmatch(raw)
        if not m:
            raise ReplyError(f"<{tag}> holds {raw[:40]!r}, not an integer")
        seen.add(int(m.group(1)))
    if len(seen) > 1:
        raise ReplyError(f"<{tag}> given {len(found)} times with different values {sorted(seen)}")
    value = seen.pop()
    if not low <= value <= high:
        raise ReplyError(f"<{tag}> = {value} is outside {low}..{high}")
    if values is not None and value not in values:
        raise ReplyError(f"<{tag}> = {value} is not one of {', '.join(map(str, values))}")
    return value


def numbered_tags(reply: str, stem: str, n: int) -> list[str]:
    """``<stem_1>`` .. ``<stem_n>``: each once and non-empty, and no number beyond n."""
    numbers = {int(k) for k in re.findall(rf"<\s*{stem}_(\d+)\s*>", reply, re.IGNORECASE)}
    extra = sorted(k for k in numbers if not 1 <= k <= n)
    if extra:
        raise ReplyError(f"<{stem}_{extra[0]}> but only {n} item(s) were asked for")
    return [f"{stem}_{k}" for k in range(1, n + 1)]
