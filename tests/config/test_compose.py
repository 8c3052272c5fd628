"""Every option of every group composes, passes its schema and range checks, and matches the
signature of the class it instantiates; bad values fail at compose time naming the key."""
import inspect
import shutil

import numpy as np
import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import get_class
from omegaconf import OmegaConf
from omegaconf.errors import ValidationError

from ham.conf import EXPERIMENTS_DIR, SITE_CONF_DIR, option_files, ConfigError, compose
from ham.run.job import configured_run_id as run_id

REQUIRED = {"custom": ["dataset.path=/data/c", "dataset.questions=/data/q.jsonl"],
            "mramg": ["dataset.path=/data/mramg"], "colqwen25": ["pages.encoder.model=/models/colqwen25"]}
OPTIONS = [(group, option) for group, option, _ in option_files()]
# keyword arguments a run passes when it instantiates a group (not config keys)
RUNTIME = {"retrieval": {"corpus", "indexes", "encoder"}, "method": {"descriptions", "encoder", "corpus_root"},
           "judge": {"cache_root"}}


def _compose(overrides, hydra=False):
    return compose(list(overrides), return_hydra_config=hydra)


@pytest.mark.parametrize("group,option", OPTIONS, ids=[f"{g}={o}" for g, o in OPTIONS])
def test_every_option_composes_resolves_and_is_checked(group, option):
    cfg = _compose([f"{group}={option}"] + REQUIRED.get(option, []))
    OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    assert run_id(cfg)


def _targets(node, path=""):
    """(dotted path, node) of every mapping with a non-null _target_ under ``node``."""
    if OmegaConf.is_dict(node):
        if node.get("_target_"):
            yield path, node
        for key in node:
            if key != "hydra":
                yield from _targets(node[key], f"{path}.{key}" if path else str(key))


@pytest.mark.parametrize("group,option", [o for o in OPTIONS if o[0] not in ("experiment", "grid", "cell")],
                         ids=[f"{g}={o}" for g, o in OPTIONS if g not in ("experiment", "grid", "cell")])
