"""yahtzee-cli: score, validate, replay, simulate and solve the Yahtzee family of dice games.

The library's calls (see yahtzee_cli.api): load_rules, score_roll, validate, replay, solve, hint,
simulate, analyze; every error they raise on purpose is a yahtzee_cli.errors.YahtzeeError."""

from .api import Column, RuleSet, Solution, analyze, hint, load_rules, replay, score_roll, simulate, solve, validate
from .errors import YahtzeeError

__version__ = "0.1.0"

__all__ = ["Column", "RuleSet", "Solution", "YahtzeeError", "__version__", "analyze", "hint", "load_rules",
           "replay", "score_roll", "simulate", "solve", "validate"]
