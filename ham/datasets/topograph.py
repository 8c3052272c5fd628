"""TopoGraphRAG-Bench questions: ``annotations/benchmark.json``.

Schema (checked against RichardLRC/TopoGraphRAG-Bench: ``README.md``, the construction scripts
that write each record, ``construction/multihop/generate_atomic_qa.py`` (single hop),
``construction/multihop/compose_bridge_chain.py`` (bridge chain),
``construction/synthesis/generate_qa.py`` (synthesis), and the readers
``evaluation/eval_ragas.py``/``eval_ragas_retrieval.py``). ``benchmark.json`` is one JSON array
(not JSONL) of 2,024 records; the evaluation code takes a record's id from ``mh_id``, ``sq_id`` or
``sh_id`` and its topology from ``question_type`` (``single_hop`` | ``bridge_chain`` |
``synthesis``); the README also names a ``question_id``. Every record has an integer ``doc_id``
(the document's ``doc_id`` in ``loaded_info.json``).

    single hop    {sh_id, doc_id, shared_entity, question_role, question, answer, answer_type,
                   source: {modality, layout_id, page_id}, quality_score, text_redundant}
    bridge chain  {mh_id, doc_id, num_hops, question, final_answer, answer_type,
                   bridge_entities: [str], indirect_description, hop_path: "figure→table",
                   cross_modal, cross_page, quality_score,
                   reasoning_trace: [{hop, source_modality, source_page, source_layout,
                                      sub_question, result}],
                   evidence_sources: [{modality, layout_id, page_id}], source_single_hops}
    synthesis     {sq_id, doc_id, entity, question, pattern_type, num_sources_required,
                   cross_modal, evidence_modalities,
                   answer: {evidence_points: [{fact_id, source_layout, source_page,
                                               source_modality, fact, data_points}],
                            synthesis_conclusion, key_data_cited}}

Modalities are ``text``, ``figure``, ``table``. In the ``Question``: ``topology``; ``evidence`` in
order (a bridge chain's hops in hop order, a synthesis question's evidence points in order, one
``Evidence`` per distinct layout) named as the source names it (doc = ``str(doc_id)``, layout =
``str(layout_id)``, page = ``page_id``) with ham's modality words (figure -> ``image``);
``hops`` (sub-question, result, modality, evidence index); ``bridge_entities``;
``evidence_points`` (fact, data points, fact id, evidence index); ``kinds`` = the ordered modality
path in the source's words (``figure→table`` for a chain, ``figure+table+text`` for synthesis, the
modality for a single hop); ``reference_answer`` = ``final_answer``, ``answer`` or
``answer.synthesis_conclusion``; ``answer_short`` for single-hop and bridge-chain answers; every
other field kept in ``meta``.

The file may also be JSONL (one record per line). Problems (with the line where the record
starts): a record that is not an object, lacks an id, ``question`` or ``doc_id``, or has an
unknown topology is skipped; a chain whose ``evidence_sources`` disagree with its trace, a
``hop_path`` that differs from the trace's modalities, or ``num_sources_required`` that differs
from the evidence points is noted and kept. A syntax error in the array is reported and reading
resumes at the next record that starts at the array's indentation.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ham.datasets.questions import Evidence, EvidencePoint, Hop, Question, read_all
from ham.records import records

ID_KEYS = ("question_id", "mh_id", "sq_id", "sh_id")
TOPOLOGY_OF_ID = {"sh_id": "single_hop", "mh_id": "bridge_chain", "sq_id": "synthesis"}
TOPOLOGY_ALIASES = {"single_hop": "single_hop", "single-hop": "single_hop", "singlehop": "single_hop",
                    "bridge_chain": "bridge_chain", "bridge-chain": "bridge_chain", "multihop": "bridge_chain",
                    "multi_hop": "bridge_chain", "synthesis": "synthesis"}
MODALITY = {"text": "text", "figure": "image", "image": "image", "chart": "image", "table": "table"}
ARROW = "→"


def ham_modality(raw) -> str | None:
    """ham's modality word for a TopoGraph modality (``figure`` -> ``image``); None if unknown."""
    return MODALITY.get(str(raw).strip().lower()) if raw is not None else None