def test_option_keys_match_the_signature_of_the_class_they_instantiate(group, option):
    cfg = _compose([f"{group}={option}"] + REQUIRED.get(option, []))
    for path, node in _targets(cfg[group], group):
        cls = get_class(node._target_)
        params = inspect.signature(cls.__init__).parameters
        keys = {k for k in node if not str(k).startswith("_")}
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        unknown = keys - set(params)
        assert takes_any or not unknown, f"{path}: {cls.__name__} takes no {sorted(unknown)}"
        required = {n for n, p in params.items() if n != "self" and p.default is p.empty
                    and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        missing = required - keys - RUNTIME.get(path, set())
        assert not missing, f"{path}: {cls.__name__} needs {sorted(missing)} and the option does not set it"


def test_bad_values_fail_at_compose_time_naming_the_key():
    with pytest.raises(ConfigError, match="Could not find 'text_repr/xt'") as exc:
        _compose(["text_repr=xt"])
    assert isinstance(exc.value.__cause__, ConfigCompositionException)
    with pytest.raises(ConfigError, match=r"retrieval\.k_t=abc: Value 'abc' of type 'str' could not be converted to "
                                          r"Integer full_key: retrieval\.k_t") as exc:
        _compose(["retrieval.k_t=abc"])
    assert isinstance(exc.value.__cause__.__cause__, ValidationError)
    with pytest.raises(ConfigError, match="Key 'k_tt' not in 'Retriever'"):
        _compose(["retrieval.k_tt=5"])
    with pytest.raises(ConfigError, match=r"retrieval\.k_t=-1: must be >= 0"):
        _compose(["retrieval.k_t=-1"])
    with pytest.raises(ConfigError, match=r"retrieval\.fusion\.dense_weight=1\.5: must be <= 1"):
        _compose(["retrieval.fusion.dense_weight=1.5"])
    with pytest.raises(ConfigError, match="retrieval.ranker.order=sideways: must be one of score, source"):
        _compose(["retrieval=structural", "retrieval.ranker.order=sideways"])


def test_keys_only_some_options_have_exist_for_all():
    cfg = _compose([])
    assert cfg.dataset.sample is None and cfg.dataset.subset is None and cfg.dataset.descriptions
    assert _compose(["dataset=custom", "dataset.path=/x", "dataset.sample=5"]).dataset.sample == 5


def test_experiments_and_grids_are_groups_selected_without_plus():
    cfg = _compose(["experiment=demo_structural"])
    assert cfg.name == "demo_structural" and cfg.retrieval.ranker._target_.endswith("SectionRanker")
    assert _compose(["grid=demo"], hydra=True).hydra.sweeper.params.text_repr == "ct,st"


def test_retrieval_variants_inherit_budgets_and_choose_fusion_by_target():
    cfg = _compose(["retrieval=dense", "retrieval.k_v=3"])
    assert cfg.retrieval.fusion._target_.endswith("DenseOnly") and cfg.retrieval.k_t == 15 and cfg.retrieval.k_v == 3


@pytest.mark.parametrize("launcher", sorted(p.stem for p in (SITE_CONF_DIR / "hydra" / "launcher").glob("*.yaml")))
def test_launchers_compose_with_site_values_from_the_environment(launcher, monkeypatch):
    monkeypatch.setenv("HAM_SLURM_PARTITION", "gpu-a100")
    monkeypatch.setenv("HAM_SLURM_MEM_GB", "96")
    cfg = _compose([f"hydra/launcher={launcher}"], hydra=True)
    node = OmegaConf.to_container(cfg.hydra.launcher, resolve=False)
    assert node["_target_"].startswith("hydra_plugins.hydra_submitit_launcher")
    if launcher.startswith("slurm"):
        assert cfg.hydra.launcher.partition == "gpu-a100" and cfg.hydra.launcher.mem_gb == 96
        assert cfg.hydra.launcher.additional_parameters.requeue is True


GRIDS = sorted(f.stem for f in (EXPERIMENTS_DIR / "grid").glob("*.yaml"))


@pytest.mark.parametrize("grid", GRIDS)
def test_grid_files_name_their_launch_command_and_every_swept_value_composes(grid):
    text = (EXPERIMENTS_DIR / "grid" / f"{grid}.yaml").read_text()
    assert text.startswith("# @package _global_") and f"grid={grid}" in text.split("\n\n")[0]
    cfg = _compose([f"grid={grid}"], hydra=True)
    assert cfg.hydra.runtime.choices.grid == grid
    params = cfg.hydra.sweeper.params
    assert params, f"grid {grid} sweeps nothing"
    for axis, values in params.items():
        for value in str(values).split(","):
            one = _compose([f"grid={grid}", f"{axis}={value}"])
            OmegaConf.to_container(one, resolve=True)
            assert run_id(one)


# the files that reproduce a paper's pipeline: its unit cut, its k_t = 15 units, no reranker
PAPER_PIPELINES = [("grid", "ablation"), ("grid", "main_text"), ("grid", "main_mllm"), ("grid", "budget"),
                   ("grid", "topology"), ("grid", "topograph_table2"), ("grid", "structure_vs_pixels"),
                   ("experiment", "wukong_ham_gpt4o"), ("experiment", "demo_topology")]


@pytest.mark.parametrize("group,option", PAPER_PIPELINES, ids=[f"{g}={o}" for g, o in PAPER_PIPELINES])
def test_paper_pipelines_pin_their_retrieval_instead_of_taking_the_defaults(group, option):
    """The defaults (a character budget, a reranker) are ham's; a paper's grid must not inherit them."""
    defaults = _compose([], hydra=True).hydra.runtime.choices
    assert defaults.reranker != "none" and defaults.retrieval == "budget"   # otherwise this test checks nothing
    choices = _compose([f"{group}={option}"], hydra=True).hydra.runtime.choices
    assert choices.reranker == "none" and choices.retrieval == "hybrid", (choices.reranker, choices.retrieval)


HAM_RAG_PAPER = [("grid", "ablation"), ("grid", "main_text"), ("grid", "main_mllm"), ("experiment", "wukong_ham_gpt4o")]


@pytest.mark.parametrize("group,option", HAM_RAG_PAPER, ids=[f"{g}={o}" for g, o in HAM_RAG_PAPER])
def test_the_ham_rag_paper_pipelines_embed_describe_and_score_as_the_paper_does(group, option):
    # 5.1.2: BGE-M3 for every method; 3.2: SI holds a context-aware VLM description; 5.1.3: BERTScore
    # (roberta-large, its default layer) and an LLM judge. The defaults (MiniLM, a descriptions file
    # most datasets lack, MiniLM BERTScore, no judge) had run under the paper's table names
    choices = _compose([f"{group}={option}"], hydra=True).hydra.runtime.choices
    assert (choices.encoder, choices.describer, choices.metrics, choices.judge) == \
        ("bge_m3", "openai", "roberta_large", "openai")


@pytest.mark.parametrize("grid,method", [("main_text", "llm_based"), ("main_text", "rule_based"),
                                         ("main_mllm", "mllm_based")])
def test_the_paper_grids_baselines_retrieve_over_flat_evidence_and_ham_over_its_hierarchy(grid, method):
    # the paper's baselines "encode evidence in a flat manner" (Table 4's shared baseline); with HAM's
    # ct/si they had retrieved exactly what HAM retrieves, so the grid compared prompts only
    base = [f"grid={grid}", "dataset=wukong", "generator=gpt4o"]
    baseline = _compose([*base, f"method={method}"], hydra=True).hydra.runtime.choices
    assert (baseline.text_repr, baseline.image_repr) == ("flat_text", "flat_image")
    ham = _compose([*base, "method=ham"], hydra=True).hydra.runtime.choices
    assert (ham.text_repr, ham.image_repr) == ("ct", "si")
    chosen = _compose([*base, f"method={method}", "text_repr=ct"], hydra=True).hydra.runtime.choices
    assert chosen.text_repr == "ct", "the command line still chooses"


@pytest.mark.parametrize("pipeline", ["grid=topology", "grid=topograph_table2", "experiment=demo_topology"])
def test_a_topology_pipeline_on_another_dataset_takes_that_datasets_questions(pipeline):
    # they had set the demo's topology questions globally: dataset=topograph kept them (and the name)
    own = _compose([pipeline])
    assert own.dataset.questions.endswith("demo/topology_questions.jsonl") and own.name == "demo_topology"
    other = _compose([pipeline, "dataset=topograph"])
    assert other.dataset.questions.endswith("annotations/benchmark.json") and other.name == "topograph"


def test_dataset_sample_is_a_fixed_subset(tmp_path):
    import json

    from ham.run.build import load_dataset_questions

    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps({"id": f"q{i}", "question": f"question {i}"}) + "\n" for i in range(50)))
    overrides = ["dataset=custom", f"dataset.path={tmp_path}", f"dataset.questions={qfile}",
                 "dataset.sample=10", "dataset.sample_seed=36"]
    first, _ = load_dataset_questions(_compose(overrides))
    again, _ = load_dataset_questions(_compose(overrides))
    other, _ = load_dataset_questions(_compose(overrides[:-1] + ["dataset.sample_seed=7"]))
    assert len(first) == 10 and [q.id for q in first] == [q.id for q in again]
    assert [q.id for q in first] != [q.id for q in other]
    assert [q.id for q in first] == sorted((q.id for q in first), key=lambda x: int(x[1:]))  # file order kept


