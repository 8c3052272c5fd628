"""Images that a document embeds rather than references (PDF, DOCX, Docling ``data:`` URIs) are
written once under the corpus root, in ``.ham/images/<sha256 prefix>.<ext>``: content-addressed
(the same bytes give the same file), hidden (so ingest never reads them as documents and the
corpus hash ignores them) and inside the root, so ``image_path`` stays relative to it like every
other image. Each file appears whole (written under a temporary name of its writer's own, then
renamed), so jobs ingesting one corpus at once all get every image. A corpus root that cannot be
written to is reported once per document and its embedded images are left out."""
from __future__ import annotations

import hashlib
import io
import os
import uuid
from pathlib import Path

ASSET_DIR = ".ham/images"


def store_image(root: Path, report, source: Path, image=None, data: bytes | None = None,
                ext: str = "png") -> str | None:
    """Write a PIL ``image`` (as PNG) or raw encoded ``data`` (with its ``ext``); return its path
    relative to ``root``, or None (reported) when it cannot be written or decoded."""
    if image is not None:
        buf = io.BytesIO()
        image.convert("RGB" if image.mode not in ("RGB", "L", "RGBA") else image.mode).save(buf, format="PNG")
        data, ext = buf.getvalue(), "png"
    if not data:
        return None
    rel = f"{ASSET_DIR}/{hashlib.sha256(data).hexdigest()[:24]}.{ext.lower().lstrip('.')}"
    target = root / rel
    if not target.exists():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # a temporary name of this writer's own: grid jobs ingesting one corpus at once write the
            # same image, and a shared name let one writer's rename take the other's file away
            tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        except OSError as exc:
            report.add(source, f"cannot store an embedded image under {root / ASSET_DIR} ({exc})", "image")
            return None
    from ham.images import image_problem

    problem = image_problem(target)
    if problem:
        report.add(source, f"embedded image: {problem}", "image")
        return None
    return rel
