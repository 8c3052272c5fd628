"""ham/conf/README.md says what every option of every group means: a new option file without a
row there fails here, as does a row for an option that no longer exists."""
from __future__ import annotations

import re
from pathlib import Path

import ham.conf

CONF = Path(ham.conf.__file__).parent
README = (CONF / "README.md").read_text(encoding="utf-8")


def sections() -> dict[str, str]:
    parts = re.split(r"^## (\S+)\n", README, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def option_files() -> dict[str, set[str]]:
    groups: dict[str, set[str]] = {}
    for path in CONF.rglob("*.yaml"):
        rel = path.relative_to(CONF)
        if len(rel.parts) < 2 or rel.parts[0] == "local":
            continue
        groups.setdefault("/".join(rel.parts[:-1]), set()).add(path.stem)
    return groups


def documented(section: str) -> set[str]:
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`([a-z0-9_]+)`", line.split("|")[1]))
    return names


def test_every_option_of_every_group_is_explained():
    docs = sections()
    for group, options in option_files().items():
        assert group in docs, f"ham/conf/README.md has no '## {group}' section"
        missing = options - documented(docs[group])
        assert not missing, f"ham/conf/README.md, {group}: no row for {sorted(missing)}"


def test_no_row_for_an_option_that_does_not_exist():
    files = option_files()
    for group, section in sections().items():
        if group in files:
            stale = documented(section) - files[group]
            assert not stale, f"ham/conf/README.md, {group}: rows for missing options {sorted(stale)}"
