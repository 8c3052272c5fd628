"""Atomic QA: one question per evidence unit, answerable from that unit alone (TopoGraphRAG-Bench
3.1: text, figure and table units; a figure is read through its description, OCR and VLM text).

A unit is eligible when its evidence in words (``ham.topo.views.full_text``) has at least
``min_words`` words (a figure without caption or description has nothing to ask about). The model
writes ``<question>`` and ``<answer>`` (prompt ``atomic_qa_v1``); a reply that does not parse is a
counted failure and that unit has no atomic QA. Whether the unit alone answers it is checked by
``ham.topo.validate`` (check ``unit_alone``) before the QA becomes a single-hop question or a hop.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ham.topo.calls import ModelCalls
from ham.topo.prompt import TaskPrompt
from ham.topo.views import full_text, modality, modality_word, section
from ham.units import EvidenceUnit


@dataclass
class Atomic:
    unit_id: str
    modality: str          # text | image | table
    question: str
    answer: str

    def to_dict(self) -> dict:
        return asdict(self)


def eligible(units: list[EvidenceUnit], descriptions=None, min_words: int = 12) -> list[EvidenceUnit]:
    return [u for u in units if len(full_text(u, descriptions).split()) >= min_words]


def atomic_qas(units: list[EvidenceUnit], calls: ModelCalls, prompt: TaskPrompt, descriptions=None
               ) -> tuple[list[Atomic], list[dict]]:
    """(atomic QAs, failures: one ``{"unit", "error"}`` per unit whose reply failed)."""
    items = [{"modality": modality_word(u), "doc": u.doc_title or u.doc_id, "section": section(u),
              "content": full_text(u, descriptions)} for u in units]
    out, failures = [], []
    for unit, reply in zip(units, calls.ask(prompt, items)):
        if not reply.ok:
            failures.append({"unit": unit.unit_id, "error": reply.error})
            continue
        out.append(Atomic(unit.unit_id, modality(unit), reply.fields["question"], reply.fields["answer"]))
    return out, failures
