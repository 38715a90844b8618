"""The library's front door: one call per job the command line does, typed results, no CLI.

    from yahtzee_cli import load_rules, score_roll, validate, replay, solve, hint, simulate, analyze

Each function imports what it needs when called (`import yahtzee_cli` stays light; only `solve` and
`simulate`, and a hint whose table is not stored yet, load numpy and numba). Errors the caller can
act on are errors.YahtzeeError subclasses."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .rules.engine import Column, RuleSet, load_rules, score_roll

if TYPE_CHECKING:
    from .formats.replay import Replay
    from .formats.validate import GameReport
    from .play.analyze import GameAnalysis
    from .play.simulate import Report
    from .strategy.turn import Evaluation

__all__ = ["Column", "RuleSet", "Solution", "analyze", "hint", "load_rules", "replay", "score_roll", "simulate",
           "solve", "validate"]

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


@dataclass(frozen=True)
class Solution:
    """What optimal play scores on a rule set: exactly (from its exact table) or approximately (the
    simulated mean of the labelled approximate strategy, and `why` there is no exact table)."""

    rules: RuleSet
    exact: bool
    expected: float
    sd: float
    strategy: str  # "exact", "columns", "heuristic" or "saved" (strategy.choice)
    why: str | None = None


def solve(rules: RuleSet, say: Say | None = None) -> Solution:
    """Build (once; stored after that) the rule set's optimal strategy and report its expected score."""
    from .strategy.choice import plan, solved_saved_rules

    p = plan(rules)
    table_rules = solved_saved_rules(rules, p)
    if table_rules is not None:  # NotExact when capped rules can have no table
        from .solver import saved

        stab, _ = saved.get_table(table_rules, say)
        return Solution(rules, True, stab.mean, float("nan"), "saved")
    if p.exact:
        from .solver.exact import get_table

        tab, _ = get_table(rules, say)
        return Solution(rules, True, tab.mean, tab.sd, p.strategy)
    from .solver import approx

    info = approx.prepare(rules, say)
    return Solution(rules, False, float(info["mean"]), float(info["sd"]), p.strategy, p.why)


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
