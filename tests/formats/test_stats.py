"""`yahtzee stats` and the library of played games: every figure checked against values the test
works out itself from the games' totals (replay's), the library's place and every override."""

from __future__ import annotations

import itertools
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.formats.jsonio import dumps
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules.engine import preset

# Six games, two rule sets, three players (the ones marked `same` get identical dice: a tie).
GAMES: list[tuple[str, list[str], bool]] = [
    ("yahtzee", ["Anna", "Ben"], False),
    ("yahtzee", ["Anna", "Ben", "Cleo"], True),
    ("yatzy", ["Ben", "Cleo"], False),
    ("yatzy", ["Anna"], False),
    ("yahtzee", ["Cleo", "anna"], False),  # a name spelt otherwise is the same player
    ("yatzy", ["Anna", "Ben", "Cleo"], False),
]


def _dice(rng: random.Random) -> str:
    while True:  # no five alike: every box is then a legal place for any roll (no joker rule applies)
        d = [rng.randint(1, 6) for _ in range(5)]
        if len(set(d)) > 1:
            return "".join(map(str, d))


def _play(cli: Any, rules: str, players: list[str], same: bool, rng: random.Random) -> None:
    res = cli(["log", "new", "--rules", rules, "--players", ",".join(players)])
    assert res.exit_code == 0, res.stderr
    keys = [b.key for b in preset(rules).boxes]
    file = None
    for line in res.stdout.splitlines():
        if " game in " in line:
            file = line.split(" game in ", 1)[1].split(": ", 1)[0]
    assert file is not None, res.stdout
    for box in keys:
        dice = _dice(rng)
        for _ in players:
            res = cli(["log", "add", file, "--dice", dice, "--box", box])
            assert res.exit_code == 0, res.stderr
            if not same:
                dice = _dice(rng)


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> Path:
    folder = tmp_path / "library"
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(folder))
    rng = random.Random(5)
    for rules, players, same in GAMES:
        _play(cli, rules, players, same, rng)
    # an abandoned game, and a damaged line: both counted apart, neither fatal
    assert cli(["log", "new", "--players", "Anna,Ben"]).exit_code == 0
    assert cli(["log", "new", "--force", "--players", "Anna"]).exit_code == 0
    files = sorted(folder.glob("games-*.ndjson"))
    assert len(files) == 1
    with files[0].open("ab") as fh:
        fh.write(b'{"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Zed"], "turns": [{"player": "Zed", '
                 b'"rolls": [[1,1,1,1,1]], "box": "chance", "score": 99}]}\n')
    return folder


def _expected(cli: Any, folder: Path) -> dict[str, Any]:
    """Totals from replay, then every tally worked out here."""
    res = cli(["replay", str(folder), "--json"])
    games = [json.loads(line) for line in res.stdout.splitlines()]
    finished = [g for g in games if g["type"] == "game" and g["game_over"]]
    assert len(finished) == len(GAMES)
    per: dict[tuple[str, str, bool], list[int]] = {}
    wins: dict[tuple[str, str, bool], int] = {}
    ties: dict[tuple[str, str, bool], int] = {}
    h2h: dict[tuple[str, str], list[int]] = {}
    canon = {"anna": "Anna", "ben": "Ben", "cleo": "Cleo"}
    for (rules, _, _), g in zip(GAMES, finished, strict=True):
        scores = {canon[p["name"].lower()]: p["total"] for p in g["players"]}
        top = max(scores.values())
        leaders = [n for n, s in scores.items() if s == top]
        solo = len(scores) == 1
        for name, total in scores.items():
            key = (name, rules, solo)
            per.setdefault(key, []).append(total)
            wins.setdefault(key, 0)
            ties.setdefault(key, 0)
            if not solo and total == top:
                if len(leaders) == 1:
                    wins[key] += 1
                else:
                    ties[key] += 1
        for a, b in itertools.combinations(sorted(scores), 2):
            rec = h2h.setdefault((a, b), [0, 0, 0, 0])
            rec[0] += 1
            rec[1 if scores[a] > scores[b] else 2 if scores[b] > scores[a] else 3] += 1
    return {"per": per, "wins": wins, "ties": ties, "h2h": h2h}


