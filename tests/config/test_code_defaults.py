"""The Python API and the CLI agree: every value a base option file (one that names its own
``_target_``) sets equals the code default of that parameter, so a component built by hand with its
defaults behaves as the one ``ham`` builds from the option (issue: summariser max_words 60 in code,
40 in the YAML; HF generator 256 new tokens in code, 1024 in the option file). Options built on
another option (``gpt4o``: ``defaults: [openai]``, max_tokens 4000) are variants on purpose."""
from __future__ import annotations

import importlib
import inspect

import pytest
import yaml

from ham.conf import CONF_DIR

# one mapping parameter whose keys are read inside the class (issue 19 makes it a typed config)
NESTED = {("ham.retrieve.graph.GraphRetriever", "graph")}


def _target(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _parameter(cls, name: str):
    """The parameter ``name`` of ``cls`` or, through ``**kwargs``, of the class it passes them to."""
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = inspect.signature(klass.__init__).parameters
        if name in params:
            return params[name]
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return None
    return None


def _nodes(data, prefix=""):
    if isinstance(data, dict):
        if data.get("_target_"):
            yield prefix, data
        for key, value in data.items():
            yield from _nodes(value, f"{prefix}{key}.")


def _same(code, option) -> bool:
    if isinstance(code, (list, tuple)) and isinstance(option, (list, tuple)):
        return list(code) == list(option)
    if code is None and option == {}:
        return True   # an empty mapping, written {} in YAML
    return code == option


def _own_target(path) -> bool:
    return "_target_" in (yaml.safe_load(path.read_text()) or {})


BASE_OPTIONS = sorted(p for p in CONF_DIR.glob("*/*.yaml") if p.parent.name not in ("experiment", "grid", "local")
                      and (_own_target(p) or p.parent.name == "judge"))


@pytest.mark.parametrize("path", BASE_OPTIONS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_base_option_files_set_only_the_code_defaults(path):
    """The option as composed (its own defaults list included: hf_vlm builds on hf) against the
    signature of the class it names."""
    from omegaconf import OmegaConf

    from ham.conf import compose

    group = path.parent.name
    node = OmegaConf.to_container(compose([f"{group}={path.stem}"], return_hydra_config=False)[group], resolve=False)
    wrong = []
    for prefix, sub in _nodes(node):
        cls = _target(sub["_target_"])
        for key, value in sub.items():
            if key in ("_target_", "defaults") or (isinstance(value, dict) and "_target_" in value):
                continue
            if (sub["_target_"], key) in NESTED or (isinstance(value, str) and ("${" in value or value == "???")):
                continue   # interpolated from the run (seed, cache root), or required: not a default
            param = _parameter(cls, key)
            assert param is not None, f"{path.name}: {prefix}{key} is not a parameter of {cls.__qualname__}"
            if param.default is not inspect.Parameter.empty and not _same(param.default, value):
                wrong.append(f"{prefix}{key}: option {value!r}, code {param.default!r}")
    assert not wrong, f"{group}/{path.name} differs from the code defaults: " + "; ".join(wrong)
