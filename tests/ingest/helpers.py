"""Shared look-ups for the ingest tests."""
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


def heading_path(doc, node):
    """Titles of the internal nodes between the document and ``node`` (both excluded)."""
    return [n.title for n in doc.paths()[node.id][1:-1]]


def node_titled(doc, title):
    return next(n for n in doc.root.walk() if n.title == title)


def leaf_with(doc, kind, needle):
    return next(n for n in doc.leaves() if n.kind == kind and needle in (n.text or n.image or ""))
