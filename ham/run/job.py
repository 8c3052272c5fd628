"""One run of a config, end to end, into ``outputs/runs/<name>/<run id>/``:

    config.yaml         the resolved config (secret-looking keys redacted) and the option per group
    run.json            run id and its identity record (secret-looking keys redacted), corpus hash,
                        index keys, model ids, versions, git commit, SLURM ids, ingest report, the
                        evidence mapping's counts
    evidence_mapping.json  which gold evidence item mapped to which unit ids by which rule, which
                        stayed unresolved and why (``ham.datasets.evidence``; questions with evidence)
    predictions.jsonl   one row per question, appended and flushed as each finishes (``runner``)
    metrics.json        the chosen metrics aggregated, failure counts, cost (``ham.metrics.evaluator``),
                        prompt length (mean characters and, where known, tokens of retrieved text and prompt)

A run whose predictions and metrics already cover every question, with no failure a resume
redoes (``ham.run.grid.is_finished``), is not run again. Relaunching an unfinished one resumes it:
failures a retry could fix (``run.redo_failures``, by default every retryable reason) are answered
again, content failures are kept, and summary or description calls that failed are asked again
(rows whose index changed as a result are answered again). ``rerun=true`` answers every question
again into a fresh ``predictions.jsonl``, asking the model anew (the generation cache is bypassed;
``run.reuse_cached_successes=true`` serves stored replies to the questions the previous
predictions answered without failure); the previous one is kept beside it as
``predictions.<time>.jsonl``.

``run.json`` is written from what produced the predictions: the offline stage that built the
index the rows were answered under, and, after answering, ``predictions`` (rows per index keys,
generator and served model) and ``sessions`` (each launch: when, how many rows it answered, the
summary and description calls that failed).
"""
from __future__ import annotations

import json
import logging
import os
import socket
import sys
import time
from pathlib import Path
from typing import Callable

from omegaconf import DictConfig, OmegaConf

from ham.datasets.questions import Question
from ham.generate.base import redo_reasons
from ham.generate.cost import cost_summary
from ham.ingest.corpus import INGEST_VERSION
from ham.methods.base import length_summary
from ham.conf import plain
from ham.paths import resolve_path
from ham.cache import key_of
from ham.run import grid
from ham.run.grid import (enrichment_redo, ingest_changed, is_finished, metrics_changed, safe_name,
                          stamp_metrics_version)
from ham.run.identity import identity, run_id as identity_run_id
from ham.run.build import builder_for, load_dataset_questions
from ham.run.pipeline import Pipeline
from ham.run.provenance import git_state, package_versions
from ham.run.tracking import redact

log = logging.getLogger("ham.run")


def configured_run_id(cfg: DictConfig) -> str:
    """The run's id: a short hash of what changes its results (``ham.run.identity``)."""
    return identity_run_id(cfg, resolve_path(cfg.paths.cache_root, must_exist=False))


def hydra_runtime(cfg: DictConfig) -> tuple[dict, list[str]]:
    """The option chosen in each config group (the names used in tables) and the overrides that
    made this run; empty when the config was composed without Hydra's runtime."""
    from hydra.core.hydra_config import HydraConfig

    if "hydra" in cfg:
        node = cfg.hydra
    elif HydraConfig.initialized():
        node = HydraConfig.get()
    else:
        return {}, []
    choices = {k: v for k, v in node.runtime.choices.items() if not k.startswith(("hydra/", "schema/"))
               and v is not None}
    return dict(choices), list(node.overrides.task)




