"""Run identity: every key of every option is classified on purpose; locations and non-semantic
keys never change the id; anything that changes results does."""
import shutil

import pytest
from omegaconf import OmegaConf

from ham.conf import option_files, compose
from ham.run.identity import classes, flatten, identity, model_identity, run_id, why_excluded

REQUIRED = {"custom": ["dataset.path=/data/c", "dataset.questions=/data/q.jsonl"],
            "mramg": ["dataset.path=/data/mramg"], "colqwen25": ["pages.encoder.model=/models/colqwen25"]}
OPTIONS = [(group, option) for group, option, _ in option_files()]


def _keys(cfg) -> set[str]:
    return set(flatten(OmegaConf.to_container(cfg, resolve=False)))


def test_every_key_of_every_option_is_a_declared_setting_with_one_class():
    """Classes come from the declarations (ham.settings); every key of every option has one, and
    an exclusion always says why."""
    for group, option in OPTIONS:
        cfg = compose([f"{group}={option}"] + REQUIRED.get(option, []), return_hydra_config=False)
        kinds = classes(cfg)
        assert set(kinds) >= _keys(cfg) - {"hydra"}, (group, option)
        assert set(kinds.values()) <= {"hash", "content", "model", "prompt", "exclude"}
        for key, kind in kinds.items():
            if kind == "exclude":
                assert why_excluded(key, cfg), f"{group}={option}: {key} is excluded without a reason"


def test_a_key_no_setting_declares_is_refused_at_compose_time():
    from ham.conf import ConfigError

    with pytest.raises(ConfigError, match="site: not a setting of Root"):
        compose(["+site.flavour=a"], return_hydra_config=False)
    with pytest.raises(ConfigError, match="generator.fooo: not a setting of ham.generate.extractive"):
        compose(["+generator.fooo=1"], return_hydra_config=False)


def _id(*overrides):
    return run_id(compose(list(overrides), return_hydra_config=False))


def test_locations_and_non_semantic_keys_keep_the_id():
    assert _id("paths.output_root=/elsewhere", "progress=false", "name=renamed") == _id()
    # generator=hf interpolates paths.cache_root into generator.cache_root: not hashed
    # the device is not in the id; the precision it would pick is (a precision set explicitly here)
    assert _id("generator=hf", "paths.output_root=/elsewhere", "generator.batch_size=2", "generator.device=cuda",
               "generator.dtype=float32") == _id("generator=hf", "generator.dtype=float32")
    assert _id("summariser=openai", "summariser.batch_size=7", "summariser.client.concurrency=2") == _id("summariser=openai")
    assert _id("describer=openai", "describer.client.max_retries=1", "describer.client.timeout=5") == _id("describer=openai")
    assert _id("judge=openai", "judge.client.api_key_env=MY_KEY", "judge.client.base_url=http://h/v1") == \
        _id("judge=openai")


@pytest.mark.parametrize("change", [
    ["generator=hf", "generator.model=/models/A"], ["summariser=openai"], ["describer=none"], ["index=hnsw"],
    ["metrics.names=[ir,image_f1]"], ["retrieval.k_t=5"], ["image_repr=li"], ["judge=openai"],
    ["judge=openai", "judge.client.model=other"], ["generator=openai", "generator.client.stream=true"], ["limit=3"],
    ["retrieval.budget=2000"], ["retrieval.budget_unit=tokens"], ["retrieval.assembly.parent_chars=100"],
    ["retrieval.assembly.merge_ratio=0.9"], ["retrieval.assembly.image_weight=0"],
    ["retrieval.assembly.parent_depth=1"], ["retrieval.assembly.ref_chars=200"], ["retrieval=hybrid"], ["retrieval.assembly.last=skip"]])
def test_what_changes_results_changes_the_id(change):
    base = _id("generator=hf", "generator.model=/models/B") if change[0] == "generator=hf" else _id()
    assert _id(*change) != base


def test_moving_the_data_folder_or_a_model_folder_keeps_the_id(tmp_path):
    demo = OmegaConf.to_container(compose([], return_hydra_config=False), resolve=True)["dataset"]
    ids = set()
    for where in ("one", "two/deeper"):
        corpus = tmp_path / where / "corpus"
        shutil.copytree(demo["path"], corpus)
        questions = tmp_path / where / "q.jsonl"
        shutil.copy(demo["questions"], questions)
        ids.add(_id("dataset=custom", f"dataset.path={corpus}", f"dataset.questions={questions}"))
    assert len(ids) == 1
    for where in ("m1", "m2"):
        (tmp_path / where / "tiny-model").mkdir(parents=True)
        (tmp_path / where / "tiny-model" / "config.json").write_text("{}")
    assert model_identity(str(tmp_path / "m1" / "tiny-model")) == model_identity(str(tmp_path / "m2" / "tiny-model"))
    assert model_identity("Qwen/Qwen2.5-7B-Instruct") == "Qwen/Qwen2.5-7B-Instruct"


