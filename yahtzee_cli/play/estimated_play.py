"""Play for a target score or to win where no exact score distributions exist (several columns, saved
rolls, Maxi Yatzy's size, passes): each option of the position valued by the games played on after
it (solver.estimated's games: the rules' own strategy from there, every option on the same dice so
that their differences are sharper than their values).

An option's value is the mean of u(final total) over GAMES such games: u a step at the target
(P(final >= target)), or the expected share of first place against the other players' final totals
(their own games played on, as the estimated chances do). Only the CANDIDATES best options by
expected score are played on: an option far down that ranking seldom becomes the best for a goal,
and each one costs GAMES games. The standard error of each value is its games' spread over the root
of their number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..rules import engine as R

if TYPE_CHECKING:
    from ..formats.replay import Replay
    from ..solver.pmf import Distribution
    from ..strategy.turn import Choice, Evaluation
    from .hint import TargetPlay

GAMES = 2000  # games played on after each option
CANDIDATES = 8  # options played on: the best by expected score

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def option_totals(rules: R.RuleSet, columns: Sequence[R.Column], saved: int, ev: Evaluation, option: Choice,
                  games: int = GAMES, used: int | None = None, first: int = 0) -> IntArray:
    """The final totals of games first .. first + games - 1 played on after `option` of the position
    `ev` (the player's `columns`, `saved` rolls saved before this turn; `used`: the rolls the turn has
    used, when it stopped before its last roll and the boxes are its options), by the rules' strategy,
    on fixed dice."""
    from ..solver.estimated import final_totals, position_seed
    from ..solver.exact import Opening

    # every option of the position on the same dice: their differences are the sharper
    seed = position_seed(rules.fingerprint, [c.scores for c in columns], [c.yahtzee_bonus for c in columns], saved,
                         ev.dice, ev.rolls_left)
    budget = R.rolls_allowed(rules, saved)
    used = budget - ev.rolls_left if used is None else used
    cols = list(columns)
    rerolls = option.keep is not None and len(option.keep) < rules.dice and ev.rolls_left > 0
    if rerolls:
        return final_totals(rules, cols, saved, 0, first, games, opening=Opening(ev.dice, used, option.keep),
                            seed=seed)
    after = option
    if option.keep is not None:  # stopping with rolls left: the box stopping leads to
        assert ev.stop_box is not None
        after = ev.stop_box
    if not after.is_pass:
        assert after.box is not None
        cols[after.column], _ = R.place(rules, cols[after.column], after.box, ev.dice, after.column)
    return final_totals(rules, cols, R.saved_after(rules, saved, used), 0, first, games, seed=seed)


def play_estimated(rules: R.RuleSet, columns: Sequence[R.Column], saved: int, ev: Evaluation, u: FloatArray,
                   games: int = GAMES, candidates: int = CANDIDATES,
                   say: Callable[[str], None] | None = None) -> TargetPlay:
    """The position's best options by E[u(final)] (u[s] for s = 0 .. len(u) - 1, u[-1] beyond),
    estimated from `games` games played on after each of the `candidates` best options by expected
    score; `ranked` best first (ties: the better expected score), `se` their standard errors."""
    from ..progress import given
    from ..solver.estimated import note_compile
    from .hint import TargetPlay

    opts = ev.options[:candidates]
    hi = len(u) - 1
    vals, ses = [], []
    progress = given(None)  # (the wait shows how far it is, and the time left)
    note_compile(rules, columns, games, say)
    for k, o in enumerate(opts):
        t = option_totals(rules, columns, saved, ev, o, games)
        x = u[np.clip(t, 0, hi)]
        vals.append(float(x.mean()))
        ses.append(float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else 0.0)
        if progress is not None:
            progress(k + 1, len(opts))
    order = sorted(range(len(opts)), key=lambda i: (-vals[i], i))
    ranked = [(opts[i], vals[i]) for i in order]
    return TargetPlay(hi, [], (ranked[0][1], None, ranked[0][0]), "estimated", ranked, float("inf"),
                      [None] * len(ranked), se=[ses[i] for i in order], games=games)


def opponents(rp: Replay, others: Sequence[int], say: Callable[[str], None] | None = None) -> list[Distribution]:
    """The final-score distributions of these players of the game, from their games played on (the
    samples' pmfs, as the estimated chances use them)."""
    from ..solver.estimated import START_GAMES, note_compile, played_totals, position_seed, sample_pmf
    from .odds import standing

    note_compile(rp.rules, rp.players[others[0]].columns, START_GAMES, say)
    ip = rp.in_progress
    seed = position_seed(rp.rules.fingerprint, [[c.scores for c in p.columns] for p in rp.players],
                         None if ip is None else (ip.player, ip.dice, ip.rolls_used))
    saved, openings = standing(rp)
    totals = played_totals(rp.rules, [rp.players[i].columns for i in others], [saved[i] for i in others],
                           [openings[i] for i in others], seed, 0, START_GAMES, seats=[i + 1 for i in others])
    return [sample_pmf(t) for t in totals]
