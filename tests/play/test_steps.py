"""One step at a time: what `undo` takes back (a keep, a box, a roll), and machine dice that an undo
never rerolls (the game's dice stream), through the score keeper and `play` fed from a pipe."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.errors import KeeperError
from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play.scorekeeper import Keeper, stream_dice


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return tmp_path / "game.ndjson"


def _turns(path: Path) -> list[dict[str, Any]]:
    return loads(path.read_bytes().splitlines()[-1])["turns"]


def test_undo_goes_back_one_step_at_a_time(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna", "Ben"])
    k.record([[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]], [[3, 3], [3, 3, 2, 2]], "full_house")
    assert k.next_player == "Ben"
    # the box: Anna chooses again, the same dice showing
    assert k.undo() == "took back Anna's Full house 25: Anna chooses again for 3 3 3 2 2"
    assert k.position().player == "Anna" and k.position().dice == (2, 2, 3, 3, 3)
    assert k.position().rolls_left == 0
    assert _turns(game) == [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]],
                             "held": [[3, 3], [3, 3, 2, 2]]}]
    # then the rolls, last first, each with the dice kept before it
    assert k.undo() == "took back Anna's roll 3 3 3 2 2 (kept 3 3 2 2)"
    assert k.position().dice == (2, 2, 3, 3, 4) and k.position().rolls_left == 1
    assert k.undo() == "took back Anna's roll 3 3 2 2 4 (kept 3 3)"
    assert _turns(game) == [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6]]}]
    assert k.undo() == "took back Anna's roll 1 3 3 5 6"
    assert _turns(game) == [] and k.position().dice is None
    with pytest.raises(KeeperError, match="nothing to undo"):
        k.undo()


def test_a_pass_and_a_column_are_taken_back_alone(game: Path) -> None:
    k = Keeper.start(game, "triple-yahtzee", ["Anna"])
    k.record([[1, 2, 3, 4, 6]], box="chance", column=2)
    assert k.undo() == "took back Anna's Chance 16 in column 2: Anna chooses again for 1 2 3 4 6"
    k.record(box="chance", column=3)
    assert _turns(game)[0]["column"] == 3


def test_a_keep_is_a_step_of_its_own(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna"])
    k.record([[1, 3, 3, 5, 6]])
    with pytest.raises(KeeperError, match="not all among the dice showing"):
        k.hold([4])
    assert k.hold([3, 3]) == (3, 3)
    assert k.undo() == "took back Anna's keep 3 3"
    assert _turns(game) == [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6]]}]  # a keep is not saved alone
    k.hold([3, 3, 5])
    k.record([[3, 3, 5, 1, 1]])  # the keep noted is recorded with the roll typed next
    assert _turns(game)[0]["held"] == [[3, 3, 5]]


def test_stream_dice_are_fixed_by_position_and_fair() -> None:
    assert stream_dice(7, 3, 1, 5) == stream_dice(7, 3, 1, 5)
    assert stream_dice(7, 3, 1, 5)[:2] == stream_dice(7, 3, 1, 2)  # k rerolled dice: the first k faces
    assert len({tuple(stream_dice(7, t, r, 5)) for t in range(20) for r in range(3)}) > 50
    faces = Counter(f for t in range(2000) for r in range(3) for f in stream_dice(11, t, r, 5))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    n = sum(faces.values())
    chi2 = sum((c - n / 6) ** 2 / (n / 6) for c in faces.values())
    assert chi2 < 20.5  # 5 degrees of freedom: p < 0.001 beyond


def test_undo_never_rerolls_machine_dice(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna", "Ben"])
    first = k.roll(seed=42).dice
    assert first is not None
    keep = [first[0], first[1]]
    second = k.roll(keep).dice
    k.record(box="chance")
    k.undo()  # the box: the same dice showing
    assert k.position().dice == tuple(sorted(second or ()))
    k.undo()  # the roll of the keep
    assert k.position().dice == tuple(sorted(first))
    assert k.roll(keep).dice == second  # the same keep again: the same dice, no free reroll
    k.undo()
    assert sorted(k.roll([first[0]]).dice or ()) == sorted([first[0], *stream_dice(42, 0, 1, 4)])
    k.undo()
    k.undo()  # the first roll
    assert k.position().dice is None
    assert k.roll().dice == first
    assert loads(game.read_bytes())["meta"]["dice_stream"] == {"seed": 42}
    # resumed after a kill: the same stream goes on
    again = Keeper.open(game)
    third = again.roll(keep).dice
    again.undo()
    assert Keeper.open(game).roll(keep).dice == third


def test_the_seed_of_a_game_is_its_own(game: Path) -> None:
    k = Keeper.start(game, "yahtzee", ["Anna"])
    k.record([[1, 2, 3, 4, 5]], box="chance")  # dice typed: no stream yet
    assert "meta" not in loads(game.read_bytes())
    k.roll()
    seed = k.dice_seed
    assert isinstance(seed, int)
    k.roll(seed=seed + 1)  # a stream once started is the game's
    assert k.dice_seed == seed


# --------------------------------------------------------------------------- play from a pipe

def test_play_roll_undo_shows_the_same_dice(cli: Any, game: Path) -> None:
    lines = ["", "keep", "undo", "keep", "undo", "undo", "", "q"]
    res = cli(["play", str(game), "--roll", "--seed", "3", "--players", "Solo"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.stderr
    shown = [line.split("  (")[0] for line in res.stdout.splitlines() if line.startswith("Solo: ")]
    first, second = stream_dice(3, 0, 0, 5), stream_dice(3, 0, 1, 5)
    one, two = " ".join(map(str, sorted(first))), " ".join(map(str, sorted(second)))
    assert shown == [f"Solo: {d}" for d in (one, two, one, two, one, one)]
    assert "Took back Solo's roll" in res.stdout


@pytest.mark.parametrize("word", ["ls", "ss"])
def test_a_shell_word_asks_before_writing_a_box(cli: Any, game: Path, word: str) -> None:
    lines = ["12345", word, "n", word, "y", "q"]
    res = cli(["play", str(game), "--players", "Anna,Ben"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert out.count(f"{word} is ") == 2 and "for Anna? y writes it" in out
    assert "Not written" in out
    box = {"ls": "large_straight", "ss": "small_straight"}[word]
    assert [t.get("box") for t in _turns(game)] == [box]


def test_box_names_write_without_asking(cli: Any, game: Path) -> None:
    res = cli(["play", str(game), "--players", "Anna"], input="12345\nlarge straight\nq\n")
    assert res.exit_code == 0 and "y writes it" not in res.stdout
    assert _turns(game)[0]["box"] == "large_straight"


def test_a_shell_word_then_another_entry_is_not_a_yes(cli: Any, game: Path) -> None:
    res = cli(["play", str(game), "--players", "Anna"], input="12345\nls\nchance\nq\n")
    assert res.exit_code == 0
    assert _turns(game)[0]["box"] == "chance"


def test_resumed_with_roll_the_dice_stream_goes_on(cli: Any, game: Path) -> None:
    """Killed (or quit) mid-turn and resumed: undo and the same keep show the dice of before."""
    res = cli(["play", str(game), "--roll", "--players", "Solo"], input="\nkeep\nq\n")
    assert res.exit_code == 0, res.stderr
    (turn,) = _turns(game)
    first, second = turn["rolls"]
    res = cli(["play", "--resume", str(game), "--roll"], input="undo\nkeep\nq\n")
    assert res.exit_code == 0, res.stderr
    assert f"Took back Solo's roll {' '.join(map(str, second))} (kept nothing)" in res.stdout
    assert _turns(game)[0]["rolls"] == [first, second]  # the same dice again
    res = cli(["play", "--resume", str(game), "--roll", "--seed", "1"], input="q\n")
    seed = loads(game.read_bytes())["meta"]["dice_stream"]["seed"]
    assert (res.exit_code == 2) is (seed != 1) and ("already come from seed" in res.stderr) is (seed != 1)
