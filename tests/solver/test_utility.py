"""Exact play for a score (yahtzee_cli.solver.utility): E[u(final)] of every option of a position
under the play that maximises it, against a brute-force expectimax over every roll, keep and box on
small positions (a few open boxes of the six-box rules: upper bonus, joker and extra bonus in play)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import factorial

import numpy as np
import pytest
from conftest import SMALL_RULES

from yahtzee_cli.play.hint import hint
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import utility


def _rolls(n: int) -> list[tuple[tuple[int, ...], float]]:
    """Every multiset of n dice with its probability."""
    out = []
    for combo in itertools.combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for f in set(combo):
            ways //= factorial(combo.count(f))
        out.append((combo, ways / 6**n))
    return out


def brute(rules: R.RuleSet, u: Callable[[int], float]) -> tuple[Callable[..., float], Callable[..., float]]:
    """(keep_value(column, keep, rolls_left), box_value(column, option)) by plain expectimax over every
    roll, keep and box (memoised on what a column's future depends on: filled boxes, upper total up to
    the bonus threshold, the Yahtzee box's score, the total so far)."""
    n = rules.dice
    t = rules.settings.upper_bonus_threshold
    yi = rules.yahtzee_index
    rolls = {k: _rolls(k) for k in range(n + 1)}
    memo: dict[tuple[object, ...], float] = {}

    def key(col: R.Column) -> tuple[object, ...]:
        upper = sum(col.scores[i] or 0 for i in rules.upper_indices)
        return (col.filled_mask, min(upper, t), col.scores[yi] if yi is not None else None,
                R.column_totals(rules, col).total)

    def write(col: R.Column, o: R.Option) -> R.Column:
        scores = list(col.scores)
        scores[o.box] = o.score
        return R.Column(tuple(scores), col.yahtzee_bonus + o.bonus)

    def start(col: R.Column) -> float:
        k = ("start", *key(col))
        if k not in memo:
            if col.is_full:
                memo[k] = u(R.column_totals(rules, col).total)
            else:
                memo[k] = sum(p * best(col, d, 2) for d, p in rolls[n])
        return memo[k]

    def stop(col: R.Column, dice: tuple[int, ...]) -> float:
        return max(start(write(col, o)) for o in R.column_options(rules, col, dice))

    def best(col: R.Column, dice: tuple[int, ...], left: int) -> float:
        vals = [stop(col, dice)]
        if left:
            for k in range(n):
                for keep in set(itertools.combinations(dice, k)):
                    vals.append(keep_value(col, keep, left))
        return max(vals)

    def keep_value(col: R.Column, keep: tuple[int, ...], left: int) -> float:
        k = ("keep", *key(col), tuple(sorted(keep)), left)
        if k not in memo:
            memo[k] = sum(p * best(col, tuple(sorted(keep + d)), left - 1) for d, p in rolls[n - len(keep)])
        return memo[k]

    def box_value(col: R.Column, o: R.Option) -> float:
        return start(write(col, o))

    return keep_value, box_value


@pytest.fixture(scope="module")
def small() -> R.RuleSet:
    return R.rules_from_data(SMALL_RULES)


# (column, dice): fours fives sixes three_of_a_kind yahtzee chance
POSITIONS = [
    (R.Column((None, 10, 18, 20, None, 21)), (3, 4, 4, 5, 6)),  # fours for the upper bonus (2 short), Yahtzee open
    (R.Column((None, None, 12, 17, 50, 22)), (4, 4, 4, 4, 4)),  # Yahtzee held: the extra bonus and the joker
    (R.Column((12, 10, 24, None, None, 20)), (2, 2, 5, 6, 6)),  # bonus made, two lower boxes left
]


@pytest.mark.parametrize("col,dice,goal", [(c, d, g) for c, d in POSITIONS[:2] for g in ("target", "share")]
                         + [(*POSITIONS[2], "target")])
def test_option_values_are_brute_force_expectimax(small: R.RuleSet, col: R.Column, dice: tuple[int, ...],
                                                  goal: str) -> None:
    base = R.column_totals(small, col).total
    if goal == "target":
        T = base + 60
        uvec = np.array([1.0 if s >= T else 0.0 for s in range(T + 1)])
    else:  # the share of first place against an opponent on a fixed pmf (ties shared)
        rng = np.random.default_rng(len(col.open_boxes()))
        opp = rng.random(60)
        opp /= opp.sum()
        lo = base + 20
        uvec = np.array([opp[: max(s - lo, 0)].sum() + 0.5 * (opp[s - lo] if 0 <= s - lo < 60 else 0.0)
                         for s in range(lo + 61)])

    def u(s: int) -> float:
        return float(uvec[min(s, len(uvec) - 1)])

    keep_value, box_value = brute(small, u)
    for left in (2, 1, 0):
        ev = hint(small, [col], dice, left)
        opts = [o for o in ev.options if not o.is_pass]
        got = utility.option_values(small, col, dice, left, opts, uvec)
        for o, g in zip(opts, got, strict=True):
            if o.keep is not None and left and len(o.keep) < len(dice):
                want = keep_value(col, tuple(o.keep), left)
            elif o.keep is not None:  # keeping every die: stop, the best box
                want = max(box_value(col, b) for b in R.column_options(small, col, tuple(sorted(dice))))
            else:
                want = box_value(col, R.Option(int(o.box), int(o.score), int(o.bonus)))
            assert g == pytest.approx(want, abs=1e-12), (o, left)


def test_cost_grows_with_the_open_boxes(small: R.RuleSet) -> None:
    late = utility.cost(small, R.Column((8, 10, 18, 20, None, None)), 200)
    early = utility.cost(small, R.Column((None,) * 6), 200)
    assert 0 < late < early
