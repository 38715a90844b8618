"""Where the toolbox keeps this user's files: the platform's config, cache and data directories.

On Linux and the other Unixes these are the XDG base directories, read here directly: every command
asks for one at start-up, and platformdirs costs more to import than the lookup itself. macOS and
Windows have their own conventions; platformdirs answers for them."""

from __future__ import annotations

import os
import sys
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
