"""``ham-topo``: build a validated topology benchmark over an ingested corpus.

    corpus (dataset.path, units) -> image descriptions (describer) -> entity anchors
    -> atomic QA per selected unit -> unit_alone check -> single-hop candidates (+ text_only check)
    -> bridge pairs through shared anchors -> composed questions -> bridge checks
    -> synthesis groups (anchors in >= 5 units) -> facts, question, conclusion -> synthesis checks
    -> questions.jsonl (ham's topology question form), rejected.jsonl, report.json, report.md

Units: every eligible unit (``ham.topo.atomic.eligible``), or ``topo.unit_ids`` (an id not in the
corpus is an error; one not eligible is warned about and reported), or ``topo.units``
of them chosen through the anchors: entities from the most units down, each adding its eligible
units until there are ``topo.units`` (so the few units share entities and can form bridges and a
synthesis group), then any others in a seeded random order.

Output (``topo.out``, default ``outputs/topo/<dataset name>/``):
    questions.jsonl   the kept questions; ``ham dataset=custom dataset.path=<corpus>
                      dataset.questions=questions.jsonl metrics=topology`` runs them, their
                      evidence named by source file, page, passage or image (resolved to unit ids
                      by the run, as every dataset's), ``meta.build`` naming the build
    rejected.jsonl    every rejected candidate with the check that rejected it, its reason and
                      every check run on it
    atomic.jsonl      every atomic QA written, with its unit
    failures.jsonl    every model call that made no candidate (entities, atomic QA, bridge composition,
                      synthesis): its task, units and error (the report counts them, with 5 examples)
    report.json/.md   counts by topology, modality path, cross-page and cross-modal; rejections by
                      reason and topology; construction failures by task; model calls, cache hits,
                      tokens and cost per task; entity anchors; how the kept evidence resolves

Every model call goes through the run's ``generator`` behind the generation cache
(``ham.topo.calls``), so a build killed at any point, run again, continues from what it received.
"""
from __future__ import annotations

import re

import copy
import json
import logging
import random
import time
from collections import Counter
from pathlib import Path

from omegaconf import DictConfig

from ham.datasets.questions import Evidence, EvidencePoint, Hop, Question
from ham.topo.atomic import atomic_qas, eligible
from ham.topo.calls import ModelCalls
from ham.topo.compose import (Candidate, bridge_pairs, compose_bridges, no_synthesis_reason, single_hops,
                              synthesis_groups, synthesize)
from ham.index.entities import EntityIndex, RakeEntities, UnitEntities, corpus_entities, normalise, unit_text
from ham.topo.prompt import TaskPrompt
from ham.topo.validate import Validator
from ham.topo.views import modality
from ham.units import EvidenceUnit, is_table_image, write_jsonl
from ham.text import tokenize

log = logging.getLogger("ham.topo.build")
WORDS = {"text": "text", "image": "figure", "table": "table"}


class LLMEntities:
    """``topo.entities.extractor=llm``: the model lists each unit's entities (prompt
    ``entities_v1``, ``<entity>`` tags), normalised as RAKE's (``ham.index.entities``)."""

    def __init__(self, calls: ModelCalls, prompt: TaskPrompt) -> None:
        self.calls, self.prompt = calls, prompt
        self.failures: list[dict] = []

    def extract_units(self, units, descriptions=None) -> UnitEntities:
        from ham.index.entities import Phrase

        replies = self.calls.ask(self.prompt, [{"content": unit_text(u, descriptions)} for u in units])
        phrases = {}
        for u, reply in zip(units, replies):
            if not reply.ok:
                self.failures.append({"unit": u.unit_id, "error": reply.error})
                phrases[u.unit_id] = []
                continue
            phrases[u.unit_id] = [Phrase(normalise(e), e, 1.0) for e in reply.fields["entity"] if normalise(e)]
        return UnitEntities.of(phrases)


def check_unit_ids(unit_ids: list[str], units: dict[str, EvidenceUnit], root) -> None:
    """``topo.unit_ids`` must all be units of the corpus: a misspelt id had been dropped silently
    (none matching, an empty benchmark that looked built)."""
    unknown = [u for u in unit_ids if u not in units]
    if unknown:
        raise ValueError(f"topo.unit_ids: {len(unknown)} of {len(unit_ids)} id(s) are not units of the corpus "
                         f"{root}: {', '.join(unknown)}")


