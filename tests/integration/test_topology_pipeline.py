"""A topology run end to end on a tiny corpus, judged by a real loopback chat-completions server
with scripted replies (metrics=topology, judge=openai): gold evidence resolved to unit ids once
before scoring and recorded, every TopoGraphRAG-Bench metric computed with its n, rows
self-contained, ham-analyze printing the breakdowns. The demo itself is the slow test below."""
import json

import pytest
from PIL import Image

from ham.conf import compose
from ham.run.job import run
from ham_analysis.cli import main as analyze
from tests.support.chat_server import ChatServer
from tests.support.topology_judge import ScriptedJudge

MANUAL = """# Card Guide

## 1. Concepts

A credit card account is a short-term loan: you buy now and pay the money back later.

## 2. Files

The example opens the data file gcashdata_3 to start the tour.

![register](img/register.png)

Figure 1. The register of gcashdata_3 shows the checking account.

## 3. Values

Table 1. Remaining value

| Year | Value |
| --- | --- |
| 1 | 1200 |
| 2 | 900 |
"""
QUESTIONS = [
    {"id": "s1", "topology": "single_hop", "question": "Is a credit card account a loan?",
     "reference_answer": "Yes, a short-term loan.", "answer_short": "a short-term loan",
     "evidence": [{"modality": "text", "text": "A credit card account is a short-term loan", "doc": "guide.md"}]},
    {"id": "b1", "topology": "bridge_chain", "question": "Which account does the example's file show?",
     "reference_answer": "The example opens gcashdata_3, whose register shows the checking account.",
     "answer_short": "the checking account", "bridge_entities": ["gcashdata_3"],
     "evidence": [{"modality": "text", "text": "opens the data file gcashdata_3", "doc": "guide.md"},
                  {"modality": "image", "image": "img/register.png", "doc": "guide.md"}],
     "hops": [{"sub_question": "Which file does the example open?", "result": "gcashdata_3", "modality": "text",
               "evidence": 0},
              {"sub_question": "What does the register of gcashdata_3 show?", "result": "the checking account",
               "modality": "image", "evidence": 1}]},
    {"id": "y1", "topology": "synthesis", "question": "What is a card account and what is left after year 2?",
     "reference_answer": "A short-term loan; 900 is left after year 2.",
     "evidence": [{"modality": "text", "text": "is a short-term loan", "doc": "guide.md"},
                  {"modality": "table", "text": "2 | 900", "doc": "guide.md"}],
     "evidence_points": [{"fact": "A card account is a short-term loan", "data_points": ["short-term loan"],
                          "evidence": 0},
                         {"fact": "900 is left after year 2", "data_points": ["900"], "evidence": 1}],
     "meta": {"pattern_type": "aggregation"}},
    {"id": "x1", "topology": "single_hop", "question": "What colour is the sky?", "reference_answer": "Blue.",
     "evidence": [{"modality": "text", "text": "The sky is blue on clear days", "doc": "guide.md"}]},
]


def _corpus(tmp_path):
    root = tmp_path / "corpus"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (40, 30), (30, 90, 200)).save(root / "img" / "register.png")
    (root / "guide.md").write_text(MANUAL)
    questions = tmp_path / "topology.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return root, questions


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("topology")
    root, questions = _corpus(tmp)
    script = ScriptedJudge()
    with ChatServer(responder=script) as server:
        cfg = compose(["dataset=custom", "dataset.name=topo", f"dataset.path={root}", f"dataset.questions={questions}",
                       "metrics=topology", "judge=openai", "judge.client.model=scripted",
                       f"judge.client.base_url={server.base_url}", "judge.client.max_retries=0", "progress=false",
                       f"paths.output_root={tmp / 'out'}", f"paths.cache_root={tmp / 'cache'}"])
        out = run(cfg)
    return out, script


