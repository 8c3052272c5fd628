"""Identity classification verified, not spot-checked: every key that is hashed, varied over a legal
value, changes the run id; every key that is excluded, varied on a tiny run, leaves its results
unchanged, and every exclusion says why it cannot change them (``ham.run.identity.EXCLUDE``).
Moving a result-changing key into the exclusions (``units.max_chars``) fails here twice: it has no
reason, and a tiny run with it varied gives other results."""
from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from ham.conf import option_files, ConfigError, compose
from ham.run.identity import EXCLUDE, classes, flatten, run_id, why_excluded

OPTIONS = [(group, option) for group, option, _ in option_files()]


def hydra_value(v) -> str:
    """``v`` in Hydra's override grammar."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(hydra_value(x) for x in v) + "]"
    return "{" + ",".join(f"{k}:{hydra_value(x)}" for k, x in v.items()) + "}"


def _filled(overrides: list[str]) -> list[str]:
    """The overrides plus a value for every required (``???``) key, so the id can be computed."""
    import re

    from omegaconf.errors import InterpolationToMissingValueError, MissingMandatoryValue

    for _ in range(5):
        try:
            cfg = compose(overrides, return_hydra_config=False)
            break
        except (MissingMandatoryValue, InterpolationToMissingValueError) as exc:   # an interpolation of a required key (dataset.path)
            key = re.search(r"Missing mandatory value: ([\w.]+)", str(exc)).group(1)
            overrides = overrides + [f"{key}=m"]
    missing = [k for k, v in flatten(OmegaConf.to_container(cfg, resolve=False)).items() if v == "???"]
    return overrides + [f"{k}=m" for k in missing]


def _override(key: str, candidate) -> str:
    if isinstance(candidate, dict) and list(candidate) == ["x"]:   # a key added to a free mapping (extra_body)
        return f"+{key}.x={hydra_value(candidate['x'])}"
    return f"{key}={hydra_value(candidate)}"


def _first_legal(base, key: str, candidates: list, current):
    """(candidate, config) for the first candidate the config accepts: set on a copy of ``base``
    (a composed config, or overrides to compose) with the schema's type checks and ham's range
    checks, as an override would be; the choices a refusal names are tried too."""
    import re

    from omegaconf.errors import OmegaConfBaseException

    from ham.conf import check

    composed = compose(base, return_hydra_config=False) if isinstance(base, list) else base
    queue = [c for c in candidates if c != current]
    while queue:
        candidate = queue.pop(0)
        cfg = composed.copy()
        try:
            OmegaConf.set_struct(cfg, not (isinstance(candidate, dict) and list(candidate) == ["x"]))
            OmegaConf.update(cfg, key, candidate, merge=False, force_add=False)
            OmegaConf.set_struct(cfg, True)
            check(cfg)
            return candidate, cfg
        except (ConfigError, OmegaConfBaseException, ValueError, AssertionError, AttributeError) as exc:
            named = re.search(r"must be one of (.+)$", str(exc))
            if named:
                choices = [c for c in named.group(1).split(", ") if c not in (str(current), str(candidate))]
                queue = choices + [c for c in queue if c not in choices]
    return None, None


def _candidates(key: str, value, seen: dict[str, list]):
    """Legal-looking other values for ``key``, most plausible first (compose decides)."""
    if value is None and key.endswith(".dtype"):        # null enters as bfloat16 or float32 (the device's)
        return ["float16"]
    if value is None and key.endswith(".use_fp16"):     # null enters as what this machine's device picks
        from ham.run.identity import resolved_precision
        return [not resolved_precision("use_fp16", None)]
    others = [v for v in seen.get(key, []) if v != value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [*others, value + 1, max(0, value - 1), 1, 2]
    if isinstance(value, float):
        return [*others, value / 2 if value else 0.5, min(1.0, value + 0.1), 0.5]
    if isinstance(value, str) and value.startswith("${"):
        return [7, 0.5, "other"]             # an interpolation (the run's seed): override it directly
    if isinstance(value, str):
        return [*others, value + "-other", "other"]
    if isinstance(value, list):
        return [*others, value[:-1] if value else ["x"], list(reversed(value))]
    if isinstance(value, dict):
        return [{"x": 1}]
    node = {k[len(key) + 1:]: vals[0] for k, vals in seen.items()   # a null node another option fills
            if k.startswith(key + ".") and "." not in k[len(key) + 1:] and vals}
    return [*others, *([node] if node else []), 1, 0.5, "other", True, ["x"], {"x": 1}]   # None: an optional key


def _hashed_keys():
    """(option overrides, key, value) once per hashed key, under the first option that has it; and
    every value each key takes across the options (good alternatives)."""
    first, seen = {}, {}
    for group, option in OPTIONS:
        base = _filled([f"{group}={option}"])
        cfg = compose(base, return_hydra_config=False)
        kinds = classes(cfg)
        for key, value in flatten(OmegaConf.to_container(cfg, resolve=False)).items():
            seen.setdefault(key, [])
            if value not in seen[key]:
                seen[key].append(value)
            if kinds.get(key) != "exclude" and not key.endswith("_target_") and key not in first:
                first[key] = (base, value, kinds.get(key))
    return [(base, key, value, kind) for key, (base, value, kind) in sorted(first.items())], seen


@pytest.fixture(scope="module")
def hashed():
    return _hashed_keys()


def test_every_hashed_key_changes_the_run_id(tmp_path, hashed):
    HASHED, SEEN = hashed
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.md").write_text("# Other\n\nAnother corpus.\n")
    (tmp_path / "other.jsonl").write_text('{"id": "x", "question": "another question"}\n')
    unchanged, untried = [], []
    memo = tmp_path / "memo"   # the corpus is hashed once, not at every id
    composed: dict[tuple, object] = {}
    for base, key, value, kind in HASHED:
        if value is None and any(k.startswith(key + ".") for k in SEEN):
            continue   # a null node another option fills (retrieval.ranker): its keys are varied there
        if tuple(base) not in composed:
            composed[tuple(base)] = compose(base, return_hydra_config=False)
        base = composed[tuple(base)]
        before = run_id(base, memo)
        candidates = _candidates(key, value, SEEN)
        if kind == "content":   # a file or folder: another one, by content
            candidates = [str(tmp_path / ("other" if key == "dataset.path" else "other.jsonl"))]
        candidate, cfg = _first_legal(base, key, candidates, value)
        if cfg is None:
            untried.append(key)
        elif run_id(cfg, memo) == before:
            unchanged.append(f"{key}: {value!r} -> {candidate!r}")
    assert not unchanged, f"hashed keys whose change left the run id unchanged: {unchanged}"
    assert not untried, f"no legal other value found for: {untried} (extend _candidates)"


def test_every_exclusion_says_why():
    assert all(isinstance(why, str) and len(why) > 10 for why in EXCLUDE.values())
    # nothing that shapes units, retrieval, prompts or generation is excluded
    cfg = compose(["units=merged", "generator=openai", "encoder.max_seq_length=128"], return_hydra_config=False)
    kinds = classes(cfg)
    for key in ("units.max_chars", "units.min_chars", "retrieval.k_t", "retrieval.k_v", "text_repr._target_",
                "method.template", "generator.client.temperature", "generator.client.max_tokens",
                "encoder.max_seq_length"):
        assert kinds[key] != "exclude", key


# ------------------------------------------------------------------ excluded keys on a tiny run

def _corpus(root):
    from PIL import Image

    docs = root / "corpus"
    (docs / "img").mkdir(parents=True)
    Image.new("RGB", (40, 30), (200, 30, 30)).save(docs / "img" / "valve.png")
    (docs / "pump.md").write_text(   # sections of several paragraphs, so unit settings matter
        "# Pump Manual\n\n## 1. Filter\n\nReplace the filter cartridge every six months.\n\nRinse the housing "
        "with warm water before you refit it.\n\nCheck the seal while the housing is open.\n\n"
        "![The filter valve](img/valve.png)\n\n"
        "### 1.1 Cartridge\n\nThe cartridge sits behind the front cover.\n\nTurn it a quarter turn to free it.\n\n"
        "## 2. Seals\n\nInspect the shaft seal for leaks weekly.\n\nReplace a leaking seal at once.\n\n"
        "A dry seal cracks within days.\n")
    questions = root / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "a", "question": "How often is the filter replaced?",
         "reference_answer": "Every six months. ![v](img/valve.png)"},
        {"id": "b", "question": "Where is the cartridge?", "reference_answer": "Behind the front cover."},
        {"id": "c", "question": "How often is the seal inspected?", "reference_answer": "Weekly."}]))
    return docs, questions


def _results(out) -> dict:
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    metrics = json.loads((out / "metrics.json").read_text())["metrics"]
    return {"rows": {r["id"]: ([h["unit_id"] for h in r["retrieved_text"]],
                               [h["unit_id"] for h in r["retrieved_images"]], r["answer"], r["failure"],
                               {k: v for k, v in r["metrics"].items() if k != "judge"}) for r in rows},
            "means": {k: m.get("mean") for k, m in metrics.items()}}


# values compose cannot tell are illegal (a price row must exist; a device must be one torch knows)
KNOWN_LEGAL = {"cost.pricing": ["gpt4o"], "generator.pricing": ["gpt4o"], "encoder.device": ["cpu"],
               "metrics.bertscore.device": ["cpu"]}


def _far(key: str, value) -> list:
    """Values far from ``value``, so that a key that did matter would show on a tiny run (2001
    instead of 2000 characters would not)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [1, 2, value * 4]
    if isinstance(value, float):
        return [value / 10, value * 10, 0.0, 1.0]
    return _candidates(key, value, {})


