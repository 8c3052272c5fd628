"""A run of a config resumed as a researcher would: summary calls that failed are asked again and
the rows built on the fallback are answered again under the new index; run.json says what
produced the rows; the finished message says what a resume redoes; rerun keeps nothing."""
import json

import pytest

from ham.conf import compose
from ham.run.job import run
from tests.support.chat_server import ChatServer


def _corpus(tmp_path):
    root = tmp_path / "manual"
    root.mkdir()
    (root / "pump.md").write_text(
        "# Pump Manual\n\n## 1. Filter\n\nReplace the filter cartridge every six months. Rinse the housing.\n\n"
        "### 1.1 Cartridge\n\nThe cartridge sits behind the front cover.\n\n"
        "## 2. Seals\n\nInspect the shaft seal for leaks weekly. Replace a leaking seal at once.\n")
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in
                                 [("a", "How often is the filter replaced?"), ("b", "Where is the cartridge?"),
                                  ("c", "How often is the seal inspected?")]))
    return root, questions


def _cfg(tmp_path, server, *extra):
    root, questions = _corpus(tmp_path) if not (tmp_path / "manual").exists() else \
        (tmp_path / "manual", tmp_path / "questions.jsonl")
    return compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                    f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                    "summariser=openai", "summariser.client.model=summ", f"summariser.client.base_url={server.base_url}",
                    "summariser.client.max_retries=0", "metrics.names=[image_f1,gold_text_recall]", *extra])


def _served(tmp_path, server, *extra):
    """A run of the small corpus against the scripted chat server as its generator."""
    root, questions = (tmp_path / "manual", tmp_path / "questions.jsonl") if (tmp_path / "manual").exists() \
        else _corpus(tmp_path)
    return ["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
            f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}", "reranker=none",
            "generator=openai", "generator.client.model=m", f"generator.client.base_url={server.base_url}",
            "metrics.names=[image_f1]", *extra]


def _killed_rerun(out, reply: str, **run_info) -> None:
    """The state a rerun=true leaves when its job dies after its first question (answered ``reply``):
    the earlier predictions set aside, run.json naming every question pending."""
    rows = (out / "predictions.jsonl").read_text().splitlines()
    (out / "predictions.jsonl").replace(out / "predictions.20261207-000000.jsonl")
    first = json.loads(rows[0])
    first["answer"] = [{"type": "text", "text": reply}]
    (out / "predictions.jsonl").write_text(json.dumps(first) + "\n")
    info = json.loads((out / "run.json").read_text())
    info |= {"rerun_pending": sorted(json.loads(r)["id"] for r in rows), **run_info}
    (out / "run.json").write_text(json.dumps(info))
    (out / "metrics.json").unlink()


def test_failed_summaries_are_asked_again_and_rows_on_the_fallback_answered_again(tmp_path, capsys):
    with ChatServer(responder=lambda body: "A section about pump upkeep.") as server:
        server.script(*[500] * 50)                       # the summariser's server is down
        out = run(_cfg(tmp_path, server))
        first = json.loads((out / "run.json").read_text())
        assert first["index"]["summaries"]["failed"] > 0 and first["index"]["summaries"]["computed"] == 0
        assert first["index"]["summaries"]["failures"][0]["error"].startswith("api_error: HTTP 500")
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["enrichment"]["summaries"]["failure_reasons"] == {"api_error": metrics["summary_failures"]}
        old_keys = {r["index"]["text"] for r in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}

        server._faults.clear()                           # the server is back: the same command resumes
        again = run(_cfg(tmp_path, server))
        assert again == out
        err = capsys.readouterr().err
        assert "summaries calls failed; asked again: 0 summaries still failing" in err
        info = json.loads((out / "run.json").read_text())
        assert info["index"]["summaries"]["failed"] == 0 and info["index"]["summaries"]["computed"] > 0
        rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(rows) == 3 and {r["index"]["text"] for r in rows} == {info["index"]["text"]["key"]}
        assert old_keys != {info["index"]["text"]["key"]}, "the summaries are in the embedded strings"
        assert [s["answered"] for s in info["sessions"]] == [3, 3], "every row was on the fallback's index"
        assert info["predictions"]["index"] == {json.dumps(rows[0]["index"], sort_keys=True): 3}

        asked = len(server.requests)
        run(_cfg(tmp_path, server))                      # finished now: nothing asked, nothing answered
        assert len(server.requests) == asked
    assert "already finished" in capsys.readouterr().err


