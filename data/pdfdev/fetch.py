#!/usr/bin/env python3
"""Fetch the PDF development set (issue 20) from Debian packages into ``corpus/<name>/``.

    python data/pdfdev/fetch.py            # every manual in manifest.json
    python data/pdfdev/fetch.py --force    # fetch again even when corpus/<name>/ exists

The same download, checksum and unpacking as ``data/devbench/fetch.py`` (apt-get download, else a
Debian mirror at the manifest's pool path; SHA-256 checked when the version equals the manifest's;
the .deb unpacked in Python). Two packages (gentle, cd-hit) are architecture amd64: on another
architecture apt-get fetches that architecture's build, whose checksum differs (warned, used).
What was fetched is recorded in ``fetched.json`` beside the corpus. Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("devbench_fetch", HERE.parent / "devbench" / "fetch.py")
devbench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(devbench)


def fetch(manual: dict, corpus: Path, mirror: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        deb, version = devbench.download(manual, mirror, Path(tmp))
    digest = hashlib.sha256(deb).hexdigest()
    if version == manual["version"] and digest != manual["sha256"]:
        print(f"warning: {manual['package']} {version}: SHA-256 {digest} is not the manifest's {manual['sha256']} "
              "(another architecture's build?)", file=sys.stderr)
    elif version != manual["version"]:
        print(f"warning: {manual['package']} is at {version}, the figures in docs/pdf_trees.md are for "
              f"{manual['version']}", file=sys.stderr)
    prefix = manual["source_dir"].strip("/") + "/"
    dest = corpus / manual["name"]
    dest.mkdir(parents=True, exist_ok=True)
    n = 0
    with devbench.deb_data_tar(deb) as tar:
        for member in tar.getmembers():
            name = member.name.lstrip("./")
            if member.isfile() and name.startswith(prefix) and devbench.wanted(name[len(prefix):], manual["include"]):
                (dest / Path(name).name).write_bytes(tar.extractfile(member).read())
                n += 1
    if not n:
        raise SystemExit(f"{manual['package']} {version}: no {manual['include']} under {prefix}")
    print(f"{manual['name']}: {n} file(s) from {manual['package']} {version} -> {dest}")
    return {"package": manual["package"], "version": version, "sha256": digest, "files": n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    manifest = json.loads((HERE / "manifest.json").read_text())
    record_path = args.corpus.parent / "fetched.json"
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    for manual in manifest["manuals"]:
        if not args.force and (args.corpus / manual["name"]).is_dir() and manual["name"] in record:
            print(f"{manual['name']}: already in {args.corpus / manual['name']} (--force to fetch again)")
            continue
        record[manual["name"]] = fetch(manual, args.corpus, args.mirror)
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
