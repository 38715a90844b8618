"""`yahtzee log new|add|undo|end|set|show`: keep a game log entry by entry from scripts (what `play`
does at a terminal). Each command checks the entry with the rules and rewrites the file atomically; a
refused entry leaves the file untouched and exits 1. With --json each prints one record, the game's
state after the entry: the record `replay --json` prints for the same game (formats.replay.game_record)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ..errors import PROBLEM
from ..formats.output import Output
from .app import RulesOpt, SetOpt, command_group, error, fail, note, outputs, saved
from .files import ended_line, game_file, in_progress_refusal, new_game_words, split_players

if TYPE_CHECKING:
    from ..formats.replay import Replay
    from ..play.scorekeeper import Entry, Keeper

T = TypeVar("T")

log_app = command_group(
    "log",
    "Keep a game log (yahtzee-log/1) entry by entry: new game, add a roll or a turn, undo, house rules.\n\n"
    "Without FILE, `log add|set|end` take the library's game in play: the last game of the library's newest "
    "file (`yahtzee library`), while it is neither over nor ended; `log show|undo` take it just after it ended "
    "too. With no such game, they say how to start one and exit 2.",
    "Keep a game log entry by entry, from scripts.",
    "yahtzee log new game.json --players Anna,Ben",
    "yahtzee log add game.json --dice 13356 --held 33 --dice 33322 --box full_house",
    "yahtzee log add 6 6 6 2 1 --box sixes      (the library's game in play)",
    "yahtzee log undo game.json",
    "yahtzee log show game.json --json",
)

FileArg = Annotated[Path | None, typer.Argument(
    metavar="FILE", help="The game file (NDJSON: one game per line, the game in play last).  [default: the "
    "library's game in play, see `yahtzee log -h`]", show_default=False)]


@contextmanager
def _editing(file: Path) -> Iterator[Keeper]:
    """The game in FILE, under the file's lock from reading it to saving the change (so two writers
    at once cannot lose an entry); an unwritable file is refused before any change is made."""
    from ..errors import KeeperError
    from ..play.gamefile import check_writable, locked
    from ..play.scorekeeper import Keeper

    with locked(file):
        try:
            keeper = Keeper.open(file)
            check_writable(file)
        except KeeperError as exc:
            fail(str(exc), PROBLEM)
        yield keeper


def _change(file: Path, out: Output, change: Callable[[Keeper], T],
            refused: Callable[[Keeper], str] | None = None) -> tuple[Keeper, T]:
    """One change to the game in FILE (`change(keeper)`), made under the file's lock: a refused change
    is its one line (`refused(keeper)` added to it) and exit status. Once saved, the game's record
    (--json); then the keeper and what the change returned, for the command's sentence."""
    from ..errors import KeeperError

    with _editing(file) as keeper:
        try:
            result = change(keeper)
        except KeeperError as exc:  # an illegal move (1), or a box or setting the rules do not have (2)
            fail(f"{exc}{refused(keeper) if refused is not None else ''}", exc.exit_status)
    _saved(file, keeper, out)
    return keeper, result


def _saved(file: Path, keeper: Keeper, out: Output) -> None:
    """The entry is in FILE: with --json, the game in play as one JSON record (the game file is NDJSON
    once saved: game N on line N)."""
    saved(file)
    n = len(keeper.file.earlier) + 1
    out.record(lambda: _game_record(str(file), n, n, keeper.standings()))


def _game_record(file: str, line: int, index: int, rp: Replay) -> dict[str, Any]:
    """The record `replay --json` prints for the game, its chances to win included."""
    from ..formats.replay import game_record
    from ..play.odds import chances_note, game_odds
    from .progress import waiting

    with waiting("computing the chances to win"):
        chances = game_odds(rp, note)
    return game_record(file, line, index, rp, chances, chances_note(rp) if chances is None else None)


def _chances(rp: Replay) -> str:
    """' Chances to win: ...' after a turn of a game of two or more still on (empty otherwise)."""
    from ..formats.replay import chances_line, note_line
    from ..play.odds import chances_note, game_odds
    from .progress import waiting

    if rp.game_over:
        return ""
    with waiting("computing the chances to win"):
        chances = game_odds(rp, note)
    if chances is None:
        missing = chances_note(rp)
        return "" if missing is None else " " + note_line(missing)
    return " " + chances_line(rp, chances)


