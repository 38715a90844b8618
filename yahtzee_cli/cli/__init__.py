"""Command-line interface: `app` plus one module per command group (imported when its command runs)."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import typer

from .app import USAGE, PipeClosed, app

__all__ = ["app", "main"]


# What coreutils give under `set -o pipefail` when the reader of their output goes away (128 + SIGPIPE).
PIPE_CLOSED = 141


def _pipe_closed() -> NoReturn:
    """Exit silently: nothing more can be written, and Python must not complain at its final flush."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(PIPE_CLOSED)


def main() -> None:
    """The `yahtzee` script: Typer's own usage errors become one line on stderr too; a closed stdout
    (`yahtzee ... | head -1`) ends every command the same way, silently with status 141."""
    # pydantic would scan every installed distribution for plugins on first use: the script has none
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        code = app(prog_name="yahtzee", standalone_mode=False)
        sys.stdout.flush()
    except (PipeClosed, BrokenPipeError):
        _pipe_closed()
    except typer.Abort:
        sys.stderr.write("yahtzee: interrupted\n")
        sys.exit(130)
    except typer.TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `yahtzee` or group: show the help
            exc.show()  # type: ignore[attr-defined]
            sys.exit(USAGE)
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "yahtzee"
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        hint = f" (see '{where} --help')" if ctx is not None else ""
        sys.stderr.write(f"{where}: error: {message}{hint}\n")
        sys.exit(getattr(exc, "exit_code", USAGE))
    sys.exit(code if isinstance(code, int) else 0)
