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
