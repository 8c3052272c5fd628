"""Section and subsection summaries for the ``ct`` and ``si`` representations (paper, Figure 2:
"TextChunk / Subsection Summary / Section Summary").

For a unit, the *subsection* is its nearest enclosing section node and the *section* is the one
enclosing that (procedural steps roll up into their section). A unit directly inside a top-level
section has a section summary only. Only the sections some unit needs are summarised.

Backends (``conf/summariser/``):
  ``lead``    offline default, model-free: the section's lead sentences (extractive)
  ``openai``  any OpenAI-compatible server through ``ham.backends.chat.ChatClient``
  ``hf``      a local transformers causal LM, batched
Model calls are cached by (model id, prompt version, section input); a failed call falls back to
the lead summary and is counted (see ``ham.enrich.calls``).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Iterable, Sequence

from ham.cache import KeyedStore
from ham.enrich.calls import CallResult, CallStats, Request, chat_many, local_calls, run_cached
from ham.backends.chat import ChatClient
from ham.document import Document, Node
from ham.settings import Doc, Model, Range
from ham.text import split_sentences
from ham.units import EvidenceUnit

log = logging.getLogger("ham.enrich.summaries")
PROMPT_VERSION = "section-summary-v1"
PROMPT = ("Document: {doc}\nSection: {path}\n\n{text}\n\n"
          "Summarise what this section covers in at most {max_words} words, in one or two plain "
          "sentences. Keep the section's own terms (menu and account names, numbers). "
          "Answer with the summary only.")


@dataclass
class SectionInput:
    node_id: str
    doc_title: str
    path: list[str]
    text: str

    def prompt(self, max_words: int) -> str:
        return PROMPT.format(doc=self.doc_title, path=" > ".join(self.path), text=self.text, max_words=max_words)


def _subtree_text(node: Node, max_words: int) -> str:
    out: list[str] = []
    n = 0
    for leaf in node.walk():
        if leaf.kind in ("text", "table") and leaf.text and leaf.caption_of is None:  # captions describe images
            toks = leaf.text.split()
            out.append(" ".join(toks[: max_words - n]))
            n += len(toks)
            if n >= max_words:
                break
    return "\n".join(out)


def section_inputs(documents: Iterable[Document], needed: set[str], max_input_words: int = 1500) -> list[SectionInput]:
    """The text of every needed section node: its subtree's text and table leaves in source order
    (figure captions left out), capped at ``max_input_words``."""
    inputs = []
    for doc in documents:
        for node_id, path in doc.paths().items():
            if node_id in needed:
                heads = [n.title for n in path[1:] if n.title]
                inputs.append(SectionInput(node_id, doc.title, heads, _subtree_text(path[-1], max_input_words)))
    return inputs


def lead_sentences(text: str, sentences: int, max_words: int) -> str:
    """The first ``sentences`` sentences of ``text``, cut to ``max_words`` words."""
    picked = " ".join(split_sentences(" ".join(text.split()))[:sentences])
    toks = picked.split()
    return picked if len(toks) <= max_words else " ".join(toks[:max_words]) + " …"


class LeadSummariser:
    """Extractive lead-sentences summary: no model, no calls, nothing to cache."""

    prompt_version = "lead-v1"
    batch_size = 4096
    cached = False

    def __init__(self, sentences: Annotated[int, Range(1), Doc("leading sentences of the section")] = 2,
                 max_words: Annotated[int, Range(1), Doc("cut to this many words")] = 40) -> None:
        self.sentences, self.max_words = sentences, max_words
        self.model_id = f"lead:{sentences}s{max_words}w"

    def run(self, payloads: Sequence[SectionInput]) -> list[CallResult]:
        return [CallResult(lead_sentences(p.text, self.sentences, self.max_words)) for p in payloads]


class ChatSummariser:
    """An LLM behind any OpenAI-compatible endpoint (base URL and key from the environment)."""

    prompt_version = PROMPT_VERSION

    def __init__(self, client: Annotated[ChatClient, Doc("the server and model that write the summaries")],
                 max_words: Annotated[int, Range(1), Doc("asked for at most this many words")] = 40,
                 batch_size: Annotated[int, Range(1), Doc("sections handed to the client at once (its "
                                                          "concurrency bounds the requests in flight)")] = 64) -> None:
        self.client = client
        self.model_id = f"openai:{client.model}"
        self.max_words, self.batch_size = max_words, batch_size

    def run(self, payloads: Sequence[SectionInput]) -> list[CallResult]:
        conversations = [[{"role": "user", "content": p.prompt(self.max_words)}] for p in payloads]
        return chat_many(self.client, conversations)


class HFSummariser:
    """A local transformers causal LM (folder or HF cache) through ``ham.generate.hf.HFGenerator``:
    greedy, left-padded batches, the model's chat template. A section whose prompt exceeds
    ``max_prompt_tokens`` fails and falls back to the lead summary (counted)."""

    prompt_version = PROMPT_VERSION

    def __init__(self, model: Annotated[str, Model(), Doc("a local folder or a hub id in the HF cache")],
                 max_words: Annotated[int, Range(1), Doc("asked for at most this many words")] = 40,
                 max_new_tokens: Annotated[int, Range(1)] = 96,
                 batch_size: Annotated[int, Range(1)] = 8,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 max_prompt_tokens: Annotated[int, Range(1), Doc("a longer section falls back to the lead "
                                                                 "summary")] = 2048,
                 cache_root: Annotated[str, Doc("where the converted bundled model is kept")] = "outputs/cache") -> None:
        from ham.generate.hf import HFGenerator

        self.generator = HFGenerator(model, max_new_tokens=max_new_tokens, temperature=0.0,
                                     max_prompt_tokens=max_prompt_tokens, device=device, batch_size=batch_size,
                                     cache_root=cache_root, truncation_is_failure=False)
        self.model_id = self.generator.model_id   # the weights' content hash
        self.max_words, self.batch_size = max_words, batch_size

    def run(self, payloads: Sequence[SectionInput]) -> list[CallResult]:
        return local_calls(self.generator, [SimpleNamespace(text=p.prompt(self.max_words)) for p in payloads])


@dataclass
class Summaries:
    """Summary text per section node id, and how they were obtained."""

    by_node: dict[str, str]
    stats: CallStats

    def of(self, unit: EvidenceUnit) -> tuple[str, str]:
        section, subsection = unit.section_ids()
        return self.by_node.get(section, "") if section else "", self.by_node.get(subsection, "") if subsection else ""


def summarise_sections(documents: Sequence[Document], units: Sequence[EvidenceUnit], summariser,
                       store: KeyedStore, max_input_words: int = 1500, progress: bool = False) -> Summaries:
    """Summaries of every section node a unit needs; failed calls fall back to the lead summary."""
    needed = {i for u in units for i in u.section_ids() if i}
    inputs = section_inputs(documents, needed, max_input_words)
    requests = [Request(s.node_id, {"prompt": s.prompt(summariser.max_words)}, s)
                for s in inputs if s.text.strip()]  # a section without text has nothing to summarise
    answers, stats = run_cached(requests, summariser, store, "section summaries", progress)
    for failure in stats.failures:   # which units lose their model summary to the fallback
        failure["units"] = [u.unit_id for u in units if failure["id"] in u.section_ids()]
    if stats.failed:
        fallback = LeadSummariser()
        for s in inputs:
            if s.node_id not in answers:
                answers[s.node_id] = fallback.run([s])[0].text or ""
    return Summaries(answers, stats)
