"""Numbers a table sets side by side must be comparable: Average Scores over other parts are not
paired and their bars are marked one by one; runs under another ingest or metrics version are
marked, never bold and never paired; bold is per dataset; M Avg.s lacking different parts are not
compared; a table's marks are LaTeX commands in its .tex."""
from __future__ import annotations

import json

import pytest

from ham.metrics.registry import METRICS_VERSION
from ham_analysis.cli import main
from ham_analysis.collect import collect
from ham_analysis.pixels import pixels_table
from ham_analysis import plots
from ham_analysis.table_format import to_latex, to_markdown
from ham_analysis.tables import paired_table, robustness_cost, table3, table4
from ham_analysis.topology import table2
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run
from tests.analysis.test_topology import GOLD


def _judged_and_unjudged(root):
    """The audit's s6: the judged run is better on every shared part, but its Qual. of 1/5 drags its
    Average Score below the unjudged run's mean of Img-F1 and Img-CBS."""
    write_run(root / "si", config("demo", image_repr="si"),
              [prediction(f"q{i}", {"image_f1": 0.6 + 0.01 * i, "img_cbs": 0.6, "overall_quality": 1})
               for i in range(6)], judge=True)
    write_run(root / "li", config("demo", image_repr="li"),
              [prediction(f"q{i}", {"image_f1": 0.5 + 0.01 * i, "img_cbs": 0.5}) for i in range(6)])
    return collect([root])


def test_average_scores_over_different_parts_are_not_paired(tmp_path):
    coll = _judged_and_unjudged(tmp_path)
    table, records = paired_table(coll, n_resamples=200)
    assert {r["metric"] for r in records} == {"image_f1", "img_cbs"}
    assert all(r["b"] == "si" for r in records), "the reference is chosen among runs with the usual parts"
    note = "demo: li vs si not paired on Average Score: li averages Img-F1, Img-CBS, si Img-F1, Img-CBS, Qual./5"
    assert note in table.notes and f"paired table: {note}" in coll.problems
    # named explicitly the unjudged run is the reference, and still no Average Score pair
    _, records = paired_table(coll, reference="li", n_resamples=200)
    assert records and all(r["b"] == "li" and r["metric"] != "average_score" for r in records)


def test_the_default_reference_is_among_the_runs_with_the_parts_most_runs_have(tmp_path):
    # two unjudged runs and one judged: the judged one's Average Score (0.9) is not compared with theirs
    for repr_, v in (("si", 0.4), ("li", 0.3)):
        write_run(tmp_path / repr_, config("demo", image_repr=repr_),
                  [prediction(f"q{i}", {"image_f1": v + 0.01 * i, "img_cbs": v}) for i in range(4)])
    write_run(tmp_path / "judged", config("demo", image_repr="flat_image"),
              [prediction(f"q{i}", {"image_f1": 0.9, "img_cbs": 0.9, "overall_quality": 4.5}) for i in range(4)],
              judge=True)
    _, records = paired_table(collect([tmp_path]), n_resamples=200)
    assert {r["b"] for r in records} == {"si"}


def test_figure3_marks_each_bar_whose_average_lacks_a_part(tmp_path, monkeypatch):
    coll = _judged_and_unjudged(tmp_path)
    drawn = []
    monkeypatch.setattr(plots, "save", lambda fig, stem: drawn.append(fig) or [])
    plots.ablation_figure(coll.runs, [coll.label(r) for r in coll.runs], tmp_path / "figure3_demo", "demo")
    fig = drawn[0]
    panel = fig.axes[2]
    ticks = {t.get_text().split("\n")[0] for t in panel.get_xticklabels()}
    assert ticks == {"li†", "si"}, ticks
    assert "Qual. not computed" not in panel.get_title()
    assert "without Qual./5: li" in panel.get_xlabel()
    assert {t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()} == {"li", "si"}


def _with_version(folder, ingest=None, metrics=None):
    if ingest is not None:
        info = json.loads((folder / "run.json").read_text())
        (folder / "run.json").write_text(json.dumps({**info, "ingest_version": ingest}))
    if metrics is not None:
        summary = json.loads((folder / "metrics.json").read_text())
        (folder / "metrics.json").write_text(json.dumps({**summary, "metrics_version": metrics}))


