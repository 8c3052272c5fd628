"""ham's configuration: the YAML config groups in this folder (package data, so an installed
wheel runs without a checkout), their structured-config schemas (derived from the components' signatures:
``schema.py``), the checks of every key and value (``check.py``), and composing a config from
Python.

    from ham.conf import compose
    cfg = compose(["dataset=custom", "dataset.path=manuals/", "retrieval.k_t=10"])

``register()`` puts the schemas in Hydra's ConfigStore and the ``ham_data`` resolver in OmegaConf
(``${ham_data:demo/corpus}`` is the absolute path of data shipped inside the package); every entry
point calls it before composing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from omegaconf import DictConfig, OmegaConf

from ham.conf.check import ConfigError, check

__all__ = ["CONF_DIR", "ConfigError", "check", "compose", "instantiate_optional", "plain", "register"]
CONF_DIR = Path(__file__).resolve().parent
DATA_DIR = CONF_DIR.parent / "data"
_registered = False


def register() -> None:
    global _registered
    if _registered:
        return
    from hydra.core.config_store import ConfigStore

    from ham.conf.schema import register_schemas

    register_schemas(ConfigStore.instance())
    if not OmegaConf.has_resolver("ham_data"):
        OmegaConf.register_new_resolver("ham_data", lambda rel: str(DATA_DIR / rel))
    _registered = True


def compose(overrides: Sequence[str] = (), return_hydra_config: bool = True) -> DictConfig:
    """The run config for ``overrides`` (the same ones ``ham`` takes), checked. Any problem with an
    override (an unknown group or key, a wrong type, a value out of range) is a ``ConfigError``
    whose message names the key."""
    from hydra import compose as hydra_compose, initialize_config_dir

    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    register()
    try:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            cfg = hydra_compose(config_name="config", overrides=list(overrides),
                                return_hydra_config=return_hydra_config)
    except (HydraException, OmegaConfBaseException) as exc:   # a bad override: Hydra's message names it
        raise ConfigError(_chain(exc)) from exc
    except (AssertionError, AttributeError) as exc:   # OmegaConf's own failures merging into a null node
        raise ConfigError(f"{' '.join(overrides)}: a key set under a group or node that is null here "
                          f"({exc})") from exc
    check(cfg)
    return cfg


def _chain(exc: BaseException) -> str:
    """An exception's message with its causes' (Hydra wraps the OmegaConf error that names the
    key and the value), each once, on one line."""
    parts: list[str] = []
    while exc is not None:
        text = " ".join(str(exc).split())
        if text and text not in parts and "$VALUE" not in text:   # OmegaConf's unfilled message template
            parts.append(text)
        exc = exc.__cause__ or exc.__context__
    return ": ".join(parts)


def plain(cfg: DictConfig) -> dict:
    """The config resolved to plain containers, without Hydra's own node (which composing with
    ``return_hydra_config`` adds and which does not resolve outside a Hydra job)."""
    return {key: OmegaConf.to_container(cfg[key], resolve=True) if OmegaConf.is_config(cfg[key]) else cfg[key]
            for key in cfg if key != "hydra"}


def instantiate_optional(node, **kwargs):
    """``hydra.utils.instantiate(node, **kwargs)``, or None for a group set to none
    (``_target_: null``) or absent."""
    if node is None or node.get("_target_") is None:
        return None
    from hydra.utils import instantiate

    return instantiate(node, **kwargs, _convert_="all")


