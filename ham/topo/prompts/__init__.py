"""Versioned prompt files of the topology builder: ``<task>_v<N>.txt``, front matter then messages."""
