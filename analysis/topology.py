"""Topology breakdowns (TopoGraphRAG-Bench's sections 5.3-5.5 and appendix C) and its Table 2,
from the runs' per-question scores. Only runs whose prediction rows carry a ``gold.topology``
(TopoGraphRAG-Bench, the demo's topology questions) take part.

Each question falls in one stratum per breakdown, derived from its gold (``row["gold"]``) alone,
so every run and dataset is cut the same way:

    topology     single-hop | bridge-chain | synthesis
    path         the ordered modality path: a bridge chain's hop modalities in hop order
                 (``text→figure``), a single-hop question's modality, a synthesis question's
                 modalities as a set (``table+text``); modalities in the paper's words: text,
                 figure (ham's ``image``), table
    pages        cross-page (its evidence lies on two or more (document, page) pairs, a page-less
                 source counting as one page per document) | same-page
    modality     cross-modal (some evidence is a figure or a table) | text-only
    pattern      a synthesis question's ``meta["pattern_type"]`` (comparison, trend, ...);
                 other questions are not in this table

Tables (Markdown and LaTeX): one per breakdown, rows = variant x stratum (dataset too when the
runs span several), a column per topology metric any run computed, each cell the mean ± 1.96·SE
over the stratum's questions where the metric is defined, with n (``ham.metrics.confidence``:
x̄ ± 1.96 s/√n, s with ddof = 1; n = 1 has no interval). ``table2``: every topology metric's
overall mean per variant, retrieval then generation (best per dataset in bold), and ``table2_ci`` the same
with CIs and n (the paper's Table 9). Metrics a run did not compute are listed in the notes.
"""
from __future__ import annotations

from ham.metrics.confidence import normal_ci
from ham.metrics.registry import registry

from .collect import Collection, Run
from .table_format import Column, Table
from .tables import failed_note, mark_failed, run_failed
from .versions import add_notes, mark_cells

TOPOLOGY_METRICS = ("context_precision", "context_precision_joint", "context_recall", "gold_unit_recall",
                    "both_hops", "ordered_chain", "evidence_point_coverage", "entity_recall",
                    "answer_accuracy", "faithfulness", "response_relevancy", "step_coverage")
TOPOLOGY_LABELS = {"single_hop": "single-hop", "bridge_chain": "bridge-chain", "synthesis": "synthesis"}
MODALITY_WORDS = {"text": "text", "image": "figure", "figure": "figure", "table": "table"}
BREAKDOWNS = {
    "topology": ("topology", "By evidence topology"),
    "path": ("modality path", "By ordered modality path (bridge chains: hop order; synthesis: the set)"),
    "pages": ("pages", "Cross-page vs same-page evidence"),
    "modality": ("modalities", "Cross-modal (a figure or table needed) vs text-only evidence"),
    "pattern": ("synthesis pattern", "Synthesis questions by pattern"),
}
ARROW = "→"


def _word(modality) -> str:
    return MODALITY_WORDS.get(str(modality or "").lower(), str(modality or "unknown"))


def strata(row: dict) -> dict[str, str]:
    """The question's stratum in each breakdown (module docstring); {} without a topology."""
    gold = row.get("gold") or {}
    topology = gold.get("topology")
    if topology not in TOPOLOGY_LABELS:
        return {}
    evidence = gold.get("evidence") or []
    modalities = [_word(e.get("modality")) for e in evidence]
    if topology == "bridge_chain" and gold.get("hops"):
        path = ARROW.join(_word(h.get("modality") or _evidence_modality(evidence, h.get("evidence")))
                          for h in gold["hops"])
    elif topology == "single_hop":
        path = modalities[0] if modalities else "unknown"
    else:
        path = "+".join(sorted(set(modalities))) or "unknown"
    places = {(e.get("doc"), e.get("page")) for e in evidence}
    out = {"topology": TOPOLOGY_LABELS[topology], "path": f"{TOPOLOGY_LABELS[topology]}: {path}",
           "pages": "cross-page" if len(places) > 1 else "same-page",
           "modality": "cross-modal" if any(m != "text" for m in modalities) else "text-only"}
    pattern = (gold.get("meta") or {}).get("pattern_type")
    if topology == "synthesis":
        out["pattern"] = str(pattern) if pattern else "unlabelled"
    return out


def _evidence_modality(evidence: list[dict], index) -> str | None:
    if isinstance(index, int) and 0 <= index < len(evidence):
        return evidence[index].get("modality")
    return None


def topology_runs(collection: Collection) -> list[Run]:
    return [r for r in collection.runs if any(strata(row) for row in r.rows)]


def computed(runs: list[Run]) -> list[str]:
    """Topology metrics with a per-question value in any of the runs, in table order."""
    return [m for m in TOPOLOGY_METRICS
            if any((row.get("metrics") or {}).get(m) is not None for r in runs for row in r.rows)]


def not_computed_notes(runs: list[Run]) -> list[str]:
    """One note per reason: the topology metrics some run did not compute for it."""
    by_reason: dict[str, list[str]] = {}
    for m in TOPOLOGY_METRICS:
        for reason in sorted({(r.metrics["metrics"].get(m) or {}).get("reason") for r in runs} - {None}):
            by_reason.setdefault(reason, []).append(registry()[m].title)
    return [f"{', '.join(titles)}: {reason}." for reason, titles in by_reason.items()]


