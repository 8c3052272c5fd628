"""``ham-tree PATH [--format NAME] [--root DIR] [--why] [--ignore-outline] [--reconstruct OUT]``: print the hierarchy
tree(s) ingest builds for PATH: for a folder, every document under it; for a file, the documents
that file belongs to (its own document, or the multi-page manual one of whose pages it is). The
corpus root is the folder (or the file's folder; ``--root`` widens it, e.g. so images in a sibling
folder are inside it); a PDF or DOCX file is read alone, without the other files of its folder
(unless ``--root`` is given). ``--why`` adds, to each heading, the rule that set its level (numbering,
font size, section vocabulary, source level; "outline" for a PDF bookmark) and to each leaf its
page. ``--ignore-outline`` builds PDF trees from typography alone, as for a PDF without bookmarks. ``--reconstruct OUT``
writes each recovered tree as Markdown (``OUT`` a ``.md`` file for one document, else a folder):
headings by depth, images and tables in place, ready to inspect, correct and ingest again
(``ham-recon`` is the same as ``ham-tree --reconstruct``). The ingest report goes to stderr.
Exit status 0, or 1 when nothing was parsed for PATH.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ham.document import Document, render_tree

SINGLE_FILE = (".pdf", ".docx")   # formats whose file is a whole document


def belongs_to(doc: Document, rel: str) -> bool:
    """``rel`` is the document's source, one of its pages, or a MinerU file beside its content list."""
    if doc.source == rel or any(node.source == rel for node in doc.root.walk()):
        return True
    if doc.format != "mineru":
        return False
    from ham.ingest.mineru_files import belongs

    return belongs(doc.source, rel)


def tree_parser(prog: str = "ham-tree") -> argparse.ArgumentParser:
    from ham.ingest import FORMATS

    parser = argparse.ArgumentParser(prog=prog, description="Print the hierarchy tree ingest "
                                     "builds for a document or every document in a folder.")
    parser.add_argument("path", type=Path, help="a document file or a corpus folder")
    parser.add_argument("--format", choices=sorted(FORMATS), help="only try this format")
    parser.add_argument("--root", type=Path, help="corpus root (default: PATH's folder, or PATH)")
    parser.add_argument("--why", action="store_true", help="show the rule behind each heading's level")
    parser.add_argument("--ignore-outline", action="store_true",
                        help="PDFs: ignore the outline (bookmarks); headings from typography alone")
    parser.add_argument("--reconstruct", type=Path, metavar="OUT",
                        help="write the recovered tree(s) as Markdown to OUT (.md file or folder)")
    return parser


def tree_main(argv: list[str] | None = None, prog: str = "ham-tree") -> int:
    from ham.ingest import ingest_corpus

    args = tree_parser(prog).parse_args(argv)
    path: Path = args.path
    if not path.exists():
        print(f"{prog}: {path} does not exist", file=sys.stderr)
        return 1
    root = args.root or (path if path.is_dir() else path.parent)
    # a PDF or DOCX is a document on its own: its folder's other files (a downloads folder) are not
    # read; an HTML page or a parser's JSON belongs to the documents of its folder
    alone = path.is_file() and path.suffix.lower() in SINGLE_FILE and args.root is None
    docs, report = ingest_corpus(root, [args.format] if args.format else None,
                                 pdf_outline=not getattr(args, "ignore_outline", False),
                                 only=path if alone else None)
    if path.is_file():
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            print(f"{prog}: {path} is not under the corpus root {root}", file=sys.stderr)
            return 1
        docs = [d for d in docs if belongs_to(d, rel)]
    elif args.root is not None:
        try:
            inside = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            print(f"{prog}: {path} is not under the corpus root {root}", file=sys.stderr)
            return 1
        docs = [d for d in docs if inside == "." or d.source.startswith(inside + "/")]
    if args.reconstruct is not None and docs:
        from ham.ingest.recon import write_reconstruction

        for target in write_reconstruction(docs, root, args.reconstruct):
            print(f"{prog}: wrote {target}", file=sys.stderr)
    else:
        for i, doc in enumerate(docs):
            if i:
                print()
            print(render_tree(doc, why=args.why))
    print(report.summary(), file=sys.stderr)
    if not docs:
        print(f"{prog}: no document parsed from {path}", file=sys.stderr)
        return 1
    return 0


def recon_main(argv: list[str] | None = None) -> int:
    """``ham-recon PATH OUT [--format NAME] [--root DIR]``: ``ham-tree PATH --reconstruct OUT``."""
    from ham.ingest import FORMATS

    parser = argparse.ArgumentParser(prog="ham-recon", description="Write the hierarchy recovered from a "
                                     "flattened source (MinerU list, PDF, flat Markdown, MRAMG) as Markdown.")
    parser.add_argument("path", help="a document file or a corpus folder")
    parser.add_argument("out", help="a .md file (one document) or a folder")
    parser.add_argument("--format", choices=sorted(FORMATS))
    parser.add_argument("--root")
    args = parser.parse_args(argv)
    rest = [args.path, "--reconstruct", args.out]
    rest += ["--format", args.format] if args.format else []
    rest += ["--root", args.root] if args.root else []
    return tree_main(rest, prog="ham-recon")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(tree_main())