# --------------------------------------------------------------------------- reading JSON

# --------------------------------------------------------------------------- records

def _id_of(obj: dict) -> tuple[str | None, str | None]:
    for key in ID_KEYS:
        if obj.get(key) not in (None, ""):
            return str(obj[key]), key
    return None, None


def _topology(obj: dict, id_key: str | None) -> str:
    raw = obj.get("question_type")
    if raw not in (None, ""):
        topology = TOPOLOGY_ALIASES.get(str(raw).strip().lower())
        if topology is None:
            raise ValueError(f"unknown question_type {raw!r}")
        return topology
    for key in ("sh_id", "mh_id", "sq_id"):
        if obj.get(key) not in (None, ""):
            return TOPOLOGY_OF_ID[key]
    if obj.get("reasoning_trace") is not None:
        return "bridge_chain"
    if isinstance(obj.get("answer"), dict):
        return "synthesis"
    if isinstance(obj.get("source"), dict):
        return "single_hop"
    raise ValueError("no question_type and no sh_id/mh_id/sq_id to tell its topology")


class _EvidenceList:
    """Evidence in first-seen order, one per (layout, page); returns each source's index."""

    def __init__(self, doc: str) -> None:
        self.doc = doc
        self.items: list[Evidence] = []
        self.index: dict[tuple, int] = {}

    def add(self, layout, page, modality) -> int:
        key = (None if layout is None else str(layout), page if isinstance(page, int) else None)
        if key in self.index:
            return self.index[key]
        self.index[key] = len(self.items)
        self.items.append(Evidence(doc=self.doc, layout=key[0], page=key[1], modality=ham_modality(modality)))
        return self.index[key]


def _single_hop(obj: dict, ev: _EvidenceList, notes: list[str]) -> dict:
    source = obj.get("source")
    if not isinstance(source, dict):
        raise ValueError("single-hop record without a source object")
    ev.add(source.get("layout_id"), source.get("page_id"), source.get("modality"))
    answer = obj.get("answer")
    answer = None if answer is None else str(answer)
    kinds = [str(source["modality"])] if source.get("modality") else []
    return {"reference_answer": answer, "answer_short": answer, "kinds": kinds}


def _bridge_chain(obj: dict, ev: _EvidenceList, notes: list[str]) -> dict:
    trace = obj.get("reasoning_trace") or []
    if not isinstance(trace, list) or not all(isinstance(h, dict) for h in trace):
        raise ValueError("reasoning_trace is not a list of hop objects")
    trace = sorted(trace, key=lambda h: h.get("hop") if isinstance(h.get("hop"), int) else 0)
    hops = []
    path = []
    for h in trace:
        index = ev.add(h.get("source_layout"), h.get("source_page"), h.get("source_modality"))
        hops.append(Hop(sub_question=str(h.get("sub_question") or ""), result=str(h.get("result") or ""),
                        modality=ham_modality(h.get("source_modality")), evidence=index))
        path.append(str(h.get("source_modality")))
    sources = obj.get("evidence_sources") or []
    if isinstance(sources, list):
        trace_keys = [(str(h.get("source_layout")), h.get("source_page")) for h in trace]
        source_keys = [(str(s.get("layout_id")), s.get("page_id")) for s in sources if isinstance(s, dict)]
        if trace and source_keys and source_keys != trace_keys:
            notes.append(f"evidence_sources {source_keys} differ from the reasoning trace {trace_keys} "
                         "(the trace is used)")
        if not trace:
            for s in sources:
                if isinstance(s, dict):
                    ev.add(s.get("layout_id"), s.get("page_id"), s.get("modality"))
                    path.append(str(s.get("modality")))
    if not ev.items:
        notes.append("no reasoning_trace or evidence_sources (no gold evidence)")
    hop_path = obj.get("hop_path")
    derived = ARROW.join(path)
    if hop_path and path and str(hop_path).replace("->", ARROW) != derived:
        notes.append(f"hop_path {hop_path!r} differs from the trace's modalities {derived!r}")
    bridges = obj.get("bridge_entities") or []
    if not isinstance(bridges, list):
        bridges = [bridges]
    answer = obj.get("final_answer")
    answer = None if answer is None else str(answer)
    kind = derived or (str(hop_path) if hop_path else "")
    return {"reference_answer": answer, "answer_short": answer, "hops": hops,
            "bridge_entities": [str(b) for b in bridges], "kinds": [kind] if kind else []}


