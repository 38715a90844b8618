"""Running tallies over many games: "see who wins most often"; solo play keeps "the running high
score rather than a winner"."""

from __future__ import annotations

import orjson
from conftest import FIXTURES as FIX

from yahtzee_cli.formats.replay import replay_game
from yahtzee_cli.formats.tallies import Tally


def test_wins_ties_best_and_mean_over_games() -> None:
    t = Tally()
    t.add([("Anna", 420, 1), ("Ben", 160, 2)], True)  # the worked example: Anna wins
    t.add([("Anna", 200, 1), ("Ben", 200, 1)], True)  # "If two players have the same total, they share the win"
    t.add([("Anna", 150, 2), ("Ben", 250, 1)], True)
    t.add([("Anna", 999, 1), ("Ben", 0, 2)], False)  # still in progress: not counted
    got = {p["player"]: p for p in t.as_dict()["players"]}
    assert got["Anna"] == {"player": "Anna", "rules": None, "games": 3, "wins": 1, "ties": 1, "best": 420,
                           "mean": 256.67}
    assert got["Ben"] == {"player": "Ben", "rules": None, "games": 3, "wins": 1, "ties": 1, "best": 250,
                          "mean": 203.33}
    assert t.as_dict()["games"] == 3


def test_solo_games_keep_a_running_high_score_not_a_winner() -> None:
    t = Tally()
    marks = [t.add([("Solo", total, 1)], True) for total in (180, 240, 210, 260)]
    assert [m.personal_best for m in marks] == [True, True, False, True]
    assert [m.running_best for m in marks] == [180, 240, 240, 260]
    solo = t.as_dict()["players"][0]
    assert (solo["wins"], solo["ties"], solo["best"], solo["mean"]) == (0, 0, 260, 222.5)
    assert t.as_dict()["personal_bests"] == [{"player": "Solo", "rules": None, "best": 260}]


def _games() -> list[dict]:
    return [orjson.loads(line) for line in (FIX / "logs/batch.ndjson").read_bytes().splitlines() if line.strip()]


def test_replay_of_a_batch_ends_with_the_summary(cli) -> None:
    """batch.ndjson mixes rule sets: bests, means and personal bests are per rule set (the issue moved
    them from one figure per player across all rule sets)."""
    games = [g for g in (replay_game(d) for d in _games()) if g.game_over]  # in-progress games do not count
    solo = [(g.rules.name, g.players[0].total) for g in games if len(g.players) == 1]
    r = cli(["replay", str(FIX / "logs/batch.ndjson")])
    assert r.exit_code == 0
    assert f"summary of {len(games)} finished games" in r.stdout
    for name, total in solo:  # each solo game is the only one of its rule set here
        assert f"personal best (solo, {name}) Solo: {total}" in r.stdout
    lines = [orjson.loads(x) for x in cli(["replay", "--json", str(FIX / "logs/batch.ndjson")]).stdout.splitlines()]
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["games"] == len(games)
    rows = {(p["rules"]["name"], p["player"]): p for p in summary["players"]}
    for name, total in solo:
        assert rows[name, "Solo"]["best"] == total and rows[name, "Solo"]["games"] == 1
        assert rows[name, "Solo"]["wins"] == 0
    assert [x["tally"]["personal_best"] for x in lines[:-1] if len(x["players"]) == 1 and x["game_over"]] == [
        True] * len(solo)


def test_a_single_game_has_no_summary(cli) -> None:
    r = cli(["replay", str(FIX / "logs/yahtzee.json")])
    assert r.exit_code == 0 and "summary of" not in r.stdout