def _version_grid(root, **old):
    """The audit's s3/s9: d1 and d2, two variants each; li on d1 is under another version."""
    folders = {}
    for ds in ("d1", "d2"):
        for repr_, v in (("si", 0.4), ("li", 0.7)):
            folders[ds, repr_] = write_run(root / ds / repr_, config(ds, image_repr=repr_),
                                           [prediction(f"q{i}", {"image_f1": v + 0.01 * i, "img_cbs": v, "ir": v})
                                            for i in range(4)])
            _with_version(folders[ds, repr_], ingest="81")
    _with_version(folders["d1", "li"], **old)
    return folders


@pytest.mark.parametrize("old, mark, words", [({"ingest": "80"}, "¶", "ingest version 80, not 81"),
                                              ({"metrics": "1"}, "‖", f"metrics version 1, not {METRICS_VERSION}")])
def test_a_run_under_another_version_is_marked_never_bold_and_never_paired(tmp_path, old, mark, words):
    _version_grid(tmp_path, **old)
    coll = collect([tmp_path])
    md = to_markdown(table3(coll))
    li = next(line for line in md.splitlines() if line.startswith("| li |"))
    si = next(line for line in md.splitlines() if line.startswith("| si |"))
    assert f"70.00{mark}" in li and "**" not in li.split("|")[2], li        # d1 Img-F1: marked, not bold
    assert "| 40.00 |" in si, "alone on the reference version in d1: nothing to be bold against"
    assert "**71.50**" in li, "d2's li is on the reference version and still the best there"
    assert f"{mark} " in md and words in md and "li on d1" in md
    assert mark in to_markdown(table4(coll)) and mark in to_markdown(robustness_cost(coll))
    _, records = paired_table(coll, n_resamples=200)
    assert {r["dataset"] for r in records} == {"d2"}
    assert any("d1: si vs li not paired: different" in p for p in coll.problems)


