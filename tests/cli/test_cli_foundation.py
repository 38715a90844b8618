"""`score`, `rules`, `poker`, `--version`, completions and the installed script."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import orjson
import pytest
from conftest import REPO as ROOT


def test_score_box_examples_from_the_issue(cli):
    r = cli(["score", "1", "2", "3", "4", "4", "--box", "small_straight"])
    assert (r.exit_code, r.stdout) == (0, "30\n")
    r = cli(["score", "1", "2", "3", "4", "4", "--rules", "yatzy", "--box", "small_straight"])
    assert (r.exit_code, r.stdout) == (0, "0\n")


def test_score_compact_dice_and_json(cli):
    r = cli(["score", "33322", "--json"])
    assert r.exit_code == 0
    data = orjson.loads(r.stdout)
    assert data["dice"] == [2, 2, 3, 3, 3]
    assert data["rules"]["name"] == "yahtzee" and data["line"] is None
    assert data["scores"]["full_house"] == 25 and data["scores"]["threes"] == 9
    assert list(data["scores"]) == ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
                                    "four_of_a_kind", "full_house", "small_straight", "large_straight",
                                    "yahtzee", "chance"]


def test_score_table_lists_every_box(cli):
    r = cli(["score", "6", "6", "6", "6", "6", "--rules", "kniffel"])
    assert r.exit_code == 0
    assert "Kniffel" in r.stdout and "Große Straße" in r.stdout
    assert all(k in r.stdout for k in ("three_of_a_kind", "chance"))


def test_score_alias_box_and_set(cli):
    r = cli(["score", "2", "2", "2", "3", "3", "--box", "FH", "--set", "joker=free"])
    assert (r.exit_code, r.stdout) == (0, "25\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "1", "2", "3"], "needs 5 dice, got 3"),
        (["score", "1", "2", "3", "4", "7"], "faces must be 1-6"),
        (["score", "1", "2", "3", "4", "x"], "digits 1-6"),
        (["score", "12345", "--box", "bogus"], "unknown box 'bogus'; valid boxes: ones"),
        (["score", "12345", "--rules", "farkle"], "valid presets"),
        (["score", "12345", "--set", "upper_bonus=7"], "multiple of 5"),
        (["score", "12345", "--rules", "maxi-yatzy"], "needs 6 dice"),
        (["score", "12345", "--rules", "missing.json"], "missing.json: no such file or directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, message):
    r = cli(args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_score_batch_reports_bad_lines_and_goes_on(cli):
    r = cli(["score", "-", "--box", "yahtzee"], input="66666\n1 2 3\n\n5 5 5 5 5\n9 9 9 9 9\n")
    assert r.exit_code == 1
    assert r.stdout == "50\n\n50\n\n"  # a bad line keeps its place (an empty line); the blank line is skipped
    assert "line 2:" in r.stderr and "line 5:" in r.stderr


def test_score_batch_ndjson(cli):
    r = cli(["score", "-", "--json"], input="12345\n23456\n")
    assert r.exit_code == 0
    lines = [orjson.loads(x) for x in r.stdout.splitlines()]
    assert [x["scores"]["large_straight"] for x in lines] == [40, 40]
    assert [x["line"] for x in lines] == [1, 2]


def test_rules_lists_presets_and_describes_one(cli):
    r = cli(["rules"])
    assert r.exit_code == 0
    for name in ("yahtzee", "kniffel", "yatzy", "forced-yatzy", "maxi-yatzy", "triple-yahtzee", "triple-yatzy"):
        assert name in r.stdout
    data = orjson.loads(cli(["rules", "yahtzee", "--json"]).stdout)
    assert data["theoretical_max"] == 1575
    assert data["settings"]["joker"] == "forced"
    assert {b["key"]: b["max"] for b in data["boxes"]}["four_of_a_kind"] == 30
    assert orjson.loads(cli(["rules", "yatzy", "--json"]).stdout)["theoretical_max"] == 374
    forced = orjson.loads(cli(["rules", "forced-yatzy", "--json"]).stdout)["settings"]
    assert forced["fill_in_order"] is True and forced["upper_bonus_threshold"] == 42


def test_rules_file_with_preset_and_overrides(cli, tmp_path):
    f = tmp_path / "house.json"
    f.write_bytes(orjson.dumps({"preset": "yahtzee", "settings": {"upper_bonus": 50}}))
    data = orjson.loads(cli(["rules", str(f), "--set", "extra_yahtzee_bonus=0", "--json"]).stdout)
    assert data["settings"]["upper_bonus"] == 50 and data["settings"]["extra_yahtzee_bonus"] == 0
    f.write_bytes(b"{not json")
    r = cli(["score", "12345", "--rules", str(f)])
    assert r.exit_code == 2 and "not valid JSON" in r.stderr


def test_poker_ranks_and_ties(cli):
    r = cli(["poker", "66622", "55566", "12345", "--json"])
    data = orjson.loads(r.stdout)
    assert data["winners"] == [1] and not data["tie"]
    assert [h["category"] for h in data["hands"]] == ["full_house", "full_house", "straight"]
    r = cli(["poker", "66543", "34566", "--json"])
    assert orjson.loads(r.stdout)["winners"] == [1, 2]
    r = cli(["poker", "6654"])
    assert r.exit_code == 2 and "five dice" in r.stderr


def test_version_and_help(cli):
    r = cli(["--version"])
    assert r.exit_code == 0 and r.stdout.startswith("yahtzee-cli ")
    r = cli([])  # no_args_is_help: the help text, as a usage error
    assert "score" in r.output and "Usage" in r.output


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_current(shell):
    """completions/ holds what the installed program generates; regenerate with
    `_YAHTZEE_COMPLETE=source_SHELL yahtzee > completions/yahtzee.SHELL`."""
    env = {**os.environ, "_YAHTZEE_COMPLETE": f"source_{shell}"}
    out = subprocess.run([sys.executable, "-m", "yahtzee_cli"], env=env, capture_output=True, check=True).stdout
    out = out.replace(b"__main__.py", b"yahtzee")  # python -m names the program after the module file
    assert out == (ROOT / "completions" / f"yahtzee.{shell}").read_bytes()


def test_completion_offers_presets():
    env = {**os.environ, "_YAHTZEE_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "yahtzee score --rules tri"}
    out = subprocess.run([sys.executable, "-m", "yahtzee_cli"], env=env, capture_output=True, check=True).stdout
    assert b"triple-yahtzee" in out and b"triple-yatzy" in out and b"kniffel" not in out


def _bash_complete(tmp_path, *words: str) -> list[str]:
    """What the shipped bash script offers for `words` as bash hands them over: split at `=`
    (COMP_WORDBREAKS), the last word the one being completed."""
    program = tmp_path / "yahtzee"  # what the script runs: this interpreter's yahtzee
    program.write_text(f'#!/bin/sh\nexec {sys.executable} -m yahtzee_cli "$@"\n')
    program.chmod(0o755)
    script = (f'source {ROOT / "completions" / "yahtzee.bash"}; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); '
              f'_yahtzee_completion {program}; printf "%s\\n" "${{COMPREPLY[@]}}"')
    out = subprocess.run(["bash", "-c", script, "bash", *words], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


@pytest.mark.parametrize(("words", "offered"), [
    (["yahtzee", "score", "--set", "jok"], ["joker="]),
    (["yahtzee", "score", "--set", "joker", "="], ["forced", "free", "off"]),  # bash replaces the part after =
    (["yahtzee", "score", "--set", "joker", "=", "fr"], ["free"]),
    (["yahtzee", "hint", "12345", "--set", "=", "must_zero", "=", "o"], ["on", "off"]),
    (["yahtzee", "replay", "x.json", "--set", "column_fill", "=", "down,u"], ["down,up"]),
    (["yahtzee", "simulate", "--set", "extra_yahtzee_bonus", "=", "1"], ["100", "125", "150", "175"]),
    (["yahtzee", "score", "--set", "upper_bonus_threshold", "="], ["42", "63", "84"]),  # the presets' values
    (["yahtzee", "score", "--set", "upper_bonus_threshold", "=", "10"], ["10", "100", "101", "102", "103", "104",
                                                                         "105"]),
    (["yahtzee", "score", "--set", "columns", "="], ["1", "2", "3", "4", "5", "6"]),
    (["yahtzee", "score", "--rules", "tri"], ["triple-yahtzee", "triple-yatzy"]),
])
def test_bash_completes_setting_values(tmp_path, words, offered):
    assert _bash_complete(tmp_path, *words) == offered


@pytest.mark.parametrize(("args", "offered"), [
    ("yahtzee score --set joker=", ["joker=forced", "joker=free", "joker=off"]),
    ("yahtzee score --set fill_in_order=of", ["fill_in_order=off"]),
    ("yahtzee score --set=saved_rolls=", ["saved_rolls=on", "saved_rolls=off"]),
    ("yahtzee score --set column_fill=up,", ["column_fill=up,down", "column_fill=up,up", "column_fill=up,free"]),
    ("yahtzee score --set upper_bonus=9", ["upper_bonus=90", "upper_bonus=95"]),
])
def test_zsh_completes_setting_values(args, offered):
    env = {**os.environ, "_YAHTZEE_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": args}
    out = subprocess.run([sys.executable, "-m", "yahtzee_cli"], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("_arguments '*: :((") and re.findall(r'"([^"]*)"', out) == offered


def test_bash_words_split_at_equals_are_merged_back():
    from yahtzee_cli.cli import merge_bash_words

    assert merge_bash_words(["yahtzee", "score", "--set", "joker", "=", "fr"], 5) == (
        ["yahtzee", "score", "--set", "joker=fr"], 3)
    assert merge_bash_words(["yahtzee", "score", "--set", "=", "joker", "=", ""], 6) == (
        ["yahtzee", "score", "--set=joker="], 2)
    assert merge_bash_words(["yahtzee", "score", "--set", "joker", "=", "on", "1"], 6) == (
        ["yahtzee", "score", "--set", "joker=on", "1"], 4)
    assert merge_bash_words(["yahtzee", "score", ""], 2) == (["yahtzee", "score", ""], 2)


def test_installed_script_pipes_and_exit_codes(yahtzee):
    p = subprocess.run([*yahtzee, "score", "-", "--box", "chance"], input=b"12345\n66666\n",
                       capture_output=True, check=False)
    assert (p.returncode, p.stdout) == (0, b"15\n30\n")
    p = subprocess.run([*yahtzee, "score", "1"], capture_output=True, check=False)
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1 and b"Traceback" not in p.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "12345", "--bogus"], b"yahtzee: error: yahtzee score has no option --bogus"),
        (["validate", "/nonexistent/log.json"], b"yahtzee: error: /nonexistent/log.json: no such file or directory"),
        (["score"], b"yahtzee: error: yahtzee score needs DICE"),
    ],
)
def test_installed_script_usage_errors_are_one_line(yahtzee, args, message):
    """Typer's own parameter errors, not only ours, are one line on stderr with exit status 2, in the
    tool's one voice (`yahtzee: error:`, no longer `yahtzee score: error:`)."""
    p = subprocess.run([*yahtzee, *args], capture_output=True, check=False)
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.startswith(message) and p.stderr.count(b"\n") == 1
