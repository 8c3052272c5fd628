"""`ham-analyze` regenerates every table and figure of a grid into one folder and prints the paths;
figures are PNG and PDF and not blank."""
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
    import json
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


def test_qual_not_computed_is_detected_for_the_average_score_panel(ablation_grid):
    coll = collect([ablation_grid])
    assert not any(qual_computed(r.metrics) for r in coll.runs)


def test_no_usable_run_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 1
    assert "no usable run" in capsys.readouterr().err
    assert main([str(tmp_path / "nowhere")]) == 1