def _synthesis(obj: dict, ev: _EvidenceList, notes: list[str]) -> dict:
    answer = obj.get("answer")
    if not isinstance(answer, dict):
        raise ValueError("synthesis record whose answer is not an object")
    raw_points = answer.get("evidence_points") or []
    if not isinstance(raw_points, list):
        raise ValueError("answer.evidence_points is not a list")
    points = []
    modalities = []
    for p in raw_points:
        if not isinstance(p, dict):
            notes.append("an evidence point is not an object (left out)")
            continue
        index = ev.add(p.get("source_layout"), p.get("source_page"), p.get("source_modality"))
        data = p.get("data_points") or []
        points.append(EvidencePoint(fact=str(p.get("fact") or ""), data_points=[str(d) for d in data]
                                    if isinstance(data, list) else [str(data)], evidence=index,
                                    fact_id=None if p.get("fact_id") is None else str(p["fact_id"])))
        modalities.append(str(p.get("source_modality")))
    required = obj.get("num_sources_required")
    if isinstance(required, int) and required != len(points):
        notes.append(f"num_sources_required is {required} but there are {len(points)} evidence points")
    conclusion = answer.get("synthesis_conclusion")
    kind = "+".join(sorted(set(modalities)))
    return {"reference_answer": None if conclusion is None else str(conclusion), "evidence_points": points,
            "kinds": [kind] if kind else []}


BUILDERS = {"single_hop": _single_hop, "bridge_chain": _bridge_chain, "synthesis": _synthesis}
_USED = {"question", "doc_id", "answer", "final_answer", "bridge_entities", "reasoning_trace", "source"}


def topograph_question(obj) -> tuple[Question, list[str]]:
    """One benchmark record as a ``Question`` and notes on it; ValueError when it cannot be one."""
    if not isinstance(obj, dict):
        raise ValueError("record is not a JSON object")
    qid, id_key = _id_of(obj)
    if qid is None:
        raise ValueError(f"record has none of {', '.join(ID_KEYS)}")
    text = obj.get("question")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{qid}: no question")
    if obj.get("doc_id") in (None, ""):
        raise ValueError(f"{qid}: no doc_id")
    topology = _topology(obj, id_key)
    notes: list[str] = []
    ev = _EvidenceList(str(obj["doc_id"]))
    fields = BUILDERS[topology](obj, ev, notes)
    meta = {k: v for k, v in obj.items() if k not in _USED}
    if topology == "synthesis":
        meta.update({k: v for k, v in obj["answer"].items() if k not in ("evidence_points",
                                                                          "synthesis_conclusion")})
    meta["doc_id"] = obj["doc_id"]
    question = Question(id=qid, question=text.strip(), topology=topology, evidence=ev.items, meta=meta,
                        **fields)
    return question, [f"{qid}: {n}" for n in notes]


def iter_topograph(path: str | Path, problems: list[str]) -> Iterator[Question]:
    path = Path(path)
    seen: set[str] = set()
    for lineno, record in records(path, problems):
        try:
            question, notes = topograph_question(record)
        except (ValueError, TypeError) as exc:
            problems.append(f"{path}:{lineno}: {exc} (question skipped)")
            continue
        if question.id in seen:
            problems.append(f"{path}:{lineno}: duplicate question id {question.id!r} (question skipped)")
            continue
        seen.add(question.id)
        problems.extend(f"{path}:{lineno}: {note}" for note in notes)
        yield question


class TopographReader:
    """TopoGraphRAG-Bench ``benchmark.json`` (a JSON array; JSONL also read)."""

    format = "topograph"

    def iter(self, path: str | Path, problems: list[str]) -> Iterator[Question]:
        return iter_topograph(path, problems)

    def read(self, path: str | Path) -> tuple[list[Question], list[str]]:
        return read_all(iter_topograph, path, "the questions file", (OSError, UnicodeDecodeError, ValueError))
