"""What the topology metrics (TopoGraphRAG-Bench, and ham's structural retrieval metrics) read
from a question and its case. No metric is registered here.

Topology-enriched reference (the paper's B.1, the reference context recall and precision judge
against)::

    Final answer: <the reference answer; the short answer when there is no long one>
    Hop 1: <sub-question> -> <result>            (bridge chains: every hop, in order)
    Hop 2: <sub-question> -> <result>
    Bridge entities: <entity>, <entity>
    Required evidence points:                    (synthesis: every point, in order)
    1. <fact>
    2. <fact>

A single-hop question's enriched reference is its answer alone. ``reference_claims`` cuts it into
the claims context recall counts: each sentence of the final answer (``ham.text.split_sentences``),
each hop line, the bridge-entity line, each evidence point. ham cuts, so the number of claims is
fixed by the question and the judge only classifies them (RAGAS lets the judge cut and classify
in one reply).

Required steps (step coverage): ``Step i [modality]: sub-question -> result`` per hop of a bridge
chain, ``Step i [modality]: fact`` per evidence point of a synthesis question (the data points
after it in brackets); the modality is the hop's, else its evidence item's. None for single-hop.

Gold items and positions (structural metrics): an evidence item ``Question.evidence[i]`` is
retrieved when any unit id of its ``units`` (filled by the run's evidence mapping) is among the
retrieved rows; its position is the best 1-based place of those units in the order the prompt
presents evidence: the text and table rows in rank order, then the image rows in rank order
(``prompt_positions``; the order of ``contexts`` too).
"""
from __future__ import annotations

from ham.datasets.questions import Question
from ham.answer import InterleavedAnswer, parse_reference
from ham.text import split_sentences


def reference_text(question: Question) -> str:
    """The reference answer as text (images as ``[IMAGE: ref]``), else the short answer, else ''."""
    if question.reference_answer:
        return answer_text(parse_reference(question.reference_answer))
    return (question.answer_short or "").strip()


def answer_text(answer: InterleavedAnswer | None, captions: dict[str, str] | None = None) -> str:
    """An interleaved answer as the judges read it: text segments, images as ``[IMAGE: ref | caption]``."""
    if answer is None:
        return ""
    captions = captions or {}
    parts = []
    for seg in answer.segments:
        if seg.type == "text":
            parts.append(seg.text)
        else:
            caption = captions.get(seg.image) or seg.text
            parts.append(f"[IMAGE: {seg.image}" + (f" | {caption}]" if caption else "]"))
    return "\n".join(p for p in parts if p.strip())


def enriched_reference(question: Question) -> str:
    """The topology-enriched reference (module docstring)."""
    answer = reference_text(question)
    if question.topology not in ("bridge_chain", "synthesis"):
        return answer
    lines = [f"Final answer: {answer}"]
    if question.topology == "bridge_chain":
        lines += [f"Hop {i}: {h.sub_question} -> {h.result}" for i, h in enumerate(question.hops, 1)]
        if question.bridge_entities:
            lines.append("Bridge entities: " + ", ".join(question.bridge_entities))
    else:
        lines.append("Required evidence points:")
        lines += [f"{i}. {p.fact}" for i, p in enumerate(question.evidence_points, 1)]
    return "\n".join(lines)


def reference_claims(question: Question) -> list[str]:
    """The claims of the enriched reference, in order (module docstring)."""
    claims = split_sentences(reference_text(question))
    if question.topology == "bridge_chain":
        claims += [f"Hop {i}: {h.sub_question} -> {h.result}" for i, h in enumerate(question.hops, 1)]
        if question.bridge_entities:
            claims.append("Bridge entities: " + ", ".join(question.bridge_entities))
    elif question.topology == "synthesis":
        claims += [f"Required evidence point {i}: {p.fact}" for i, p in enumerate(question.evidence_points, 1)]
    return claims


def _modality(question: Question, index: int | None, own: str | None = None) -> str:
    if own:
        return own
    if index is not None and 0 <= index < len(question.evidence):
        return question.evidence[index].modality or "unknown"
    return "unknown"


def required_steps(question: Question) -> list[str] | None:
    """Step coverage's steps (module docstring); None for a question without hops or points."""
    if question.topology == "bridge_chain" and question.hops:
        return [f"Step {i} [{_modality(question, h.evidence, h.modality)}]: {h.sub_question} -> {h.result}"
                for i, h in enumerate(question.hops, 1)]
    if question.topology == "synthesis" and question.evidence_points:
        return [f"Step {i} [{_modality(question, p.evidence)}]: {p.fact}"
                + (f" (data points: {'; '.join(p.data_points)})" if p.data_points else "")
                for i, p in enumerate(question.evidence_points, 1)]
    return None


def numbered(items: list[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def row_context(row: dict) -> str:
    """One retrieved row as a context string: its heading path, then its text (a table: caption and
    rows), or for an image ``[IMAGE: ref | caption]``."""
    path = " > ".join(row.get("heading_path") or [])
    if row.get("modality") == "image":
        caption = row.get("caption") or "no caption"
        body = f"[IMAGE: {row.get('image')} | {caption}]"
    else:
        body = row.get("text") or ""
    return f"({path}) {body}" if path else body


def contexts(text_rows: list[dict], image_rows: list[dict]) -> list[str]:
    """The retrieved context in the order the generator's prompt shows it: text rows in rank
    order, then image rows in rank order."""
    return [row_context(r) for r in [*text_rows, *image_rows]]


# --------------------------------------------------------------------------- gold units and ranks

def shown_units(row: dict) -> list[str]:
    """The units a retrieved row shows the model: the unit and, for a passage assembled under a
    budget, its members; for a passage cut to the budget (``row["cut"]``) only the members shown
    whole, so a unit whose text was cut off is not counted as retrieved."""
    if row.get("cut"):
        return list(row.get("members", ()))
    return [uid for uid in [row.get("unit_id"), *row.get("members", ())] if uid is not None]


def prompt_positions(text_rows: list[dict], image_rows: list[dict]) -> dict[str, int]:
    """Unit id -> its best 1-based position in the prompt's one evidence order: text rows, then
    image rows (module docstring). An assembled passage (``retrieval=budget``) places each of its
    member units at its own position."""
    positions: dict[str, int] = {}
    for pos, row in enumerate([*text_rows, *image_rows], 1):
        for uid in shown_units(row):
            if uid is not None and uid not in positions:
                positions[uid] = pos
    return positions


def resolved(question: Question) -> bool:
    """Whether every gold evidence item of the question maps to at least one unit."""
    return bool(question.evidence) and all(item.units for item in question.evidence)


def item_rank(question: Question, index: int, ranks: dict[str, int]) -> int | None:
    """The best position of evidence item ``index``'s units, None when none was retrieved."""
    found = [ranks[u] for u in question.evidence[index].units if u in ranks]
    return min(found) if found else None


def hop_items(question: Question) -> list[int] | None:
    """The evidence index of each hop, in hop order (a hop without one: its position); None when
    an index points outside the evidence."""
    out = [h.evidence if h.evidence is not None else i for i, h in enumerate(question.hops)]
    return out if all(0 <= i < len(question.evidence) for i in out) else None
