#!/usr/bin/env python3
"""Fetch the PDF question set's manuals (R-intro, GLPK; Debian ``r-doc-pdf``, ``glpk-doc``) into
``corpus/<name>/``.

    python3 data/devpdf/fetch.py            # every manual in manifest.json
    python3 data/devpdf/fetch.py --force    # fetch again even when corpus/<name>/ exists

The same download, checksum and unpacking as ``data/devbench/fetch.py``, with this folder's
manifest: apt-get download (else a Debian mirror at the manifest's pool path), the SHA-256 checked
when the version equals the manifest's, the .deb unpacked in Python, the listed PDF copied to
``corpus/<name>/``, what was fetched recorded in ``fetched.json`` beside the corpus. Standard library only.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    spec = importlib.util.spec_from_file_location("devbench_fetch", HERE.parent / "devbench" / "fetch.py")
    devbench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(devbench)
    return devbench.main(argv, here=HERE)


if __name__ == "__main__":
    sys.exit(main())
