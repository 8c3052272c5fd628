"""Imports point down the stage order only, function-local ones included, and no package has an
import cycle among its own modules. Read from the source (the AST), so a lazy import inside a
function counts as much as one at the top; imports under ``if TYPE_CHECKING:`` are annotations
only and do not count. The layers are docs/architecture.md's, lowest first."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

HAM = Path(__file__).resolve().parents[1] / "ham"

# lowest first; a module may import its own layer's and lower layers' modules, never higher ones
LAYERS = [
    {"settings", "paths", "text", "images", "cache", "records", "protocols", "prompt_file", "answer"},
    {"backends"},
    {"document"},
    {"units", "pages"},
    {"granularity"},
    {"ingest"},
    {"datasets"},
    {"enrich"},
    {"represent"},
    {"index"},
    {"retrieve"},
    {"methods"},
    {"generate"},
    {"metrics"},
    {"systems"},     # other RAG systems run in their own venvs: retrieval and generation of their own
    {"conf"},
    {"run"},
    {"report"},
    {"topo"},
    {"cli"},
    {"__init__"},
]
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(HAM.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: Path) -> list[tuple[str, int]]:
    """(imported ham module, line) for every runtime import in ``path``."""
    me = module_name(path)
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):   # each name, as `module.name` (it may be a module)
            if node.level:
                package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        if not _type_checking_only(node, parents):
            found += [(n, node.lineno) for n in names if n == "ham" or n.startswith("ham.")]
    return found


def all_imports() -> dict[str, list[tuple[str, int]]]:
    return {module_name(p): imports_of(p) for p in sorted(HAM.rglob("*.py"))}


def test_every_top_level_module_has_a_layer():
    tops = {top(module_name(p)) for p in HAM.rglob("*.py")}
    assert tops <= set(LEVEL), f"give these a layer in LAYERS: {sorted(tops - set(LEVEL))}"


def test_imports_point_down_the_stage_order():
    backward = []
    for module, imported in all_imports().items():
        for target, line in imported:
            a, b = top(module), top(target)
            if a != b and b in LEVEL and LEVEL[b] > LEVEL[a]:
                backward.append(f"{module}:{line} imports {target} ({a} is below {b})")
    assert not backward, "\n".join(backward)


def test_no_package_has_an_import_cycle_among_its_modules():
    graph: dict[str, set[str]] = defaultdict(set)
    modules = all_imports()
    for module, imported in modules.items():
        for target, _ in imported:
            while target not in modules and "." in target:   # `from ham.x import name`: the module ham.x
                target = target.rpartition(".")[0]
            if target != module and target in modules and top(target) == top(module) \
                    and not module.startswith(target + "."):   # a module importing its package's __init__
                graph[module].add(target)
    cycles = []
    for start in sorted(graph):   # a path from a module back to itself
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert not cycles, "\n".join(sorted(set(cycles)))


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    from ham.run.job import run\n", [("ham.run.job.run", 2)]),
    ("def f():\n    import ham.run.job\n", [("ham.run.job", 2)]),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ham.run.job import run\n", []),
    ("from . import sparse\n", [("ham.index.sparse", 1)]),
])
def test_the_checker_sees_local_imports_and_skips_type_checking_ones(tmp_path, source, expected, monkeypatch):
    fake = HAM / "index" / "__layers_probe__.py"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert imports_of(fake) == expected