def test_finished_message_names_what_a_resume_redoes(tmp_path, capsys):
    with ChatServer() as server:
        cfg = _cfg(tmp_path, server, "generator.max_sentences=1")
        out = run(cfg)
        rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        rows[0]["failure"] = {"reason": "empty", "detail": "empty: the model returned no text"}
        (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        metrics = json.loads((out / "metrics.json").read_text())
        (out / "metrics.json").write_text(json.dumps({**metrics, "failures": {"empty": 1}, "n_failures": 1}))
        capsys.readouterr()
        run(cfg)
    err = capsys.readouterr().err
    assert "already finished" in err and "1 failures (empty: 1), none of a kind a resume answers again" in err
    assert "a resume redoes api_error, budget_exhausted, malformed_response, timeout" in err
    assert "run.redo_failures=[retryable,empty]" in err and "rerun=true answers every question again" in err


def test_an_unknown_redo_reason_stops_the_run_naming_the_known_ones(tmp_path):
    with ChatServer() as server:
        with pytest.raises(ValueError, match="run.redo_failures: unknown failure reason 'apierror'"):
            run(_cfg(tmp_path, server, "run.redo_failures=[apierror]"))


def test_a_run_ingested_under_another_ingest_version_is_not_finished(tmp_path, capsys):
    # after an upgrade that reads documents differently, relaunching must not show the old rows as
    # final: the corpus is read again, and rows are answered again where their index changed
    from ham.ingest.corpus import INGEST_VERSION

    with ChatServer(responder=lambda body: "A section about pump upkeep.") as server:
        cfg = _cfg(tmp_path, server)
        out = run(cfg)
        info = json.loads((out / "run.json").read_text())
        assert info["ingest_version"] == INGEST_VERSION
        rows_before = (out / "predictions.jsonl").read_text()
        for then in ("0", None):                     # another version, or a run.json from before the field
            info["ingest_version"] = then
            (out / "run.json").write_text(json.dumps(info))
            capsys.readouterr()
            run(cfg)
            err = capsys.readouterr().err
            assert "already finished" not in err
            assert f"ingested under version {then or 'unrecorded'}, ingest is now version {INGEST_VERSION}" in err
            assert json.loads((out / "run.json").read_text())["ingest_version"] == INGEST_VERSION
            assert (out / "predictions.jsonl").read_text() == rows_before   # same corpus reading: rows kept
        run(cfg)
        assert "already finished" in capsys.readouterr().err
        # rows answered under another index (the documents read differently) are answered again
        rows = [json.loads(x) for x in rows_before.splitlines()]
        for r in rows:
            r["index"] = {"text": "an-older-index", "image": None}
        (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        info["ingest_version"] = "0"
        (out / "run.json").write_text(json.dumps(info))
        run(cfg)
        again = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(again) == 3 and all(r["index"]["text"] != "an-older-index" for r in again)


def test_a_resume_that_dies_leaves_no_summary_of_the_rows_it_replaces(tmp_path):
    # metrics.json summarises predictions.jsonl; a resume replaces rows, so until it finishes the last
    # launch's summary would describe rows that are gone (ham-analyze reads means from one, CIs from the other)
    root, questions = _corpus(tmp_path)
    cfg = compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                   f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                   "reranker=none", "metrics.names=[image_f1,gold_text_recall]"])
    out = run(cfg)
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    rows[0]["failure"] = {"reason": "timeout", "detail": "timeout: the model did not answer"}
    (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def killed(cfg):
        raise KeyboardInterrupt("the job's time limit")

    with pytest.raises(KeyboardInterrupt):
        run(cfg, build=killed)                  # the resume dies before it answers anything
    assert not (out / "metrics.json").exists()
    run(cfg)
    assert json.loads((out / "metrics.json").read_text())["n_failures"] == 0


def test_a_relaunch_with_another_price_prices_the_finished_run_from_its_tokens(tmp_path, capsys):
    # cost.pricing is not in the run id because cents come from recorded tokens: a relaunch must
    # write them (it had said "already finished" and kept no cents), without asking the model
    with ChatServer(responder=lambda body: "Every six months.") as server:
        base = _served(tmp_path, server)
        out = run(compose(base))
        assert json.loads((out / "metrics.json").read_text())["cost"]["cents_per_question"] is None
        asked = len(server.requests)
        assert run(compose([*base, "cost.pricing=gpt4o"])) == out
        assert len(server.requests) == asked
    cost = json.loads((out / "metrics.json").read_text())["cost"]
    assert cost["pricing"] == "gpt4o" and cost["cents_per_question"] > 0
    assert "priced again from its recorded tokens" in capsys.readouterr().err


def test_a_rerun_that_dies_is_resumed_fresh_not_from_replies_cached_before_it(tmp_path):
    replies = {"text": "Every six months."}
    with ChatServer(responder=lambda body: replies["text"]) as server:
        cfg = compose(_served(tmp_path, server))
        out = run(cfg)                                   # every reply cached
        replies["text"] = "Once a year, since the fix."
        _killed_rerun(out, replies["text"])
        run(cfg)                                         # relaunched without rerun=true: a resume
    answers = [json.loads(x)["answer"] for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert all("since the fix" in json.dumps(a) for a in answers), answers
    assert "rerun_pending" not in json.loads((out / "run.json").read_text())


def test_rows_record_the_rerankers_scoring_and_a_resume_answers_other_scorings_again(tmp_path):
    # the reranker decides the context as an index does: a row whose scores came from another
    # model or way of scoring (int8 pairs once scored in batches) is not kept by a resume
    root, questions = _corpus(tmp_path)
    cfg = compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                   f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                   "metrics.names=[image_f1]"])
    out = run(cfg)
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    key = json.loads((out / "run.json").read_text())["index"]["reranker"]["key"]
    assert all(r["index"]["reranker"] == key for r in rows)
    rows[1]["index"]["reranker"] = "scored-in-batches"
    (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "metrics.json").unlink()                      # not finished: a resume
    run(cfg)
    info = json.loads((out / "run.json").read_text())
    assert info["sessions"][-1]["answered"] == 1


