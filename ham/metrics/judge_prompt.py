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

Two more kinds of reply, for judges that answer per item or write text (the RAGAS-style metrics):

    items: claim          # one integer verdict per item the metric renders, <claim_1> ... <claim_N>
    values: [0, 2, 4]     # optional: the only integers allowed (within range), for scores and items
    texts: {statement: null, question: 3}   # text tags: null = one or more, a number = exactly that many

``parse_reply(reply, n_items=N)`` then requires exactly the tags ``<claim_1>`` .. ``<claim_N>``
(each once, or repeated with one value; a number outside 1..N is a failure) and returns them as
``claim_1`` ...; each text tag's contents, stripped, in reply order, as a list under the tag's name
(an empty text is a failure). ``scores`` and ``main`` may be left out when a prompt has items or
texts only; its value is then the mean of its items (``value``), or None for a text-only prompt.
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
    main: str | None
    low: int
    high: int
    messages: tuple[tuple[str, str], ...]   # (role, template text)
    items: str | None = None                # numbered verdict tags <items_1> .. <items_N>
    values: tuple[int, ...] | None = None   # the allowed integers, when not every one in range is
    texts: tuple[tuple[str, int | None], ...] = ()   # (tag, exact count or None for one or more)

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
        texts = tuple((str(k), None if v is None else int(v)) for k, v in (meta.get("texts") or {}).items())
        items = str(meta["items"]) if meta.get("items") else None
        scores = tuple(str(s) for s in meta.get("scores") or ())
        required = ["metric"] + (["scores", "main"] if not (items or texts) else []) + \
            (["range"] if scores or items else [])
        missing = [k for k in required if k not in meta]
        if missing:
            raise ValueError(f"judge prompt {name}: front matter lacks {', '.join(missing)}")
        main = meta.get("main")
        if scores and main not in scores:
            raise ValueError(f"judge prompt {name}: main score {main!r} is not among {list(scores)}")
        parts = _ROLE.split(m.group(2))
        messages = tuple((role, body.strip()) for role, body in zip(parts[1::2], parts[2::2]))
        if not messages:
            raise ValueError(f"judge prompt {name}: no '### system' / '### user' message sections")
        low, high = (int(x) for x in meta.get("range") or (0, 0))
        values = tuple(int(v) for v in meta["values"]) if meta.get("values") is not None else None
        return cls(name, str(meta["metric"]), scores, None if main is None else str(main), low, high, messages,
                   items, values, texts)

    @property
    def fields(self) -> set[str]:
        return {f for _, body in self.messages for f in _FIELD.findall(body)}

    def render(self, fields: dict[str, str]) -> list[dict]:
        unknown = self.fields - set(fields)
        if unknown:
            raise KeyError(f"judge prompt {self.name} needs fields {sorted(unknown)}")
        return [{"role": role, "content": _FIELD.sub(lambda m: str(fields[m.group(1)]), body)}
                for role, body in self.messages]

    def parse_reply(self, reply: str | None, n_items: int | None = None) -> dict:
        """Every score tag of the reply (and every item and text tag), strictly; raises
        ``JudgeParseError``."""
        if not reply or not reply.strip():
            raise JudgeParseError("empty reply")
        scores: dict = {tag: self._integer(reply, tag) for tag in self.scores}
        if self.items:
            if n_items is None or n_items < 1:
                raise ValueError(f"judge prompt {self.name} judges items: parse_reply needs n_items >= 1")
            numbers = {int(n) for n in re.findall(rf"<\s*{self.items}_(\d+)\s*>", reply, re.IGNORECASE)}
            extra = sorted(n for n in numbers if not 1 <= n <= n_items)
            if extra:
                raise JudgeParseError(f"<{self.items}_{extra[0]}> but only {n_items} item(s) were given")
            for n in range(1, n_items + 1):
                scores[f"{self.items}_{n}"] = self._integer(reply, f"{self.items}_{n}")
        for tag, count in self.texts:
            found = [" ".join(t.split()) for t in _tagged(reply, tag)]
            if not found:
                raise JudgeParseError(f"no <{tag}> tag")
            if any(not t for t in found):
                raise JudgeParseError(f"an empty <{tag}>")
            if count is not None and len(found) != count:
                raise JudgeParseError(f"{len(found)} <{tag}> tags, {count} asked for")
            scores[tag] = found
        return scores

    def _integer(self, reply: str, tag: str) -> int:
        found = _tagged(reply, tag)
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
        if self.values is not None and value not in self.values:
            raise JudgeParseError(f"<{tag}> = {value} is not one of {', '.join(map(str, self.values))}")
        return value

    def value(self, scores: dict) -> float | None:
        """The judgment's value: the main score; else the mean of the item verdicts; else None."""
        if self.main is not None:
            return float(scores[self.main])
        if self.items:
            verdicts = [v for k, v in scores.items() if k.startswith(f"{self.items}_")]
            return sum(verdicts) / len(verdicts) if verdicts else None
        return None


def _tagged(reply: str, tag: str) -> list[str]:
    """The contents of every ``<tag>...</tag>`` of the reply, in order."""
    return re.findall(rf"<\s*{tag}\s*>(.*?)<\s*/\s*{tag}\s*>", reply, re.IGNORECASE | re.DOTALL)
