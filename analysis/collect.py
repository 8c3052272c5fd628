"""Collect finished runs from ``outputs/`` into tidy tables, one row per distinct run.

A run folder holds ``config.yaml``, ``run.json``, ``metrics.json`` and ``predictions.jsonl`` (as
``ham`` writes them under ``outputs/runs/<name>/<run id>/``). Any folder under the given paths that
holds a config beside one of the others is taken for a run. A folder that cannot be used (no
``metrics.json``: an unfinished run; one whose counts or means are not those of its
``predictions.jsonl``: a resumed launch that died before writing its summary; an unreadable file)
is reported with the file and the problem and skipped; a malformed line of ``predictions.jsonl`` is reported with its line number and
skipped (``ham.run.predictions``); the rest goes on. Runs whose corpora were read under different ingest
versions (``run.json``'s ``ingest_version``) or scored under different metrics versions are reported
too: kept, their cells marked and never bold (``analysis/versions.py``).

Cells. Runs with the same run id are one run (the copy with more questions, then the newer, is
kept). Every other difference is its own row: the axes are derived from the runs given, not
listed by hand. Each run's ``identity`` (``run.json``: the record its id hashes, see
``ham.run.identity``) is compared across the collection:
    * a config group whose option differs between runs is an axis named by the group, valued by
      the option name (``generator: gpt4o`` vs ``qwen25_7b``), the name shown in tables;
    * a key that differs between runs with the same option of its group is an axis of its own
      (``generator.model=A`` vs ``generator.model=B`` under ``generator=hf``), as is a top-level
      key (``limit``, ``seed``);
    * ``dataset.*`` keys too (corpus and questions by content, subset, sample), among runs with
      the same dataset option and name: two ``dataset=custom`` runs over different corpora are two
      rows (``path=manuals@3f2a9c1b``: a content key shows its folder or file name and its hash).
``dataset`` (the dataset's name) is always an axis; tables group by it.

Nothing is merged or dropped: two runs that land in one cell (same dataset and variant label
but different run ids, e.g. differing only in a redacted key) are an error naming both run ids
(``CollectionError``). Paired comparisons pair two runs only over the same question set, by
content (``same_questions``: ids, question texts and golds, gold unit ids aside since they
depend on the units).

Two tables come out (pandas DataFrames):
    runs       one row per run: the axes, variant label, run id, folder, question and failure
               counts, the aggregate and n of every metric in ``metrics.json``, tokens and cents
    questions  one row per (run, question): the axes, run id, question id, every per-question
               metric, the failure reason, tokens, and cents when the run was priced
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd
import yaml

from ham.cache import key_of
from ham.metrics.registry import registry
from ham.run.identity import classify, flatten
from ham.run.predictions import read

from .versions import Split, splits, version_problems

RUN_FILES = ("config.yaml", "metrics.json", "predictions.jsonl")
CHOICE_AXES = ("dataset", "method", "generator", "text_repr", "image_repr", "retrieval", "encoder")
# groups in the order data flows (ham/conf/config.yaml): axes and variant labels follow it
GROUP_ORDER = ("dataset", "units", "text_repr", "image_repr", "summariser", "describer", "encoder", "index", "retrieval", "reranker", "pages",
               "method", "generator", "metrics", "judge", "cost", "logger")


class RunError(ValueError):
    """A run folder that cannot be used; the message names the file and the problem."""


class CollectionError(ValueError):
    """Runs that cannot be told apart in a table (the message names their run ids and folders)."""


@dataclass
class Run:
    path: Path
    run_id: str
    identity: dict               # the flat record the run id hashes
    choices: dict                # group -> option name
    config: dict
    metrics: dict
    rows: list[dict] = field(default_factory=list)
    axes: dict = field(default_factory=dict)   # filled by the collection
    ingest_version: str | None = None          # run.json's: the reading of the corpus its rows retrieved from

    @property
    def n_questions(self) -> int:
        return int(self.metrics.get("n_questions", len(self.rows)))

    @property
    def dataset(self) -> str:
        return str((self.config.get("dataset") or {}).get("name") or self.choices.get("dataset"))

    @cached_property
    def question_set(self) -> dict[str, str]:
        """Question id -> fingerprint of what was asked and what is gold (``question_fingerprint``)."""
        return {str(r["id"]): question_fingerprint(r) for r in self.rows}


def question_fingerprint(row: dict) -> str:
    """A question as asked and scored: its id, text and golds. Gold evidence unit ids are left out:
    they are the gold mapped onto this run's units, which differ by ``units`` option, not by question."""
    gold = dict(row.get("gold") or {})
    gold["evidence"] = [{k: v for k, v in e.items() if k != "units"} for e in gold.get("evidence") or []]
    return key_of([str(row.get("id")), row.get("question"), gold])


