"""TopoGraphRAG-Bench's Appendix A cost table for the topology runs: per system (and ham cell),
what indexing cost per document and answering per question, with the graph's size and how much of
the retrieved context mapped onto ham's units.

Indexing (a system run's ``metrics.json`` ``index.system``, written by ``ham.run.system_pipeline``):
LLM calls, prompt + completion tokens, wall seconds, graph nodes and edges, each summed over the
indexes and divided by the documents indexed (the benchmark's per-document denominator;
``index_scope=corpus`` builds one index over all documents and divides the same way); the
indexes served from the cache count with the cost recorded when they were built. Communities:
``—`` for systems that build none. Answering: LLM calls, tokens and seconds per question (the
system's own calls: keyword extraction, reranking, answer; a ham cell: its generator's tokens),
and the failures by reason. Mapped: the share of retrieved context items mapped to units. A row
per run, headed by its variant, and by its dataset too when the runs span several.
"""
from __future__ import annotations

from .collect import Collection
from .table_format import Column, Table
from .topology import topology_runs

COLUMNS = [("index_llm_calls", "index LLM calls/doc"), ("index_tokens", "index tokens/doc"),
           ("index_seconds", "index s/doc"), ("nodes", "nodes/doc"), ("edges", "edges/doc"),
           ("communities", "communities/doc"), ("query_llm_calls", "LLM calls/q"), ("query_tokens", "tokens/q"),
           ("query_seconds", "s/q"), ("mapped", "context mapped")]


def _per(total, n):
    return round(total / n, 2) if n and total is not None else None


def system_cost(metrics: dict) -> dict | None:
    """The cost row of one run's metrics, or None for a run without a system."""
    system = (metrics.get("index") or {}).get("system")
    if not system:
        return None
    groups = system.get("groups") or {}
    docs = sum(len(g.get("documents") or []) for g in groups.values() if g.get("ok"))
    idx, query = system.get("index") or {}, system.get("query") or {}
    per_q = query.get("per_question") or {}
    mapping = (metrics.get("index") or {}).get("context_mapping") or {}
    return {"system": system.get("name"), "documents": docs,
            "index_llm_calls": _per(idx.get("llm_calls"), docs),
            "index_tokens": _per((idx.get("prompt_tokens") or 0) + (idx.get("completion_tokens") or 0), docs),
            "index_seconds": _per(sum((g.get("seconds") or 0) for g in groups.values() if g.get("ok")), docs),
            "nodes": _per(idx.get("nodes"), docs), "edges": _per(idx.get("edges"), docs),
            "communities": _per(idx.get("communities"), docs) if idx.get("communities") is not None else None,
            "query_llm_calls": per_q.get("llm_calls"),
            "query_tokens": round((per_q.get("prompt_tokens") or 0) + (per_q.get("completion_tokens") or 0), 1),
            "query_seconds": per_q.get("seconds"), "mapped": mapping.get("mapped_share"),
            "failures": query.get("failures") or {}, "index_failures": idx.get("failure_reasons") or {}}


def ham_cost(metrics: dict, n: int) -> dict:
    cost = metrics.get("cost") or {}
    tokens = [(cost.get(k) or {}).get("mean") for k in ("prompt_tokens", "completion_tokens")]
    return {"system": "ham", "query_tokens": round(sum(t for t in tokens if t is not None), 1)
            if any(t is not None for t in tokens) else None,
            "query_seconds": _per(metrics.get("seconds"), n), "query_llm_calls": 1.0 if any(tokens) else None,
            "failures": metrics.get("failures") or {}}


def cost_table(collection: Collection) -> Table | None:
    runs = topology_runs(collection)
    if not any(system_cost(r.metrics) for r in runs):
        return None
    several = len({r.dataset for r in runs}) > 1   # else two datasets' rows of one variant read alike
    table = Table("cost", "Indexing and answering cost (TopoGraphRAG-Bench Appendix A): per document indexed "
                  "and per question; context mapped = share of retrieved items mapped to ham units",
                  (["dataset"] if several else []) + ["variant", "documents", "failures"],
                  [Column(k, h, best=None) for k, h in COLUMNS])
    for run in runs:
        row = system_cost(run.metrics) or ham_cost(run.metrics, run.n_questions)
        failures = dict(row.get("index_failures", {}))
        for reason, n in (row.get("failures") or {}).items():
            failures[reason] = failures.get(reason, 0) + n
        table.rows.append(([run.dataset] * several + [collection.label(run), str(row.get("documents") or "—"),
                            ", ".join(f"{k}: {v}" for k, v in sorted(failures.items())) or "none"],
                           {k: row.get(k) for k, _ in COLUMNS}))
    table.notes.append("ham cells: no graph is built; s/q is the run's wall time per question, tokens its generator's")
    return table
