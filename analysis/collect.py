"""Collect finished runs from ``outputs/`` into tidy tables keyed by their config axes.

A run folder holds ``config.yaml``, ``metrics.json`` and ``predictions.jsonl`` (as ``ham`` writes
them under ``outputs/runs/<name>/<run id>/``). Any folder under the given paths that holds one of
them is taken for a run. A folder that cannot be used (no ``metrics.json``: an unfinished run; an
unreadable file) is reported with the file and the problem and skipped; a malformed line of
``predictions.jsonl`` is reported with its line number and skipped; the rest goes on.

Two tables come out (pandas DataFrames):
    runs       one row per run: the axes, run id, folder, question and failure counts, the mean of
               every metric from ``metrics.json``, tokens and cents per question (its ``cost``)
    questions  one row per (run, question): the axes, run id, question id, every per-question
               metric, the failure reason, tokens, and cents when the run was priced

Axes (``AXES``) come from the resolved config: dataset, method, generator, text_repr, image_repr,
retrieval mode, encoder, budgets k_t/k_v, seed. Two runs with the same axes (say, one with
``limit=2`` and a full one) are one cell: the run with more questions is kept (then the newer one)
and the other is reported.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
import yaml

from ham.metrics import REGISTRY, average_score

RUN_FILES = ("config.yaml", "metrics.json", "predictions.jsonl")


def _component(cfg: dict, group: str) -> str | None:
    """A group's option: the option file chosen (``choices``, recorded by the run), else the
    group's ``name``, else its ``model``, else the module of its ``_target_``."""
    chosen = (cfg.get("choices") or {}).get(group)
    if chosen:
        return str(chosen)
    node = cfg.get(group) or {}
    if not isinstance(node, dict):
        return str(node)
    for key in ("name", "model"):
        if node.get(key):
            return str(node[key])
    target = node.get("_target_")
    return target.rsplit(".", 2)[-2] if target and target.count(".") >= 2 else target


def _path(*keys: str) -> Callable[[dict], object]:
    def get(cfg: dict):
        node = cfg
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        return node
    return get


AXES: dict[str, Callable[[dict], object]] = {
    "dataset": _path("dataset", "name"),
    "method": lambda cfg: _component(cfg, "method"),
    "generator": lambda cfg: _component(cfg, "generator"),
    "text_repr": lambda cfg: _component(cfg, "text_repr"),
    "image_repr": lambda cfg: _component(cfg, "image_repr"),
    "retrieval": lambda cfg: (cfg.get("choices") or {}).get("retrieval") or _path("retrieval", "mode")(cfg),
    "encoder": lambda cfg: _component(cfg, "encoder"),
    "k_t": _path("retrieval", "k_t"),
    "k_v": _path("retrieval", "k_v"),
    "seed": _path("seed"),
}


class RunError(ValueError):
    """A run folder that cannot be used; the message names the file and the problem."""


@dataclass
class Run:
    path: Path
    run_id: str
    axes: dict
    config: dict
    metrics: dict
    rows: list[dict] = field(default_factory=list)

    @property
    def n_questions(self) -> int:
        return int(self.metrics.get("n_questions", len(self.rows)))


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunError(f"{path}: unreadable JSON ({exc})") from exc


def read_predictions(path: Path, problems: list[str]) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("metrics"), dict):
                    raise ValueError("not a prediction (needs id and metrics)")
            except ValueError as exc:
                problems.append(f"{path}:{lineno}: {exc} (line skipped)")
                continue
            rows.append(row)
    return rows


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
    pred = path / "predictions.jsonl"
    rows = read_predictions(pred, problems) if pred.is_file() else []
    if not pred.is_file():
        problems.append(f"{pred}: missing; the run's means are used, per-question statistics are not available")
    axes = {name: get(config) for name, get in AXES.items()}
    return Run(path, str(metrics.get("run_id") or path.name), axes, config, metrics, rows)


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


@dataclass
class Collection:
    runs: list[Run]
    problems: list[str]

    @property
    def varying_axes(self) -> list[str]:
        return [a for a in AXES if len({str(r.axes[a]) for r in self.runs}) > 1]

    def label(self, run: Run, exclude: tuple[str, ...] = ("dataset",)) -> str:
        """The run's values on the axes that vary across the collection (its variant name):
        names as they are (``ct+si``), numbers with their axis (``k_v=3``)."""
        axes = [a for a in self.varying_axes if a not in exclude]
        if not axes:
            axes = [a for a in ("method", "generator") if a not in exclude]
        return "+".join(str(run.axes[a]) if isinstance(run.axes[a], str) else f"{a}={run.axes[a]}" for a in axes)


def collect(paths: list[str | Path]) -> Collection:
    problems: list[str] = []
    runs: list[Run] = []
    for folder in find_run_dirs(paths):
        try:
            runs.append(load_run(folder, problems))
        except RunError as exc:
            problems.append(f"{exc} (run skipped)")
    return Collection(_one_run_per_cell(runs, problems), problems)


def _one_run_per_cell(runs: list[Run], problems: list[str]) -> list[Run]:
    cells: dict[tuple, list[Run]] = {}
    for run in runs:
        cells.setdefault(tuple(str(run.axes[a]) for a in AXES), []).append(run)
    kept = []
    for group in cells.values():
        group.sort(key=lambda r: (r.n_questions, (r.path / "metrics.json").stat().st_mtime), reverse=True)
        kept.append(group[0])
        for other in group[1:]:
            problems.append(f"{other.path}: same axes as {group[0].path} ({other.n_questions} vs "
                            f"{group[0].n_questions} questions); the latter is used")
    return sorted(kept, key=lambda r: [str(r.axes[a]) for a in AXES])


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
        for name in REGISTRY:
            entry = run.metrics["metrics"].get(name) or {}
            rec[name] = entry.get("mean")
            rec[f"{name}_n"] = entry.get("n")
        records.append(rec)
    return pd.DataFrame.from_records(records)


def questions_table(collection: Collection) -> pd.DataFrame:
    records = []
    for run in collection.runs:
        for row in run.rows:
            scores = row["metrics"]
            gen = row.get("generation") or {}
            usage = gen.get("usage") or {}
            rec = {**run.axes, "variant": collection.label(run), "run_id": run.run_id, "question_id": str(row["id"]),
                   "failure": (row.get("failure") or {}).get("reason"),
                   "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                   "cost_cents": question_cents(run, row)}
            for name in REGISTRY:
                rec[name] = scores.get(name)
            if rec["average_score"] is None:   # predictions written before Average Score existed
                rec["average_score"] = average_score(scores)
            records.append(rec)
    columns = [*AXES, "variant", "run_id", "question_id", "failure", "prompt_tokens", "completion_tokens",
               "cost_cents", *REGISTRY]
    return pd.DataFrame.from_records(records, columns=columns)
