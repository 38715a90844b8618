"""The solver's named strategies: `optimal` and `greedy`, each a value to go for the compiled play
kernel (solver.exact.play_with). Which value to go `optimal` uses is strategy.choice's plan."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import StrategyError
from ..rules.engine import Column, RuleSet
from ..strategy.choice import plan
from . import approx, moves, value_to_go
from .exact import Opening, get_table, play_with
from .games import GameBatch
from .value_to_go import ValueToGo


def value_to_go_for(rules: RuleSet, strategy: str, say: Callable[[str], None] | None = None) -> ValueToGo:
    """The value to go `strategy` plays against on these rules (tables built or fitted on first use)."""
    if strategy == "greedy":
        return value_to_go.greedy(rules)
    if plan(rules).exact:
        tab, _ = get_table(rules, say)
        return tab.value_to_go(exact=True)
    return approx.value_to_go(rules, say)


def play(rules: RuleSet, strategy: str, seed: int, first_game: int, n_games: int, seat: int = 0,
         record: bool = False, threads: int | None = None, run_games: int | None = None,
         start: Sequence[Column] | None = None, saved: int = 0, opening: Opening | None = None) -> GameBatch:
    """Play games first_game .. first_game + n_games - 1 of seat `seat`.

    strategy "optimal": the exact table's policy (maximise the expected final score), or the
      approximate strategy (solver.approx) where no exact table exists.
    strategy "greedy": each turn maximises the points it writes now (box score + extra-Yahtzee bonus +
      the upper bonus when this box reaches the threshold), by the same turn machinery with no future
      value; ties go to the first box in sheet order. Keeps maximise the expected points of this turn.

    Dice (every strategy must follow this convention): game g of seat s draws from
    rng.stream(seed, g, s) with rng.next_die. The first roll draws all n dice into positions 0..n-1 in
    order. Before a reroll the kept dice are sorted ascending into positions 0..k-1 and the n - k
    rerolled dice are drawn into positions k..n-1 in order. Keeping every die stops the turn (unused
    rolls are saved when saved_rolls is on). So the dice depend only on (seed, game, seat) and the
    number of dice rerolled each time. Recorded `rolls` hold the dice by position after each roll,
    `held` the sorted kept dice before each reroll (0-padded); a passed turn (must_zero off) has box -1.

    Decisions are deterministic: stopping wins ties against rerolling; ties between keeps go to the
    first in tables.proper_subkeeps' order (face counts, ones varying fastest); boxes tie to
    the first (column, box) in sheet order; a pass (must_zero off) wins a tie with writing a zero.
    Under must_zero off a game passes at most until 50 x boxes x columns turns would be exceeded.
    `threads`: worker threads for this call (default: one per core); never changes the games.
    `run_games`: the games of the run this call is part of (exact.play_with: whether to keep a memo;
    solver.moves: whether to read a move table).
    `start`: the sheet's columns every game goes on from, at a turn start (default: an empty sheet);
    `saved`: the rolls saved before its next turn (saved rolls); `opening`: where that turn stands
    when it is under way (exact.Opening: the dice showing, the next keep)."""
    if strategy not in ("optimal", "greedy"):
        raise StrategyError(f"unknown strategy {strategy!r}; the solver plays optimal and greedy")
    p = plan(rules)
    if strategy == "optimal" and p.by_stock:
        from . import saved as saved_table
        from .saved_fit import stock_values

        tab = stock_values(p)
        if tab is not None:  # (else removed meanwhile: the heuristic)
            return saved_table.play_with(rules, tab, seed, first_game, n_games, seat, record, threads, start, saved,
                                         opening)
    fut = value_to_go_for(rules, strategy)
    mt = moves.for_run(rules, fut, n_games if run_games is None else max(run_games, n_games))
    if mt is not None and opening is None:  # every decision made already: the same games, from the move table
        return moves.play_with(rules, fut, mt, seed, first_game, n_games, seat, record, threads, start)
    return play_with(rules, fut, seed, first_game, n_games, seat, record, threads, run_games, start, saved, opening)
