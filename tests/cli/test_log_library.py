"""`log`, `hint`, `replay`, `analyze` and `play` at the table: the library's game in play taken when
no file is named, dice typed the same way everywhere, refusals that say what to type and what state
the game is in, the rules' own box names, and a session that could not save an entry failing."""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_small_rules
from yahtzee_cli.formats.jsonio import loads


@pytest.fixture
def quick_chances(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chances to win of every game of two, without building their tables (a fixed answer)."""
    from yahtzee_cli.formats.replay import PlayerChance
    from yahtzee_cli.play import odds

    monkeypatch.setattr(odds, "game_odds", lambda rp, say=None: [PlayerChance(0.625, 0.0), PlayerChance(0.375, 0.0)])


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "library"
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(folder))
    return folder


def _games(path: Path) -> list[dict[str, Any]]:
    return [loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_library_game_is_played_with_no_path_typed(cli: Any, library: Path, quick_chances: None) -> None:
    r = cli(["log", "new", "--players", "Mom,Dad"])
    assert r.exit_code == 0, r.stderr
    (file,) = library.glob("games-*.ndjson")
    r = cli(["log", "add", "1", "3", "3", "5", "6"])  # dice as words, as hint takes them
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Mom rolled 1 3 3 5 6 (roll 1 of 3)."), r.stdout
    r = cli(["log", "show"])
    assert r.exit_code == 0, r.stderr
    assert f"game 1 in {file}: turn 1, Mom to play." in r.stdout and "Rolls: 1 3 3 5 6" in r.stdout
    r = cli(["hint", "--in-play", "--top", "1"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Mom: 1 3 3 5 6, 2 rolls left"), r.stdout
    r = cli(["log", "add", "--dice", "33322", "--box", "fh"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Mom: Full house 25. Mom 25, Dad 0. Next: Dad."), r.stdout
    r = cli(["log", "add", "66666", "--box", "yahtzee"])
    assert r.exit_code == 0, r.stderr
    r = cli(["log", "undo"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Took back Dad's Yahtzee 50: Dad chooses again for 6 6 6 6 6."), r.stdout
    r = cli(["log", "set", "upper_bonus=50"])
    assert r.exit_code == 0, r.stderr
    r = cli(["replay", "--json"])
    assert r.exit_code == 0, r.stderr
    record = loads(r.stdout.splitlines()[0])
    assert record["file"] == str(file) and record["next"] == "Dad"
    (game,) = _games(file)
    assert game["turns"][0]["rolls"] == [[1, 3, 3, 5, 6], [3, 3, 3, 2, 2]]
    assert game["rules"]["settings"]["upper_bonus"] == 50
    r = cli(["log", "end"])
    assert r.exit_code == 0, r.stderr
    assert f"Ended the game in {file} (Mom, Dad; started " in r.stdout, r.stdout
    for args in (["log", "add", "12345"], ["log", "show"], ["hint", "--in-play"], ["replay"], ["log", "set", "a=b"]):
        r = cli(args)
        assert r.exit_code == 2, (args, r.stdout)
        line = _one_line(r.stderr)
        assert "was ended unfinished" in line and "yahtzee log new --players A,B" in line, line


def test_with_no_game_in_the_library_each_command_says_how_to_start_one(cli: Any, library: Path) -> None:
    for args in (["log", "show"], ["log", "add", "12345"], ["log", "undo"], ["log", "end"],
                 ["log", "set", "joker=free"], ["hint", "--in-play"], ["replay"], ["analyze"]):
        r = cli(args)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        line = _one_line(r.stderr)
        assert "yahtzee log new --players A,B" in line and "yahtzee play" in line, line


def test_a_named_file_still_wins_over_the_library(cli: Any, library: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.ndjson"
    assert cli(["log", "new", "--players", "Mom,Dad"]).exit_code == 0
    assert cli(["log", "new", str(other), "--players", "Zoe"]).exit_code == 0
    r = cli(["log", "add", str(other), "6", "6", "6", "2", "1"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Zoe rolled 1 2 6 6 6"), r.stdout
    assert "Zoe to play" in cli(["log", "show", str(other)]).stdout
    assert "Mom to play" in cli(["log", "show"]).stdout
    r = cli(["log", "set", str(other), "joker=free"])
    assert r.exit_code == 0, r.stderr
    assert _games(other)[0]["rules"]["settings"]["joker"] == "free"


def test_a_finished_library_game_is_still_shown_and_replayed(cli: Any, library: Path) -> None:
    rules = write_small_rules(library.parent)
    assert cli(["log", "new", "--players", "Zoe", "--rules", rules]).exit_code == 0
    for box in ("fours", "fives", "sixes", "three_of_a_kind", "yahtzee", "chance"):
        assert cli(["log", "add", "66666", "--box", box]).exit_code == 0
    assert "Game over." in cli(["log", "show"]).stdout
    r = cli(["replay", "--json"])
    assert r.exit_code == 0 and loads(r.stdout.splitlines()[0])["game_over"] is True, r.stdout
    r = cli(["log", "add", "12345"])  # a change needs a game in play
    assert r.exit_code == 2 and "is over" in _one_line(r.stderr), r.stderr


def test_stdin_as_a_pipe_is_read_only_when_named(yahtzee: list[str], library: Path, tmp_path: Path) -> None:
    env = {**os.environ, "YAHTZEE_LIBRARY": str(library)}
    game = tmp_path / "g.ndjson"
    subprocess.run([*yahtzee, "log", "new", str(game), "--players", "Zoe"], env=env, check=True, capture_output=True)
    for command in ("replay", "analyze"):
        r = subprocess.run([*yahtzee, command], input=game.read_bytes(), env=env, capture_output=True, timeout=120)
        assert r.returncode == 2, r
        assert f"yahtzee {command} -" in _one_line(r.stderr.decode()), r.stderr
    r = subprocess.run([*yahtzee, "replay", "-", "--json"], input=game.read_bytes(), env=env, capture_output=True,
                       timeout=120)
    assert r.returncode == 0 and loads(r.stdout.splitlines()[0])["file"] == "<stdin>", r


def test_dice_are_taken_the_same_way_as_hint_takes_them(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    assert cli(["log", "new", str(game), "--players", "Zoe"]).exit_code == 0
    for words, roll in ((["6", "6", "6", "2", "1"], [6, 6, 6, 2, 1]), (["5,5,5,2,1"], [5, 5, 5, 2, 1]),
                        (["--dice", "4", "4", "4", "2", "1"], [4, 4, 4, 2, 1])):
        r = cli(["log", "add", str(game), *words])
        assert r.exit_code == 0, (words, r.stderr)
        assert _games(game)[0]["turns"][-1]["rolls"][-1] == roll
        assert cli(["log", "undo", str(game)]).exit_code == 0
    r = cli(["log", "add", str(game), "6", "x"])
    assert r.exit_code == 2 and "dice are the digits 1-6" in _one_line(r.stderr), r.stderr


def test_a_refused_entry_records_nothing_and_says_where_the_turn_stands(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    assert cli(["log", "new", str(game), "--players", "Zoe"]).exit_code == 0
    assert cli(["log", "add", str(game), "13356"]).exit_code == 0
    before = game.read_bytes()
    r = cli(["log", "add", str(game), "--dice", "11111", "--dice", "22222", "--dice", "33333", "--box", "chance"])
    assert r.exit_code == 1
    line = _one_line(r.stderr)
    assert ("nothing recorded: Zoe's turn stands at roll 1 of 3 (1 3 3 5 6); give the rolls again with the box"
            in line), line
    assert game.read_bytes() == before  # all or nothing
    r = cli(["log", "add", str(game), "--box", "nonsense"])
    assert r.exit_code == 2 and "nothing recorded: Zoe's turn stands at roll 1 of 3" in _one_line(r.stderr)
    assert game.read_bytes() == before


def test_kniffel_entries_are_said_with_the_sheet_s_own_names(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    assert cli(["log", "new", str(game), "--rules", "kniffel", "--players", "Anna"]).exit_code == 0
    assert "Boxes: Einser 0  Zweier 2" in cli(["log", "add", str(game), "23456"]).stdout + \
        cli(["log", "show", str(game)]).stdout
    r = cli(["log", "add", str(game), "--box", "small_straight"])
    assert r.stdout.startswith("Anna: Kleine Straße 30."), r.stdout
    r = cli(["log", "undo", str(game)])
    assert r.stdout.startswith("Took back Anna's Kleine Straße 30"), r.stdout


def test_a_game_in_progress_refusal_names_the_commands_and_force_names_the_game(cli: Any, tmp_path: Path) -> None:
    game = tmp_path / "my games.ndjson"
    assert cli(["log", "new", str(game), "--players", "Ann,Bob"]).exit_code == 0
    r = cli(["log", "new", str(game), "--players", "Cat,Dan", "--set", "joker=free"])
    assert r.exit_code == 1
    line = _one_line(r.stderr)
    quoted = f"'{game}'"
    for command in (f"yahtzee play --resume {quoted}", f"yahtzee log end {quoted}",
                    f"yahtzee log new {quoted} --set joker=free --players Cat,Dan --force"):
        assert command in line, line
    assert "(Ann, Bob; started " in line, line
    r = cli(["log", "new", str(game), "--players", "Cat,Dan", "--force"])
    assert r.exit_code == 0, r.stderr
    assert f"Ended the unfinished game in {game} (Ann, Bob; started " in r.stderr, r.stderr
    assert [g.get("meta", {}).get("abandoned") for g in _games(game)] == [True, None]


def _play(yahtzee: list[str], args: list[str], typed: str,
          limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def file_size_limit() -> None:  # a full disk, as a file-size limit: writes fail with EFBIG
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([*yahtzee, "play", *args], input=typed, capture_output=True, text=True, timeout=120,
                          preexec_fn=file_size_limit)


def test_play_refuses_a_new_game_naming_what_to_type_and_force_ends_it(yahtzee: list[str], tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    rules = write_small_rules(tmp_path)
    assert _play(yahtzee, [str(game), "--rules", rules, "--players", "Ann,Bob"], "13356\n").returncode == 0
    r = _play(yahtzee, [str(game), "--rules", rules, "--players", "Cat,Dan", "--roll"], "")
    assert r.returncode == 1
    line = _one_line(r.stderr)
    for command in (f"yahtzee play --resume {game}", f"yahtzee log end {game}",
                    f"yahtzee play {game} --rules {rules} --players Cat,Dan --roll --force"):
        assert command in line, line
    r = _play(yahtzee, [str(game), "--rules", rules, "--players", "Cat,Dan", "--force"], "q\n")
    assert r.returncode == 0, r.stderr
    assert f"Ended the unfinished game in {game} (Ann, Bob; started " in r.stdout, r.stdout
    assert "; turn 1): kept, marked abandoned." in r.stdout, r.stdout
    assert "Turn 1: Cat" in r.stdout


def test_play_resume_shows_the_chances_at_once(cli: Any, tmp_path: Path, quick_chances: None) -> None:
    game = tmp_path / "g.ndjson"
    r = cli(["play", str(game), "--players", "Ann,Bob"], input="66666\nyahtzee\n")
    assert r.exit_code == 0, r.stderr
    r = cli(["play", "--resume", str(game)], input="q\n")
    assert r.exit_code == 0, r.stderr
    head = r.stdout.split("Bob, type the dice")[0]
    assert "Chances to win: Ann 62.5%, Bob 37.5%" in head, r.stdout


def test_play_that_could_not_save_an_entry_fails(yahtzee: list[str], tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    rules = write_small_rules(tmp_path)
    assert _play(yahtzee, [str(game), "--rules", rules, "--players", "Ann"], "").returncode == 0
    before = hashlib.sha256(game.read_bytes()).hexdigest()
    r = _play(yahtzee, ["--resume", str(game)], "12345\n", limit=game.stat().st_size)
    assert hashlib.sha256(game.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.ndjson", "small.json"]  # no temporary file left
    assert r.returncode == 1, r
    line = _one_line(r.stderr)
    assert str(game) in line and "exceed the size allowed" in line, line
    assert "Not saved: cannot write" in r.stdout


def test_a_session_fails_when_its_file_was_changed_by_another_program(tmp_path: Path) -> None:
    from yahtzee_cli.cli.play import Session
    from yahtzee_cli.play.scorekeeper import Keeper

    game = tmp_path / "g.ndjson"
    session = Session(Keeper.start(game, "yahtzee", ["Ann"]))
    assert session.failure() is None
    Keeper.open(game).record([[1, 2, 3, 4, 5]])  # another program's entry
    shown = session.handle("66666")
    assert shown[0].startswith("Not saved: ") and "changed by another program" in shown[0], shown
    assert session.keeper.position().dice is None  # not made
    failure = session.failure()
    assert failure is not None and "changed by another program" in failure
