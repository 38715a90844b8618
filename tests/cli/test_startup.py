"""Start-up: `yahtzee` imports a command's module only when that command runs, and no pydantic or
numpy where the command does not need them (speed itself: benchmarks/bench_startup.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from yahtzee_cli.cli.app import COMMANDS, app

_IMPORTED = """
import sys
sys.argv = ["yahtzee", *sys.argv[1:]]
from yahtzee_cli.cli import main
try:
    main()
except SystemExit:
    pass
heavy = ("pydantic", "numpy", "numba", "rich", "yahtzee_cli.cli.")
print(" ".join(sorted(m for m in sys.modules if m.startswith(heavy) and m.count(".") <= 2
                      and m != "yahtzee_cli.cli.app")), file=sys.stderr)
"""


def _imported(*args: str) -> set[str]:
    res = subprocess.run([sys.executable, "-c", _IMPORTED, *args], capture_output=True, text=True, timeout=120)
    return set(res.stderr.split())


def test_the_help_lists_every_command_and_each_module_defines_its_commands() -> None:
    for module in {m for m, _ in COMMANDS.values()}:
        importlib.import_module(f"yahtzee_cli.cli.{module}")
    defined = {info.name or info.callback.__name__.replace("_", "-") for info in app.registered_commands
               if info.callback is not None} | {group.name for group in app.registered_groups}
    assert defined == set(COMMANDS)


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_version_and_help_import_no_command(args: list[str]) -> None:
    assert _imported(*args) == set()


def test_score_imports_its_own_module_only_and_no_numpy() -> None:
    mods = _imported("score", "1", "2", "3", "4", "5", "--box", "chance")
    assert "yahtzee_cli.cli.score" in mods
    assert {m for m in mods if m.startswith(("yahtzee_cli.cli.", "numpy", "numba"))} == {"yahtzee_cli.cli.score"}


def test_every_command_loads_on_demand(cli) -> None:  # noqa: ANN001
    for name in COMMANDS:
        r = cli([name, "--help"])
        assert r.exit_code == 0, (name, r.stderr)
        assert r.stdout.startswith("Usage: yahtzee " + name)
