"""`yahtzee play` driven through a real terminal: a pseudo-terminal (pexpect) with a terminal
emulator (pyte) reading the screen, as a player would see it. A short custom rule set (four boxes)
keeps a complete two-player game to a few seconds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.formats.replay import replay_game
from yahtzee_cli.formats.validate import validate_stream

ROWS, COLS = 60, 80

# Four boxes; German names as on a Kniffel sheet for two of them. Upper bonus 35 from 18 in sixes.
MINI = {
    "name": "mini",
    "boxes": [
        {"key": "sixes", "name": "Sechser", "kind": "upper", "face": 6},
        {"key": "full_house", "kind": "groups", "sizes": [3, 2], "points": 25, "aliases": ["fh"]},
        {"key": "yahtzee", "name": "Kniffel", "kind": "yahtzee", "points": 50},
        {"key": "chance", "kind": "chance"},
    ],
    "settings": {"upper_bonus_threshold": 18, "upper_bonus": 35},
}


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rules file, with its strategy table built once up front (the hint then reads it)."""
    from yahtzee_cli.formats.logs import resolve_rules
    from yahtzee_cli.play.hint import source_for

    path = tmp_path_factory.mktemp("play") / "mini.json"
    path.write_text(json.dumps(MINI))
    source_for(resolve_rules(MINI))
    return path


class Terminal:
    """`yahtzee ARGS` in an 80x60 pseudo-terminal; `screen` is what the terminal shows."""

    def __init__(self, args: list[str], color: bool = False, term: str = "xterm") -> None:
        env = {**os.environ, "TERM": term, "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1"}
        if color:
            del env["NO_COLOR"]
        self.child = pexpect.spawn(sys.executable, ["-m", "yahtzee_cli", *args], env=env, dimensions=(ROWS, COLS))
        self.screen = pyte.HistoryScreen(COLS, ROWS, history=2000)
        self.stream = pyte.ByteStream(self.screen)
        self.closed = False
        self.raw = b""

    def _pump(self) -> None:
        try:
            chunk = self.child.read_nonblocking(65536, timeout=0.05)
            self.raw += chunk
            self.stream.feed(chunk)
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            self.closed = True

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def wait(self, text: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while text not in self.text():
            if self.closed or time.monotonic() > end:
                raise AssertionError(f"{text!r} never showed; the screen:\n{self.text()}")
            self._pump()

    def wait_prompt(self, name: str, timeout: float = 30) -> None:
        """Until the cursor sits on a fresh, empty `name>` prompt."""
        end = time.monotonic() + timeout
        while self.lines()[self.screen.cursor.y] != f"{name}>":
            if self.closed or time.monotonic() > end:
                raise AssertionError(f"no fresh {name}> prompt; the screen:\n{self.text()}")
            self._pump()

    def enter(self, name: str, keys: str, expect: str) -> None:
        """At `name`'s prompt, type `keys` and Enter, then wait until `expect` shows."""
        self.wait_prompt(name)
        self.screen.reset()  # what follows is only this entry's answer
        self.child.send(keys + "\r")
        self.wait(expect)

    def finish(self) -> int:
        end = time.monotonic() + 30
        while not self.closed and time.monotonic() < end:
            self._pump()
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)


def _totals(screen: str) -> list[int]:
    rows = [line for line in screen.splitlines() if line.startswith("Total")]
    assert rows, screen
    return [int(v) for v in rows[-1].split()[1:]]


def _last_game(path: Path) -> dict:
    return loads(path.read_bytes().splitlines()[-1])


def _check_file(path: Path) -> dict:
    with open(path, "rb") as fh:
        reports = list(validate_stream(fh))
    assert all(r.valid for r in reports), [str(p) for r in reports for p in r.problems]
    return _last_game(path)


