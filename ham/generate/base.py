"""Generators (backbones). Each takes ``Prompt`` objects and returns ``Generation`` objects.

A generator has ``model_id``, ``settings()`` (the decoding settings that, with the model and the
prompt, identify a generation in the cache) and either ``generate_batch(prompts)`` (local models:
``batch_size`` prompts at a time) or, when ``is_async``, ``agenerate(prompt)`` (remote backbones:
many requests in flight). ``pricing`` names its row of the price table (``conf/cost``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated

from ham.settings import Doc, NotResult

Pricing = Annotated[str | None, NotResult("which price row the cost table uses"),
                    Doc("row of the price table (cost) this backbone's tokens are priced at")]

# Why a question has no scored answer (``predictions.jsonl``: ``failure.reason``). Two kinds, and
# this is the one place that says which is which:
#   retryable  the reply never came or was cut off by the network or the run's limits; asking
#              again can fix it, so a resumed run answers these questions again by default
#              (``run.redo_failures: [retryable]``), and the generation cache never keeps them
#   content    the model answered and the answer is unusable, or the input is; asking again
#              gives the same, so a resume keeps them (list a reason in ``run.redo_failures`` to
#              redo it anyway)
RETRYABLE_FAILURES = frozenset({
    "api_error",            # HTTP errors after the client's retries, refused or dropped connections
    "timeout",              # no complete reply within the request's deadline (``timeout``)
    "budget_exhausted",     # the run's request budget ran out before this question was asked
    "malformed_response",   # a 200 reply that was not a chat completion (a proxy's error page...)
})
CONTENT_FAILURES = frozenset({
    "empty",                # the reply had no text
    "no_text",              # images but no text
    "cites_unknown_image",  # cites an image slot the prompt did not give
    "over_length",          # the prompt is over the model's context, or the reply hit max_tokens
    "bad_input",            # an image of the prompt could not be read
    "generation_error",     # a local model ran out of memory on this prompt
})
FAILURE_REASONS = RETRYABLE_FAILURES | CONTENT_FAILURES


def redo_reasons(names) -> frozenset:
    """The failure reasons named by ``run.redo_failures``: reasons, or ``retryable`` for every
    retryable one. An unknown name is an error listing the known ones."""
    out: set[str] = set()
    for name in names or ():
        if name == "retryable":
            out |= RETRYABLE_FAILURES
        elif name in FAILURE_REASONS:
            out.add(name)
        else:
            raise ValueError(f"run.redo_failures: unknown failure reason {name!r}; known: retryable, "
                             f"{', '.join(sorted(FAILURE_REASONS))}")
    return frozenset(out)


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
    served_model: str | None = None   # the model a server says answered (its reply's ``model``)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def failure_reason(self) -> str | None:
        return self.error.split(":", 1)[0] if self.error else None


class Generator:
    model_id = ""        # what caches and run records key on (a local model: its weights' hash)
    model_name = ""      # what reports show; never a key (a renamed folder keeps its caches)
    pricing: str | None = None
    batch_size = 1
    is_async = False
    cacheable = True     # False for model-free generators: recomputing is cheaper than a file

    def settings(self) -> dict:
        return {}

    def count_tokens(self, text: str) -> int | None:
        """``text``'s length in this model's tokens, None when its tokenizer is not known here (API
        models): prompt lengths are then reported in characters only, and ``retrieval.budget_unit=
        tokens`` is refused."""
        return None

    def generate(self, prompt) -> Generation:
        return self.generate_batch([prompt])[0]

    def generate_batch(self, prompts: list) -> list[Generation]:
        return [self.generate(p) for p in prompts]
