"""The table build's compiled kernels: the exact backward induction over filled-box masks, on the
within-turn kernels (within_turn.py) that every objective shares.

Every rule comes from rules/engine.py: the int-only functions `legal_bits`, `joker_now`, `joker_full_value`
and `extra_bonus_points` are compiled once in compiled.py (never restated), and the scores come from
the rule set's arrays (tables.rule_arrays). The kernels only add dynamic programming.

State of a column at the start of a turn: the filled-box mask, the upper total capped at the
threshold `t` (lanes u = 0..t) and, when the Yahtzee box is filled and extra bonuses exist, whether it
holds its full points (y = 1) or a zero (y = 0). The upper bonus is a terminal reward (paid when the
capped total reaches `t` at the end), which is the same expectation and works for any threshold.

The build evaluates, per filled-box mask, every reachable (y, u) lane of that mask at once: all arrays
are [keep, lane] with the lane contiguous, so the inner loops are SIMD over lanes (within_turn's
lane kernels). Masks of one popcount layer are independent and run in parallel (solve_chunk on
threads, GIL released).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .compiled import FORCED, extra_bonus_points, joker_now, legal_bits
from .jit import KERNEL, borrow, njit
from .within_turn import (
    NEG,
    best_roll_max,
    expect_lanes,
    keep_stages_lanes,
    lane_final_values,
    lanes_best,
    lanes_fixups,
    lanes_next,
    mask_rolls,
    roll_legal_inline,
)


@njit(cache=True)
def roll_options(filled: int, yfilled: bool, yfull: bool, r: int, ra: Any) -> tuple[int, np.ndarray, int]:
    """What the kernels let roll r do in a column: legal boxes (bits), the score each would write
    (natural, or a joker's full value) and the extra bonus. For cross-checks against rules/engine.py.

    Parameters
    ----------
    filled : int
        The column's filled boxes.
    yfilled, yfull : bool
        Its Yahtzee box is filled; it holds its full points.
    r : int
        The roll.
    ra : tables.RuleArrays
        The rule set's arrays.
    """
    nb = ra.nb
    open_ = ((1 << nb) - 1) & ~filled
    bits, fullv = roll_legal_inline(open_, yfilled, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y, ra.fill0,
                                    ra.lower_bits)
    out = np.zeros(nb, np.int64)
    for b in range(nb):
        if (bits >> b) & 1:
            out[b] = ra.joker[r, b] if fullv else ra.natural[r, b]
    return bits, out, extra_bonus_points(ra.yroll[r], yfull, ra.extra)


@njit(cache=True)
def reachable_masks(nb: int, fill: int, lower_bits: int, joker_code: int, has_y: bool, ybit: int,
                    own_bits: np.ndarray) -> np.ndarray:
    """Filled-box masks reachable from the empty column (forward closure over legal_bits)."""
    n = 1 << nb
    full = n - 1
    reach = np.zeros(n, np.bool_)
    reach[0] = True
    for m in range(n):  # m | bit > m: ascending order visits every predecessor first
        if not reach[m]:
            continue
        open_ = full & ~m
        bits = legal_bits(open_, fill, False, 0, lower_bits)
        jk = joker_now(joker_code, has_y, (m & ybit) != 0, True)
        if jk and joker_code == FORCED:
            for ob in own_bits:
                bits |= legal_bits(open_, fill, True, ob, lower_bits)
        while bits:
            low = bits & -bits
            reach[m | low] = True
            bits ^= low
    return reach


@njit(cache=True, inline="always")
def _batch_end(j: int, end: int, step: int, n_lanes: np.ndarray, cap: int) -> int:
    """Where the batch that starts at order[j] ends: the masks j, j + step, ... whose lanes fit in
    `cap` together (at least one)."""
    tot = 0
    while j < end and (tot == 0 or tot + n_lanes[j] <= cap):
        tot += n_lanes[j]
        j += step
    return j


@njit(cache=True, inline="always")
def _batch_rows(order: np.ndarray, j0: int, j1: int, step: int, lay: Any, lrow: np.ndarray) -> int:
    """lrow[lane] = the table row of every lane of the masks order[j0:j1:step], side by side; returns
    the number of lanes."""
    n = 0
    for j in range(j0, j1, step):
        m = order[j]
        nl = lay.ucount[lay.sub_of[m]] * (lay.nyt if (m & lay.ybit) != 0 else 1)
        for lane in range(nl):
            lrow[n + lane] = lay.midx[m]
        n += nl
    return n


@njit(cache=True, inline="always")
def _batch_final_values(order: np.ndarray, j0: int, j1: int, step: int, lay: Any, ra: Any, W: np.ndarray,
                        W2: np.ndarray, work: Any, rolls: np.ndarray, first: bool) -> None:
    """The final-roll values of every lane of the masks order[j0:j1:step], side by side, into the
    full-keep rows of work.E, reading W and W2. Without second moments or passes, every lane of the
    batch at once, roll by roll (within_turn.lanes_next, lanes_best, then lanes_fixups for jokers and
    extra bonuses: Maxi Yatzy's build slices 1.15-1.25x as fast as mask by mask); a mask whose rolls mostly score as
    jokers, and every mask with moments or passes, mask by mask (within_turn.lane_final_values). Each
    mask's legal boxes (within_turn.mask_rolls) are found on the batch's first pass (`first`) into
    rolls[i] (its i-th mask) and read back on the others (the saved-rolls build's levels, the passes'
    iterations); a mask with rolls of other legal boxes (jokers), and every mask where passes are
    allowed (the rolls with nothing to score), finds them again: those lists are one array for every
    mask."""
    at_once = not (work.moments or work.allow_pass)
    last = 1 if at_once else 0  # (at once: every mask's next values, then the masks' own rolls)
    for rep in range(last + 1):
        off = np.int64(0)  # not a literal 0, which would compile lane_final_values a second time
        i = 0
        for j in range(j0, j1, step):
            m = order[j]
            sub = lay.sub_of[m]
            nl = lay.ucount[sub] * (lay.nyt if (m & lay.ybit) != 0 else 1)
            if (first and rep == 0) or ((rolls[i, 3] > 0 or work.allow_pass) and rep == last):
                sets = mask_rolls(m, lay, ra, work)
                rolls[i, 0] = sets[0]
                rolls[i, 1] = sets[1]
                rolls[i, 2] = 1 if sets[2] else 0
                rolls[i, 3] = sets[3]
            else:
                sets = (rolls[i, 0], rolls[i, 1], rolls[i, 2] != 0, rolls[i, 3])
            if at_once and not sets[2]:
                if rep == 0:
                    lanes_next(m, off, nl, sub, sets, lay, ra, W, work)
                elif sets[3] > 0 or ra.bonus_rolls.shape[0] > 0:
                    lanes_fixups(m, off, nl, sub, sets, lay, ra, W, work)
            elif rep == last:
                lane_final_values(m, off, nl, sub, sets, lay, ra, W, W2, work)
            off += nl
            i += 1
        if at_once and rep == 0:
            lanes_best(off, ra, work)


@njit(cache=True, inline="always")
def _batch_masks(j0: int, j1: int, step: int) -> int:
    """The number of masks order[j0:j1:step]."""
    return (j1 - j0 + step - 1) // step


@njit(cache=True, inline="always")
def _share_dead_totals(order: np.ndarray, j0: int, j1: int, step: int, lay: Any, W: np.ndarray, W2: np.ndarray,
                       moments: bool) -> None:
    """Totals that cannot reach the bonus any more share the value (W2: second moment) computed for
    the first of them, in the rows of the masks order[j0:j1:step]."""
    tp1 = lay.t + 1
    for j in range(j0, j1, step):
        m = order[j]
        sub = lay.sub_of[m]
        nd = lay.dcount[sub]
        if nd == 0:
            continue
        row = lay.midx[m]
        rep = lay.ulist[sub, 0]
        ny = lay.nyt if (m & lay.ybit) != 0 else 1
        for y in range(ny):
            v = W[row, y * tp1 + rep]
            v2 = W2[row, y * tp1 + rep] if moments else 0.0
            for i in range(nd):
                W[row, y * tp1 + lay.dlist[sub, i]] = v
                if moments:
                    W2[row, y * tp1 + lay.dlist[sub, i]] = v2



@njit(cache=True, inline="always")
def _first_roll_mean(acc: np.ndarray, E: np.ndarray, ra: Any, n: int) -> None:
    """acc[lane] = the mean over first rolls r of E[keep_of_roll[r], lane] (a turn's value from its
    rolls' values), lanes 0..n-1, summed in roll order."""
    keep_of_roll, roll_prob = ra.keep_of_roll, ra.roll_prob
    for lane in range(n):
        acc[lane] = 0.0
    for r in range(keep_of_roll.shape[0]):
        kr = keep_of_roll[r]
        p = roll_prob[r]
        for lane in range(n):
            acc[lane] += p * E[kr, lane]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _solve_batch(order: np.ndarray, j0: int, j1: int, step: int, lay: Any, ra: Any, W: np.ndarray,
                 W2: np.ndarray, work: Any) -> None:
    """Solve the masks order[j0:j1:step] together: their lanes side by side in work.E (the keep
    stages are the same for every mask), final-roll values mask by mask. Parameters as solve_chunk's."""
    moments, allow_pass = work.moments, work.allow_pass
    E, S, Q, X, acc, acc2, pacc = work.E, work.S, work.Q, work.X, work.acc, work.acc2, work.pacc
    lu, ly, lrow = work.lu, work.ly, work.lrow
    tp1 = lay.t + 1
    n = _batch_rows(order, j0, j1, step, lay, lrow)
    for lane in range(n):
        X[lane] = NEG
    rolls = np.empty((_batch_masks(j0, j1, step), 4), dtype=np.int64)
    iters = 0
    while True:
        _batch_final_values(order, j0, j1, step, lay, ra, W, W2, work, rolls, iters == 0)
        keep_stages_lanes(work, ra, n)
        _first_roll_mean(acc, E, ra, n)
        if moments:
            _first_roll_mean(acc2, S, ra, n)
        if allow_pass:
            _first_roll_mean(pacc, Q, ra, n)
        if not allow_pass:
            break
        # Newton on the pass value: X = T(X) is convex piecewise linear in X with slope pacc < 1
        done = True
        for lane in range(n):
            if X[lane] == NEG:
                X[lane] = acc[lane]
                done = False
            elif pacc[lane] < 1.0 - 1e-12:
                step_ = (acc[lane] - X[lane]) / (1.0 - pacc[lane])
                if abs(acc[lane] - X[lane]) > 1e-11 * (1.0 + abs(acc[lane])):
                    done = False
                X[lane] += step_
        iters += 1
        if done or iters > 200:
            break
    for lane in range(n):
        col = ly[lane] * tp1 + lu[lane]
        W[lrow[lane], col] = acc[lane]
        if moments:
            W2[lrow[lane], col] = acc2[lane] / (1.0 - pacc[lane]) if allow_pass and pacc[lane] < 1.0 else acc2[lane]
    _share_dead_totals(order, j0, j1, step, lay, W, W2, moments)


@njit(**KERNEL)
def solve_chunk(c: int, nch: int, order: np.ndarray, span: Any, n_lanes: np.ndarray, lay: Any, ra: Any,
                W: np.ndarray, W2: np.ndarray, work: Any) -> None:
    """Fill W (expected remaining score) and W2 (its second moment) for chunk `c` of `nch` of the masks
    order[start:end] (one popcount layer: independent of each other, all their successors already
    done): the masks order[start + c], order[start + c + nch], ...

    Parameters
    ----------
    c, nch : int
        The chunk and the number of chunks.
    order : int64[masks]
        The reachable masks by popcount.
    span : (int, int)
        (start, end): the layer's masks in `order`.
    n_lanes : int64[masks]
        Lanes of order[j].
    lay : within_turn.StateLayout
        The table's states.
    ra : tables.RuleArrays
        The rule set's arrays.
    W, W2 : float64[rows, nyt * (t + 1)]
        [mask index, y * (t + 1) + u]: written for the chunk's masks (chunks write disjoint rows, so
        the caller runs them on threads at once: the GIL is released), read for later layers'.
    work : within_turn.LaneWork
        The thread's working arrays and what is computed (moments, passes, rerolls); a chunk solves
        its masks in batches of at most its lane capacity.
    """
    lay, ra, work = borrow(lay), borrow(ra), borrow(work)  # (jit.borrow: no counts per call of a helper)
    start, end = span
    cap = work.E.shape[1]
    j = start + c
    while j < end:
        j1 = _batch_end(j, end, nch, n_lanes, cap)
        _solve_batch(order, j, j1, nch, lay, ra, W, W2, work)
        j = j1


# --------------------------------------------------------------------------- saved rolls


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _saved_batch(order: np.ndarray, j0: int, j1: int, step: int, lay: Any, ra: Any, W: np.ndarray, blocks: Any,
                 work: Any, FK: np.ndarray) -> None:
    """Solve the masks order[j0:j1:step] (one popcount layer) together for every stock of saved rolls
    they can hold. Parameters as saved_chunk's; FK [R, cap]: the final-roll values at K or more rolls
    left.

    Within a turn the values depend only on the rolls still unused, L (this turn's and the saved
    ones alike). Level L: stopping writes a box and starts the next turn with min(L, K) saved rolls
    (the final-roll values F_L read stock min(L, K) of the next layer); V_L = max(F_L, best keep over
    V_{L-1}); V_0 = F_0. A turn begun with s saved rolls has s + 3 rolls, so its value is the mean
    over first rolls of V_{s+2}: levels 0..S + 2 for the stocks 0..S the masks can hold (S =
    tops[filled boxes]), of which levels K.. share F_K."""
    E, acc, lrow = work.E, work.acc, work.lrow
    keep_of_roll, add_die = ra.keep_of_roll, ra.add_die
    R = ra.natT.shape[1]
    first_full = add_die.shape[0] - R
    sbase, tops = blocks
    K = sbase.shape[0] - 2
    n = _batch_rows(order, j0, j1, step, lay, lrow)
    filled = 0
    m0 = order[j0]
    while m0:
        m0 &= m0 - 1
        filled += 1
    top = tops[filled]
    W2 = np.zeros((1, 1))
    rolls = np.empty((_batch_masks(j0, j1, step), 4), dtype=np.int64)
    for level in range(top + 3):
        if level > 0:
            expect_lanes(E, first_full, add_die, n)  # the keeps' values from V_{level-1}
        if level <= K:  # F_level into the full-keep rows
            _batch_final_values(order, j0, j1, step, lay, ra, W[sbase[level]:sbase[level + 1]], W2, work, rolls,
                                level == 0)
            if level == K:
                for r in range(R):
                    kr = keep_of_roll[r]
                    for lane in range(n):
                        FK[r, lane] = E[kr, lane]
        else:
            for r in range(R):
                kr = keep_of_roll[r]
                for lane in range(n):
                    E[kr, lane] = FK[r, lane]
        if level > 0:
            best_roll_max(E, work.T, work.subs, work.starts, n)
        if level >= 2:
            _first_roll_mean(acc, E, ra, n)
            at = sbase[level - 2]
            off = 0
            for j in range(j0, j1, step):  # each mask's lanes are its row's cells, in order
                m = order[j]
                nl = lay.ucount[lay.sub_of[m]] * (lay.nyt if (m & lay.ybit) != 0 else 1)
                row = at + lay.midx[m]
                for k in range(nl):
                    W[row + k] = acc[off + k]
                off += nl


@njit(**KERNEL)
def saved_chunk(c: int, nch: int, order: np.ndarray, span: Any, n_lanes: np.ndarray, lay: Any, ra: Any,
                W: np.ndarray, blocks: Any, work: Any) -> None:
    """solve_chunk with saved rolls: fill the compact table W (expected remaining score with s rolls
    saved, s = 0..K) for chunk `c` of `nch` of one popcount layer's masks.

    Parameters
    ----------
    c, nch, order, span, n_lanes, ra : as solve_chunk's.
    lay : within_turn.StateLayout
        The table's states, compact: midx[mask] the row's first cell within a stock's block, ulane
        the lanes of the row by upper set (within_turn.table_cell).
    W : float32[cells]
        The table, a block per stock s = 0..K (W[sbase[s]:sbase[s + 1]], the rows that can hold s
        saved rolls: most filled boxes first, so each block is a prefix of the rows): written for the
        chunk's masks, read for the next layer's (the table file mapped in memory).
    blocks : (int64[K + 2], int64[boxes + 1])
        Where each stock's block starts (and the last ends); the most rolls a sheet with p boxes
        filled can hold saved (rules.engine.most_saved), by p.
    work : (within_turn.LaneWork, float64[R, cap])
        The thread's working arrays (moments and passes off) and FK, its final-roll values at K or
        more rolls left.
    """
    lay, ra, work = borrow(lay), borrow(ra), borrow(work)  # (jit.borrow: no counts per call of a helper)
    work, FK = work
    start, end = span
    cap = work.E.shape[1]
    j = start + c
    while j < end:
        j1 = _batch_end(j, end, nch, n_lanes, cap)
        _saved_batch(order, j, j1, nch, lay, ra, W, blocks, work, FK)
        j = j1