def test_a_two_player_game_at_the_terminal(rules_file: Path, tmp_path: Path) -> None:
    game = tmp_path / "games.ndjson"
    t = Terminal(["play", str(game), "--rules", str(rules_file), "--players", "Anna,Ben"])
    t.wait("Turn 1: Anna")
    t.enter("Anna", "13356", "(roll 1 of 3, 2 left)")
    t.enter("Anna", "?", "best")
    hint = t.text()
    assert "(mini, exact)" in hint and re.search(r"keep [0-9 ]+ +\d+\.\d{4} +best", hint), hint
    assert re.search(r"-\d+\.\d{4}", hint), hint  # the other options with their regret
    t.enter("Anna", "keep 33", "Keeping 3 3")
    t.enter("Anna", "33224", "(roll 2 of 3, 1 left)")
    t.enter("Anna", "keep 3322", "Keeping")
    t.enter("Anna", "33322", "Full house 25")  # the legal boxes with what each writes
    t.enter("Anna", "fh", "Turn 2: Ben")
    t.enter("Ben", "66666", "Kniffel 50")
    t.wait_prompt("Ben")
    t.child.send("Knif\t")  # Tab completes the German name of the yahtzee box
    t.wait("Ben> Kniffel")
    t.child.send("\r")
    t.wait("Turn 3: Anna")
    assert "Ben writes Kniffel 50" in t.text()
    t.enter("Anna", "66612", "Sechser 18")
    t.enter("Anna", "Sechser", "Turn 4: Ben")
    t.enter("Ben", "undo", "Took back Anna's Sechser 18: Anna chooses again for 6 6 6 1 2")  # one step: the box
    t.enter("Anna", "undo", "Took back Anna's roll 6 6 6 1 2")  # then the roll
    t.enter("Anna", "66634", "(roll 1 of 3")
    t.enter("Anna", "sixes", "Turn 4: Ben")
    assert _totals(t.text()) == [25 + 18 + 35, 50]
    t.enter("Ben", "set upper_bonus=50", "Anna 78 -> 93")  # the sheet recalculated
    assert _totals(t.text()) == [25 + 18 + 50, 50]
    t.enter("Ben", "66123", "(roll 1 of 3")
    t.enter("Ben", "sixes", "Turn 5: Anna")
    t.enter("Anna", "12345", "Chance 15")
    t.enter("Anna", "chance", "Turn 6: Ben")
    t.enter("Ben", "23456", "Chance 20")
    t.enter("Ben", "chance", "Turn 7: Anna")
    t.enter("Anna", "11111", "Kniffel 50")
    t.enter("Anna", "yahtzee", "Turn 8: Ben")
    t.enter("Ben", "22233", "Full house 25")
    t.enter("Ben", "full house", "Game over")
    screen = t.text()
    assert t.finish() == 0
    # by hand: Anna 18 + 50 bonus + 25 + 15 + 50; Ben 12 + 50 + 20 + 25
    assert _totals(screen) == [158, 107]
    assert "Game over: Anna wins." in screen
    data = _check_file(game)
    assert data["rules"]["settings"]["upper_bonus"] == 50
    assert data["turns"][0]["held"] == [[3, 3], [3, 3, 2, 2]]
    rp = replay_game(data)
    assert [p.total for p in rp.players] == [158, 107]


def test_killed_mid_game_then_resumed(rules_file: Path, tmp_path: Path, cli: Any) -> None:
    game = tmp_path / "games.ndjson"
    t = Terminal(["play", str(game), "--rules", str(rules_file), "--players", "Anna,Ben"])
    t.enter("Anna", "13356", "(roll 1 of 3")
    t.enter("Anna", "keep 33", "Keeping")
    t.enter("Anna", "33224", "(roll 2 of 3")
    t.wait_prompt("Anna")
    t.child.kill(signal.SIGKILL)
    t.finish()
    saved = _check_file(game)
    assert saved["turns"] == [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6], [3, 3, 2, 2, 4]], "held": [[3, 3]]}]

    t = Terminal(["play", "--resume", str(game)])
    t.wait("Anna: 2 2 3 3 4  (roll 2 of 3, 1 left)")
    t.enter("Anna", "keep 3322", "Keeping")
    t.enter("Anna", "33322", "(roll 3 of 3")
    for name, dice, box, after in [
        ("Anna", None, "full_house", "Turn 2: Ben"),
        ("Ben", "66666", "yahtzee", "Turn 3: Anna"),
        ("Anna", "66612", "sixes", "Turn 4: Ben"),
        ("Ben", "66123", "sixes", "Turn 5: Anna"),
        ("Anna", "12345", "chance", "Turn 6: Ben"),
        ("Ben", "23456", "chance", "Turn 7: Anna"),
        ("Anna", "11111", "yahtzee", "Turn 8: Ben"),
        ("Ben", "22233", "full_house", "Game over"),
    ]:
        if dice:
            t.enter(name, dice, "(roll 1 of 3")
        t.enter(name, box, after)
    screen = t.text()
    assert t.finish() == 0
    assert _totals(screen) == [18 + 35 + 25 + 15 + 50, 107]
    data = _check_file(game)
    assert data["turns"][0] == {"player": "Anna", "rolls": [[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]],
                                "held": [[3, 3], [3, 3, 2, 2]], "box": "full_house", "score": 25}
    assert [p.total for p in replay_game(data).players] == [143, 107]
    graded = cli(["replay", "--analyze", str(game), "--json"])
    assert graded.exit_code == 0, graded.stderr
    assert [p["name"] for p in loads(graded.stdout.splitlines()[0])["players"]] == ["Anna", "Ben"]


