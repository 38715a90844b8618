"""The rules module's int-only functions compiled with numba, shared by every compiled kernel
(solver, play, random strategy): the rules are still written once, in rules.py.

numba caches a kernel keyed on its own module's file only, yet kernels inline these functions and
rng's; `drop_stale_cache` keeps a stamp of that source next to a kernel module's cache and drops the
module's cached kernels when it changes, so an edited rule is never served from a stale cache.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path
from typing import Any

from numba import njit

from ..rules import engine as rules
from . import rng

legal_bits: Any = njit(cache=True, inline="always")(rules.legal_bits)
joker_now: Any = njit(cache=True, inline="always")(rules.joker_now)
joker_full_value: Any = njit(cache=True, inline="always")(rules.joker_full_value)
extra_bonus_points: Any = njit(cache=True, inline="always")(rules.extra_bonus_points)
upper_bonus_points: Any = njit(cache=True, inline="always")(rules.upper_bonus_points)
weighted_total: Any = njit(cache=True, inline="always")(rules.weighted_total)
roll_budget: Any = njit(cache=True, inline="always")(rules.roll_budget)
rolls_left_over: Any = njit(cache=True, inline="always")(rules.rolls_left_over)

FORCED = rules.JOKER_CODES["forced"]


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


_SOURCES = (
    rules.legal_bits, rules.joker_now, rules.joker_full_value, rules.extra_bonus_points, rules.upper_bonus_points,
    rules.weighted_total, rules.roll_budget, rules.rolls_left_over, rng.mix.py_func, rng.stream.py_func,
    rng.next_die.py_func, roll_dice.py_func,
)


def drop_stale_cache(module: str, kernel: Any) -> None:
    """Drop `module`'s cached kernels (found through any one of them, `kernel`) when the source of
    the functions they inline changed since they were cached."""
    try:
        stamp = hashlib.sha256("".join(inspect.getsource(f) for f in _SOURCES).encode()).hexdigest()
        where = Path(getattr(getattr(kernel, "_cache", None), "_cache_path", ""))
        if not where.is_dir():
            return
        stem = module.rsplit(".", 1)[-1]
        mark = where / f"{stem}.dependencies.stamp"
        if mark.exists() and mark.read_text() == stamp:
            return
        for f in list(where.glob(f"{stem}.*.nbi")) + list(where.glob(f"{stem}.*.nbc")):
            f.unlink(missing_ok=True)
        mark.write_text(stamp)
    except OSError:  # a read-only install: numba then uses its own cache directory, nothing to do
        pass
