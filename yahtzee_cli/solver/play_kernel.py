"""The simulator's compiled play kernel, lean on purpose so that a first `simulate` compiles in seconds.

The solver's kernels (kernels.py) build tables once and are tuned for that: inline="always"
helpers. Here none: a worker is a Python thread running `play_games` (nogil) on its
own games, and the helpers compile as ordinary functions, once each. Only the play kernel and what it
calls are compiled by `simulate` (the strategy table comes shipped or cached).

`play_games(game, ints, sheet, dice_t, fut, saved_value, out, log, work, memo)` takes its inputs bundled
(built by solver.play_with; every array read-only except `out` and `log`):
  game   (seed, first_game, seat): the dice streams rng.stream(seed, first_game + g, seat)
  ints   (n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, base_roll,
          kind, t, nyt, max_turns, must_zero, saved_rolls, add_columns): the rules' numbers
          (flags as 0/1), the value-to-go's kind (FUTURE_*), threshold and y lanes, the turn cap
  sheet  (mult, natural, joker, var_nat, var_jok, nvar, du, yn, is_upper, yroll, own_bit, fill, natT,
          jokT, vnatT, vjokT, bonus_rolls): score tables (tables.score_tables) and box variants
          (solver.box_variants), the T forms box-major; the rolls that can earn the extra bonus
  dice_t (keep_index, roll_of_keep, keep_of_roll, add_die, drop_die, keeps, subkeeps, nsub): the keep
          graph (tables.dice; its drop_self as drop_die) and each roll's proper keeps in tie-break order
          (tables.proper_subkeeps)
  fut    (W, midx, h, G, yh, sub_of): the value-to-go (solver.Future)
  out    (scores, ybonus, n_turns): per game, written
  log    None, or (rolls, held, n_rolls, column, box): the games' dice and choices ([game, turn, ...]),
          written; with None the kernel compiles without the recording (numba prunes it), which a
          first run's compile is the shorter for
  work   scratch(...): the thread's working arrays
  memo   memo(...): the keep and box decisions of turn-start states seen before, shared by the threads
          (a state's are made once, by whichever thread claims it), made from the turn's values as the
          kernel makes them without a memo (one column, no saved rolls: the state key covers everything
          they depend on), so the games are the same with or without it, whatever the threads; None
          for other rules and short runs (exact._PlayInputs.wants_memo): numba then drops the memo's
          code, and that kernel compiles about 1 s faster
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..strategy.turn import PASS_COST  # the tie-break charged for a pass, the same in hints
from . import atomic, compiled, kernels
from .compiled import extra_bonus_points, roll_budget, rolls_left_over
from .jit import INNER, njit
from .kernels import NEG, _bit_index, _placement
from .rng import stream

# Called from several places in the kernel: compiled once as plain functions, not inlined at each call.
roll_legal: Any = njit(**INNER)(cast(Any, kernels.roll_legal).py_func)
roll_dice: Any = njit(**INNER)(cast(Any, compiled.roll_dice).py_func)

MAX_REROLLS = 64  # rerolls a turn's keep values are kept for (saved rolls beyond: as the 64th)
FUTURE_TABLE = 0  # F = exact table value W[midx[mask], y * (t + 1) + min(u, t)]
FUTURE_HEURISTIC = 1  # F = sum of h[open count] over open boxes + G[upper set, min(u, t)] + (yh[open count] if y)


def scratch(n_cols: int, n_rolls: int, n_keeps: int, n_slots: int, n_dice: int) -> tuple[Any, ...]:
    """play_games' working arrays for one thread (n_slots = boxes x most variants of a box)."""
    floats = (np.empty(n_rolls), np.empty(n_rolls), np.empty(n_keeps), np.empty((MAX_REROLLS, n_keeps)),
              np.empty((n_cols, n_slots)), np.empty(n_cols), np.empty(n_cols))
    ints = tuple(np.empty(k, np.int64) for k in (n_cols, n_cols, n_cols, n_dice, n_dice, 6))
    return floats, ints, (np.empty(n_rolls, np.bool_), np.empty(n_rolls, np.bool_))


