"""What a family meets over an evening of games: one answer for a missing file from every command,
`hint --log` on the game files `play` and `log` keep (several games, the one in play last), bests and
tallies per rule set, and bonus messages that name the right column and add up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from yahtzee_cli.formats.replay import random_log, replay_game


def _write(path: Path, *games: dict[str, Any]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(g) + b"\n" for g in games))
    return path


# --------------------------------------------------------------------------- a missing input file

def _missing_cases(tmp: Path) -> list[list[str]]:
    nx = str(tmp / "nowhere.ndjson")
    return [
        ["validate", nx],
        ["replay", nx],
        ["replay", "--analyze", nx],
        ["analyze", nx],
        ["score", "12345", "--rules", nx],
        ["score", "12345", "--sheet", nx],
        ["hint", "12345", "--rules", nx],
        ["hint", "12345", "--sheet", nx],
        ["hint", "--log", nx],
        ["rules", nx],
        ["stats", nx],
        ["solve", "--rules", nx],
        ["simulate", "--rules", nx, "-n", "1"],
        ["simulate", "-S", f"{tmp / 'nowhere.py'}:bot", "-n", "1"],
        ["log", "add", nx, "--dice", "12345"],
        ["log", "undo", nx],
        ["log", "end", nx],
        ["log", "show", nx],
        ["log", "show", nx, "--json"],
        ["log", "set", nx, "joker=free"],
        ["log", "new", str(tmp / "new.ndjson"), "--players", "Anna", "--rules", nx],
        ["log", "new", str(tmp / "nowhere" / "new.ndjson"), "--players", "Anna"],
        ["play", "--resume", nx],
        ["play", str(tmp / "new.ndjson"), "--players", "Anna", "--rules", nx],
    ]


def test_every_command_answers_a_missing_file_alike(cli: Any, tmp_path: Path) -> None:
    wordings = {}
    for args in _missing_cases(tmp_path):
        r = cli(args)
        assert r.exit_code == 2, (args, r.stderr)
        assert r.stdout == "" and r.stderr.count("\n") == 1, (args, r.stdout, r.stderr)
        named = next(a.split(":")[0] if a.endswith(":bot") else a for a in args if "nowhere" in a)
        if named.endswith("nowhere/new.ndjson"):
            named = str(Path(named).parent)  # the folder is what is missing
        assert named in r.stderr, (args, r.stderr)
        wordings[" ".join(args)] = r.stderr.replace(named, "PATH")
    assert len(set(wordings.values())) == 1, wordings  # the same sentence, whatever the command
    assert not (tmp_path / "new.ndjson").exists()


def test_a_missing_default_rules_file_says_where_its_name_came_from(cli: Any, tmp_path: Path,
                                                                   monkeypatch: Any) -> None:
    nx = str(tmp_path / "house.json")
    monkeypatch.setenv("YAHTZEE_RULES", nx)
    r = cli(["score", "12345"])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert f"{nx}: no such file or directory" in r.stderr and "$YAHTZEE_RULES" in r.stderr


def test_the_installed_script_says_the_same(tmp_path: Path) -> None:
    import subprocess
    import sys

    nx = str(tmp_path / "gone.json")
    outs = [subprocess.run([sys.executable, "-m", "yahtzee_cli", *args], capture_output=True, text=True, timeout=60)
            for args in (["validate", nx], ["hint", "--log", nx])]
    assert [o.returncode for o in outs] == [2, 2]
    assert outs[0].stderr == outs[1].stderr and nx in outs[0].stderr


# --------------------------------------------------------------------------- hint --log on a game file

def test_hint_log_advises_the_game_in_play(cli: Any, tmp_path: Path) -> None:
    night = tmp_path / "night.ndjson"
    _write(night, random_log("yahtzee", 1, ["Anna", "Ben"]), random_log("yahtzee", 2, ["Anna", "Ben"]))
    assert cli(["log", "new", str(night), "--players", "Cleo,Dan"]).exit_code == 0
    assert cli(["log", "add", str(night), "--dice", "66612"]).exit_code == 0
    r = cli(["hint", "--log", str(night), "--top", "1"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Cleo: 1 2 6 6 6, 2 rolls left (yahtzee, exact)"), r.stdout
    r = cli(["hint", "--log", str(night), "--player", "Dan", "33322", "--rolls-left", "0", "--json"])
    assert r.exit_code == 0, r.stderr


def test_hint_log_on_a_file_whose_last_game_is_over_says_so(cli: Any, tmp_path: Path) -> None:
    night = _write(tmp_path / "night.ndjson", random_log("yahtzee", 1, ["Anna"]), random_log("yahtzee", 2, ["Anna"]))
    r = cli(["hint", "--log", str(night)])
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "the last of its 2 games is over" in r.stderr, r.stderr
    game = random_log("yahtzee", 3, ["Anna"], turns=4)
    game["meta"] = {"abandoned": True}
    _write(night, random_log("yahtzee", 1, ["Anna"]), game)
    r = cli(["hint", "--log", str(night)])
    assert r.exit_code == 1 and "was ended unfinished (abandoned)" in r.stderr, r.stderr


# --------------------------------------------------------------------------- bests per rule set

def _solo(rules: str, seed: int, target: Any) -> dict[str, Any]:
    """A finished solo game of `rules` whose total passes `target` (random legal games)."""
    for s in range(seed, seed + 500):
        g = random_log(rules, s, ["Solo"])
        if target(replay_game(g).players[0].total):
            return g
    raise AssertionError("no such game")


def test_bests_and_means_are_per_rule_set(cli: Any, tmp_path: Path) -> None:
    yatzy_high = _solo("yatzy", 0, lambda t: t > 60)
    triple = _solo("triple-yahtzee", 0, lambda t: t > 300)  # far more than any Yatzy game here
    yatzy_low = _solo("yatzy", 100, lambda t: t < 40)
    totals = [replay_game(g).players[0].total for g in (yatzy_high, triple, yatzy_low)]
    path = _write(tmp_path / "mixed.ndjson", yatzy_high, triple, yatzy_low)
    lines = [orjson.loads(x) for x in cli(["replay", "--json", str(path)]).stdout.splitlines()]
    # the Triple Yahtzee game is the first of its rule set: a personal best there, not a beaten Yatzy one
    assert [x["tally"] for x in lines[:3]] == [
        {"counted": True, "personal_best": True, "running_best": totals[0]},
        {"counted": True, "personal_best": True, "running_best": totals[1]},
        {"counted": True, "personal_best": False, "running_best": totals[0]},
    ]
    summary = lines[-1]
    assert summary["type"] == "summary"
    rows = {p["rules"]["name"]: p for p in summary["players"]}
    assert rows["yatzy"]["best"] == totals[0] and rows["yatzy"]["games"] == 2
    assert rows["yatzy"]["mean"] == round((totals[0] + totals[2]) / 2, 2)
    assert rows["triple-yahtzee"]["best"] == rows["triple-yahtzee"]["mean"] == totals[1]
    assert {(b["rules"]["name"], b["best"]) for b in summary["personal_bests"]} == {
        ("yatzy", totals[0]), ("triple-yahtzee", totals[1])}
    text = cli(["replay", str(path)]).stdout
    assert f"personal best (solo, yatzy) Solo: {totals[0]}" in text
    assert f"personal best (solo, triple-yahtzee) Solo: {totals[1]}" in text
    assert f"game 3: 1. Solo {totals[2]}; personal best so far: {totals[0]}" in text


def test_a_house_rule_makes_another_rule_set(cli: Any, tmp_path: Path) -> None:
    plain = random_log("yahtzee", 1, ["Solo"])
    free = random_log("yahtzee", 2, ["Solo"])
    free["rules"] = {"preset": "yahtzee", "settings": {"upper_bonus": 50}}
    path = _write(tmp_path / "two.ndjson", plain, free)
    summary = orjson.loads(cli(["replay", "--json", str(path)]).stdout.splitlines()[-1])
    assert len(summary["personal_bests"]) == 2
    text = cli(["replay", str(path)]).stdout
    assert text.count("personal best (solo, yahtzee (") == 2  # the same name, told apart by fingerprint


# --------------------------------------------------------------------------- bonus messages

def test_score_sheet_names_the_column_that_earns_the_extra_bonus(cli: Any, tmp_path: Path) -> None:
    sheet = tmp_path / "triple.json"
    sheet.write_text(json.dumps({"format": "yahtzee-sheet/1", "rules": "triple-yahtzee", "players": [
        {"name": "Anna", "columns": [{"boxes": {"yahtzee": 0}}, {"boxes": {"yahtzee": 50}}, {"boxes": {}}]}]}))
    r = cli(["score", "66666", "--sheet", str(sheet)])
    assert r.exit_code == 0, r.stderr
    bonus = [line for line in r.stdout.splitlines() if "bonus" in line]
    assert bonus == ["extra Yahtzee bonus in column 2: +100"]


def test_validate_sums_with_a_wrong_bonus_box_add_up(cli: Any, tmp_path: Path, fixtures_dir: Path) -> None:
    data = json.loads((fixtures_dir / "sheets/anna-and-ben-with-totals.json").read_text())
    boxes = data["players"][0]["boxes"]
    boxes["Yahtzee bonus"] = 150  # not a multiple of 100; the sheet's totals were written with 100
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(data))
    r = cli(["validate", str(path)])
    assert r.exit_code == 1
    lower = [line for line in r.stdout.splitlines() + r.stderr.splitlines() if "lower_total" in line]
    assert len(lower) == 1, r.stdout + r.stderr
    written = boxes["Lower total"]
    shown = int(lower[0].split("make it ")[1].split()[0])
    assert shown == written - 100 + 150  # the boxes as written, the bonus box included
    assert "yahtzee_bonus 150" in lower[0]


# --------------------------------------------------------------------------- log show and --json

def test_log_show_json_equals_replay_json(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "game.ndjson"
    assert cli(["log", "new", str(game), "--players", "Anna,Ben"]).exit_code == 0
    assert cli(["log", "add", str(game), "--dice", "33322", "--box", "fh"]).exit_code == 0
    assert cli(["log", "add", str(game), "--dice", "13356", "--held", "33", "--dice", "33456"]).exit_code == 0
    shown = cli(["log", "show", str(game), "--json"])
    assert shown.exit_code == 0, shown.stderr
    record = orjson.loads(shown.stdout)
    assert record == _replayed(cli, game)[0]
    ip = record["in_progress"]
    assert (ip["player"], ip["dice"], ip["rolls"], ip["held"]) == ("Ben", [3, 3, 4, 5, 6],
                                                                  [[1, 3, 3, 5, 6], [3, 3, 4, 5, 6]], [[3, 3]])
    legal = {o["box"]: o["score"] for o in ip["legal"]}
    assert legal["small_straight"] == 30 and legal["threes"] == 6 and legal["full_house"] == 0
    assert record["standings"][0] == {"rank": 1, "name": "Anna", "total": 25}
    # a file of several games: the game in play is the last one, as replay numbers it
    earlier = random_log("yahtzee", 5, ["Anna", "Ben"])
    night = _write(tmp_path / "night.ndjson", earlier, orjson.loads(game.read_bytes()))
    shown = orjson.loads(cli(["log", "show", str(night), "--json"]).stdout)
    assert shown == _replayed(cli, night)[-1] and (shown["game"], shown["line"]) == (2, 2)


def _replayed(cli: Any, path: Path) -> list[dict[str, Any]]:
    """replay --json's record of each game, without what only a run over several games adds (each
    game's tally and the closing summary)."""
    records = [orjson.loads(line) for line in cli(["replay", str(path), "--json"]).stdout.splitlines()]
    games = [r for r in records if "summary" not in r and r.get("type", "game") == "game"]
    for r in games:
        r.pop("tally", None)
    return games


