"""Runs of one collection read under different ingest versions (``run.json``'s ``ingest_version``)
or scored under different metrics versions (``metrics.json``'s ``metrics_version``): kept, named
in ``problems.txt``, and marked wherever their numbers sit beside the others'.

The reference version of each kind is, within each dataset, the one most of its runs have (a tie
goes to the newest); a run under another version is off-version. Its cells carry ``¶`` (ingest) or ``‖`` (metrics), with a
note naming its version and the reference, and are never bold (they rest on another reading of
the documents, or another definition of a metric); paired tables do not pair it with a run of
another version. Runs on the reference version bold among themselves as before.
"""
from __future__ import annotations

from dataclasses import dataclass

INGEST_MARK = "¶"
METRICS_MARK = "‖"


def ingest_version(run) -> str:
    return str(run.ingest_version or "unrecorded")


def metrics_version(run) -> str:
    return str(run.metrics.get("metrics_version") or "1")   # metrics.json written before it was recorded


@dataclass
class Split:
    kind: str                 # "ingest" or "metrics"
    mark: str
    reference: str            # the version most runs have (a tie: the newest)
    off: dict[str, str]       # run id -> its version, for runs not on the reference

    def note(self, labels: list[str]) -> str:
        what = ("read its corpus under ingest version {v}, not {r} like most runs: its retrieval came from "
                "another reading of the documents" if self.kind == "ingest" else
                "was scored under metrics version {v}, not {r} like most runs: a metric's definition differs "
                "(ham/metrics/registry.py)")
        versions = sorted(set(self.off.values()), key=_newness)
        return (f"{self.mark} " + what.format(v=" or ".join(versions), r=self.reference)
                + f"; not bold, never paired across versions: {', '.join(labels)}. Relaunch it (the same command).")


def _newness(version: str) -> tuple:
    return (version.isdigit(), int(version) if version.isdigit() else 0, version)


def splits(runs: list) -> list[Split]:
    """One ``Split`` per kind and dataset whose versions differ among that dataset's runs: a run is
    compared (bold, paired) only with its own dataset's runs, so a dataset whose runs all share one
    version is not marked because another dataset's runs share another."""
    by_dataset: dict[str, list] = {}
    for run in runs:
        by_dataset.setdefault(str(getattr(run, "dataset", "")), []).append(run)
    out = []
    for kind, mark, of in (("ingest", INGEST_MARK, ingest_version), ("metrics", METRICS_MARK, metrics_version)):
        for group in by_dataset.values():
            counts: dict[str, int] = {}
            for run in group:
                counts[of(run)] = counts.get(of(run), 0) + 1
            if len(counts) > 1:
                reference = max(counts, key=lambda v: (counts[v], _newness(v)))
                out.append(Split(kind, mark, reference, {r.run_id: of(r) for r in group if of(r) != reference}))
    return out


def marks(found: list[Split], runs) -> str:
    """The version marks of the given runs (a cell over several runs, e.g. M Avg., takes theirs)."""
    ids = {r.run_id for r in runs}
    return "".join(s.mark for s in found if ids & s.off.keys())


def mark_cells(found: list[Split], values: dict, keys, runs) -> None:
    """Mark the cells ``keys`` of ``values`` that hold a number from an off-version run: never bold."""
    mark = marks(found, runs)
    for key in keys if mark else ():
        if values.get(key) is not None:
            values[f"{key}:mark"] = values.get(f"{key}:mark", "") + mark
            values[f"{key}:incomparable"] = True


def add_notes(found: list[Split], table, name) -> None:
    """A note in ``table`` for each version mark its cells carry; ``name(run_id)`` names a run."""
    carried = "".join(v for _, values in table.rows for k, v in values.items() if k.endswith(":mark"))
    for note in [s.note(sorted({name(i) for i in s.off})) for s in found if s.mark in carried]:
        if note not in table.notes:
            table.notes.append(note)


def refusal(found: list[Split], a, b) -> str | None:
    """Why two runs must not be paired because of their versions, or None."""
    for s in found:
        va, vb = (ingest_version(a), ingest_version(b)) if s.kind == "ingest" else (metrics_version(a),
                                                                                    metrics_version(b))
        if va != vb:
            return f"different {s.kind} versions ({va} vs {vb})"
    return None


def version_problems(runs: list, problems: list[str]) -> None:
    """Name, in ``problems``, runs read under different ingest versions and runs scored under an
    older metrics version than this code's."""
    from ham.metrics.registry import METRICS_VERSION

    by_version: dict[str, list[str]] = {}
    for run in runs:
        by_version.setdefault(ingest_version(run), []).append(run.run_id)
    if len(by_version) > 1:
        listed = "; ".join(f"version {v}: {', '.join(ids)}" for v, ids in sorted(by_version.items()))
        problems.append(f"runs read their corpora under different ingest versions ({listed}): their retrieval is "
                        "not comparable; relaunch the older runs' configs, which reads the corpus again and answers "
                        "again the questions whose index changed (kept; the cells of runs not on the version most runs have are "
                        "marked " + INGEST_MARK + ")")
    old: dict[str, list[str]] = {}
    for run in runs:
        if metrics_version(run) != METRICS_VERSION:
            old.setdefault(metrics_version(run), []).append(run.run_id)
    if old:
        listed = "; ".join(f"version {v}: {', '.join(ids)}" for v, ids in sorted(old.items()))
        problems.append(f"runs scored under an older version of the metrics than this code's ({METRICS_VERSION}) "
                        f"({listed}): a metric's definition changed since (ham/metrics/registry.py says what), so "
                        "their numbers are not comparable with newer runs'; relaunch them (the same command): a relaunch "
                        "scores every row again, replaying its recorded reply where the prompt is the same (kept; where "
                        "versions mix, the cells of runs not on the version most runs have are marked " + METRICS_MARK + ")")