def _totals(keeper: Keeper) -> str:
    rp = keeper.standings()
    return ", ".join(f"{p.name} {p.total}" for p in rp.players)


def _state(keeper: Keeper) -> str:
    """Whose turn it is next, or the result."""
    if keeper.game_over:
        rp = keeper.standings()
        if len(rp.players) == 1:
            return "Game over."
        if len(rp.winners) > 1:
            return f"Game over: a tie between {', '.join(rp.winners)}."
        return f"Game over: {rp.winners[0]} wins."
    return f"Next: {keeper.next_player}."


@log_app.command("new")
@outputs()
def log_new(
    file: Annotated[Path | None, typer.Argument(
        metavar="FILE", show_default=False, help="The game file (NDJSON: one game per line, the game in play "
        "last).  [default: this month's file in the library of played games, see `yahtzee library`]")] = None,
    players: Annotated[list[str] | None, typer.Option(
        "--players", metavar="NAMES", help="Player names in turn order, e.g. "
                                                       "Anna,Ben (repeatable).", show_default=False)] = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    force: Annotated[bool, typer.Option("--force", help="End an unfinished game in FILE first (kept, marked "
                                        "abandoned, as `log end` does).")] = False,
    json: bool = False,
    *,
    out: Output,
) -> None:
    """Start a game at the end of FILE (created if missing, in a folder that exists; earlier games stay
    in it). Refused while FILE's last game is unfinished, unless --force ends it first. Without FILE the
    game goes into the library of played games, and the file is named in the output."""
    from ..errors import GameInProgress, KeeperError, RulesError
    from ..play.library import location, new_game_file, started_now
    from ..play.scorekeeper import Keeper, rules_spec

    names = split_players(players)
    if not names:
        fail("name the players with --players, e.g. --players Anna,Ben")
    try:
        spec = rules_spec(rules, set_ or ())
    except RulesError as exc:
        fail(str(exc))
    named = file
    if file is None:
        file = new_game_file(location().path)
    try:
        keeper = Keeper.start(file, spec, names, meta={"started": started_now()}, force=force)
    except GameInProgress as exc:
        fail(in_progress_refusal(file, exc, new_game_words(["yahtzee", "log", "new"], named, rules, set_, names)),
             PROBLEM)
    except KeeperError as exc:
        fail(str(exc), PROBLEM)
    if keeper.ended is not None:
        note(ended_line(file, keeper.ended))
    _saved(file, keeper, out)
    out.say(f"New {keeper.rules.name} game in {file}: {', '.join(names)}. {keeper.next_player} starts.")


@log_app.command("add")
@outputs()
def log_add(
    file: FileArg = None,
    more: Annotated[list[str] | None, typer.Argument(metavar="DICE", help="The dice after a roll, as hint takes "
                                                     "them: 3 3 3 2 2, 33322 or 3,3,3,2,2 (or the rest of the dice "
                                                     "after --dice). A word of dice is never a FILE (./33322 is).",
                                                     show_default=False)] = None,
    dice: Annotated[list[str] | None, typer.Option(
        "--dice", "-d", metavar="DICE", help="The dice after a roll: 33322 or '3 3 3 2 2' (repeat for each roll of "
        "the turn).", show_default=False)] = None,
    held: Annotated[list[str] | None, typer.Option(
        "--held", metavar="DICE", help="The dice kept before each reroll, e.g. 33 (repeat per reroll; '' keeps "
        "none).", show_default=False)] = None,
    box: Annotated[str | None, typer.Option(
        "--box", "-b", metavar="BOX", help="The box to fill (key, name or alias: full_house, 'Full House', fh, "
        "Kniffel...). Without it the turn stays in progress.", show_default=False)] = None,
    column: Annotated[int | None, typer.Option(
        "--column", "-c", metavar="N", min=1, help="1-based column, when the box is open in several columns.",
        show_default=False)] = None,
    pass_: Annotated[bool, typer.Option("--pass", help="Pass the turn (only when nothing scores and must_zero "
                                        "is off).")] = False,
    json: bool = False,
    *,
    out: Output,
) -> None:
    """Add to the game in FILE: rolls of the player whose turn it is and/or the box they fill. The
    entry is checked with the rules (joker, fill order, rolls allowed) and refused with exit 1 when
    illegal: all of it or nothing is recorded, and the refusal says where the turn stands."""
    from ..errors import RulesError
    from ..play.scorekeeper import dice_word
    from ..rules.engine import parse_dice

    if file is not None and dice_word(str(file)):  # `log add 6 6 6 2 1`: dice, the game in play's
        more = [str(file), *(more or [])]
        file = None
    words = list(dice or [])
    if more:
        if len(words) > 1:
            fail("give each roll as one word (--dice 33322 --dice 33324), or the dice of one roll after FILE")
        words = [" ".join([*words, *more])]
    if box is not None and pass_:
        fail("give --box or --pass, not both")
    try:
        rolls = [parse_dice([w]) for w in words]
        keeps = None if held is None else [[] if h.strip() in ("", "-") else parse_dice([h]) for h in held]
    except RulesError as exc:
        fail(str(exc))
    keeper, entry = _change(game_file(file), out, lambda k: k.record(rolls, keeps, box, column, pass_),
                            refused=lambda k: _nothing_recorded(k, bool(rolls)))
    out.say(lambda: _added(keeper, entry))


