"""The library of played games: one place per user where `play` and `log new` keep games when no
file is named, so bests and records are found again next evening.

Where, highest precedence first: $YAHTZEE_LIBRARY; `path` under `[library]` in the config file; the
platform's user data directory (`~/.local/share/yahtzee-cli/games` on Linux, `$XDG_DATA_HOME` when
set; platformdirs' answer on macOS and Windows). One NDJSON file per month, `games-YYYY-MM.ndjson`,
written with the game files' atomic, locked writes (play/gamefile.py); a game stays in the month's
file it started in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import errors
from ..errors import UnusableFolder
from ..limits import MAX_LINE
from ..paths import folder_problem, os_reason, user_dir

ENV_LIBRARY = "YAHTZEE_LIBRARY"
PATTERN = "games-*.ndjson"


@dataclass(frozen=True)
class Where:
    """The library's folder and what decided it."""

    path: Path
    source: str  # "$YAHTZEE_LIBRARY", "config file PATH" or "user data directory"

    @property
    def origin(self) -> str:
        """What decided the place, in words: "set by $YAHTZEE_LIBRARY", "set in config file PATH",
        "the default: the user data directory"."""
        if self.source.startswith("$"):
            return f"set by {self.source}"
        if self.source.startswith("config file "):
            return f"set in the {self.source}"
        if self.source == "user data directory":
            return "the default: the user data directory"
        return self.source


def location() -> Where:
    """Where the library is; UnusableFolder (one line: the folder, what named it, why) when that is a
    file, below a file or a folder that cannot be read, so an unreadable library is never reported as
    one without games. A folder that does not exist yet is fine: the first save makes it."""
    where = _configured()
    problem = folder_problem(where.path)
    if problem is not None:
        raise unusable(where, problem)
    return where


def _configured() -> Where:
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return Where(Path(env).expanduser(), f"${ENV_LIBRARY}")
    from ..formats.config import library_setting

    configured = library_setting()
    if configured is not None:
        return Where(configured[0], f"config file {configured[1]}")
    return Where(user_dir("data") / "games", "user data directory")


def unusable(where: Where, problem: str) -> UnusableFolder:
    """The one wording of a library folder that cannot serve: the folder, what named it, why."""
    return UnusableFolder(f"the library folder {where.path} ({where.origin}) {problem}; "
                          "name a folder that can be read and written")


def month_file(folder: Path, when: datetime | None = None) -> Path:
    """The month's game file (UTC), where a new game goes."""
    when = when or datetime.now(UTC)
    return folder / f"games-{when:%Y-%m}.ndjson"


def files(folder: Path) -> list[Path]:
    """The library's game files, oldest month first; at the default place, the single `games.ndjson`
    that `play` kept games in before the library existed comes first."""
    found = sorted(p for p in folder.glob(PATTERN) if p.is_file()) if folder.is_dir() else []
    legacy = user_dir("data") / "games.ndjson"
    if folder == user_dir("data") / "games" and legacy.is_file():
        found.insert(0, legacy)
    return found


def current_file(folder: Path) -> Path:
    """The file of the game in play: the newest month's file there is (a game continued past midnight
    at the end of a month stays in its file), else this month's."""
    found = files(folder)
    return found[-1] if found else month_file(folder)


def new_game_file(folder: Path) -> Path:
    """Where a new game goes: this month's file, created (with the folder) on the first save;
    UnusableFolder when the folder cannot be made or written."""
    problem = folder_problem(folder, write=True)
    if problem is None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # (made meanwhile as a file, a full or read-only disk)
            problem = f"cannot be made: {os_reason(exc)}"
    if problem is not None:
        where = _configured()
        raise unusable(where if where.path == folder else Where(folder, "the folder named"), problem)
    return month_file(folder)


@dataclass(frozen=True)
class Summary:
    where: Where
    files: tuple[Path, ...]  # the game files read
    games: int
    bytes: int
    unreadable: tuple[str, ...] = ()  # one message per game file that could not be read


def summary(where: Where | None = None) -> Summary:
    """Where the library is and how many games it holds (one game a non-blank line); a game file that
    cannot be read is named in `unreadable` (the others are still counted)."""
    where = where or location()
    found: list[Path] = []
    failed: list[str] = []
    games = size = 0
    for p in files(where.path):
        try:
            counted = _count(p)
        except OSError as exc:
            failed.append(f"cannot read {p}: {os_reason(exc)}")
            continue
        found.append(p)
        games += counted[0]
        size += counted[1]
    return Summary(where, tuple(found), games, size, tuple(failed))


def _count(path: Path) -> tuple[int, int]:
    """Games (non-blank lines) and bytes of a game file."""
    games = 0
    with path.open("rb") as fh:
        readline = fh.readline
        while line := readline(MAX_LINE + 1):  # under the readers' line cap: memory stays bounded
            if line.strip():
                games += 1
            while len(line) == MAX_LINE + 1 and not line.endswith(b"\n"):  # the rest of an overlong line
                line = readline(MAX_LINE + 1)
        return games, os.fstat(fh.fileno()).st_size


def started_now() -> str:
    """The time a game starts, as its log's `meta.started` (ISO 8601, UTC, to the second)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


__all__ = ["ENV_LIBRARY", "Summary", "Where", "current_file", "files", "location", "month_file", "new_game_file",
           "started_now", "summary"]


# --------------------------------------------------------------------------- the game in play

START_GAME = "start one with: yahtzee log new --players A,B (or: yahtzee play)"


def game_in_play(folder: Path | None = None, *, over: bool = False) -> Path:
    """The game file a command means when none is named (`log add|set|end|show|undo`, `hint --log`,
    `replay`, `analyze`): the library's newest file (`current_file`) when its last game is the game
    in play, i.e. neither ended (abandoned: `log end`, `--force`) nor, unless `over`, finished
    (every sheet full). `over`: the commands that look back at a game (`log show`, `log undo`,
    `replay`, `analyze`) take the game just finished too. A last game that cannot be read leaves the
    file to the command, which says what is wrong with it in its own words. NoGameInPlay otherwise,
    saying how to start a game."""
    from ..formats.logs import is_abandoned, read_last_game
    from ..formats.replay import replay_game

    folder = folder if folder is not None else location().path
    path = current_file(folder)
    if not path.is_file():
        raise errors.NoGameInPlay(f"no game file named, and the library ({folder}) holds no game; {START_GAME}")
    try:
        data = read_last_game(str(path)).data
        ended = is_abandoned(data)
        finished = not ended and replay_game(data).game_over
    except (errors.YahtzeeError, ValueError, KeyError, TypeError):
        return path
    if ended:
        raise errors.NoGameInPlay(f"no game file named, and the library's last game (in {path}) was ended unfinished; "
                           f"{START_GAME.replace('one', 'another')}")
    if finished and not over:
        raise errors.NoGameInPlay(f"no game file named, and the library's last game (in {path}) is over; "
                           f"{START_GAME.replace('one', 'another')}")
    return path


__all__ += ["START_GAME", "game_in_play"]
