"""Versioned LLM-judge prompt files: ``<metric>_v<N>.txt``, front matter then messages."""
