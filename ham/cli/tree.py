"""``ham-tree PATH [--format NAME] [--root DIR]``: print the hierarchy tree(s) ingest builds for
PATH: for a folder, every document under it; for a file, the documents that file belongs to (its
own document, or the multi-page manual one of whose pages it is). The corpus root is the folder (or
the file's folder; ``--root`` widens it, e.g. so images in a sibling folder are inside it). The
ingest report goes to stderr. Exit status 0, or 1 when nothing was parsed for PATH.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ham.document import Document, render_tree


def belongs_to(doc: Document, rel: str) -> bool:
    """``rel`` is the document's source, one of its pages, or the MinerU Markdown beside it."""
    if doc.source == rel or any(node.source == rel for node in doc.root.walk()):
        return True
    suffix = "_content_list.json"
    return (doc.format == "mineru" and doc.source.endswith(suffix)
            and rel == doc.source[: -len(suffix)] + ".md")


def tree_parser() -> argparse.ArgumentParser:
    from ham.ingest import FORMATS

    parser = argparse.ArgumentParser(prog="ham-tree", description="Print the hierarchy tree ingest "
                                     "builds for a document or every document in a folder.")
    parser.add_argument("path", type=Path, help="a document file or a corpus folder")
    parser.add_argument("--format", choices=sorted(FORMATS), help="only try this format")
    parser.add_argument("--root", type=Path, help="corpus root (default: PATH's folder, or PATH)")
    return parser


def tree_main(argv: list[str] | None = None) -> int:
    from ham.ingest import ingest_corpus

    args = tree_parser().parse_args(argv)
    path: Path = args.path
    if not path.exists():
        print(f"ham-tree: {path} does not exist", file=sys.stderr)
        return 1
    root = args.root or (path if path.is_dir() else path.parent)
    docs, report = ingest_corpus(root, [args.format] if args.format else None)
    if path.is_file():
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            print(f"ham-tree: {path} is not under the corpus root {root}", file=sys.stderr)
            return 1
        docs = [d for d in docs if belongs_to(d, rel)]
    elif args.root is not None:
        try:
            inside = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            print(f"ham-tree: {path} is not under the corpus root {root}", file=sys.stderr)
            return 1
        docs = [d for d in docs if inside == "." or d.source.startswith(inside + "/")]
    for i, doc in enumerate(docs):
        if i:
            print()
        print(render_tree(doc))
    print(report.summary(), file=sys.stderr)
    if not docs:
        print(f"ham-tree: no document parsed from {path}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(tree_main())
