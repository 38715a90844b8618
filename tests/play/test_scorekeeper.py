"""The score keeper (yahtzee_cli.play.scorekeeper), `yahtzee log new/add/undo/set`, and `yahtzee play` fed
from a pipe. Expected scores are worked out from the rules' own sentences (Hasbro's Yahtzee: full
house 25, a Yahtzee 50, each extra Yahtzee 100 while the Yahtzee box holds 50; forced joker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yahtzee_cli.errors import KeeperError, RuleRefused
from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.formats.replay import replay_game
from yahtzee_cli.formats.validate import validate_stream
from yahtzee_cli.play.scorekeeper import Keeper, read_games, rules_spec


def _valid(path: Path) -> list[dict]:
    with open(path, "rb") as fh:
        reports = list(validate_stream(fh))
    assert reports and all(r.valid for r in reports), [str(p) for r in reports for p in r.problems]
    return [loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return tmp_path / "game.ndjson"


def test_a_turn_with_held_dice_is_written_as_a_valid_log(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna", "Ben"])
    k.record([[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]], [[3, 3], [3, 3, 2, 2]], "Full House")
    assert k.next_player == "Ben"
    (doc,) = _valid(game)
    assert doc["turns"] == [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]],
                             "held": [[3, 3], [3, 3, 2, 2]], "box": "full_house", "score": 25}]


def test_rolls_one_at_a_time_leave_a_turn_in_progress(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna"])
    k.record([[1, 3, 3, 5, 6]])
    k.record([[3, 3, 1, 1, 2]], [[3, 3]])
    assert Keeper.open(game).position().dice == (1, 1, 2, 3, 3)
    assert Keeper.open(game).position().rolls_left == 1
    with pytest.raises(KeeperError, match="3 are allowed"):
        k.record([[1, 1, 1, 1, 1], [2, 2, 2, 2, 2]])
    k.record([[3, 3, 3, 3, 3]])  # held unknown for this reroll: the turn keeps no held dice at all
    k.record(box="yahtzee")
    (doc,) = _valid(game)
    assert "held" not in doc["turns"][0] and doc["turns"][0]["score"] == 50


def test_refused_moves_leave_the_file_untouched(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna"])
    k.record([[6, 6, 6, 6, 6]], box="yahtzee")
    before = game.read_bytes()
    with pytest.raises(KeeperError, match="already filled; legal:"):
        k.record([[2, 2, 3, 3, 3]], box="yahtzee")
    # forced joker: a second Yahtzee of 4s must go in fours while fours is open
    with pytest.raises(KeeperError, match="joker"):
        k.record([[4, 4, 4, 4, 4]], box="chance")
    with pytest.raises(KeeperError, match="needs 5 dice"):
        k.record([[4, 4, 4, 4]], box="chance")
    with pytest.raises(KeeperError, match="unknown box"):
        k.record([[4, 4, 4, 4, 4]], box="nonsense")
    assert game.read_bytes() == before
    entry = k.record([[4, 4, 4, 4, 4]], box="fours")
    assert entry.step is not None and entry.step.option is not None
    assert (entry.step.option.score, entry.step.option.bonus) == (20, 100)  # four 4s, extra Yahtzee bonus


def test_undo_takes_back_a_roll_then_a_box_then_its_roll(game: Path) -> None:
    """Undo goes one step at a time: a box is taken back alone, its dice still showing (it took the
    whole turn back before)."""
    k = Keeper.start(game, "yahtzee", ["Anna", "Ben"])
    with pytest.raises(KeeperError, match="nothing to undo"):
        k.undo()
    k.record([[1, 1, 1, 2, 2]], box="full_house")
    k.record([[1, 2, 3, 4, 6]])
    k.record([[1, 2, 3, 4, 5]], [[1, 2, 3, 4]])
    assert k.undo() == "took back Ben's roll 1 2 3 4 5 (kept 1 2 3 4)"
    assert loads(game.read_bytes())["turns"][-1] == {"player": "Ben", "rolls": [[1, 2, 3, 4, 6]]}
    assert k.undo() == "took back Ben's roll 1 2 3 4 6"
    assert k.undo() == "took back Anna's Full house 25: Anna chooses again for 1 1 1 2 2"  # the sheet's name
    assert loads(game.read_bytes())["turns"] == [{"player": "Anna", "rolls": [[1, 1, 1, 2, 2]]}]
    assert k.undo() == "took back Anna's roll 1 1 1 2 2"
    assert loads(game.read_bytes())["turns"] == []


def test_multi_column_box_needs_a_column_only_when_several_fit(game: Path) -> None:
    k = Keeper.start(game, "triple-yahtzee", ["Anna"])
    with pytest.raises(KeeperError, match="open in columns 1, 2, 3"):
        k.record([[1, 2, 3, 4, 5]], box="chance")
    k.record([[1, 2, 3, 4, 5]], box="chance", column=2)
    k.record([[2, 2, 3, 4, 5]], box="chance", column=1)
    k.record([[6, 6, 3, 4, 5]], box="chance")  # only column 3 still has chance open
    (doc,) = _valid(game)
    assert [t["column"] for t in doc["turns"]] == [2, 1, 3]


def test_house_rule_change_recalculates_or_is_refused(game: Path) -> None:
    k = Keeper.start(game, rules_spec("yahtzee", ["joker=free"]), ["Anna"])
    k.record([[5, 5, 5, 5, 5]], box="yahtzee")
    k.record([[5, 5, 5, 5, 5]], box="chance")  # free joker: any box; 25 + the 100 extra bonus
    assert k.standings().players[0].total == 50 + 25 + 100
    change = k.set_rule("extra_yahtzee_bonus=50")
    assert (change.before.players[0].total, change.after.players[0].total) == (175, 125)
    with pytest.raises(RuleRefused) as refused:
        k.set_rule("joker=forced")  # the second Yahtzee had to go in fives
    assert [p.path for p in refused.value.illegal] == ["/turns/1/box"]
    with pytest.raises(KeeperError, match="unknown setting"):
        k.set_rule("jokers=off")
    (doc,) = _valid(game)
    assert doc["rules"] == {"preset": "yahtzee", "settings": {"joker": "free", "extra_yahtzee_bonus": 50}}
    assert doc["turns"][1]["bonus"] == 50
    assert doc["meta"]["rule_changes"] == [{"turns_played": 2, "set": {"extra_yahtzee_bonus": 50}}]


def test_games_accumulate_and_personal_bests_come_from_earlier_ones(game: Path) -> None:
    from yahtzee_cli.formats.replay import random_log

    for seed in (1, 2):
        doc = random_log("yahtzee", seed, ["Anna", "Ben"])
        with open(game, "ab") as fh:
            fh.write(json.dumps(doc).encode() + b"\n")
    totals = [[p.total for p in replay_game(loads(line)).players] for line in game.read_bytes().splitlines()]
    k = Keeper.start(game, "yahtzee", ["anna", "Cleo"])
    assert k.personal_best("Anna") == (max(t[0] for t in totals), 2)
    assert k.personal_best("Cleo") is None
    with pytest.raises(KeeperError, match="in progress"):
        Keeper.start(game, "yahtzee", ["Anna"])
    assert len(read_games(game).earlier) == 2
    assert Keeper.start(game.with_name("other.ndjson"), "kniffel", ["Anna"]).personal_best("Anna") is None


def test_log_commands(cli: object, game: Path) -> None:
    run = cli  # type: ignore[assignment]
    res = run(["log", "new", str(game), "--rules", "kniffel", "--players", "Anna,Ben"])  # type: ignore[operator]
    assert res.exit_code == 0 and res.stdout == f"New kniffel game in {game}: Anna, Ben. Anna starts.\n"
    res = run(["log", "add", str(game), "--dice", "3", "3", "3", "2", "2", "--box", "Full House"])  # type: ignore[operator]
    assert res.stdout == ("Anna: Full House 25. Anna 25, Ben 0. Next: Ben. Chances to win: Anna 49.8%, Ben 49.5%; "
                          "a tie for first 0.7% (optimal play from here).\n")
    before = game.read_bytes()
    res = run(["log", "add", str(game), "--dice", "13356"])  # type: ignore[operator]
    assert res.stdout == "Ben rolled 1 3 3 5 6 (roll 1 of 3).\n"
    res = run(["log", "add", str(game), "--held", "33", "--dice", "33224", "--box", "Sechser"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    res = run(["log", "add", str(game), "--dice", "22222", "--box", "Sechser"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    res = run(["log", "add", str(game), "--dice", "22233", "--box", "sechser"])  # type: ignore[operator]
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith("yahtzee: error: box sixes is already filled; legal: ")
    assert res.stderr.count("\n") == 1
    res = run(["log", "add", str(game), "--dice", "11", "--dice", "3", "3", "2", "2", "4"])  # type: ignore[operator]
    assert res.exit_code == 2  # two --dice then loose dice: which roll do they belong to?
    undone = [run(["log", "undo", str(game)]).stdout for _ in range(5)]  # type: ignore[operator]
    assert undone == [  # one step at a time: a box (the dice stay), then each roll
        "Took back Anna's Sechser 0: Anna chooses again for 2 2 2 2 2. Next: Anna.\n",
        "Took back Anna's roll 2 2 2 2 2. Next: Anna.\n",
        "Took back Ben's Sechser 0: Ben chooses again for 3 3 2 2 4. Next: Ben.\n",
        "Took back Ben's roll 3 3 2 2 4 (kept 3 3). Next: Ben.\n",
        "Took back Ben's roll 1 3 3 5 6. Next: Ben.\n",
    ]
    assert game.read_bytes() == before  # Ben's whole turn went, the roll typed first included
    res = run(["log", "set", str(game), "upper_bonus=50"])  # type: ignore[operator]
    assert res.exit_code == 0 and res.stdout == "upper_bonus=50: no total changes.\n"
    res = run(["log", "add", str(tmp := game.with_name("missing.ndjson")), "--dice", "11111"])  # type: ignore[operator]
    assert res.exit_code == 2 and res.stderr == f"yahtzee: error: {tmp}: no such file or directory\n"
    assert not tmp.exists()
    _valid(game)


def test_play_from_a_pipe(cli: object, game: Path) -> None:
    """The same conversation without a terminal: lines in, the screen out."""
    lines = "\n".join(["13356", "keep 33", "33224", "keep 3322", "33322", "Kniffel", "66666",
                       "kniffel", "set extra_yahtzee_bonus=50", "q"]) + "\n"
    res = cli(["play", str(game), "--rules", "kniffel", "--players", "Anna,Ben"], input=lines)  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert "-- Turn 1: Anna -- kniffel" in out and "Dreierpasch" in out  # the sheet in the rules' language
    assert "Anna writes Kniffel 0." in out and "Ben writes Kniffel 50." in out
    assert f"continue with: yahtzee play --resume {game}" in out
    assert all(len(line) <= 80 for line in out.splitlines() if str(game) not in line)
    res = cli(["play", "--resume", str(game)], input="66666\nkniffel\n")  # type: ignore[operator]
    assert "Refused: box yahtzee is already filled" in res.stdout
    (doc,) = _valid(game)
    assert [t.get("box") for t in doc["turns"]] == ["yahtzee", "yahtzee", None]
    assert doc["turns"][-1] == {"player": "Anna", "rolls": [[6, 6, 6, 6, 6]]}  # the turn in progress
    res = cli(["play", str(game), "--players", "Cleo"])  # type: ignore[operator]
    assert res.exit_code == 1 and "in progress" in res.stderr


def test_play_rolls_the_dice_with_a_seed(cli: object, game: Path) -> None:
    res = cli(["play", str(game), "--roll", "--seed", "7", "--players", "Solo"], input="\nkeep\n\nchance\nq\n")  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    (doc,) = _valid(game)
    turn = doc["turns"][0]
    assert len(turn["rolls"]) == 3 and turn["held"] == [[], []] and turn["box"] == "chance"
    assert turn["score"] == sum(turn["rolls"][-1])


def test_play_ends_with_standings_and_shared_ranks(cli: object, game: Path) -> None:
    spec = {"name": "one", "boxes": [{"key": "chance", "kind": "chance"}]}
    rules = game.with_name("one.json")
    rules.write_text(json.dumps(spec))
    res = cli(["play", str(game), "--rules", str(rules), "--players", "Anna,Ben"],  # type: ignore[operator]
              input="12345\nchance\n33333\nchance\n")
    assert res.exit_code == 0, res.stderr
    assert "Game over: a tie between Anna, Ben." in res.stdout
    assert [line.split()[:3] for line in res.stdout.splitlines() if line.startswith("1 ")] == [
        ["1", "Anna", "15"], ["1", "Ben", "15"]]
    res = cli(["play", str(game), "--rules", str(rules), "--players", "Anna"], input="66666\nchance\n")  # type: ignore[operator]
    assert "Anna: 30, a new personal best! (1 earlier game in this file under these rules)" in res.stdout
    assert len(_valid(game)) == 2


def test_play_without_a_file_keeps_games_in_the_user_data_directory(cli: object, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from yahtzee_cli.cli.play import default_file
    from yahtzee_cli.play.library import month_file

    if sys.platform != "linux":  # XDG_DATA_HOME moves the data directory on Linux only
        pytest.skip("the data directory is redirected through XDG_DATA_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("YAHTZEE_LIBRARY", raising=False)
    res = cli(["play", "--players", "Solo"], input="12345\nq\n")  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    path = month_file(tmp_path / "yahtzee-cli" / "games")  # the library, one file a month
    assert default_file() == path and f"Game file: {path}" in res.stdout
    res = cli(["play", "--resume"], input="chance\n")  # type: ignore[operator]
    assert "Solo writes Chance 15." in res.stdout
    assert _valid(path)[0]["turns"][0]["score"] == 15


def test_log_add_names_the_column_on_multi_column_sheets(cli: object, game: Path) -> None:
    cli(["log", "new", str(game), "--rules", "triple-yahtzee", "--players", "Anna"])  # type: ignore[operator]
    res = cli(["log", "add", str(game), "--dice", "66666", "--box", "sixes", "--column", "2"])  # type: ignore[operator]
    assert res.stdout == "Anna: Sixes 30 in column 2. Anna 60. Next: Anna.\n"  # column 2 counts twice
    res = cli(["log", "add", str(game), "--dice", "12345", "--box", "chance"])  # type: ignore[operator]
    assert res.exit_code == 1 and "chance is open in columns 1, 2, 3: say which column" in res.stderr
