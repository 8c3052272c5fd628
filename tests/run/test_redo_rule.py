"""The redo rule, in its one place: which rows a resumed run answers again (grid.redo_reason), when
a run is finished (grid.is_finished), and what run.redo_failures names (base.redo_reasons)."""
import json

import pytest

from ham.generate.base import CONTENT_FAILURES, RETRYABLE_FAILURES, redo_reasons
from ham.ingest.corpus import INGEST_VERSION
from ham.metrics.registry import METRICS_VERSION
from ham.run.grid import enrichment_redo, is_finished, redo_reason

DEFAULT = redo_reasons(["retryable"])
INDEX = {"text": "t1", "image": "i1"}


def row(qid, reason=None, judge=None, index=INDEX):
    out = {"id": qid, "failure": {"reason": reason, "detail": f"{reason}: x"} if reason else None,
           "metrics": {"judge": judge} if judge else {}}
    if judge:   # scored by this code (test_metrics_changed covers rows scored by another version)
        out["metrics_version"] = METRICS_VERSION
    if index is not None:
        out["index"] = index
    return out


def write_run(folder, rows, n=None, run_info=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "metrics.json").write_text(json.dumps({"n_questions": len(rows) if n is None else n,
                                                     "metrics_version": METRICS_VERSION}))
    # a run this code wrote: read under the current ingest and metrics versions (test_resume_job and
    # test_metrics_changed cover others)
    (folder / "run.json").write_text(json.dumps({"ingest_version": INGEST_VERSION, **(run_info or {})}))
    return folder


def test_retryable_and_content_failures_are_disjoint_and_named():
    assert RETRYABLE_FAILURES == {"api_error", "timeout", "budget_exhausted", "malformed_response"}
    assert not RETRYABLE_FAILURES & CONTENT_FAILURES
    assert {"empty", "no_text", "cites_unknown_image", "over_length", "bad_input"} <= CONTENT_FAILURES
    assert DEFAULT == RETRYABLE_FAILURES
    assert redo_reasons(["retryable", "empty"]) == RETRYABLE_FAILURES | {"empty"}
    assert redo_reasons([]) == frozenset()
    with pytest.raises(ValueError, match="unknown failure reason 'api_eror'; known: retryable, api_error"):
        redo_reasons(["api_eror"])


@pytest.mark.parametrize("reason", sorted(RETRYABLE_FAILURES))
def test_a_retryable_failure_is_redone_by_default(reason):
    assert redo_reason(row("q", reason), DEFAULT) == reason


@pytest.mark.parametrize("reason", sorted(CONTENT_FAILURES))
def test_a_content_failure_is_kept_unless_named(reason):
    assert redo_reason(row("q", reason), DEFAULT) is None
    assert redo_reason(row("q", reason), DEFAULT | {reason}) == reason


def test_judge_failures_redo_the_row_when_retryable():
    assert redo_reason(row("q", judge={"tcr15": {"error": "api_error: HTTP 500 ..."}}), DEFAULT) == "judge api_error"
    assert redo_reason(row("q", judge={"tcr15": {"error": "timeout: no complete reply"}}), DEFAULT) == "judge timeout"
    assert redo_reason(row("q", judge={"tcr15": {"error": "unparseable: no tag"}}), DEFAULT) is None
    assert redo_reason(row("q", judge={"tcr15": {"value": 1}}), DEFAULT) is None


def test_a_row_answered_under_another_index_is_redone():
    assert redo_reason(row("q"), DEFAULT, INDEX) is None
    assert redo_reason(row("q", index={"text": "t0", "image": "i1"}), DEFAULT, INDEX) == "index changed"
    assert redo_reason(row("q", index=None), DEFAULT, INDEX) is None, "rows that never recorded keys are kept"


def test_finished_only_when_every_question_is_answered_and_nothing_would_be_redone(tmp_path):
    good = [row("q1"), row("q2", "empty")]
    assert is_finished(write_run(tmp_path / "a", good), 2, DEFAULT)
    assert not is_finished(write_run(tmp_path / "b", good), 3, DEFAULT), "a question missing"
    assert not is_finished(write_run(tmp_path / "c", [row("q1"), row("q2", "api_error")]), 2, DEFAULT)
    assert is_finished(write_run(tmp_path / "d", [row("q1"), row("q2", "api_error")]), 2, frozenset()), \
        "run.redo_failures=[] keeps every row"
    assert not is_finished(write_run(tmp_path / "e", [row("q1"), row("q2", "empty")]), 2, DEFAULT | {"empty"})
    judged = [row("q1", judge={"overall_quality": {"error": "api_error: HTTP 503"}}), row("q2")]
    assert not is_finished(write_run(tmp_path / "f", judged), 2, DEFAULT)
    assert not is_finished(tmp_path / "missing", 2, DEFAULT)


def test_a_later_row_of_the_same_id_supersedes_the_failed_one(tmp_path):
    rows = [row("q1", "api_error"), row("q2"), row("q1")]
    assert is_finished(write_run(tmp_path / "a", rows, n=2), 2, DEFAULT)
    assert not is_finished(write_run(tmp_path / "b", list(reversed(rows)), n=2), 2, DEFAULT)


def test_failed_summary_calls_leave_the_run_unfinished(tmp_path):
    failed = {"index": {"summaries": {"failed": 2, "failures": [{"id": "s1", "error": "api_error: HTTP 404 ..."},
                                                                  {"id": "s2", "error": "timeout: no reply"}]}}}
    content = {"index": {"descriptions": {"failed": 1, "failures": [{"id": "u", "error": "corrupt_image: x"}]}}}
    assert enrichment_redo(failed, DEFAULT) == {"summaries": 2}
    assert enrichment_redo(content, DEFAULT) == {}
    assert not is_finished(write_run(tmp_path / "a", [row("q1")], run_info=failed), 1, DEFAULT)
    assert is_finished(write_run(tmp_path / "b", [row("q1")], run_info=content), 1, DEFAULT)
