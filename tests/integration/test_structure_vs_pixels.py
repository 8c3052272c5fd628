"""grid=structure_vs_pixels on the demo's PDF with a tiny random ColPali built here: ham's units
(ct+si), ColPali's pages alone (exact and pooled) and both fused; every run finishes, pages are
mapped to evidence units, and the analysis writes the table (95% CIs beside bytes and latency) and
the Pareto plot. The slow test runs the same grid through ``ham -m`` and resumes it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ham.conf import compose
from ham.run.job import run
from tests.support.tiny_models import tiny_colpali

ARMS = ("none", "colpali_pages", "colpali_pooled", "colpali")


@pytest.fixture(scope="module")
def grid_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("svp")
    model = tiny_colpali(root / "colpali")
    folders = {}
    for arm in ARMS:
        overrides = ["grid=structure_vs_pixels", f"pages={arm}", f"paths.output_root={root / 'out'}", "progress=false"]
        if arm != "none":
            overrides.append(f"pages.encoder.model={model}")
        folders[arm] = run(compose(overrides))
    return root, folders


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]


def test_every_arm_answers_every_question_with_its_own_evidence(grid_runs):
    _, folders = grid_runs
    assert len({f.name for f in folders.values()}) == 4                      # four run ids
    for arm, folder in folders.items():
        rows = _rows(folder)
        assert len(rows) == 8
        # the extractive generator reads text: page images alone give it nothing to quote
        expected = "empty" if arm in ("colpali_pages", "colpali_pooled") else None
        assert [(r["failure"] or {}).get("reason") for r in rows] == [expected] * 8
        metrics = json.loads((folder / "metrics.json").read_text())["metrics"]
        assert metrics["ndcg_5"]["n"] == 8 and metrics["page_recall_1"]["n"] == 8
        assert metrics["page_evidence_recall"]["n"] == 8                       # every gold passage resolved
        pages = [r.get("retrieved_pages", []) for r in rows]
        if arm == "none":
            assert not any(pages) and all(r["retrieved_text"] for r in rows)
        else:
            assert all(len(p) == 2 for p in pages)                             # k_p = 5 over a 2-page PDF
            assert all(not r["retrieved_text"] for r in rows) == (arm != "colpali")
            assert all(r["prompt"]["page_filter"]["pages"] == [p["page_id"] for p in ps] for r, ps in zip(rows, pages))
    info = {arm: json.loads((f / "run.json").read_text())["index"] for arm, f in folders.items()}
    assert info["colpali_pooled"]["page_index"]["bytes"] < info["colpali_pages"]["page_index"]["bytes"]
    assert info["none"]["index_bytes"]["total"] > 0 and "page_index" not in info["none"]


def test_page_hits_map_onto_the_units_printed_on_them(grid_runs):
    _, folders = grid_runs
    for row in _rows(folders["colpali_pages"]):
        units = {u for page in row["retrieved_pages"] for u in page["units"]}
        gold = [u for e in row["gold"]["evidence"] for u in e["units"]]
        assert set(gold) <= units                                         # both pages retrieved: every gold unit
        assert row["metrics"]["gold_unit_recall"] in (0.0, None)          # no unit rows in the pixels arm
        assert row["metrics"]["page_evidence_recall"] in (1.0, None)


def test_the_analysis_puts_quality_beside_bytes_and_latency(grid_runs, tmp_path):
    from ham_analysis.cli import analyze

    root, _ = grid_runs
    written, problems = analyze([root / "out" / "runs" / "demo_pdf"], tmp_path, n_resamples=100)
    names = {p.name for p in written}
    assert {"structure_vs_pixels.md", "structure_vs_pixels.tex", "pareto_demo_pdf.png", "pareto_demo_pdf.pdf"} <= names
    table = (tmp_path / "structure_vs_pixels.md").read_text()
    for arm in ARMS:
        assert f"| demo_pdf | {arm} |" in table
    assert "nDCG@5" in table and "bytes/page" in table and "p50 ms" in table and " ± " in table


@pytest.mark.slow
def test_the_grid_through_ham_multirun_and_its_resume(tmp_path):
    model = tiny_colpali(tmp_path / "colpali")
    ham = Path(sys.executable).parent / "ham"
    cmd = [str(ham), "-m", "grid=structure_vs_pixels", f"paths.output_root={tmp_path / 'out'}", "progress=false"]
    env = dict(os.environ, HAM_COLPALI_MODEL=str(model))
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(list((tmp_path / "out" / "grids" / "structure_vs_pixels" / "runs").glob("*.json"))) == 4
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, env=env)
    assert (again.stdout + again.stderr).count("already finished") == 4
