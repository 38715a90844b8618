"""Game files on a real file system: read the games, lock the file against other writers, write it
back atomically where it really lives (a symlink's target), with its mode kept, or refuse in one line.

Every change of a game file is read-modify-write, so two `yahtzee log add` at once would each write
the game as they read it and one entry would be lost. `locked(path)` takes an advisory lock (flock)
on the folder that holds the file: the file itself is replaced by a rename on every save, so a lock
on it would be on the old file; the folder stays. The lock is re-entrant within a process.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, KeeperError, MissingFile, SaveFailed
from ..formats.logs import dump_line, iter_documents
from ..formats.validate import check_document

__all__ = ["GameFile", "SaveFailed", "check_writable", "locked", "read_games", "real_path"]


_HELD: dict[str, tuple[int, int]] = {}  # folder -> (its locked fd, how many times this process holds it)

_WHY = {errno.EACCES: "permission denied", errno.EPERM: "the file or its folder is immutable or not yours",
        errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded", errno.EIO: "input/output error",
        errno.EFBIG: "the file would exceed the size allowed (a file-size limit or the file system's)"}


def real_path(path: str | Path) -> Path:
    """Where the game really is: a symlink (or a chain of them) is followed to its target, which gets
    the entries (the link stays a link)."""
    return Path(os.path.realpath(path))


def _why(exc: OSError) -> str:
    return _WHY.get(exc.errno or 0, exc.strerror or str(exc))


def check_writable(path: str | Path) -> None:
    """Refuse (KeeperError, exit 1) a game file that cannot be saved: its folder missing, not
    writable (permissions, read-only mount, immutable), or the file itself read-only or immutable.
    Checked before the first entry, so nothing is typed in vain and nothing is half written."""
    real = real_path(path)
    folder = real.parent
    if not folder.is_dir():
        raise MissingFile(str(Path(path).parent))
    if real.is_dir():
        raise KeeperError(f"{path} is a folder; a game file is a file (e.g. {Path(path) / 'games.ndjson'})")
    _regular(real, path)
    if real.exists() and not os.access(real, os.W_OK):
        raise KeeperError(f"cannot write {path}: {_access_why(real)}; the file is left as it was")
    if not os.access(folder, os.W_OK):
        raise KeeperError(f"cannot write {path}: its folder {folder} is not writable ({_access_why(folder)}); "
                          "the file is left as it was")


def _regular(real: Path, path: str | Path) -> None:
    """Refuse a game file that exists and is not a regular file: a FIFO or socket would block the read
    for ever, a device never ends (or swallows the save)."""
    import stat

    try:
        mode = real.stat().st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    raise KeeperError(f"{path} is {kind}; a game file is a regular file")


def _access_why(p: Path) -> str:
    """Why os.access said no, in words: a read-only mount, an immutable file, or permissions."""
    try:
        if os.statvfs(p).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        pass
    try:
        st = p.stat()
    except OSError as exc:
        return _why(exc)
    # access() said no although the mode lets the owner (or root, who passes permissions) write
    owner_may = os.geteuid() == 0 or (st.st_uid == os.geteuid() and st.st_mode & 0o200)
    return "immutable (chattr -i lifts it)" if owner_may else "permission denied"


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold the advisory lock of a game file's folder (blocking until other writers are done).
    A folder that cannot be opened is not locked here: writing there is refused anyway."""
    import fcntl

    folder = str(real_path(path).parent)
    held = _HELD.get(folder)
    if held is not None:
        _HELD[folder] = (held[0], held[1] + 1)
        try:
            yield
        finally:
            fd, n = _HELD[folder]
            _HELD[folder] = (fd, n - 1)
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD[folder] = (fd, 1)
        yield
    finally:
        _HELD.pop(folder, None)
        os.close(fd)  # closing the only descriptor releases the lock


@dataclass
class GameFile:
    """A game file: the games before the last one (kept as read) and the last game (None: no game)."""

    path: Path
    earlier: list[Any]
    game: dict[str, Any] | None
    stamp: tuple[int, int, int] | None = None  # the file as read or last written (inode, size, mtime)

    def save(self) -> None:
        """Write every game back, atomically, to where the file really is (a symlink's target), with
        the file's mode kept, under the folder's lock. KeeperError (exit 1) when it cannot be
        written; the file is then as it was."""
        from ..paths import write_atomic

        games = [*self.earlier, *([self.game] if self.game is not None else [])]
        try:
            check_writable(self.path)
        except KeeperError as exc:
            raise SaveFailed(str(exc)) from None
        except MissingFile:  # the folder went away since the game was opened
            raise SaveFailed(f"cannot write {self.path}: its folder {Path(self.path).parent} no longer exists; "
                             "the file is left as it was") from None
        real = real_path(self.path)
        try:
            mode = real.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = None
        with locked(real):
            if _stamp(real) != self.stamp:  # another program (a second `play`, a script) wrote it since
                raise SaveFailed(f"{self.path} was changed by another program since it was read; "
                                 "open it again to continue from what it holds now")
            try:
                write_atomic(real, [dump_line(g) for g in games], mode=mode, make_folder=False)
            except OSError as exc:
                raise SaveFailed(f"cannot write {self.path}: {_why(exc)}; the file is left as it was") from None
            self.stamp = _stamp(real)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def read_games(path: str | Path) -> GameFile:
    """The games of a file (a missing or empty file has none). The last game must be a valid game
    log; earlier games are kept as they are. Raises KeeperError naming the line at fault."""
    p = Path(path)
    stamp = _stamp(real_path(p))
    _regular(real_path(p), p)
    try:
        with open(p, "rb") as fh:
            docs = list(iter_documents(fh))
    except FileNotFoundError:
        return GameFile(p, [], None)
    except InputError as exc:
        if p.stat().st_size == 0:
            return GameFile(p, [], None, stamp)
        raise KeeperError(f"{p}: {exc}") from None
    except IsADirectoryError:
        raise KeeperError(f"{p} is a folder; a game file is a file (e.g. {p / 'games.ndjson'})") from None
    except OSError as exc:
        raise KeeperError(f"cannot read {p}: {_why(exc)}") from None
    for doc in docs:
        if doc.problem is not None:
            raise KeeperError(f"{p}:{doc.line}: game {doc.index}: {doc.problem}")
    last = docs[-1]
    report = check_document(last.data)
    if report.problems:
        raise KeeperError(f"{p}:{last.line_of(report.problems[0].path)}: game {last.index}: {report.problems[0]}")
    if report.kind != "log":
        raise KeeperError(f"{p}:{last.line}: the last game is a score sheet; the score keeper continues game logs")
    return GameFile(p, [d.data for d in docs[:-1]], last.data, stamp)