def run(cfg: DictConfig, build: Callable[[DictConfig], Pipeline] | None = None) -> Path:
    """Run one config end to end and return its output folder. ``build`` makes the pipeline
    (tests pass their own components through it; by default ``builder_for(cfg)``)."""
    build = build or builder_for(cfg)
    started = time.time()
    rid = configured_run_id(cfg)
    out_root = resolve_path(cfg.paths.output_root, must_exist=False)
    out_dir = out_root / "runs" / safe_name(cfg.name) / rid
    out_dir.mkdir(parents=True, exist_ok=True)
    choices, overrides = hydra_runtime(cfg)
    questions, question_problems = load_dataset_questions(cfg)
    if not questions:   # nothing to answer is no finished run (0 of 0 questions had passed as one)
        shown = _first_few(question_problems)
        raise ValueError(f"no questions to answer in {cfg.dataset.get('questions') or cfg.dataset.name}"
                         + (f": {shown}" if shown else ""))
    redo = redo_reasons(cfg.run.redo_failures)
    # a rerun the scheduler requeued (preempted, timed out) comes back with rerun=true: it goes on
    # with the questions it had not reached instead of setting its own progress aside again
    requeued = cfg.rerun and rerun_requeued(_run_info(out_dir))
    if cfg.rerun and not requeued:
        _set_aside(out_dir)
    elif is_finished(out_dir, len(questions), redo):
        print(finished_message(rid, out_dir, redo), file=sys.stderr)
        if reprice(cfg, out_dir):
            print(f"run {rid}: priced again from its recorded tokens (cost.pricing / cost.prices changed)",
                  file=sys.stderr)
        _record(choices, out_root, rid, out_dir, overrides, "finished")
        return out_dir
    elif (out_dir / "metrics.json").exists() and (why := ingest_changed(_run_info(out_dir))):
        print(f"run {rid} was {why}: its corpus is read again and the questions whose retrieval index "
              "changed are answered again", file=sys.stderr)
    summary = _summary(out_dir)
    if summary:   # rows from before they recorded it take their summary's version: a resume that dies still knows
        stamp_metrics_version(out_dir / "predictions.jsonl", str(summary.get("metrics_version") or "1"))
    if summary and (why := metrics_changed(summary)):
        print(f"run {rid} was {why}: every question is scored again (its recorded reply is replayed where "
              "its prompt is the same, so no model is asked for it)", file=sys.stderr)
    # answered again (resumed, or its corpus read anew): no summary until it finishes, or the last
    # launch's would sit beside the rows replacing those it summarised
    (out_dir / "metrics.json").unlink(missing_ok=True)
    resolved = redact(plain(cfg))
    (out_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create({**resolved, "choices": choices})))
    _record(choices, out_root, rid, out_dir, overrides, "running", host=socket.gethostname(), pid=os.getpid())
    try:
        _execute(cfg, build(cfg), rid, out_dir, questions, question_problems, choices, redo, started, requeued)
    except BaseException as exc:
        _record(choices, out_root, rid, out_dir, overrides, failure_status(exc), error=f"{exc.__class__.__name__}: {exc}")
        raise
    _record(choices, out_root, rid, out_dir, overrides, "finished")
    return out_dir


def _first_few(problems: list[str], n: int = 3) -> str:
    """The first ``n`` problems, and how many there are when there are more."""
    return "; ".join(problems[:n]) + (f"; ... ({len(problems)} problems)" if len(problems) > n else "")


def rerun_requeued(run_info: dict) -> bool:
    """Whether this launch is the scheduler restarting a rerun it had begun (the same job, a rerun
    not finished), not a new ``rerun=true``."""
    job = grid.current_job()
    return job is not None and run_info.get("rerun_job") == job and run_info.get("rerun_pending") is not None


def failure_status(exc: BaseException) -> str:
    """A grid record's status for a run that stopped with ``exc``: ``interrupted`` for a signal or
    a scheduler's exit (a preempted job submitit requeues: it records ``running`` again when it
    restarts), ``failed`` for anything else."""
    return "interrupted" if isinstance(exc, (SystemExit, KeyboardInterrupt)) else "failed"


def record_failure(cfg: DictConfig, grid_name: str, out_root: Path, overrides: list[str], exc: BaseException) -> None:
    """The grid record of a point that stopped before or while it ran (a bad config, a dataset that
    does not load, a tracker that does not start), so every point of a grid leaves one."""
    try:
        rid = configured_run_id(cfg)
    except Exception:   # the config itself is what failed: name the point by its overrides
        rid = "unidentified-" + key_of(sorted(overrides))[:10]
    out_dir = out_root / "runs" / safe_name(str(cfg.get("name") or "run")) / rid
    grid.record(out_root, grid_name, rid, out_dir, overrides, failure_status(exc),
                error=f"{exc.__class__.__name__}: {exc}")


def _read_json(path: Path) -> dict:
    """A run folder's JSON file, {} where it is missing or unreadable."""
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def _summary(out_dir: Path) -> dict:
    return _read_json(out_dir / "metrics.json")


def _run_info(out_dir: Path) -> dict:
    return _read_json(out_dir / "run.json")


