"""Reconstruction (HAM-Bench's "Recon." documents): a recovered tree written back as Markdown, so
a user can inspect it, correct it and ingest it again.

Headings get ``#`` by depth (the document title is ``#``, top sections ``##``), procedure steps
are "Step N" headings one level below (ingest reads them back as steps), text leaves are
paragraphs, images are ``![alt](path)`` with their caption paragraph after them (linked again on
re-ingest), tables are their caption and a pipe table (first row as header), then their notes.
Image paths are written relative to the Markdown file, so the file works where it is saved.
"""
from __future__ import annotations

import os
from pathlib import Path

from ham.document import Document, Node


def _cell(text: str) -> str:
    return text.replace("|", "\\|").strip()


def _table(node: Node) -> list[str]:
    lines = [ln for ln in node.text.splitlines() if ln.strip()]
    if node.caption and lines and lines[0] == node.caption:
        lines = lines[1:]
    rows = [ln for ln in lines if " | " in ln]
    notes = [ln for ln in lines if " | " not in ln]
    out = [node.caption, ""] if node.caption else []
    if rows:
        cells = [r.split(" | ") for r in rows]
        width = max(len(c) for c in cells)
        cells = [c + [""] * (width - len(c)) for c in cells]
        out.append("| " + " | ".join(_cell(c) for c in cells[0]) + " |")
        out.append("|" + "---|" * width)
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in cells[1:]]
        out.append("")
    elif notes:
        out += notes[:1]
        notes = notes[1:]
    out += [n + "\n" for n in notes]
    return out


def to_markdown(doc: Document, root: Path, out_dir: Path) -> str:
    """The document as Markdown; image links relative to ``out_dir`` (where the file is saved)."""
    lines = [f"# {doc.title}", ""]

    def image_ref(node: Node) -> str:
        if node.image_path:
            return Path(os.path.relpath((root / node.image_path).resolve(), out_dir.resolve())).as_posix()
        return node.image or ""

    def visit(node: Node, depth: int) -> None:
        if node.kind in ("section", "subsection", "step"):
            lines.extend([f"{'#' * min(depth + 1, 6)} {node.title}", ""])
        elif node.kind == "text":
            lines.extend([node.text, ""])
        elif node.kind == "image":
            alt = (node.alt or node.caption or "").replace("]", "\\]")
            lines.extend([f"![{alt}]({image_ref(node)})", ""])
        elif node.kind == "table":
            if node.image_path and not node.text.strip():
                lines.extend([f"![{node.caption}]({image_ref(node)})", ""])
            else:
                lines.extend(_table(node))
        for child in node.children:
            visit(child, depth + 1 if node.kind != "document" else depth)

    for child in doc.root.children:
        visit(child, 1)
    return "\n".join(lines).rstrip() + "\n"


def write_reconstruction(docs: list[Document], root: Path, out: Path) -> list[Path]:
    """One Markdown file per document: ``out`` itself when it ends in ``.md`` and there is one
    document, else ``out/<document id>.md`` (slashes in ids become ``__``)."""
    if out.suffix.lower() == ".md" and len(docs) == 1:
        targets = [out]
    else:
        targets = [out / (d.id.replace("/", "__") + ".md") for d in docs]
    for doc, target in zip(docs, targets):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(to_markdown(doc, root, target.parent), encoding="utf-8")
    return targets
