"""Command-line interface: `app` plus one module per command group."""

from __future__ import annotations

import sys

import typer

# Each module registers its commands on `app` when imported.
from . import analyze, log_cmd, play, poker, replay, rules_cmd, schema, score, simulate, solve, validate  # noqa: F401
from .app import USAGE, app

__all__ = ["app", "main"]

# The help lists commands in this order: the three everyday jobs first, then play, then reference.
ORDER = ("score", "validate", "replay", "analyze", "play", "log", "simulate", "hint", "solve", "rules", "schema",
         "poker")
app.registered_commands.sort(
    key=lambda c: ORDER.index(c.name or getattr(c.callback, "__name__", "")) if (
        c.name or getattr(c.callback, "__name__", "")) in ORDER else len(ORDER)
)


def main() -> None:
    """The `yahtzee` script: Typer's own usage errors become one line on stderr too."""
    try:
        code = app(prog_name="yahtzee", standalone_mode=False)
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
