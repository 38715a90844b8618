"""Command-line interface: `app` plus one module per command group."""

from __future__ import annotations

import errno
import os
import sys

import typer

from ..errors import TooBig
from ..text import escape
from .app import SAVED, SAVED_OUTPUT_FAILED, USAGE, PipeClosed, app

__all__ = ["app", "main"]


PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away
_WRITE_ERRORS = {errno.ENOSPC: "no space left on the device", errno.EIO: "input/output error",
                 errno.EDQUOT: "disk quota exceeded", errno.EFBIG: "file too large"}


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail (and print) again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def output_error(exc: OSError) -> int | None:
    """The exit status for an error writing output (None: not an output error): a closed pipe ends
    quietly with 141; a full or failing disk says so in one line and exits 1 (3 once a game file has
been saved: the entry is in it)."""
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        _silence_stdout()
        return PIPE_CLOSED
    if exc.errno in _WRITE_ERRORS:
        _silence_stdout()
        where = f" {escape(str(exc.filename))}" if exc.filename else ""
        if SAVED:  # the entry is in the game file: exit 1 would say "refused, file untouched"
            sys.stderr.write(f"yahtzee: error: cannot write output{where}: {_WRITE_ERRORS[exc.errno]}; the entry "
                             f"is saved in {escape(SAVED[-1])} (do not enter it again)\n")
            return SAVED_OUTPUT_FAILED
        sys.stderr.write(f"yahtzee: error: cannot write output{where}: {_WRITE_ERRORS[exc.errno]}\n")
        return 1
    return None


def main() -> None:
    """The `yahtzee` script: Typer's own usage errors become one line on stderr too, and so do
    errors writing the output (a full disk, a closed pipe)."""
    # pydantic would scan every installed distribution for plugins on first use: the script has none
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        code = _run()
        sys.stdout.flush()  # inside the try: a full disk may only show at the last flush
    except PipeClosed:  # raised by the command group for a BrokenPipeError, before Typer makes it exit 1
        _silence_stdout()
        sys.exit(PIPE_CLOSED)
    except OSError as exc:
        status = output_error(exc)
        if status is None:
            raise
        sys.exit(status)
    sys.exit(code)


def _run() -> int:
    try:
        code = app(prog_name="yahtzee", standalone_mode=False)
    except typer.Abort:
        sys.stderr.write("yahtzee: interrupted\n")
        return 130
    except TooBig as exc:  # rules a command cannot hold in memory (commands without their own message)
        sys.stderr.write(f"yahtzee: error: {escape(str(exc))}\n")
        return 1
    except typer.TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `yahtzee` or group: show the help
            exc.show()  # type: ignore[attr-defined]
            return USAGE
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "yahtzee"
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        hint = f" (see '{where} --help')" if ctx is not None else ""
        sys.stderr.write(f"{escape(where)}: error: {escape(message)}{escape(hint)}\n")
        return int(getattr(exc, "exit_code", USAGE))
    return code if isinstance(code, int) else 0