def not_eligible(unit_ids: list[str], units: dict[str, EvidenceUnit], pool: list[EvidenceUnit],
                 min_words: int) -> list[dict]:
    """The requested units that get no question, with why (reported and warned)."""
    ok = {u.unit_id for u in pool}
    return [{"unit": u, "reason": "a table's image twin (its table is the evidence)" if is_table_image(units[u])
             else f"fewer than topo.min_words={min_words} words of evidence"} for u in unit_ids if u not in ok]


def select_units(pool: list[EvidenceUnit], index: EntityIndex, n: int | None, unit_ids, seed: int) -> list[str]:
    """The units atomic QAs are written for (module docstring)."""
    ids = [u.unit_id for u in pool]
    if unit_ids:
        wanted = set(unit_ids)
        return [u for u in ids if u in wanted]
    if n is None or n >= len(ids):
        return ids
    allowed, picked = set(ids), []
    for e in sorted(index.units_of, key=lambda e: (-len(index.units_of[e]), e)):
        for u in index.units_of[e]:
            if u in allowed and u not in picked:
                picked.append(u)
            if len(picked) >= n:
                break
        if len(picked) >= n:
            break
    rest = [u for u in ids if u not in picked]
    random.Random(seed).shuffle(rest)
    picked += rest[: n - len(picked)]
    order = {u: i for i, u in enumerate(ids)}
    return sorted(picked, key=order.get)


def evidence_of(unit: EvidenceUnit) -> Evidence:
    kind = modality(unit)
    return Evidence(modality=kind, text=None if kind == "image" else unit.content,
                    image=unit.image if kind == "image" else None, doc=unit.doc_id, page=unit.page,
                    layout=None if unit.extra.get("layout_id") is None else str(unit.extra["layout_id"]),
                    bbox=unit.extra.get("bbox"), units=[unit.unit_id])


_TOKEN = re.compile(r"\w[\w.,:/%+-]*[\w%]|\w")


def data_points(fact: str, evidence: str, most: int = 3) -> list[str]:
    """A point's data points, as TopoGraphRAG-Bench's synthesis answers list them: the values its
    fact states (numbers, names) that its evidence holds verbatim, at most ``most``, so a context
    holding the evidence holds them (entity recall); the fact's first word aside, being capitalised
    as any sentence's is."""
    found = []
    for i, m in enumerate(_TOKEN.finditer(fact)):
        value = m.group(0).rstrip(".,:")
        numeric = any(ch.isdigit() for ch in value)
        if not (numeric or (value[0].isupper() and i > 0 and tokenize([value])[0])):   # no "A", "The"
            continue
        if value in found or value not in evidence:
            continue
        found.append(value)
    return found[:most]


def path_of(c: Candidate, units: dict[str, EvidenceUnit] | None = None) -> str:
    """The ordered modality path (TopoGraphRAG-Bench's words): a chain's hop modalities in order, a
    synthesis question's set, a single unit's modality."""
    mods = [WORDS[modality(units[u])] for u in kept_units(c)] if units else [WORDS[m] for m in c.modalities]
    if c.topology == "bridge_chain":
        return "→".join(mods)
    if c.topology == "synthesis":
        return "+".join(sorted(set(mods)))
    return mods[0]


def cross_page(units: list[EvidenceUnit]) -> bool:
    return len({(u.source, u.page) for u in units}) >= 2


def kept_units(c: Candidate) -> list[str]:
    """A kept candidate's evidence: its units; for synthesis the points the leave-one-out check needs."""
    return [c.units[i] for i in c.required] if c.topology == "synthesis" and c.required is not None else list(c.units)


