"""Appendix A's cost table (analysis/systems_cost.py) on hand-made run folders: a system run's
index and query records divided per document indexed and per question, failures by reason from
the index and the questions summed, a ham cell beside it; no table without a system run."""
import json

from ham_analysis.collect import collect
from ham_analysis.systems_cost import cost_table
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run

GOLD = {"topology": "bridge_chain", "evidence": [{"modality": "text", "doc": "a.html", "units": ["u"]}],
        "hops": [{"modality": "text", "evidence": 0}]}


def _system_record() -> dict:
    groups = {"a.html": {"ok": True, "documents": ["a.html"], "seconds": 30.0},
              "b.html": {"ok": True, "documents": ["b.html"], "seconds": 10.0},
              "c.html": {"ok": False, "documents": ["c.html"], "seconds": 5.0, "reason": "api_error"}}
    return {"system": {"name": "lightrag", "groups": groups,
                       "index": {"llm_calls": 40, "prompt_tokens": 9000, "completion_tokens": 1000, "nodes": 30,
                                 "edges": 20, "communities": None, "failure_reasons": {"api_error": 1}},
                       "query": {"per_question": {"llm_calls": 2.0, "prompt_tokens": 800.0, "completion_tokens": 50.0,
                                                  "seconds": 1.5}, "failures": {"api_error": 2, "no_context": 1}}},
            "context_mapping": {"mapped_share": 0.4}}


def test_cost_per_document_and_per_question_with_failures_summed(tmp_path):
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "topo"
    rows = [prediction(q, {"gold_unit_recall": 1.0}, answer=[{"type": "text", "text": "x"}], gold=GOLD)
            for q in ("q1", "q2")]
    system = write_run(grid / "lightrag", config("topo", root, overrides=("retrieval=graph",)), rows)
    metrics = json.loads((system / "metrics.json").read_text())
    (system / "metrics.json").write_text(json.dumps({**metrics, "index": _system_record()}))
    write_run(grid / "ham", config("topo", root, overrides=("retrieval=hybrid",)), rows)
    table = cost_table(collect([grid]))
    by_label = {labels[0]: (labels, values) for labels, values in table.rows}
    labels, row = next(v for k, v in by_label.items() if "graph" in k)
    assert labels[1] == "2"                                    # documents indexed (c.html failed)
    assert row["index_llm_calls"] == 20.0 and row["index_tokens"] == 5000.0 and row["index_seconds"] == 20.0
    assert row["nodes"] == 15.0 and row["edges"] == 10.0 and row["communities"] is None
    assert row["query_llm_calls"] == 2.0 and row["query_tokens"] == 850.0 and row["mapped"] == 0.4
    assert labels[2] == "api_error: 3, no_context: 1"          # the index's failure and the questions', summed
    ham_labels, ham_row = next(v for k, v in by_label.items() if "hybrid" in k)
    assert ham_labels[1] == "—" and ham_row["nodes"] is None


def test_no_cost_table_without_a_system_run(tmp_path):
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "topo"
    rows = [prediction("q1", {"gold_unit_recall": 1.0}, answer=[{"type": "text", "text": "x"}], gold=GOLD)]
    write_run(grid / "ham", config("topo", root), rows)
    assert cost_table(collect([grid])) is None


def test_rows_of_two_datasets_are_told_apart_by_a_dataset_column(tmp_path):
    # the audit's s2: the same variants on two datasets made rows that read alike
    grid = tmp_path / "runs"
    for ds in ("tA", "tB"):
        root = make_corpus(tmp_path / ds)
        with (root / "questions.jsonl").open("a") as f:   # two datasets, two contents: two run ids
            f.write(json.dumps({"id": "x", "question": ds}) + "\n")
        rows = [prediction(q, {"gold_unit_recall": 1.0}, answer=[{"type": "text", "text": "x"}], gold=GOLD)
                for q in ("q1", "q2")]
        system = write_run(grid / ds / "lightrag", config(ds, root, overrides=("retrieval=graph",)), rows)
        metrics = json.loads((system / "metrics.json").read_text())
        (system / "metrics.json").write_text(json.dumps({**metrics, "index": _system_record()}))
        write_run(grid / ds / "ham", config(ds, root, overrides=("retrieval=hybrid",)), rows)
    table = cost_table(collect([grid]))
    assert table.row_header[0] == "dataset"
    heads = [tuple(labels[:2]) for labels, _ in table.rows]
    assert len(set(heads)) == 4 and {h[0] for h in heads} == {"tA", "tB"}, heads
