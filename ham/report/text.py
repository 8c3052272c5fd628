"""A prediction row as plain text for a terminal (``ham-ask``, notebooks): the interleaved answer
with each image's file, then the retrieved evidence with heading paths, pages and scores."""
from __future__ import annotations

from pathlib import Path

from ham.text import words


def image_file(row: dict, ref: str | None, unit_id: str | None, corpus_root: Path | None) -> str:
    """The file of an image the answer shows, as a path a user can open."""
    for hit in row.get("retrieved_images") or []:
        if hit.get("unit_id") == unit_id or (unit_id is None and hit.get("image") == ref):
            rel = hit.get("image_path")
            if rel:
                return str(corpus_root / rel) if corpus_root else rel
    return ref or "?"


def answer_text(row: dict, corpus_root: Path | None = None) -> str:
    """The answer: text segments as paragraphs, each image as ``[image: FILE — caption]``; a failed
    generation as its reason."""
    if row.get("failure"):
        failure = row["failure"]
        return f"(no answer: {failure['reason']}: {failure.get('detail', '')})"
    captions = {h.get("unit_id"): h.get("caption") for h in row.get("retrieved_images") or []}
    parts = []
    for seg in row.get("answer") or []:
        if seg.get("type") == "image":
            caption = captions.get(seg.get("unit_id")) or ""
            parts.append(f"[image: {image_file(row, seg.get('image'), seg.get('unit_id'), corpus_root)}"
                         + (f" — {caption}" if caption else "") + "]")
        else:
            parts.append(seg.get("text", ""))
    return "\n\n".join(p for p in parts if p.strip())


def evidence_text(row: dict, corpus_root: Path | None = None, snippet_words: int = 30) -> str:
    lines = ["Retrieved text:"]
    for i, h in enumerate(row.get("retrieved_text") or [], 1):
        path = " > ".join(h.get("heading_path") or []) or "(no heading)"
        kind = " [table]" if h.get("modality") == "table" else ""
        lines.append(f"  {i:>2}. {path}{kind}  ({h.get('position') or h.get('source')}; score {h.get('score', 0):.3f})")
        lines.append(f"      {words(h.get('text', ''), snippet_words)}")
    lines.append("Retrieved images:")
    for i, h in enumerate(row.get("retrieved_images") or [], 1):
        where = h.get("position") or h.get("source")
        lines.append(f"  {i:>2}. {image_file(row, h.get('image'), h.get('unit_id'), corpus_root)}  "
                     f"({where}; score {h.get('score', 0):.3f})" + (f" — {h['caption']}" if h.get("caption") else ""))
    return "\n".join(lines)
