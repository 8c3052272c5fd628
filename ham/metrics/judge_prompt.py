"""Versioned judge prompts and the strict parsing of their replies.

A prompt file ``ham/metrics/prompts/<metric>_v<N>.txt`` (or any path) holds YAML front matter and
the messages::

    ---
    metric: overall_quality
    version: 1
    scores: [correctness, completeness, grounding, coherence, overall]   # tags the reply must hold
    main: overall                                                        # the metric's value
    range: [1, 5]                                                        # inclusive, integers
    ---
    ### system
    ...
    ### user
    ... {{question}} ... {{answer}} ...

``{{field}}`` placeholders are filled in one pass (text that itself contains ``{{...}}`` is never
expanded again). The prompt's name (the file stem, e.g. ``overall_quality_v1``) is its version and
is recorded with every judgment.

Parsing is strict: every tag named under ``scores`` must appear in the reply and hold a bare
integer within ``range``. Every occurrence of every tag is read, not only the first: a tag given
twice with different values is a failure, as is a missing tag, a non-integer or an out-of-range
value. A failure is raised as ``JudgeParseError`` with the reason; it is never turned into a score.
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


class JudgeParseError(ValueError):
    """A judge reply without a valid score."""


@dataclass(frozen=True)
class JudgePrompt:
    name: str                          # file stem: the prompt version recorded with judgments
    metric: str
    scores: tuple[str, ...]
    main: str
    low: int
    high: int
    messages: tuple[tuple[str, str], ...]   # (role, template text)

    @classmethod
    def load(cls, name_or_path: str) -> "JudgePrompt":
        path = Path(name_or_path)
        if path.suffix == ".txt" and path.exists():
            text, name = path.read_text(encoding="utf-8"), path.stem
        else:
            ref = resources.files("ham.metrics.prompts").joinpath(f"{name_or_path}.txt")
            if not ref.is_file():
                raise FileNotFoundError(f"judge prompt {name_or_path!r}: no file {name_or_path}.txt in "
                                        "ham/metrics/prompts/ and no such path")
            text, name = ref.read_text(encoding="utf-8"), name_or_path
        return cls.parse(text, name)

    @classmethod
    def parse(cls, text: str, name: str) -> "JudgePrompt":
        m = _FRONT.match(text)
        if not m:
            raise ValueError(f"judge prompt {name}: no YAML front matter between '---' lines")
        meta = yaml.safe_load(m.group(1)) or {}
        missing = [k for k in ("metric", "scores", "main", "range") if k not in meta]
        if missing:
            raise ValueError(f"judge prompt {name}: front matter lacks {', '.join(missing)}")
        scores = tuple(str(s) for s in meta["scores"])
        if meta["main"] not in scores:
            raise ValueError(f"judge prompt {name}: main score {meta['main']!r} is not among {list(scores)}")
        parts = _ROLE.split(m.group(2))
        messages = tuple((role, body.strip()) for role, body in zip(parts[1::2], parts[2::2]))
        if not messages:
            raise ValueError(f"judge prompt {name}: no '### system' / '### user' message sections")
        low, high = (int(x) for x in meta["range"])
        return cls(name, str(meta["metric"]), scores, str(meta["main"]), low, high, messages)

    @property
    def fields(self) -> set[str]:
        return {f for _, body in self.messages for f in _FIELD.findall(body)}

    def render(self, fields: dict[str, str]) -> list[dict]:
        unknown = self.fields - set(fields)
        if unknown:
            raise KeyError(f"judge prompt {self.name} needs fields {sorted(unknown)}")
        return [{"role": role, "content": _FIELD.sub(lambda m: str(fields[m.group(1)]), body)}
                for role, body in self.messages]

    def parse_reply(self, reply: str | None) -> dict[str, int]:
        """Every score tag of the reply, strictly; raises ``JudgeParseError``."""
        if not reply or not reply.strip():
            raise JudgeParseError("empty reply")
        scores: dict[str, int] = {}
        for tag in self.scores:
            found = re.findall(rf"<\s*{tag}\s*>(.*?)<\s*/\s*{tag}\s*>", reply, re.IGNORECASE | re.DOTALL)
            if not found:
                raise JudgeParseError(f"no <{tag}> tag")
            values = set()
            for raw in found:
                m = _INT.fullmatch(raw)
                if not m:
                    raise JudgeParseError(f"<{tag}> holds {raw.strip()[:40]!r}, not an integer")
                values.add(int(m.group(1)))
            if len(values) > 1:
                raise JudgeParseError(f"<{tag}> given {len(found)} times with different values {sorted(values)}")
            value = values.pop()
            if not self.low <= value <= self.high:
                raise JudgeParseError(f"<{tag}> = {value} is outside {self.low}..{self.high}")
            scores[tag] = value
        return scores
