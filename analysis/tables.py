"""The paper's tables from a collection of runs.

    table3            per dataset Img-F1 and Img-CBS (x 100), Qual. (1-5), and M Avg.: the
                      unweighted mean over datasets of Img-F1, Img-CBS and Qual. x 20 (0-100)
    table4            per dataset TCR@15 and IR
    robustness_cost   questions, failures (rate and reasons), tokens and cents per question
    ci_table          mean, the paper's x̄ ± 1.96 s/√n and a bootstrap 95% CI per metric
    paired_table      each variant against a reference variant on the same questions: mean
                      difference, paired bootstrap CI, Wilcoxon signed-rank, n

Rows are variants: the values of the axes that vary across the collection, the dataset aside
(method and generator when nothing varies). Means come from each run's ``metrics.json``; CIs and
paired tests from its per-question scores. A metric a run did not compute (Qual. or TCR@15 without
a judge) prints as ``–``; an M Avg. missing a part is the mean of the parts present, marked ``†``
and compared (bold) only with M Avg.s missing the same parts on the same datasets. A mean that left
out questions the judge failed to score is marked ``‡`` with the count in a note: it rests on other
questions than its neighbours' (the failed ones are often the hard ones), so it is never bold. M
Avg. is the mean over every dataset of the table: a row without a run on one of them has none
(``–``, named in a note), not a mean over the datasets it has. Cells of runs under another ingest
or metrics version than most runs' carry ``¶`` or ``‖`` and are never bold (``versions.py``).
Robustness and cost bold the best per dataset. The paired table refuses, with a note, a pair
across versions and an Average Score pair whose runs average different parts (``metrics.json``'s
``average_score.parts``: a run without a judge has no Qual./5 in it).
"""
from __future__ import annotations

import math
from collections import Counter

from ham.metrics.average import AVERAGE_SCORE_PARTS, M_AVG_PARTS, average_score
from ham.metrics.registry import registry

from .collect import Collection, CollectionError, Run, cost_block, same_questions
from .stats import bootstrap_ci, normal_ci, paired
from .table_format import Column, Table
from .versions import add_notes, mark_cells, refusal

CI_METRICS = ("image_f1", "img_cbs", "overall_quality", "average_score", "ir", "tcr15")
PAIRED_METRICS = ("image_f1", "img_cbs", "overall_quality", "average_score")
PARTIAL = "†"
FAILED = "‡"


def row_axes(collection: Collection) -> list[str]:
    axes = [a for a in collection.varying_axes if a != "dataset"]
    return axes or ["method", "generator"]


def datasets(collection: Collection) -> list[str]:
    return sorted({r.dataset for r in collection.runs})


def grid(collection: Collection) -> dict[tuple, dict[str, Run]]:
    """Row key (values of the row axes) -> dataset -> run."""
    out: dict[tuple, dict[str, Run]] = {}
    for run in collection.runs:
        key = tuple(str(run.axes[a]) for a in row_axes(collection))
        cell = out.setdefault(key, {})
        if run.dataset in cell:   # the collection refuses such runs; a table never keeps one of two
            raise CollectionError(f"runs {cell[run.dataset].run_id} and {run.run_id} land in one cell "
                                  f"({run.dataset!r}, {key})")
        cell[run.dataset] = run
    return out


def run_mean(run: Run, metric: str) -> float | None:
    entry = run.metrics["metrics"].get(metric) or {}
    return entry.get("mean")


def run_failed(run: Run, metric: str) -> int:
    """Questions the metric failed to score in this run (judge errors), left out of its mean."""
    return int((run.metrics["metrics"].get(metric) or {}).get("n_failed") or 0)


def mark_failed(values: dict, key: str) -> None:
    """Mark a mean that left out judge failures (``FAILED``): never bold beside the others."""
    values[f"{key}:mark"], values[f"{key}:incomparable"] = FAILED, True


def failed_note(failed: list[str]) -> str:
    return (f"{FAILED} questions the judge failed to score are left out of this mean, so it rests on other "
            "questions than its neighbours' (not bold; redo them with run.redo_failures): " + "; ".join(failed) + ".")


def per_question(run: Run, metric: str) -> dict[str, float | None]:
    if metric == "average_score":
        return {str(r["id"]): r["metrics"].get(metric, average_score(r["metrics"])) for r in run.rows}
    return {str(r["id"]): r["metrics"].get(metric) for r in run.rows}


