"""The one output layer (formats/output.py): flags in, one writer out, and a new format added in that
module alone reaches every command that takes --csv."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from yahtzee_cli.cli.app import COMMANDS, outputs
from yahtzee_cli.errors import ConflictingOptions
from yahtzee_cli.formats import output
from yahtzee_cli.formats.output import Output


def _app() -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.command()
    @outputs()
    def demo(json: bool = False, csv: bool = False, quiet: bool = False, *, out: Output) -> None:
        out.record({"type": "demo", "a": 1, "b": "x y"})
        out.table(["a", "b"], [[1, "x y"], [2, None]])
        out.say("a is 1")

    @app.command()
    def other() -> None:  # (a second command keeps Typer from folding the app into one command)
        pass

    return app


def _tsv_row(values: Any) -> bytes:
    return ("\t".join("" if v is None else str(v) for v in values) + "\n").encode()


def test_each_format_writes_its_own_form_and_quiet_silences_text() -> None:
    app = _app()
    run = CliRunner().invoke
    assert run(app, ["demo"]).stdout == "a is 1\n"
    assert run(app, ["demo", "--json"]).stdout == '{"type":"demo","a":1,"b":"x y"}\n'
    assert run(app, ["demo", "--csv"]).stdout == "a,b\n1,x y\n2,\n"
    assert run(app, ["demo", "--quiet"]).stdout == ""
    assert run(app, ["demo", "--csv", "--quiet"]).stdout == "a,b\n1,x y\n2,\n"  # quiet silences text only
    both = run(app, ["demo", "--json", "--csv"])  # (the yahtzee app words it: yahtzee: error: ..., exit 2)
    assert isinstance(both.exception, ConflictingOptions) and both.exception.exit_status == 2 and both.stdout == ""


def test_a_new_row_format_is_one_entry_in_one_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """TSV, say: a row writer and its entry in formats/output.py's ROW_FORMATS; a command that takes
    --csv takes --tsv (right after --csv in its help) and writes its rows that way, with no change to
    the command."""
    monkeypatch.setitem(output.ROW_FORMATS, "tsv", output.RowFormat(_tsv_row, "Tab-separated rows."))
    app = _app()
    run = CliRunner().invoke
    assert run(app, ["demo", "--tsv"]).stdout == "a\tb\n1\tx y\n2\t\n"
    help_text = run(app, ["demo", "--help"]).stdout
    assert help_text.index("--csv") < help_text.index("--tsv") < help_text.index("--quiet")
    assert "Tab-separated rows." in help_text
    assert isinstance(run(app, ["demo", "--csv", "--tsv"]).exception, ConflictingOptions)


_WITH_TSV = """
import sys
from yahtzee_cli.formats import output
output.ROW_FORMATS["tsv"] = output.RowFormat(
    lambda values: ("\\t".join("" if v is None else str(v) for v in values) + "\\n").encode(), "Tab-separated rows.")
from yahtzee_cli.cli import main
sys.argv = ["yahtzee", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("args", [["score", "33322", "--box", "chance"], ["score", "12345"],
                                  ["validate", "fixtures/logs/yahtzee.json"], ["replay", "fixtures/logs/yahtzee.json"]])
def test_the_yahtzee_commands_take_a_format_registered_in_formats_output(args: list[str]) -> None:
    """The real commands, with TSV registered in ROW_FORMATS alone: --tsv writes the rows --csv writes,
    tab-separated (no cell of these has a comma, a quote or a tab)."""
    from conftest import REPO

    def run(*more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", _WITH_TSV, *args, *more], capture_output=True, text=True,
                              cwd=REPO, timeout=300)

    tsv, csv = run("--tsv"), run("--csv")
    assert tsv.returncode == csv.returncode == 0, tsv.stderr
    assert csv.stdout and tsv.stdout == csv.stdout.replace(",", "\t")


def test_the_formats_are_registered_in_one_place() -> None:
    """Every command's output flags come from the output layer (the one --csv, made from ROW_FORMATS,
    the one --json and --quiet), and no command module writes JSON or CSV itself: none imports csv,
    orjson or the JSON encoder."""
    from yahtzee_cli.cli.app import app

    root = typer.main.get_command(app)  # (its commands are built from their modules on first use)
    helps: dict[str, set[str]] = {"--csv": set(), "--json": set(), "--quiet": set()}
    for name in COMMANDS:
        cmd = root.commands[name]  # type: ignore[attr-defined]
        for sub in list(getattr(cmd, "commands", {}).values()) or [cmd]:
            for p in sub.params:
                for flag in helps:
                    if flag in getattr(p, "opts", ()):
                        helps[flag].add(p.help)
    assert helps["--csv"] == {output.ROW_FORMATS["csv"].help}
    assert len(helps["--json"]) == 1 and len(helps["--quiet"]) == 1
    cli_dir = Path(output.__file__).parents[1] / "cli"
    for path in cli_dir.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] in ("csv", "orjson") or n.endswith("jsonio") for n in names), path.name
