"""yahtzee-cli: score, validate, replay, simulate and solve the Yahtzee family of dice games.

The library's calls (see yahtzee_cli.api): load_rules, score_roll, validate, replay, solve, hint,
simulate, analyze; every error they raise on purpose is a yahtzee_cli.errors.YahtzeeError. They load
on first use, so `import yahtzee_cli` (and `yahtzee --version`) stays light."""

from __future__ import annotations

import sys


def _interrupted(kind: type[BaseException], exc: BaseException, tb: object) -> None:
    """The `yahtzee` program's last word on a Ctrl-C no command caught (during start-up, while the
    modules load): exit 130 with one line, as an interrupt ends every command, not a traceback."""
    if not issubclass(kind, KeyboardInterrupt):
        _excepthook(kind, exc, tb)  # type: ignore[arg-type]
        return
    import os

    try:
        sys.stderr.write("yahtzee: error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


# First, before anything slow is imported, and only in the `yahtzee` program (its script, or `python -m
# yahtzee_cli` while it is being found): a program that imports the library keeps its own Ctrl-C.
_excepthook = sys.excepthook
_program = (getattr(sys, "argv", None) or [""])[0]
if _program == "-m" or _program.replace("\\", "/").rsplit("/", 1)[-1].startswith("yahtzee"):
    sys.excepthook = _interrupted

import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import Column, RuleSet, Solution, analyze, hint, load_rules, replay, score_roll, simulate, solve, validate
    from .errors import YahtzeeError

_API = ("Column", "RuleSet", "Solution", "analyze", "hint", "load_rules", "replay", "score_roll", "simulate",
        "solve", "validate")
_FROM = dict.fromkeys(_API, "api") | {"YahtzeeError": "errors"}

__all__ = ["Column", "RuleSet", "Solution", "YahtzeeError", "__version__", "analyze", "hint", "load_rules",
           "replay", "score_roll", "simulate", "solve", "validate"]


def __getattr__(name: str) -> Any:
    if name in _FROM:
        return getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