def m_avg(runs: list[Run]) -> tuple[float | None, tuple[tuple[str, str], ...]]:
    """M Avg. over the given runs (one per dataset) and the (part, dataset) pairs it lacks."""
    parts, missing = [], []
    for run in runs:
        for metric, scale in M_AVG_PARTS.items():
            value = run_mean(run, metric)
            if value is None:
                missing.append((metric, run.dataset))
            else:
                parts.append(value * scale)
    return (math.fsum(parts) / len(parts) if parts else None), tuple(sorted(missing))


def average_parts(run: Run) -> tuple[str, ...]:
    """The parts the run's Average Score averages: ``metrics.json``'s ``average_score.parts``, else
    (written before ham recorded them) the parts the run computed."""
    entry = run.metrics["metrics"].get("average_score") or {}
    if isinstance(entry.get("parts"), list):
        return tuple(p for p in AVERAGE_SCORE_PARTS if p in entry["parts"])
    return tuple(p for p in AVERAGE_SCORE_PARTS if (run.metrics["metrics"].get(p) or {}).get("computed", False))


def parts_text(parts) -> str:
    """Average Score's parts as it weighs them: "Img-F1, Img-CBS, Qual./5"."""
    return ", ".join(registry()[p].title + ("" if AVERAGE_SCORE_PARTS[p] == 1 else f"/{round(1 / AVERAGE_SCORE_PARTS[p])}")
                     for p in parts) or "nothing"


def _metric_columns(names: list[str], dataset_names: list[str]) -> list[Column]:
    return [Column(f"{ds}:{m}", registry()[m].title, group=ds, best="max" if registry()[m].higher_is_better else "min")
            for ds in dataset_names for m in names]


def _metric_table(collection: Collection, name: str, caption: str, names: list[str]) -> Table:
    dsets = datasets(collection)
    table = Table(name, caption, row_axes(collection), _metric_columns(names, dsets))
    failed = []
    for key, by_dataset in grid(collection).items():
        values = {}
        for ds, run in by_dataset.items():
            for m in names:
                mean = run_mean(run, m)
                values[f"{ds}:{m}"] = None if mean is None else mean * registry()[m].scale
                if mean is not None and run_failed(run, m):
                    mark_failed(values, f"{ds}:{m}")
                    failed.append(f"{'/'.join(key)} on {ds}: {registry()[m].title} over "
                                  f"{(run.metrics['metrics'][m] or {}).get('n')} of {run.n_questions} questions "
                                  f"({run_failed(run, m)} failed)")
            mark_cells(collection.versions, values, [f"{ds}:{m}" for m in names], [run])
        table.rows.append((list(key), values))
    if failed:
        table.notes.append(failed_note(failed))
    add_notes(collection.versions, table, collection.name)
    return table


def table3(collection: Collection) -> Table:
    table = _metric_table(collection, "table3", "Multimodal generation: Img-F1 and Img-CBS (x100), Qual. (1-5), "
                          "M Avg. = mean over datasets of Img-F1, Img-CBS and Qual. x 20",
                          ["image_f1", "img_cbs", "overall_quality"])
    table.columns.append(Column("m_avg", "M Avg."))
    partial, incomplete = {}, []
    every = datasets(collection)
    for (key, values), by_dataset in zip(table.rows, grid(collection).values()):
        missing = [ds for ds in every if ds not in by_dataset]
        if missing:   # the paper's M Avg. is over every dataset: a mean over fewer is another number
            values["m_avg"] = None
            incomplete.append(f"{'/'.join(key)} has no run on {', '.join(missing)}")
            continue
        values["m_avg"], lacks = m_avg(list(by_dataset.values()))
        if values["m_avg"] is None:
            continue
        if any(run_failed(run, m) for run in by_dataset.values() for m in M_AVG_PARTS):
            mark_failed(values, "m_avg")
        if lacks:   # a mean of fewer parts: compared only with means lacking the same parts
            values["m_avg:mark"] = values.get("m_avg:mark", "") + PARTIAL
            values["m_avg:group"] = lacks
            partial.setdefault(lacks, []).append("/".join(key))
        mark_cells(collection.versions, values, ["m_avg"], list(by_dataset.values()))
    if partial:
        table.notes.append(f"{PARTIAL} M Avg. without a part (the mean of the parts present; bold only beside rows "
                           "lacking the same parts): " + "; ".join(
                               f"without {_lacks_text(lacks)}: {', '.join(rows)}" for lacks, rows in partial.items()) + ".")
    add_notes(collection.versions, table, collection.name)
    if incomplete:
        table.notes.append("M Avg. is the mean over every dataset of the table; – where a row lacks one: "
                           + "; ".join(incomplete) + ".")
    _note_not_computed(collection, table, ["overall_quality"])
    return table


