"""Hostile input as classes, not examples: generated file names, player names, CSV cells, config bytes,
endless stdin, non-regular files in walked folders, risk and target extremes. Every case ends with its
documented exit status, no traceback, and no raw control or bidirectional character in text output."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GAME = FIXTURES / "logs" / "yahtzee-perfect.json"
BAD_GAME = FIXTURES / "invalid" / "wrong-score.json"

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])

# Characters a terminal obeys or that reorder what it shows: C0 (ESC, BEL, CR, ...), DEL, C1, the
# bidirectional overrides and isolates, zero-width and other format characters, line separators.
HOSTILE = ["\x1b", "\x07", "\r", "\t", "\x08", "\x7f", "\x85", "\x9b", "\u202a", "\u202b", "\u202c", "\u202d",
           "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200e", "\u200f", "\u061c", "\ufeff",
           "\u2028", "\u2029", "\x1b]0;title\x07", "\x1b[2J"]
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def raw_unsafe(text: str) -> list[str]:
    """Characters of `text` that would reach a terminal raw (line breaks are text's own)."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in UNSAFE_CATEGORIES]


def check(res: Any, *codes: int) -> None:
    assert res.exit_code in codes, (res.exit_code, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout, res.stderr
    assert not raw_unsafe(res.stderr), res.stderr
    assert not raw_unsafe(res.stdout), res.stdout


def _runner() -> Any:
    from typer.testing import CliRunner

    from yahtzee_cli.cli import app

    runner = CliRunner()

    def run(args: list[str], input: str | bytes | None = None, env: dict[str, str] | None = None) -> Any:  # noqa: A002
        return runner.invoke(app, args, input=input, prog_name="yahtzee", env=env)

    return run


run = _runner()

name_chars = st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_characters="/\x00",
                                                                  exclude_categories=("Cs",)))
file_names = st.lists(name_chars, min_size=1, max_size=12).map("".join).filter(
    lambda n: n not in (".", "..") and len(os.fsencode(n)) < 200)


# --------------------------------------------------------------------------- names reaching a terminal

@FAST
@given(name=file_names)
def test_hostile_file_names_are_escaped_everywhere(name: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / name
        folder.mkdir()
        shutil.copy(GAME, folder / f"{name}.json")
        shutil.copy(BAD_GAME, folder / f"bad{name}.json")
        for args in (["validate"], ["validate", "--csv"], ["replay"], ["replay", "-v"], ["replay", "--csv"],
                     ["analyze", "-w", "1"]):
            check(run([*args, str(folder)]), 1)
        check(run(["validate", str(folder / name)]), 2)  # missing: a usage error naming it, escaped
        res = run(["validate", "--json", str(folder)])
        check(res, 1)
        assert json.loads(res.stdout)["errors"][0]["file"] == str(folder / f"bad{name}.json")  # data kept


def test_a_non_utf8_file_name_in_json_shows_its_bytes(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/\xff\x1b"
    os.mkdir(folder)
    shutil.copy(BAD_GAME, os.path.join(folder, b"g\xfe.json"))
    res = run(["validate", "--json", os.fsdecode(folder)])
    check(res, 1)
    assert json.loads(res.stdout)["errors"][0]["file"].endswith("/\\xff\x1b/g\\xfe.json")
    res = run(["replay", "--json", os.fsdecode(folder)])
    check(res, 1)
    check(run(["validate", os.fsdecode(folder)]), 1)


def test_json_escapes_what_a_terminal_would_obey(tmp_path: Path) -> None:
    """A right-to-left override in a file name is \\u202e in JSON: the same string to a parser."""
    name = tmp_path / "a\u202e\x85b.json"
    shutil.copy(BAD_GAME, name)
    res = run(["validate", "--json", str(name)])
    check(res, 1)
    assert "\\u202e\\u0085b.json" in res.stdout
    assert json.loads(res.stdout)["errors"][0]["file"] == str(name)


@FAST
@given(cell=st.tuples(st.sampled_from(["=", "+", "-", "@", "\t", "\r", "=cmd|' /C calc'!A0", "-5", "+1"]),
                      st.text(max_size=8)).map("".join))
def test_csv_text_cells_never_start_a_formula(cell: str) -> None:
    from yahtzee_cli.cli.validate import csv_row

    row = next(csv.reader(io.StringIO(csv_row(["file", cell, 7, -5, 2.5, None]).decode())))
    assert row[1].startswith("'"), row
    assert row[2:] == ["7", "-5", "2.5", ""]  # numbers stay numbers
    assert not raw_unsafe(row[1])


def test_replay_csv_escapes_formula_player_names(tmp_path: Path) -> None:
    data = json.loads(GAME.read_text())
    data["players"] = ["=HYPERLINK(\"http://x\")"]
    for turn in data["turns"]:
        turn["player"] = data["players"][0]
    path = tmp_path / "-game.json"
    path.write_text(json.dumps(data))
    res = run(["replay", "--csv", str(path)])
    check(res, 0)
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[1][4] == "'=HYPERLINK(\"http://x\")"
    assert rows[1][5] == "1575"  # a number stays a number


@FAST
@given(word=st.tuples(st.text(max_size=4), st.sampled_from(HOSTILE), st.text(max_size=4)).map("".join))
def test_echoed_input_is_escaped(word: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        game = Path(d) / "g.ndjson"
        check(run(["log", "new", str(game), "--players", "Ann"]), 0)
        check(run(["log", "add", str(game), "--dice", "13356", "--box", word]), 0, 1, 2)  # "\x1b3x" is 3x
        check(run(["log", "set", str(game), word]), 1, 2)
        check(run(["log", "set", str(game), f"joker={word}"]), 1, 2)
        check(run(["score", word]), 2)
        check(run(["rules", word]), 2)
        check(run(["hint", "12345", "--rules", word]), 2)
        check(run(["play", str(Path(d) / "p.ndjson"), "--players", "Ann"], input=f"{word}\nset {word}\nq\n"), 0)
