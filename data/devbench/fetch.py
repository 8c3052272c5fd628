#!/usr/bin/env python3
"""Fetch the development benchmark's manuals from Debian packages into ``corpus/<name>/``.

    python data/devbench/fetch.py            # every manual in manifest.json
    python data/devbench/fetch.py --force    # fetch again even when corpus/<name>/ exists

Each package is taken at the manifest's exact version: ``apt-get download package=version`` when
apt is present, else from a Debian mirror (``--mirror``, default deb.debian.org; the security
archive for ``pool/updates/`` paths) at the manifest's pool path. Only when no source has that
version is the release apt offers used (mirrors keep only the current point release), with a
warning. The exact version must match the manifest's SHA-256; the version taken is recorded in
``fetched.json`` beside the corpus. The .deb is unpacked in Python (ar + tar), so no dpkg is needed.
Only the standard library is used.
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ar_members(data: bytes) -> dict[str, bytes]:
    """Members of a Unix ar archive (a .deb is one)."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive (.deb)")
    out, pos = {}, 8
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        out[name] = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
    return out


def deb_data_tar(deb: bytes) -> tarfile.TarFile:
    members = ar_members(deb)
    name = next((n for n in members if n.startswith("data.tar")), None)
    if name is None:
        raise ValueError("the .deb has no data.tar member")
    return tarfile.open(fileobj=io.BytesIO(members[name]), mode="r:*")


SECURITY_MIRROR = "http://deb.debian.org/debian-security"   # where pool/updates/ files live


def _apt_download(spec: str, package: str, workdir: Path) -> tuple[bytes, str]:
    subprocess.run(["apt-get", "download", spec], cwd=workdir, check=True, capture_output=True, text=True)
    deb = next(workdir.glob(f"{package}_*.deb"))
    return deb.read_bytes(), deb.name.split("_")[1].replace("%3a", ":")


def download(manual: dict, mirror: str, workdir: Path) -> tuple[bytes, str]:
    """(the .deb's bytes, its version): the manifest's exact release when any source has it (apt
    with ``package=version``, then the mirror's pool path; ``pool/updates/`` files are on the
    security archive), else the release apt offers, which ``fetch`` warns about."""
    package, version = manual["package"], manual["version"]
    apt = shutil.which("apt-get") is not None
    if apt:
        try:
            return _apt_download(f"{package}={version}", package, workdir)
        except (subprocess.CalledProcessError, StopIteration):
            pass
    mirrors = [mirror] + ([SECURITY_MIRROR] if manual["filename"].startswith("pool/updates/") else [])
    for base in mirrors:
        url = f"{base.rstrip('/')}/{manual['filename']}"
        try:
            with urllib.request.urlopen(url, timeout=120) as reply:
                return reply.read(), version
        except OSError as exc:   # urllib's HTTPError and URLError are OSErrors
            print(f"{url}: {exc}", file=sys.stderr)
    if apt:
        return _apt_download(package, package, workdir)
    raise SystemExit(f"{package} {version}: not found by apt nor at {', '.join(mirrors)}")


def wanted(rel: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(rel, p) or (p.endswith("/**") and rel.startswith(p[:-2])) for p in patterns)


def fetch(manual: dict, corpus: Path, mirror: str) -> dict:
    dest = corpus / manual["name"]
    with tempfile.TemporaryDirectory() as tmp:
        deb, version = download(manual, mirror, Path(tmp))
    digest = hashlib.sha256(deb).hexdigest()
    if version == manual["version"] and digest != manual["sha256"]:
        raise SystemExit(f"{manual['package']} {version}: SHA-256 {digest} does not match the manifest's "
                         f"{manual['sha256']}")
    if version != manual["version"]:
        print(f"warning: {manual['package']} is at {version}, the questions were written against "
              f"{manual['version']}; run python -m tests.support.devbench_gold to see that every gold "
              "passage and image is still there", file=sys.stderr)
    prefix = manual["source_dir"].strip("/") + "/"
    if dest.exists():
        shutil.rmtree(dest)
    n = 0
    with deb_data_tar(deb) as tar:
        for member in tar.getmembers():
            name = member.name.lstrip("./")
            if not member.isfile() or not name.startswith(prefix):
                continue
            rel = name[len(prefix):]
            if not wanted(rel, manual["include"]):
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
            n += 1
    print(f"{manual['name']}: {n} files from {manual['package']} {version} -> {dest}")
    return {"package": manual["package"], "version": version, "sha256": digest, "files": n}


def main(argv: list[str] | None = None, here: Path = HERE) -> int:
    """``here``: the folder of the manifest.json to fetch (data/pdfdev/fetch.py passes its own)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=here / "corpus")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    manifest = json.loads((here / "manifest.json").read_text())
    record_path = args.corpus.parent / "fetched.json"   # beside the corpus, not in it (not a document)
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    for manual in manifest["manuals"]:
        if not args.force and (args.corpus / manual["name"]).is_dir() and manual["name"] in record:
            print(f"{manual['name']}: already in {args.corpus / manual['name']} (--force to fetch again)")
            continue
        record[manual["name"]] = fetch(manual, args.corpus, args.mirror)
    args.corpus.mkdir(parents=True, exist_ok=True)
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