def _lacks_text(lacks: tuple[tuple[str, str], ...]) -> str:
    """``(("overall_quality", "d1"), ...)`` as "Qual. (needs a judge) on d1, d2", one clause per part."""
    by_part: dict[str, list[str]] = {}
    for part, ds in lacks:
        by_part.setdefault(part, []).append(ds)
    return " and ".join(f"{registry()[p].title}{' (needs a judge)' if registry()[p].needs_judge else ''} on "
                        f"{', '.join(dsets)}" for p, dsets in by_part.items())


def table4(collection: Collection) -> Table:
    table = _metric_table(collection, "table4", "Retrieval: TCR@15 (LLM judge) and IR", ["tcr15", "ir"])
    _note_not_computed(collection, table, ["tcr15"])
    return table


MRAMG_METRICS = ("image_precision", "image_recall", "image_f1", "image_ordering", "rouge_lsum", "answer_bertscore")


def mramg_table(collection: Collection) -> Table | None:
    """MRAMG-Bench's objective metrics (x 100) per dataset, for runs that computed its own ones
    (``metrics=mramg``); None when none did."""
    own = ("image_ordering", "rouge_lsum", "answer_bertscore")
    if not any(run_mean(r, m) is not None for r in collection.runs for m in own):
        return None
    names = [m for m in MRAMG_METRICS if any(m in r.metrics["metrics"] for r in collection.runs)]
    return _metric_table(collection, "mramg", "MRAMG-Bench's metrics (x100): image precision, recall, F1, "
                         "image ordering score, ROUGE-Lsum and BERTScore of the answer", names)


def _note_not_computed(collection: Collection, table: Table, names: list[str]) -> None:
    for m in names:
        reasons = {(r.metrics["metrics"].get(m) or {}).get("reason") for r in collection.runs}
        reasons.discard(None)
        if reasons:
            table.notes.append(f"{registry()[m].title}: " + "; ".join(sorted(reasons)) + ".")


def robustness_cost(collection: Collection) -> Table:
    cols = [Column("n", "Questions", best=None), Column("failures", "Failures", best="min"),
            Column("rate", "Failure %", best="min", digits=3), Column("reasons", "Reasons", best=None),
            Column("prompt_tokens", "Prompt tok./q", best=None, digits=1),
            Column("completion_tokens", "Compl. tok./q", best=None, digits=1),
            Column("cents", "Cents/q", best="min", digits=3), Column("pricing", "Priced as", best=None)]
    table = Table("robustness_cost", "Robustness and cost per question", [*row_axes(collection), "dataset"], cols,
                  bold_within="dataset")   # a dataset's questions are not another's: best per dataset
    for key, by_dataset in grid(collection).items():
        for ds, run in sorted(by_dataset.items()):
            n = run.n_questions
            reasons = Counter(run.metrics.get("failures") or {})
            cost = cost_block(run)
            values = {
                "n": n, "failures": sum(reasons.values()), "rate": 100 * sum(reasons.values()) / n if n else None,
                "reasons": ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "none",
                "prompt_tokens": (cost.get("prompt_tokens") or {}).get("mean"),
                "completion_tokens": (cost.get("completion_tokens") or {}).get("mean"),
                "cents": cost.get("cents_per_question"), "pricing": cost.get("pricing")}
            mark_cells(collection.versions, values, ["failures", "rate", "prompt_tokens", "completion_tokens", "cents"],
                       [run])
            table.rows.append(([*key, ds], values))
    add_notes(collection.versions, table, collection.name)
    table.notes.append("Tokens and cents per question over all questions (a failure before any reply counts 0), "
                       "from each run's metrics.json cost block; – where the run has none or its backbone "
                       "has no price row (set cost.pricing to price it, e.g. as GPT-4o like the paper).")
    return table


