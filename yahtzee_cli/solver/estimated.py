"""Who is winning where no exact score distributions exist (several columns, saved rolls, Maxi
Yatzy's size): each player's chance to win, estimated from games played on from their sheet.

Every player's sheet is played on to the end `n` times, by the strategy every other command plays
these rules with (policy.play "optimal": the approximate strategy, or the exact saved-rolls table
where one is built), player i on dice streams of their own (seat i), so the players' futures are
independent, as they are at the table. The chances then follow from the players' final totals as the
exact ones follow from exact distributions (winning.win_chances on the samples' pmfs): every one of a
player's games is weighed against every game of the others, which is far less noisy than counting
the winner of n whole games.

The standard error comes from the delta method for such multi-sample estimates (their Hajek
projection): a chance is a sum over one player's games of a product of the others' empirical CDFs,
linear in each player's sample, so its variance is the sum over players j of the variance, over
j's games, of what one game of j adds, divided by j's number of games. Exact to first order in
1 / n, and right for rare chances too (a player with a 2% chance wins through a few high totals,
which small batches of games mostly miss: batch means understated those errors by half).

Play starts with START_GAMES games per player and adds more, up to MAX_GAMES, until every chance's
error is at most TARGET_SE. The dice are fixed by the position (position_seed), so a position's
estimate is the same every time it is asked for, while the estimates of different positions have
dice of their own: with one set of dice for all, a player whose dice streams happened to run well
would have been favoured a little at every position of every game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..rules import engine as R
from ..strategy.choice import plan
from .exact import Opening
from .pmf import Distribution

Say = Callable[[str], None]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

START_GAMES = 1500  # games per player played first
MAX_GAMES = 8000  # most games per player
TARGET_SE = 0.0095  # more games until every standard error is at most this
SEED = 20_240_601  # the dice of the estimates, mixed with the position's own (position_seed)


class Estimated(NamedTuple):
    """One player's estimated chance to win outright and to share first place, with standard errors."""

    win: float
    tie: float
    win_se: float
    tie_se: float


class Estimate(NamedTuple):
    """Every player's estimated chances, and the games played on from each player's sheet."""

    players: list[Estimated]
    games: int


def position_seed(*parts: object) -> int:
    """The dice seed of a position: SEED mixed with a digest of what describes it (its sheets, saved
    rolls, the dice showing), the same for the same position in every process."""
    import hashlib

    digest = hashlib.blake2b(repr(parts).encode(), digest_size=4).digest()
    return (SEED ^ int.from_bytes(digest, "little")) & 0x7FFF_FFFF


def final_totals(rules: R.RuleSet, columns: Sequence[R.Column], saved: int, seat: int, first: int,
                 n: int, threads: int | None = None, opening: Opening | None = None, seed: int = SEED) -> IntArray:
    """The final totals of games first .. first + n - 1 played on from `columns` (a turn start with
    `saved` rolls saved, or that turn under way: `opening`) by the rules' optimal strategy, on the
    dice of `seed` and seat `seat`."""
    if all(c.is_full for c in columns):
        return np.full(n, R.sheet_total(rules, columns), dtype=np.int64)
    from .policy import play

    return np.asarray(play(rules, "optimal", seed, first, n, seat=seat, threads=threads, start=list(columns),
                           saved=saved, opening=opening).totals, dtype=np.int64)


def note_compile(rules: R.RuleSet, sheet: Sequence[R.Column], games: int, say: Say | None) -> None:
    """One line on `say` when the kernel that plays games on from a sheet is compiled first (seconds,
    on a fresh install, before any game is played)."""
    if say is None:
        return
    from . import exact, jit, play_kernel
    from .policy import value_to_go_for
    from .saved_fit import stock_values

    p = plan(rules)
    if p.by_stock and stock_values(p, say) is not None:
        return  # (values by stock play: their own kernel, solver.saved.play_with)
    fut = value_to_go_for(rules, "optimal", say)
    jit.note_compile([play_kernel.play_games], "the simulator", say,
                     [exact.play_args(rules, fut, False, games, start=list(sheet))])


def sample_pmf(totals: IntArray) -> Distribution:
    lo = int(totals.min())
    counts = np.bincount(totals - lo).astype(np.float64)
    return Distribution(counts / counts.sum(), lo)