def test_a_run_without_a_questions_file_says_how_to_ask_one_question(tmp_path):
    from ham.run.build import load_dataset_questions

    with pytest.raises(ValueError, match="no questions file.*ham-ask"):
        load_dataset_questions(_compose(["dataset=custom", f"dataset.path={tmp_path}"]))


def test_copying_the_demo_corpus_elsewhere_keeps_the_run_id(tmp_path):
    from ham.conf import DATA_DIR  # noqa: F401  (the demo's shipped location)

    demo = _compose([])
    here, there = tmp_path / "a", tmp_path / "b"
    for target in (here, there):
        shutil.copytree(OmegaConf.to_container(demo, resolve=True)["dataset"]["path"], target / "corpus")
    ids = {run_id(_compose(["dataset=custom", f"dataset.path={d / 'corpus'}",
                            f"dataset.questions={demo.dataset.questions}"])) for d in (here, there)}
    assert len(ids) == 1
    (there / "corpus" / "extra.md").write_text("# A new document\n\nSome text.\n")
    assert run_id(_compose(["dataset=custom", f"dataset.path={there / 'corpus'}",
                            f"dataset.questions={demo.dataset.questions}"])) not in ids


def test_the_default_fusion_is_0_7_dense_plus_0_3_sparse_for_every_fused_retrieval():
    from hydra.utils import instantiate

    for option in ("hybrid", "diverse", "mmr", "structural"):
        fusion = instantiate(_compose([f"retrieval={option}"]).retrieval.fusion)
        # one candidate best on the dense side, one best on the sparse side: each min-max scaled to 1
        assert fusion(np.array([[0.9, 0.1], [2.0, 7.0]], dtype=np.float32)).tolist() == \
            pytest.approx([0.7, 0.3]), option


def _procedure_doc():
    from ham.ingest.builder import Block, TreeBuilder

    b = TreeBuilder("p", "P", "p.md", "markdown")
    b.add(Block("heading", "1. Filter", level=1))
    b.add(Block("text", "The filter sits behind the front cover."))
    b.add(Block("image", image="img/f.png", image_path="img/f.png", alt="filter"))
    b.add(Block("text", "Figure 1. The filter behind the front cover."))
    b.add(Block("heading", "2. Replace the filter", level=1))
    b.add(Block("step", "Switch off the pump."))
    b.add(Block("step", "Undo the screws."))
    b.add(Block("end_steps"))
    return b.finish()


@pytest.mark.parametrize("units", ["blocks", "merged", "sections"])
def test_units_as_configured_keep_captions_on_images_and_merge_text_only_steps(units):
    from hydra.utils import instantiate

    built = instantiate(_compose([f"units={units}"]).units).build([_procedure_doc()])
    texts = [u.content for u in built if u.modality == "text"]
    image = next(u for u in built if u.kind == "image")
    assert image.caption == "Figure 1. The filter behind the front cover."
    assert not any("Figure 1." in t for t in texts), "the caption does not take a text slot (units.captions=image)"
    if units != "blocks":
        assert "Step 1. Switch off the pump.\nStep 2. Undo the screws." in texts, "units.steps=merge"


def test_ham_cfg_job_refuses_a_value_out_of_range(monkeypatch, capsys):
    """``ham --cfg job`` prints the config without running a job: the overrides are checked first."""
    import sys

    from ham.cli.main import cli

    monkeypatch.setattr(sys, "argv", ["ham", "--cfg", "job", "retrieval.k_t=-1"])
    with pytest.raises(SystemExit) as exc:
        cli()
    assert exc.value.code == 2 and "ham: retrieval.k_t=-1: must be >= 0" in capsys.readouterr().err