def test_stats_of_a_library_played_through_log(library: Path, cli: Any) -> None:
    exp = _expected(cli, library)
    res = cli(["stats", "--json"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["type"] == "stats"
    assert doc["summary"] == {"type": "summary", "games": 9, "counted": 6, "abandoned": 1, "unfinished": 1,
                              "filtered_out": 0, "invalid": 1, "unreadable": 0}
    assert [(r["rules"], r["games"]) for r in doc["rule_sets"]] == [("yahtzee", 3), ("yatzy", 3)]
    got = {(p["player"], p["rules"], p["solo"]): p for p in doc["players"]}
    assert set(got) == set(exp["per"])
    for key, scores in exp["per"].items():
        p = got[key]
        assert p["games"] == len(scores)
        assert p["best"] == max(scores)
        assert p["mean"] == round(statistics.fmean(scores), 2)
        assert p["sd"] == (round(statistics.stdev(scores), 2) if len(scores) > 1 else None)
        assert p["last_mean"] == round(statistics.fmean(scores[-10:]), 2)
        if key[2]:
            assert p["wins"] is None and p["win_rate"] is None
        else:
            assert (p["wins"], p["ties"]) == (exp["wins"][key], exp["ties"][key])
            assert p["win_rate"] == round(exp["wins"][key] / len(scores), 4)
        assert p["best_at"].startswith(str(library))
    assert got[("Anna", "yahtzee", False)]["ties"] >= 1  # the game of identical dice is a three-way tie
    meetings = {(m["player"], m["opponent"]): [m["games"], m["wins"], m["losses"], m["ties"]]
                for m in doc["head_to_head"]}
    assert meetings == exp["h2h"]
    assert ".ndjson:9: game 9: skipped (invalid)" in res.stderr  # the damaged line, by its place
    text = cli(["stats"]).stdout
    assert "head to head" in text and "Anna (solo)" in text and "6 of 9 games counted" in text


def test_stats_filters(library: Path, cli: Any) -> None:
    doc = json.loads(cli(["stats", "--json", "--player", "CLEO", "--rules", "yatzy"]).stdout)
    assert {(p["player"], p["rules"]) for p in doc["players"]} == {("Cleo", "yatzy")}
    assert doc["players"][0]["games"] == 2
    assert {frozenset((m["player"], m["opponent"])) for m in doc["head_to_head"]} == {
        frozenset(("Ben", "Cleo")), frozenset(("Anna", "Cleo"))}
    res = cli(["stats", "--rules", "yatzee", "--player", "Ana"])
    assert res.exit_code == 0 and "0 of 9 games counted" in res.stdout
    assert "no game read is played under the rules 'yatzee' (did you mean 'yahtzee' or 'yatzy'?)" in res.stderr
    assert "no player named 'Ana' in the games read (did you mean 'Anna'?)" in res.stderr
    future = json.loads(cli(["stats", "--json", "--since", "2999-01-01"]).stdout)
    assert future["summary"]["counted"] == 0 and future["summary"]["filtered_out"] == 6
    res = cli(["stats", "--since", "yesterday"])
    assert res.exit_code == 2 and "YYYY-MM-DD" in res.stderr


def test_stats_csv_has_a_row_per_player_and_rule_set(library: Path, cli: Any) -> None:
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(cli(["stats", "--csv"]).stdout)))
    assert len(rows) == len(_expected(cli, library)["per"])
    assert {"mean_full_house", "mean_two_pairs", "upper_bonus_rate"} <= set(rows[0])
    yatzy_rows = [r for r in rows if r["rules"] == "yatzy"]
    assert all(r["mean_full_house"] != "" and r["mean_two_pairs"] != "" for r in yatzy_rows)
    assert all(r["mean_two_pairs"] == "" for r in rows if r["rules"] == "yahtzee")


def test_last_ten_mean_and_house_rules_apart(tmp_path: Path, cli: Any) -> None:
    games = [random_log(preset("yatzy"), seed, players=["Solo"]) for seed in range(15)]
    games += [random_log(preset("yahtzee", {"joker": "off"}), 99 + seed, players=["Solo"],
                         spec={"preset": "yahtzee", "settings": {"joker": "off"}}) for seed in range(2)]
    path = tmp_path / "solo.ndjson"
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    replayed = [json.loads(line) for line in cli(["replay", str(path), "--json"]).stdout.splitlines()]
    totals = [g["players"][0]["total"] for g in replayed if g["type"] == "game"]
    doc = json.loads(cli(["stats", str(path), "--json"]).stdout)
    by_rules = {p["rules"]: p for p in doc["players"]}
    assert set(by_rules) == {"yatzy", "yahtzee (joker=off)"}
    yatzy = by_rules["yatzy"]
    assert yatzy["last_mean"] == round(statistics.fmean(totals[5:15]), 2) and yatzy["last_games"] == 10
    assert yatzy["mean"] == round(statistics.fmean(totals[:15]), 2)
    assert by_rules["yahtzee (joker=off)"]["best"] == max(totals[15:])


