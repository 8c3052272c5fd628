"""A run scored under another version of the metrics' code (``METRICS_VERSION``) is not finished:
relaunched, every row is scored again with its recorded reply replayed where its prompt is the same
(no model asked, answer, tokens and cost unchanged), and a system run's rows are scored again in
place. A table never shows numbers the code no longer computes."""
from __future__ import annotations

import json
import shutil

import pytest

from ham.conf import compose
from ham.metrics.registry import METRICS_VERSION
from ham.run.grid import (METRICS_CHANGED, is_finished, metrics_changed, redo_reason, stamp_metrics_version)
from ham.run.job import run
from ham.run.runner import replayed
from tests.run.test_resume_job import _corpus
from tests.support.chat_server import ChatServer


def _cfg(tmp_path, server, *extra):
    root, questions = (tmp_path / "manual", tmp_path / "questions.jsonl") if (tmp_path / "manual").exists() \
        else _corpus(tmp_path)
    return compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                    f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                    "reranker=none", "generator=openai", "generator.client.model=m",
                    f"generator.client.base_url={server.base_url}", "metrics.names=[image_f1,image_precision]", *extra])


def _rows(out):
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def _write(out, rows):
    (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _as_scored_by_version_1(out, rows):
    """What a run finished before rows recorded a version looks like, its scores made by older code
    (here: another value than this code computes)."""
    for r in rows:
        r.pop("metrics_version", None)
        r["metrics"] = {k: (0.123 if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                        for k, v in r["metrics"].items()}
    _write(out, rows)
    summary = json.loads((out / "metrics.json").read_text())
    summary.pop("metrics_version")
    (out / "metrics.json").write_text(json.dumps(summary))


def test_a_run_scored_by_older_metrics_is_scored_again_without_asking_the_model(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    replies = {"How often is the filter replaced?": "Replace the filter cartridge every six months.",
               "Where is the cartridge?": ""}         # an empty reply: a content failure a resume keeps

    def respond(body):
        asked = json.dumps(body)
        return next((r for q, r in replies.items() if q in asked), "Inspect the shaft seal weekly.")

    with ChatServer(responder=respond) as server:
        cfg = _cfg(tmp_path, server)
        out = run(cfg)
        asked = len(server.requests)
        before = _rows(out)
        assert all(r["metrics_version"] == METRICS_VERSION for r in before)
        assert [r["failure"]["reason"] if r["failure"] else None for r in before] == [None, "empty", None]
        summary = json.loads((out / "metrics.json").read_text())
        assert summary["metrics_version"] == METRICS_VERSION

        _as_scored_by_version_1(out, [dict(r) for r in before])
        shutil.rmtree(tmp_path / "cache" / "generations")    # nothing cached to serve: only the rows hold replies
        capsys.readouterr()
        run(cfg)
        err = capsys.readouterr().err
        assert "already finished" not in err
        assert "scored under metrics version 1, the metrics are now version " + METRICS_VERSION in err
        assert len(server.requests) == asked, "the recorded replies were replayed, the failed one included"
        after = _rows(out)
        for old, new in zip(before, after):
            assert new["metrics"] == old["metrics"] and new["metrics_version"] == METRICS_VERSION
            for key in ("answer", "raw_answer", "failure", "generation", "prompt", "retrieved_text"):
                assert new[key] == old[key], key
        again = json.loads((out / "metrics.json").read_text())
        assert again["metrics_version"] == METRICS_VERSION
        assert again["metrics"] == summary["metrics"] and again["cost"] == summary["cost"]
        assert again["failures"] == {"empty": 1}

        run(cfg)
        assert "already finished" in capsys.readouterr().err and len(server.requests) == asked


def test_a_row_whose_prompt_changed_is_answered_by_the_model_not_replayed(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer(responder=lambda body: "Replace the filter cartridge every six months.") as server:
        cfg = _cfg(tmp_path, server)
        out = run(cfg)
        asked = len(server.requests)
        rows = _rows(out)
        rows[0]["prompt"]["text"] += " (a template since changed)"
        rows[0]["raw_answer"] = "An answer to another prompt."
        _as_scored_by_version_1(out, rows)
        shutil.rmtree(tmp_path / "cache" / "generations")
        run(cfg)
        assert len(server.requests) == asked + 1, "only the row whose prompt differs was asked"
        after = _rows(out)
        assert after[0]["raw_answer"] == "Replace the filter cartridge every six months."
        assert all(r["metrics_version"] == METRICS_VERSION for r in after)


def test_the_redo_rule_names_rows_and_runs_scored_under_other_metrics(tmp_path):
    current = {"id": "q", "failure": None, "metrics": {"image_f1": 1.0}, "metrics_version": METRICS_VERSION}
    assert redo_reason(current, frozenset()) is None
    assert redo_reason({**current, "metrics_version": "1"}, frozenset()) == METRICS_CHANGED
    unrecorded = {k: v for k, v in current.items() if k != "metrics_version"}
    assert redo_reason(unrecorded, frozenset()) == METRICS_CHANGED
    assert redo_reason({**unrecorded, "metrics": {}}, frozenset()) is None, "an unscored row has nothing to redo"
    # a failure the resume redoes anyway is named for that (the model is asked again for it)
    assert redo_reason({**current, "metrics_version": "1", "failure": {"reason": "timeout"}},
                       frozenset({"timeout"})) == "timeout"
    assert metrics_changed({"metrics_version": METRICS_VERSION}) is None
    assert metrics_changed({}) == f"scored under metrics version 1, the metrics are now version {METRICS_VERSION}"

    from ham.ingest.corpus import INGEST_VERSION
    folder = tmp_path / "run"
    folder.mkdir()
    _write(folder, [unrecorded, {**unrecorded, "id": "r", "metrics_version": METRICS_VERSION}])
    (folder / "run.json").write_text(json.dumps({"ingest_version": INGEST_VERSION}))
    (folder / "metrics.json").write_text(json.dumps({"n_questions": 2, "metrics_version": METRICS_VERSION}))
    assert is_finished(folder, 2), "a row from before rows recorded it was scored under its summary's version"
    _write(folder, [unrecorded, {**unrecorded, "id": "r", "metrics_version": "7"}])
    assert not is_finished(folder, 2), "one row scored under other metrics"
    _write(folder, [unrecorded, {**unrecorded, "id": "r", "metrics_version": METRICS_VERSION}])
    (folder / "metrics.json").write_text(json.dumps({"n_questions": 2, "metrics_version": "1"}))
    assert not is_finished(folder, 2)
    _write(folder, [unrecorded, {**unrecorded, "id": "r", "metrics_version": "7"}])
    assert stamp_metrics_version(folder / "predictions.jsonl", "1") == 1
    assert [r["metrics_version"] for r in _rows(folder)] == ["1", "7"], "a recorded version is never overwritten"
    assert stamp_metrics_version(folder / "predictions.jsonl", "1") == 0


class _Prompt:
    def __init__(self, text):
        self.text = text

    def to_dict(self):
        return {"text": self.text, "slots": {"1": ["u", "a.png"]}}


def test_replayed_reproduces_the_recorded_generation_only_for_the_same_prompt():
    row = {"prompt": {"text": "p", "slots": {"1": ["u", "a.png"]}}, "raw_answer": "An answer.", "failure": None,
           "generation": {"model": "m", "usage": {"prompt_tokens": 9}, "seconds": 1.5, "finish_reason": "stop",
                          "attempts": 2, "cached": False, "served_model": "m-2"}}
    g = replayed(row, _Prompt("p"))
    assert (g.text, g.model, g.usage, g.error, g.seconds, g.finish_reason, g.attempts, g.served_model) == \
        ("An answer.", "m", {"prompt_tokens": 9}, None, 1.5, "stop", 2, "m-2")
    assert replayed(row, _Prompt("q")) is None and replayed(None, _Prompt("p")) is None
    failed = {**row, "raw_answer": None, "failure": {"reason": "empty", "detail": "empty: the model returned no text"}}
    assert replayed(failed, _Prompt("p")).error == "empty: the model returned no text"
    # a reply of no text at all (an API's null content) is the parser's failure, not the generation's:
    # replayed as no text, it fails the same way again, under the same reason
    none = {**row, "raw_answer": None, "failure": {"reason": "empty", "detail": "the model returned no text"}}
    assert replayed(none, _Prompt("p")).error is None and replayed(none, _Prompt("p")).text is None
    # a reply the parser refused keeps its text: parsing it again gives the same failure
    refused = {**row, "failure": {"reason": "cites_unknown_image", "detail": "[[image:9]]"}}
    assert replayed(refused, _Prompt("p")).error is None


def test_a_system_runs_rows_are_mapped_and_scored_again_from_their_recorded_replies(tmp_path):
    from ham.metrics.evaluator import Evaluator
    from ham.run.system_pipeline import SystemPipeline
    from ham.systems.mapping import ContextMapper
    from ham.systems.rows import system_row
    from tests.systems.test_mapping import UNITS
    from tests.systems.test_rows_and_config import LIGHTRAG_REPLY, _question

    metrics = compose(["metrics=topology"], return_hydra_config=False).metrics
    metrics.names = ["gold_unit_recall", "both_hops", "ordered_chain"]
    evaluator = Evaluator.from_config(metrics)
    question = _question()
    row = system_row(question, LIGHTRAG_REPLY, ContextMapper(UNITS), {u.unit_id: u for u in UNITS}, "lightrag",
                     "m", evaluator)
    assert row["metrics_version"] == METRICS_VERSION
    # scored, and mapped, by older code: its context rows say less than the recorded reply does
    stale = {**row, "metrics": {"gold_unit_recall": 0.5, "both_hops": 0.0, "ordered_chain": 1.0},
             "metrics_version": "1", "retrieved_text": row["retrieved_text"][:1], "retrieved_images": []}
    pred = tmp_path / "predictions.jsonl"
    _write(tmp_path, [stale])

    class NeverAsked:
        records = {}

        def query(self, q):
            raise AssertionError("a row scored again must not ask the system")

    class Corpus:
        by_id = {u.unit_id: u for u in UNITS}

    pipeline = SystemPipeline(retriever=None, assembler=None, generator=None, evaluator=evaluator,
                              corpus=Corpus(), info={"system": {}}, system=NeverAsked(), mapper=ContextMapper(UNITS))
    pipeline.close = lambda: None
    rows = pipeline.answer_all([question], pred, progress=False)
    assert rows[0]["metrics"] == row["metrics"] and rows[0]["metrics_version"] == METRICS_VERSION
    assert _rows(tmp_path)[0]["metrics"] == row["metrics"]
    assert rows[0]["system"] == row["system"] and rows[0]["answer"] == row["answer"]
    assert rows[0]["retrieved_text"] == row["retrieved_text"] and rows[0]["retrieved_images"] == row["retrieved_images"]


@pytest.mark.parametrize("version", ["1", None])
def test_analysis_says_how_to_bring_old_runs_up_to_date(version):
    from analysis.versions import version_problems

    class Run:
        run_id = "abc"
        metrics = {"metrics_version": version} if version else {}
        ingest_version = "81"

    problems: list[str] = []
    version_problems([Run()], problems)
    assert "version 1: abc" in problems[0] and "relaunch them (the same command)" in problems[0]


def test_a_local_generators_rows_are_replayed_in_its_batches(tmp_path, capsys):
    # the extractive generator answers in batches (the loop local models use), not on the event loop
    root, questions = _corpus(tmp_path)
    cfg = compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                   f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                   "reranker=none", "metrics.names=[image_f1,gold_text_recall]"])
    out = run(cfg)
    before = _rows(out)
    rows = [dict(r) for r in before]
    rows[1]["raw_answer"] = "A reply the generator would not give now."   # replayed, not recomputed
    _as_scored_by_version_1(out, rows)
    run(cfg)
    after = _rows(out)
    assert after[1]["raw_answer"] == "A reply the generator would not give now."
    assert [r["metrics_version"] for r in after] == [METRICS_VERSION] * 3
    assert after[0]["metrics"] == before[0]["metrics"] and after[2]["answer"] == before[2]["answer"]
