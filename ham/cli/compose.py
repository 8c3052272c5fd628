"""Composing a run config outside the ``ham`` app (the tools and the Python API use it)."""
from __future__ import annotations


def compose_config(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from ham.paths import PROJECT_ROOT

    with initialize_config_dir(config_dir=str(PROJECT_ROOT / "conf"), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)