def _nothing_recorded(keeper: Keeper, rolls: bool) -> str:
    """After a refused `log add`: nothing of it is recorded, and where the turn stands, so the next
    entry is made from there (the box alone would go with the dice showing, not with a refused roll)."""
    pos = keeper.position()
    if pos.dice is None:
        if not rolls:  # (the refusal says so already: the box needs dice)
            return "; nothing recorded"
        where = f"{pos.player} has not rolled yet"
    else:
        total = pos.rolls_used + pos.rolls_left
        where = (f"{pos.player}'s turn stands at roll {pos.rolls_used} of {total} "
                 f"({' '.join(map(str, pos.dice))})")
    again = "; give the rolls again with the box" if rolls else ""
    return f"; nothing recorded: {where}{again}"


def _added(keeper: Keeper, entry: Entry) -> str:
    """What `log add` says: the roll and how many are left, or the box written, the totals, who is next
    and the chances to win."""
    step = entry.step
    if step is None:
        pos = keeper.position()
        total = pos.rolls_used + pos.rolls_left
        return f"{entry.player} rolled {' '.join(map(str, pos.dice or ()))} (roll {pos.rolls_used} of {total})."
    if step.option is None:
        what = "passes"
    else:
        o = step.option
        what = f"{keeper.rules.boxes[o.box].label} {o.score}{f'+{o.bonus}' if o.bonus else ''}"
        if keeper.rules.settings.columns > 1:
            what += f" in column {o.column + 1}"
    return f"{entry.player}: {what}. {_totals(keeper)}. {_state(keeper)}{_chances(keeper.standings())}"


@log_app.command("undo")
@outputs()
def log_undo(file: FileArg = None, json: bool = False, *, out: Output) -> None:
    """Take back one step of the game in FILE: the box of the last turn (the dice stay, to be written
    again), else the last roll of the turn in progress; run again for the step before."""
    keeper, said = _change(game_file(file, over=True), out, lambda k: k.undo())
    out.say(lambda: f"{said[0].upper()}{said[1:]}. {_state(keeper)}")


@log_app.command("end")
@outputs()
def log_end(file: FileArg = None, json: bool = False, *, out: Output) -> None:
    """End the unfinished game in FILE without finishing it: it stays in the file, marked abandoned
    (`meta.abandoned`), is skipped by personal bests and hints, and `log new` may start another."""
    from ..play.scorekeeper import describe_game

    path = game_file(file)

    def end(keeper: Keeper) -> str:
        which = describe_game(keeper.data)
        keeper.end()
        return which

    keeper, which = _change(path, out, end)
    out.say(lambda: f"Ended the game in {path} ({which}; kept, marked abandoned): {_totals(keeper)}.")


