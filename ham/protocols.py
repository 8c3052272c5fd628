"""The interfaces at each stage boundary, as ``typing.Protocol``s: what a component must offer to be
used there, whatever class it is (a test's fake, a notebook's own scorer, a new backend). The
pipeline and the runner are typed with these and call them directly, never probing for methods.

    Encoder    ham.index.encoders.BatchedEncoder       strings -> vectors (and lexical weights)
    Index      ham.index.hybrid.HybridIndex            a query -> scored unit ids
    Retriever  ham.retrieve.retriever.Retriever        a question -> Retrieved (text, images)
    Assembler  ham.methods.base.Method                 a question + Retrieved -> Prompt
    Generator  ham.generate.base.Generator             Prompts -> Generations
    Evaluator  ham.metrics.evaluator.Evaluator         a question's answer -> {metric: value}

The types they name are imported for type checking only: this module sits below every stage.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from ham.datasets.questions import Question
    from ham.answer import InterleavedAnswer
    from ham.generate.base import Generation
    from ham.index.encoders import Encoded
    from ham.index.hybrid import Query
    from ham.methods.base import Prompt
    from ham.retrieve.retriever import Retrieved


@runtime_checkable
class Encoder(Protocol):
    model_id: str
    has_sparse: bool
    long_text: str
    max_tokens: int | None

    @property
    def window_setting(self) -> int | None: ...

    def encode(self, texts: Sequence[str]) -> "np.ndarray": ...

    def encode_query(self, text: str) -> "Encoded": ...

    def encode_to(self, texts: Sequence[str], folder: Path, desc: str = "encode") -> dict: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int] | None: ...


@runtime_checkable
class Index(Protocol):
    def __len__(self) -> int: ...

    def check_encoder(self, encoder_id: str) -> None: ...

    def search(self, query: "Query", k: int | None, fusion=None, pool: int = 100, extra: Sequence[int] = ()) -> list: ...


@runtime_checkable
class Retriever(Protocol):
    def retrieve(self, question: str) -> "Retrieved": ...

    def bind(self, descriptions=None, cache=None) -> None: ...

    def count_with(self, count_tokens) -> None: ...


@runtime_checkable
class Assembler(Protocol):
    def __call__(self, question: str, retrieved: "Retrieved") -> "Prompt": ...

    def finish(self, prompt: "Prompt", reply: str) -> str: ...


@runtime_checkable
class Generator(Protocol):
    model_id: str
    model_name: str
    pricing: str | None
    batch_size: int
    is_async: bool
    cacheable: bool

    def settings(self) -> dict: ...

    def count_tokens(self, text: str) -> int | None: ...

    def generate_batch(self, prompts: list) -> list["Generation"]: ...

    async def agenerate(self, prompt) -> "Generation": ...

    async def aclose(self) -> None: ...


@runtime_checkable
class Evaluator(Protocol):
    async_judged: list[str]
    judge_concurrency: int

    def __call__(self, question: "Question", text: list[dict], images: list[dict],
                 answer: "InterleavedAnswer | None", pages: list[dict] | None = None,
                 ranking: list[dict] | None = None) -> dict: ...
