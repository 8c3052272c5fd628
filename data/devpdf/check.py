#!/usr/bin/env python3
"""Check the gold of the PDF question set (``questions.jsonl``) against ham's ingest of its manuals.

    python3 data/devpdf/check.py        # after python3 data/devpdf/fetch.py; exit 1 on any problem
    python3 data/devpdf/check.py FILE   # another questions file in the same format

The rules are data/devcheck/check.py's (loaded by path and run on this folder's questions and
corpus): every gold passage is 20-280 characters and, whitespace collapsed and lower-cased, a
substring of exactly one text or table unit (the default ``units`` option's) of its gold page (here
the whole PDF, so a passage is unique in its manual); gold images are image leaves the reference
answer shows; gold headings lie on a gold unit's path; a ``parent_general`` passage lies in the parent or grandparent section of
another's; a ``tutorial``'s passages span two sections. Standard library and ham only.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _devcheck():
    spec = importlib.util.spec_from_file_location("devcheck_check", HERE.parent / "devcheck" / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return _devcheck().main(Path(argv[0]) if argv else HERE / "questions.jsonl", HERE / "corpus")


if __name__ == "__main__":
    sys.exit(main())