def _reasons(tiny: list[str]) -> dict[str, list[str]]:
    """The tiny run's excluded keys, grouped by the reason their declaration or pattern gives."""
    cfg = compose(tiny, return_hydra_config=False)
    out: dict[str, list[str]] = {}
    for key, kind in classes(cfg).items():
        if kind == "exclude":
            out.setdefault(why_excluded(key, cfg), []).append(key)
    return out


# every reason a key of either tiny run is excluded for: one test each (the two tiny runs'
# reasons, computed without the servers: the openai run's keys do not depend on its URL)
REASONS = sorted(set(_reasons([])) | set(_reasons(["generator=openai", "generator.client.model=m"])))


def _excluded_overrides(reason: str, tiny: list[str], legal: dict) -> list[str]:
    """Every key of the tiny run's config excluded for ``reason`` set to another legal value."""
    cfg = compose(tiny, return_hydra_config=False)
    flat = flatten(OmegaConf.to_container(cfg, resolve=False))
    keys = set(_reasons(tiny).get(reason, []))
    overrides = []
    for key, value in flat.items():
        if key not in keys or key.startswith("paths.") or key == "rerun" or key.endswith("_target_"):
            continue   # paths: each run below has a fresh root; rerun: a runner mode, tested in tests/run;
            # a _target_ is which option, not a setting of it (logger=wandb runs in tests/integration)
        candidate, ok = _first_legal(cfg, key, legal.get(key, _far(key, value)), value)
        if ok is not None:
            overrides.append(_override(key, candidate))
    return overrides


