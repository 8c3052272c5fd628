"""The checks a composed config passes before anything runs, beyond what Hydra's typed schemas
check: every key of every node is a setting of the class (``_target_``) or settings block the
node stands for, every value has its setting's type, range and choices (``ham.settings``). A
misspelt key, added with ``+`` or not, fails here naming the key and the settings there are."""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence

from omegaconf import DictConfig, ListConfig, OmegaConf

from ham.settings import Setting, settings_of

HYDRA_KEYS = {"_target_", "_partial_", "_convert_", "_recursive_", "_args_"}


class ConfigError(ValueError):
    """A config value outside what its key allows; the message names the key and the value."""


def _strip(hint):
    """An annotation without ``Annotated`` and ``None``: (the types it allows, whether None is one)."""
    if typing.get_origin(hint) is typing.Annotated:
        return _strip(typing.get_args(hint)[0])
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        inner = [a for a in args if a is not type(None)]
        return inner, len(inner) < len(args)
    return [hint], False


def _type_ok(value, hint) -> bool:
    kinds, optional = _strip(hint)
    if value is None:
        return optional or any(k is typing.Any for k in kinds)
    for kind in kinds:
        origin = typing.get_origin(kind) or kind
        if kind is typing.Any or isinstance(kind, str):
            return True
        if origin is bool:
            if isinstance(value, bool):
                return True
        elif origin is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return True
        elif origin is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return True
        elif origin is str:
            if isinstance(value, str):
                return True
        elif origin in (list, tuple, set, frozenset, Sequence):
            if isinstance(value, (ListConfig, list, tuple)):
                return True
        elif origin in (dict, Mapping):
            if isinstance(value, (DictConfig, dict)):
                return True
        elif isinstance(origin, type):
            return True   # a component or settings block: its node is checked on its own
    return False


def settings_here(node: DictConfig, declared=None) -> tuple[dict[str, Setting] | None, str]:
    """The settings a node may hold and what declares them, or None for a free mapping."""
    if "_target_" in node:
        target = node["_target_"]
        if target is None:
            return {}, "none"
        from ham.conf.schema import load

        return settings_of(load(target)), target
    kind = OmegaConf.get_type(node)
    if dataclasses.is_dataclass(kind) and not hasattr(kind, "__ham_target__"):   # a settings block
        return settings_of(kind), kind.__name__
    if declared is not None and dataclasses.is_dataclass(declared):
        return settings_of(declared), declared.__name__
    return None, "a mapping"


def check(cfg: DictConfig, prefix: str = "", declared=None) -> None:
    """Raise ``ConfigError`` naming the first key that is not a setting there, or whose value
    breaks its setting's type, range or choices."""
    allowed, owner = settings_here(cfg, declared)
    for key in cfg:
        full = f"{prefix}{key}"
        if key == "hydra" and not prefix:
            continue
        if key in HYDRA_KEYS:
            continue
        if allowed is not None and key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise ConfigError(f"{full}: not a setting of {owner} (its settings: {known})")
        if OmegaConf.is_missing(cfg, key):
            continue
        value = cfg[key]
        spec = allowed.get(key) if allowed is not None else None
        if isinstance(value, DictConfig):
            block = _block(spec.type) if spec is not None else None
            if spec is None or block is not None or "_target_" in value or not _is_mapping(spec.type):
                check(value, full + ".", block)
            continue
        if spec is None:
            continue
        if not _type_ok(value, spec.type):
            raise ConfigError(f"{full}={value!r}: not a value of type {_name(spec.type)}")
        if not isinstance(value, ListConfig):
            problem = spec.violation(value)
            if problem:
                raise ConfigError(f"{full}={value}: {problem}")


def _block(hint):
    kinds, _ = _strip(hint)
    found = [k for k in kinds if dataclasses.is_dataclass(k)]
    return found[0] if len(found) == 1 else None


def _is_mapping(hint) -> bool:
    kinds, _ = _strip(hint)
    return any((typing.get_origin(k) or k) in (dict, Mapping) for k in kinds)


def _name(hint) -> str:
    kinds, optional = _strip(hint)
    names = [getattr(k, "__name__", str(k)) for k in kinds] + (["None"] if optional else [])
    return " | ".join(names)
