"""The rules module's int-only functions compiled with numba, shared by every compiled kernel
(solver, play, random strategy): the rules are still written once, in rules/engine.py.

A cached kernel that inlines these is recompiled when rules/engine.py changes: see jit.py's source stamp.
"""

from __future__ import annotations

from typing import Any

from ..rules import engine as rules
from . import rng
from .jit import njit

legal_bits: Any = njit(cache=True, inline="always")(rules.legal_bits)
joker_now: Any = njit(cache=True, inline="always")(rules.joker_now)
joker_full_value: Any = njit(cache=True, inline="always")(rules.joker_full_value)
extra_bonus_points: Any = njit(cache=True, inline="always")(rules.extra_bonus_points)
upper_bonus_points: Any = njit(cache=True, inline="always")(rules.upper_bonus_points)
weighted_total: Any = njit(cache=True, inline="always")(rules.weighted_total)
roll_budget: Any = njit(cache=True, inline="always")(rules.roll_budget)
rolls_left_over: Any = njit(cache=True, inline="always")(rules.rolls_left_over)

FORCED = rules.JOKER_CODES["forced"]


@njit(cache=True, nogil=True)
def roll_of_dice(dice: Any, cnt: Any, keep_index: Any, roll_of_keep: Any) -> int:  # pragma: no cover - compiled
    """The index of the roll `dice` (in any order) in the dice tables (tables.dice_tables: keep_index
    by face counts in base 7, ones varying fastest); cnt[f] is left holding the count of face f + 1."""
    for f in range(6):
        cnt[f] = 0
    for k in range(dice.shape[0]):
        cnt[dice[k] - 1] += 1
    key = 0
    for f in range(5, -1, -1):
        key = key * 7 + cnt[f]
    return int(roll_of_keep[keep_index[key]])


@njit(cache=True, nogil=True)
def record_reroll(held_out: Any, rolls_out: Any, g: int, turn: Any, used: Any, kept: Any, nk: int,
                  dice: Any) -> None:  # pragma: no cover - compiled
    """What every compiled strategy's game logs keep of a reroll: the nk dice held before it (sorted)
    in held_out[g, turn, used - 1], the dice after it by position in rolls_out[g, turn, used]."""
    for k in range(nk):
        held_out[g, turn, used - 1, k] = kept[k]
    for k in range(dice.shape[0]):
        rolls_out[g, turn, used, k] = dice[k]


@njit(cache=True, inline="always")
def roll_dice(dice: Any, kept: Any, nk: int, st: Any) -> Any:  # pragma: no cover - compiled
    """The dice convention of every strategy, so a game depends only on (seed, game, seat) and the
    choices: positions 0..nk-1 take the kept dice (sorted ascending), positions nk..n-1 are drawn
    from the stream in order (nk = 0: a first roll). Returns the stream's next state."""
    for k in range(nk):
        dice[k] = kept[k]
    for k in range(nk, dice.shape[0]):
        d, st = rng.next_die(st)
        dice[k] = d
    return st