def to_question(c: Candidate, units: dict[str, EvidenceUnit], build: dict) -> Question:
    """A kept candidate in ham's topology question form (``ham.datasets.questions``)."""
    keep = kept_units(c)
    evidence = [evidence_of(units[u]) for u in keep]
    mods = [e.modality for e in evidence]
    meta = {"cross_page": cross_page([units[u] for u in keep]), "cross_modal": any(m != "text" for m in mods),
            "modalities": mods, "build": build, "checks": c.checks, "candidate": c.id}
    # a synthesis question has no short answer (TopoGraphRAG-Bench writes none): its entities are
    # its points' data points, not the whole conclusion as one "entity" no context ever holds
    short = None if c.topology == "synthesis" else c.answer
    q = Question(id=c.id, question=c.question, reference_answer=c.answer, answer_short=short, topology=c.topology,
                 evidence=evidence, kinds=[c.topology, *sorted(set(mods))] + (["cross_modal"] if meta["cross_modal"] else []),
                 gold_text=[e.text for e in evidence if e.text], gold_images=[e.image for e in evidence if e.image],
                 gold_pages=list(dict.fromkeys(e.doc for e in evidence)), meta=meta)
    if c.topology == "bridge_chain":
        q.bridge_entities = [c.bridge_surface or c.bridge]
        q.hops = [Hop(h.question, h.answer, h.modality, i) for i, h in enumerate(c.hops)]
        q.meta["strength"] = c.meta.get("strength")
    elif c.topology == "synthesis":
        q.evidence_points = [EvidencePoint(c.points[i], data_points(c.points[i], units[c.units[i]].content), k,
                                           f"p{i + 1}") for k, i in enumerate(c.required)]
        q.meta.update(pattern_type=c.pattern, entity=c.entity,
                      dropped_points=[{"fact": c.points[i], "unit": c.units[i]}
                                      for i in range(len(c.units)) if i not in c.required])
    return q


def _retriever(cfg: DictConfig, corpus, cache):
    """The text-only top-k retrieval of the ``text_top_k`` check: the run's hybrid text ranking,
    tables and figures left out."""
    from ham.retrieve.retriever import Retriever
    from ham.run.build import build_offline, configured_fusion

    indexed = build_offline(cfg, corpus, cache)
    plain = Retriever(corpus, indexed.indexes, indexed.encoder, pool=int(cfg.retrieval.pool),
                      fusion=configured_fusion(cfg))

    def retrieve_text(question: str, k: int) -> list[str]:
        ranked = plain.ranked("text", plain.query(question), max(int(cfg.retrieval.pool), k))
        return [s.unit_id for s in ranked if corpus.by_id[s.unit_id].kind == "text"][:k]

    return retrieve_text, indexed.descriptions


