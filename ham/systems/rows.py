"""A system's reply to one question -> a ham prediction row (``ham.run.pipeline`` writes the same
keys for ham's own pipeline), so analysis, the viewer and every metric read systems and ham alike.

``retrieved_text`` holds one row per entity, relation and chunk, in the system's context order
(LightRAG's answer prompt lists entities, then relations, then chunks), each with the text the
system returned; ``retrieved_images`` one per image. A row's ``unit_id`` is its first mapped unit
and ``members`` all of them (``ham.metrics.topology.prompt_positions`` places each member at the
row's position); an unmapped row has ``unit_id`` None and counts in the context for the judges
but for no gold unit. ``system`` keeps the context as the system returned it, the mapping of each
item (rule, units, or the reason it is unmapped), the usage of the query (LLM calls and tokens,
embedding calls, seconds) and the index it was answered from.
"""
from __future__ import annotations

from ham.datasets.questions import Question
from ham.answer import InterleavedAnswer, Segment
from ham.metrics.registry import METRICS_VERSION
from ham.systems.mapping import ContextItem, ContextMapper, as_dicts, coverage


def context_items(context: dict) -> list[ContextItem]:
    """The protocol's CONTEXT as items in the system's order: entities, relations, chunks, images."""
    items = []
    for e in context.get("entities") or []:
        name = e.get("entity_name") or e.get("entity") or e.get("name") or ""   # LightRAG 1.5 | 1.4 (MegaRAG)
        kind = e.get("entity_type") or e.get("type") or ""
        items.append(ContextItem("entity", f"{name} ({kind}): {e.get('description') or ''}".strip(),
                                 doc=e.get("file_path"), raw=e))
    for r in context.get("relations") or []:
        src = r.get("src_id") or r.get("entity1") or r.get("source") or ""
        tgt = r.get("tgt_id") or r.get("entity2") or r.get("target") or ""
        text = f"{src} -> {tgt} ({r.get('keywords') or ''}): {r.get('description') or ''}"
        items.append(ContextItem("relation", text, doc=r.get("file_path"), raw=r))
    for c in context.get("chunks") or []:
        items.append(ContextItem("chunk", c.get("content") or "", doc=c.get("file_path"), page=c.get("page"),
                                 bbox=c.get("bbox"), image=c.get("image_path"), raw=c))
    for im in context.get("images") or []:
        items.append(ContextItem("image", im.get("caption") or "", doc=im.get("file_path"), page=im.get("page"),
                                 image=im.get("path"), raw=im))
    return items


def _row(item: ContextItem, mapped, units: dict) -> dict:
    unit = units.get(mapped.units[0]) if mapped.units else None
    row = {"unit_id": mapped.units[0] if mapped.units else None, "members": list(mapped.units),
           "system_kind": item.kind, "mapped_by": mapped.rule,
           "source": unit.source if unit else item.doc, "page": None if item.page is None else item.page + 1,
           "heading_path": unit.heading_path if unit else [], "score": None}
    if item.kind == "image":
        row.update(modality="image", image=item.image, image_path=unit.image_path if unit else item.image,
                   caption=(unit.caption if unit else "") or item.text)
    else:
        row.update(modality=unit.modality if unit and unit.modality != "image" else "text", text=item.text)
    return row


def system_row(question: Question, reply: dict, mapper: ContextMapper, units: dict, system: str,
               llm_model: str, evaluator=None) -> dict:
    """The prediction row of one reply (module docstring); scored when ``evaluator`` is given."""
    items = context_items(reply.get("context") or {}) if reply.get("ok") else []
    mapped = mapper.map(items)
    rows = [_row(i, m, units) for i, m in zip(items, mapped)]
    text_rows = [r for r in rows if r["modality"] != "image"]
    image_rows = [r for r in rows if r["modality"] == "image"]
    usage = reply.get("usage") or {}
    answer, failure = None, None
    raw_answer = reply.get("answer") if reply.get("ok") else None
    if not reply.get("ok"):
        failure = {"reason": reply.get("reason") or "system_error", "detail": reply.get("detail")}
    elif not (raw_answer or "").strip():
        failure = {"reason": "empty", "detail": "the system returned no answer text"}
    else:
        answer = InterleavedAnswer([Segment("text", text=raw_answer.strip())])
    retrieved_chars = sum(len(r.get("text") or "") for r in text_rows)
    gold = {k: v for k, v in question.to_dict().items() if k not in ("id", "question")}   # as ham.run.pipeline keeps it
    row = {"id": question.id, "question": question.question, "gold": gold,
           "retrieved_text": text_rows, "retrieved_images": image_rows, "prompt": None,
           "prompt_length": {"retrieved_chars": retrieved_chars, "retrieved_tokens": None, "prompt_chars": None,
                             "prompt_tokens": None, "text_units": len(text_rows)},
           "raw_answer": raw_answer, "answer": answer.to_dict() if answer else None, "failure": failure,
           "generation": {"model": llm_model, "usage": {"prompt_tokens": usage.get("prompt_tokens", 0),
                                                       "completion_tokens": usage.get("completion_tokens", 0)}
                          if usage.get("llm_calls") else {},
                          "seconds": usage.get("seconds", 0.0), "finish_reason": None,
                          "attempts": usage.get("llm_calls", 0), "cached": False},
           "system": {"name": system, "group": reply.get("group"), "index_key": reply.get("index_key"),
                      "usage": usage, "context": reply.get("context"), "raw": reply.get("raw"),
                      "mapping": as_dicts(mapped), "coverage": coverage(mapped)}}
    if reply.get("embedding"):   # what embedded the system's retrieval (MegaRAG: GME or a stand-in)
        row["system"]["embedding"] = reply["embedding"]
    return score_system_row(row, question, evaluator)


def remapped_row(row: dict, question: Question, mapper: ContextMapper, units: dict, evaluator=None) -> dict:
    """``row`` made again from the reply it recorded (its context, answer, usage): its context
    mapped and scored by this code, the system not asked. What a row scored under another
    ``METRICS_VERSION`` gets (``SystemPipeline.answer_all``): the mapping of a system's context to
    units is part of how its retrieval is scored, and changes with it."""
    system, failure = row.get("system") or {}, row.get("failure") or {}
    ok = not failure or failure.get("reason") == "empty"
    reply = {"ok": ok, "answer": row.get("raw_answer"), "reason": failure.get("reason"), "detail": failure.get("detail"),
             "group": system.get("group"), "index_key": system.get("index_key"), "usage": system.get("usage"),
             "context": system.get("context"), "raw": system.get("raw"), "embedding": system.get("embedding")}
    new = system_row(question, reply, mapper, units, system.get("name"), (row.get("generation") or {}).get("model"),
                     evaluator)
    if system.get("usage_earlier"):
        new["system"]["usage_earlier"] = system["usage_earlier"]
    return new


def score_system_row(row: dict, question: Question, evaluator=None) -> dict:
    """``row``'s scores from what it holds (the mapped context rows and the answer)."""
    answer = InterleavedAnswer.from_dict(row["answer"]) if row.get("answer") else None
    row["metrics"] = evaluator(question, row["retrieved_text"], row["retrieved_images"], answer) \
        if evaluator is not None else {}
    if evaluator is not None:
        row["metrics_version"] = METRICS_VERSION
    return row
