"""Where the toolbox keeps this user's files: the platform's config, cache and data directories.

On Linux and the other Unixes these are the XDG base directories, read here directly: every command
asks for one at start-up, and platformdirs costs more to import than the lookup itself. macOS and
Windows have their own conventions; platformdirs answers for them."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

APP = "yahtzee-cli"
Kind = Literal["config", "cache", "data"]

# $XDG_..._HOME, else this folder under the home directory (the XDG Base Directory defaults)
_XDG: dict[str, tuple[str, str]] = {
    "config": ("XDG_CONFIG_HOME", ".config"),
    "cache": ("XDG_CACHE_HOME", ".cache"),
    "data": ("XDG_DATA_HOME", os.path.join(".local", "share")),
}


def user_dir(kind: Kind) -> Path:
    """This user's `kind` directory for the toolbox (not created here)."""
    if sys.platform in ("darwin", "win32", "cygwin"):
        import platformdirs

        return Path(getattr(platformdirs, f"user_{kind}_dir")(APP))
    var, default = _XDG[kind]
    base = os.environ.get(var, "")
    if not os.path.isabs(base):  # unset, empty or relative: the spec says to ignore it
        base = os.path.join(os.path.expanduser("~"), default)
    return Path(base) / APP


def folder_problem(path: Path, write: bool = False) -> str | None:
    """Why `path` cannot be one of the toolbox's folders (the library, the cache), in words that follow
    its name ("is a file, not a folder"), or None when it can: a folder that can be listed (and written,
    when `write`), or one that does not exist yet and can be made. Every check is a real attempt or
    the system's own answer (a folder that cannot be read is never mistaken for an empty one)."""
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path):
            return "is a link to nothing (a missing target)"
        return _parent_problem(path, write)
    except NotADirectoryError:
        return _parent_problem(path, write)
    except OSError as exc:  # a folder above it that cannot be searched, a loop of links, a long name
        return f"cannot be reached: {os_reason(exc)}"
    if not stat.S_ISDIR(st.st_mode):
        return "is a file, not a folder" if stat.S_ISREG(st.st_mode) else "is not a folder"
    try:
        with os.scandir(path) as found:
            next(found, None)
    except OSError as exc:
        return f"cannot be read: {os_reason(exc)}"
    if write and not os.access(path, os.W_OK | os.X_OK):
        return "cannot be written: permission denied"
    return None


def _parent_problem(path: Path, write: bool) -> str | None:
    """Why a folder that does not exist yet cannot be made: the nearest thing above it that exists is
    not a folder, or cannot be written (only asked when `write`)."""
    import stat

    for above in path.absolute().parents:
        try:
            st = os.stat(above)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            return f"cannot be made: {above}: {os_reason(exc)}"
        if not stat.S_ISDIR(st.st_mode):
            return f"cannot be made: {above} is {'a file' if stat.S_ISREG(st.st_mode) else 'not a folder'}"
        if write and not os.access(above, os.W_OK | os.X_OK):
            return f"cannot be made: {above} cannot be written (permission denied)"
        return None
    return None


def os_reason(exc: OSError) -> str:
    """An OS error's reason in a sentence's words: 'permission denied'."""
    return (exc.strerror or str(exc)).lower()


def write_atomic(path: Path, chunks: Sequence[bytes], mode: int | None = None, make_folder: bool = True) -> None:
    """Write a file so that a crash leaves either the old file or the new one, never a part: a
    temporary file in the same directory, flushed to disk, then os.replace (and the directory synced).
    The file gets the permissions the umask allows, like any file the user creates, or `mode` (a
    game file keeps the mode it had: 0600 stays 0600). `make_folder`: create missing folders."""
    import secrets

    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    # os.open with 0o666 lets the umask decide (mkstemp would force 0600: unreadable in a shared cache)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o600 if mode is not None else 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself survives a power cut only once the directory is on disk
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