def finished_message(rid: str, out_dir: Path, redo: frozenset) -> str:
    """What a relaunch of a finished run says: its failures, which of them a resume would redo
    (none, or it would not be finished) and how to answer everything again."""
    metrics = json.loads((out_dir / "metrics.json").read_text())
    failures = metrics.get("failures") or {}
    kept = ", ".join(f"{reason}: {n}" for reason, n in sorted(failures.items()))
    redone = ", ".join(sorted(redo)) or "nothing"
    text = f"run {rid} already finished: {out_dir}\n  "
    text += (f"{sum(failures.values())} failures ({kept}), none of a kind a resume answers again" if failures
             else "no failures")
    text += f"; a resume redoes {redone} (run.redo_failures)"
    content = sorted(set(failures) - redo)
    if content:
        text += f"; to redo {', '.join(content)} too: run.redo_failures=[retryable,{','.join(content)}]"
    return text + "\n  rerun=true answers every question again (the old predictions are kept aside)"


def _set_aside(out_dir: Path) -> None:
    old = out_dir / "predictions.jsonl"
    if old.exists():
        kept = out_dir / f"predictions.{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        old.replace(kept)
        log.info("rerun: previous predictions kept as %s", kept)
    (out_dir / "metrics.json").unlink(missing_ok=True)


def _record(choices: dict, out_root: Path, rid: str, out_dir: Path, overrides: list[str], status: str,
            **extra) -> None:
    if choices.get("grid"):
        grid.record(out_root, choices["grid"], rid, out_dir, overrides, status, **extra)


def _execute(cfg: DictConfig, pipeline: Pipeline, rid: str, out_dir: Path, questions: list[Question],
             question_problems: list[str], choices: dict, redo: frozenset, started: float,
             requeued: bool = False) -> None:
    corpus, info = pipeline.corpus, pipeline.info
    if corpus is not None:
        print(corpus.report["summary"].rstrip(), file=sys.stderr)
    run_json = out_dir / "run.json"
    before = json.loads(run_json.read_text()) if run_json.exists() else {}
    retried = enrichment_redo(before, redo)
    if retried:
        now = {k: (info.get(k) or {}).get("failed", 0) for k in retried}
        print("previous launch: " + ", ".join(f"{n} {k} calls failed" for k, n in retried.items()) +
              "; asked again: " + ", ".join(f"{now[k]} {k} still failing" for k in retried) +
              " (rows answered under an index that has since changed are answered again)", file=sys.stderr)
    run_info = {"run_id": rid, "name": cfg.name, "grid": choices.get("grid"), "choices": choices,
                # the record the id hashes, secret-looking keys redacted as in config.yaml
                "identity": redact(identity(cfg, resolve_path(cfg.paths.cache_root, must_exist=False))),
                "corpus_root": str(corpus.root) if corpus is not None else None,
                "corpus_hash": corpus.content_hash if corpus is not None else None, "index": info,
                "slurm": grid.slurm_ids(), "encoder": info.get("encoder"),
                "generator": pipeline.generator.model_id, "git": git_state(), "versions": package_versions(),
                "question_problems": question_problems, "ingest_version": INGEST_VERSION,
                "ingest": {k: v for k, v in corpus.report.items() if k != "summary"} if corpus is not None else {}}
    if corpus is not None:   # golds that match nothing (score 0) or two documents (page keys): said, never silent
        from ham.datasets.golds import gold_problems

        problems = gold_problems(questions, corpus.units)
        run_info["gold_problems"] = {"count": len(problems), "examples": problems[:20]}
        if problems:
            log.warning("%d gold problems: golds that match nothing in the corpus score 0, page golds a file name "
                        "two documents share credit either (run.json gold_problems): %s",
                        len(problems), _first_few(problems))
    mapping = pipeline.resolve_evidence(questions)   # gold evidence -> unit ids, before scoring
    if mapping is not None:
        mapping.write(out_dir / "evidence_mapping.json")
        run_info["evidence_mapping"] = {"file": "evidence_mapping.json", **mapping.summary()}
    session = {"started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
               "summary_failures": info.get("summary_failures", 0),
               "description_failures": info.get("description_failures", 0)}
    run_info["sessions"] = list(before.get("sessions") or []) + [session]
    pred_path = out_dir / "predictions.jsonl"
    previous = {r.get("id"): r for r in _rows(pred_path)}
    # a rerun asks the model anew; one that dies is resumed anew too: the questions it had not reached
    # stay fresh (run.json's rerun_pending), never served the replies cached before the rerun
    pending = frozenset(before.get("rerun_pending") or ()) - set(previous)
    fresh = pending if requeued else rerun_fresh(cfg, questions, out_dir) or pending
    if fresh:
        run_info["rerun_pending"], run_info["rerun_job"] = sorted(fresh), grid.current_job()
    run_json.write_text(json.dumps(run_info, indent=2))
    rows = pipeline.answer_all(questions, pred_path, desc=f"{cfg.name}/{rid}", progress=cfg.progress,
                               redo_failures=redo, fresh=fresh)   # a system's pipeline answers its own way
    session["answered"] = sum(1 for r in rows if previous.get(r["id"]) != r)
    run_info["predictions"] = predictions_record(rows)
    run_info.pop("rerun_pending", None)
    run_info.pop("rerun_job", None)
    run_json.write_text(json.dumps(run_info, indent=2))
    metrics = {"run_id": rid, **pipeline.evaluator.summary(rows), "index": info,
               "si_fallback_images": info.get("si_fallback_images", 0),
               "summary_failures": info.get("summary_failures", 0),
               "description_failures": info.get("description_failures", 0),
               "enrichment": enrichment_record(info),
               "cost": cost_summary(rows, cfg.cost, pipeline.generator.pricing),
               "prompt_length": length_summary(rows),
               "seconds": round(time.time() - started, 2)}
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))


