"""One error voice: every usage error of every command and option is one line `yahtzee: error: ...`
on stderr, exit 2, in the tool's own words (no pydantic "Input should be ...", no traceback), with a
"did you mean" where a name is close to a valid one."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from conftest import FIXTURES

from yahtzee_cli.cli import app
from yahtzee_cli.cli.app import COMMANDS

BAD = "nope/x\u2603"  # no number, no name, no file: wrong for every option that takes a value
PYDANTIC = ("Input should", "Value error", "valid integer", "unable to parse", "Possible options", "Usage:")
# Valid arguments each command needs before its options are looked at (a game log, a roll, a file).
LOG = str(FIXTURES / "logs" / "yahtzee.json")
BASE = {"score": ["11111"], "validate": [LOG], "replay": [LOG], "analyze": [LOG], "hint": ["11111"],
        "poker": ["11111"], "rules": [], "schema": [], "solve": [], "simulate": ["-n", "1"], "play": ["{new}"],
        "log new": ["{new}"], "log add": ["{game}"], "log undo": ["{game}"], "log end": ["{game}"],
        "log set": ["{game}"], "log show": ["{game}"], "stats": [LOG]}
# Options whose value is free text (names): a bad value there is an empty one.
FREE_TEXT = {"--players": "", "--player": ""}
# Filters: any text is a valid one (no game matching it is an answer, not an error).
FILTERS = {("stats", "--player"), ("stats", "--rules")}


def _commands() -> Iterator[tuple[list[str], Any]]:
    """(words, command) for every command and sub-command of the app, from the app itself."""
    root = typer.main.get_command(app)
    for name in COMMANDS:
        cmd = root.commands[name]  # type: ignore[attr-defined]
        subs = getattr(cmd, "commands", None)
        if subs:
            yield from (([name, sub], c) for sub, c in subs.items())
        else:
            yield [name], cmd


def _cases() -> list[Any]:
    cases = []
    for words, cmd in _commands():
        for p in cmd.params:
            opts = [o for o in p.opts if o.startswith("-")]
            if p.param_type_name == "argument":
                cases.append(pytest.param(words, [BAD], id=f"{' '.join(words)} {p.metavar}"))
            elif getattr(p, "is_flag", False):
                cases += [pytest.param(words, [f"{o}=x"], id=f"{' '.join(words)} {o}=x") for o in opts if o[1] == "-"]
            elif (" ".join(words), opts[0]) not in FILTERS:
                for o in opts:
                    cases.append(pytest.param(words, [o, FREE_TEXT.get(opts[0], BAD)], id=f"{' '.join(words)} {o}"))
    return cases


CASES = _cases()


def test_every_command_and_option_is_covered() -> None:
    """The cases come from the app: a new option is fed a bad value without a word here."""
    ids = {c.id for c in CASES}
    assert "simulate --games" in ids and "score -b" in ids and "log add --column" in ids and "score --json=x" in ids
    assert len(CASES) > 100


@pytest.mark.parametrize(("words", "bad"), CASES)
def test_a_bad_value_is_one_line_in_the_tools_voice(cli, tmp_path, words: list[str], bad: list[str]) -> None:
    game = tmp_path / "game.json"  # a game in progress, for the log commands to change
    shutil.copy(FIXTURES / "logs" / "in-progress.json", game)
    base = [a.replace("{new}", str(tmp_path / "new.json")).replace("{game}", str(game))
            for a in BASE.get(" ".join(words), [])]
    args = [*words, *base, *bad] if bad[0] != BAD else [*words, *bad]  # an option's value given last wins
    r = cli(args, input="")
    lines = r.stderr.splitlines()
    assert r.exit_code == 2, (args, r.exit_code, r.stderr, r.exception)
    assert len(lines) == 1 and lines[0].startswith("yahtzee: error: "), (args, r.stderr)
    assert not any(w in r.stderr for w in PYDANTIC) and "Traceback" not in r.stderr, (args, r.stderr)
    if words != ["play"]:  # play asks for what is missing on stdout, as a prompt
        assert r.stdout == ""


@pytest.mark.parametrize(("args", "words"), [
    (["score", "11111", "--rules", "yatzee"], "unknown preset 'yatzee' (did you mean 'yahtzee' or 'yatzy'?); "
                                              "valid presets: "),
    (["score", "11111", "--set", "jokr=on"], "unknown setting 'jokr' (did you mean 'joker'?); valid settings: "),
    (["score", "11111", "--set", "joker=forcd"], "setting joker takes forced, free or off (on = forced), got 'forcd' "
                                                 "(did you mean 'forced'?)"),
    (["score", "11111", "--set", "must_zero=of"], "got 'of' (did you mean 'off'?)"),
    (["score", "11111", "--box", "chanse"], "unknown box 'chanse' (did you mean 'chance'?); valid boxes: ones, "),
    (["simulate", "-S", "gredy", "-n", "1"], "unknown strategy 'gredy' (did you mean 'greedy'?); valid: optimal, "),
    (["scor", "11111"], "yahtzee has no command 'scor' (did you mean 'score'?); commands: score, validate, "),
    (["log", "ad"], "yahtzee log has no command 'ad' (did you mean 'add'?); commands: new, add, "),
    (["score", "11111", "--jsn"], "yahtzee score has no option --jsn (did you mean '--json'?) "
                                  "(see 'yahtzee score --help')"),
    (["simulate", "--backend", "dusk"], "--backend takes local or dask, got 'dusk' (did you mean 'dask'?)"),
    (["schema", "sheat"], "KIND takes log, sheet, poker or rules, got 'sheat' (did you mean 'sheet'?)"),
    (["simulate", "-n", "ten"], "--games takes a whole number, got 'ten' (see 'yahtzee simulate --help')"),
    (["hint", "11111", "--top", "1.5"], "--top takes a whole number of at least 1, got '1.5'"),
    (["simulate", "-n"], "-n needs a value (see 'yahtzee simulate --help')"),
    (["score", "--json=yes", "11111"], "--json is a switch: it takes no value (see 'yahtzee score --help')"),
    (["score"], "yahtzee score needs DICE (see 'yahtzee score --help')"),
    (["rules", "--set", "columns=9"], "invalid setting columns: must be at most 6, got 9"),
    (["rules", "--set", "upper_bonus=7"], "invalid setting upper_bonus: must be a multiple of 5, got 7"),
])
def test_errors_say_what_is_valid_and_what_was_meant(cli, args: list[str], words: str) -> None:
    r = cli(args)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("yahtzee: error: ") and words in r.stderr, r.stderr


def test_an_option_of_another_command_is_named_as_such(cli) -> None:
    """--csv on a command without it names the commands that have it (once: "Possible options: --set",
    a suggestion of an unrelated option)."""
    r = cli(["rules", "--csv"])
    assert r.exit_code == 2
    assert r.stderr.startswith("yahtzee: error: yahtzee rules has no option --csv; score, validate, replay, ")
    assert r.stderr.endswith(" have it (see 'yahtzee rules --help')\n") and r.stderr.count("\n") == 1
    far = cli(["poker", "11111", "--nothing-like-it"])
    assert far.stderr == "yahtzee: error: yahtzee poker has no option --nothing-like-it (see 'yahtzee poker --help')\n"


def test_the_script_speaks_with_the_same_voice(yahtzee: list[str]) -> None:
    """The installed `yahtzee` (not standalone Typer in a test runner) words usage errors the same way."""
    import subprocess

    r = subprocess.run([*yahtzee, "simulate", "--games", "ten"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "yahtzee: error: --games takes a whole number, got 'ten' (see 'yahtzee simulate --help')\n"


def test_one_function_writes_each_kind_of_line() -> None:
    """Commands write error, warning and note lines through app.error/warn/note (fail for the last
    one), never a `yahtzee: ...` of their own, so the voice cannot drift again."""
    import re

    from conftest import REPO

    stray = [f"{p.name}:{n}" for p in sorted((REPO / "yahtzee_cli" / "cli").glob("*.py")) if p.name != "app.py"
             for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"[\"']yahtzee[ :]", line)
             and "stderr" in line]
    assert stray == []


def test_warnings_and_notes(cli, capsys: pytest.CaptureFixture[str]) -> None:
    """A warning says so; a note (the seed chosen) is plain; both escape what would drive a terminal."""
    from yahtzee_cli.cli.app import note, warn

    r = cli(["simulate", "-S", "random", "-n", "5", "-w", "1"])
    assert r.exit_code == 0 and "yahtzee: seed " in r.stderr and "warning" not in r.stderr
    warn("the \x1b[2J summary is partial")
    note("building a table")
    assert capsys.readouterr().err == "yahtzee: warning: the \\x1b[2J summary is partial\nyahtzee: building a table\n"


def test_show_defaults_spells_settings_as_the_tool_does(cli, tmp_path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[defaults]\nrules = "yatzy"\nmust_zero = false\nupper_bonus = 40\n')
    monkeypatch.setenv("YAHTZEE_CONFIG", str(config))
    out = cli(["rules", "--show-defaults"]).stdout
    assert "must_zero = off  (config file)" in out and "upper_bonus = 40  (config file)" in out
    assert "False" not in out


def test_validation_problems_are_in_the_tools_words(cli) -> None:
    """Every problem of every invalid fixture, pydantic's checks included ("must be at least 1, got 0",
    not "input should be greater than or equal to 1")."""
    import json

    out = json.loads(cli(["validate", "--json", str(FIXTURES / "invalid")]).stdout)
    messages = [e["message"] for e in out["errors"]]
    assert len(messages) > 20
    assert [m for m in messages if any(w.lower() in m.lower() for w in PYDANTIC)] == []
