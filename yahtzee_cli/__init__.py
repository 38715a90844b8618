"""yahtzee-cli: score, validate, replay, simulate and solve the Yahtzee family of dice games.

The library's calls (see yahtzee_cli.api): load_rules, score_roll, validate, replay, solve, hint,
simulate, analyze; every error they raise on purpose is a yahtzee_cli.errors.YahtzeeError. They load
on first use, so `import yahtzee_cli` (and `yahtzee --version`) stays light."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