def test_stats_of_a_missing_file_is_a_usage_error(cli: Any, tmp_path: Path) -> None:
    res = cli(["stats", str(tmp_path / "nope.ndjson")])
    assert res.exit_code == 2 and "nope.ndjson" in res.stderr and res.stdout == ""


# --------------------------------------------------------------------------- the library's place


def test_library_place_and_every_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> None:
    from yahtzee_cli.play.library import location

    monkeypatch.delenv("YAHTZEE_LIBRARY", raising=False)
    if sys.platform == "linux":  # the platform's user data directory: XDG_DATA_HOME on Linux
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        assert location().path == tmp_path / "data" / "yahtzee-cli" / "games"
        assert location().source == "user data directory"
    config = tmp_path / "conf" / "config.toml"
    config.parent.mkdir()
    config.write_text('[library]\npath = "family-games"\n')
    monkeypatch.setenv("YAHTZEE_CONFIG", str(config))
    assert location().path == tmp_path / "conf" / "family-games"  # relative to the config file
    assert location().source == f"config file {config}"
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(tmp_path / "env"))
    assert location().path == tmp_path / "env"  # the environment wins
    res = cli(["library", "--json"])
    assert json.loads(res.stdout) == {"type": "library", "path": str(tmp_path / "env"), "source": "$YAHTZEE_LIBRARY",
                                      "files": 0, "games": 0, "bytes": 0}
    config.write_text('[library]\nfolder = "x"\n')
    monkeypatch.delenv("YAHTZEE_LIBRARY")
    res = cli(["library"])
    assert res.exit_code == 2 and "[library] takes one key" in res.stderr


def test_play_and_log_new_without_a_file_save_into_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               cli: Any) -> None:
    from yahtzee_cli.play.library import month_file

    monkeypatch.setenv("YAHTZEE_LIBRARY", str(tmp_path / "lib"))
    res = cli(["play", "--players", "Solo"], input="12345\nchance\nq\n")
    assert res.exit_code == 0, res.stderr
    res = cli(["log", "new", "--players", "Anna,Ben", "--force"])
    assert res.exit_code == 0, res.stderr
    path = month_file(tmp_path / "lib")
    assert str(path) in res.stdout
    games = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert len(games) == 2 and all(g["meta"]["started"].endswith("Z") for g in games)
    res = cli(["library"])
    assert "2 games in 1 file" in res.stdout


def test_plot_without_matplotlib_is_one_line_and_exit_2(cli: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were not installed
    game = tmp_path / "g.ndjson"
    game.write_bytes(dumps(random_log(preset("yahtzee"), 1, players=["A"])) + b"\n")
    res = cli(["stats", str(game), "--plot", str(tmp_path / "s.png")])
    assert res.exit_code == 2 and res.stdout == ""
    assert "pip install 'yahtzee-cli[plot]'" in res.stderr and len(res.stderr.splitlines()) == 1
    res = cli(["stats", str(game), "--plot", str(tmp_path / "s.gif")])
    assert res.exit_code == 2 and ".png" in res.stderr


def test_a_hostile_file_name_reaches_no_terminal(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "a\x1b]0;pwned\x07\u202eb.ndjson"
    path.write_bytes(dumps(random_log(preset("yahtzee"), 3, players=["Anna"])) + b"\n")
    for args in ([], ["--csv"]):
        res = cli(["stats", str(path), *args])
        assert res.exit_code == 0, res.stderr
        assert "\x1b" not in res.stdout and "\u202e" not in res.stdout and "\x07" not in res.stdout
    assert "\\x1b]0;pwned\\x07\\u202eb.ndjson" in cli(["stats", str(path)]).stdout


def test_the_library_counts_games_under_the_line_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yahtzee_cli.play import library

    monkeypatch.setattr(library, "MAX_LINE", 16)
    (tmp_path / "games-2026-01.ndjson").write_bytes(b'{"a": 1}\n\n' + b"x" * 100 + b"\n" + b"y" * 40)
    got = library.summary(library.Where(tmp_path, "test"))
    assert got.games == 3 and got.bytes == 10 + 101 + 40  # a long line is one game, read in pieces