def test_gold_evidence_is_resolved_once_and_recorded(judged_run):
    out, _ = judged_run
    mapping = json.loads((out / "evidence_mapping.json").read_text())
    assert mapping["summary"]["items"] == 6 and mapping["summary"]["matched"] == 5
    assert mapping["summary"]["by_rule"] == {"image": 1, "passage": 4}
    unresolved = next(q for q in mapping["questions"] if q["question_id"] == "x1")["unresolved"]
    assert unresolved == [{"index": 0, "reason": "the passage is in no unit's content"}]
    assert json.loads((out / "run.json").read_text())["evidence_mapping"]["unresolved"] == 1
    rows = {r["id"]: r for r in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}
    assert all(item["units"] for item in rows["b1"]["gold"]["evidence"]), "rows carry the resolved unit ids"
    assert rows["b1"]["gold"]["evidence"][1]["units"][0] in {h["unit_id"] for h in rows["b1"]["retrieved_images"]}
    assert rows["x1"]["metrics"]["gold_unit_recall"] is None, "unresolved gold: undefined, not 0"
    table_rows = [h for r in rows.values() for h in r["retrieved_text"] if h["modality"] == "table"]
    assert table_rows and "2 | 900" in table_rows[0]["text"], "the table is retrieved as a labelled text unit"


def test_every_topology_metric_is_computed_with_its_n(judged_run):
    out, script = judged_run
    metrics = json.loads((out / "metrics.json").read_text())["metrics"]
    n = {name: entry["n"] for name, entry in metrics.items()}
    assert n == {"context_precision": 4, "context_precision_joint": 4, "context_recall": 4, "gold_unit_recall": 3,
                 "both_hops": 1, "ordered_chain": 1, "evidence_point_coverage": 1,
                 "entity_recall": 2, "entity_recall_tokens": 2,   # not the single-hop one: no items, as the benchmark
                 "answer_accuracy": 4, "faithfulness": 4, "response_relevancy": 4, "step_coverage": 2}
    assert all(entry["computed"] and entry["n_failed"] == 0 for entry in metrics.values())
    assert metrics["gold_unit_recall"]["mean"] == 1.0 and metrics["both_hops"]["mean"] == 1.0
    assert all(0.0 <= entry["mean"] <= 1.0 for entry in metrics.values())
    assert metrics["step_coverage"]["ci95"] is not None
    assert script.seen["step_coverage"] == 2, "asked for the bridge chain and the synthesis question only"


def test_ham_analyze_prints_the_breakdowns(judged_run, capsys):
    out, _ = judged_run
    assert analyze([str(out), "--out", str(out / "analysis"), "--resamples", "100"]) == 0
    printed = capsys.readouterr().out
    assert "**Retrieval and generation overall" in printed and "| ham+extractive | 4 |" in printed
    assert "bridge-chain: text→figure" in printed and "| aggregation |" in printed
    assert (out / "analysis" / "topology_topo.png").is_file()


@pytest.mark.slow
def test_demo_topology_experiment_offline(tmp_path, capsys):
    """``ham experiment=demo_topology``: the 39 demo questions without a judge; judged metrics not
    computed, structural ones computed; ham-analyze prints the breakdowns."""
    cfg = compose(["experiment=demo_topology", "progress=false", f"paths.output_root={tmp_path / 'out'}",
                   f"paths.cache_root={tmp_path / 'cache'}"])
    out = run(cfg)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_questions"] == 39
    mapping = json.loads((out / "evidence_mapping.json").read_text())["summary"]
    assert mapping["matched"] == mapping["items"] == 92
    entries = metrics["metrics"]
    for name in ("context_precision", "answer_accuracy", "step_coverage"):
        assert entries[name]["computed"] is False and "judge=none" in entries[name]["reason"]
    assert {name: entries[name]["n"] for name in ("gold_unit_recall", "both_hops", "ordered_chain",
                                                  "evidence_point_coverage")} == {
        "gold_unit_recall": 39, "both_hops": 13, "ordered_chain": 13, "evidence_point_coverage": 12}
    assert analyze([str(out.parent), "--resamples", "100"]) == 0
    printed = capsys.readouterr().out
    assert "| ham+extractive | single-hop | 14 |" in printed and "| comparison | 5 |" in printed