def chances_of(totals: Sequence[IntArray]) -> list[Estimated]:
    """Every player's chances to win outright and to tie for first from their final totals (one array
    per player), with standard errors by the delta method (see the module's doc)."""
    lo = min(int(t.min()) for t in totals)
    width = max(int(t.max()) for t in totals) - lo + 1
    pm = [np.bincount(t - lo, minlength=width) / len(t) for t in totals]
    below = [np.cumsum(p) - p for p in pm]  # P(X_j < x)
    upto = [np.cumsum(p) for p in pm]  # P(X_j <= x)
    ones = np.ones(width)

    def var(p: FloatArray, h: FloatArray) -> float:
        m = float(p @ h)
        return max(float(p @ (h * h)) - m * m, 0.0)

    out = []
    for i, t in enumerate(totals):
        others = [j for j in range(len(totals)) if j != i]
        g_win = math.prod((below[j] for j in others), start=ones)
        g_tie = math.prod((upto[j] for j in others), start=ones) - g_win
        win, tie = float(pm[i] @ g_win), float(pm[i] @ g_tie)
        v_win, v_tie = var(pm[i], g_win) / len(t), var(pm[i], g_tie) / len(t)
        for j in others:  # what one game of j with total y adds: through P(X_j < x) and P(X_j <= x)
            rest = [k for k in others if k != j]
            a_lt = pm[i] * math.prod((below[k] for k in rest), start=ones)
            a_le = pm[i] * math.prod((upto[k] for k in rest), start=ones)
            over = a_lt.sum() - np.cumsum(a_lt)  # sum over x > y
            at_or_over = a_le.sum() - (np.cumsum(a_le) - a_le)  # sum over x >= y
            v_win += var(pm[j], over) / len(totals[j])
            v_tie += var(pm[j], at_or_over - over) / len(totals[j])
        out.append(Estimated(win, tie, math.sqrt(v_win), math.sqrt(v_tie)))
    return out


def played_totals(rules: R.RuleSet, sheets: Sequence[Sequence[R.Column]], saved: Sequence[int],
                  openings: Sequence[Opening | None], seed: int, first: int, n: int, threads: int | None = None,
                  seats: Sequence[int] | None = None) -> list[IntArray]:
    """final_totals of games first .. first + n - 1 for every sheet (player i on seat seats[i], default
    i), the players side by side, one core each: a kernel on two threads of its own plays about 1.4
    times as fast as on one, two kernels side by side twice."""
    from concurrent.futures import ThreadPoolExecutor

    from ..limits import cores

    seat = list(seats) if seats is not None else list(range(len(sheets)))

    def one(i: int) -> IntArray:
        return final_totals(rules, sheets[i], saved[i], seat[i], first, n, 1, openings[i], seed)

    workers = min(len(sheets), cores() if threads is None else threads)
    if workers <= 1:
        return [one(i) for i in range(len(sheets))]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, range(len(sheets))))


def estimated_chances(rules: R.RuleSet, sheets: Sequence[Sequence[R.Column]], saved: Sequence[int] | None = None,
                      games: int | None = None, threads: int | None = None,
                      openings: Sequence[Opening | None] | None = None, say: Say | None = None) -> Estimate:
    """Each player's chances to win from `sheets` (every player's columns at a turn start; `saved`:
    the rolls each has saved before it; `openings`: a turn under way, by player). `games`: exactly
    that many games per player; None: START_GAMES, then more until every standard error is at most
    TARGET_SE (at most MAX_GAMES)."""
    stock = list(saved) if saved is not None else [0] * len(sheets)
    opens = list(openings) if openings is not None else [None] * len(sheets)
    seed = position_seed(rules.fingerprint, [[c.scores for c in cols] for cols in sheets],
                         [[c.yahtzee_bonus for c in cols] for cols in sheets], stock, opens)

    def games_of(first: int, n: int) -> list[IntArray]:
        return played_totals(rules, sheets, stock, opens, seed, first, n, threads)

    n = START_GAMES if games is None else games
    note_compile(rules, sheets[0], n, say)
    totals = games_of(0, n)
    est = chances_of(totals)
    while games is None and n < MAX_GAMES:
        worst = max(max(e.win_se, e.tie_se) for e in est)
        if worst <= TARGET_SE:
            break
        more = min(MAX_GAMES, max(n + 500, math.ceil(n * (worst / TARGET_SE) ** 2 / 500) * 500))
        totals = [np.concatenate([t, u]) for t, u in zip(totals, games_of(n, more - n), strict=True)]
        n = more
        est = chances_of(totals)
    return Estimate(est, n)


def beat_chance(rules: R.RuleSet, columns: Sequence[R.Column], saved: int, score: int,
                games: int = START_GAMES) -> tuple[float, float]:
    """A solo sheet's chance of finishing above `score`, estimated from `games` games played on, and
    its standard error."""
    seed = position_seed(rules.fingerprint, [c.scores for c in columns], [c.yahtzee_bonus for c in columns], saved)
    t = final_totals(rules, columns, saved, 0, 0, games, seed=seed)
    p = float(np.mean(t > score))
    return p, math.sqrt(max(p * (1 - p), 1 / games) / games)