def ci_cell(values) -> str | None:
    ci = normal_ci(values)
    if ci.mean is None:
        return None
    if ci.low is None:
        return f"{ci.mean:.3f} (n={ci.n})"
    return f"{ci.mean:.3f} ± {ci.high - ci.mean:.3f} (n={ci.n})"


def _label(collection: Collection, run: Run, several: bool) -> list[str]:
    return ([run.dataset] if several else []) + [collection.label(run)]


def breakdown_table(collection: Collection, key: str, runs: list[Run] | None = None) -> Table | None:
    runs = topology_runs(collection) if runs is None else runs
    names = computed(runs)
    if not runs or not names:
        return None
    header, caption = BREAKDOWNS[key]
    several = len({r.dataset for r in runs}) > 1
    table = Table(f"topology_{key}", f"{caption}: mean ± 1.96·SE over the questions where each metric is defined (n)",
                  (["dataset"] if several else []) + ["variant", header, "questions"],
                  [Column(m, registry()[m].title, best=None) for m in names])
    for run in runs:
        groups: dict[str, list[dict]] = {}
        for row in run.rows:
            stratum = strata(row).get(key)
            if stratum is not None:
                groups.setdefault(stratum, []).append(row.get("metrics") or {})
        for stratum in sorted(groups, key=_order):
            scores = groups[stratum]
            table.rows.append((_label(collection, run, several) + [stratum, str(len(scores))],
                               {m: ci_cell(s.get(m) for s in scores) for m in names}))
    if not table.rows:
        return None
    table.notes += not_computed_notes(runs)
    return table


def _order(stratum: str) -> tuple:
    rank = {"single-hop": 0, "bridge-chain": 1, "synthesis": 2}
    head = stratum.split(":", 1)[0]
    return (rank.get(head, 3), stratum)


def table2(collection: Collection) -> tuple[Table, Table] | None:
    """TopoGraphRAG-Bench's Table 2 (overall means) and Table 9 (their CIs) for the topology runs."""
    runs = topology_runs(collection)
    names = computed(runs)
    if not runs or not names:
        return None
    several = len({r.dataset for r in runs}) > 1
    spec = registry()
    columns = [Column(m, spec[m].title, group=spec[m].family, best="max" if spec[m].higher_is_better else "min",
                      digits=3) for m in sorted(names, key=lambda m: spec[m].family != "retrieval")]
    rows_header = (["dataset"] if several else []) + ["variant", "questions"]
    means = Table("table2", "Retrieval and generation overall (TopoGraphRAG-Bench Table 2): mean per variant; "
                  "step coverage over bridge-chain and synthesis questions only", rows_header, columns,
                  bold_within="dataset" if several else None)   # best per dataset
    cis = Table("table2_ci", "Overall means with 95% CIs, mean ± 1.96·SE over non-missing per-question scores (n)",
                rows_header, [Column(c.key, c.header, group=c.group, best=None) for c in columns])
    failed = []
    for run in runs:
        labels = _label(collection, run, several) + [str(run.n_questions)]
        values = {m: [(row.get("metrics") or {}).get(m) for row in run.rows] for m in names}
        row = {m: normal_ci(v).mean for m, v in values.items()}
        for m in names:
            if row[m] is not None and run_failed(run, m):
                mark_failed(row, m)
                failed.append(f"{' / '.join(labels[:-1])}: {spec[m].title} {run_failed(run, m)} of {run.n_questions}")
        mark_cells(collection.versions, row, names, [run])
        means.rows.append((labels, row))
        cis.rows.append((labels, {m: ci_cell(v) for m, v in values.items()}))
    notes = not_computed_notes(runs)
    if failed:
        means.notes.append(failed_note(failed))
    scales = _relevancy_scales(runs, names, means)
    if scales:
        means.notes.append(scales)
    add_notes(collection.versions, means, collection.name)
    means.notes += notes
    cis.notes += notes
    return means, cis


RELEVANCY_SCALE = "§"


def _relevancy_scales(runs: list, names, means: Table) -> str | None:
    """Response Relevancy embeds the judge's questions with each run's own retrieval encoder, so
    runs with other encoders give it on other scales: mark every RR mean (never bold) and say so."""
    rr = "response_relevancy"
    encoders = {tuple(sorted((k, str(v)) for k, v in run.identity.items() if k.startswith("encoder.")))
                for run in runs}
    if rr not in names or len(encoders) < 2:
        return None
    for _, row in means.rows:
        if row.get(rr) is not None:
            row[f"{rr}:mark"] = row.get(f"{rr}:mark", "") + RELEVANCY_SCALE
            row[f"{rr}:incomparable"] = True
    return (f"{RELEVANCY_SCALE} RR is a cosine under each run's own retrieval encoder; these runs use "
            f"{len(encoders)} encoders, so their RR values are on different scales (none is bold).")


def topology_tables(collection: Collection) -> list[Table]:
    """Table 2, its CIs and every breakdown table (none when no run has topology questions)."""
    out: list[Table] = []
    overall = table2(collection)
    if overall:
        out += list(overall)
    for key in BREAKDOWNS:
        table = breakdown_table(collection, key)
        if table is not None:
            out.append(table)
    return out