def build(cfg: DictConfig) -> Path:
    """Build the benchmark of ``cfg`` (the ``topo`` group with the run's dataset, units, describer,
    encoder, retrieval and generator) and return its output folder."""
    from ham.backends.local import seed_everything
    from ham.conf import plain
    from ham.datasets.evidence import resolve_evidence
    from ham.paths import resolve_path
    from ham.run.build import configured_cache, configured_generator, load_configured_corpus

    started = time.time()
    t = cfg.topo
    seed_everything(int(cfg.seed))
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    units = corpus.by_id
    unit_ids = [str(u) for u in t.unit_ids or []]
    check_unit_ids(unit_ids, units, corpus.root)
    calls = ModelCalls(configured_generator(cfg, cache), batch=int(t.batch), progress=bool(cfg.progress))
    prompts = {k: TaskPrompt.load(v) for k, v in t.prompts.items()}
    retrieve_text, descriptions = _retriever(cfg, corpus, cache)

    ent = t.entities
    # a table's image-side twin is the same evidence: it must neither anchor an entity with its
    # own table nor yield a second atomic question
    evidence = [u for u in corpus.units if not is_table_image(u)]
    llm_failures: list[dict] = []
    if ent.extractor == "llm":
        extractor = LLMEntities(calls, prompts["entities"])
        found = extractor.extract_units(evidence, descriptions)
        llm_failures = extractor.failures
    else:
        found = corpus_entities(evidence, RakeEntities(int(ent.max_words), int(ent.per_unit), int(ent.min_chars)),
                                cache, descriptions, corpus.content_hash)
    index = EntityIndex.build(found, [u.unit_id for u in evidence], int(ent.min_units), float(ent.max_share))

    pool = eligible(evidence, descriptions, int(t.min_words))
    skipped_ids = not_eligible(unit_ids, units, pool, int(t.min_words))
    for skipped in skipped_ids:
        log.warning("topo.unit_ids: %s gets no question: %s", skipped["unit"], skipped["reason"])
    selected = select_units(pool, index, t.units, unit_ids, int(t.seed))
    atomics, atomic_failures = atomic_qas([units[u] for u in selected], calls, prompts["atomic_qa"], descriptions)

    validator = Validator(calls, prompts["sufficiency"], units, descriptions, retrieve_text,
                          int(t.validate.top_k), int(t.validate.min_required))
    singles = single_hops(atomics)
    validator.unit_alone(singles)
    valid = [c.hops[0] for c in singles if c.rejected is None]
    validator.text_only(singles)

    b = t.bridges
    pairs = bridge_pairs(valid, index, units, int(b.max), int(b.per_entity), int(b.min_strength))
    bridges, bridge_failures = compose_bridges(pairs, index, calls, prompts["bridge_compose"])
    validator.bridges(bridges)

    s = t.synthesis
    groups = synthesis_groups(index, selected, units, int(s.min_units), int(s.min_points), int(s.max_points),
                              int(s.max))
    no_synthesis = None if groups else no_synthesis_reason(index, selected, int(s.min_units), int(s.min_points))
    if no_synthesis:
        log.warning("no synthesis question: %s", no_synthesis)
    syntheses, synthesis_failures = synthesize(groups, index, units, calls, prompts["synthesis"], descriptions)
    validator.synthesis(syntheses)

    candidates = singles + bridges + syntheses
    build_id = {"generator": calls.model_id, "prompts": {k: p.name for k, p in prompts.items()},
                "corpus_hash": corpus.content_hash}
    kept = [to_question(c, units, build_id) for c in candidates if c.rejected is None]
    out = resolve_path(t.out, must_exist=False)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "questions.jsonl", (q.to_dict() for q in kept))
    write_jsonl(out / "rejected.jsonl", (c.to_dict() for c in candidates if c.rejected is not None))
    write_jsonl(out / "atomic.jsonl", (a.to_dict() for a in atomics))
    failures = {"entities": llm_failures, "atomic_qa": atomic_failures, "bridge_compose": bridge_failures,
                "synthesis": synthesis_failures}
    write_jsonl(out / "failures.jsonl", ({"task": task, "units": f.get("units") or [f["unit"]],
                                          **{k: v for k, v in f.items() if k not in ("unit", "units")}}
                                         for task, of_task in failures.items() for f in of_task))

    check_copy = copy.deepcopy(kept)   # how a run will resolve the evidence: from names, not from ids
    for q in check_copy:
        for e in q.evidence:
            e.units = []
    mapping = resolve_evidence(check_copy, corpus.units)
    exact = sum(1 for q, orig in zip(check_copy, kept) for e, o in zip(q.evidence, orig.evidence) if e.units == o.units)
    cost = cfg.cost
    pricing = cost.get("pricing") or cfg.generator.get("pricing")
    price = dict(cost.prices[pricing]) if pricing and pricing in cost.prices else None
    report = {
        "out": str(out), "dataset": cfg.dataset.name, "corpus_root": str(corpus.root), "corpus_hash": corpus.content_hash,
        "generator": calls.model_id, "generator_name": calls.model_name, "settings": plain(cfg)["topo"],
        "units": {"corpus": len(corpus.units), "eligible": len(pool), "selected": len(selected),
                  "requested_not_eligible": skipped_ids},
        "entities": {"extractor": ent.extractor, **index.summary(), "llm_failures": len(llm_failures)},
        "candidates": dict(Counter(c.topology for c in candidates)),
        "kept": _counts([c for c in candidates if c.rejected is None], units),
        "rejected": {"total": sum(c.rejected is not None for c in candidates),
                     "by_reason": dict(Counter(c.rejected["reason"] for c in candidates if c.rejected).most_common()),
                     "by_check": dict(Counter(c.rejected["check"] for c in candidates if c.rejected).most_common()),
                     "by_topology": {top: dict(Counter(c.rejected["reason"] for c in candidates
                                                       if c.rejected and c.topology == top).most_common())
                                     for top in ("single_hop", "bridge_chain", "synthesis")}},
        "construction_failures": {**{task: len(of_task) for task, of_task in failures.items()},
                                  "examples": (atomic_failures + bridge_failures + synthesis_failures)[:5],
                                  "all": "failures.jsonl"},
        "stages": {"atomic_qas": len(atomics), "valid_atomic_qas": len(valid), "bridge_pairs": len(pairs),
                   "synthesis_groups": len(groups), "no_synthesis_groups": no_synthesis},
        "calls": calls.summary(price),
        "evidence_resolution": {**mapping.summary(), "items_resolving_to_their_unit_alone": exact},
        "seconds": round(time.time() - started, 2),
    }
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    (out / "report.md").write_text(report_markdown(report))
    return out