def ci_table(collection: Collection, n_resamples: int = 10_000, seed: int = 0) -> tuple[Table, list[dict]]:
    cols = [Column("n", "n", best=None), Column("mean", "Mean", best=None, digits=4),
            Column("low", "CI low", best=None, digits=4), Column("high", "CI high", best=None, digits=4),
            Column("boot_low", "Boot. low", best=None, digits=4), Column("boot_high", "Boot. high", best=None, digits=4)]
    table = Table("ci", "Means with 95% CIs: x̄ ± 1.96 s/√n (CI) and bootstrap BCa (Boot.)",
                  ["dataset", "variant", "metric"], cols)
    records = []
    for run in collection.runs:
        for m in CI_METRICS:
            values = list(per_question(run, m).values())
            if not any(v is not None for v in values):
                continue
            normal, boot = normal_ci(values), bootstrap_ci(values, n_resamples=n_resamples, seed=seed)
            rec = {"dataset": run.dataset, "variant": collection.label(run), "metric": m,
                   "n": normal.n, "mean": normal.mean, "low": normal.low, "high": normal.high,
                   "boot_low": boot.low, "boot_high": boot.high}
            records.append(rec)
            table.rows.append(([rec["dataset"], rec["variant"], registry()[m].title], rec))
    return table, records


def reference_run(runs: list[Run], collection: Collection, reference: str | None) -> Run:
    """The named variant; else, among the runs whose Average Score averages the parts most of them
    average (a tie: the more parts), the one with the highest mean Average Score."""
    if reference is not None:
        named = [r for r in runs if collection.label(r) == reference]
        if not named:
            known = sorted(collection.label(r) for r in runs)
            raise ValueError(f"reference variant {reference!r} not found; variants: {known}")
        return named[0]
    counts = Counter(average_parts(r) for r in runs)
    usual = max(counts, key=lambda parts: (counts[parts], len(parts)))
    return max((r for r in runs if average_parts(r) == usual),
               key=lambda r: (run_mean(r, "average_score") is not None, run_mean(r, "average_score") or 0.0))


def paired_table(collection: Collection, reference: str | None = None, n_resamples: int = 10_000,
                 seed: int = 0) -> tuple[Table, list[dict]]:
    cols = [Column("n", "n", best=None), Column("mean_a", "Mean A", best=None, digits=4),
            Column("mean_b", "Mean B", best=None, digits=4), Column("diff", "A − B", best=None, digits=4),
            Column("low", "CI low", best=None, digits=4), Column("high", "CI high", best=None, digits=4),
            Column("wilcoxon", "Wilcoxon W", best=None, digits=1), Column("p_value", "p", best=None, digits=4)]
    table = Table("paired", "Paired comparisons on the same questions: A − B with a paired bootstrap 95% CI "
                  "and the Wilcoxon signed-rank test", ["dataset", "metric", "A", "B"], cols)
    records, refused = [], []
    by_dataset: dict[str, list[Run]] = {}
    for run in collection.runs:
        by_dataset.setdefault(run.dataset, []).append(run)
    for ds, runs in sorted(by_dataset.items()):
        runs = [r for r in runs if r.rows]
        if len(runs) < 2:
            continue
        ref = reference_run(runs, collection, reference)
        for other in (r for r in runs if r is not ref):
            a, b = collection.label(other), collection.label(ref)
            why = same_questions(other, ref) or refusal(collection.versions, other, ref)
            if why is not None:
                refused.append(f"{ds}: {a} vs {b} not paired: {why}")
                continue
            for m in PAIRED_METRICS:
                if m == "average_score" and average_parts(other) != average_parts(ref):
                    refused.append(f"{ds}: {a} vs {b} not paired on Average Score: {a} averages "
                                   f"{parts_text(average_parts(other))}, {b} {parts_text(average_parts(ref))}")
                    continue
                result = paired(per_question(other, m), per_question(ref, m), n_resamples=n_resamples, seed=seed)
                if result.n == 0:
                    continue
                rec = {"dataset": ds, "metric": m, "a": a, "b": b, **result.to_dict()}
                records.append(rec)
                table.rows.append(([ds, registry()[m].title, rec["a"], rec["b"]], rec))
    if records:
        table.notes.append("B is the reference variant of each dataset (named with --reference, else the one with "
                           "the highest mean Average Score among the runs whose Average Score averages the parts "
                           "most runs' do); n counts questions scored by both.")
    table.notes.extend(refused)
    collection.problems.extend(f"paired table: {r}" for r in refused)
    return table, records
