"""predictions.jsonl as the runner writes and rereads it: each row is on disk as soon as its
question is done (so a kill loses nothing answered), and one malformed line in the middle of the
file is reported with its line number, skipped, answered again and dropped from the rewritten file."""
import json

from ham.datasets.questions import Question
from ham.generate.base import Generation, Generator
from ham.methods.llm_based import LlmBasedMethod
from ham.metrics.evaluator import FunctionEvaluator
from ham.run.pipeline import Pipeline
from ham.run.predictions import read
from ham.run.runner import answer_all
from tests.support.evidence import evidence


class FixedRetriever:
    def __init__(self, retrieved):
        self.retrieved = retrieved

    def retrieve(self, question):
        return self.retrieved


class Recording(Generator):
    """A model-free generator that notes, at every call, what predictions.jsonl holds on disk."""

    model_id = "recording"
    cacheable = False

    def __init__(self, pred):
        self.pred, self.seen, self.asked = pred, [], []

    def generate(self, prompt):
        self.seen.append(self.pred.read_bytes() if self.pred.exists() else b"")
        self.asked.append(prompt.question)
        return Generation(text="Install the pump on the base.", model=self.model_id)


def _questions(n):
    return [Question(f"q{i}", f"question {i}") for i in range(n)]


def _answer(pred, gen, manual_doc, n):
    pipeline = Pipeline(FixedRetriever(evidence(manual_doc)), LlmBasedMethod(), gen, FunctionEvaluator(lambda *a: {}))
    return answer_all(_questions(n), pred, pipeline, progress=False)


def test_each_row_is_on_disk_before_the_next_question_is_answered(tmp_path, manual_doc):
    pred = tmp_path / "predictions.jsonl"
    gen = Recording(pred)
    _answer(pred, gen, manual_doc, 3)
    # what a kill during question k+1 would leave: exactly the k rows answered, each a whole line
    for k, data in enumerate(gen.seen):
        assert data.endswith(b"\n") or not data, f"question {k}: a row is only partly on disk"
        assert [json.loads(line)["id"] for line in data.splitlines()] == [f"q{i}" for i in range(k)]


def test_a_malformed_line_is_reported_skipped_and_its_question_answered_again(tmp_path, manual_doc):
    pred = tmp_path / "predictions.jsonl"
    _answer(pred, Recording(pred), manual_doc, 3)
    lines = pred.read_text().splitlines()
    pred.write_text(lines[0] + "\n" + '{"id": "q1", oops}\n' + lines[2] + "\n")
    found = read(pred)
    assert list(found.rows) == ["q0", "q2"] and not found.torn
    assert len(found.problems) == 1 and found.problems[0].startswith(f"{pred}:2: ")
    again = Recording(pred)
    rows = _answer(pred, again, manual_doc, 3)
    assert again.asked == ["question 1"], "only the question of the malformed line is answered again"
    assert [r["id"] for r in rows] == ["q0", "q1", "q2"]
    assert sorted(json.loads(x)["id"] for x in pred.read_text().splitlines()) == ["q0", "q1", "q2"], \
        "rewritten without the malformed line, one row per question"
    assert read(pred).problems == []
