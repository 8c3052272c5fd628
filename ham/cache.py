"""A content-addressed folder store shared by every run under one cache root.

``key_of(obj)`` hashes any JSON-serialisable description of what produced an artefact (corpus
content hash, representation, encoder id...). ``publish`` builds into a temporary folder and
renames it into place, so a run killed mid-build never leaves a half-written entry behind and two
runs racing on the same key both end up with one complete entry.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from pathlib import Path
from typing import Callable

log = logging.getLogger("ham.cache")


def key_of(obj) -> str:
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def hash_tree(root: Path) -> str:
    """Content hash of every non-hidden file under ``root`` (relative path + bytes)."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        h.update(rel.as_posix().encode() + b"\0")
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    return h.hexdigest()[:16]


class FolderCache:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, kind: str, key: str) -> Path:
        return self.root / kind / key

    def get_or_build(self, kind: str, key: str, build: Callable[[Path], None]) -> tuple[Path, bool]:
        """Return (folder, was_cached). ``build(tmp)`` writes the entry into ``tmp``."""
        final = self.path(kind, key)
        if (final / ".complete").exists():
            return final, True
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f".tmp-{key}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            build(tmp)
            (tmp / ".complete").write_text("")
            try:
                os.replace(tmp, final)
            except OSError:
                if not (final / ".complete").exists():  # a stale partial entry: replace it
                    shutil.rmtree(final, ignore_errors=True)
                    os.replace(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return final, False


class KeyedStore:
    """Results of model calls (summaries, image descriptions), one small JSON file per key under
    ``<cache root>/<kind>/<key[:2]>/<key>.json``. One file per key (written to a temporary name,
    then renamed) lets many grid cells share a store without locks or torn lines."""

    def __init__(self, root: str | Path, kind: str) -> None:
        self.folder = Path(root) / kind

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            log.warning("%s: unreadable cache entry, computing it again (%s)", path, exc)
            return None

    def put(self, key: str, record: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
        tmp.write_text(json.dumps(record, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