def test_every_log_command_answers_json_with_the_game_after_the_entry(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "game.ndjson"
    path = str(game)

    def run(*args: str) -> dict[str, Any]:
        r = cli(["log", *args, "--json"])
        assert r.exit_code == 0, r.stderr
        assert r.stdout.count("\n") == 1  # one record
        record = orjson.loads(r.stdout)
        assert record == orjson.loads(cli(["log", "show", path, "--json"]).stdout)
        assert record == _replayed(cli, game)[-1]
        return record

    assert run("new", path, "--players", "Anna,Ben")["next"] == "Anna"
    assert run("add", path, "--dice", "13356")["in_progress"]["dice"] == [1, 3, 3, 5, 6]
    after = run("add", path, "--box", "chance")
    assert after["next"] == "Ben" and after["players"][0]["total"] == 18 and after["in_progress"] is None
    undone = run("undo", path)
    assert undone["next"] == "Anna" and undone["in_progress"]["dice"] == [1, 3, 3, 5, 6]
    assert run("set", path, "upper_bonus=50")["rules"]["settings"]["upper_bonus"] == 50
    ended = run("end", path)
    assert ended["abandoned"] is True and ended["next"] is None and not ended["game_over"]
    assert run("new", path, "--players", "Cleo")["game"] == 2


def test_log_show_in_words(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "game.ndjson"
    cli(["log", "new", str(game), "--players", "Anna,Ben"])
    cli(["log", "add", str(game), "--dice", "66666", "--box", "yahtzee"])
    cli(["log", "add", str(game), "--dice", "13356", "--held", "33", "--dice", "33322"])
    r = cli(["log", "show", str(game)])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"yahtzee, game 1 in {game}: turn 2, Ben to play.",
        "Rolls: 1 3 3 5 6 -> keep 3 3 -> 2 2 3 3 3  (roll 2 of 3, 1 left)",
        "Boxes: Aces 0  Twos 4  Threes 9  Fours 0  Fives 0  Sixes 0  3 of a kind 13  4 of a kind 0  "
        "Full house 25  Sm straight 0  Lg straight 0  Yahtzee 0  Chance 13",  # (as the sheet names them)
        "Standings: 1. Anna 50, 2. Ben 0",
        "Chances to win: Anna 75.8%, Ben 23.8%; a tie for first 0.4% (optimal play from here).",
    ]
