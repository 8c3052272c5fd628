"""The settings reference (docs/options.md), generated from the declarations: for each config group
its options, the class each option builds, and that class's settings (type, default, constraints,
how it enters the run id, what it means). ``python -m ham.conf.reference`` rewrites the page;
``--check`` exits 1 when the page is not what the code says (a test runs it).

The same reading of the option files gives ``ham --help`` its list of groups (``groups``)."""
from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from pathlib import Path

import yaml

from ham.conf import CHECKOUT, CONF_DIR, site_folders
from ham.conf.exclude import EXCLUDE, excluded
from ham.conf.schema import COMPONENTS, PLAIN_GROUPS, load
from ham.settings import Setting, settings_of

PAGE = CHECKOUT / "docs" / "options.md"
NOT_GROUPS = {"hydra", "local", "__pycache__"}
IDENTITY = {"hash": "hashed", "content": "by content", "model": "by weights / name", "prompt": "by name / file content",
            "exclude": "not in run id"}


def groups(roots: list[Path] | None = None) -> dict[str, list[str]]:
    """Group -> its options, over the packaged defaults and the site folders (conf/, experiments/);
    ``hydra/launcher`` included, the internal ``schema/*`` groups never."""
    found: dict[str, set[str]] = {}
    for root in roots if roots is not None else [CONF_DIR, *site_folders()]:
        for folder in (p for p in root.iterdir() if p.is_dir() and p.name not in NOT_GROUPS):
            found.setdefault(folder.name, set()).update(f.stem for f in folder.glob("*.yaml"))
        launchers = root / "hydra" / "launcher"
        if launchers.is_dir():
            found.setdefault("hydra/launcher", set()).update(f.stem for f in launchers.glob("*.yaml"))
    return {g: sorted(o) for g, o in sorted(found.items()) if o}


def _type_name(hint) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or type(hint).__name__ == "UnionType":
        return " | ".join(_type_name(a) for a in args)
    if origin in (list, tuple, dict, typing.Union) or origin is not None:
        inner = ", ".join(_type_name(a) for a in args if a is not Ellipsis)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if hint is type(None):
        return "None"
    return getattr(hint, "__name__", str(hint).replace("typing.", ""))


def _default(s: Setting) -> str:
    if s.required:
        return "required"
    value = s.default
    if dataclasses.is_dataclass(value):
        return "(block below)"
    return f"`{value!r}`" if not isinstance(value, str) else f"`{value}`"


def _constraint(s: Setting) -> str:
    if s.choices:
        return "one of " + ", ".join(f"`{c}`" for c in s.choices)
    if s.range is not None:
        lo, hi = s.range.min, s.range.max
        return f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"{lo} .. {hi}"
    return ""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def settings_table(cls, prefix: str = "", where: str = "") -> list[str]:
    """``where``: the key the class sits at in its first group (``judge.client.``), which the
    cross-cutting exclusion patterns (``ham.conf.exclude``) are matched against."""
    lines = ["| setting | type | default | constraint | run id | meaning |", "| --- | --- | --- | --- | --- | --- |"]
    blocks = []
    for s in settings_of(cls).values():
        identity = IDENTITY[s.identity] + (f": {s.why}" if s.identity == "exclude" and s.why else "")
        pattern_why = excluded(f"{where}{prefix}{s.name}") if s.identity == "hash" else None
        if pattern_why:
            identity = f"not in run id: {pattern_why}"
        lines.append(f"| `{prefix}{s.name}` | {_cell(_type_name(s.type))} | {_cell(_default(s))} | "
                     f"{_cell(_constraint(s))} | {_cell(identity)} | {_cell(s.doc)} |")
        if dataclasses.is_dataclass(s.type):
            blocks.append((s.name, s.type))
    for name, block in blocks:
        lines += ["", f"`{prefix}{name}` ({block.__name__}):", "", *settings_table(block, f"{prefix}{name}.", where)]
    return lines


def option_schemas(path: Path) -> list[tuple[str, str]]:
    """(key prefix, class path) of the schemas an option file names."""
    raw = yaml.safe_load(path.read_text()) or {}
    out = []
    for entry in raw.get("defaults") or []:
        if isinstance(entry, str) and entry.startswith("/schema/"):
            spec, _, package = entry[len("/schema/"):].partition("@")
            group, _, name = spec.partition("/")
            match = [p for p in COMPONENTS.get(group, []) if p.rpartition(".")[2] == name]
            if match:
                out.append(("" if package in ("", "_here_") else package + ".", match[0]))
    return out


def _based_on(path: Path) -> str:
    """An option built on another option of its group (``defaults: [mramg]``)."""
    raw = yaml.safe_load(path.read_text()) or {}
    bases = [e for e in raw.get("defaults") or [] if isinstance(e, str) and not e.startswith("/") and e != "_self_"]
    return ", ".join(f"as `{b}`" for b in bases)


def _first_line(path: Path) -> str:
    comments = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        comments.append(line.lstrip("# ").strip())
    return " ".join(comments)


def render() -> str:
    out = ["# Settings reference", "",
           "Generated from the components' signatures by `python -m ham.conf.reference` (a test fails when",
           "this page is stale). Each option file in `ham/conf/<group>/` names the class it builds and sets",
           "only what differs from that class's defaults; `ham <group>=<option> --cfg job` prints the",
           "composed values. *run id*: how a setting enters the run's identity (ham/run/identity.py).", ""]
    documented: set[str] = set()
    for group, options in groups([CONF_DIR]).items():
        out += [f"## {group}", "", "| option | builds | what |", "| --- | --- | --- |"]
        for option in options:
            path = CONF_DIR / group / f"{option}.yaml"
            built = ", ".join(f"`{p.rpartition('.')[2]}`" + (f" (`{pre.rstrip('.')}`)" if pre else "")
                              for pre, p in option_schemas(path)) or _based_on(path)
            out.append(f"| `{option}` | {built} | {_cell(_first_line(path))} |")
        out.append("")
        placed = {p: pre for o in options for pre, p in reversed(option_schemas(CONF_DIR / group / f"{o}.yaml"))}
        if group in PLAIN_GROUPS:
            placed = {PLAIN_GROUPS[group]: "", **placed}
        for path, pre in placed.items():
            if path in documented:
                continue
            documented.add(path)
            out += [f"### `{path}`", "", *settings_table(load(path), where=f"{group}.{pre}"), ""]
    root = load("ham.conf.root.Root")
    out += ["## the run (config.yaml)", "", *settings_table(root), ""]
    out += ["## excluded from the run id by name", "", "Settings of these names never change a result (ham/conf/exclude.py):", "",
            "| pattern | why |", "| --- | --- |", *[f"| `{k}` | {_cell(v)} |" for k, v in EXCLUDE.items()], ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ham.conf.reference", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/options.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is stale: run python -m ham.conf.reference", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
