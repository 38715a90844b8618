"""The shell interface: many inputs in one run, concatenated documents, lines of failing values, CSV,
and help that reads well (metavars, -h, examples, one meaning per option letter)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import orjson
import pytest
import typer
from conftest import REPO as ROOT

from yahtzee_cli.cli import app
from yahtzee_cli.formats.inputs import expand, read_all
from yahtzee_cli.formats.logs import iter_documents, locate, split_documents

FIX = ROOT / "fixtures"
COMMANDS = ["score", "validate", "replay", "analyze", "play", "stats", "library", "simulate", "hint", "solve", "rules",
            "schema", "poker", "log", "cache"]  # groups of subcommands come after the commands


# --------------------------------------------------------------------------- reading many inputs


def test_concatenated_pretty_documents_are_separate_games() -> None:
    one = (FIX / "logs/yatzy.json").read_bytes()
    two = (FIX / "logs/joker.json").read_bytes()
    docs = list(iter_documents(io.BytesIO(one + two.rstrip() + two)))  # the third starts on the second's last line
    assert [d.index for d in docs] == [1, 2, 3] and all(d.problem is None for d in docs)
    assert docs[0].data == json.loads(one) and docs[1].data == docs[2].data == json.loads(two)
    lines = one.count(b"\n")
    assert docs[1].line == lines + 1 and docs[2].line == lines + 1 + two.rstrip().count(b"\n")


def test_a_broken_document_among_concatenated_ones_is_a_problem_in_its_place() -> None:
    good = b'{"a": [1,\n 2]}\n'
    docs = list(iter_documents(io.BytesIO(good + b'{"b": 1 2}\n' + good)))
    assert [d.problem is None for d in docs] == [True, False, True]
    assert docs[1].line == 3 and "line 3" in str(docs[1].problem)


def test_split_documents_respects_strings() -> None:
    raw = b'{"x": "}{ ]["}\n["a\\"}"]\n'
    assert [p for _, p in split_documents(raw)] == [b'{"x": "}{ ]["}', b'["a\\"}"]']


@pytest.mark.parametrize(("pointer", "line"), [
    ("/turns/1/box", 8), ("/turns/1", 6), ("/turns/1/nothing", 6), ("/players/0", 2), ("/players/1", 3),
    ("", 1), ("/a~1b", 10),
])
def test_locate_names_the_line_of_the_value(pointer: str, line: int) -> None:
    raw = (b'{\n  "players": ["A",\n  "B"],\n  "turns": [\n    {"box": "ones"},\n    {\n      "player": "B",\n'
           b'      "box": "twos"\n    }\n  ], "a/b": 1\n}\n')
    assert locate(raw, pointer) == line


def test_directories_recurse_into_game_files_in_path_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/2.json", "a.ndjson", "notes.txt", "b/1.json"):
        (tmp_path / name).write_text("{}")
    assert [Path(s.name).relative_to(tmp_path).as_posix() for s in expand([str(tmp_path)])] == [
        "a.ndjson", "b/1.json", "b/2.json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    (src,) = expand([str(empty)])
    assert src.code == "no-games"
    assert [type(x).__name__ for x in read_all(expand([str(empty)]))] == ["Unreadable"]


def test_validate_many_inputs_one_summary_one_status(cli, tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_bytes(b"")
    shutil.copy(FIX / "logs/yatzy.json", tmp_path / "good.json")
    r = cli(["validate", str(tmp_path), str(FIX / "invalid/wrong-score.json")])
    assert r.exit_code == 1
    *problems, summary = r.stdout.splitlines()
    assert summary == "3 files: 2 games, 1 valid, 1 not valid (1 problem), 1 input unreadable"
    assert problems[0].startswith(f"{FIX / 'invalid/wrong-score.json'}:516: game 1: /turns/16/score")
    assert r.stderr == f"yahtzee: error: {tmp_path / 'empty.json'}: empty input: expected a yahtzee-log/1 or " \
                       "yahtzee-sheet/1 JSON document\n"
    ok = cli(["validate", str(FIX / "logs"), str(FIX / "sheets")])
    assert ok.exit_code == 0 and ok.stdout.startswith(f"{len(expand([str(FIX / 'logs'), str(FIX / 'sheets')]))} files:")


def test_validate_stdin_concatenated_names_lines_within_the_stream(cli) -> None:
    one = (FIX / "logs/yatzy.json").read_bytes()
    bad = (FIX / "invalid/wrong-score.json").read_bytes()
    r = cli(["validate", "--json", "-"], input=one + bad)
    (err,) = orjson.loads(r.stdout)["errors"]
    stream_lines = (one + bad).decode().splitlines()
    assert err["file"] == "<stdin>" and err["game"] == 2 and stream_lines[err["line"] - 1].strip() == '"score": 26'


def test_validate_csv_rows(cli) -> None:
    r = cli(["validate", "--csv", str(FIX / "invalid/wrong-score.json"), str(FIX / "invalid/unknown-box.json")])
    rows = r.stdout.splitlines()
    assert rows[0] == "file,line,game,path,code,message" and len(rows) == 3
    assert rows[1].split(",")[4] == "wrong-score" and rows[2].split(",")[4] == "unknown-box"
    assert '"' in rows[2]  # the message's commas are quoted
    assert cli(["validate", "--csv", "--json", "-"]).exit_code == 2


def test_replay_and_analyze_take_many_inputs(cli) -> None:
    r = cli(["replay", str(FIX / "logs/yatzy.json"), str(FIX / "logs/kniffel.json")])
    assert r.stdout.splitlines()[:3] == [f"{FIX / 'logs/yatzy.json'}:1: game 1: 1. Ben 59, 2. Anna 34, 3. Cleo 30",
                                         f"{FIX / 'logs/kniffel.json'}:1: game 1: 1. Uwe 269; personal best: 269 (new)",
                                         ""]
    assert r.stdout.splitlines()[3] == "summary of 2 finished games"  # then the tally
    rows = cli(["replay", "--csv", str(FIX / "logs/yatzy.json")]).stdout.splitlines()
    assert rows[0] == "file,line,game,rank,player,total,game_over" and rows[1].endswith(",1,1,1,Ben,59,true")
    a = cli(["analyze", str(FIX / "logs/yatzy.json"), str(FIX / "logs/kniffel.json")])
    assert a.exit_code == 0 and a.stdout.startswith("2 games graded\n")
    assert f"{FIX / 'logs/yatzy.json'}:1" in a.stdout  # worst decisions name their file and game


def test_analyze_invalid_game_names_the_line_of_the_problem(cli) -> None:
    r = cli(["analyze", str(FIX / "invalid/joker-forbidden.json")])
    assert r.exit_code == 1 and ":208: game 1: /turns/6/box:" in r.stderr


def test_score_batch_text_is_aligned_columns(cli) -> None:
    r = cli(["score", "-"], input="12345\n66666\n")
    head, *rows = r.stdout.splitlines()
    assert head.split()[:3] == ["dice", "ones", "twos"]
    assert [len(x) for x in rows] == [len(head)] * 2  # fixed columns, one line per roll
    assert re.fullmatch(r"6 6 6 6 6 +0 +0 +0 +0 +0 +30 .* 50 +30", rows[1])


# --------------------------------------------------------------------------- help


def _help(cli, *args: str) -> str:
    r = cli([*args, "-h"])
    assert r.exit_code == 0, r.stderr
    return r.stdout


def test_dash_h_and_commands_in_order_with_one_line_summaries(cli) -> None:
    text = _help(cli)
    listed = re.findall(r"^  (\w+)  +(.*)$", text.split("Commands:", 1)[1], re.M)
    assert [name for name, _ in listed] == COMMANDS
    assert all(not summary.endswith("...") for _, summary in listed)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_has_real_metavars_and_examples(cli, command: str) -> None:
    text = _help(cli, command)
    assert not re.search(r"<(list|FileBinaryRead|Path|str|int)", text) and "{" not in text.splitlines()[0]
    assert "Examples:\n    yahtzee " + command in text


def test_no_short_option_letter_means_two_things() -> None:
    seen: dict[str, set[str]] = {}
    group = typer.main.get_command(app)
    for name in COMMANDS:
        for param in group.commands[name].params:  # type: ignore[attr-defined]
            longs = [o for o in param.opts if o.startswith("--")]
            for short in (o for o in param.opts if len(o) == 2 and o != "-h"):
                seen.setdefault(short.lower(), set()).update(longs)
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}