def test_hidden_folders_are_not_part_of_the_corpus_but_every_visible_file_is(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nThe pump.\n")
    before = _id("dataset=custom", f"dataset.path={corpus}", "dataset.questions=/data/q.jsonl")
    # what ingest writes beside the documents (extracted images, MMDocIR crops) is not the corpus
    (corpus / ".ham" / "images").mkdir(parents=True)
    (corpus / ".ham" / "images" / "0f3a.png").write_bytes(b"\x89PNG not really")
    (corpus / "sub" / ".cache").mkdir(parents=True)
    (corpus / "sub" / ".cache" / "x.json").write_text("{}")
    assert _id("dataset=custom", f"dataset.path={corpus}", "dataset.questions=/data/q.jsonl") == before
    (corpus / "sub" / "b.md").write_text("# B\n")
    assert _id("dataset=custom", f"dataset.path={corpus}", "dataset.questions=/data/q.jsonl") != before


def test_identity_records_content_hashes_not_paths():
    record = identity(compose([], return_hydra_config=False))
    assert "dataset.path" in record and "/" not in record["dataset.path"] and "paths.output_root" not in record


def test_a_prompt_file_enters_the_id_by_its_content_not_its_path(tmp_path):
    # judge prompts, method templates and ham-topo prompts may be paths: an edited file is another
    # run (its judgments or answers differ), a moved one is the same
    from importlib import resources

    shipped = resources.files("ham.methods.prompts").joinpath("ham_v2.txt").read_text()
    for where in ("a", "b"):
        (tmp_path / where).mkdir()
        (tmp_path / where / "mine_v1.txt").write_text(shipped)
    ids = {_id(f"method.template={tmp_path / w / 'mine_v1.txt'}") for w in ("a", "b")}
    assert len(ids) == 1
    (tmp_path / "a" / "mine_v1.txt").write_text(shipped + "\nAnswer in one sentence.\n")
    assert _id(f"method.template={tmp_path / 'a' / 'mine_v1.txt'}") not in ids
    assert _id("method.template=ham_v1") != _id("method.template=ham_v2")     # shipped: by name
    judge = tmp_path / "a" / "tcr_v9.txt"
    judge.write_text("one")
    before = _id("judge=openai", f"judge.prompts.tcr15={judge}")
    judge.write_text("two")
    assert _id("judge=openai", f"judge.prompts.tcr15={judge}") != before


def test_a_precision_left_to_the_device_enters_the_id_as_what_it_resolves_to(tmp_path):
    # dtype null is bfloat16 on a GPU and float32 on the CPU: one config, two kinds of numbers
    model = ["generator=hf", "generator.model=/models/B"]
    on_cpu, on_gpu = _id(*model, "generator.device=cpu"), _id(*model, "generator.device=cuda")
    assert on_cpu != on_gpu
    assert on_cpu == _id(*model, "generator.device=cpu", "generator.dtype=float32")
    assert on_gpu == _id(*model, "generator.device=cuda", "generator.dtype=bfloat16")
    assert _id("reranker=bge", "reranker.device=cpu") != _id("reranker=bge", "reranker.device=cuda")


def test_a_bertscore_layer_left_null_is_the_models_own_default_and_enters_the_id_as_such():
    from ham.metrics.bertscore import default_layer

    # only the model named: roberta-large is scored at bert-score's layer 17, not the MiniLM's 6
    assert default_layer("roberta-large") == 17 and default_layer("minilm") == 6
    roberta = _id("metrics.bertscore.model=roberta-large")
    assert roberta == _id("metrics=roberta_large") != _id("metrics.bertscore.model=roberta-large",
                                                           "metrics.bertscore.num_layers=6")
    assert _id() == _id("metrics.bertscore.num_layers=6"), "the default's id is the explicit layer's"


def test_fp16_vectors_and_scores_have_cache_keys_of_their_own(tmp_path):
    from ham.index.encoders import BGE_M3_HEADS, BGEM3Encoder
    from ham.retrieve.rerank import BGEReranker

    folder = tmp_path / "bge-m3"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 8, "vocab_size": 16}')
    for head in BGE_M3_HEADS:
        (folder / head).write_bytes(b"head")
    ids = {BGEM3Encoder(str(folder), device="cpu", use_fp16=f).model_id for f in (False, True)}
    assert len(ids) == 2
    keys = [BGEReranker(str(folder), device="cpu", use_fp16=f).score_key() for f in (False, True)]
    assert keys[0] != keys[1]
