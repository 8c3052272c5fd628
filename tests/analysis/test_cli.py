"""`ham-analyze` regenerates every table and figure of a grid into one folder and prints the paths;
figures are PNG and PDF and not blank."""
import json
import shutil

import pytest
from PIL import Image

from ham_analysis.cli import main
from ham_analysis.collect import collect
from ham.report.figure import qual_computed
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run

ANSWER = [{"type": "text", "text": "Open it."}, {"type": "image", "image": "figures/red.png"}]


@pytest.fixture
def ablation_grid(tmp_path):
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "wukong"
    for (image_repr, text_repr), f1 in {("si", "ct"): [1.0, 0.5, 1.0], ("si", "st"): [1.0, 0.5, 0.5],
                                        ("li", "ct"): [0.5, 0.0, 0.5], ("li", "st"): [0.0, 0.0, 0.5]}.items():
        rows = [prediction(f"q{i + 1}", {"image_f1": v, "img_cbs": v * 0.8, "ir": 1.0}, answer=ANSWER)
                for i, v in enumerate(f1)]
        write_run(grid / f"{image_repr}{text_repr}", config("wukong", root, image_repr=image_repr,
                                                          text_repr=text_repr), rows)
    (grid / "killed").mkdir()
    (grid / "killed" / "config.yaml").write_text("dataset: {name: wukong}")
    (grid / "killed" / "run.json").write_text("{}")
    return grid


def test_one_command_writes_every_table_and_figure(ablation_grid, capsys):
    out = ablation_grid / "analysis"
    assert main([str(ablation_grid), "--resamples", "300"]) == 0
    printed = capsys.readouterr()
    names = {"runs.csv", "questions.csv", "table3.md", "table3.tex", "table4.md", "table4.tex",
             "robustness_cost.md", "robustness_cost.tex", "ci.md", "ci.tex", "ci.csv", "paired.md", "paired.tex",
             "paired.csv", "figure3_wukong.png", "figure3_wukong.pdf", "report.html", "problems.txt",
             "analysis.json"}
    assert {p.name for p in out.iterdir()} == names
    assert json.loads((out / "analysis.json").read_text())["resamples"] == 300
    for name in names:
        assert f"  {out / name}\n" in printed.out
    assert "killed/metrics.json: missing (unfinished run?)" in printed.err
    assert "killed" in (out / "problems.txt").read_text()
    assert (out / "figure3_wukong.pdf").read_bytes().startswith(b"%PDF")
    png = Image.open(out / "figure3_wukong.png").convert("RGB")
    assert len(png.getcolors(maxcolors=1 << 20)) > 10, "not a blank image"
    paired = (out / "paired.md").read_text()
    assert paired.count("| wukong |") == 9, "3 variants x 3 metrics against the reference"
    assert "| ct+si | 3 |" in paired and "| ct | si | **83.33** | **66.67** | – | **75.00†** |" in (out / "table3.md").read_text()
    # a second run over the same grid ignores its own analysis folder
    assert main([str(ablation_grid), "--resamples", "300", "--out", str(out)]) == 0


def test_a_new_analysis_removes_what_the_last_one_wrote_and_nothing_else(tmp_path):
    # the audit's s7: d2's runs were analysed, then removed; figure3_d2 stayed and looked current
    grid = tmp_path / "runs"
    for ds in ("d1", "d2"):
        for image_repr in ("si", "li"):
            write_run(grid / ds / image_repr, config(ds, image_repr=image_repr),
                      [prediction(f"q{i}", {"image_f1": 0.5, "img_cbs": 0.5}) for i in range(3)])
    out = tmp_path / "analysis"
    assert main([str(grid), "--out", str(out), "--resamples", "100"]) == 0
    assert (out / "figure3_d2.png").is_file()
    (out / "notes.md").write_text("mine")                 # not ham's: stays
    shutil.rmtree(grid / "d2")
    assert main([str(grid), "--out", str(out), "--resamples", "100"]) == 0
    assert not (out / "figure3_d2.png").exists() and not (out / "figure3_d2.pdf").exists()
    assert (out / "figure3_d1.png").is_file() and (out / "notes.md").read_text() == "mine"
    listed = json.loads((out / "analysis.json").read_text())["files"]
    assert "figure3_d1.png" in listed and "notes.md" not in listed and "figure3_d2.png" not in listed


def test_an_analysis_json_without_a_file_list_clears_only_ham_named_outputs(tmp_path):
    # an analysis folder an earlier ham wrote (no "files" in its analysis.json), as in the audit's s7
    grid = tmp_path / "runs"
    write_run(grid / "si", config("d1", image_repr="si"), [prediction("q1", {"image_f1": 0.5})])
    out = tmp_path / "analysis"
    out.mkdir()
    (out / "analysis.json").write_text(json.dumps({"paths": [str(grid)], "seed": 0, "resamples": 100,
                                                   "reference": None, "runs": ["x"]}))
    for name in ("figure3_d2.png", "table2.md", "topology_path.tex", "mramg.md", "keep.txt", "paper.tex"):
        (out / name).write_text("old")
    assert main([str(grid), "--out", str(out), "--resamples", "100"]) == 0
    assert {p.name for p in out.iterdir()} >= {"keep.txt", "paper.tex"}
    assert not any((out / n).exists() for n in ("figure3_d2.png", "table2.md", "topology_path.tex", "mramg.md"))


def test_qual_not_computed_is_detected_for_the_average_score_panel(ablation_grid):
    coll = collect([ablation_grid])
    assert not any(qual_computed(r.metrics) for r in coll.runs)


def test_no_usable_run_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 1
    assert "no usable run" in capsys.readouterr().err
    assert main([str(tmp_path / "nowhere")]) == 1