@pytest.mark.parametrize("color", [True, False])
def test_colours_only_without_no_color(rules_file: Path, tmp_path: Path, color: bool) -> None:
    t = Terminal(["play", str(tmp_path / "g.ndjson"), "--rules", str(rules_file), "--players", "Anna"], color=color)
    t.wait_prompt("Anna")
    t.child.send("q\r")
    t.wait("Saved in")
    t.finish()
    assert (b"\x1b[1;36m-- Turn 1: Anna" in t.raw) is color
    assert re.search(rb"\x1b\[[0-9;]*3[0-7]m", t.raw) is None or color


def test_other_commands_never_import_the_terminal_library() -> None:
    code = ("import sys; from yahtzee_cli.cli import main; sys.argv = ['yahtzee', 'score', '12345']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'prompt_toolkit' not in sys.modules, 'prompt_toolkit imported'")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr


def _dice(t: Terminal, name: str, roll: int) -> str:
    """The dice `name` has showing after roll `roll`, as the screen shows them."""
    t.wait(f"(roll {roll} of 3")
    found = re.findall(rf"^{name}: ([1-6 ]+?)  \(roll {roll} of 3", t.text(), re.M)
    assert found, t.text()
    return found[-1]


def test_three_players_rolled_by_the_program_and_undo_never_changes_the_dice(rules_file: Path,
                                                                                tmp_path: Path) -> None:
    """--roll for three players; undo a box, a keep's roll and a first roll: each time the same dice
    show, and thrown again they come back the same (no free reroll). The file then validates and
    replays to the totals on the screen."""
    game = tmp_path / "night.ndjson"
    players = ["Anna", "Ben", "Cleo"]
    t = Terminal(["play", str(game), "--rules", str(rules_file), "--players", ",".join(players), "--roll",
                  "--seed", "2024"])
    t.wait("Turn 1: Anna")
    t.enter("Anna", "", "(roll 1 of 3")
    first = _dice(t, "Anna", 1)
    keep = first.split()[0]
    t.enter("Anna", f"keep {keep}", "(roll 2 of 3")
    second = _dice(t, "Anna", 2)
    t.enter("Anna", "chance", "Turn 2: Ben")
    t.enter("Ben", "undo", "Took back Anna's Chance")  # the box: Anna chooses again, the dice unchanged
    assert _dice(t, "Anna", 2) == second
    t.enter("Anna", "undo", f"Took back Anna's roll {second} (kept {keep})")  # the keep and its roll
    assert _dice(t, "Anna", 1) == first
    t.enter("Anna", f"keep {keep}", "(roll 2 of 3")
    assert _dice(t, "Anna", 2) == second  # the same keep again: the same dice
    t.enter("Anna", "undo", "Took back Anna's roll")
    t.enter("Anna", "undo", f"Took back Anna's roll {first}")  # the first roll: the turn not begun
    t.wait("Anna, press Enter to roll")
    t.enter("Anna", "", "(roll 1 of 3")
    assert _dice(t, "Anna", 1) == first
    t.enter("Anna", f"keep {keep}", "(roll 2 of 3")
    assert _dice(t, "Anna", 2) == second
    t.enter("Anna", "chance", "Turn 2: Ben")
    # the rest of the game: each player rolls once and fills chance, sixes, full house, then Kniffel
    # (all legal for any dice while the Kniffel box is open)
    order = ["chance", "sixes", "fh", "Kniffel"]
    turn = 2
    for r in range(4):
        for name in players:
            if r == 0 and name == "Anna":
                continue
            t.enter(name, "", "(roll 1 of 3")
            turn += 1
            t.enter(name, order[r], f"Turn {turn}: {players[(turn - 1) % 3]}" if turn <= 12 else "Game over")
    screen = t.text()
    assert t.finish() == 0
    totals = _totals(screen)
    assert len(totals) == 3
    res = subprocess.run([sys.executable, "-m", "yahtzee_cli", "validate", str(game)], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    replayed = subprocess.run([sys.executable, "-m", "yahtzee_cli", "replay", str(game), "--json"],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0, replayed.stderr
    game_record = json.loads(replayed.stdout.splitlines()[0])  # (the summary record follows it)
    assert game_record["type"] == "game"
    assert [p["total"] for p in game_record["players"]] == totals
    data = _check_file(game)
    assert data["meta"]["dice_stream"] == {"seed": 2024}
    assert data["turns"][0]["rolls"] == [[int(d) for d in first.split()], [int(d) for d in second.split()]]
    assert data["turns"][0]["held"] == [[int(keep)]]


def test_coloured_lines_never_pass_a_typed_escape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refusal echoes what was typed inside a coloured line: the typed ESC is shown escaped, and
    only the colour codes the session puts in reach the terminal."""
    from yahtzee_cli.cli.play import Session, _show
    from yahtzee_cli.play.scorekeeper import Keeper

    keeper = Keeper.start(tmp_path / "g.ndjson", "yahtzee", ["Anna"])
    session = Session(keeper, color=True)
    for typed in ("set \x1b[0m", "set joker=\x1b]0;x\x07", "\x1b[2J"):
        _show(session.handle(typed))
        out = capsys.readouterr().out
        raw = re.sub(r"\x1b\[(?:0|1|31|32|1;36)m", "", out)  # the session's own colours
        assert "\x1b" not in raw and "\x07" not in raw, out
        assert "\\x1b" in out or not typed.startswith("set"), out  # the refusal shows what was typed


def test_the_terminal_reader_has_the_line_cap_of_every_reader(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from yahtzee_cli.cli import play as P

    typed = iter(["x" * 40, "chance"])

    class Prompt:
        def prompt(self, message: str, **_: object) -> str:
            return next(typed)

    monkeypatch.setattr(P, "MAX_LINE", 32)
    monkeypatch.setattr(P, "_PROMPT", [Prompt()])
    assert P._terminal_reader("> ", None) == "chance"  # the long line refused, the next one read
    assert "Refused: a line longer than" in capsys.readouterr().out


def test_a_column_number_is_ascii_digits(tmp_path: Path) -> None:
    """`chance ²` names no column (str.isdigit says yes, int() refuses): refused as a box, no traceback."""
    from yahtzee_cli.cli.play import Session
    from yahtzee_cli.play.scorekeeper import Keeper

    session = Session(Keeper.start(tmp_path / "g.ndjson", "yahtzee", ["Anna"]))
    session.handle("12345")
    for typed in ("chance ²", "chance ٣"):
        (line,) = session.handle(typed)
        assert line.startswith("Refused:"), line
    assert session.handle("chance 1")[0].startswith("Anna writes")


def _no_codes_as_text(t: Terminal) -> None:
    """No colour code shows as text: neither a raw-looking `[1m` nor an escaped `\\x1b`."""
    screen = t.text()
    for shown in ("\\x1b", "\x1b", "[1m", "[0m", "[31m", "[32m", "[1;36m"):
        assert shown not in screen, screen


def _cells(t: Terminal, text: str) -> list[Any]:
    """The cells of the last screen line that starts with `text` (its first len(text) cells)."""
    rows = [y for y, line in enumerate(t.lines()) if line.startswith(text)]
    assert rows, f"{text!r} not on the screen:\n{t.text()}"
    row = t.screen.buffer[rows[-1]]
    return [row[x] for x in range(len(text))]


def test_colours_are_drawn_not_shown_as_text_on_every_screen(rules_file: Path, tmp_path: Path) -> None:
    """A colour terminal (xterm-256color, NO_COLOR unset): the title, the dice, a refusal, a box
    written and the game's end are drawn in colour, and no code ever appears as text on the screen."""
    t = Terminal(["play", str(tmp_path / "g.ndjson"), "--rules", str(rules_file), "--players", "Anna"], color=True,
                 term="xterm-256color")
    t.wait("Turn 1: Anna")
    _no_codes_as_text(t)
    assert all(c.fg == "cyan" and c.bold for c in _cells(t, "-- Turn 1: Anna"))
    t.enter("Anna", "13356", "(roll 1 of 3, 2 left)")
    _no_codes_as_text(t)
    dice = _cells(t, "Anna: 1 3 3 5 6  (roll")
    assert all(c.bold for c in dice[:15]) and not any(c.bold for c in dice[15:]), t.text()
    t.enter("Anna", "?", "best")
    _no_codes_as_text(t)
    t.enter("Anna", "keep 33", "Keeping 3 3")
    t.enter("Anna", "33322", "(roll 2 of 3, 1 left)")
    _no_codes_as_text(t)
    assert all(c.bold for c in _cells(t, "Anna: 2 2 3 3 3"))
    t.enter("Anna", "einser", "Refused")
    _no_codes_as_text(t)
    assert all(c.fg == "red" for c in _cells(t, "Refused: "))
    t.enter("Anna", "fh", "Turn 2: Anna")
    _no_codes_as_text(t)
    assert all(c.fg == "green" for c in _cells(t, "Anna writes Full house 25."))
    for turn, (roll, box) in enumerate([("66612", "Sechser"), ("11111", "Kniffel"), ("12345", "chance")], 2):
        t.enter("Anna", roll, "(roll 1 of 3")
        t.enter("Anna", box, f"Turn {turn + 1}: Anna" if turn < 4 else "Game over")
        _no_codes_as_text(t)
    assert all(c.fg == "cyan" for c in _cells(t, "-- Game over"))
    assert t.finish() == 0


def test_the_dice_line_is_bold_and_a_typed_escape_never_passes(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The dice line is bold up to the dice (the roll count plain); a box typed with an ESC is
    refused in red, its ESC shown escaped."""
    from yahtzee_cli.cli.play import Session, _show
    from yahtzee_cli.play.scorekeeper import Keeper

    session = Session(Keeper.start(tmp_path / "g.ndjson", "yahtzee", ["Ann", "Bob"]), color=True)
    _show(session.handle("13356"))
    _show(session.handle("\x1b[2Jchance"))
    out = capsys.readouterr().out
    assert "\x1b[1mAnn: 1 3 3 5 6\x1b[0m  (roll 1 of 3, 2 left)\n" in out, out
    assert "\x1b[31mRefused: " in out and "\\x1b[2Jchance" in out, out
    assert "\x1b" not in re.sub(r"\x1b\[(?:0|1|31|32|1;36)m", "", out), out


@given(st.text(max_size=12), st.text(max_size=12), st.text(max_size=12))
def test_a_styled_line_keeps_its_colour_through_concatenation(a: str, b: str, c: str) -> None:
    from yahtzee_cli.cli.play import Styled
    from yahtzee_cli.text import escape_lines

    line = c + (Styled(a, ((0, len(a), "1"),)) + b)
    assert isinstance(line, Styled) and str(line) == c + a + b
    assert line.render() == f"{escape_lines(c)}\x1b[1m{escape_lines(a)}\x1b[0m{escape_lines(b)}"


def test_a_triple_game_shows_estimated_chances_in_a_colour_terminal(tmp_path: Path) -> None:
    """Triple Yahtzee has no exact table: after each turn the players see chances estimated from games
    played on, each with its standard error and how it was found, drawn in a colour terminal with no
    code shown as text."""
    t = Terminal(["play", str(tmp_path / "t.ndjson"), "--rules", "triple-yahtzee", "--players", "Ann,Ben"],
                 color=True, term="xterm-256color")
    t.wait("Turn 1: Ann")
    t.enter("Ann", "66621", "(roll 1 of 3, 2 left)")
    t.enter("Ann", "sixes 1", "Turn 2: Ben")
    t.enter("Ben", "12345", "(roll 1 of 3, 2 left)")
    t.enter("Ben", "large_straight 2", "Turn 3: Ann")
    t.wait("one SE).", timeout=60)
    _no_codes_as_text(t)
    text = " ".join(t.text().split())
    line = text[text.index("Chances to win:"):]
    assert re.search(r"Ben \d+\.\d% ± \d\.\d pp, Ann \d+\.\d% ± \d\.\d pp", line), line
    assert "(estimated from " in line and "games played on from each sheet; ± one SE)." in line
    t.child.send("q\r")
    t.wait("Saved in")
    assert t.finish() == 0
    rp = replay_game(_check_file(tmp_path / "t.ndjson"))
    assert rp.turns == 2 and [p.total for p in rp.players] == [18, 80]