@log_app.command("set")
@outputs()
def log_set(
    file: FileArg = None,
    setting: Annotated[str | None, typer.Argument(
        metavar="KEY=VALUE", help="A house rule key=value, e.g. joker=free or upper_bonus=50.",
        show_default=False)] = None,
    json: bool = False,
    *,
    out: Output,
) -> None:
    """Change a house rule for the whole game in FILE and recalculate it. Refused (exit 1, moves
    listed) when moves already made would be illegal under the new rule."""
    import sys

    from ..errors import RuleRefused
    from ..play.scorekeeper import RuleChange
    from ..text import escape

    if setting is None and file is not None:  # `log set joker=free`: the library's game in play
        setting, file = str(file), None
    if setting is None:
        fail("give the house rule as KEY=VALUE, e.g. yahtzee log set joker=free")
    rule = setting

    def set_rule(keeper: Keeper) -> RuleChange:
        try:
            return keeper.set_rule(rule)
        except RuleRefused as exc:  # the moves it would make illegal, one line each
            error(str(exc))
            for p in exc.illegal:
                sys.stderr.write(f"  {escape(str(p))}\n")
            raise typer.Exit(PROBLEM) from None

    change = _change(game_file(file), out, set_rule)[1]
    before = {p.name: p.total for p in change.before.players}
    moved = [f"{p.name} {before[p.name]} -> {p.total}" for p in change.after.players if p.total != before[p.name]]
    out.say(f"{setting}: " + ("; ".join(moved) if moved else "no total changes") + ".")


@log_app.command("show")
@outputs()
def log_show(file: FileArg = None, json: bool = False, *, out: Output) -> None:
    """Show the game in play in FILE: whose turn it is, the dice so far, the boxes they may go in with
    what each writes, and the standings (the game's last state when it is over). --json: the record
    `replay --json` prints for the same game."""
    from ..errors import KeeperError, MissingFile, YahtzeeError
    from ..formats.logs import read_last_game
    from ..formats.replay import replay_game
    from ..play.scorekeeper import Keeper

    file = game_file(file, over=True)
    try:
        keeper = Keeper.open(file)  # the game file's own checks and wording, as the other log commands
        doc = read_last_game(str(file))
        rp = replay_game(doc.data)
    except MissingFile:
        raise  # worded as every command words a missing file
    except KeeperError as exc:
        fail(str(exc), PROBLEM)
    except YahtzeeError as exc:
        fail(f"{file}: {exc}", exc.exit_status)
    out.record(lambda: _game_record(str(file), doc.line, doc.index, rp))
    out.say(lambda: _shown(file, doc.index, keeper, rp))


def _shown(file: Path, index: int, keeper: Keeper, rp: Replay) -> str:
    """What `log show` says of the game in play (see log_show)."""
    head = f"{rp.rules.name}, game {index} in {file}"
    lines = []
    if rp.abandoned:
        lines.append(f"{head}: ended unfinished (abandoned).")
    elif rp.game_over:
        lines.append(f"{head}: {_state(keeper)}")
    else:
        lines.append(f"{head}: turn {keeper.turn_number}, {keeper.next_player} to play.")
    ip = rp.in_progress
    if ip is not None and not rp.abandoned:
        rolls = [" ".join(map(str, ip.rolls[0]))]
        for i, dice in enumerate(ip.rolls[1:]):
            kept = f"keep {' '.join(map(str, ip.held[i])) or 'nothing'} -> " if ip.held is not None else ""
            rolls.append(kept + " ".join(map(str, dice)))
        total = ip.rolls_used + ip.rolls_left
        lines.append(f"Rolls: {' -> '.join(rolls)}  (roll {ip.rolls_used} of {total}, {ip.rolls_left} left)")
        rc = keeper.choices()
        if rc is not None:
            lines.append("Boxes: " + "  ".join([*(keeper.option_text(o, label=True) for o in rc.legal),
                                                  *(["pass"] if rc.may_pass else [])]))
    lines.append("Standings: " + ", ".join(f"{p.rank}. {p.name} {p.total}"
                                           for p in sorted(rp.players, key=lambda p: p.rank)))
    if not rp.abandoned and (chances := _chances(rp)):
        lines.append(chances.strip())
    return "\n".join(lines)
