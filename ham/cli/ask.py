"""``ham-ask "QUESTION" [OVERRIDE ...] [--html FILE] [--json]``: answer one question over a corpus.

    ham-ask "How do I reconcile an account?"                         # the bundled demo
    ham-ask "How do I add a footprint?" dataset=custom dataset.path=manuals/ --html answer.html

Takes the same overrides as ``ham``; no questions file is needed. The corpus is ingested and
indexed once (the cache is the run's: a second ``ham-ask`` or a ``ham`` run reuses it). Prints the
interleaved answer with each image's file, then the retrieved evidence with heading paths,
positions (page, figure label) and scores; ``--html`` writes the same page a run's report.html
shows, ``--json`` prints the prediction row instead.

On a corpus whose dense index is not built yet, the first answer comes from BM25 alone, printed
as a preliminary answer within seconds of ingest, while the embeddings are encoded; the full
answer follows (``ham.run.sparse_first``). ``--no-sparse-first`` (and ``--json``, which prints one
row) waits for the full answer only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def ask_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ham-ask", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("question", help="the question, in quotes")
    parser.add_argument("overrides", nargs="*", help="config overrides, as for ham (group=option, key=value)")
    parser.add_argument("--html", type=Path, help="also write the answer page (as a run's report.html) here")
    parser.add_argument("--json", action="store_true", help="print the prediction row as JSON (the full answer only)")
    parser.add_argument("--no-sparse-first", action="store_true",
                        help="on a new corpus, no preliminary answer from BM25 while the dense index is built")
    return parser


def ask_main(argv: list[str] | None = None) -> int:
    from ham.conf import ConfigError, compose
    from ham.report.text import answer_text, evidence_text
    from ham.report.viewer import write_rows_report
    from ham.run.build import corpus_root
    from ham.run.sparse_first import ask_sparse_first

    args = ask_parser().parse_args(argv)
    bad = [o for o in args.overrides if "=" not in o]
    if bad:
        print(f"ham-ask: {' '.join(bad)!r} is not an override (group=option or key=value); "
              "put the question in quotes", file=sys.stderr)
        return 2
    try:
        cfg = compose(["progress=false", *args.overrides], return_hydra_config=False)
        corpus_root(cfg)
    except ConfigError as exc:
        print(f"ham-ask: {exc}", file=sys.stderr)
        return 2

    def preliminary(row: dict, pending: dict, root) -> None:
        todo = ", ".join(f"{n:,} {m}" for m, n in pending.items())
        print(f"Preliminary answer, from BM25 alone: the dense index is not built yet ({todo} strings to encode; "
              "the full answer follows).\n")
        print(answer_text(row, root))
        print()
        print(evidence_text(row, root))
        print("\n" + "-" * 72 + "\nFull answer (dense + sparse retrieval):\n", flush=True)

    pipeline, row = ask_sparse_first(cfg, args.question, on_preliminary=None if args.json or args.no_sparse_first
                                     else preliminary)
    root = pipeline.corpus.root if pipeline.corpus is not None else None
    if args.json:
        print(json.dumps(row, ensure_ascii=False, indent=2))
    else:
        print(answer_text(row, root))
        print()
        print(evidence_text(row, root))
    if args.html:
        print(f"\nanswer page: {write_rows_report([row], root, args.html)}", file=sys.stderr)
    return 0 if row.get("failure") is None else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(ask_main())
