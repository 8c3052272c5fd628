"""data/devbench/fetch.py takes the manifest's exact release when any source has it: apt with
``package=version`` first, then the mirror's pool path (the security archive for pool/updates/),
and the release apt offers only when neither has it (a machine whose apt lacks the security
archive once got PostgreSQL 15.18 for questions written against 15.20)."""
import importlib.util
import subprocess
from pathlib import Path

import pytest

FETCH = Path(__file__).resolve().parents[2] / "data" / "devbench" / "fetch.py"
MANUAL = {"package": "pkg-doc", "version": "2.0-1",
          "filename": "pool/updates/main/p/pkg/pkg-doc_2.0-1_all.deb"}


@pytest.fixture()
def fetch():
    spec = importlib.util.spec_from_file_location("devbench_fetch_under_test", FETCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_apt(offered: str, calls: list):
    """apt-get download that has only ``offered``: ``pkg=offered`` or a bare ``pkg`` succeed."""
    def run(cmd, cwd, **_):
        calls.append(cmd[2])
        name, _, version = cmd[2].partition("=")
        if version and version != offered:
            raise subprocess.CalledProcessError(100, cmd)
        (Path(cwd) / f"{name}_{offered}_all.deb").write_bytes(f"deb {offered}".encode())
    return run


class Reply:
    def __init__(self, body: bytes):
        self.body = body

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def read(self):
        return self.body


def fake_urlopen(served: dict, calls: list):
    def urlopen(url, timeout):
        calls.append(url)
        if url not in served:
            raise OSError(f"404 {url}")
        return Reply(served[url])
    return urlopen


def sources(fetch, monkeypatch, apt_offers: str | None, served: dict) -> tuple[list, list]:
    """apt with only ``apt_offers`` (None: no apt) and mirrors serving ``served``: the apt specs
    and URLs asked for, in order."""
    apt_calls, urls = [], []
    monkeypatch.setattr(fetch.shutil, "which", lambda _: None if apt_offers is None else "/usr/bin/apt-get")
    monkeypatch.setattr(fetch.subprocess, "run", fake_apt(apt_offers, apt_calls))
    monkeypatch.setattr(fetch.urllib.request, "urlopen", fake_urlopen(served, urls))
    return apt_calls, urls


def test_exact_version_from_apt_when_apt_has_it(fetch, monkeypatch, tmp_path):
    apt_calls, urls = sources(fetch, monkeypatch, "2.0-1", {})
    assert fetch.download(MANUAL, "http://mirror/debian", tmp_path) == (b"deb 2.0-1", "2.0-1")
    assert apt_calls == ["pkg-doc=2.0-1"] and urls == []


def test_security_archive_before_the_older_release_apt_offers(fetch, monkeypatch, tmp_path):
    security = f"{fetch.SECURITY_MIRROR}/{MANUAL['filename']}"
    apt_calls, urls = sources(fetch, monkeypatch, "1.8-1", {security: b"exact"})
    assert fetch.download(MANUAL, "http://mirror/debian", tmp_path) == (b"exact", "2.0-1")
    assert apt_calls == ["pkg-doc=2.0-1"]
    assert urls == [f"http://mirror/debian/{MANUAL['filename']}", security]


def test_other_release_only_when_no_source_has_the_pinned_one(fetch, monkeypatch, tmp_path):
    apt_calls, urls = sources(fetch, monkeypatch, "1.8-1", {})
    assert fetch.download(MANUAL, "http://mirror/debian", tmp_path) == (b"deb 1.8-1", "1.8-1")
    assert apt_calls == ["pkg-doc=2.0-1", "pkg-doc"] and len(urls) == 2


def test_no_apt_and_no_mirror_is_a_clear_error(fetch, monkeypatch, tmp_path):
    sources(fetch, monkeypatch, None, {})
    with pytest.raises(SystemExit, match="pkg-doc 2.0-1: not found"):
        fetch.download(MANUAL, "http://mirror/debian", tmp_path)