MEMO_STATES = 1 << 17  # most turn-start states the memo keeps decisions for
MEMO_BYTES = 192 << 20  # most those decisions take (their pages are touched only as states come in)
MEMO_SEEN = 1 << 19  # most states it remembers having seen once
# Visits a state is valued turn by turn before all its decisions are made and kept (on the next one).
# Making them costs about one turn's work (the keep of every roll by proper_subkeeps, the box of every
# roll at once by _box_codes; box by box with _box_code it cost 15 turns), and 100,000 optimal Yahtzee
# games visit only about 115,000 states, 91% of turns on a state seen before. On 100,000 games on
# 2 cores, decisions made on a state's 2nd to 5th visit all played 34,000-38,000 games/s, on the 17th
# 26,600 (1,000,000 games: 92,000 against 51,900).
MEMO_VISITS = 2


def memo(n_rolls: int, stages: int) -> tuple[Any, ...]:
    """An empty memo for play_games, shared by every thread that plays with the same value to go:
    (hash of state keys, -1 free; per hash slot the decision row + 1 of a state that has one, FILLING
    while a thread makes them, or minus the visits counted; [rows in use, keys in use, MEMO_VISITS];
    per row and roll, the keep with j rolls left [rows, stages, n_rolls] (-1 stop) and the box code
    [rows, n_rolls] (_box_code)). The threads update it with atomic operations (solver.atomic): a row
    is published only once all its decisions are written."""
    cap = max(1, min(MEMO_STATES, MEMO_BYTES // (2 * (stages + 1) * n_rolls)))
    return (np.full(2 * MEMO_SEEN, -1, np.int64), np.zeros(2 * MEMO_SEEN, np.int64),
            np.array([0, 0, MEMO_VISITS], np.int64),
            np.empty((cap, stages, n_rolls), np.int16), np.empty((cap, n_rolls), np.int16))


def no_memo(n_rolls: int, stages: int) -> tuple[Any, ...]:
    """A memo that keeps nothing (MEMO_VISITS 0), of memo()'s types: what asks whether the kernel with
    a memo is compiled (jit.is_compiled), and plays like no memo at all."""
    return (np.full(1, -1, np.int64), np.zeros(1, np.int64), np.zeros(3, np.int64),
            np.empty((0, stages, n_rolls), np.int16), np.empty((0, n_rolls), np.int16))


FILLING = -(1 << 62)  # a memo slot whose state's decisions a thread is making


@njit(**INNER)
def _add_one(a: np.ndarray, i: int, below: int) -> int:
    """a[i] += 1 atomically if a[i] < below; the old a[i], or -1 (already at `below`)."""
    while True:
        v: int = atomic.load(a, i)
        if v >= below:
            return -1
        if atomic.cas(a, i, v, v + 1) == v:
            return v


@njit(**INNER)
def _memo_row(keys: np.ndarray, rowof: np.ndarray, count: np.ndarray, cap: int, key: int) -> tuple[int, int, bool]:
    """(slot, row, made): a state's hash slot (-1 when the memo remembers no more states), its decision
    row and whether its decisions are made (then the row holds them). A state seen count[2] times
    before gets a new row to make them in (the caller publishes it: atomic.store(rowof, slot, row + 1));
    one seen fewer times has this visit counted (row -1), as has one whose rows ran out or that
    another thread is filling. Linear probing over a hash at most half full; the threads sharing the
    memo insert keys and claim rows with compare-and-swap, so a visit counted by two threads at once
    may count once (which only delays a state's decisions)."""
    mask = keys.shape[0] - 1
    h = (key * 0x9E3779B1) & mask
    while True:
        k = atomic.load(keys, h)
        if k == key:
            break
        if k == -1:
            if 2 * atomic.load(count, 1) >= keys.shape[0]:
                return -1, -1, False
            old = atomic.cas(keys, h, -1, key)
            if old == -1:
                _add_one(count, 1, keys.shape[0])
                break
            if old == key:  # another thread put this very key there first
                break
            # (another key took the slot: probe on)
        h = (h + 1) & mask
    v = atomic.load(rowof, h)
    if v > 0:
        return h, v - 1, True
    if v == FILLING:
        return h, -1, False
    if -v >= count[2] and atomic.cas(rowof, h, v, FILLING) == v:
        row = _add_one(count, 0, cap)
        if row >= 0:
            return h, row, False
        atomic.store(rowof, h, v - 1)  # no rows left
        return h, -1, False
    atomic.cas(rowof, h, v, v - 1)
    return h, -1, False


@njit(**INNER)
def _keep_choice(r: int, Ej: np.ndarray, stop: float, subkeeps: np.ndarray, nsub: np.ndarray) -> int:
    """The keep to reroll from roll r (the first best of its proper keeps in tie-break order), or -1:
    stop, which wins ties."""
    bv = NEG
    d = -1
    for i in range(nsub[r]):  # selects, not branches: the winner is unpredictable
        k = subkeeps[r, i]
        e = Ej[k]
        better = e > bv
        d = k if better else d
        bv = e if better else bv
    return d if bv > stop else -1


@njit(**INNER)
def _keep_choices(keep_dec: np.ndarray, EJ: np.ndarray, Vfinal: np.ndarray, J: int, saved_value: float,
                  subkeeps: np.ndarray, nsub: np.ndarray) -> None:
    """keep_dec[j - 1, r] = _keep_choice of every roll r with j = 1..J rolls left (the memo's keep
    decisions of a state)."""
    for r in range(Vfinal.shape[0]):
        for j in range(1, J + 1):
            keep_dec[j - 1, r] = _keep_choice(r, EJ[j - 1], Vfinal[r] + saved_value * j, subkeeps, nsub)


@njit(**INNER)
def future(kind: int, mask: int, y: int, u: int, W: np.ndarray, midx: np.ndarray, t: int,
           h: np.ndarray, G: np.ndarray, yh: np.ndarray, sub_of: np.ndarray, nb: int) -> float:
    """Value to go of a column at a turn start: the exact table, or the heuristic (h[open count, box])."""
    uu = u if u < t else t
    if kind == FUTURE_TABLE:
        return float(W[midx[mask], y * (t + 1) + uu])
    full = (1 << nb) - 1
    open_ = full & ~mask
    n_open = 0
    for b in range(nb):
        n_open += (open_ >> b) & 1
    acc = G[sub_of[mask], uu]
    for b in range(nb):
        if (open_ >> b) & 1:
            acc += h[n_open, b]
    if y == 1:
        acc += yh[n_open]
    return float(acc)


@njit(**INNER)
def _turn_tables(Vfinal: np.ndarray, EJ: np.ndarray, E: np.ndarray, J: int, saved_value: float,
                 keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray) -> None:
    """EJ[j - 1, k]: value of keeping k with j rolls left (j = 1..J), from the final-roll values
    (one state: the scalar form of the build's _expect / _best_sub stages)."""
    R = Vfinal.shape[0]
    K = add_die.shape[0]
    first_full = K - R
    sixth = 1.0 / 6.0
    for r in range(R):
        E[keep_of_roll[r]] = Vfinal[r]
    for j in range(1, J + 1):
        for k in range(first_full - 1, -1, -1):
            E[k] = (E[add_die[k, 0]] + E[add_die[k, 1]] + E[add_die[k, 2]] + E[add_die[k, 3]] + E[add_die[k, 4]]
                    + E[add_die[k, 5]]) * sixth
        for k in range(K):
            EJ[j - 1, k] = E[k]
        if j < J:
            for k in range(1, K):  # drop_die: k itself where a face is not held (no branch)
                m = E[k]
                for f in range(6):
                    e = E[drop_die[k, f]]
                    m = e if e > m else m
                E[k] = m
            for r in range(R):
                kr = keep_of_roll[r]
                stop = Vfinal[r] + saved_value * j
                if stop > E[kr]:
                    E[kr] = stop


@njit(**INNER)
def _column_final(Vc: np.ndarray, nzc: np.ndarray, open_: int, yfilled: bool, yfull: bool, mc: float,
                  NVc: np.ndarray, natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray,
                  nvar: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray, bonus_rolls: np.ndarray,
                  base_roll: int, joker_code: int, has_y: bool, fill: int, lower_bits: int, extra: int,
                  want_nz: bool, vmax: int) -> None:
    """Vc[r] = best placement of final roll r in one column: max over its legal boxes of
    mc * (score + bonus) + NVc[box, variant]; nzc[r]: some legal placement scores (for passes).
    Box by box over all rolls (SIMD); rolls with other legal boxes (jokers) one by one."""
    R = Vc.shape[0]
    bbits, bfull = roll_legal(open_, yfilled, base_roll, yroll, own_bit, joker_code, has_y, fill, lower_bits)
    for r in range(R):
        Vc[r] = NEG
    if want_nz:
        for r in range(R):
            nzc[r] = False
    sT = jokT if bfull else natT
    vT = vjokT if bfull else vnatT
    bb = bbits
    while bb:
        low = bb & -bb
        bb ^= low
        b = _bit_index(low)
        sb = sT[b]
        base = b * vmax
        if nvar[b] == 1:
            a = NVc[base]
            for r in range(R):
                c = mc * sb[r] + a
                Vc[r] = c if c > Vc[r] else Vc[r]
        else:
            vb = vT[b]
            nvb = nvar[b]
            t0 = NVc[base]
            t1 = NVc[base + 1]
            t2 = NVc[base + 2] if nvb > 2 else t1
            t3 = NVc[base + 3] if nvb > 3 else t1
            t4 = NVc[base + 4] if nvb > 4 else t1
            t5 = NVc[base + 5] if nvb > 5 else t1
            t6 = NVc[base + 6] if nvb > 6 else t1
            for r in range(R):
                v = vb[r]
                a = t0
                a = t1 if v == 1 else a
                a = t2 if v == 2 else a
                a = t3 if v == 3 else a
                a = t4 if v == 4 else a
                a = t5 if v == 5 else a
                a = t6 if v == 6 else a
                c = mc * sb[r] + a
                Vc[r] = c if c > Vc[r] else Vc[r]
        if want_nz:
            for r in range(R):
                if sb[r] != 0.0:
                    nzc[r] = True
    for r in range(R):
        if not yroll[r]:  # only a Yahtzee (a joker) can have other legal boxes than most rolls
            continue
        bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
        if bits == bbits and fullv == bfull:
            continue
        best = NEG
        nz = False
        while bits:
            low = bits & -bits
            bits ^= low
            b = _bit_index(low)
            if fullv:
                sc = jokT[b, r]
                slot = b * vmax + vjokT[b, r]
            else:
                sc = natT[b, r]
                slot = b * vmax + vnatT[b, r]
            if sc != 0.0:
                nz = True
            c = mc * sc + NVc[slot]
            if c > best:
                best = c
        Vc[r] = best
        if want_nz:
            nzc[r] = nz
    for i in range(bonus_rolls.shape[0]):
        r = bonus_rolls[i]
        bon = extra_bonus_points(yroll[r], yfull, extra)
        if bon != 0:
            Vc[r] += mc * bon
            if want_nz:
                nzc[r] = True


@njit(**INNER)
def _next_values(NV: np.ndarray, Fcur: np.ndarray, colraw: np.ndarray, cmask: np.ndarray, usum: np.ndarray,
                 yst: np.ndarray, mult: np.ndarray, nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, kind: int,
                 W: np.ndarray, midx: np.ndarray, t: int, h: np.ndarray, G: np.ndarray, yh: np.ndarray,
                 sub_of: np.ndarray, nb: int, nyt: int, n_cols: int, vmax: int,
                 add_columns: int) -> tuple[float, float, int]:
    """NV[c, slot]: the value of the state each (column, box, variant) leads to, relative to staying
    put; Fcur[c] the columns' values to go now. Returns (best1, best2, arg1): the two best weighted
    column estimates and the best's column (for add_columns off; best1 is what staying put is worth)."""
    best1 = NEG
    best2 = NEG
    arg1 = -1
    for c in range(n_cols):
        yv = 1 if (yst[c] == 1 and nyt == 2) else 0
        Fcur[c] = future(kind, cmask[c], yv, usum[c], W, midx, t, h, G, yh, sub_of, nb)
        cv = mult[c] * (colraw[c] + Fcur[c])
        if cv > best1:
            best2 = best1
            best1 = cv
            arg1 = c
        elif cv > best2:
            best2 = cv
    for c in range(n_cols):
        yv = 1 if (yst[c] == 1 and nyt == 2) else 0
        for b in range(nb):
            if (cmask[c] >> b) & 1:
                continue
            m2 = cmask[c] | (1 << b)
            for v in range(nvar[b]):
                y2 = yv if yn[b, v] < 0 else yn[b, v]
                if yn[b, v] >= 0 and nyt != 2:
                    y2 = 0
                f2 = future(kind, m2, y2, usum[c] + du[b, v], W, midx, t, h, G, yh, sub_of, nb)
                if add_columns:
                    NV[c, b * vmax + v] = mult[c] * (f2 - Fcur[c])
                else:
                    NV[c, b * vmax + v] = mult[c] * (colraw[c] + f2)
    return best1, best2, arg1


@njit(**INNER)
def _final_values(Vfinal: np.ndarray, Vc: np.ndarray, nzc: np.ndarray, nzr: np.ndarray, NV: np.ndarray,
                  cmask: np.ndarray, yst: np.ndarray, mult: np.ndarray, natT: np.ndarray, jokT: np.ndarray,
                  vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray,
                  bonus_rolls: np.ndarray, base_roll: int, joker_code: int, has_y: bool, fill: np.ndarray,
                  lower_bits: int, extra: int, may_pass_turn: bool, vmax: int, full: int, n_cols: int,
                  add_columns: int, best1: float, best2: float, arg1: int) -> None:
    """Vfinal[r]: the best placement of final roll r over every column (relative to staying put),
    a pass's cost where passing is allowed and nothing would score."""
    R = Vfinal.shape[0]
    for r in range(R):
        Vfinal[r] = NEG
        nzr[r] = False
    for c in range(n_cols):
        _column_final(Vc, nzc, full & ~cmask[c], yst[c] >= 0, yst[c] == 1, mult[c], NV[c], natT, jokT,
                      vnatT, vjokT, nvar, yroll, own_bit, bonus_rolls, base_roll, joker_code, has_y,
                      fill[c], lower_bits, extra, may_pass_turn, vmax)
        if not add_columns:
            others = best2 if c == arg1 else best1
            for r in range(R):
                Vc[r] = (Vc[r] if Vc[r] > others else others) - best1
        for r in range(R):
            Vfinal[r] = Vc[r] if Vc[r] > Vfinal[r] else Vfinal[r]
        if may_pass_turn:
            for r in range(R):
                nzr[r] = nzr[r] or nzc[r]
    if may_pass_turn:
        for r in range(R):
            if not nzr[r] and -PASS_COST > Vfinal[r]:
                Vfinal[r] = -PASS_COST


@njit(**INNER)
def _box_code(r: int, NV: np.ndarray, cmask: np.ndarray, yst: np.ndarray, mult: np.ndarray, natural: np.ndarray,
              joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray,
              joker_code: int, has_y: bool, fill: np.ndarray, lower_bits: int, extra: int, may_pass_turn: bool,
              vmax: int, full: int, n_cols: int, add_columns: int, best1: float, best2: float, arg1: int,
              nb: int) -> int:
    """Final roll r's best placement as (column * nb + box) * 2 + 1 if scored as a joker; -1 a pass."""
    best = NEG
    bc = -1
    bb_ = -1
    bfull = 0
    allzero = True
    for c in range(n_cols):
        open_ = full & ~cmask[c]
        yfilled = yst[c] >= 0
        bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill[c], lower_bits)
        bon = extra_bonus_points(yroll[r], yst[c] == 1, extra)
        if bon != 0:
            allzero = False
        while bits:
            low = bits & -bits
            bits ^= low
            b = _bit_index(low)
            s, v = _placement(r, b, fullv, natural, joker, var_nat, var_jok)
            if s != 0:
                allzero = False
            cand = mult[c] * float(s + bon) + NV[c, b * vmax + v]
            if not add_columns:
                others = best2 if c == arg1 else best1
                cand = (cand if cand > others else others) - best1
            if cand > best:
                best = cand
                bc = c
                bb_ = b
                bfull = 1 if fullv else 0
    if bc < 0 or (may_pass_turn and allzero and -PASS_COST > best):
        return -1
    return (bc * nb + bb_) * 2 + bfull


@njit(**INNER)
def _box_codes(box_dec: np.ndarray, Vc: np.ndarray, NV: np.ndarray, cmask: np.ndarray, yst: np.ndarray,
               mult: np.ndarray, natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray,
               natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray,
               yroll: np.ndarray, own_bit: np.ndarray, base_roll: int, joker_code: int, has_y: bool,
               fill: np.ndarray, lower_bits: int, extra: int, may_pass_turn: bool, vmax: int, full: int,
               n_cols: int, add_columns: int, best1: float, best2: float, arg1: int, nb: int) -> None:
    """box_dec[r] = _box_code(r, ...) for every final roll r (the memo's box decisions of a state; Vc is
    scratch). One column whose columns add up and no pass: box by box over all rolls as _column_final
    (selects, no branches or gathers: the loops vectorize), with _box_code's arithmetic and ties (the
    first best box in sheet order); then a Yahtzee roll whose legal boxes differ (a joker) or that
    earns an extra bonus by _box_code itself, as every roll of any other sheet (about 0.5 us a roll:
    as much as all of a turn's values for 252 rolls)."""
    R = box_dec.shape[0]
    each = n_cols != 1 or not add_columns or may_pass_turn  # roll by roll, all of them
    open_ = full & ~cmask[0]
    yfilled = yst[0] >= 0
    bbits, bfull = roll_legal(open_, yfilled, base_roll, yroll, own_bit, joker_code, has_y, fill[0], lower_bits)
    for r in range(R):
        Vc[r] = NEG
        box_dec[r] = -1
    if not each:
        m = mult[0]
        NV0 = NV[0]
        sT = jokT if bfull else natT
        vT = vjokT if bfull else vnatT
        bb = bbits
        while bb:
            low = bb & -bb
            bb ^= low
            b = _bit_index(low)
            sb = sT[b]
            base = b * vmax
            code = np.int16(b * 2 + (1 if bfull else 0))
            if nvar[b] == 1:
                a = NV0[base]
                for r in range(R):
                    c = m * sb[r] + a
                    better = c > Vc[r]
                    Vc[r] = c if better else Vc[r]
                    box_dec[r] = code if better else box_dec[r]
            else:
                vb = vT[b]
                nvb = nvar[b]
                t0 = NV0[base]
                t1 = NV0[base + 1]
                t2 = NV0[base + 2] if nvb > 2 else t1
                t3 = NV0[base + 3] if nvb > 3 else t1
                t4 = NV0[base + 4] if nvb > 4 else t1
                t5 = NV0[base + 5] if nvb > 5 else t1
                t6 = NV0[base + 6] if nvb > 6 else t1
                for r in range(R):
                    v = vb[r]
                    a = t0
                    a = t1 if v == 1 else a
                    a = t2 if v == 2 else a
                    a = t3 if v == 3 else a
                    a = t4 if v == 4 else a
                    a = t5 if v == 5 else a
                    a = t6 if v == 6 else a
                    c = m * sb[r] + a
                    better = c > Vc[r]
                    Vc[r] = c if better else Vc[r]
                    box_dec[r] = code if better else box_dec[r]
    for r in range(R):
        if not each:
            if not yroll[r]:
                continue
            if not (extra != 0 and yst[0] == 1):  # no extra bonus: as every roll unless a joker
                bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill[0], lower_bits)
                if bits == bbits and fullv == bfull:
                    continue
        box_dec[r] = _box_code(r, NV, cmask, yst, mult, natural, joker, var_nat, var_jok, yroll, own_bit,
                               joker_code, has_y, fill, lower_bits, extra, may_pass_turn, vmax, full, n_cols,
                               add_columns, best1, best2, arg1, nb)


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def play_games(game: Any, ints: Any, sheet: Any, dice_t: Any, fut: Any, saved_value: float, out: Any,
               log: Any, work: Any, memo: Any) -> None:
    """Play games game[1].. of seat game[2] with the one-turn lookahead on F (the exact table: optimal
    play); the argument tuples are in the module docstring.

    A placement in column c is worth, relative to staying put, mult[c] * (score + bonus + F(next) -
    F(now)) when columns add up; with add_columns off, the best weighted column estimate
    max(mult[c] * (points + F)) after the placement minus before. Dice: see yahtzee_cli.solver.play."""
    seed, first_game, seat = game
    n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, base_roll = ints[:8]
    kind, t, nyt, max_turns, must_zero, saved_rolls, add_columns = ints[8:]
    (mult, natural, joker, var_nat, var_jok, nvar, du, yn, is_upper, yroll, own_bit, fill, natT, jokT, vnatT,
     vjokT, bonus_rolls) = sheet
    keep_index, roll_of_keep, keep_of_roll, add_die, drop_die, keeps, subkeeps, nsub = dice_t
    W, midx, h, G, yh, sub_of = fut
    scores, ybonus, nturns_out = out
    g_n = scores.shape[0]
    vmax = du.shape[1]
    full = (1 << nb) - 1
    has_y = ybox >= 0
    # scratch, sized by scratch(): allocated by the caller, as every numpy allocation here would be
    # one more function for numba to compile on a first run
    Vfinal, Vc, E, EJ, NV, Fcur, colraw = work[0]
    cmask, usum, yst, dice, kept, cnt = work[1]  # yst: -1 open, 0 zero, 1 full points
    nzc, nzr = work[2]
    n = dice.shape[0]
    jmax = EJ.shape[0]
    best1 = NEG
    best2 = NEG
    arg1 = -1
    for g in range(g_n):
        st = stream(seed, first_game + g, seat)
        for c in range(n_cols):
            cmask[c] = 0
            usum[c] = 0
            yst[c] = -1
            colraw[c] = 0.0
            ybonus[g, c] = 0
            for b in range(nb):
                scores[g, c, b] = -1
        saved = 0
        turn = np.int64(0)  # not a literal 0, which would compile record_reroll a second time
        open_total = n_cols * nb
        while open_total > 0:
            may_pass_turn = (not must_zero) and (max_turns - turn > open_total)
            budget = roll_budget(saved_rolls, saved)
            J = budget - 1
            if J > jmax:
                J = jmax
            # ---- the memo: this state's decisions from an earlier turn, or a new row for them (after
            # MEMO_VISITS visits: a state seen once is often never seen again, and making all its
            # decisions costs about a turn)
            mr = -1
            slot = -1
            hit = False
            if memo is not None:
                if memo[2][2] > 0:  # (no_memo() keeps nothing)
                    ucap = usum[0] if usum[0] < t else t
                    key = (cmask[0] | (ucap << nb) | ((yst[0] + 1) << (nb + 8)) | (J << (nb + 10))
                           | (np.int64(may_pass_turn) << (nb + 18)))
                    slot, mr, hit = _memo_row(memo[0], memo[1], memo[2], memo[3].shape[0], key)
            if not hit:
                best1, best2, arg1 = _next_values(NV, Fcur, colraw, cmask, usum, yst, mult, nvar, du, yn,
                                                        kind, W, midx, t, h, G, yh, sub_of, nb, nyt, n_cols,
                                                        vmax, add_columns)
                _final_values(Vfinal, Vc, nzc, nzr, NV, cmask, yst, mult, natT, jokT, vnatT, vjokT, nvar, yroll,
                              own_bit, bonus_rolls, base_roll, joker_code, has_y, fill, lower_bits, extra,
                              may_pass_turn, vmax, full, n_cols, add_columns, best1, best2, arg1)
                _turn_tables(Vfinal, EJ, E, J, saved_value, keep_of_roll, add_die, drop_die)
                if memo is not None:
                    if mr >= 0:  # every decision of the state, once
                        _keep_choices(memo[3][mr], EJ, Vfinal, J, saved_value, subkeeps, nsub)
                        _box_codes(memo[4][mr], Vc, NV, cmask, yst, mult, natural, joker, var_nat, var_jok, natT,
                                   jokT, vnatT, vjokT, nvar, yroll, own_bit, base_roll, joker_code, has_y, fill,
                                   lower_bits, extra, may_pass_turn, vmax, full, n_cols, add_columns, best1, best2,
                                   arg1, nb)
                        atomic.store(memo[1], slot, mr + 1)  # published: other threads read the row from now
            # ---- the turn itself
            st = roll_dice(dice, kept, np.int64(0), st)  # typed as the rerolls type it: one compile
            if log is not None:
                for k in range(n):
                    log[0][g, turn, 0, k] = dice[k]
            used = np.int64(1)
            while used < budget:
                r = compiled.roll_of_dice(dice, cnt, keep_index, roll_of_keep)
                j = budget - used
                jj = j if j <= J else J
                d = -2  # not known yet
                if memo is not None:  # nested, not `and`: numba drops the branch only for the None test
                    if mr >= 0:
                        d = int(memo[3][mr, jj - 1, r])
                if d == -2:
                    d = _keep_choice(r, EJ[jj - 1], Vfinal[r] + saved_value * j, subkeeps, nsub)
                if d < 0:
                    break
                # the kept dice sorted first, then the new dice drawn in order of position
                pos = 0
                for f in range(6):
                    for _i in range(keeps[d, f]):
                        kept[pos] = f + 1
                        pos += 1
                st = roll_dice(dice, kept, np.int64(pos), st)
                if log is not None:
                    compiled.record_reroll(log[1], log[0], g, turn, used, kept, pos, dice)
                used += 1
            saved = rolls_left_over(saved_rolls, saved, used)
            # ---- choose the box (or pass)
            r = compiled.roll_of_dice(dice, cnt, keep_index, roll_of_keep)
            code = -2  # not known yet
            if memo is not None:
                if mr >= 0:
                    code = int(memo[4][mr, r])
            if code == -2:
                code = _box_code(r, NV, cmask, yst, mult, natural, joker, var_nat, var_jok, yroll, own_bit,
                                 joker_code, has_y, fill, lower_bits, extra, may_pass_turn, vmax, full, n_cols,
                                 add_columns, best1, best2, arg1, nb)
            bc = -1 if code < 0 else code // (2 * nb)
            bb_ = (code % (2 * nb)) // 2
            bfull = code % 2
            if log is not None:
                log[2][g, turn] = used
                log[3][g, turn] = bc if bc >= 0 else 0
                log[4][g, turn] = bb_ if bc >= 0 else -1
            if bc >= 0:
                bs = joker[r, bb_] if bfull else natural[r, bb_]
                bbon = extra_bonus_points(yroll[r], yst[bc] == 1, extra)
                scores[g, bc, bb_] = bs
                ybonus[g, bc] += bbon
                colraw[bc] += bs + bbon
                cmask[bc] |= 1 << bb_
                if is_upper[bb_]:
                    usum[bc] += bs
                if bb_ == ybox:
                    yst[bc] = 1 if bs == ypoints else 0
                open_total -= 1
            turn += 1
        nturns_out[g] = turn

