"""The demo pipeline end to end on a few questions, resume after a kill, and failures kept."""
import json
from dataclasses import replace

import pytest

from ham.generate.base import Generation, Generator
from ham.conf import compose
from ham.run.job import run
from ham.run.build import build_pipeline

N = 4


def _cfg(tmp_path, *overrides):
    return compose([
        f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
        f"limit={N}", "progress=false", *overrides])


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("demo")
    out = run(_cfg(tmp))
    return tmp, out


def test_outputs_have_the_documented_shape(demo_run):
    _, out = demo_run
    rows = _lines(out / "predictions.jsonl")
    assert len(rows) == N and len({r["id"] for r in rows}) == N
    for r in rows:
        assert {"id", "question", "retrieved_text", "retrieved_images", "prompt", "raw_answer", "answer",
                "failure", "metrics"} <= set(r)
        # the default budget: the text assembled within 4,000 characters, each passage's length counted
        shown = "\n".join(t["text"] for t in r["retrieved_text"])
        assert 0 < len(shown) <= 4000 and r["prompt_length"]["retrieved_chars"] == len(shown)
        assert len(r["retrieved_text"]) <= 50 and len(r["retrieved_images"]) == 10
        assert {"unit_id", "source", "heading_path", "text", "score"} <= set(r["retrieved_text"][0])
        assert {"unit_id", "source", "image", "heading_path", "caption", "score"} <= set(r["retrieved_images"][0])
        assert r["retrieved_text"][0]["heading_path"], "units keep their heading path"
        assert r["failure"] is None and r["answer"]
        assert {"ir", "image_f1", "img_cbs"} <= set(r["metrics"])
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_questions"] == N
    assert 0.0 <= metrics["metrics"]["image_f1"]["mean"] <= 1.0
    assert metrics["bertscore_hash"]
    assert (out / "config.yaml").exists() and json.loads((out / "run.json").read_text())["corpus_hash"]


def test_finished_run_is_not_run_again(demo_run, capsys):
    tmp, out = demo_run
    before = {p.name: p.read_text() for p in out.iterdir() if p.is_file()}
    assert run(_cfg(tmp)) == out
    assert {p.name: p.read_text() for p in out.iterdir() if p.is_file()} == before
    assert "already finished" in capsys.readouterr().err


def test_rerun_answers_every_question_again_keeping_the_old_file_and_reusing_the_index(demo_run):
    tmp, out = demo_run
    before = _lines(out / "predictions.jsonl")
    again = run(_cfg(tmp, "rerun=true"))
    assert again == out
    kept = [p for p in out.glob("predictions.*.jsonl")]
    assert len(kept) == 1 and _lines(kept[0]) == before, "the previous predictions are kept aside"
    after = _lines(out / "predictions.jsonl")
    assert [r["id"] for r in after] == [r["id"] for r in before]
    assert [r["metrics"] for r in after] == [r["metrics"] for r in before], "answered again, the same way"
    info = json.loads((out / "metrics.json").read_text())["index"]
    assert info["text"]["reused"] and info["image"]["reused"]
    kept[0].unlink()


def test_killed_run_resumes_without_loss_or_duplicates(demo_run):
    tmp, out = demo_run
    pred = out / "predictions.jsonl"
    full = _lines(pred)
    first = pred.read_text().splitlines()[0]
    pred.write_text(first + "\n" + '{"id": "torn", "quest')   # killed mid-write, before metrics.json
    (out / "metrics.json").unlink()
    run(_cfg(tmp))
    rows = _lines(pred)
    assert [r["id"] for r in rows] == [r["id"] for r in full]
    assert [r["metrics"] for r in rows] == [r["metrics"] for r in full]
    assert [r["raw_answer"] for r in rows] == [r["raw_answer"] for r in full]


def test_text_only_variant_changes_the_run_id(demo_run):
    tmp, out = demo_run
    other = run(_cfg(tmp, "text_repr=st", "image_repr=li"))
    assert other != out and other.parent == out.parent
    info = json.loads((other / "metrics.json").read_text())["index"]
    assert not info["text"]["reused"] and not info["image"]["reused"]


class _CitesMissingImage(Generator):
    """A generator is anything with the Generator interface: here the base class gives it."""

    model_id = "fake"

    def generate(self, prompt):
        return Generation(text="The answer is here. <img99>", model=self.model_id)


def test_failures_are_recorded_and_score_zero(demo_run):
    tmp, _ = demo_run
    # a component is swapped by passing it: the pipeline is built from the config, then changed
    out = run(_cfg(tmp, "name=failing"), build=lambda cfg: replace(build_pipeline(cfg), generator=_CitesMissingImage()))
    rows = _lines(out / "predictions.jsonl")
    assert all(r["failure"]["reason"] == "cites_unknown_image" for r in rows)
    assert all(r["metrics"]["image_f1"] == 0.0 for r in rows)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["failures"] == {"cites_unknown_image": N}
    assert metrics["metrics"]["image_f1"]["n"] == N and metrics["metrics"]["image_f1"]["mean"] == 0.0

