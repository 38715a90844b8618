"""Where a command's games come from (the FILEs named, else the library's game in play) and the words
of the commands that start a game, for the commands that read or keep game files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import fail

GameFilesArg = Annotated[list[str] | None, typer.Argument(
    metavar="FILE", help="Game logs or score sheets: files (one JSON document, several one after another, or "
    "NDJSON with one game per line), directories (every *.json and *.ndjson inside, recursively), or '-' for "
    "stdin.  [default: the library's file holding its game in play, or the game just finished]",
    show_default=False)]


def game_files(files: list[str] | None, command: str) -> list[str]:
    """The inputs named, else the library's file holding its game in play (or the game just
    finished). Stdin is read only when named '-': with none named and stdin a pipe or a file, which
    one was meant is not clear, so that is a usage error saying how to name each."""
    if files:
        return files
    from ..formats.inputs import stdin_is_data

    if stdin_is_data():
        fail(f"no FILE named and stdin is a pipe or a file: read it with `yahtzee {command} -`, or name the FILE")
    return [str(game_file(None, over=True))]


def game_file(file: Path | None, *, over: bool = False) -> Path:
    """The FILE named, else the library's game in play (play.library.game_in_play; `over`: its game
    just finished too); with neither, one line saying how to start a game, exit 2."""
    if file is not None:
        return file
    from ..play.library import game_in_play

    return game_in_play(over=over)


def shell_command(*words: str) -> str:
    """A command to type, each word quoted for the shell where it needs it."""
    import shlex

    return shlex.join(words)


def in_progress_refusal(file: Path, exc: Exception, retry: list[str]) -> str:
    """Why a new game is refused while FILE's game is unfinished, with the exact commands to type:
    resume it, end it, or start the new one anyway (`retry`: the command given, --force added)."""
    f = str(file)
    return (f"{exc}; resume it: {shell_command('yahtzee', 'play', '--resume', f)}; end it (kept, marked "
            f"abandoned): {shell_command('yahtzee', 'log', 'end', f)}; or end it and start the new game: "
            f"{shell_command(*retry, '--force')}")


def ended_line(file: Path, described: str) -> str:
    """What `--force` did to the unfinished game it found (Keeper.ended)."""
    return f"Ended the unfinished game in {file} ({described}): kept, marked abandoned."


def new_game_words(command: list[str], file: Path | None, rules: str | None, sets: list[str] | None,
                   names: list[str]) -> list[str]:
    """The words of a command starting a game as given: FILE, --rules, --set, --players."""
    words = [*command, *([str(file)] if file is not None else [])]
    words += ["--rules", rules] if rules is not None else []
    for s in sets or ():
        words += ["--set", s]
    return [*words, "--players", ",".join(names)]


def split_players(values: list[str] | None) -> list[str]:
    """Player names from `--players Anna,Ben` (repeatable)."""
    return [name.strip() for v in values or [] for name in v.split(",") if name.strip()]
