"""Small command-line tools.

``ham-tree PATH [--format NAME] [--root DIR]`` prints the hierarchy tree(s) ingest builds for PATH:
for a folder, every document under it; for a file, the documents that file belongs to (its own
document, or the multi-page manual one of whose pages it is). The corpus root is the folder (or
the file's folder; ``--root`` widens it, e.g. so images in a sibling folder are inside it). The
ingest report goes to stderr. Exit status 0, or 1 when nothing was parsed for PATH.

``ham-show-unit UNIT_ID [OVERRIDE ...]`` prints the exact string a unit is embedded as
(``--find TEXT`` lists unit ids); ``ham-index [OVERRIDE ...]`` builds the indexes alone.
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


SHOW_UNIT_HELP = """usage: ham-show-unit [--find TEXT] [UNIT_ID ...] [OVERRIDE ...]

Print the exact string each unit is embedded as, under the run config composed from the Hydra
OVERRIDEs (the same ones `ham` takes), e.g.:

  ham-show-unit 'gnucash/part.managing_personal:58' text_repr=ct
  ham-show-unit --find "Reconcile from the menu" text_repr=st
  ham-show-unit 'markdown/loans:12' image_repr=li dataset=custom dataset.path=DIR dataset.questions=FILE

--find TEXT lists the units whose content contains TEXT (case-insensitive) with their ids.
The string goes to stdout, a header per unit (id, modality, representation, source) to stderr.
"""


def compose_config(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from ham.paths import PROJECT_ROOT

    with initialize_config_dir(config_dir=str(PROJECT_ROOT / "conf"), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def show_unit_main(argv: list[str] | None = None) -> int:
    from ham.cache import FolderCache
    from ham.ingest.corpus import load_corpus
    from ham.index.build import prepare_representer
    from ham.paths import resolve_path

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(SHOW_UNIT_HELP, end="")
        return 0 if args else 2
    find = None
    if args[0] == "--find":
        if len(args) < 2:
            print("ham-show-unit: --find needs TEXT", file=sys.stderr)
            return 2
        find, args = args[1].lower(), args[2:]
    overrides = [a for a in args if "=" in a]
    unit_ids = [a for a in args if "=" not in a]
    cfg = compose_config(overrides)
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache)
    if find is not None:
        for u in corpus.units:
            if find in u.content.lower():
                print(f"{u.unit_id}\t{u.modality}\t{' > '.join(u.full_path)}\t{u.content[:80]}")
        return 0
    by_id = corpus.by_id
    unknown = [i for i in unit_ids if i not in by_id]
    if unknown:
        print(f"ham-show-unit: no unit {', '.join(map(repr, unknown))} in {corpus.root} "
              f"(ham-show-unit --find TEXT lists unit ids)", file=sys.stderr)
        return 1
    cfg.progress = False
    representer, _ = prepare_representer(cfg, corpus, cache)
    for n, unit_id in enumerate(unit_ids):
        unit = by_id[unit_id]
        print(f"# {unit_id} ({unit.modality}, {representer.name_for(unit.modality)}) from {unit.source}", file=sys.stderr)
        print(("\n" if n else "") + representer(unit))
    return 0


def index_main() -> None:
    """``ham-index [OVERRIDE ...]``: ingest and index a corpus (summaries, descriptions, embeddings,
    faiss and sparse indexes) into the shared cache without answering any question, so a SLURM
    array can index first and generate later. Takes the same overrides as ``ham`` (and ``-m``)."""
    import json

    import hydra

    from ham.index.build import index_corpus
    from ham.paths import PROJECT_ROOT

    @hydra.main(version_base="1.3", config_path=str(PROJECT_ROOT / "conf"), config_name="config")
    def _index(cfg) -> None:
        info = index_corpus(cfg)
        print(json.dumps(info, indent=2))

    _index()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(tree_main())
