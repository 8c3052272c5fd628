"""A run whose answers come from a GraphRAG system (``system=lightrag|hipporag|raganything|
megarag``; ``system=none`` is ham's own pipeline): config -> components, then indexing and
answering, resumably, into the same ``predictions.jsonl`` rows as ham's pipeline writes.

``ham.run.build.build_system_pipeline(cfg)`` ingests the corpus as every run does (so gold evidence maps to the
same units), serves the run's encoder on a loopback ``/v1/embeddings`` (``system.embedding_base_url``
names another endpoint instead), points the system's LLM at ``generator.client.base_url`` (the run's
generator must be ``generator=openai`` or one built on it: the systems call an OpenAI-compatible
chat endpoint themselves) and indexes the corpus (``ham.systems.adapter``: cached per document and
config; a document that fails is recorded and the rest goes on). ``SystemPipeline.answer_all`` then
answers every question not yet in the file, and again those whose failure a resume redoes
(``run.redo_failures``) or whose index failed before and now exists; a row scored under another
version of the metrics' code is made again in place from the reply it recorded: its context mapped
to units and scored by this code, the system not asked.

What it records (``run.json`` and ``metrics.json``, under ``index.system``): the system, its
release and the versions its venv reports, each index (documents, units, graph nodes and edges,
LLM calls and tokens, seconds, failure and reason), totals, the query usage (every attempt's: a
row answered again carries the cost of the attempts it replaced in ``system.usage_earlier``, as
the index totals count failed builds), and the context mapping's coverage (items per kind,
mapped, by rule, unmapped reasons).
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path


from ham.run.pipeline import Pipeline
from ham.run.grid import METRICS_CHANGED, redo_reason
from ham.run.predictions import read_predictions, rewrite

log = logging.getLogger("ham.run.system_pipeline")


@dataclass
class AnsweredBy:
    """What answered a system run's questions, as ``run.json`` names generators."""

    model_id: str
    pricing: str | None = None


@dataclass
class SystemPipeline(Pipeline):
    system: object = None                  # ham.systems.adapter.GraphSystem, indexed
    mapper: object = None                  # ham.systems.mapping.ContextMapper over the corpus's units
    servers: list = field(default_factory=list)

    def answer_all(self, questions, pred_path: Path, desc: str = "", progress: bool = True,
                   redo_failures=frozenset(), fresh: frozenset = frozenset()) -> list[dict]:
        from tqdm import tqdm

        from ham.systems.mapping import Mapped, coverage
        from ham.systems.rows import remapped_row, system_row

        done, superseded = read_predictions(pred_path, repair=True)
        redo = frozenset(redo_failures) | frozenset(fresh)
        indexed = {g for g, r in self.system.records.items() if r.get("ok")}

        def again(row: dict) -> bool:
            reason = (row.get("failure") or {}).get("reason")
            group = (row.get("system") or {}).get("group")
            return row["id"] in fresh or reason in redo or (reason == "index_failed" and group in indexed)

        todo = [q for q in questions if q.id not in done or again(done[q.id])]
        units = self.corpus.by_id
        rewritten = bool(superseded)
        # scored under older metrics: mapped and scored again from the recorded reply, the system not asked
        asked = {q.id for q in todo}
        rescored = [q for q in questions if q.id in done and q.id not in asked
                    and redo_reason(done[q.id], frozenset()) == METRICS_CHANGED]
        for q in rescored:
            done[q.id] = remapped_row(done[q.id], q, self.mapper, units, self.evaluator)
        if rescored:
            log.info("%d rows mapped and scored again from their recorded replies (scored under another version "
                     "of the metrics)", len(rescored))
            rewritten = True
        try:
            with pred_path.open("a", encoding="utf-8") as fh:
                for q in tqdm(todo, desc=desc, unit="q", disable=not progress):
                    reply = self.system.query(q)
                    row = system_row(q, reply, self.mapper, units, self.system.system,
                                     self.system.llm.model, self.evaluator)
                    if q.id in done:   # a redone row: what the earlier attempts cost is still spent
                        rewritten = True
                        row["system"]["usage_earlier"] = earlier_usage(done[q.id])
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                    fh.flush()
                    done[q.id] = row
        finally:
            self.close()
        rows = [done[q.id] for q in questions if q.id in done]
        if rewritten:
            rewrite(pred_path, list(done.values()))
        mapped = [[Mapped(**m) for m in (r.get("system") or {}).get("mapping") or []] for r in rows]
        self.info["system"]["query"] = query_totals(rows)
        self.info["context_mapping"] = coverage(mapped)
        return rows

    def close(self) -> None:
        if self.system is not None:
            self.system.close()
        for server in self.servers:
            server.close()
        self.servers = []


