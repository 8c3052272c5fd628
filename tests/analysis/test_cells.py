"""ham-analyze neither merges nor drops a run: every identity difference, dataset.* included, is an
axis or a label; two runs in one cell are an error; paired tables pair only equal question sets."""
from __future__ import annotations

import json

import pytest
from PIL import Image

from ham_analysis.collect import CollectionError, collect, runs_table
from ham_analysis.tables import paired_table, table3
from ham_analysis.topology_paired import topology_paired
from tests.analysis.grid_fixture import GOLD, config, make_corpus, prediction, write_run


def _rows(ids, f1=1.0):
    return [prediction(i, {"image_f1": f1, "img_cbs": f1, "average_score": f1}, answer=[], gold=GOLD.get(i))
            for i in ids]


def test_two_custom_runs_over_different_corpora_are_two_rows(tmp_path):
    a, b = make_corpus(tmp_path / "a"), make_corpus(tmp_path / "b")
    Image.new("RGB", (10, 10), (1, 2, 3)).save(b / "corpus" / "guide" / "extra.png")   # b's corpus differs
    write_run(tmp_path / "runs" / "ra", config("manuals", a), _rows(["q1", "q2"], 1.0))
    write_run(tmp_path / "runs" / "rb", config("manuals", b), _rows(["q1", "q2"], 0.0))
    coll = collect([tmp_path / "runs"])
    labels = sorted(coll.label(r) for r in coll.runs)
    assert len(coll.runs) == 2 and len(set(labels)) == 2, labels
    assert all(label.startswith("path=corpus@") for label in labels)
    assert "dataset.path" in coll.varying_axes
    t3 = table3(coll)
    assert len(t3.rows) == 2   # both corpora are in Table 3, not one of them
    assert sorted(v["manuals:image_f1"] for _, v in t3.rows) == [0.0, 100.0]
    # the same questions over two corpora: a legitimate paired comparison
    _, records = paired_table(coll)
    assert records and all(r["n"] == 2 for r in records)


def test_runs_differing_only_in_sample_are_rows_and_are_not_paired(tmp_path):
    root = make_corpus(tmp_path)
    write_run(tmp_path / "runs" / "s2", config("demo", root, overrides=("dataset.sample=2",)), _rows(["q1", "q2"]))
    write_run(tmp_path / "runs" / "s3", config("demo", root, overrides=("dataset.sample=3",)),
              _rows(["q1", "q2", "q3"], 0.5))
    coll = collect([tmp_path / "runs"])
    assert sorted(coll.label(r) for r in coll.runs) == ["sample=2", "sample=3"]
    assert len(runs_table(coll)) == 2
    table, records = paired_table(coll)
    assert records == []
    refused = [p for p in coll.problems if "not paired" in p]
    assert refused and "different question sets: 3 vs 2 questions, 2 ids in common" in refused[0]
    assert any("not paired" in n for n in table.notes)


def test_same_ids_with_different_question_texts_are_not_paired(tmp_path):
    root = make_corpus(tmp_path)
    write_run(tmp_path / "runs" / "a", config("demo", root, text_repr="ct"), _rows(["q1", "q2"]))
    rows = _rows(["q1", "q2"], 0.0)
    rows[1]["question"] = "a different question under the same id"
    write_run(tmp_path / "runs" / "b", config("demo", root, text_repr="st"), rows)
    coll = collect([tmp_path / "runs"])
    _, records = paired_table(coll)
    assert records == [] and any("1 of them differ in text or gold (e.g. q2)" in p for p in coll.problems)


def test_gold_unit_ids_do_not_make_question_sets_differ(tmp_path):
    """units=blocks and units=sections map the same gold onto different unit ids: still the same questions."""
    root = make_corpus(tmp_path)
    for units, uid in (("blocks", "u1"), ("sections", "s9")):
        rows = _rows(["q1"])
        rows[0]["gold"] = {**GOLD["q1"], "evidence": [{"modality": "text", "text": "x", "units": [uid]}]}
        write_run(tmp_path / "runs" / units, config("demo", root, overrides=(f"units={units}",)), rows)
    coll = collect([tmp_path / "runs"])
    _, records = paired_table(coll)
    assert records and not any("not paired" in p for p in coll.problems)


