"""Generators (backbones). Each takes a ``Prompt`` and returns a ``Generation``."""
