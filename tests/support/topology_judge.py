"""A scripted judge for every ham judge prompt (the topology ones, TCR@15 and Overall Quality),
behind ``tests.support.chat_server.ChatServer``: it reads the fields back out of each rendered
prompt and answers in the prompt's tag format, with verdicts from rules the test chooses.

    judge = ScriptedJudge(useful=lambda f: int("loan" in f["context"]))
    with ChatServer(responder=judge) as server: ...

Rules take the prompt's fields (as rendered) and, for per-item prompts, the item's text:

    useful(fields)                       context_precision          -> 0/1
    attributed(fields, claim)            context_recall             -> 0/1 per claim
    rating(fields) / rating_swapped      answer_accuracy(_swapped)  -> 0/2/4
    statements(fields)                   faithfulness_statements    -> list of statements
    supported(fields, statement)         faithfulness               -> 0/1 per statement
    questions(fields), noncommittal      response_relevancy         -> 3 questions, 0/1
    covered(fields, step)                step_coverage              -> 0/1 per step
    sufficient(fields)                   tcr15                      -> 0/1
    quality(fields)                      overall_quality            -> 1-5

The defaults are lexical (a claim is attributed when half its tokens are in the context, ...), so a
whole run gets deterministic verdicts. ``bad`` names prompts answered with prose instead of tags
(a judge failure); ``seen`` counts the requests per prompt.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable

from ham.text import tokenize

SECTION = re.compile(r"^\[([^\]]+)\]\s*$", re.MULTILINE)
ITEM = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)

# the first words of each prompt's system message -> its metric key
SYSTEMS = {
    "You are a strict evaluator of retrieval for question answering. You look at one": "context_precision",
    "You are a strict evaluator of retrieval for question answering. You decide, claim": "context_recall",
    "You rate how well a user's answer": "answer_accuracy",
    "I compare two answers": "answer_accuracy_swapped",
    "You break answers into": "faithfulness_statements",
    "You check statements against a context": "faithfulness",
    "You read an answer and write the questions": "response_relevancy",
    "You check whether an answer covers": "step_coverage",
    "You are a strict evaluator of retrieval for question answering. You decide whether a set": "tcr15",
    "You are a strict, impartial evaluator of multimodal answers": "overall_quality",
}


TAIL = re.compile(r"\n\n(?:Reply with|Give no explanation|I give the rating)")


def sections(user: str) -> dict[str, str]:
    """The ``[Name]`` sections of a rendered prompt, the closing instructions cut off (a field's
    value that has a line of its own in brackets would start a section: tests avoid those)."""
    user = TAIL.split(user)[0]
    parts = SECTION.split(user)
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2])}


def swapped_fields(user: str) -> dict[str, str]:
    out = {}
    for key, label in (("question", "Question"), ("user_answer", "User answer"),
                       ("reference_answer", "Reference answer")):
        m = re.search(rf"^{label}: (.*?)(?=\n\n|\Z)", user, re.MULTILINE | re.DOTALL)
        out[key] = m.group(1).strip() if m else ""
    return out


def items(block: str) -> list[str]:
    return [text for _, text in ITEM.findall(block)]


def share(a: str, b: str) -> float:
    """Share of ``a``'s tokens found among ``b``'s."""
    ta, tb = tokenize([a])[0], set(tokenize([b])[0])
    return sum(t in tb for t in ta) / len(ta) if ta else 0.0


def _sentences(text: str) -> list[str]:
    from ham.text import split_sentences

    return [s for s in split_sentences(text.replace("\n", " ")) if tokenize([s])[0]] or [text.strip() or "x"]


class ScriptedJudge:
    def __init__(self, useful: Callable | None = None, attributed: Callable | None = None,
                 rating: Callable | None = None, rating_swapped: Callable | None = None,
                 statements: Callable | None = None, supported: Callable | None = None,
                 questions: Callable | None = None, noncommittal: Callable | None = None,
                 covered: Callable | None = None, sufficient: Callable | None = None,
                 quality: Callable | None = None, bad: tuple = ()) -> None:
        self.useful = useful or (lambda f: int(share(f["Reference answer"], f["Context"]) >= 0.2))
        self.attributed = attributed or (lambda f, claim: int(share(claim, f["Context"]) >= 0.5))
        self.rating = rating or (lambda f: _rate(f["User answer"], f["Reference answer"]))
        self.rating_swapped = rating_swapped or (lambda f: _rate(f["user_answer"], f["reference_answer"]))
        self.statements = statements or (lambda f: _sentences(f["Answer"]))
        self.supported = supported or (lambda f, s: int(share(s, f["Context"]) >= 0.5))
        self.questions = questions or (lambda f: [f"What does the answer say about {w}?"
                                                  for w in (tokenize([f["Answer"]])[0] + ["it"] * 3)[:3]])
        self.noncommittal = noncommittal or (lambda f: int("do not say" in f["Answer"].lower()))
        self.covered = covered or (lambda f, step: int(share(step.split("->")[-1], f["Answer"]) >= 0.5))
        self.sufficient = sufficient or (lambda f: int(share(f["Reference answer"], f["Retrieved passages"]) >= 0.5))
        self.quality = quality or (lambda f: 1 + _rate(f["Generated answer"], f["Reference answer"]))
        self.bad = set(bad)
        self.seen: Counter = Counter()

    def __call__(self, body: dict) -> str:
        messages = body["messages"]
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next(m["content"] for m in messages if m["role"] == "user")
        key = next((k for prefix, k in SYSTEMS.items() if system.startswith(prefix)), None)
        if key is None:
            raise ValueError(f"not a ham judge prompt: {system[:80]!r}")
        self.seen[key] += 1
        if key in self.bad:
            return "I think it is mostly fine."
        f = swapped_fields(user) if key == "answer_accuracy_swapped" else sections(user)
        if key == "tcr15":
            return f"Reason.\n<sufficient>{self.sufficient(f)}</sufficient>"
        if key == "overall_quality":
            q = self.quality(f)
            return "".join(f"<{t}>{q}</{t}>" for t in ("correctness", "completeness", "grounding", "coherence",
                                                       "overall"))
        if key == "context_precision":
            return f"Reason.\n<useful>{self.useful(f)}</useful>"
        if key == "context_recall":
            return _numbered("claim", [self.attributed(f, c) for c in items(f["Claims"])])
        if key == "answer_accuracy":
            return f"<rating>{self.rating(f)}</rating>"
        if key == "answer_accuracy_swapped":
            return f"<rating>{self.rating_swapped(f)}</rating>"
        if key == "faithfulness_statements":
            return "\n".join(f"<statement>{s}</statement>" for s in self.statements(f))
        if key == "faithfulness":
            return _numbered("verdict", [self.supported(f, s) for s in items(f["Statements"])])
        if key == "response_relevancy":
            return "".join(f"<question>{q}</question>" for q in self.questions(f)) + \
                f"<noncommittal>{self.noncommittal(f)}</noncommittal>"
        steps = [line for line in f["Required steps"].splitlines() if line.strip()]
        return _numbered("covered", [self.covered(f, s) for s in steps])


def _numbered(tag: str, values: list[int]) -> str:
    return "Reasons.\n" + "\n".join(f"<{tag}_{i}>{v}</{tag}_{i}>" for i, v in enumerate(values, 1))


def _rate(user: str, reference: str) -> int:
    s = share(reference, user)
    return 4 if s >= 0.8 else 2 if s >= 0.3 else 0