def test_two_runs_in_one_cell_are_an_error_naming_both(tmp_path):
    root = make_corpus(tmp_path)
    cfg = config("demo", root)
    for name, rid in (("one", "aaaaaaaaaa"), ("two", "bbbbbbbbbb")):
        folder = write_run(tmp_path / "runs" / name, cfg, _rows(["q1"]))
        for file in ("run.json", "metrics.json"):   # same recorded identity, different run ids
            data = json.loads((folder / file).read_text())
            data["run_id"] = rid
            (folder / file).write_text(json.dumps(data))
    with pytest.raises(CollectionError, match="runs aaaaaaaaaa, bbbbbbbbbb land in one cell"):
        collect([tmp_path / "runs"])


def test_topology_paired_refuses_different_question_sets(tmp_path):
    root = make_corpus(tmp_path)
    topo = {"topology": "single_hop"}
    for name, ids in (("full", ["q1", "q2"]), ("part", ["q1"])):
        rows = [prediction(i, {"gold_unit_recall": 1.0}, answer=[], gold={**GOLD[i], **topo}) for i in ids]
        text_repr = "ct" if name == "full" else "st"
        write_run(tmp_path / "runs" / name, config("demo", root, text_repr=text_repr), rows)
    coll = collect([tmp_path / "runs"])
    table, records = topology_paired(coll)
    assert records == [] and any("topology paired table" in p and "not paired" in p for p in coll.problems)


def test_runs_read_under_different_ingest_versions_are_reported_not_dropped(tmp_path):
    root = make_corpus(tmp_path)
    a = write_run(tmp_path / "runs" / "s2", config("demo", root, overrides=("dataset.sample=2",)), _rows(["q1", "q2"]))
    b = write_run(tmp_path / "runs" / "s3", config("demo", root, overrides=("dataset.sample=3",)),
                  _rows(["q1", "q2", "q3"], 0.5))
    assert not any("ingest versions" in p for p in collect([tmp_path / "runs"]).problems)   # both unrecorded
    for folder, version in ((a, "27"), (b, "32")):
        info = json.loads((folder / "run.json").read_text())
        (folder / "run.json").write_text(json.dumps({**info, "ingest_version": version}))
    coll = collect([tmp_path / "runs"])
    assert len(coll.runs) == 2
    said = [p for p in coll.problems if "different ingest versions" in p]
    ids = {r.ingest_version: r.run_id for r in coll.runs}
    assert said and f"version 27: {ids['27']}" in said[0] and f"version 32: {ids['32']}" in said[0]


def test_runs_scored_under_an_older_version_of_the_metrics_are_named_not_dropped(tmp_path):
    # a metric's compute changed (e.g. gold-text recall on gold pages) without the run id changing
    root = make_corpus(tmp_path)
    new = write_run(tmp_path / "runs" / "new", config("demo", root, overrides=("dataset.sample=2",)), _rows(["q1", "q2"]))
    old = write_run(tmp_path / "runs" / "old", config("demo", root, overrides=("dataset.sample=3",)),
                    _rows(["q1", "q2", "q3"], 0.5))
    assert not any("older version of the metrics" in p for p in collect([tmp_path / "runs"]).problems)
    summary = json.loads((old / "metrics.json").read_text())
    del summary["metrics_version"]      # written before the version was recorded
    (old / "metrics.json").write_text(json.dumps(summary))
    coll = collect([tmp_path / "runs"])
    assert len(coll.runs) == 2
    said = [p for p in coll.problems if "older version of the metrics" in p]
    old_id = json.loads((old / "run.json").read_text())["run_id"]
    new_id = json.loads((new / "run.json").read_text())["run_id"]
    assert said and f"version 1: {old_id}" in said[0] and new_id not in said[0]
