#!/usr/bin/env python3
"""Fetch the linked-general set's manual (Git 2.39.5, Debian ``git-doc``) into ``corpus/<name>/``.

    python3 data/devlinks/fetch.py            # every manual in manifest.json
    python3 data/devlinks/fetch.py --force    # fetch again even when corpus/<name>/ exists

The same download, checksum and unpacking as ``data/devbench/fetch.py``, with this folder's
manifest: apt-get download (else a Debian mirror at the manifest's pool path), the SHA-256 checked
when the version equals the manifest's, the .deb unpacked in Python, the listed pages (the man
pages and guides, ``howto/`` and ``technical/``) and stylesheet copied to ``corpus/git/``, what was
fetched recorded in ``fetched.json`` beside the corpus. Standard library only.

The package's ``index.html`` is a symbolic link to ``git.html`` and is not copied (only regular
files are), so the corpus has 241 pages.
"""
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":   # data/devbench/fetch.py's main with this folder's manifest
    sys.exit(runpy.run_path(str(HERE.parent / "devbench" / "fetch.py"))["main"](here=HERE))