def same_questions(a: Run, b: Run) -> str | None:
    """None when the two runs answered the same question set (by content); else why not."""
    qa, qb = a.question_set, b.question_set
    if not qa or not qb:
        return f"{(a if not qa else b).path}: no per-question rows"
    if qa == qb:
        return None
    common = qa.keys() & qb.keys()
    changed = sorted(i for i in common if qa[i] != qb[i])
    parts = [f"{len(qa)} vs {len(qb)} questions, {len(common)} ids in common"]
    if changed:
        parts.append(f"{len(changed)} of them differ in text or gold (e.g. {changed[0]})")
    return "different question sets: " + ", ".join(parts)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunError(f"{path}: unreadable JSON ({exc})") from exc


def identity_from_config(config: dict) -> dict:
    """For a run written before ``run.json`` recorded its identity: the config's keys that an
    identity would hash, by value (locations included, so such runs never merge wrongly)."""
    flat = flatten({k: v for k, v in config.items() if k != "choices"})
    return {k: v for k, v in flat.items() if classify(k) != "exclude"}


def load_run(path: Path, problems: list[str]) -> Run:
    path = Path(path)
    for name in ("config.yaml", "metrics.json"):
        if not (path / name).is_file():
            hint = " (unfinished run?)" if name == "metrics.json" else ""
            raise RunError(f"{path / name}: missing{hint}")
    try:
        config = yaml.safe_load((path / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RunError(f"{path / 'config.yaml'}: unreadable YAML ({exc})") from exc
    if not isinstance(config, dict):
        raise RunError(f"{path / 'config.yaml'}: not a mapping")
    metrics = _read_json(path / "metrics.json")
    if not isinstance(metrics.get("metrics"), dict):
        raise RunError(f"{path / 'metrics.json'}: no 'metrics' mapping")
    info = _read_json(path / "run.json") if (path / "run.json").is_file() else {}
    pred = path / "predictions.jsonl"
    rows = []
    if pred.is_file():
        found = read(pred)
        problems.extend(found.problems)
        rows = list(found.rows.values())
    else:
        problems.append(f"{pred}: missing; the run's means are used, per-question statistics are not available")
    if rows and (why := summary_disagrees(metrics, rows)):
        raise RunError(f"{path / 'metrics.json'}: {why}; it was written before the rows now in "
                       "predictions.jsonl (a resumed launch that did not finish?): finish the run, then collect")
    identity = info.get("identity") or identity_from_config(config)
    choices = dict(info.get("choices") or config.get("choices") or {})
    return Run(path, str(metrics.get("run_id") or path.name), identity, choices, config, metrics, rows,
               ingest_version=info.get("ingest_version"))


def summary_disagrees(metrics: dict, rows: list[dict]) -> str | None:
    """Why ``metrics.json`` does not summarise these predictions (tables read its means, CIs and
    paired tests the rows: both must be one run's), or None."""
    n = metrics.get("n_questions")
    if isinstance(n, int) and n != len(rows):
        return f"it counts {n} questions, predictions.jsonl holds {len(rows)}"
    from ham.metrics.registry import aggregated

    known = registry()
    for name, entry in metrics["metrics"].items():
        if not isinstance(entry, dict) or entry.get("mean") is None or name not in known:
            continue
        again, _ = aggregated(name, [r["metrics"] for r in rows if isinstance(r.get("metrics"), dict)])
        if again is None or not math.isclose(again, entry["mean"], rel_tol=1e-9, abs_tol=1e-12):
            return f"its {name} mean {entry['mean']} is not the rows' ({again})"
    return None


def find_run_dirs(paths: list[str | Path]) -> list[Path]:
    """Folders with a ``config.yaml`` beside a ``run.json``, ``metrics.json`` or predictions
    (hidden folders such as Hydra's ``.hydra/`` are not runs)."""
    found = set()
    for root in map(Path, paths):
        if not root.exists():
            raise FileNotFoundError(f"{root}: no such folder")
        for config in [root / "config.yaml", *root.rglob("config.yaml")]:
            folder = config.parent
            if (config.is_file() and not any(part.startswith(".") for part in folder.relative_to(root).parts)
                    and any((folder / name).is_file() for name in ("run.json", *RUN_FILES[1:]))):
                found.add(folder)
    return sorted(found)


def _value(v) -> str:
    return json.dumps(v, sort_keys=True, default=str) if isinstance(v, (list, dict)) else str(v)


def _is_content(run: Run, key: str) -> bool:
    try:
        return classify(key, {k: v for k, v in run.config.items() if k != "choices"}) == "content"
    except Exception:   # a config an older ham wrote, whose classes moved: by name, as that ham did
        return key.split(".")[0] in ("dataset", "describer") and key.rsplit(".", 1)[-1] in (
            "path", "questions", "descriptions")


def _display(run: Run, key: str):
    """An axis value as tables show it: a content key (corpus, questions) by its configured
    file or folder name and its hash, anything else as recorded."""
    value = run.identity.get(key)
    if isinstance(value, str) and not value.startswith("missing:") and _is_content(run, key):
        where = flatten(run.config).get(key)
        return f"{Path(str(where)).name}@{value[:8]}" if where else value[:8]
    return value


def derive_axes(runs: list[Run]) -> list[str]:
    """Fill each run's ``axes`` (module docstring) and return the axes that vary, in order."""
    found = {k.split(".", 1)[0] for r in runs for k in r.identity if "." in k} | set(CHOICE_AXES)
    groups = [g for g in GROUP_ORDER if g in found] + sorted(found - set(GROUP_ORDER))
    for run in runs:
        run.axes = {"dataset": run.dataset}
        run.axes.update({g: run.choices.get(g) for g in CHOICE_AXES if g != "dataset"})
    varying = ["dataset"] if len({r.dataset for r in runs}) > 1 else []
    for group in groups:
        if group != "dataset" and len({_value(r.choices.get(group)) for r in runs}) > 1:
            for run in runs:
                run.axes[group] = run.choices.get(group)
            varying.append(group)
    keys = sorted({k for r in runs for k in r.identity})
    for key in keys:
        group = key.split(".", 1)[0] if "." in key else None
        by_option: dict[str, set[str]] = {}
        for run in runs:
            option = _value(run.choices.get(group)) if group else ""
            if group == "dataset":   # within one dataset option and name: what differs is the data
                option += "\0" + run.dataset
            by_option.setdefault(option, set()).add(_value(run.identity.get(key)))
        if any(len(values) > 1 for values in by_option.values()):
            for run in runs:
                run.axes[key] = _display(run, key)
            varying.append(key)
    return varying


@dataclass
class Collection:
    runs: list[Run]
    problems: list[str]
    varying_axes: list[str] = field(default_factory=list)
    versions: list[Split] = field(default_factory=list)   # kinds of version that differ (analysis/versions.py)

    def __post_init__(self) -> None:
        self.varying_axes = derive_axes(self.runs)
        self.versions = splits(self.runs)
        self.runs.sort(key=lambda r: (r.dataset, self.label(r), r.run_id))   # tables and pages in variant order
        cells: dict[tuple[str, str], list[Run]] = {}
        for run in self.runs:
            cells.setdefault((run.dataset, self.label(run)), []).append(run)
        clashes = [(cell, runs) for cell, runs in cells.items() if len(runs) > 1]
        if clashes:
            raise CollectionError("; ".join(
                f"runs {', '.join(r.run_id for r in runs)} land in one cell (dataset {ds!r}, variant {label!r}): "
                f"their recorded identities do not tell them apart ({', '.join(str(r.path) for r in runs)}); "
                "analyse them separately or give them different settings" for (ds, label), runs in clashes))

    def label(self, run: Run, exclude: tuple[str, ...] = ("dataset",)) -> str:
        """The run's variant name: its values on the axes that vary. A group's option as it is
        (``ct+si``); a key with its name, the last part of it when that is unambiguous
        (``k_v=3``, ``model=A``)."""
        axes = [a for a in self.varying_axes if a not in exclude]
        if not axes:
            axes = [a for a in ("method", "generator") if a not in exclude]
        tails = [a.rsplit(".", 1)[-1] for a in axes]
        parts = []
        for a, tail in zip(axes, tails):
            value = run.axes.get(a)
            if "." not in a and isinstance(value, str):
                parts.append(value)
            else:
                parts.append(f"{tail if tails.count(tail) == 1 else a}={value}")
        return "+".join(parts)

    def name(self, run_id: str) -> str:
        """A run as a table note names it: its variant and dataset."""
        run = next(r for r in self.runs if r.run_id == run_id)
        return f"{self.label(run)} on {run.dataset}"


def collect(paths: list[str | Path]) -> Collection:
    problems: list[str] = []
    runs: list[Run] = []
    for folder in find_run_dirs(paths):
        try:
            runs.append(load_run(folder, problems))
        except RunError as exc:
            problems.append(f"{exc} (run skipped)")
    runs = _one_copy_per_run(runs, problems)
    version_problems(runs, problems)
    return Collection(runs, problems)


def skipped(problem: str) -> bool:
    """Whether a problem left something out (a run, a line, a copy of a run), rather than warning
    about something kept; every such problem ends so."""
    return problem.endswith("skipped)")


def _one_copy_per_run(runs: list[Run], problems: list[str]) -> list[Run]:
    copies: dict[str, list[Run]] = {}
    for run in runs:
        copies.setdefault(run.run_id, []).append(run)
    kept = []
    for group in copies.values():
        group.sort(key=lambda r: (r.n_questions, (r.path / "metrics.json").stat().st_mtime), reverse=True)
        kept.append(group[0])
        for other in group[1:]:
            problems.append(f"{other.path}: another copy of run {group[0].run_id} ({other.n_questions} vs "
                            f"{group[0].n_questions} questions); {group[0].path} is used (copy skipped)")
    return sorted(kept, key=lambda r: (r.dataset, r.run_id))


def cost_block(run: Run) -> dict:
    """``metrics.json``'s ``cost`` (ham/generate/cost.py): token totals and means over all
    questions, the price row used and cents per question (None for an unpriced backbone)."""
    return run.metrics.get("cost") or {}


def question_cents(run: Run, row: dict) -> float | None:
    price = cost_block(run).get("usd_per_1m_tokens")
    if not price:
        return None
    from ham.generate.cost import question_cents as cents

    return cents((row.get("generation") or {}).get("usage") or {}, price)


def metric_names(collection: Collection) -> list[str]:
    """Every metric any run computed, in registry order (unregistered ones after)."""
    seen = {name for run in collection.runs for name in run.metrics["metrics"]}
    known = [n for n in registry() if n in seen]
    return known + sorted(seen - set(known))


def runs_table(collection: Collection) -> pd.DataFrame:
    records = []
    for run in collection.runs:
        cost = cost_block(run)
        rec = {**run.axes, "variant": collection.label(run), "run_id": run.run_id, "path": str(run.path),
               "n_questions": run.n_questions, "n_failures": run.metrics.get("n_failures", 0),
               "prompt_tokens_per_q": (cost.get("prompt_tokens") or {}).get("mean"),
               "completion_tokens_per_q": (cost.get("completion_tokens") or {}).get("mean"),
               "cents_per_q": cost.get("cents_per_question"), "pricing": cost.get("pricing"),
               "judge": (run.metrics.get("judge") or {}).get("model")}
        for name in metric_names(collection):
            entry = run.metrics["metrics"].get(name) or {}
            rec[name] = entry.get("mean")
            rec[f"{name}_n"] = entry.get("n")
        records.append(rec)
    return pd.DataFrame.from_records(records)


def questions_table(collection: Collection) -> pd.DataFrame:
    names = metric_names(collection)
    axes = list(dict.fromkeys(a for r in collection.runs for a in r.axes))
    records = []
    for run in collection.runs:
        for row in run.rows:
            scores = row.get("metrics") or {}
            usage = (row.get("generation") or {}).get("usage") or {}
            rec = {**run.axes, "variant": collection.label(run), "run_id": run.run_id, "question_id": str(row["id"]),
                   "failure": (row.get("failure") or {}).get("reason"),
                   "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                   "cost_cents": question_cents(run, row)}
            rec.update({name: scores.get(name) for name in names})
            records.append(rec)
    columns = [*axes, "variant", "run_id", "question_id", "failure", "prompt_tokens", "completion_tokens",
               "cost_cents", *names]
    return pd.DataFrame.from_records(records, columns=columns)
