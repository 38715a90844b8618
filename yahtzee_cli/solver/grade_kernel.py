"""Grading at simulation speed: the values of logged decisions from an exact table, compiled.

`analyze` grades each decision of a game against optimal play. strategy.turn.Turn values a turn in
pure Python; this kernel computes the very same numbers for every turn of a game in one call: per
turn the final-roll values and the keep values with j rolls left (within_turn's kernels with Turn's
arithmetic, in the same order, so values agree to the last bit and ties break alike), then per
decision the value of the move made and the best move. play.analyze decides when it applies (an
exact-table source, no risk grading) and turns the numbers into Decisions.

`grade_turns(cols, stages, asks, ra, fut, saved_value, vals, picks, work)`:
  cols    [T, C, 4] per turn and column: filled mask, upper total, Yahtzee box (-1 open, 0 zero,
          1 full points), points written without the upper bonus
  stages  [T] the most rolls left any decision of the turn asks about
  asks    [D, 5] per decision: turn, kind (ASK_*), key of the roll (base-7 face counts), rolls left,
          key of the dice kept (ASK_KEEP) or column * boxes + box written (-1 a pass; ASK_BOX)
  ra      the rule set's arrays (tables.rule_arrays)
  fut     the table as a value to go (within_turn.Future, FUTURE_TABLE: its values W and its mask ->
          row index midx, -1 a mask the table does not hold)
  work    (within_turn.PositionWork, the memo): Grader.scratch
Positions recur across games (every first turn starts from the empty sheet; last turns often leave
the same box open): on a one-column sheet whose boxes add up, a turn's final-roll and keep values
depend only on the filled boxes, the upper total up to the bonus threshold and the Yahtzee box, so
those of positions near either end of a game (MEMO_EDGE) are kept in the Grader's memo (MEMO_SLOTS)
and copied back when the position comes again: the same numbers, computed once per run.
Written: vals [D, 2] (value of the move made, of the best move: expected final grand totals) and
picks [D, 6] (the best keep's index, or the best column, box, score, bonus, -1 box for a pass; then
the score and bonus the move made wrote). Returns 0, or 1 when a decision cannot be graded here (a
box the rules forbid, a sheet the table does not hold): Turn then says why.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..strategy.turn import PASS_COST
from .jit import KERNEL, borrow, njit
from .within_turn import (
    FUTURE_TABLE,
    TURN_NEG,
    Future,
    PositionWork,
    expect_lanes,
    keep_choice,
    keep_values,
    position_work,
    turn_final_values,
    turn_options,
    turn_position,
)

ASK_KEEP = 0  # dice kept for a reroll, or a stop (the keep of every die)
ASK_AGAIN = 1  # every die kept, yet rolled again: the same dice with one roll fewer
ASK_BOX = 2  # the box written after the last roll, or a pass

MEMO_EDGE = 3  # positions with at most this many boxes filled, or open, are remembered: they recur across games
MEMO_SLOTS = 4096  # positions remembered per grader (9 KiB each for five dice)


@njit(cache=True, inline="always")
def _memo_find(cols_t: Any, stage: int, ra: Any, t: int, memo: Any) -> tuple[int, int, int]:
    """(key, hash slot, memo slot) of a position the memo keeps (one column whose boxes add up, near
    either end of a game: the values depend only on the filled boxes, the upper total up to the bonus
    threshold and the Yahtzee box): key -1 a position it does not keep, memo slot -1 one not seen yet.

    Parameters
    ----------
    cols_t : int64[1, 4]
        The position (grade_turns' cols of the turn).
    stage : int
        The most rolls left the turn asks about.
    ra : tables.RuleArrays
        The rule set's arrays.
    t : int
        The table's upper-total cap.
    memo : tuple
        Grader's memo (keys, slot of each key, final-roll values, keep values, stages, [count]).
    """
    memo_keys, memo_slot, memo_final, memo_ej = memo[0], memo[1], memo[2], memo[3]
    if memo_final.shape[0] == 0 or ra.n_cols != 1 or not ra.add_columns or stage > memo_ej.shape[1]:
        return -1, -1, -1
    mask0 = cols_t[0, 0]
    filled = 0
    for b in range(ra.nb):
        filled += (mask0 >> b) & 1
    if filled > MEMO_EDGE and ra.nb - filled > MEMO_EDGE:
        return -1, -1, -1
    u0 = cols_t[0, 1]
    key = (mask0 * (t + 1) + (u0 if u0 < t else t)) * 3 + cols_t[0, 2] + 1
    memo_mask = memo_keys.shape[0] - 1
    h = (key * 2654435761) & memo_mask
    while memo_keys[h] >= 0 and memo_keys[h] != key:
        h = (h + 1) & memo_mask
    return key, h, memo_slot[h] if memo_keys[h] == key else -1


@njit(cache=True, inline="always")
def _best_keep(r: int, j: int, base: float, stop: float, Ej: Any, Eb: Any, order: Any, nsub: Any) -> tuple[float, int]:
    """Turn.evaluate's best keep of roll r with j rolls left: (its value, the keep; -1 to stop), by
    keep_choice over Turn's order of the roll's keeps (tables.most_dice_subkeeps: the largest value,
    then the most dice kept, then the first in itertools.product order; stopping wins ties), on the
    values as Turn compares them: the position's value added first.

    Parameters
    ----------
    r, j : int
        The roll and the rolls left.
    base, stop : float
        The position's value; the value of stopping (base added).
    Ej : float64[K]
        The keep values with j rolls left (relative to the position's).
    Eb : float64[K]
        Scratch: base + Ej of the roll's keeps.
    order, nsub : int64[R, 2**n], int64[R]
        RuleArrays.subkeeps_most and nsub.
    """
    for i in range(nsub[r]):
        k = order[r, i]
        Eb[k] = base + Ej[k]
    d = keep_choice(r, Eb, stop, order, nsub)
    return (stop, d) if d < 0 else (Eb[d], d)


@njit(**KERNEL)
def grade_turns(cols: Any, stages: Any, asks: Any, ra: Any, fut: Any, saved_value: float, vals: Any, picks: Any,
                work: Any) -> int:
    """Value every decision of `asks` (see the module docstring; work: Grader.scratch's)."""
    ra, fut, work = borrow(ra), borrow(fut), borrow(work)  # (jit.borrow: no counts per call of a helper)
    nb = ra.nb
    # scratch from the caller: every numpy allocation here would be one more function to compile
    pw, memo = work
    # (arrays out of the bundles once, not in the loop: each taken out costs a reference count)
    final, EJ, E, Eb, opt_v, opt_i = pw.final, pw.EJ, pw.E, pw.Eb, pw.opt_v, pw.opt_i
    order, nsub = ra.subkeeps_most, ra.nsub
    keep_index, keep_of_roll, roll_of_keep, add_die, drop_die = (ra.keep_index, ra.keep_of_roll, ra.roll_of_keep,
                                                                   ra.add_die, ra.drop_die)
    memo_keys, memo_slot, memo_final, memo_ej, memo_stages, memo_count = memo
    R, K = final.shape[0], EJ.shape[1]
    i = 0  # the next decision (grouped by turn, in order)
    for tt in range(cols.shape[0]):
        cols_t = cols[tt]
        status, base = turn_position(cols_t, ra, fut, pw)
        if status:
            return 1
        # ---- a position seen before: its values again
        key, h, slot = _memo_find(cols_t, stages[tt], ra, fut.t, memo)
        if slot >= 0 and memo_stages[slot] >= stages[tt]:
            for r in range(R):
                final[r] = memo_final[slot, r]
            for j in range(stages[tt]):
                for k in range(K):
                    EJ[j, k] = memo_ej[slot, j, k]
        else:
            if turn_final_values(cols_t, base, ra, fut, pw):
                return 1
            keep_values(pw.stops, EJ, E, stages[tt], saved_value, keep_of_roll, add_die, drop_die)
            if key >= 0 and (slot >= 0 or memo_count[0] < memo_final.shape[0]):
                if slot < 0:
                    slot = memo_count[0]
                    memo_count[0] += 1
                    memo_keys[h] = key
                    memo_slot[h] = slot
                for r in range(R):
                    memo_final[slot, r] = final[r]
                for j in range(stages[tt]):
                    for k in range(K):
                        memo_ej[slot, j, k] = EJ[j, k]
                memo_stages[slot] = stages[tt]
        # ---- the turn's decisions
        while i < asks.shape[0] and asks[i, 0] == tt:
            kind, rkey, j, made = asks[i, 1], asks[i, 2], asks[i, 3], asks[i, 4]
            r = roll_of_keep[keep_index[rkey]]
            if kind != ASK_BOX:
                stop = base + (final[r] + saved_value * j)
                bv, bk = _best_keep(r, j, base, stop, EJ[j - 1], Eb, order, nsub)
                picks[i, 0] = bk if bk >= 0 else keep_of_roll[r]
                vals[i, 1] = bv
                if kind == ASK_KEEP:
                    km = keep_index[made]
                    vals[i, 0] = stop if km == keep_of_roll[r] else base + EJ[j - 1, km]
                elif j > 1:
                    stop1 = base + (final[r] + saved_value * (j - 1))
                    vals[i, 0] = _best_keep(r, j - 1, base, stop1, EJ[j - 2], Eb, order, nsub)[0]
                else:
                    vals[i, 0] = base + final[r]
                i += 1
                continue
            # the box written (Turn.evaluate with no rolls left): options by column then box, a pass last
            best = TURN_NEG
            vals[i, 0] = np.nan
            n_opt, any_score = turn_options(r, cols_t, base, ra, fut, pw)
            if n_opt < 0:
                return 1
            for o in range(n_opt):
                v = base + opt_v[o]
                c, b, sc, bon = opt_i[o, 0], opt_i[o, 1], opt_i[o, 2], opt_i[o, 3]
                if v > best:
                    best = v
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = c, b, sc, bon
                if made == c * nb + b:
                    vals[i, 0] = v
                    picks[i, 4], picks[i, 5] = sc, bon
            if not ra.must_zero and not any_score:
                v = base - PASS_COST
                if v > best:
                    best = v
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = 0, -1, 0, 0
                if made < 0:
                    vals[i, 0] = v
                    picks[i, 4], picks[i, 5] = 0, 0
            if vals[i, 0] != vals[i, 0]:
                return 1  # the box made is not a legal choice (or a pass where none is allowed)
            vals[i, 1] = best
            i += 1
    return 0



# --------------------------------------------------------------------------- win chances
#
# analyze's win chances (play.win_costs): at each decision of a game of two or more, every option's
# chance of first place when the player plays on by the same optimal policy (Turn's choices, ties
# alike) against the opponents' final-score pmfs from where they stand. A final total s is worth
# u(s), the expected share of first place against them; a turn-start state's worth is its pmf of
# the points to come (solver.state_pmfs, one file for every state) against u, so a turn needs only
# the states its boxes lead to, and the turn itself is the policy's, valued in one pass as the
# grader values it: the roll's box, then the keeps stage by stage. One call grades a whole game.


class PmfArrays(NamedTuple):
    """solver.state_pmfs.StatePmfs as grade_wins reads it: state i (key[i] = mask * width + y * (t + 1)
    + eff[mask * (t + 1) + min(u, t)], sorted) has the pmf data[off[i]: off[i] + length[i]] of the
    points to come from lo[i] on."""

    key: Any
    lo: Any
    off: Any
    length: Any
    data: Any
    eff: Any
    width: int
    t: int


class WinWork(NamedTuple):
    """grade_wins' scratch (win_work). S totals, P players, R rolls, K keeps, J rolls left at most,
    B boxes, M scores.

    u [S], coef [P, S]   the share of first place by final total, and its terms by opponents tied
    W0 [R]               the final roll's win chance, the policy's box written
    WR [J, R], WK [J, K] a roll's win chance with j rolls left (the policy's keep), a keep's with j
    E1 [K, 1]            scratch of the keep stages
    cval, cstamp [2, B, M]  a box's win chance by (bonus earned, box, score), valid in the turn whose
                            stamp it carries
    stamp [1]            the turn's stamp
    """

    u: Any
    coef: Any
    W0: Any
    WR: Any
    WK: Any
    E1: Any
    cval: Any
    cstamp: Any
    stamp: Any


def win_work(ra: Any, totals: int, players: int, stages: int) -> WinWork:
    """A WinWork for `ra`'s rule set: final totals below `totals`, `players` in the game."""
    R, K, B = ra.natT.shape[1], ra.add_die.shape[0], ra.nb
    M = int(max(ra.natural.max(initial=0), ra.joker.max(initial=0))) + 1
    J = max(stages, 1)
    return WinWork(np.empty(totals), np.empty((players, totals)), np.empty(R), np.empty((J, R)), np.empty((J, K)),
                   np.empty((K, 1)), np.empty((2, B, M)), np.zeros((2, B, M), np.int64), np.zeros(1, np.int64))


WIN_NO_STATE = 2  # grade_wins: a state the pmfs do not hold
WIN_SCRATCH = 3  # grade_wins: a total beyond the scratch


@njit(cache=True, inline="always")
def _pmf_row(sp: Any, mask: int, y: int, u: int) -> int:
    """The row of state (mask, Yahtzee lane y, upper total u) in sp, or -1 (binary search of its key)."""
    t = sp.t
    k = mask * sp.width + y * (t + 1) + sp.eff[mask * (t + 1) + (u if u < t else t)]
    lo, hi = 0, sp.key.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if sp.key[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < sp.key.shape[0] and sp.key[lo] == k else -1


@njit(cache=True, inline="always")
def _pmf_chance(sp: Any, row: int, shift: int, u: Any, hi: int) -> float:
    """E[u(shift + points to come)] from state `row` (its pmf renormalised: float32 storage), u taken
    as 1 above total hi (above every opponent's best)."""
    o, n, s0 = sp.off[row], sp.length[row], shift + sp.lo[row]
    data = sp.data
    acc = 0.0
    tot = 0.0
    m = hi - s0 + 1
    m = 0 if m < 0 else (n if m > n else m)
    for i in range(m):
        p = float(data[o + i])
        tot += p
        acc += p * u[s0 + i]
    for i in range(m, n):  # alone on top
        p = float(data[o + i])
        tot += p
        acc += p
    return acc / tot if tot > 0.0 else 0.0


@njit(cache=True, inline="always")
def _share(opps_t: Any, sp: Any, nyt: int, u: Any, coef: Any) -> int:
    """u[s] for s = 0..hi: a final total's expected share of first place against the opponents of
    opps_t (per opponent: filled mask, upper total, Yahtzee box, points written), each with the pmf
    of their state (alone on top 1, tied with k others 1 / (k + 1), below someone 0; as
    solver.winning.share_of_first). Returns hi, or -WIN_NO_STATE, -WIN_SCRATCH."""
    n_opp = opps_t.shape[0]
    hi = 0
    for j in range(n_opp):
        row = _pmf_row(sp, opps_t[j, 0], 1 if opps_t[j, 2] == 1 and nyt == 2 else 0, opps_t[j, 1])
        if row < 0:
            return -WIN_NO_STATE
        top = opps_t[j, 3] + sp.lo[row] + sp.length[row] - 1
        hi = top if top > hi else hi
    if hi >= u.shape[0]:
        return -WIN_SCRATCH
    for s in range(hi + 1):
        coef[0, s] = 1.0
        for k in range(1, n_opp + 1):
            coef[k, s] = 0.0
    data = sp.data
    for j in range(n_opp):  # coef[k, s]: P(exactly k of the opponents so far score s, none more)
        row = _pmf_row(sp, opps_t[j, 0], 1 if opps_t[j, 2] == 1 and nyt == 2 else 0, opps_t[j, 1])
        o, n, s0 = sp.off[row], sp.length[row], opps_t[j, 3] + sp.lo[row]
        tot = 0.0
        for i in range(n):
            tot += float(data[o + i])
        below = 0.0
        for s in range(hi + 1):
            i = s - s0
            eq = float(data[o + i]) / tot if i >= 0 and i < n else 0.0
            for k in range(j + 1, 0, -1):
                coef[k, s] = coef[k, s] * below + coef[k - 1, s] * eq
            coef[0, s] *= below
            below += eq
    for s in range(hi + 1):
        acc = 0.0
        for k in range(n_opp + 1):
            acc += coef[k, s] / (k + 1)
        u[s] = acc
    return hi


@njit(cache=True, inline="always")
def _box_chance(b: int, sc: int, bon: int, state: Any, sp: Any, ra: Any, nyt: int, u: Any, hi: int, ww: Any) -> float:
    """The win chance of writing sc (+ bon) in box b from `state` (filled mask, Yahtzee lane, upper
    total, points written, the turn's stamp), remembered for the turn; -1 when the pmfs lack the state."""
    mask, y, up, raw, st = state
    slot = 1 if bon > 0 else 0
    if ww.cstamp[slot, b, sc] == st:
        return float(ww.cval[slot, b, sc])
    u2 = up + sc if ra.is_upper[b] else up
    lane = y
    if b == ra.ybox:
        lane = 1 if sc == ra.ypoints and nyt == 2 else 0
    row = _pmf_row(sp, mask | (1 << b), lane, u2)
    if row < 0:
        return -1.0
    v = _pmf_chance(sp, row, raw + sc + bon, u, hi)
    ww.cstamp[slot, b, sc] = st
    ww.cval[slot, b, sc] = v
    return v


@njit(**KERNEL)
def grade_wins(cols: Any, opps: Any, stages: Any, asks: Any, ra: Any, fut: Any, sp: Any, work: Any, vals: Any,
               picks: Any) -> int:
    """Every decision's win chances in a game of two or more on a one-column sheet.

    Parameters
    ----------
    cols : int64[T, 1, 4]
        Per turn, the player's column (grade_turns' cols).
    opps : int64[T, P - 1, 4]
        Per turn, each opponent's column as it stands then (the same four numbers).
    stages, asks
        As grade_turns (one ask per decision, grouped by turn, in order).
    ra, fut
        The rule set's arrays and the exact table (Grader's): the policy, Turn's.
    sp : PmfArrays
        Every turn-start state's pmf of the points to come under that policy.
    work : (PositionWork, WinWork)
        Scratch.
    vals : float64[D, 3]
        Written: the win chance after the move made, the best option's, and that option's value in
        points (the expected final total).
    picks : int64[D, 4]
        Written: the best option for winning, as grade_turns' picks (a keep's index; or column, box,
        score, bonus, box -1 a pass); ties go to the better option in points, then Turn's order.

    Returns 0, 1 (a position the table lacks), WIN_NO_STATE or WIN_SCRATCH.
    """
    ra, fut, sp, work = borrow(ra), borrow(fut), borrow(sp), borrow(work)
    pw, ww = work
    final, EJ, E, Eb, opt_v, opt_i = pw.final, pw.EJ, pw.E, pw.Eb, pw.opt_v, pw.opt_i
    u, coef, W0, WR, WK, E1 = ww.u, ww.coef, ww.W0, ww.WR, ww.WK, ww.E1
    order, nsub = ra.subkeeps_most, ra.nsub
    keep_index, keep_of_roll, roll_of_keep, add_die, drop_die = (ra.keep_index, ra.keep_of_roll, ra.roll_of_keep,
                                                                   ra.add_die, ra.drop_die)
    nyt = fut.nyt
    R, K = final.shape[0], EJ.shape[1]
    first_full = K - R
    i = 0
    for tt in range(cols.shape[0]):
        cols_t = cols[tt]
        status, base = turn_position(cols_t, ra, fut, pw)
        if status:
            return 1
        hi = _share(opps[tt], sp, nyt, u, coef)
        if hi < 0:
            return -hi
        ww.stamp[0] += 1
        mask, up, ys, raw = cols_t[0, 0], cols_t[0, 1], cols_t[0, 2], cols_t[0, 3]
        y = 1 if ys == 1 and nyt == 2 else 0
        state = (mask, y, up, raw, ww.stamp[0])
        stay = -1.0  # a pass (rules that allow one): the same state next turn
        if not ra.must_zero:
            row = _pmf_row(sp, mask, y, up)
            if row < 0:
                return WIN_NO_STATE
            stay = _pmf_chance(sp, row, raw, u, hi)
        # ---- the final roll: the policy's box (Turn's: the first best) and its win chance
        for r in range(R):
            n_opt, any_score = turn_options(r, cols_t, base, ra, fut, pw)
            if n_opt < 0:
                return 1
            best = TURN_NEG
            bo = -1
            for o in range(n_opt):
                if opt_v[o] > best:
                    best = opt_v[o]
                    bo = o
            if not ra.must_zero and not any_score and -PASS_COST > best:
                best = -PASS_COST
                bo = -1
            final[r] = best
            if bo < 0:
                W0[r] = stay
            else:
                w = _box_chance(opt_i[bo, 1], opt_i[bo, 2], opt_i[bo, 3], state, sp, ra, nyt, u, hi, ww)
                if w < 0.0:
                    return WIN_NO_STATE
                W0[r] = w
        # ---- the keeps, stage by stage: the policy's keep of each roll (its values first, as Turn's)
        J = stages[tt]
        if J > 0:
            keep_values(pw.stops, EJ, E, J, 0.0, keep_of_roll, add_die, drop_die)
        for r in range(R):
            WR[0, r] = W0[r]
        for j in range(1, J + 1):
            for r in range(R):
                E1[keep_of_roll[r], 0] = WR[j - 1, r]
            expect_lanes(E1, first_full, add_die, 1)
            for k in range(K):
                WK[j - 1, k] = E1[k, 0]
            if j < J:
                for r in range(R):
                    d = _best_keep(r, j, base, base + final[r], EJ[j - 1], Eb, order, nsub)[1]
                    WR[j, r] = W0[r] if d < 0 else WK[j - 1, d]
        # ---- the turn's decisions
        while i < asks.shape[0] and asks[i, 0] == tt:
            kind, rkey, j, made = asks[i, 1], asks[i, 2], asks[i, 3], asks[i, 4]
            r = roll_of_keep[keep_index[rkey]]
            if kind != ASK_BOX:
                # stopping first (it keeps the most dice), then the proper keeps in Turn's order
                ks = keep_of_roll[r]
                bw, bv, bk = W0[r], base + final[r], ks
                for o in range(nsub[r]):
                    k = order[r, o]
                    w, v = WK[j - 1, k], base + EJ[j - 1, k]
                    if w > bw or (w == bw and v > bv):
                        bw, bv, bk = w, v, k
                vals[i, 1], vals[i, 2] = bw, bv
                picks[i, 0] = bk
                if kind == ASK_KEEP:
                    km = keep_index[made]
                    vals[i, 0] = W0[r] if km == ks else WK[j - 1, km]
                else:  # every die kept and rolled again: the policy's move with one roll fewer
                    vals[i, 0] = WR[j - 1, r]
                i += 1
                continue
            n_opt, any_score = turn_options(r, cols_t, base, ra, fut, pw)
            if n_opt < 0:
                return 1
            bw, bv = -1.0, TURN_NEG
            vals[i, 0] = np.nan
            for o in range(n_opt):
                c, b, sc, bon = opt_i[o, 0], opt_i[o, 1], opt_i[o, 2], opt_i[o, 3]
                w = _box_chance(b, sc, bon, state, sp, ra, nyt, u, hi, ww)
                if w < 0.0:
                    return WIN_NO_STATE
                if w > bw or (w == bw and opt_v[o] > bv):
                    bw, bv = w, opt_v[o]
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = c, b, sc, bon
                if made == c * ra.nb + b:
                    vals[i, 0] = w
            if not ra.must_zero and not any_score:
                if stay > bw or (stay == bw and -PASS_COST > bv):
                    bw, bv = stay, -PASS_COST
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = 0, -1, 0, 0
                if made < 0:
                    vals[i, 0] = stay
            if vals[i, 0] != vals[i, 0]:
                return 1  # the box made is not a legal choice
            vals[i, 1], vals[i, 2] = bw, base + bv
            i += 1
    return 0


def _load_lean(dispatcher: Any) -> None:
    """Load `dispatcher`'s machine code from numba's cache without refreshing numba's typing and target
    contexts first (numba does so before every cache load: it imports and registers every typing and
    lowering module numba has, about 0.2 s of a short run, which only a compile needs; a compile still
    refreshes them itself). The runtime (NRT) is initialised, as refresh would: the kernel's array
    arguments need it. On a numba without these internals, numba's own load is left as it is."""
    cache: Any = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "_load_overload", None)
    guard = getattr(cache, "_guard_against_spurious_io_errors", None)
    try:
        from numba.core import runtime
    except ImportError:  # pragma: no cover - another numba layout
        return
    rtsys: Any = getattr(runtime, "rtsys", None)
    if load is None or guard is None or not callable(getattr(rtsys, "initialize", None)):
        return  # pragma: no cover - another numba layout

    def load_overload(sig: Any, target_context: Any) -> Any:
        rtsys.initialize(target_context)
        with guard():
            return load(sig, target_context)
        return None  # pragma: no cover - an I/O error the guard swallowed: numba compiles then

    cache.load_overload = load_overload


_load_lean(grade_turns)


class Grader:
    """One rule set's arrays for grade_turns, built once (the rule set's arrays, the table as a value
    to go, the memo of positions)."""

    def __init__(self, rules: Any, W: Any, masks: Any, t: int, nyt: int, saved_value: float, scale: float = 1.0,
                 levels: Any = ()) -> None:
        """scale, levels: a multi-column sheet's weight of its column table and level by open boxes
        (strategy.sources.TableSource), applied with the same arithmetic as there."""
        from ..rules.engine import rolls_allowed
        from .exact import _read_only
        from .tables import rule_arrays

        s = rules.settings
        self.ra = ra = rule_arrays(rules, nyt)
        nb = ra.nb
        masks_a = np.asarray(masks, dtype=np.int64)
        midx = np.full(1 << nb, -1, dtype=np.int64)
        midx[masks_a] = np.arange(len(masks_a), dtype=np.int64)
        W_a = np.asarray(W, dtype=np.float64).reshape(len(masks_a), nyt * (t + 1))
        if scale != 1.0:
            W_a = scale * W_a
        none = np.zeros((1, 1))
        self.fut = Future(FUTURE_TABLE, t, nyt, *_read_only(W_a, midx, none, none, np.zeros(1),
                                                             np.zeros(1, np.int64)))
        self.nb = nb
        self.n_cols = s.columns
        self.levels = np.asarray(levels, dtype=np.float64) if len(levels) else None
        self.saved_value = float(saved_value)
        self._scratch: dict[int, tuple[PositionWork, tuple[Any, ...]]] = {}
        # remembered positions (grade_turns): an open-addressing table of keys -> slot, each slot a
        # position's final-roll values and keep values (np.empty: memory is touched only as slots fill)
        n_r, n_k = ra.natT.shape[1], ra.add_die.shape[0]
        slots = MEMO_SLOTS if s.columns == 1 and s.add_columns else 0
        self._memo = (np.full(2 * max(slots, 1), -1, np.int64), np.zeros(2 * max(slots, 1), np.int64),
                      np.empty((slots, n_r)), np.empty((slots, max(rolls_allowed(rules, 0) - 1, 0), n_k)),
                      np.zeros(slots, np.int64), np.zeros(1, np.int64))

    def scratch(self, most: int) -> tuple[PositionWork, tuple[Any, ...]]:
        """grade_turns' working arrays (most: rolls-left stages of the longest turn) and the memo, made
        once per size (a Grader grades one game at a time: an Analyzer, and so its Graders, belongs to
        one thread)."""
        got = self._scratch.get(most)
        if got is None:
            got = self._scratch[most] = (position_work(self.ra, most), self._memo)
        return got

    def _run(self, cols_a: Any, stages: list[int], asks_a: Any) -> tuple[Any, Any] | None:
        """grade_turns on the arrays: (vals, picks), or None when some decision cannot be graded here."""
        d = asks_a.shape[0]
        vals = np.empty((d, 2))
        picks = np.zeros((d, 6), dtype=np.int64)
        status = grade_turns(cols_a, np.array(stages, dtype=np.int64), asks_a, self.ra, self.fut, self.saved_value,
                             vals, picks, self.scratch(max([1, *stages])))
        return None if status else (vals, picks)

    def grade_flat(self, cols: list[int], stages: list[int], asks: list[int]) -> tuple[Any, Any] | None:
        """grade() of the same numbers laid flat (cols: per turn, per column, its 4 numbers; asks: per
        decision, its 5), as play.analyze's fast path builds them: one numpy array from each list."""
        n_cols = self.n_cols
        asks_a = np.array(asks, dtype=np.int64).reshape(-1, 5)
        got = self._run(np.array(cols, dtype=np.int64).reshape(-1, n_cols, 4), stages, asks_a)
        if got is None:
            return None
        vals, picks = got
        if self.levels is not None:  # Turn adds its level last, to the value of every option
            masks = cols[::4]
            open_boxes = np.array([n_cols * self.nb - sum(bin(m).count("1") for m in masks[i:i + n_cols])
                                   for i in range(0, len(masks), n_cols)], dtype=np.int64)
            vals += self.levels[open_boxes][asks_a[:, 0]][:, None]
        return _checked(vals, picks)

    def grade(self, cols: list[list[tuple[int, int, int, int]]], stages: list[int],
              asks: list[tuple[int, int, int, int, int]]) -> tuple[Any, Any] | None:
        """(vals, picks) of grade_turns as lists of rows, or None when some decision cannot be graded here."""
        asks_a = np.array(asks, dtype=np.int64).reshape(len(asks), 5)
        got = self._run(np.array(cols, dtype=np.int64).reshape(len(cols), self.n_cols, 4), stages, asks_a)
        if got is None:
            return None
        vals, picks = got
        if self.levels is not None:  # Turn adds its level last, to the value of every option
            nb = self.nb
            open_boxes = np.array([sum(nb - bin(c[0]).count("1") for c in row) for row in cols], dtype=np.int64)
            vals += self.levels[open_boxes][asks_a[:, 0]][:, None]
        return _checked(vals, picks)


class WinGrader:
    """grade_wins for one rule set: a Grader's arrays and table (its policy), and every turn-start
    state's pmf of the points to come under it (solver.state_pmfs)."""

    def __init__(self, grader: Grader, pmfs: Any) -> None:
        ra = grader.ra
        space = pmfs.space
        if (grader.n_cols != 1 or grader.levels is not None or float(ra.mult[0]) != 1.0
                or (space.t, space.nyt) != (grader.fut.t, grader.fut.nyt)):
            raise ValueError("win chances are graded on one-column sheets with the table's own states")
        self.grader = grader
        self.sp = PmfArrays(pmfs.key, pmfs.lo, pmfs.off, pmfs.length, pmfs.data, pmfs.eff, space.width, space.t)
        # every final total: the most points a column can hold written, and the most still to come
        most = sum(max(int(ra.natural[:, b].max()), int(ra.joker[:, b].max())) for b in range(ra.nb))
        self.totals = most + int(ra.extra) * ra.nb + int((pmfs.lo + pmfs.length).max(initial=1))
        self._work: dict[tuple[int, int], tuple[PositionWork, WinWork]] = {}

    def grade(self, cols: list[int], opps: list[int], players: int, stages: list[int],
              asks: Any) -> tuple[Any, Any] | None:
        """(vals, picks) of grade_wins (arrays) for a game of `players` (cols, opps laid flat: per
        turn, the player's 4 numbers, then each opponent's; asks: grade_turns'), or None when some
        decision cannot be graded here."""
        most = max([1, *stages])
        work = self._work.get((most, players))
        if work is None:
            work = self._work[(most, players)] = (position_work(self.grader.ra, most),
                                                   win_work(self.grader.ra, self.totals, players, most))
        asks_a = np.asarray(asks, dtype=np.int64).reshape(-1, 5)
        d = asks_a.shape[0]
        vals = np.empty((d, 3))
        picks = np.zeros((d, 4), dtype=np.int64)
        status = grade_wins(np.array(cols, dtype=np.int64).reshape(-1, 1, 4),
                            np.array(opps, dtype=np.int64).reshape(-1, players - 1, 4),
                            np.array(stages, dtype=np.int64), asks_a, self.grader.ra, self.grader.fut, self.sp, work,
                            vals, picks)
        if status == WIN_SCRATCH:  # (totals bounds every final total)
            raise AssertionError("a final total beyond the win grader's bound")
        return None if status else (vals, picks)


def _checked(vals: Any, picks: Any) -> tuple[Any, Any]:
    """(vals, picks) as lists of rows, once vals are known finite (checked here, once, so the JSON of
    the grading needs no scan)."""
    if not np.isfinite(vals).all():
        raise ValueError("the strategy table gave a non-finite value: it is damaged; delete it from the cache")
    return vals.tolist(), picks.tolist()