def test_a_requeued_rerun_goes_on_instead_of_setting_its_own_progress_aside(tmp_path, monkeypatch):
    # submitit requeues a preempted job with its overrides, rerun=true included: each restart had moved
    # the partial predictions aside and asked everything again
    replies = {"text": "Every six months."}
    with ChatServer(responder=lambda body: replies["text"]) as server:
        base = _served(tmp_path, server)
        out = run(compose(base))
        replies["text"] = "Once a year, since the fix."
        monkeypatch.setenv("SLURM_JOB_ID", "77")
        _killed_rerun(out, replies["text"], rerun_job="slurm:77")   # SLURM preempted it after one question
        asked = len(server.requests)
        run(compose([*base, "rerun=true"]))              # the requeued job: same overrides, same job id
        assert len(server.requests) - asked == 2, "only the questions the rerun had not reached"
    assert len(list(out.glob("predictions.*.jsonl"))) == 1, "its own progress was not set aside"
    answers = [json.loads(x)["answer"] for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(answers) == 3 and all("since the fix" in json.dumps(a) for a in answers)


def test_a_run_without_questions_fails_naming_why(tmp_path):
    # every line skipped had ended as a "finished" run of 0 questions with exit code 0
    root, _ = _corpus(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "no id or question field"}\n')
    cfg = compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={bad}", "progress=false",
                   f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}"])
    with pytest.raises(ValueError, match="no questions to answer in .*bad.jsonl: .*bad.jsonl:1"):
        run(cfg)