def rerun_fresh(cfg: DictConfig, questions: list[Question], out_dir: Path) -> frozenset:
    """The questions a rerun asks the model anew: all of them (``rerun=true``), or with
    ``run.reuse_cached_successes`` only those the set-aside predictions did not answer well."""
    if not cfg.rerun:
        return frozenset()
    ids = frozenset(q.id for q in questions)
    if not cfg.run.reuse_cached_successes:
        return ids
    kept = sorted(out_dir.glob("predictions.*.jsonl"))
    previous = _rows(kept[-1]) if kept else []
    succeeded = {r.get("id") for r in previous if not r.get("failure")}
    return ids - succeeded


def reprice(cfg: DictConfig, out_dir: Path) -> bool:
    """A finished run's cost block again under the config's price table (``cost.pricing`` and
    ``cost.prices`` are not in the run id: cents come from the recorded tokens, so a relaunch with
    another price writes them without asking any model). True when it changed."""
    metrics_path = out_dir / "metrics.json"
    metrics = json.loads(metrics_path.read_text())
    generator = cfg.get("generator")
    pricing = generator.get("pricing") if generator is not None and "pricing" in generator else None
    cost = cost_summary(_rows(out_dir / "predictions.jsonl"), cfg.cost, pricing)
    if cost == metrics.get("cost"):
        return False
    metrics_path.write_text(json.dumps({**metrics, "cost": cost}, indent=2))
    return True


def _rows(path: Path) -> list[dict]:
    from ham.run.predictions import read

    return list(read(path).rows.values())


def predictions_record(rows: list[dict]) -> dict:
    """What produced the rows, counted from the rows themselves: index keys, generator, the model
    the server said answered, generations served from the cache."""
    def count(values) -> dict:
        out: dict = {}
        for v in values:
            key = v if isinstance(v, str) else json.dumps(v, sort_keys=True)
            out[key] = out.get(key, 0) + 1
        return out

    gens = [r.get("generation") or {} for r in rows]
    return {"rows": len(rows), "index": count(r.get("index") or "not recorded" for r in rows),
            "generator": count(g.get("model") or "unknown" for g in gens),
            "served_model": count(g.get("served_model") or "not reported" for g in gens),
            "cached_generations": sum(1 for g in gens if g.get("cached"))}


def enrichment_record(info: dict) -> dict:
    """Summary and description calls of the offline stage: counts, failure reasons, fallbacks."""
    out = {}
    for kind in ("summaries", "descriptions"):
        stats = info.get(kind)
        if not stats:
            continue
        reasons: dict = {}
        for f in stats.get("failures") or []:
            reason = str(f.get("error") or "unknown").split(":", 1)[0]
            reasons[reason] = reasons.get(reason, 0) + 1
        out[kind] = {"backend": stats.get("backend"), "requested": stats.get("requested", 0),
                     "cached": stats.get("cached", 0), "computed": stats.get("computed", 0),
                     "failed": stats.get("failed", 0), "failure_reasons": reasons,
                     "fallback": {"summaries": "lead sentences", "descriptions": "no description"}[kind]}
    out["si_fallback_images"] = info.get("si_fallback_images", 0)
    return out
