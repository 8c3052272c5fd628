"""What the index cache keys are made of, shared by the single-process build (``ham.index.build``)
and the sharded one (``ham.index.shards``)."""
from __future__ import annotations

import hashlib

INDEX_VERSION = "3"   # 3: BM25 built from ham.text.tokenize token lists


def strings_digest(unit_ids: list[str], texts: list[str]) -> str:
    h = hashlib.sha256()
    for unit_id, text in zip(unit_ids, texts):
        h.update(unit_id.encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()[:24]
