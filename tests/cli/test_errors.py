"""One error type for the library, one handler in the CLI: a YahtzeeError is one stderr line and its
exit status; any other exception (a bug) is never dressed up as bad input."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

from yahtzee_cli import errors
from yahtzee_cli.errors import PROBLEM, USAGE, YahtzeeError


def _exception_classes() -> list[tuple[str, str, list[str]]]:
    """(module file, class name, base names) of every exception class the package defines."""
    out = []
    for path in sorted((REPO / "yahtzee_cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]
                if any(b.endswith(("Error", "Exception")) or b in ("ValueError", "RuntimeError") for b in bases):
                    out.append((str(path.relative_to(REPO)), node.name, bases))
    return out


def test_every_public_library_error_is_a_yahtzee_error() -> None:
    """Public exception classes live in errors.py, all under YahtzeeError; elsewhere only private
    control-flow exceptions (a leading underscore) and the two stop signals, which are no errors:
    ChunkCancelled (a run asked to stop) and PipeClosed (stdout's reader went away)."""
    signals = {"ChunkCancelled", "PipeClosed"}
    stray = [(f, name) for f, name, _ in _exception_classes()
             if f != "yahtzee_cli/errors.py" and not name.startswith("_") and name not in signals]
    assert stray == []
    for _, name, _ in (c for c in _exception_classes() if c[0] == "yahtzee_cli/errors.py"):
        cls = getattr(errors, name)
        assert issubclass(cls, YahtzeeError) and issubclass(cls, ValueError), name


def test_exit_statuses() -> None:
    assert errors.RulesError.exit_status == USAGE == 2
    for cls in (errors.InputError, errors.GameError, errors.IllegalMove, errors.PositionError, errors.CorruptTable):
        assert cls.exit_status == PROBLEM == 1


@pytest.mark.parametrize(("args", "code", "words"), [
    (["score", "1", "2", "3", "4", "9"], 2, "1-6"),
    (["score", "--rules", "nope", "1", "2", "3", "4", "5"], 2, "'nope'"),
    (["poker", "11111", "2345x"], 2, "2345x"),
    (["score", "--set", "joker=maybe", "1", "1", "1", "1", "1"], 2, "maybe"),
])
def test_a_library_error_is_one_line_and_its_status(cli, args: list[str], code: int, words: str) -> None:
    r = cli(args)
    assert r.exit_code == code, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("yahtzee: error: ") and words in lines[0], r.stderr
    assert r.stdout == ""


def test_a_bug_is_not_reported_as_bad_input(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain ValueError from deep inside (not a YahtzeeError) escapes: `score --sheet` once caught
    every ValueError and called it a problem in the sheet."""
    from yahtzee_cli.formats import replay

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("an internal bug")

    monkeypatch.setattr(replay, "position_from_data", broken)
    r = cli(["score", "1", "2", "3", "4", "5", "--sheet", str(REPO / "fixtures" / "sheets" / "anna-and-ben.json")])
    assert isinstance(r.exception, ValueError) and not isinstance(r.exception, YahtzeeError)
    assert "an internal bug" not in r.stderr


def test_library_messages_never_name_command_line_options() -> None:
    """Messages raised by the library (outside cli/) say what is wrong in its own words."""
    bad = []
    for path in sorted((REPO / "yahtzee_cli").rglob("*.py")):
        if "cli" in path.relative_to(REPO / "yahtzee_cli").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                text = ast.unparse(node.exc)
                if " --" in text or "'--" in text or '"--' in text:
                    bad.append(f"{path.name}: {text}")
    assert bad == []
