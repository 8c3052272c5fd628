"""benchmarks/bench_topology_retrieval.py scores each configuration against its own questions, with
gold evidence resolved to that configuration's units (stub pipelines, no index)."""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_topology_retrieval as topology  # noqa: E402
from ham.datasets.questions import Evidence, Question  # noqa: E402


def question(qid: str, unit: str) -> Question:
    return Question(id=qid, question=f"what does {qid} ask?", topology="single_hop",
                    evidence=[Evidence(modality="text", text="the gold passage", units=[unit])])


def prepared(name: str, questions: list[Question], retrieved: str) -> dict:
    row = {"unit_id": retrieved, "text": "the gold passage", "score": 1.0}
    hits = SimpleNamespace(text=[SimpleNamespace(to_row=lambda: dict(row))], images=[])
    pipeline = SimpleNamespace(retriever=SimpleNamespace(retrieve=lambda query: hits))
    return {"name": name, "questions": questions, "pipeline": pipeline, "rows": {}, "seconds": defaultdict(list)}


def test_each_config_is_scored_against_the_gold_resolved_to_its_own_units():
    # the same question: its gold unit is b7 among blocks and m2 among merged units; both configs find it
    blocks = prepared("hybrid", [question("q1", "b7")], retrieved="b7")
    merged = prepared("merged", [question("q1", "m2")], retrieved="m2")
    topology.run_all([blocks, merged], repeats=1)
    assert blocks["rows"]["q1"]["metrics"]["gold_unit_recall"] == 1.0
    assert merged["rows"]["q1"]["metrics"]["gold_unit_recall"] == 1.0
    assert merged["rows"]["q1"]["gold"] == [["m2"]]


def test_configs_with_other_questions_are_refused():
    with pytest.raises(ValueError):
        topology.run_all([prepared("hybrid", [question("q1", "b7")], "b7"),
                          prepared("merged", [question("q2", "m2")], "m2")], repeats=1)
