"""Every option file in conf/ composes; unknown options fail at compose time with Hydra's error."""
import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from ham.paths import PROJECT_ROOT
from ham.run.pipeline import run_id

CONF = PROJECT_ROOT / "conf"
REQUIRED = {"custom": ["dataset.path=/data/c", "dataset.questions=/data/q.jsonl"],
            "mramg": ["dataset.path=/data/mramg"]}
GROUPS = sorted(p.name for p in CONF.iterdir() if p.is_dir() and p.name not in ("local", "hydra"))
ADDED = {"experiment", "grid"}   # not in the defaults list: selected with +group=option
OPTIONS = [(g, f.stem) for g in GROUPS for f in sorted((CONF / g).glob("*.yaml"))]


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


@pytest.mark.parametrize("group,option", OPTIONS, ids=[f"{g}={o}" for g, o in OPTIONS])
def test_every_option_composes_and_resolves(group, option):
    prefix = "+" if group in ADDED else ""
    cfg = _compose([f"{prefix}{group}={option}"] + REQUIRED.get(option, []))
    OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    assert run_id(cfg)


def test_all_groups_covered():
    assert {"dataset", "text_repr", "image_repr", "encoder", "index", "retrieval", "method",
            "generator", "metrics"} <= set(GROUPS)


def test_unknown_option_fails_at_compose_time():
    with pytest.raises(ConfigCompositionException, match="Could not find 'text_repr/xt'"):
        _compose(["text_repr=xt"])


def test_run_id_ignores_paths_and_changes_with_results():
    base = run_id(_compose([]))
    assert run_id(_compose(["paths.output_root=/elsewhere", "progress=false"])) == base
    assert run_id(_compose(["retrieval.k_t=5"])) != base
    assert run_id(_compose(["image_repr=li"])) != base


def test_retrieval_variants_inherit_budgets():
    cfg = _compose(["retrieval=dense"])
    assert cfg.retrieval.mode == "dense" and cfg.retrieval.k_t == 15 and cfg.retrieval.k_v == 10


@pytest.mark.parametrize("launcher", sorted(p.stem for p in (CONF / "hydra" / "launcher").glob("*.yaml")))
def test_launchers_compose_with_site_values_from_the_environment(launcher, monkeypatch):
    monkeypatch.setenv("HAM_SLURM_PARTITION", "gpu-a100")
    monkeypatch.setenv("HAM_SLURM_MEM_GB", "96")
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"hydra/launcher={launcher}"], return_hydra_config=True)
    node = OmegaConf.to_container(cfg.hydra.launcher, resolve=False)
    assert node["_target_"].startswith("hydra_plugins.hydra_submitit_launcher")
    if launcher.startswith("slurm"):
        assert cfg.hydra.launcher.partition == "gpu-a100" and cfg.hydra.launcher.mem_gb == 96
        assert cfg.hydra.launcher.additional_parameters.requeue is True


GRIDS = sorted(f.stem for f in (CONF / "grid").glob("*.yaml"))


@pytest.mark.parametrize("grid", GRIDS)
def test_grid_files_name_their_launch_command_and_every_swept_value_composes(grid):
    text = (CONF / "grid" / f"{grid}.yaml").read_text()
    assert text.startswith("# @package _global_") and f"+grid={grid}" in text.split("\n\n")[0]
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"+grid={grid}"], return_hydra_config=True)
    assert cfg.grid == grid
    params = cfg.hydra.sweeper.params
    assert params, f"grid {grid} sweeps nothing"
    for axis, values in params.items():
        for value in str(values).split(","):
            one = _compose([f"+grid={grid}", f"{axis}={value}"])
            OmegaConf.to_container(one, resolve=True)
            assert run_id(one)


def test_dataset_sample_is_a_fixed_subset(tmp_path):
    import json

    from ham.run.pipeline import load_dataset_questions

    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps({"id": f"q{i}", "question": f"question {i}"}) + "\n" for i in range(50)))
    overrides = ["dataset=custom", f"dataset.path={tmp_path}", f"dataset.questions={qfile}",
                 "+dataset.sample=10", "+dataset.sample_seed=36"]
    first, _ = load_dataset_questions(_compose(overrides))
    again, _ = load_dataset_questions(_compose(overrides))
    other, _ = load_dataset_questions(_compose(overrides[:-1] + ["+dataset.sample_seed=7"]))
    assert len(first) == 10 and [q.id for q in first] == [q.id for q in again]
    assert [q.id for q in first] != [q.id for q in other]
    assert [q.id for q in first] == sorted((q.id for q in first), key=lambda x: int(x[1:]))  # file order kept
