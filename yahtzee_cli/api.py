"""The library's front door: one call per job the command line does, typed results, no CLI.

    from yahtzee_cli import load_rules, score_roll, validate, replay, solve, hint, simulate, analyze

Each function imports what it needs when called (`import yahtzee_cli` stays light; only `solve` and
`simulate`, and a hint whose table is not stored yet, load numpy and numba). Errors the caller can
act on are errors.YahtzeeError subclasses."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .play.solving import Solution, SolveOptions
from .rules.engine import Column, RuleSet, load_rules, score_roll

if TYPE_CHECKING:
    from .formats.replay import Replay
    from .formats.validate import GameReport
    from .play.analyze import GameAnalysis
    from .play.simulate import Report
    from .strategy.turn import Evaluation

__all__ = ["Column", "RuleSet", "Solution", "SolveOptions", "analyze", "hint", "load_rules", "replay", "score_roll",
           "simulate", "solve", "validate"]

Say = Callable[[str], None]


def validate(data: Any) -> GameReport:
    """Every problem of one game document (a yahtzee-log/1 or yahtzee-sheet/1, as parsed JSON)."""
    from .formats.validate import check_document

    return check_document(data)


def replay(data: Mapping[str, Any], *, overrides: Mapping[str, Any] | None = None,
           until: int | None = None) -> Replay:
    """A game's sheets, totals and standings (recalculated under `overrides`, cut after `until` turns)."""
    from .formats.replay import replay_game

    return replay_game(data, overrides=overrides, until=until)


def solve(rules: RuleSet, say: Say | None = None, *, options: SolveOptions | None = None,
          stage: Callable[[str], None] | None = None) -> Solution:
    """Build (once; stored after that) the rule set's optimal strategy and report its expected score
    (`options`: rebuild, the exact distribution, a risk strategy; `stage` hears each long step's name)."""
    from .play.solving import solve as run

    return run(rules, options, say, stage)


def hint(rules: RuleSet, columns: Sequence[Column], dice: Sequence[int], rolls_left: int, saved: int = 0,
         say: Say | None = None) -> Evaluation:
    """Every option of a position, best first, valued as the expected final total of the sheet."""
    from .play.hint import hint as evaluate

    return evaluate(rules, columns, dice, rolls_left, saved, say=say)


def simulate(rules: RuleSet, strategies: Sequence[str], games: int, seed: int, **options: Any) -> Report:
    """Play `games` games with one strategy per seat (see play.simulate.simulate for the options)."""
    from .play.simulate import simulate as run

    return run(rules, strategies, games, seed, **options)


def analyze(data: Mapping[str, Any], *, until: int | None = None, say: Say | None = None) -> GameAnalysis:
    """Grade every decision of a valid game log against optimal play."""
    from .play.analyze import Analyzer

    return Analyzer(say).game(data, until=until)
