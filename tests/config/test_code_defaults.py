"""Option files say only what differs from the code defaults, and everything they leave out is the
code default: so a component built by hand with its defaults behaves as the one ``ham`` builds
from the option (the issue before declarations were derived: summariser max_words 60 in code, 40
in the YAML; HF generator 256 new tokens in code, 1024 in the option file)."""
from __future__ import annotations

import dataclasses

import pytest
import yaml
from omegaconf import OmegaConf

from ham.conf import compose, option_files
from ham.conf.reference import option_schemas
from ham.conf.schema import load
from ham.settings import settings_of


def _schemas(path) -> dict[str, type]:
    """Key prefix -> the class each ``/schema/<group>/<Class>@<package>`` entry of the file names
    (the reading docs/options.md is generated from)."""
    return {prefix: load(cls) for prefix, cls in option_schemas(path)}


def _flat(data, prefix=""):
    for key, value in (data or {}).items():
        if key == "defaults":
            continue
        if isinstance(value, dict) and value:
            yield from _flat(value, f"{prefix}{key}.")
        yield f"{prefix}{key}", value


NEEDS = {("dataset", "custom"): ["dataset.path=manuals"], ("dataset", "mramg"): ["dataset.path=mramg"]}   # an option whose required settings the user gives
OPTIONS = [(g, o, f) for g, o, f in option_files() if _schemas(f)]


@pytest.mark.parametrize("group,option,path", OPTIONS, ids=[f"{g}/{o}" for g, o, _ in OPTIONS])
def test_option_files_set_only_what_differs_from_the_code(group, option, path):
    raw = yaml.safe_load(path.read_text()) or {}
    schemas = _schemas(path)
    restated = []
    for key, value in _flat(raw):
        prefix, _, name = key.rpartition(".")
        cls = schemas.get(prefix + "." if prefix else "")
        if cls is None or isinstance(value, dict) or (isinstance(value, str) and "${" in value):
            continue   # a nested block without its own schema, or a value taken from the run (seed, cache root)
        setting = settings_of(cls).get(name)
        assert setting is not None, f"{path}: {key} is not a setting of {cls.__qualname__}"
        if not setting.required and setting.default == value:
            restated.append(f"{key}={value!r}")
    assert not restated, f"{path} restates code defaults (delete them): {', '.join(restated)}"


@pytest.mark.parametrize("group,option,path", [o for o in OPTIONS if o[0] not in ("experiment", "grid")],
                         ids=[f"{g}/{o}" for g, o, _ in OPTIONS if g not in ("experiment", "grid")])
def test_what_an_option_leaves_out_is_the_code_default(group, option, path):
    raw = yaml.safe_load(path.read_text()) or {}
    set_here = {key for key, _ in _flat(raw)}
    node = OmegaConf.to_container(compose([f"{group}={option}", *NEEDS.get((group, option), [])], return_hydra_config=False)[group], resolve=False)
    for prefix, cls in _schemas(path).items():
        sub = node
        for part in filter(None, prefix.split(".")):
            sub = sub[part]
        for name, setting in settings_of(cls).items():
            if f"{prefix}{name}" in set_here or setting.required or isinstance(sub.get(name), dict):
                continue
            default = setting.default
            if dataclasses.is_dataclass(default):
                default = dataclasses.asdict(default)
            value = sub[name]
            assert value == (list(default) if isinstance(default, tuple) else default), \
                f"{group}={option}: {prefix}{name} is {value!r}, the code says {default!r}"
