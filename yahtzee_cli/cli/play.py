"""`yahtzee play`: keep score of a real game at the table, one entry at a time, with hints on demand.

`Session` is the whole conversation as text in, text out (no terminal needed, so it is tested line
by line); the command feeds it from prompt_toolkit at a terminal (line editing, history, completion
of box names in the rules' own language) or from plain lines when stdin is a pipe. prompt_toolkit
is imported only here, inside the command, so other commands start without it. Every entry goes
through `yahtzee_cli.play.scorekeeper`, which checks it with the rules and saves the game file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import PROBLEM, USAGE
from ..limits import MAX_LINE
from ..text import escape, escape_lines
from .app import RulesOpt, SetOpt, app, examples, fail, saved
from .files import split_players
from .session import Session
from .styled import Styled, color_enabled

if TYPE_CHECKING:
    pass

def default_file(resume: bool = False) -> Path:
    """Where games go when no FILE is given: the library of played games (`yahtzee library`), so
    earlier games (and personal bests) are found again: this month's file for a new game, the newest
    file for --resume."""
    from ..play.library import current_file, location, new_game_file

    folder = location().path
    return current_file(folder) if resume else new_game_file(folder)


@app.command(short_help="Keep score of a real game at the table.", epilog=examples(
    "yahtzee play",
    "yahtzee play tonight.ndjson --rules kniffel --players Anna,Ben",
    "yahtzee play --resume tonight.ndjson",
    "yahtzee play --players Cat,Dan --force      (ends the library's unfinished game first)",
))
def play(
    file: Annotated[Path | None, typer.Argument(
        metavar="FILE", help="The game file (NDJSON, one game per line; earlier games give personal bests).  "
        "[default: the library of played games, see `yahtzee library`]", show_default=False)] = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    players: Annotated[list[str] | None, typer.Option(
        "--players", metavar="NAMES", help="Player names in turn order, e.g. "
                                                       "Anna,Ben (asked for when left out).",
                                                       show_default=False)] = None,
    roll: Annotated[bool, typer.Option("--roll", help="Roll the dice for the players (Enter rolls; keep 33 "
                                       "rerolls the rest).")] = False,
    seed: Annotated[int | None, typer.Option("--seed", metavar="SEED", help="Seed of the dice --roll throws "
                                             "(repeatable games; kept in the game file).", show_default=False)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the unfinished game in FILE.")] = False,
    force: Annotated[bool, typer.Option("--force", help="End an unfinished game in FILE first (kept, marked "
                                        "abandoned, as `yahtzee log end` does) and start the new one.")] = False,
) -> None:
    """Keep score of a game at the table: type the dice as they lie (or --roll), write them in a box,
    ask ? for the best move, undo, change a house rule mid-game. The game file is saved after every
    entry and validates, replays and analyzes like any other game log."""
    from ..errors import GameInProgress, KeeperError, RulesError
    from ..play.gamefile import check_writable
    from ..play.library import started_now
    from ..play.scorekeeper import Keeper, rules_spec
    from .files import ended_line, in_progress_refusal, new_game_words

    path = file or default_file(resume)  # (the library's folder is ours to create; a folder named is not)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    read_line = _terminal_reader if interactive else _pipe_reader
    try:
        if resume:
            if rules is not None or set_ or players or force:
                fail("--resume continues the game as it was; leave out --rules, --set, --players and --force "
                     "(change a house rule in the game with: set key=value)", USAGE)
            keeper = Keeper.open(path)
            check_writable(path)  # refused now, not after the first entry is typed
            if keeper.game_over:
                fail(f"the last game in {path} is over; start a new one with: yahtzee play {path}", PROBLEM)
            if seed is not None and keeper.dice_seed not in (None, seed):
                fail(f"--seed: the game's dice already come from seed {keeper.dice_seed} (its file keeps it, so "
                     "undo and --resume show the same dice); leave out --seed", USAGE)
        else:
            try:
                spec = rules_spec(rules, set_ or ())
            except RulesError as exc:
                fail(str(exc), USAGE)
            names = split_players(players)
            if players is not None and not names:
                fail("--players needs at least one name, e.g. --players Anna,Ben", USAGE)
            if not names:
                answer = read_line("Players (in turn order, e.g. Anna,Ben): ", None)
                names = split_players([answer or ""])
            try:
                keeper = Keeper.start(path, spec, names, meta={"started": started_now()}, force=force)
            except GameInProgress as exc:
                retry = new_game_words(["yahtzee", "play"], file, rules, set_, names)
                retry += [*(["--roll"] if roll else []), *(["--seed", str(seed)] if seed is not None else [])]
                fail(in_progress_refusal(path, exc, retry), PROBLEM)
    except KeeperError as exc:
        fail(str(exc), PROBLEM)
    color = interactive and color_enabled()
    from .progress import noted

    def say(message: str) -> None:
        noted(message)  # a note that starts work (a table built for the house rules) names the wait shown
        _show([message])

    session = Session(keeper, roll=roll, seed=seed, color=color, say=say)
    ended = [ended_line(path, keeper.ended)] if keeper.ended is not None else []
    # (resumed: each player's chances as they stand, as after every turn)
    _show([*ended, f"Game file: {path} (saved after every entry)", *session.screen(chances=resume)])
    while not session.done:
        line = read_line(session.prompt(), session)
        if line is None:  # end of input (Ctrl-D): the game is saved as it stands
            _show([f"Saved in {path}; continue with: yahtzee play --resume {path}"])
            break
        before = keeper.data
        shown = session.handle(line)
        if keeper.data is not before:
            saved(path)
        _show(shown)
    failure = session.failure()
    if failure is not None:
        fail(failure, PROBLEM)


def _show(lines: list[str]) -> None:
    """Lines on stdout with every character that could drive the terminal escaped (a file name, an
    echoed word); a `Styled` line gets its colours after its text is escaped."""
    sys.stdout.write("".join((line.render() if isinstance(line, Styled) else escape_lines(line)) + "\n"
                             for line in lines))
    sys.stdout.flush()


def _pipe_reader(message: str, session: Session | None) -> str | None:
    """Plain lines from a pipe (scripts, tests): the prompt is shown, the line echoed."""
    sys.stdout.write(escape(message))
    sys.stdout.flush()
    raw = sys.stdin.buffer.readline(MAX_LINE + 1)  # the line cap of every reader: </dev/zero ends at once
    if not raw:
        sys.stdout.write("\n")
        return None
    if len(raw) > MAX_LINE:
        fail(f"<stdin>: a line longer than {MAX_LINE >> 20} MiB; a line of play is a few words", PROBLEM)
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    sys.stdout.write(escape(line) + "\n")
    return line


_PROMPT: list[object] = []  # the one prompt_toolkit session (history across turns)


def _terminal_reader(message: str, session: Session | None) -> str | None:
    """A line from the terminal through prompt_toolkit: editing, history, Tab completion of the
    words `session.completions()` offers. Ctrl-C clears the line; Ctrl-D ends (game saved). A line
    over the readers' cap is refused and the prompt comes again."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import DynamicCompleter, WordCompleter

    if not _PROMPT:
        _PROMPT.append(PromptSession())
    prompt: PromptSession[str] = _PROMPT[0]  # type: ignore[assignment]

    def words() -> WordCompleter:
        return WordCompleter(session.completions() if session is not None else [], ignore_case=True, sentence=True)

    while True:
        try:
            line = prompt.prompt(message, completer=DynamicCompleter(words), complete_while_typing=False)
        except KeyboardInterrupt:
            continue
        except EOFError:
            return None
        if len(line) <= MAX_LINE:  # the line cap of every reader (a paste of a whole file is not a word)
            return line
        _show([f"Refused: a line longer than {MAX_LINE >> 20} MiB; a line of play is a few words."])


__all__ = ["Session", "Styled", "default_file", "play"]
