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

from dataclasses import dataclass

from ham.prompt_file import PromptFile, ReplyError, fields_of, numbered_tags, render, tagged_integer, tagged_texts

JudgeParseError = ReplyError   # a judge reply without a valid score (the one reply error, ham/prompt_file.py)


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
        return cls.from_file(PromptFile.load(name_or_path, "ham.metrics.prompts", "judge prompt"))

    @classmethod
    def parse(cls, text: str, name: str) -> "JudgePrompt":
        return cls.from_file(PromptFile.parse(text, name, "judge prompt"))

    @classmethod
    def from_file(cls, prompt: PromptFile) -> "JudgePrompt":
        meta, name = prompt.meta, prompt.name
        texts, scores = prompt.text_tags, prompt.score_tags
        items = str(meta["items"]) if meta.get("items") else None
        required = ["metric"] + (["scores", "main"] if not (items or texts) else []) + \
            (["range"] if scores or items else [])
        missing = [k for k in required if k not in meta]
        if missing:
            raise ValueError(f"judge prompt {name}: front matter lacks {', '.join(missing)}")
        main = meta.get("main")
        if scores and main not in scores:
            raise ValueError(f"judge prompt {name}: main score {main!r} is not among {list(scores)}")
        low, high = (int(x) for x in meta.get("range") or (0, 0))
        values = tuple(int(v) for v in meta["values"]) if meta.get("values") is not None else None
        return cls(name, str(meta["metric"]), scores, None if main is None else str(main), low, high,
                   prompt.messages, items, values, texts)

    @property
    def fields(self) -> set[str]:
        return fields_of(self.messages)

    def render(self, fields: dict[str, str]) -> list[dict]:
        return render(self.messages, fields, f"judge prompt {self.name}")

    def parse_reply(self, reply: str | None, n_items: int | None = None) -> dict:
        """Every score tag of the reply (and every item and text tag), strictly; raises
        ``JudgeParseError``."""
        if not reply or not reply.strip():
            raise JudgeParseError("empty reply")
        scores: dict = {tag: self._integer(reply, tag) for tag in self.scores}
        if self.items:
            if n_items is None or n_items < 1:
                raise ValueError(f"judge prompt {self.name} judges items: parse_reply needs n_items >= 1")
            for tag in numbered_tags(reply, self.items, n_items):
                scores[tag] = self._integer(reply, tag)
        for tag, count in self.texts:
            scores[tag] = tagged_texts(reply, tag, count)
        return scores

    def _integer(self, reply: str, tag: str) -> int:
        return tagged_integer(reply, tag, self.low, self.high, self.values)

    def value(self, scores: dict) -> float | None:
        """The judgment's value: the main score; else the mean of the item verdicts; else None."""
        if self.main is not None:
            return float(scores[self.main])
        if self.items:
            verdicts = [v for k, v in scores.items() if k.startswith(f"{self.items}_")]
            return sum(verdicts) / len(verdicts) if verdicts else None
        return None