def test_version_problems_print_as_warnings_and_stay_in_problems_txt(tmp_path, capsys):
    _version_grid(tmp_path / "runs", ingest="80")
    assert main([str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--resamples", "100"]) == 0
    err = capsys.readouterr().err
    assert "warning: runs read their corpora under different ingest versions" in err
    assert "skipped:" not in err
    assert "different ingest versions (version 80:" in (tmp_path / "out" / "problems.txt").read_text()


def test_robustness_bolds_the_fewest_failures_per_dataset(tmp_path):
    fail = {"reason": "timeout", "detail": "x"}
    for ds, n_failed in (("d1", {"si": 0, "li": 1}), ("d2", {"si": 3, "li": 2})):
        for repr_, k in n_failed.items():
            write_run(tmp_path / ds / repr_, config(ds, image_repr=repr_),
                      [prediction(f"q{i}", {"image_f1": 0.5}, failure=fail if i < k else None) for i in range(4)])
    md = to_markdown(robustness_cost(collect([tmp_path])))
    assert "| si | d1 | 4 | **0** |" in md and "| li | d2 | 4 | **2** |" in md
    assert "| li | d1 | 4 | 1 |" in md and "| si | d2 | 4 | 3 |" in md


def test_topology_table2_bolds_per_dataset(tmp_path):
    # the audit's s2: tB's best (0.32) is below tA's worst; it is still tB's best
    for ds, scores in (("tA", {"hybrid": 0.9, "structural": 0.8}), ("tB", {"hybrid": 0.3, "structural": 0.2})):
        root = make_corpus(tmp_path / ds)
        with (root / "questions.jsonl").open("a") as f:   # the two datasets' contents differ, as their run ids
            f.write(json.dumps({"id": "x", "question": ds}) + "\n")
        for retrieval, base in scores.items():
            rows = [prediction(q, {"gold_unit_recall": base + 0.01 * i}, answer=[{"type": "text", "text": "x"}],
                               gold=GOLD[q]) for i, q in enumerate(GOLD)]
            write_run(tmp_path / "runs" / ds / retrieval, config(ds, root, overrides=(f"retrieval={retrieval}",)), rows)
    means, _ = table2(collect([tmp_path / "runs"]))
    md = to_markdown(means)
    assert "| tA | hybrid | 5 | **0.920** |" in md and "| tB | hybrid | 5 | **0.320** |" in md
    assert "| tB | structural | 5 | 0.220 |" in md


def test_structure_vs_pixels_bolds_bytes_and_latency_per_dataset(tmp_path):
    for ds, sizes in (("big", {"si": 9000, "li": 8000}), ("small", {"si": 200, "li": 300})):
        for repr_, size in sizes.items():
            rows = [{**prediction(f"q{i}", {"ndcg_5": 0.5}), "retrieval_seconds": {"retrieve": size / 1e5}}
                    for i in range(3)]
            folder = write_run(tmp_path / ds / repr_, config(ds, image_repr=repr_), rows)
            summary = json.loads((folder / "metrics.json").read_text())
            summary["index"] = {"index_bytes": {"total": size, "pages_of_units": 2}}
            (folder / "metrics.json").write_text(json.dumps(summary))
    md = to_markdown(pixels_table(collect([tmp_path])))
    assert "**8000**" in md and "**200**" in md and "**9000**" not in md and "**300**" not in md
    assert "**80.0**" in md and "**2.0**" in md     # p50 latency, ms


def test_m_avgs_lacking_different_parts_are_not_bold_against_each_other(tmp_path):
    # the audit's s8: si lacks Qual. (no judge), li lacks Img-CBS (undefined on every question)
    write_run(tmp_path / "si", config("demo", image_repr="si"),
              [prediction(f"q{i}", {"image_f1": 0.5, "img_cbs": 0.5}) for i in range(4)])
    write_run(tmp_path / "li", config("demo", image_repr="li"),
              [prediction(f"q{i}", {"image_f1": 0.3, "img_cbs": None, "overall_quality": 5}) for i in range(4)],
              judge=True)
    md = to_markdown(table3(collect([tmp_path])))
    assert "65.00†" in md and "**65.00†**" not in md and "**50.00†**" not in md
    assert "without Img-CBS on demo: li" in md and "without Qual. (needs a judge) on demo: si" in md
    # two rows lacking the same part are still compared
    write_run(tmp_path / "ci", config("demo", image_repr="flat_image"),
              [prediction(f"q{i}", {"image_f1": 0.7, "img_cbs": 0.7}) for i in range(4)])
    md = to_markdown(table3(collect([tmp_path])))
    assert "**70.00†**" in md and "without Qual. (needs a judge) on demo: flat_image, si" in md


def test_every_mark_is_a_latex_command_in_the_tex(tmp_path):
    from ham_analysis.table_format import Column, Table

    _version_grid(tmp_path, ingest="80", metrics="1")
    marked = to_latex(table3(collect([tmp_path])))
    assert r"\P{}$\|$" in marked and "¶" not in marked and "‖" not in marked
    # the topology tables' captions, marks and notes: ‡ (judge failures), § (RR scales), →, ·, —
    table = Table("t", "mean ± 1.96·SE — text→figure", ["variant"], [Column("x", "x")])
    table.rows.append((["a"], {"x": 1.0, "x:mark": "‡§"}))
    table.notes.append("‡ judge failures; § RR on other scales")
    tex = to_latex(table)
    assert not any(raw in tex for raw in ("‡", "§", "→", "·", "—")), tex
    assert r"1.00\ddag{}\S{}" in tex and r"text$\rightarrow$figure" in tex and r"1.96$\cdot$SE" in tex


def test_datasets_each_on_one_version_mark_nothing(tmp_path):
    # d1's runs were all read under ingest 81, d2's all under 82: each dataset compares its own runs,
    # so neither is marked, and each keeps its bold
    folders = _version_grid(tmp_path, ingest="81")
    for repr_ in ("si", "li"):
        _with_version(folders["d2", repr_], ingest="82")
    coll = collect([tmp_path])
    md = to_markdown(table3(coll))
    assert "¶" not in md
    li = next(line for line in md.splitlines() if line.startswith("| li |"))
    assert li.count("**") >= 4, "li is the best on both datasets and bold on each"
    _, records = paired_table(coll, n_resamples=200)
    assert {r["dataset"] for r in records} == {"d1", "d2"}