USAGE_KEYS = ("llm_calls", "llm_failed_calls", "prompt_tokens", "completion_tokens", "embedding_calls", "seconds")


def earlier_usage(row: dict) -> dict:
    """The usage of every attempt before the one that replaces ``row``: its own and its earlier
    ones, summed (``attempts`` counts them), with the failed LLM calls by reason."""
    system = row.get("system") or {}
    usages = [system.get("usage") or {}, system.get("usage_earlier") or {}]
    out = {k: round(sum(u.get(k, 0) or 0 for u in usages), 3) for k in USAGE_KEYS}
    out["attempts"] = 1 + (system.get("usage_earlier") or {}).get("attempts", 0)
    out["llm_failure_reasons"] = _reasons(usages)
    return out


def query_totals(rows: list[dict]) -> dict:
    """The questions' query cost: every attempt's, as ``index_totals`` counts failed builds (a
    row answered again keeps what the attempts it replaced cost in ``system.usage_earlier``);
    ``redone`` counts those attempts. ``per_question`` divides by the questions."""
    usages = [(r.get("system") or {}).get("usage") or {} for r in rows]
    earlier = [(r.get("system") or {}).get("usage_earlier") or {} for r in rows]
    totals = {k: round(sum(u.get(k, 0) or 0 for u in usages + earlier), 3) for k in USAGE_KEYS}
    n = len(rows)
    return {"questions": n, **totals, "per_question": {k: round(v / n, 3) if n else None for k, v in totals.items()},
            "redone": sum(u.get("attempts", 0) for u in earlier),
            "llm_failure_reasons": _reasons(usages + earlier),
            "failures": dict(Counter(r["failure"]["reason"] for r in rows if r.get("failure")))}


def _reasons(usages: list[dict]) -> dict:
    """Failed LLM calls by reason, summed over the wrappers' usage records."""
    total: Counter = Counter()
    for u in usages:
        total.update(u.get("llm_failure_reasons") or {})
    return dict(total.most_common())


def index_totals(records: dict[str, dict]) -> dict:
    ok = [r for r in records.values() if r.get("ok")]
    # the index's cost (a reused one's as recorded when it was built); a failed build's calls
    # cost as much as a finished one's, so its usage counts too
    usage = [r.get("usage") or {} for r in records.values()]
    built = [r for r in ok if not r.get("cached")]
    out = {"groups": len(records), "indexed": len(ok), "failed": len(records) - len(ok),
           "failure_reasons": dict(Counter(r.get("reason") for r in records.values() if not r.get("ok"))),
           "cached": len(ok) - len(built),
           "nodes": sum((r.get("graph") or {}).get("nodes") or 0 for r in ok),
           "edges": sum((r.get("graph") or {}).get("edges") or 0 for r in ok),
           "communities": None if all((r.get("graph") or {}).get("communities") is None for r in ok)
           else sum((r.get("graph") or {}).get("communities") or 0 for r in ok)}
    for key in USAGE_KEYS:
        out[key] = round(sum(u.get(key, 0) or 0 for u in usage), 3)
    out["llm_failure_reasons"] = _reasons(usage)
    return out
