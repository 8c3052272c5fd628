"""Context-aware image descriptions (paper, section 3.2).

Spine: descriptions come from a file shipped with the corpus (JSONL lines
``{"image": "<path relative to the corpus root>", "description": "..."}``). When no description
exists for an image, ``si`` falls back to the local representation for that image; the run logs a
warning and records the count (``si_fallback_images`` in metrics.json).
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

log = logging.getLogger("ham.describe")


class DescriptionFile:
    """Image descriptions read from a JSONL file keyed by corpus-relative image path."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.descriptions: dict[str, str] = {}
        self.digest = "none"
        if self.path is None:
            return
        if not self.path.exists():
            raise FileNotFoundError(f"image description file {self.path} does not exist")
        self.digest = hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]
        with self.path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    self.descriptions[str(row["image"])] = str(row["description"]).strip()
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    log.warning("%s:%d: bad description line (%s); skipped", self.path, lineno, exc)

    def get(self, image_path: str | None) -> str | None:
        return self.descriptions.get(image_path) if image_path else None

    @property
    def model_id(self) -> str:
        return f"file:{self.path.name}@{self.digest}" if self.path else "none"
