"""Whole runs through the pipeline (slow): a second run that changes only the generator, the method
or the budget reuses every embedding and index; structural retrieval and BGE-M3 (a tiny one built
here) run end to end."""
import json

import pytest

from ham.conf import compose
from ham.paths import PROJECT_ROOT
from ham.run.job import run
from tests.support.tiny_models import tiny_bge_m3

pytestmark = pytest.mark.slow
CORPUS = PROJECT_ROOT / "tests" / "fixtures" / "ingest" / "markdown"


def _cfg(tmp_path, *overrides):
    return compose([
        f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
        "limit=3", "progress=false", *overrides])


def _metrics(out):
    return json.loads((out / "metrics.json").read_text())


def test_demo_second_run_with_another_budget_and_retrieval_reuses_every_index(tmp_path):
    first = _metrics(run(_cfg(tmp_path)))
    assert not first["index"]["text"]["reused"] and first["si_fallback_images"] == 0
    second = _metrics(run(_cfg(tmp_path, "retrieval=structural", "retrieval.k_t=5", "generator.max_sentences=2")))
    assert second["run_id"] != first["run_id"]
    for modality in ("text", "image"):
        assert second["index"][modality]["reused"] and second["index"][modality]["embeddings_reused"]
        assert second["index"][modality]["key"] == first["index"][modality]["key"]
    assert second["index"]["seconds"]["index"] < first["index"]["seconds"]["index"]
    rows = [json.loads(x) for x in (tmp_path / "out" / "runs" / "demo" / second["run_id"] / "predictions.jsonl")
            .read_text().splitlines()]
    assert all(len(r["retrieved_text"]) == 5 for r in rows)


def test_bge_m3_hybrid_with_lexical_weights_end_to_end(tmp_path):
    folder = tiny_bge_m3(tmp_path / "bge")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "How do I log in to the router?"}) + "\n")
    out = run(_cfg(tmp_path, "dataset=custom", f"dataset.path={CORPUS}", f"dataset.questions={questions}",
                   "encoder=bge_m3", f"encoder.model={folder}", "encoder.max_length=100",
                   "encoder.query_max_length=100", "describer=none"))
    metrics = _metrics(out)
    assert metrics["index"]["text"]["sparse"] == "bge_m3_lexical"
    assert metrics["si_fallback_images"] == metrics["index"]["image"]["size"] > 0
    row = json.loads((out / "predictions.jsonl").read_text().splitlines()[0])
    assert row["retrieved_text"] and row["retrieved_images"]
