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
    for path in _visible_files(root):
        rel = path.relative_to(root)
        h.update(rel.as_posix().encode() + b"\0")
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    return h.hexdigest()[:16]


def _visible_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def content_hash(path: Path, memo_root: str | Path | None = None) -> str:
    """Content hash of a file (its bytes) or a folder (``hash_tree``). With ``memo_root`` the
    result is kept under ``<memo_root>/content_hashes/``, keyed by the path and every file's size
    and modification time, so an unchanged corpus is read once, not at every run."""
    path = Path(path).resolve()
    files = [path] if path.is_file() else _visible_files(path) if path.is_dir() else None
    if files is None:
        raise FileNotFoundError(f"{path}: no such file or folder")
    memo = None
    if memo_root is not None:
        stats = [(f.relative_to(path).as_posix() if f != path else "", f.stat().st_size, f.stat().st_mtime_ns)
                 for f in files]
        memo = KeyedStore(memo_root, "content_hashes")
        memo_key = key_of([str(path), stats])
        hit = memo.get(memo_key)
        if hit is not None:
            return hit["hash"]
    if path.is_file():
        h = hashlib.sha256()
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        digest = h.hexdigest()[:16]
    else:
        digest = hash_tree(path)
    if memo is not None:
        memo.put(memo_key, {"path": str(path), "hash": digest})
    return digest


class FolderCache:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, kind: str, key: str) -> Path:
        return self.root / kind / key

    def has(self, kind: str, key: str) -> bool:
        """Whether a complete entry is there (``get_or_build`` would reuse it)."""
        return (self.path(kind, key) / ".complete").exists()

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
