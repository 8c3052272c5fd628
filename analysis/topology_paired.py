"""Paired comparisons of topology runs against one reference cell, by topology: for every other
variant, every topology metric and every stratum (all questions, single-hop, bridge-chain,
synthesis), the mean difference A − B over the questions both scored, its paired bootstrap 95% CI
(questions resampled as pairs) and the Wilcoxon signed-rank p (``analysis.stats.paired``).

The reference B: the variant named with ``--reference``; else the full HAM-RAG cell, the run whose
choices are ``text_repr=ct``, ``image_repr=si`` and ``retrieval=hybrid`` (the paper's
configuration; ``grid=topology`` has one per dataset); else the first variant in label order.
Written as ``topology_paired.{md,tex,csv}`` and printed by ``ham-analyze``.
"""
from __future__ import annotations

from ham.metrics.registry import registry

from .collect import Collection, Run, same_questions
from .versions import refusal
from .stats import paired
from .table_format import Column, Table
from .topology import TOPOLOGY_LABELS, computed, strata, topology_runs

FULL_HAM = {"text_repr": "ct", "image_repr": "si", "retrieval": "hybrid"}
STRATA = ("all", "single-hop", "bridge-chain", "synthesis")


def reference_of(runs: list[Run], collection: Collection, reference: str | None) -> Run:
    if reference is not None:
        named = [r for r in runs if collection.label(r) == reference]
        if not named:
            raise ValueError(f"reference variant {reference!r} not found; variants: "
                             f"{sorted(collection.label(r) for r in runs)}")
        return named[0]
    full = [r for r in runs if all(str(r.choices.get(g)) == v for g, v in FULL_HAM.items())]
    return full[0] if len(full) == 1 else runs[0]


def _scores(run: Run, metric: str, stratum: str) -> dict:
    out = {}
    for row in run.rows:
        s = strata(row)
        if s and (stratum == "all" or s["topology"] == stratum):
            out[str(row["id"])] = (row.get("metrics") or {}).get(metric)
    return out


def topology_paired(collection: Collection, reference: str | None = None, n_resamples: int = 10_000,
                    seed: int = 0) -> tuple[Table | None, list[dict]]:
    cols = [Column("n", "n", best=None), Column("mean_a", "Mean A", best=None, digits=3),
            Column("mean_b", "Mean B", best=None, digits=3), Column("diff", "A − B", best=None, digits=3),
            Column("low", "CI low", best=None, digits=3), Column("high", "CI high", best=None, digits=3),
            Column("p_value", "p", best=None, digits=3)]
    table = Table("topology_paired", "Topology metrics, each variant A against the reference B on the same "
                  "questions, by topology: A − B with a paired bootstrap 95% CI and the Wilcoxon signed-rank p",
                  ["dataset", "A", "B", "topology", "metric"], cols)
    records: list[dict] = []
    refused: list[str] = []
    runs = topology_runs(collection)
    by_dataset: dict[str, list[Run]] = {}
    for run in runs:
        by_dataset.setdefault(run.dataset, []).append(run)
    spec = registry()
    for ds, group in sorted(by_dataset.items()):
        if len(group) < 2:
            continue
        ref = reference_of(group, collection, reference)
        names = computed(group)
        for other in (r for r in group if r is not ref):
            why = same_questions(other, ref) or refusal(collection.versions, other, ref)
            if why is not None:
                refused.append(f"{ds}: {collection.label(other)} vs {collection.label(ref)} not paired: {why}")
                continue
            for stratum in STRATA:
                for m in names:
                    result = paired(_scores(other, m, stratum), _scores(ref, m, stratum), n_resamples=n_resamples,
                                    seed=seed)
                    if result.n == 0:
                        continue
                    rec = {"dataset": ds, "a": collection.label(other), "b": collection.label(ref),
                           "topology": stratum, "metric": m, **result.to_dict()}
                    records.append(rec)
                    table.rows.append(([ds, rec["a"], rec["b"], stratum, spec[m].title], rec))
    collection.problems.extend(f"topology paired table: {r}" for r in refused)
    if not records:
        return None, []
    table.notes.append("B: the variant named with --reference, else the full HAM-RAG cell (ct+si, hybrid "
                       "retrieval); n counts the stratum's questions both variants scored.")
    table.notes.extend(refused)
    return table, records


__all__ = ["topology_paired", "reference_of", "TOPOLOGY_LABELS"]
