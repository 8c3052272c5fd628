"""Every experiment file runs end to end on a few questions (slow), as lightning-hydra-template
runs each of its experiments: what an experiment needs from outside (a dataset under HAM_DATA, an
API server and key, a model folder) is replaced by a test double of the same shape (the MRAMG
fixture laid out as the subset, the loopback chat server, a tiny BGE-M3 built here)."""
import json
import shutil

import pytest
from omegaconf import OmegaConf

from ham.conf import EXPERIMENTS_DIR, compose
from ham.paths import PROJECT_ROOT
from ham.run.job import run
from tests.support.chat_server import ChatServer
from tests.support.tiny_models import tiny_bge_m3

pytestmark = pytest.mark.slow
EXPERIMENTS = sorted(p.stem for p in (EXPERIMENTS_DIR / "experiment").glob("*.yaml"))
MRAMG = PROJECT_ROOT / "tests" / "fixtures" / "ingest" / "mramg"


def hambench(root, subset: str):
    """The recipe fixture laid out as HAM-Bench subset ``subset`` under ``root/hambench``."""
    out = root / "hambench"
    if not out.exists():
        shutil.copytree(MRAMG, out)
    sub_upper = subset.upper()
    for name, new in (("doc_recipe.jsonl", f"doc_{subset}.jsonl"), ("recipe_mqa.jsonl", f"{subset}_mqa.jsonl")):
        if not (out / new).exists():
            shutil.copy(out / name, out / new)
    info = out / "IMAGE" / "images_info"
    if not (info / f"{subset}_imgs_collection.json").exists():
        shutil.copy(info / "recipe_imgs_collection.json", info / f"{subset}_imgs_collection.json")
    if not (out / "IMAGE" / "images" / sub_upper).exists():
        shutil.copytree(out / "IMAGE" / "images" / "RECIPE", out / "IMAGE" / "images" / sub_upper)
    return out


def _needs(cfg) -> dict:
    """What the composed experiment asks of the outside world."""
    plain = OmegaConf.to_container(cfg, resolve=False)
    return {"dataset": plain["dataset"].get("subset"), "openai": "openai_chat" in plain["generator"]["_target_"],
            "bge_m3": plain["encoder"]["_target_"].endswith("BGEM3Encoder"),
            "describer": (plain.get("describer") or {}).get("_target_", "").endswith("ChatDescriber"),
            "roberta": plain["metrics"]["bertscore"]["model"] == "roberta-large"}


@pytest.mark.parametrize("judge", ["none", "openai"])
@pytest.mark.parametrize("generator", ["as_configured", "extractive", "openai"])
@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_every_experiment_runs_on_a_few_questions(experiment, generator, judge, tmp_path, monkeypatch):
    """Every experiment file x {its own generator, extractive, openai on a loopback server} x
    {no judge, an openai judge on a loopback server answering every prompt in its format}."""
    from tests.support.topology_judge import ScriptedJudge

    base = [f"experiment={experiment}", "limit=2", "progress=false", f"paths.output_root={tmp_path / 'out'}",
            f"paths.cache_root={tmp_path / 'cache'}"]
    if generator != "as_configured":
        base.append(f"generator={generator}")
    needs = _needs(compose(base, return_hydra_config=False))
    overrides = list(base)
    if needs["dataset"] and needs["dataset"] != "recipe":
        hambench(tmp_path, needs["dataset"])
        monkeypatch.setenv("HAM_DATA", str(tmp_path))
    if needs["bge_m3"]:
        overrides.append(f"encoder.model={tiny_bge_m3(tmp_path / 'bge_m3')}")
    if needs["roberta"]:   # roberta-large's weights: the bundled MiniLM stands in
        overrides += ["metrics.bertscore.model=minilm", "metrics.bertscore.num_layers=6"]
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    script = ScriptedJudge()
    with ChatServer(responder=lambda body: "Cook it until golden. <img1>") as server, \
            ChatServer(responder=script) as judge_server:
        if needs["openai"]:
            overrides += [f"generator.client.base_url={server.base_url}"]
            if generator == "openai":
                overrides.append("generator.client.model=m")
        if needs["describer"]:   # a VLM describer (the paper's SI): the loopback server answers it too
            overrides += [f"describer.client.base_url={server.base_url}"]
        if judge == "openai":
            overrides += ["judge=openai", f"judge.client.base_url={judge_server.base_url}", "judge.client.model=j"]
        else:
            overrides.append("judge=none")   # an experiment's own judge (the paper's) left out
        out = run(compose(overrides))
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_questions"] == 2 and metrics["n_failures"] == 0, metrics["failures"]
    assert (out / "predictions.jsonl").read_text().count("\n") == 2
    if needs["openai"] and not needs["describer"]:
        assert len(server.requests) == 2
    judged = {n: m for n, m in metrics["metrics"].items() if "failure_reasons" in m}
    if judge == "openai":
        assert judged and all(m["computed"] and m["n_failed"] == 0 for m in judged.values()), judged
    else:
        assert all(not m["computed"] for n, m in metrics["metrics"].items()
                   if m.get("reason", "").startswith("not computed: no judge"))
