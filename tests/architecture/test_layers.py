"""The package's layers import only downward, and no module imports itself back through others.

Every import counts, deferred ones inside functions and `importlib.import_module("...")` names
included: a cycle held together by deferred imports is still a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

PKG = REPO / "yahtzee_cli"

# What each layer may import (besides itself). Top to bottom: cli -> api -> play -> solver ->
# strategy -> store -> rules -> errors, text, limits, with formats beside strategy and store (all
# pure, formats needs neither).
BASE = {"errors", "text", "limits", "paths", "progress"}  # the bottom: every layer may use them
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "text": set(),
    "paths": set(),
    "progress": set(),
    "limits": {"errors"},
    "rules": BASE,
    "formats": BASE | {"rules"},
    "store": BASE | {"rules"},
    "strategy": BASE | {"rules", "store"},
    "solver": BASE | {"rules", "store", "strategy"},
    "play": BASE | {"rules", "formats", "store", "strategy", "solver"},
    "api": BASE | {"rules", "formats", "store", "strategy", "solver", "play"},
    "__init__": {"api", "errors"},
    "cli": BASE | {"__init__", "rules", "formats", "store", "strategy", "solver", "play", "api"},
    "__main__": {"cli"},
}
# never numpy or numba
PURE = ("errors", "text", "limits", "paths", "progress", "rules", "formats", "store", "strategy")
CORE = PURE + ("solver", "play", "api")  # never the CLI's libraries
HEAVY = {"numpy", "numba"}
CLI_ONLY = {"typer", "rich", "click"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> tuple[set[str], set[str]]:
    """(package modules, outside top-level packages) that module `name` imports anywhere in its code."""
    tree = ast.parse(path.read_text(), str(path))
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    inside: set[str] = set()
    outside: set[str] = set()

    def add(target: str) -> None:
        if target.split(".")[0] == "yahtzee_cli":
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            inside.add(target)
        else:
            outside.add(target.split(".")[0])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                mod = ".".join(anchor + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                add(full if full in known else mod)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            add(node.args[0].value)
    inside.discard(name)
    return inside, outside


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    mods = _modules()
    known = set(mods)
    inner: dict[str, set[str]] = {}
    outer: dict[str, set[str]] = {}
    for name, path in mods.items():
        inner[name], outer[name] = _imports(name, path, known)
    return inner, outer


def test_every_module_belongs_to_a_known_layer() -> None:
    assert {_layer(m) for m in _modules()} <= set(ALLOWED)


def test_layers_import_only_downward() -> None:
    inner, _ = _graph()
    wrong = sorted(f"{m} -> {t}" for m, targets in inner.items() for t in targets
                   if _layer(t) != _layer(m) and _layer(t) not in ALLOWED[_layer(m)])
    assert wrong == []


def test_no_import_cycle() -> None:
    """Tarjan's strongly connected components of the module graph: every one a single module."""
    inner, _ = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in inner.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(inner):
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_checker_sees_a_deferred_cycle(tmp_path: Path) -> None:
    """The cycle test can fail: a deferred import inside a function is seen as an edge."""
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from yahtzee_cli.solver import exact\n")
    inside, _ = _imports("yahtzee_cli.strategy.a", a, set(_modules()))
    assert inside == {"yahtzee_cli.solver.exact"}


@pytest.mark.parametrize("layer", PURE)
def test_pure_layers_never_import_numpy_or_numba(layer: str) -> None:
    _, outer = _graph()
    bad = {m: outer[m] & HEAVY for m in outer if _layer(m) == layer and outer[m] & HEAVY}
    assert bad == {}


def test_the_core_never_imports_the_cli_libraries() -> None:
    _, outer = _graph()
    bad = {m: outer[m] & CLI_ONLY for m in outer if _layer(m) in CORE and outer[m] & CLI_ONLY}
    assert bad == {}


def test_the_public_api_loads_without_numpy_numba_or_the_cli() -> None:
    code = ("import sys, yahtzee_cli; from yahtzee_cli import load_rules, score_roll, validate, replay, solve, hint, "
            "simulate, analyze; bad = [m for m in ('numpy', 'numba', 'typer', 'rich') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_package_ships_its_type_marker() -> None:
    assert (PKG / "py.typed").is_file()