@pytest.fixture(scope="module")
def servers():
    """Two loopback servers answering alike (their reply echoes the prompt), for an openai tiny run
    whose base URL moves from one to the other."""
    from tests.support.chat_server import ChatServer

    with ChatServer() as one, ChatServer() as two:
        yield one, two


def _tiny(kind: str, servers) -> tuple[list[str], dict]:
    """A tiny run's own overrides and the legal other values compose cannot know, by generator."""
    legal = dict(KNOWN_LEGAL)
    if kind == "extractive":
        return [], legal
    one, two = servers
    legal.update({"generator.client.base_url": [two.base_url], "generator.client.request_budget": [10_000],
                  "generator.client.base_url_env": ["HAM_TEST_OTHER_URL"], "generator.client.api_key_env": ["HAM_TEST_OTHER_KEY"]})
    return ["generator=openai", "generator.client.model=m", f"generator.client.base_url={one.base_url}"], legal


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["extractive", "openai"])
@pytest.mark.parametrize("pattern", REASONS, ids=lambda why: why[:40])
def test_excluded_keys_do_not_change_a_tiny_runs_results(pattern, kind, servers, tmp_path_factory, monkeypatch):
    from ham.run.job import run

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("HAM_TEST_OTHER_KEY", "k")
    tiny, legal = _tiny(kind, servers)
    overrides = _excluded_overrides(pattern, tiny, legal)
    if not overrides:
        pytest.skip(f"no key of the {kind} tiny run's config is excluded because: {pattern}")

    root = tmp_path_factory.mktemp("excluded")
    # a component's own cache root (reranker.cache_root) varied to "7" was a folder "7/rerank" in the
    # working directory, the checkout's root under `make test-slow`: another root under this run's
    overrides = [f"{o.split('=', 1)[0]}={root / 'other-cache'}" if o.split("=", 1)[0].endswith("cache_root") else o
                 for o in overrides]
    docs, questions = _corpus(root)
    common = ["dataset=custom", f"dataset.path={docs}", f"dataset.questions={questions}", "progress=false",
              "metrics.names=[ir,gold_text_recall,image_precision,image_recall,image_f1,img_cbs]", *tiny]

    def results(name, extra):
        out = run(compose([*common, f"paths.output_root={root / name}", *extra], return_hydra_config=False))
        return _results(out), out.name

    base, base_id = results("base", [])
    varied, varied_id = results("varied", overrides)   # a fresh output and cache root: computed anew
    assert varied_id == base_id
    assert varied == base, f"{pattern} ({overrides}) changed the results"


def test_a_fresh_cache_root_gives_the_same_results(tmp_path):
    """paths.* (the variants above each run under a fresh root): computed anew, the same."""
    from ham.run.job import run

    docs, questions = _corpus(tmp_path)
    common = ["dataset=custom", f"dataset.path={docs}", f"dataset.questions={questions}", "progress=false",
              "metrics.names=[ir,image_f1]"]
    first = run(compose([*common, f"paths.output_root={tmp_path / 'a'}"], return_hydra_config=False))
    second = run(compose([*common, f"paths.output_root={tmp_path / 'b'}",
                          f"paths.cache_root={tmp_path / 'elsewhere'}"], return_hydra_config=False))
    assert first.name == second.name and _results(first) == _results(second)