def _counts(cands: list[Candidate], units: dict) -> dict:
    return {"total": len(cands), "by_topology": dict(Counter(c.topology for c in cands)),
            "by_path": dict(Counter(f"{c.topology}: {path_of(c, units)}" for c in cands).most_common()),
            "cross_page": sum(cross_page([units[u] for u in kept_units(c)]) for c in cands),
            "cross_modal": sum(any(modality(units[u]) != "text" for u in kept_units(c)) for c in cands)}


def report_markdown(r: dict) -> str:
    lines = [f"# Topology build: {r['dataset']}", "",
             f"Generator {r['generator']}; {r['units']['selected']} of {r['units']['eligible']} eligible units "
             f"({r['units']['corpus']} in the corpus); {r['entities']['anchors']} entity anchors "
             f"({r['entities']['extractor']}); {r['seconds']} s.", "",
             *[f"Requested unit {x['unit']} gets no question: {x['reason']}.\n" for x in r["units"]["requested_not_eligible"]],
             "| topology | candidates | kept | rejected |", "| --- | ---: | ---: | ---: |"]
    for top in ("single_hop", "bridge_chain", "synthesis"):
        n = r["candidates"].get(top, 0)
        k = r["kept"]["by_topology"].get(top, 0)
        lines.append(f"| {top} | {n} | {k} | {n - k} |")
    if r["stages"].get("no_synthesis_groups"):
        lines += ["", f"No synthesis group: {r['stages']['no_synthesis_groups']}."]
    lines += ["", f"Kept: {r['kept']['total']} ({r['kept']['cross_modal']} cross-modal, "
                  f"{r['kept']['cross_page']} cross-page).", "", "| kept by modality path | n |", "| --- | ---: |"]
    lines += [f"| {p} | {n} |" for p, n in r["kept"]["by_path"].items()]
    lines += ["", "| rejected by reason | n |", "| --- | ---: |"]
    lines += [f"| {k} | {n} |" for k, n in r["rejected"]["by_reason"].items()]
    f = r["construction_failures"]
    lines += ["", f"Construction failures (no candidate made): atomic QA {f['atomic_qa']}, bridge composition "
                  f"{f['bridge_compose']}, synthesis {f['synthesis']}, entities {f['entities']} (each in "
                  "failures.jsonl).", "",
              "| task | calls | cached | fresh | failed | unparseable | prompt tokens | completion tokens |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for task, s in r["calls"]["tasks"].items():
        lines.append(f"| {task} | {s['calls']} | {s['cached']} | {s['fresh']} | {sum(s['generation_failures'].values())} "
                     f"| {s['unparseable']} | {s['prompt_tokens']} | {s['completion_tokens']} |")
    total = r["calls"]["total"]
    cost = (f"{r['calls']['cents']} cents ({r['calls']['fresh_cents']} cents fresh)" if r["calls"]["cents"] is not None
            else "no price row for this generator (tokens only)")
    lines += ["", f"All calls: {total['calls']} ({total['cached']} from the cache), {total['prompt_tokens']} prompt and "
                  f"{total['completion_tokens']} completion tokens; cost {cost}.", "",
              f"Evidence: {r['evidence_resolution']['items']} items, {r['evidence_resolution']['matched']} resolve, "
              f"{r['evidence_resolution']['items_resolving_to_their_unit_alone']} to their own unit alone.", ""]
    return "\n".join(lines)
