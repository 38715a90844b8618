"""What every compiled strategy's games share: sheet totals of a batch of games (by the rules
module's own int-only functions), and running a kernel's blocks of games on threads at once."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..limits import cores
from ..rules import engine as R
from . import compiled
from .jit import njit


def sheet_totals(rules: R.RuleSet, scores: np.ndarray, ybonus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Totals [G] and upper-bonus flags [G, C] of finished sheets (scores [G, C, B], open boxes < 0),
    computed by the rules module's own int-only functions (the semantics of `rules.sheet_total`)."""
    s = rules.settings
    is_upper = np.array([b.kind == "upper" for b in rules.boxes], dtype=np.bool_)
    totals = np.zeros(scores.shape[0], dtype=np.int64)
    hit = np.zeros(scores.shape[:2], dtype=np.bool_)
    _sheet_totals(np.ascontiguousarray(scores, dtype=np.int64), np.ascontiguousarray(ybonus, dtype=np.int64),
                  is_upper, s.upper_bonus_threshold, s.upper_bonus, np.array(s.multipliers, dtype=np.int64),
                  s.add_columns, totals, hit, np.empty(scores.shape[1], dtype=np.int64))
    return totals, hit


@njit(cache=True)
def _sheet_totals(scores: Any, ybonus: Any, is_upper: Any, threshold: int, upper_bonus: int, mult: Any,
                  add_columns: bool, totals: Any, bonus_hit: Any, col: Any) -> None:  # pragma: no cover - compiled
    """Per game: the sheet total (rules.weighted_total of the column totals) and, per column, whether
    the upper bonus was earned (rules.upper_bonus_points). col: scratch for a game's column totals."""
    g_n, c_n, b_n = scores.shape
    for g in range(g_n):
        for c in range(c_n):
            upper = 0
            lower = 0
            for b in range(b_n):
                v = scores[g, c, b]
                if v > 0:
                    if is_upper[b]:
                        upper += v
                    else:
                        lower += v
            ub = compiled.upper_bonus_points(upper, threshold, upper_bonus)
            bonus_hit[g, c] = ub > 0
            col[c] = upper + ub + lower + ybonus[g, c]
        totals[g] = compiled.weighted_total(col, mult, add_columns)


def first_places(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per seat and game of the totals [S, G] of games played side by side: (won outright, tied for
    first); a tie stands as a tie."""
    top = totals == totals.max(axis=0)
    shared = top.sum(axis=0) > 1
    return top & ~shared, top & shared


def on_chunks(chunk: Callable[[int, int], None], n: int, nchunks: int, threads: int | None = None) -> None:
    """chunk(c, nch) for the nch = min(n, nchunks) round-robin chunks of n independent items (chunk c
    takes items c, c + nch, ...), on `threads` threads (default: one per core). The compiled kernels
    release the GIL and a chunk writes its own items only, so the thread count never changes a
    result. chunk(n, 1), which owns no item, first compiles (or loads) the kernel, once."""
    nch = min(n, nchunks)
    if nch <= 0:
        return
    chunk(n, 1)
    with ThreadPoolExecutor(max(1, min(threads or cores(), nch))) as pool:
        list(pool.map(chunk, range(nch), [nch] * nch))


def on_threads(block: Callable[[int, int], None], n: int, threads: int | None = None) -> None:
    """block(lo, hi) over the games [0, n), one piece per thread (default: one per core). The compiled
    kernels release the GIL, so the pieces run at once; a game depends only on its own random
    streams, so the cut never changes the games. block(0, 0) first compiles (or loads) the kernel,
    once, before the threads start."""
    workers = max(1, min(threads or cores(), n))
    if workers == 1:
        block(0, n)
        return
    block(0, 0)
    cuts = [n * w // workers for w in range(workers + 1)]
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(block, cuts[:-1], cuts[1:]))
