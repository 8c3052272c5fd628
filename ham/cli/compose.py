"""Composing a run config outside the ``ham`` app (the tools use it): ``ham.conf.compose``."""
from __future__ import annotations

from ham.conf import compose as compose_config

__all__ = ["compose_config"]
