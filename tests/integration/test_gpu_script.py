"""benchmarks/gpu_visual_retrieval.py, the prepared GPU check, run here on CPU with tiny random
models (``--device cpu``), so the script a device session runs is known to work end to end: its
real-model checks print their verdicts (the agreement with transformers' own scoring and the stored
index hold for any weights; the gold-page and bf16 checks need real ones), and the grid's table and
Pareto plot come out for the demo PDF and a ViDoRe set."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tiny_models import tiny_colpali, tiny_colqwen2, tiny_llava

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_gpu_script_runs_on_cpu_with_tiny_models(tmp_path):
    models = {"colpali": tiny_colpali(tmp_path / "colpali"), "colqwen2": tiny_colqwen2(tmp_path / "colqwen2"),
              "visrag": tiny_llava(tmp_path / "vlm")}
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gpu_visual_retrieval.py"), "--device", "cpu",
           "--colpali", str(models["colpali"]), "--colqwen2", str(models["colqwen2"]), "--visrag",
           str(models["visrag"]), "--visrag-interface", "processor",
           "--vidore", str(ROOT / "tests" / "fixtures" / "datasets" / "vidore" / "v3"), "--out", str(tmp_path / "out")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1"))
    out = done.stdout
    assert done.returncode in (0, 1), done.stderr[-3000:]            # 1: a check failed (random weights)
    for kind in ("colpali", "colqwen2"):
        assert f"[PASS] {kind} MaxSim = processor.score_retrieval" in out
    for kind in ("colpali", "colqwen2", "visrag"):
        assert f"[PASS] {kind} stored float16 index = brute force float32" in out
        assert f"] {kind} gold page ranked first" in out and f"] {kind} bf16 ranks as fp32" in out
    for dataset in ("demo_pdf", "vidore_v3"):
        for arm in ("none", "colpali", "colpali_pages", "colpali_pooled", "colqwen2", "visrag"):
            assert f"| {dataset} | {arm} |" in out
    assert (tmp_path / "out" / "demo_pdf" / "analysis" / "pareto_demo_pdf.png").exists()
    assert (tmp_path / "out" / "v3" / "analysis" / "pareto_vidore_v3.png").exists()
