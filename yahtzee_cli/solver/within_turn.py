"""The within-turn kernels: one turn of one column, valued and decided, for every compiled objective
(the table build in kernels.py, simulated play in play_kernel.py, the distributions and risk tables
in distribution.py). An objective over final scores adds its own function here and its entry where
it runs (a layer loop or a game loop), never a copy of the turn. The grader (grade_kernel) values
positions with strategy.turn.Turn's own arithmetic, to the last bit: its kernels are the last section.

Every rule comes from rules/engine.py (compiled once in compiled.py) and every score from the rule set's
arrays `ra` (tables.RuleArrays, built once per rule set by tables.rule_arrays). The stages of a
turn (Verhoeff's):

* final-roll values: V0[r] = the best box for the final roll r, max over its legal boxes of score
  plus the value of the state it leads to (`column_final` for one state; `lane_final_values` for
  the table build's lanes, with the second moment and the pass probability carried along;
  `shifted_final` for an objective over the final score, over the points gained);
* keep values: for each roll left j = 1, 2: E_j[k] = the mean of E over the keeps one die larger
  ("add one die", a full keep is worth V_{j-1} of that roll) and V_j[r] = max over the sub-keeps of r
  ("drop one die": M[k] = max(E[k], max_f M[k - f]) in increasing keep size), stopping on r worth
  what the objective says. One arithmetic for every objective: `expect_lanes` and `best_sub_lanes`
  over a trailing lane axis, staged by `keep_values` (one state, one lane; its stopping values are an
  input: the final-roll values plus saved rolls, or by the stock of saved rolls a stop leaves),
  `keep_stages_lanes` (the build) and `keep_stages_stopping` (over the points gained);
  strategy.turn.Turn averages the faces in the same order;
* decisions: the keep of a roll (`keep_choice`: the first best proper keep in
  tables.proper_subkeeps' order; stopping wins ties) and its box (`box_code`, `box_codes`,
  `box_slots`: the first best box in sheet order; a pass charged strategy.turn.PASS_COST).

The helpers are compiled as plain functions (no Python entry points, jit.INNER) except those the
build's inner loops inline.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba.extending import overload

from ..strategy.turn import PASS_COST  # the tie-break charged for a pass, the same in hints
from .compiled import FORCED, extra_bonus_points, joker_full_value, joker_now, legal_bits
from .jit import INNER, njit

NO_LANES = np.zeros((1, 1), np.int64)  # a dense table's ulane (unused)

Int = int | np.int64  # an argument compiled code passes as np.int64, never as a literal int

NEG = -1.0e300  # "no option" (never NaN)


def _roll_legal(open_: int, yfilled: bool, r: int, yroll: np.ndarray, own_bit: np.ndarray, joker_code: int,
                has_y: bool, fill: int, lower_bits: int) -> tuple[int, bool]:
    """Legal boxes of roll r in a column with open boxes `open_`, and whether a joker scores full value.

    Parameters
    ----------
    open_ : int
        Bits of the column's open boxes.
    yfilled : bool
        Whether the column's Yahtzee box is filled.
    r : int
        The roll (an index of the dice tables' rolls).
    yroll, own_bit, joker_code, has_y, lower_bits
        The rule set's (tables.RuleArrays): arrays, not the bundle, as this is called roll by roll
        and a bundle argument is passed as hundreds of scalars.
    fill : int
        The column's fill rule (rules.FILL_CODES).
    """
    jk = joker_now(joker_code, has_y, yfilled, yroll[r])
    bits = legal_bits(open_, fill, jk and joker_code == FORCED, own_bit[r], lower_bits)
    return bits, joker_full_value(jk, open_, own_bit[r])


roll_legal_inline: Any = njit(cache=True, inline="always")(_roll_legal)  # for the build's inner loops
roll_legal: Any = njit(**INNER)(_roll_legal)  # called from many places: compiled once


@njit(cache=True, inline="always")
def bit_index(low: int) -> int:
    """The index of the single set bit of `low`."""
    b = 0
    while (1 << b) != low:
        b += 1
    return b


@njit(cache=True, inline="always")
def next_box(bits: int) -> tuple[int, int]:
    """(bits without its lowest set bit, the index of that bit): `while bits: bits, b = next_box(bits)`
    visits the boxes of `bits` in sheet order."""
    low = bits & -bits
    return bits ^ low, bit_index(low)


@njit(cache=True, inline="always")
def score_rows(ra: Any, fullv: bool) -> tuple[np.ndarray, np.ndarray]:
    """The box-major scores [B, R] and variants [B, R] a roll writes: a joker's (fullv) or natural."""
    if fullv:
        return ra.jokT, ra.vjokT
    return ra.natT, ra.vnatT


@njit(cache=True, inline="always")
def placement(r: int, b: int, fullv: bool, rows: Any) -> tuple[int, int]:
    """Final roll r written in box b (as a joker when fullv): its score, and the variant of the state
    it leads to.

    Parameters
    ----------
    r, b : int
        The roll and the box.
    fullv : bool
        Whether the roll scores a joker's full value (roll_legal).
    rows : (natural, joker, var_nat, var_jok)
        The row forms [R, B] of the rule set's score and variant tables (tables.RuleArrays.rows).
    """
    natural, joker, var_nat, var_jok = rows
    if fullv:
        return joker[r, b], var_jok[r, b]
    return natural[r, b], var_nat[r, b]


# --------------------------------------------------------------------------- final-roll values


@njit(cache=True, inline="always")
def _variants(NVc: np.ndarray, base: int, nvb: int) -> tuple[float, float, float, float, float, float, float]:
    """A box's next-state values NVc[base + v] for its nvb variants (at most 7), as locals: a pick
    among locals vectorizes, a gather would not."""
    t1 = NVc[base + 1]
    return (NVc[base], t1, NVc[base + 2] if nvb > 2 else t1, NVc[base + 3] if nvb > 3 else t1,
            NVc[base + 4] if nvb > 4 else t1, NVc[base + 5] if nvb > 5 else t1, NVc[base + 6] if nvb > 6 else t1)


@njit(cache=True, inline="always")
def _pick(v: int, t: tuple[float, float, float, float, float, float, float]) -> float:
    """t[v] by selects (no branch, no gather)."""
    a = t[0]
    a = t[1] if v == 1 else a
    a = t[2] if v == 2 else a
    a = t[3] if v == 3 else a
    a = t[4] if v == 4 else a
    a = t[5] if v == 5 else a
    return t[6] if v == 6 else a


@njit(cache=True, inline="always")
def box_max(V: np.ndarray, dec: Any, code: Any, sb: np.ndarray, vb: np.ndarray, NVc: np.ndarray, base: int,
            nvb: int, mc: Any) -> None:
    """Box b for every roll at once: V[r] = max(V[r], mc * score + NVc[b * vmax + variant]) (SIMD over
    rolls); where it is better (ties keep the earlier box), dec[r] = code.

    Parameters
    ----------
    V : float64[R]
        The best value so far of each roll (updated).
    dec : int array [R] or None
        The decision of each roll (updated), or None: values only.
    code : int
        What dec holds for this box.
    sb : float64[R]
        The box's score of each roll (a row of natT, or of jokT for jokers).
    vb : uint8[R]
        The variant each score makes (a row of vnatT or vjokT).
    NVc : float64[B * vmax]
        Per (box, variant) slot, the value of the state it leads to.
    base, nvb : int
        The box's first slot (box * vmax) and its number of variants.
    mc : float or None
        The column's weight (None: 1, without the multiplication).
    """
    R = V.shape[0]
    if nvb == 1:
        a = NVc[base]
        for r in range(R):
            c = (sb[r] if mc is None else mc * sb[r]) + a
            better = c > V[r]
            V[r] = c if better else V[r]
            if dec is not None:
                dec[r] = code if better else dec[r]
        return
    t = _variants(NVc, base, nvb)
    for r in range(R):
        c = (sb[r] if mc is None else mc * sb[r]) + _pick(vb[r], t)
        better = c > V[r]
        V[r] = c if better else V[r]
        if dec is not None:
            dec[r] = code if better else dec[r]


@njit(cache=True, inline="always")
def box_max_scored(V: np.ndarray, vb: np.ndarray, NVc: np.ndarray, vs: np.ndarray, base: int, nvb: int) -> None:
    """box_max (weight 1, values only) for a box whose natural score is its variant's (variant_scores):
    score plus next-state value taken once per variant, then one pick per roll. The same values as
    box_max's (the same sum of the same two numbers), a quarter faster.

    Parameters
    ----------
    V : float64[R]
        The best value so far of each roll (updated).
    vb : uint8[R]
        The variant each roll makes in the box (a row of vnatT).
    NVc : float64[B * vmax]
        Per (box, variant) slot, the value of the state it leads to.
    vs : float64[V]
        The box's score of each variant (variant_scores).
    base, nvb : int
        The box's first slot (box * vmax) and its number of variants (at most 7).
    """
    t1 = vs[1] + NVc[base + 1]
    t = (vs[0] + NVc[base], t1, vs[2] + NVc[base + 2] if nvb > 2 else t1,
         vs[3] + NVc[base + 3] if nvb > 3 else t1, vs[4] + NVc[base + 4] if nvb > 4 else t1,
         vs[5] + NVc[base + 5] if nvb > 5 else t1, vs[6] + NVc[base + 6] if nvb > 6 else t1)
    for r in range(V.shape[0]):
        c = _pick(vb[r], t)
        V[r] = c if c > V[r] else V[r]


@njit(cache=True, inline="always")
def roll_max(r: int, bits: int, sT: np.ndarray, vT: np.ndarray, NVc: np.ndarray, NVc2: np.ndarray, second: bool,
             mc: Any, vmax: int) -> tuple[float, float, bool]:
    """One roll's best placement among its legal boxes `bits`: max of mc * score + NVc[slot].

    Parameters
    ----------
    r : int
        The roll.
    bits : int
        Its legal boxes (roll_legal).
    sT, vT : [B, R]
        The scores and variants it writes (natT and vnatT, or jokT and vjokT for a joker's full value).
    NVc, NVc2 : float64[B * vmax]
        Per (box, variant) slot, the value of the state it leads to and (second) its second moment.
    second : bool
        Also the second moment of the best placement's outcome.
    mc : float or None
        The column's weight (None: 1, without the multiplication).
    vmax : int
        Slots per box.

    Returns
    -------
    (value, second moment or 0, whether some legal placement scores)
    """
    best = NEG
    best2 = 0.0
    nz = False
    while bits:
        bits, b = next_box(bits)
        sc = sT[b, r]
        slot = b * vmax + vT[b, r]
        if sc != 0.0:
            nz = True
        c = (sc if mc is None else mc * sc) + NVc[slot]
        if c > best:
            best = c
            if second:
                best2 = sc * sc + 2.0 * sc * NVc[slot] + NVc2[slot]
    return best, best2, nz


@njit(**INNER)
def column_final(Vc: np.ndarray, nzc: np.ndarray, open_: int, yfilled: bool, yfull: bool, mc: float,
                 NVc: np.ndarray, ra: Any, fill: int, want_nz: bool) -> None:
    """Final-roll values of one state: Vc[r] = the best placement of final roll r in one column, max
    over its legal boxes of mc * (score + bonus) + NVc[box, variant]. Box by box over all rolls (SIMD);
    rolls with other legal boxes (jokers) one by one.

    Parameters
    ----------
    Vc : float64[R]
        Written: the value of each final roll.
    nzc : bool[R]
        Written when want_nz: whether some legal placement of the roll scores (no pass then).
    open_ : int
        Bits of the column's open boxes.
    yfilled, yfull : bool
        The Yahtzee box is filled; it holds its full points (extra bonuses).
    mc : float
        The column's weight.
    NVc : float64[B * vmax]
        Per (box, variant) slot, the value of the state it leads to.
    ra : tables.RuleArrays
        The rule set's arrays.
    fill : int
        The column's fill rule.
    want_nz : bool
        Fill nzc.
    """
    R = Vc.shape[0]
    vmax = ra.du.shape[1]
    bbits, bfull = roll_legal(open_, yfilled, ra.base_roll, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y, fill,
                              ra.lower_bits)
    for r in range(R):
        Vc[r] = NEG
    if want_nz:
        for r in range(R):
            nzc[r] = False
    sT, vT = score_rows(ra, bfull)
    bb = bbits
    while bb:
        bb, b = next_box(bb)
        box_max(Vc, None, 0, sT[b], vT[b], NVc, b * vmax, ra.nvar[b], mc)
        if want_nz:
            sb = sT[b]
            for r in range(R):
                if sb[r] != 0.0:
                    nzc[r] = True
    for r in range(R):
        if not ra.yroll[r]:  # only a Yahtzee (a joker) can have other legal boxes than most rolls
            continue
        bits, fullv = roll_legal(open_, yfilled, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y, fill,
                                 ra.lower_bits)
        if bits == bbits and fullv == bfull:
            continue
        sTr, vTr = score_rows(ra, fullv)
        Vc[r], _, nz = roll_max(r, bits, sTr, vTr, NVc, NVc, False, mc, vmax)
        if want_nz:
            nzc[r] = nz
    bonus_rolls = ra.bonus_rolls
    for i in range(bonus_rolls.shape[0]):
        r = bonus_rolls[i]
        bon = extra_bonus_points(ra.yroll[r], yfull, ra.extra)
        if bon != 0:
            Vc[r] += mc * bon
            if want_nz:
                nzc[r] = True


# --------------------------------------------------------------------------- keep values and choices


@njit(cache=True, inline="always")
def expect_lanes(E: np.ndarray, first_full: int, add_die: np.ndarray, n: int) -> None:
    """E[k] = mean over faces of E[k + f] for every keep smaller than a full roll (descending size),
    lanes 0..n-1."""
    sixth = 1.0 / 6.0
    for k in range(first_full - 1, -1, -1):
        a0 = add_die[k, 0]
        a1 = add_die[k, 1]
        a2 = add_die[k, 2]
        a3 = add_die[k, 3]
        a4 = add_die[k, 4]
        a5 = add_die[k, 5]
        for lane in range(n):
            E[k, lane] = (E[a0, lane] + E[a1, lane] + E[a2, lane] + E[a3, lane] + E[a4, lane]
                          + E[a5, lane]) * sixth


@njit(cache=True, inline="always")
def best_sub_lanes(E: np.ndarray, S: np.ndarray, Q: np.ndarray, carry: int, drop_die: np.ndarray, n: int) -> None:
    """In place, in increasing keep size: E[k] = max(E[k], E[k - f]) (the best sub-keep's value),
    lanes 0..n-1; carry 1: S follows the chosen keep (a second moment or a probability), carry 2: S
    and Q do."""
    K = E.shape[0]
    for k in range(1, K):
        for f in range(6):
            d = drop_die[k, f]
            if d >= 0:
                for lane in range(n):
                    a = E[k, lane]
                    b = E[d, lane]
                    better = b > a
                    E[k, lane] = b if better else a
                    if carry >= 1:
                        S[k, lane] = S[d, lane] if better else S[k, lane]
                    if carry == 2:
                        Q[k, lane] = Q[d, lane] if better else Q[k, lane]


@njit(cache=True, inline="always")
def best_sub_max(E: np.ndarray, T: np.ndarray, drop_die: np.ndarray, starts: np.ndarray, n: int) -> None:
    """best_sub_lanes without a carry: E[k] = the largest E over k's sub-keeps (itself included), lanes
    0..n-1. One size of keeps at a time: each keep's maximum over its (at most 6) one-die-smaller
    sub-keeps is taken in registers into T, then the size's rows are copied back, so that no loop
    stores into the array it reads the sub-keeps from (such a loop ran at half the speed). The same
    values as best_sub_lanes' (a maximum does not depend on the order it is taken in).

    Parameters
    ----------
    E : float64[K, cap]
        Keep values by lane, keeps by size (updated).
    T : float64[at least the most keeps of a size, cap]
        Scratch.
    drop_die : int64[K, 6]
        The keep one die f smaller, -1 when k has no f.
    starts : int64[dice + 2]
        The first keep of each size (and the end).
    n : int
        Lanes in use.
    """
    for c in range(1, starts.shape[0] - 1):
        k0 = starts[c]
        k1 = starts[c + 1]
        for k in range(k0, k1):
            # a face the keep lacks reads the empty keep, a sub-keep of every keep (no branch in the lanes)
            d0 = max(drop_die[k, 0], 0)
            d1 = max(drop_die[k, 1], 0)
            d2 = max(drop_die[k, 2], 0)
            d3 = max(drop_die[k, 3], 0)
            d4 = max(drop_die[k, 4], 0)
            d5 = max(drop_die[k, 5], 0)
            i = k - k0
            for lane in range(n):
                a = E[k, lane]
                b = E[d0, lane]
                a = b if b > a else a
                b = E[d1, lane]
                a = b if b > a else a
                b = E[d2, lane]
                a = b if b > a else a
                b = E[d3, lane]
                a = b if b > a else a
                b = E[d4, lane]
                a = b if b > a else a
                b = E[d5, lane]
                a = b if b > a else a
                T[i, lane] = a
        for k in range(k0, k1):
            i = k - k0
            for lane in range(n):
                E[k, lane] = T[i, lane]


def roll_subs(drop_die: Any, starts: np.ndarray) -> np.ndarray:
    """best_roll_max's sub-keeps: int64[K, 7], per keep of one die or more the number of its sub-keeps
    one die smaller (the faces it has), then their rows in T, where the maxima of each size of keeps
    short of a full roll lie (sub_place), padded with the first (read again: no change to a maximum)."""
    drop_die = np.asarray(drop_die)
    top = len(starts) - 2
    out = np.zeros((drop_die.shape[0], 7), np.int64)
    for c in range(1, top + 1):
        # (sub_place's Python function: calling the compiled one from here first loads it, half a second)
        first = _sub_place(c - 1, starts) - int(starts[c - 1])
        for k in range(int(starts[c]), int(starts[c + 1])):
            rows = [int(d) + first for d in drop_die[k] if d >= 0]
            out[k, 0] = len(rows)
            out[k, 1:] = (rows + rows[:1] * 6)[:6]
    return out


def _sub_place(c: int, starts: np.ndarray) -> int:
    """T's first row for the maxima of keeps of c dice (best_roll_max): the sizes take turns between
    T[0:h] and T[h:2h], h the most keeps of a size short of a full roll, the size just short of it
    at 0 (two sizes in a row: at most a full roll's count of rows)."""
    top = starts.shape[0] - 2
    return 0 if (top - 1 - c) % 2 == 0 else int(starts[top] - starts[top - 1])


sub_place: Any = njit(cache=True, inline="always")(_sub_place)


@njit(cache=True, inline="always")
def _sub_max_row(E: np.ndarray, T: np.ndarray, k: int, i: int, last: bool, n: int, subs: np.ndarray) -> None:
    """The largest of E[k, lane] and keep k's sub-keep maxima in T, lanes 0..n-1, into E[k] (last: a
    full roll) or T[i]: three rows read for a keep with at most three sub-keeps, six for the others
    (roll_subs pads with the first), each loop keeping its maximum in a register (a loop over a
    variable count would store it each time; a row picked as a view before the loop ran slower)."""
    d0, d1, d2 = subs[k, 1], subs[k, 2], subs[k, 3]
    if subs[k, 0] <= 3:
        for lane in range(n):
            a = E[k, lane]
            b = T[d0, lane]
            a = b if b > a else a
            b = T[d1, lane]
            a = b if b > a else a
            b = T[d2, lane]
            a = b if b > a else a
            if last:
                E[k, lane] = a
            else:
                T[i, lane] = a
        return
    d3, d4, d5 = subs[k, 4], subs[k, 5], subs[k, 6]
    for lane in range(n):
        a = E[k, lane]
        b = T[d0, lane]
        a = b if b > a else a
        b = T[d1, lane]
        a = b if b > a else a
        b = T[d2, lane]
        a = b if b > a else a
        b = T[d3, lane]
        a = b if b > a else a
        b = T[d4, lane]
        a = b if b > a else a
        b = T[d5, lane]
        a = b if b > a else a
        if last:
            E[k, lane] = a
        else:
            T[i, lane] = a


@njit(cache=True, inline="always")
def best_roll_max(E: np.ndarray, T: np.ndarray, subs: np.ndarray, starts: np.ndarray, n: int) -> None:
    """best_sub_max where only the full rolls' values are wanted (the build: the next level's
    expectations overwrite the smaller keeps): E[k] for each full roll k = the largest E over its
    sub-keeps, the same floats as best_sub_max's. The smaller keeps' maxima stay in T, a size's
    next to the one before (sub_place), never copied back, and each keep reads only the sub-keeps
    it has (1.46x on best_sub_max's 128 lanes of Maxi Yatzy alone); E's smaller keeps are left as
    they were.

    Parameters
    ----------
    E : float64[K, cap]
        Keep values by lane, keeps by size: the full rolls' rows updated.
    T : float64[at least a full roll's count of keeps, cap]
        Scratch.
    subs : int64[K, 7]
        roll_subs(drop_die, starts).
    starts : int64[dice + 2]
        The first keep of each size (and the end).
    n : int
        Lanes in use.
    """
    top = starts.shape[0] - 2
    z = sub_place(0, starts)
    for lane in range(n):
        T[z, lane] = E[0, lane]  # the empty keep: its own best
    for c in range(1, top + 1):
        k0 = starts[c]
        at = sub_place(c, starts) - k0
        if c < top:  # (`last` a constant in each loop: no branch left in the lanes)
            for k in range(k0, starts[c + 1]):
                _sub_max_row(E, T, k, at + k, False, n, subs)
        else:
            for k in range(k0, starts[c + 1]):
                _sub_max_row(E, T, k, 0, True, n, subs)


@njit(**INNER)
def keep_values(S: np.ndarray, EJ: np.ndarray, E: np.ndarray, J: int, saved_value: float, keep_of_roll: np.ndarray,
                add_die: np.ndarray, drop_die: np.ndarray) -> None:
    """Keep values of one state: EJ[j - 1, k] = the value of keeping k with j rolls left (j = 1..J),
    from what stopping is worth: expect_lanes and best_sub_lanes on one lane (E as [K, 1]), so every
    objective's keep stages share one arithmetic (the faces' sum times 1 / 6, as strategy.turn.Turn
    too). Stopping on roll r with j rolls unused is worth S[min(j, L), r] + saved_value * j
    (L = S.shape[0] - 1): with L = 0 the final-roll values plus a value per roll saved for later (0
    without saved rolls); with an exact saved-rolls table (saved_value 0) the final-roll values with
    that many rolls saved for the next turn (play_kernel.play_saved_games).

    Parameters
    ----------
    S : float64[L + 1, R]
        The value of stopping on each roll by the rolls it saves (capped at L): row 0, the final
        roll's (column_final; a 1-D array reshaped to one row).
    EJ : float64[J, K]
        Written: the keep values.
    E : float64[K]
        Scratch.
    J : int
        Rolls left after the first.
    saved_value : float
        The value of a roll saved for later (rules with saved rolls; else 0).
    keep_of_roll, add_die, drop_die : int64[R], int64[K, 6], int64[K, 6]
        The rule set's keep graph (tables.RuleArrays' keep_of_roll, add_die, drop_die): arrays, not
        the bundle, as this runs once a turn and a bundle argument is passed as hundreds of scalars.
    """
    R = S.shape[1]
    L = S.shape[0] - 1
    K = add_die.shape[0]
    first_full = K - R
    E1 = E.reshape((K, 1))  # one lane
    for r in range(R):
        E[keep_of_roll[r]] = S[0, r]
    for j in range(1, J + 1):
        expect_lanes(E1, first_full, add_die, 1)
        for k in range(K):
            EJ[j - 1, k] = E[k]
        if j < J:
            best_sub_lanes(E1, E1, E1, 0, drop_die, 1)
            lv = j if j < L else L
            for r in range(R):
                kr = keep_of_roll[r]
                stop = S[lv, r] + saved_value * j
                if stop > E[kr]:
                    E[kr] = stop


@njit(**INNER)
def keep_values_lanes(S: np.ndarray, EJ: np.ndarray, E: np.ndarray, T: np.ndarray, starts: np.ndarray, J: Int,
                      keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray, n: int) -> None:
    """keep_values (no value per roll saved) of n states side by side, lane by lane the same floats as
    keep_values on that state alone: the faces' sum in the same order (expect_lanes), the best
    sub-keep a maximum (best_sub_max, which equals best_sub_lanes'). A lane's keep values with j rolls
    left depend only on levels up to j, so a lane whose turn has fewer rolls ignores the rest (every
    lane goes to J: a loop over fewer lanes than a vector holds would run without SIMD).

    Parameters
    ----------
    S : float64[lanes, L + 1, R]
        Per lane, the value of stopping on each roll by the rolls it saves (capped at L); rows past
        what a lane's turn can save are read only for levels it ignores.
    EJ : float64[at least J, K, lanes]
        Written: EJ[j - 1, k, lane], the value of keeping k with j rolls left.
    E, T : float64[K, lanes], float64[the most keeps of a size, lanes]
        Scratch.
    starts : int64[dice + 2]
        The first keep of each size, and the end (keep_starts).
    J : int
        Rolls left after the first, the most of any lane.
    keep_of_roll, add_die, drop_die
        As keep_values'.
    n : int
        Lanes in use.
    """
    R = S.shape[2]
    L = S.shape[1] - 1
    K = add_die.shape[0]
    first_full = K - R
    for r in range(R):
        kr = keep_of_roll[r]
        for lane in range(n):
            E[kr, lane] = S[lane, 0, r]
    for j in range(1, J + 1):
        expect_lanes(E, first_full, add_die, n)
        for k in range(K):
            for lane in range(n):
                EJ[j - 1, k, lane] = E[k, lane]
        if j < J:
            best_sub_max(E, T, drop_die, starts, n)
            lv = j if j < L else L
            for r in range(R):
                kr = keep_of_roll[r]
                for lane in range(n):
                    stop = S[lane, lv, r]
                    if stop > E[kr, lane]:
                        E[kr, lane] = stop


@njit(**INNER)
def keep_choice(r: int, Ej: np.ndarray, stop: float, subkeeps: np.ndarray, nsub: np.ndarray) -> int:
    """The keep to reroll from roll r, or -1 to stop (which wins ties).

    Parameters
    ----------
    r : int
        The roll.
    Ej : float64[K]
        The keep values with the rolls left (a row of keep_values' EJ).
    stop : float
        The value of stopping (the roll's final value, plus any rolls saved).
    subkeeps, nsub : int64[R, 2**n], int64[R]
        Each roll's proper keeps in tie-break order (tables.proper_subkeeps; RuleArrays).
    """
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
def keep_choices(keep_dec: np.ndarray, EJ: np.ndarray, Vfinal: np.ndarray, J: int, saved_value: float,
                 ra: Any) -> None:
    """keep_dec[j - 1, r] = keep_choice of every roll r with j = 1..J rolls left (all the keep
    decisions of a state, for play_kernel's memo).

    Parameters
    ----------
    keep_dec : int16[J, R]
        Written.
    EJ, Vfinal, J, saved_value, ra
        As keep_values.
    """
    for r in range(Vfinal.shape[0]):
        for j in range(1, J + 1):
            keep_dec[j - 1, r] = keep_choice(r, EJ[j - 1], Vfinal[r] + saved_value * j, ra.subkeeps, ra.nsub)


@njit(**INNER)
def keep_dice(kept: np.ndarray, d: int, keeps: np.ndarray) -> int:
    """The dice of keep d, sorted ascending, in kept[:n] (every strategy's dice convention: the kept
    dice first, then the new ones); returns n.

    Parameters
    ----------
    kept : int64[dice]
        Written.
    d : int
        The keep.
    keeps : int64[K, 6]
        Face counts of every keep (RuleArrays.keeps).
    """
    pos = 0
    for f in range(6):
        for _i in range(keeps[d, f]):
            kept[pos] = f + 1
            pos += 1
    return pos


# --------------------------------------------------------------------------- box choices


@njit(**INNER)
def box_choice(r: int, bits: int, fullv: bool, bon: int, NVc: np.ndarray, mc: float, clamp: Any, rows: Any,
               vmax: int, solver_ties: bool) -> tuple[int, int, bool, float]:
    """The box of final roll r in one column among its legal `bits`: the first best in sheet order
    of mc * (score + bon) + NVc[slot] (solver_ties: without the bonus, which every box of the roll
    earns alike, as the table build compares them).

    Parameters
    ----------
    r : int
        The roll.
    bits : int
        Its legal boxes in the column (roll_legal).
    fullv : bool
        It scores a joker's full value.
    bon : int
        The extra bonus it earns in the column.
    NVc : float64[B * vmax]
        Per (box, variant) slot, the value of the state it leads to.
    mc : float
        The column's weight.
    clamp : (float, float, bool)
        (others, best1, on): on when the sheet's total is its best column, not their sum: a placement
        is then worth max(value, others) - best1 (play_kernel.play_games).
    rows : (natural, joker, var_nat, var_jok)
        The rule set's row tables (placement).
    vmax : int
        Slots per box.
    solver_ties : bool
        Compare without the bonus.

    Returns
    -------
    (slot, score, allzero, value): box * vmax + variant of the best box (-1: none legal), its score,
    whether no legal placement scores anything (bonus included), and the best value.
    """
    allzero = bon == 0
    best = NEG
    sl = -1
    score = 0
    while bits:
        bits, b = next_box(bits)
        sc, v = placement(r, b, fullv, rows)
        if sc != 0:
            allzero = False
        cand = mc * (float(sc) if solver_ties else float(sc + bon)) + NVc[b * vmax + v]
        if clamp[2]:
            cand = (cand if cand > clamp[0] else clamp[0]) - clamp[1]
        if cand > best:
            best = cand
            sl = b * vmax + v
            score = sc
    return sl, score, allzero, best


@njit(**INNER)
def box_code(r: int, NV: np.ndarray, cmask: np.ndarray, yst: np.ndarray, may_pass_turn: bool | np.bool_,
             best12: tuple[float, float, Int], ra: Any) -> int:
    """Final roll r's best placement over every column, as (column * nb + box) * 2 + 1 if scored as
    a joker, 0 otherwise; -1 a pass.

    Parameters
    ----------
    r : int
        The roll.
    NV : float64[C, B * vmax]
        Per column and (box, variant) slot, the value of the state it leads to (next_values).
    cmask, yst : int64[C]
        Per column its filled boxes and its Yahtzee box (-1 open, 0 a zero, 1 full points).
    may_pass_turn : bool
        A pass is allowed (it wins where nothing scores and every placement costs more).
    best12 : (float, float, int)
        The two best weighted column estimates and the best's column (next_values' return; used
        when the columns do not add up).
    ra : tables.RuleArrays
        The rule set's arrays.
    """
    best1, best2, arg1 = best12
    nb = ra.nb
    vmax = ra.du.shape[1]
    full = (1 << nb) - 1
    best = NEG
    bc = -1
    bb_ = -1
    bfull = 0
    allzero = True
    for c in range(ra.n_cols):
        bits, fullv = roll_legal(full & ~cmask[c], yst[c] >= 0, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y,
                                 ra.fill[c], ra.lower_bits)
        bon = extra_bonus_points(ra.yroll[r], yst[c] == 1, ra.extra)
        clamp = (best2 if c == arg1 else best1, best1, not ra.add_columns)
        sl, _, zero, cand = box_choice(r, bits, fullv, bon, NV[c], ra.mult[c], clamp, ra.rows, vmax, False)
        allzero = allzero and zero
        if sl >= 0 and cand > best:
            best = cand
            bc = c
            bb_ = sl // vmax
            bfull = 1 if fullv else 0
    if bc < 0 or (may_pass_turn and allzero and -PASS_COST > best):
        return -1
    return int((bc * nb + bb_) * 2 + bfull)


@njit(**INNER)
def box_codes(box_dec: np.ndarray, Vc: np.ndarray, NV: np.ndarray, cmask: np.ndarray, yst: np.ndarray,
              may_pass_turn: bool, best12: tuple[float, float, int], ra: Any) -> None:
    """box_dec[r] = box_code(r, ...) for every final roll r (all the box decisions of a state, for
    play_kernel's memo). One column whose columns add up and no pass: box by box over all rolls
    (box_max: selects, no branches or gathers, the loops vectorize) with box_code's arithmetic and
    ties (the first best box in sheet order); then a Yahtzee roll whose legal boxes differ (a joker)
    or that earns an extra bonus by box_code itself, as every roll of any other sheet.

    Parameters
    ----------
    box_dec : int16[R]
        Written.
    Vc : float64[R]
        Scratch.
    NV, cmask, yst, may_pass_turn, best12, ra
        As box_code.
    """
    R = box_dec.shape[0]
    each = ra.n_cols != 1 or not ra.add_columns or may_pass_turn  # roll by roll, all of them
    open_ = ((1 << ra.nb) - 1) & ~cmask[0]
    yfilled = yst[0] >= 0
    bbits, bfull = roll_legal(open_, yfilled, ra.base_roll, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y,
                              ra.fill[0], ra.lower_bits)
    for r in range(R):
        Vc[r] = NEG
        box_dec[r] = -1
    if not each:
        vmax = ra.du.shape[1]
        sT, vT = score_rows(ra, bfull)
        bb = bbits
        while bb:
            bb, b = next_box(bb)
            box_max(Vc, box_dec, np.int16(b * 2 + (1 if bfull else 0)), sT[b], vT[b], NV[0], b * vmax, ra.nvar[b],
                    ra.mult[0])
    for r in range(R):
        if not each:
            if not ra.yroll[r]:
                continue
            if not (ra.extra != 0 and yst[0] == 1):  # no extra bonus: as every roll unless a joker
                bits, fullv = roll_legal(open_, yfilled, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y, ra.fill[0],
                                         ra.lower_bits)
                if bits == bbits and fullv == bfull:
                    continue
        box_dec[r] = box_code(r, NV, cmask, yst, may_pass_turn, best12, ra)


@njit(**INNER)
def final_values(Vfinal: np.ndarray, work: Any, NV: np.ndarray, cmask: np.ndarray, yst: np.ndarray,
                 may_pass_turn: bool, best12: tuple[float, float, int], ra: Any) -> None:
    """Final-roll values of a sheet's state: Vfinal[r] = the best placement of final roll r over
    every column (relative to staying put); a pass's cost where passing is allowed and nothing would
    score.

    Parameters
    ----------
    Vfinal : float64[R]
        Written.
    work : TurnWork
        Scratch (Vc, nzc, nzr).
    NV, cmask, yst, may_pass_turn, best12, ra
        As box_code.
    """
    Vc, nzc, nzr = work.Vc, work.nzc, work.nzr
    best1, best2, arg1 = best12
    R = Vfinal.shape[0]
    full = (1 << ra.nb) - 1
    for r in range(R):
        Vfinal[r] = NEG
        nzr[r] = False
    for c in range(ra.n_cols):
        column_final(Vc, nzc, full & ~cmask[c], yst[c] >= 0, yst[c] == 1, ra.mult[c], NV[c], ra, ra.fill[c],
                     may_pass_turn)
        if not ra.add_columns:
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


# --------------------------------------------------------------------------- next-state values

FUTURE_TABLE = 0  # F = exact table value table_cell(W, fut, mask, y * (t + 1) + min(u, t))
FUTURE_HEURISTIC = 1  # F = sum of h[open count] over open boxes + G[upper set, min(u, t)] + (yh[open count] if y)
# F = FUTURE_HEURISTIC's + the pairs of open boxes b < c: yh[boxes + 1 + b * boxes + c] (solver.saved_fit)
FUTURE_FITTED = 2


class Future(NamedTuple):
    """The value to go a turn is played against (value_to_go.ValueToGo as the kernels take it):
    `kind` FUTURE_TABLE (table_cell(W, fut, mask, y * (t + 1) + u): a dense table W[midx[mask], ...]
    or a compact one, W[midx[mask] + ulane[sub_of[mask], ...]]), FUTURE_HEURISTIC (h by open count
    and box, G by upper set sub_of[mask] and u, yh by open count while y = 1) or FUTURE_FITTED (the
    heuristic's, plus pairs of open boxes at the end of yh); `t`, `nyt` its lanes."""

    kind: int
    t: int
    nyt: int
    W: Any
    midx: Any
    h: Any
    G: Any
    yh: Any
    sub_of: Any
    ulane: Any = NO_LANES


def table_cell(W: Any, at: Any, mask: int, col: int) -> Any:
    """A table's value of state (mask, col = y * (t + 1) + u) (compiled: see _table_cell). `at` has the
    table's midx, and for a compact table sub_of and ulane (a Future or a StateLayout)."""
    raise NotImplementedError("compiled only")


@overload(table_cell, inline="always")
def _table_cell(W: Any, at: Any, mask: Any, col: Any) -> Any:
    """A dense table (2-D, every lane of every row: the exact tables) is W[midx[mask], col]; a compact
    one (1-D: the saved-rolls table's stock, only the lanes computed) W[midx[mask] + ulane[sub, col]],
    midx the row's first cell and ulane the lane of each (y, u) of the row's upper set (a total that
    cannot reach the bonus any more shares its lane with the others that cannot)."""
    if W.ndim == 2:
        def dense(W: Any, at: Any, mask: Any, col: Any) -> Any:
            return W[at.midx[mask], col]
        return dense

    def compact(W: Any, at: Any, mask: Any, col: Any) -> Any:
        return W[compact_cell(at, mask, col)]
    return compact


@njit(cache=True, inline="always")
def compact_cell(at: Any, mask: int, col: int) -> int:
    """Where a compact table's block keeps state (mask, col = y * (t + 1) + capped u): the row's first
    cell plus the lane of col in its set of filled upper boxes (`at`: a Future or a StateLayout)."""
    return int(at.midx[mask] + at.ulane[at.sub_of[mask], col])


@njit(**INNER)
def state_value(mask: int, y: int, u: int, fut: Any, nb: int) -> float:
    """The value to go of a column at a turn start (filled boxes `mask`, y, upper total u, capped here).

    Parameters
    ----------
    mask, y, u : int
        The column's state.
    fut : Future
        The value to go.
    nb : int
        Boxes in a column.
    """
    t = fut.t
    uu = u if u < t else t
    if fut.kind == FUTURE_TABLE:
        return float(table_cell(fut.W, fut, mask, y * (t + 1) + uu))
    open_ = ((1 << nb) - 1) & ~mask
    n_open = 0
    for b in range(nb):
        n_open += (open_ >> b) & 1
    acc = fut.G[fut.sub_of[mask], uu]
    for b in range(nb):
        if (open_ >> b) & 1:
            acc += fut.h[n_open, b]
            if fut.kind == FUTURE_FITTED:
                row = nb + 1 + b * nb
                rest = open_ >> (b + 1)
                c = b + 1
                while rest:
                    if rest & 1:
                        acc += fut.yh[row + c]
                    rest >>= 1
                    c += 1
    if y == 1:
        acc += fut.yh[n_open]
    return float(acc)


@njit(cache=True, inline="always")
def next_y(y: int, b: int, v: int, nyt: int, ra: Any) -> int:
    """The Yahtzee lane of the state that variant v of box b leads to from lane y, against values
    to go with `nyt` Yahtzee lanes (with one, always 0)."""
    yb = ra.yn[b, v]
    if yb < 0:
        return y
    return int(yb) if nyt == 2 else 0


@njit(**INNER)
def next_values(NVc: np.ndarray, mask: int, y: int, u: int, fnow: float, mc: float, fut: Any, ra: Any) -> None:
    """NVc[b * vmax + v] = mc * (F(the state box b's variant v leads to) - fnow) for every open box b
    of a column in state (mask, y, u): what each placement adds to the value to go.

    Parameters
    ----------
    NVc : float64[B * vmax]
        Written (the slots of open boxes).
    mask, y, u : int
        The column's state (y: 1 while the Yahtzee box holds its full points and that matters).
    fnow : float
        Subtracted from every value (the state's own value: values relative to staying put).
    mc : float
        The column's weight.
    fut : Future
        The value to go.
    ra : tables.RuleArrays
        The rule set's arrays (nvar, du, yn).
    """
    nb = ra.nb
    vmax = ra.du.shape[1]
    for b in range(nb):
        if (mask >> b) & 1:
            continue
        m2 = mask | (1 << b)
        for v in range(ra.nvar[b]):
            NVc[b * vmax + v] = mc * (state_value(m2, next_y(y, b, v, fut.nyt, ra), u + ra.du[b, v], fut, nb) - fnow)


# --------------------------------------------------------------------------- the table build's lanes
#
# The build values many states at once: every lane (y, u) of a batch of filled-box masks side by
# side, arrays [keep, lane] with the lane contiguous, so the keep stages are SIMD loops over lanes
# shared by every mask (kernels.solve_chunk).


class StateLayout(NamedTuple):
    """The table's states as the build's kernels take them (exact.Layout): cell W[midx[mask],
    y * (t + 1) + u]; per set of filled upper boxes `sub` (sub_of[mask]) the upper totals computed
    (ulist[sub, :ucount[sub]]) and those that share the first one's value (dlist[sub, :dcount[sub]])."""

    t: int
    nyt: int
    ybit: int
    midx: Any
    sub_of: Any
    ulist: Any
    ucount: Any
    dlist: Any
    dcount: Any
    ulane: Any = NO_LANES  # a compact table's lanes by upper set and column (table_cell)


class LaneWork(NamedTuple):
    """What the build's kernels compute and their working arrays, for one thread (lane_work).

    moments, allow_pass, n_stages  carry the second moment; passes allowed (a pass value X per lane,
        found by Newton's method); rerolls of a turn
    E, S, Q [K, cap]   keep values, their second moments, pass probabilities (lanes side by side)
    X, acc, acc2, pacc [cap]  a lane's pass value; its turn-start value, second moment, P(pass)
    lu, ly, lrow [cap]  a lane's u, y and table row
    NVl, NVl2 [B * vmax]  a lane's next-state values and second moments per (box, variant) slot
    V, V2, Qb [8, R]    final-roll values of a block of 8 lanes, second moments, pass taken
    spec, sbits, sfull [R]  the rolls of a mask whose legal boxes differ from most rolls' (jokers)
    az [R]              a roll with nothing to score (a pass possible)
    T [R, cap]          scratch: a size of keeps' maxima (best_sub_max)
    starts [dice + 2]   the first keep of each size, and the end
    subs [K, 7]         each keep's sub-keeps as best_roll_max reads them (roll_subs)
    vscore [B, V], vscored [B]  each variant's natural score, where a box's natural score is its
                        variant's (variant_scores)
    sp_on, sp_v0, sp_ptr, sp_roll, sp_var, sp_score  the boxes few rolls score in (sparse_boxes)
    NVt [B * vmax, cap]  a batch's next-state values per slot, its lanes side by side (lanes_next)
    A [3, cap]          scratch: a roll's values (two rows, in turn) and where every roll starts, by
                        lane (lanes_best)
    re_ptr [R + 1], re_slot, re_score  the rule set's placements per roll, zslot [B]
                        (roll_entries)
    """

    moments: bool
    allow_pass: bool
    n_stages: int
    E: Any
    S: Any
    Q: Any
    X: Any
    acc: Any
    acc2: Any
    pacc: Any
    lu: Any
    ly: Any
    lrow: Any
    NVl: Any
    NVl2: Any
    V: Any
    V2: Any
    Qb: Any
    spec: Any
    sbits: Any
    sfull: Any
    az: Any
    T: Any
    starts: Any
    subs: Any
    vscore: Any
    vscored: Any
    sp_on: Any
    sp_v0: Any
    sp_ptr: Any
    sp_roll: Any
    sp_var: Any
    sp_score: Any
    NVt: Any
    A: Any
    re_ptr: Any
    re_slot: Any
    re_score: Any
    zslot: Any


def lane_work(ra: Any, cap: int, moments: bool, allow_pass: bool, n_stages: int,
              next_dtype: Any = np.float64, monotone: bool = True) -> LaneWork:
    """A LaneWork for batches of at most `cap` lanes; NVt holds next values as next_dtype (float32 for
    a float32 table: the same values, half the bytes read); `monotone`: as roll_entries'."""
    R = ra.natT.shape[1]
    K = ra.add_die.shape[0]
    nslot = ra.nb * ra.du.shape[1]
    sp_on, sp_v0, sp_ptr, sp_roll, sp_var, sp_score = sparse_boxes(ra)
    re_ptr, re_slot, re_score, zslot = roll_entries(ra, sp_on, sp_v0, monotone)
    starts = keep_starts(ra.keeps)
    return LaneWork(moments, allow_pass, n_stages, np.empty((K, cap)), np.empty((K if moments else 1, cap)),
                    np.empty((K if allow_pass else 1, cap)), np.empty(cap), np.empty(cap), np.empty(cap),
                    np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64),
                    np.empty(nslot), np.empty(nslot), np.empty((8, R)), np.zeros((8, R)), np.zeros((8, R)),
                    np.empty(R, np.int64), np.empty(R, np.int64), np.empty(R, np.bool_), np.zeros(R, np.bool_),
                    np.empty((R, cap)), starts, roll_subs(ra.drop_die, starts), *variant_scores(ra), sp_on, sp_v0,
                    sp_ptr, sp_roll, sp_var, sp_score, np.empty((nslot, cap), next_dtype), np.empty((3, cap)), re_ptr,
                    re_slot, re_score, zslot)


SPARSE_SHARE = 0.125  # a box at most this share of rolls score in is valued roll by roll (sparse_boxes)


def sparse_boxes(ra: Any) -> tuple[np.ndarray, ...]:
    """The boxes few rolls score in (at most SPARSE_SHARE of them, every other roll making the same
    variant: the straights, a Maxi Yatzy's castle, the Yahtzee box), for lane_values to value roll by
    roll: a roll that scores nothing there is worth the same in any of them, so the best of those
    is one number for every roll. (sp_on [B] bool, sp_v0 [B]: the variant of a roll scoring nothing,
    sp_ptr [B + 1], and per scoring roll of each box in turn sp_roll, sp_var, sp_score.)"""
    B, R = ra.natT.shape
    on = np.zeros(B, np.bool_)
    v0 = np.zeros(B, np.int64)
    rolls: list[np.ndarray] = []
    for b in range(B):
        scores, variants = np.asarray(ra.natT[b]), np.asarray(ra.vnatT[b]).astype(np.int64)
        zero = scores == 0
        if zero.all() or (~zero).mean() > SPARSE_SHARE or len(set(variants[zero].tolist())) != 1:
            rolls.append(np.zeros(0, np.int64))
            continue
        on[b] = True
        v0[b] = variants[zero][0]
        rolls.append(np.flatnonzero(~zero).astype(np.int64))
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rolls])]).astype(np.int64)
    roll = np.concatenate(rolls).astype(np.int64)
    box = np.repeat(np.arange(B), [len(r) for r in rolls])
    var = np.asarray(ra.vnatT, dtype=np.int64)[box, roll]
    score = np.asarray(ra.natT, dtype=np.float64)[box, roll]
    return on, v0, ptr, roll, var, score


def roll_entries(ra: Any, sp_on: np.ndarray, sp_v0: np.ndarray,
                 monotone: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The placements lanes_best takes roll by roll, for every box (lanes_next sets a closed one's NEG):
    each roll's (slot b * vmax + variant, natural score) of a box where the score is not 0, and in every
    box of several variants that is not sparse and has no zslot, in box order; zslot[b] the slot whose
    value every roll starts from, -1 if none:
    - a one-variant box's: a 0 there is worth the state it leads to, and a roll that scores s there
      is worth s more, so starting every roll from it changes no maximum;
    - a sparse box's no-score slot (lane_values'): a roll that scores there is worth at least that
      when its variant is the no-score one, and with a table's values when it is not either (the
      Yahtzee box holding its points: a state with extra bonuses to come is worth at least the one
      without);
    - an upper box's 0 (all its no-score rolls one variant, the others leading to the same Yahtzee
      lane with at least as large an upper total): a table's values never fall as the upper total
      grows (its one use is a bonus of 0 or more at a threshold, and every step from the next
      states' values to a state's, a sum, a product by a chance or a maximum, keeps that order in
      floats too), so a roll that scores s > 0 there is worth at least the 0, and the 0 changes no
      maximum either. A quarter of Maxi Yatzy's placements.
    The orders a table's values keep are taken only where `monotone` (a fitted model's values are
    not known to keep them: then those boxes take every roll). Each roll's placements are padded to
    a multiple of 4 with its last one.
    (re_ptr [R + 1], re_slot, re_score, zslot [B])"""
    B, R = ra.natT.shape
    vmax = ra.du.shape[1]
    nat = np.asarray(ra.natT, dtype=np.float64)
    var = np.asarray(ra.vnatT, dtype=np.int64)
    nvar = np.asarray(ra.nvar, dtype=np.int64)
    du, yn = np.asarray(ra.du), np.asarray(ra.yn)
    if not monotone:  # (a sparse box whose scores lead to other variants than its 0's)
        sp_on = sp_on & np.array([set(var[b, nat[b] != 0.0].tolist()) <= {sp_v0[b]} for b in range(B)])
    zslot = np.where(sp_on, np.arange(B) * vmax + sp_v0, np.where(nvar == 1, np.arange(B) * vmax, -1))
    every = (nvar > 1) & ~sp_on
    for b in np.flatnonzero(every).tolist() if monotone else []:
        zero = nat[b] == 0.0
        v0 = set(var[b, zero].tolist())
        if len(v0) != 1:
            continue
        (z,) = v0
        if all(yn[b, v] == yn[b, z] and du[b, v] >= du[b, z] for v in set(var[b, ~zero].tolist())):
            zslot[b] = b * vmax + z
            every[b] = False
    slots, scores, ptr = [], [], [0]
    for r in range(R):
        for b in range(B):
            if every[b] or nat[b, r] != 0.0:
                slots.append(b * vmax + var[b, r])
                scores.append(nat[b, r])
        while (len(slots) - ptr[-1]) % 4:  # (lanes_best takes 4 a pass: the last again changes no maximum)
            slots.append(slots[-1])
            scores.append(scores[-1])
        ptr.append(len(slots))
    return (np.asarray(ptr, np.int64), np.asarray(slots, np.int64), np.asarray(scores, np.float64),
            zslot.astype(np.int64))


def variant_scores(ra: Any) -> tuple[np.ndarray, np.ndarray]:
    """(vscore [B, V], vscored [B]): the natural score of each variant of each box, and whether every
    roll's natural score in the box is its variant's (an upper box's: the face times its count), so
    that a placement's value can be taken per variant (box_max_scored)."""
    B, V = ra.du.shape
    vscore = np.zeros((B, V))
    vscored = np.zeros(B, np.bool_)
    for b in range(B):
        scores = np.asarray(ra.natT[b])
        variants = np.asarray(ra.vnatT[b]).astype(np.int64)
        first = np.full(V, np.nan)
        first[variants[::-1]] = scores[::-1]  # (some roll's score of each variant)
        vscored[b] = bool(np.all(first[variants] == scores))
        vscore[b] = np.where(np.isnan(first), 0.0, first)
    return vscore, vscored


def keep_starts(keeps: np.ndarray) -> np.ndarray:
    """The first keep of each size (keeps [K, 6] face counts, by size) and the end: int64[dice + 2]."""
    sizes = np.asarray(keeps).sum(axis=1)
    return np.searchsorted(sizes, np.arange(int(sizes.max()) + 2)).astype(np.int64)


@njit(**INNER)
def keep_stages_lanes(work: Any, ra: Any, n: int) -> None:
    """The keep stages of a turn on lanes 0..n-1: from the final-roll values in the full-keep rows of
    work.E (S, Q), n_stages times expect_lanes then best_sub_lanes.

    Parameters
    ----------
    work : LaneWork
        E (S: second moments, Q: pass probabilities) updated in place.
    ra : tables.RuleArrays
        The rule set's arrays (add_die, drop_die).
    n : int
        Lanes in use.
    """
    E, S, Q = work.E, work.S, work.Q
    first_full = ra.add_die.shape[0] - ra.natT.shape[1]
    for _stage in range(work.n_stages):
        expect_lanes(E, first_full, ra.add_die, n)
        if work.moments:
            expect_lanes(S, first_full, ra.add_die, n)
        if work.allow_pass:
            expect_lanes(Q, first_full, ra.add_die, n)
        if work.moments and work.allow_pass:
            best_sub_lanes(E, S, Q, 2, ra.drop_die, n)
        elif work.moments:
            best_sub_lanes(E, S, S, 1, ra.drop_die, n)
        elif work.allow_pass:
            best_sub_lanes(E, Q, Q, 1, ra.drop_die, n)
        else:
            best_roll_max(E, work.T, work.subs, work.starts, n)


@njit(cache=True, inline="always")
def moved_column(du: int, yn: int, y: int, u: int, t: int) -> int:
    """The table column (y * (t + 1) + u capped at t) of the state a placement leads to from lane
    (y, u): the upper total grows by du, the Yahtzee lane becomes yn unless yn < 0."""
    u2 = u + du
    if u2 > t:
        u2 = t
    y2 = y if yn < 0 else yn
    return int(y2 * (t + 1) + u2)


@njit(cache=True, inline="always")
def next_column(lay: Any, ra: Any, b: int, v: int, y: int, u: int) -> int:
    """The table column of the state that variant v of box b leads to from lane (y, u)
    (moved_column)."""
    return moved_column(ra.du[b, v], ra.yn[b, v], y, u, lay.t)


@njit(**INNER)
def mask_rolls(m: int, lay: Any, ra: Any, work: Any) -> tuple[Any, Any, Any, Any]:
    """The legal boxes of mask m's final rolls, as lane_final_values takes them: (the boxes some roll may
    take, the boxes most rolls may take (ra.base_roll's), whether those score as jokers, the number of
    rolls whose legal boxes or joker status differ from those); those rolls into work.spec, sbits and
    sfull, and with passes allowed, whether each roll has nothing to score into work.az."""
    spec, sbits, sfull, az = work.spec, work.sbits, work.sfull, work.az
    R = ra.natT.shape[1]
    open_ = ((1 << ra.nb) - 1) & ~m
    yfilled = (m & lay.ybit) != 0
    bbits, bfull = roll_legal_inline(open_, yfilled, ra.base_roll, ra.yroll, ra.own_bit, ra.joker_code,
                                     ra.has_y, ra.fill0, ra.lower_bits)
    # np.int64 zeros, not literal 0s: a literal argument would compile lane_values a second time
    nspec = np.int64(0)
    any_bits = np.int64(0)
    for r in range(R):
        bits, fullv = roll_legal_inline(open_, yfilled, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y,
                                         ra.fill0, ra.lower_bits)
        any_bits |= bits
        if bits != bbits or fullv != bfull:
            spec[nspec] = r
            sbits[nspec] = bits
            sfull[nspec] = fullv
            nspec += 1
        if work.allow_pass:
            zero = True
            bb = bits
            while bb:
                bb, b = next_box(bb)
                sc = ra.jokT[b, r] if fullv else ra.natT[b, r]
                if sc != 0.0:
                    zero = False
            az[r] = zero
    return any_bits, bbits, bfull, nspec


@njit(**INNER)
def lane_final_values(m: int, off: Int, nl: int, sub: int, sets: Any, lay: Any, ra: Any, W: np.ndarray,
                      W2: np.ndarray, work: Any) -> None:
    """Final-roll values of mask m's lanes off..off+nl into the full-keep rows of work.E (S: second
    moment, Q: pass probability): per lane, max over legal boxes of score + value of the next state.
    Lane by lane: rolls whose legal boxes and joker status equal those of ra.base_roll box by box over
    all rolls (SIMD over rolls), the others (joker rolls) one by one. (Without second moments, passes
    or base rolls scoring as jokers, the build takes a batch's lanes at once instead: lanes_next,
    lanes_best, lanes_fixups.)

    Parameters
    ----------
    m : int
        The filled-box mask.
    off, nl : int
        Its first lane in work and its number of lanes.
    sub : int
        Its set of filled upper boxes (lay.sub_of[m]).
    sets : (int, int, bool, int)
        Its final rolls' legal boxes (mask_rolls; its rolls of other legal boxes in work.spec, sbits,
        sfull: a build that values the same masks at many levels finds them once).
    lay : StateLayout
        The table's states.
    ra : tables.RuleArrays
        The rule set's arrays.
    W, W2 : float64[rows, nyt * (t + 1)]
        The table's values and second moments (rows of later masks read).
    work : LaneWork
        Written: E (S, Q) full-keep rows of the lanes; lu, ly; scratch.
    """
    E, S, Q, V, V2, Qb = work.E, work.S, work.Q, work.V, work.V2, work.Qb
    keep_of_roll = ra.keep_of_roll
    R = ra.natT.shape[1]
    for blk in range(0, nl, 8):
        nbk = min(8, nl - blk)
        for i in range(nbk):
            lane_values((off + blk + i, blk + i, i), sub, m, sets, lay, ra, W, W2, work)
        # transpose the block into the full-keep rows: E[keep_of_roll[r], lane]
        L0 = off + blk
        for r in range(R):
            kr = keep_of_roll[r]
            for i in range(nbk):
                E[kr, L0 + i] = V[i, r]
        if work.moments:
            for r in range(R):
                kr = keep_of_roll[r]
                for i in range(nbk):
                    S[kr, L0 + i] = V2[i, r]
        if work.allow_pass:
            for r in range(R):
                kr = keep_of_roll[r]
                for i in range(nbk):
                    Q[kr, L0 + i] = Qb[i, r]


@njit(cache=True, inline="always")
def lane_state(m: int, lane: int, sub: int, lay: Any) -> tuple[int, int]:
    """(u, y) of lane `lane` of mask m (lane = y * ucount[sub] + the index of u)."""
    nu = lay.ucount[sub]
    return lay.ulist[sub, lane % nu], lane // nu


@njit(cache=True, inline="always")
def lane_next_cells(NV: np.ndarray, i: Int, any_bits: int, m: int, y: int, u: int, lay: Any, ra: Any,
                    W: np.ndarray) -> None:
    """NV[b * vmax + v, i] = the table's value of the state variant v of box b leads to from lane
    (y, u) of mask m, for the boxes in any_bits."""
    vmax = ra.du.shape[1]
    for b in range(ra.nb):
        if not (any_bits >> b) & 1:
            continue
        mb = m | (1 << b)
        for v in range(ra.nvar[b]):
            NV[b * vmax + v, i] = table_cell(W, lay, mb, next_column(lay, ra, b, v, y, u))


@njit(**INNER)
def lanes_next(m: int, off: Int, nl: int, sub: int, sets: Any, lay: Any, ra: Any, W: np.ndarray,
               work: Any) -> None:
    """Mask m's lanes off..off+nl for lanes_best: work.NVt[slot, lane] the value of the state each
    (box, variant) leads to for the boxes most rolls may take (sets[1]), NEG for every other slot
    (a box closed or not legal: never the best); work.lu, ly. Slot by slot, each next row found
    once for all the mask's lanes (row_cells). Parameters as lane_final_values'."""
    any_bits, bbits, _, _ = sets
    NVt, lu, ly = work.NVt, work.lu, work.ly
    vmax = ra.du.shape[1]
    for i in range(nl):
        u, y = lane_state(m, i, sub, lay)
        lu[off + i] = u
        ly[off + i] = y
    for b in range(ra.nb):
        if not (bbits >> b) & 1:
            for v in range(ra.nvar[b]):
                for i in range(off, off + nl):
                    NVt[b * vmax + v, i] = NEG
        elif (any_bits >> b) & 1:
            mb = m | (1 << b)
            for v in range(ra.nvar[b]):
                row_cells(NVt[b * vmax + v], off, nl, W, lay, mb, ra.du[b, v], ra.yn[b, v], lu, ly)


def row_cells(out: Any, off: Int, nl: int, W: Any, at: Any, mask: int, du: int, yn: int, lu: Any,
              ly: Any) -> None:
    """out[off + i] = the table's value of the state (mask, moved_column(du, yn, y, u, at.t)) for
    lanes i < nl with their (y, u) in (ly, lu): table_cell for one next row, its place found once
    (compiled: see _row_cells)."""
    raise NotImplementedError("compiled only")


@overload(row_cells, inline="always")
def _row_cells(out: Any, off: Any, nl: Any, W: Any, at: Any, mask: Any, du: Any, yn: Any, lu: Any,
               ly: Any) -> Any:
    """A dense table's row is one row of W, a compact one's cells are the row's first cell plus the
    lane of each column (table_cell)."""
    if W.ndim == 2:
        def dense(out: Any, off: Any, nl: Any, W: Any, at: Any, mask: Any, du: Any, yn: Any, lu: Any,
                  ly: Any) -> None:
            row = W[at.midx[mask]]
            for i in range(off, off + nl):
                out[i] = row[moved_column(du, yn, ly[i], lu[i], at.t)]
        return dense

    def compact(out: Any, off: Any, nl: Any, W: Any, at: Any, mask: Any, du: Any, yn: Any, lu: Any,
                ly: Any) -> None:
        base = at.midx[mask]
        lanes = at.ulane[at.sub_of[mask]]
        for i in range(off, off + nl):
            out[i] = W[base + lanes[moved_column(du, yn, ly[i], lu[i], at.t)]]
    return compact


@njit(**INNER)
def lanes_best(n: Int, ra: Any, work: Any) -> None:
    """Final-roll values of a batch's lanes 0..n-1 (their next-state values in work.NVt: lanes_next)
    into the full-keep rows of work.E, roll by roll with SIMD over every lane of the batch: each roll
    starts from the best of the boxes where a 0 is worth what every roll gets (roll_entries' zslot),
    then takes the rule set's other placements of the roll (re_*), score + the lanes' values, 4 in a
    pass over the lanes. A placement's variant is the roll's, the same in every lane: no pick
    among variants, no transpose.
    The same floats as lane_values' (the same sums; a maximum over the same options, plus ones worth
    NEG and ones no larger than another option of the roll)."""
    E, NVt, A2, zslot = work.E, work.NVt, work.A, work.zslot
    re_ptr, re_slot, re_score = work.re_ptr, work.re_slot, work.re_score
    z = A2[2]
    for i in range(n):
        z[i] = NEG
    for b in range(zslot.shape[0]):
        zs = zslot[b]
        if zs >= 0:
            for i in range(n):
                a = NVt[zs, i]
                z[i] = a if a > z[i] else z[i]
    for r in range(ra.keep_of_roll.shape[0]):
        # from one row of A2 into the other (a loop that stores into the array it reads ran one lane
        # at a time), 4 placements a pass (roll_entries pads to that): a quarter of the rows read
        # and written
        src = z
        k = 0
        for e in range(re_ptr[r], re_ptr[r + 1], 4):
            dst = A2[k & 1]
            s0, s1, s2, s3 = re_score[e], re_score[e + 1], re_score[e + 2], re_score[e + 3]
            w0, w1, w2, w3 = re_slot[e], re_slot[e + 1], re_slot[e + 2], re_slot[e + 3]
            for i in range(n):
                a = src[i]
                c = s0 + NVt[w0, i]
                a = c if c > a else a
                c = s1 + NVt[w1, i]
                a = c if c > a else a
                c = s2 + NVt[w2, i]
                a = c if c > a else a
                c = s3 + NVt[w3, i]
                dst[i] = c if c > a else a
            src = dst
            k += 1
        kr = ra.keep_of_roll[r]
        for i in range(n):
            E[kr, i] = src[i]


@njit(**INNER)
def lanes_fixups(m: int, off: Int, nl: int, sub: int, sets: Any, lay: Any, ra: Any, W: np.ndarray,
                 work: Any) -> None:
    """After lanes_best, mask m's rolls of other legal boxes (jokers: sets[3] of them in work.spec,
    sbits, sfull) valued one by one, then the extra bonuses, lane by lane, as lane_values does.
    Parameters as lane_final_values'."""
    any_bits, _, _, nspec = sets
    E = work.E
    vmax = ra.du.shape[1]
    NVl = work.NVl.reshape((work.NVl.shape[0], 1))
    for i in range(nl):
        L = off + i
        y = work.ly[L]
        if nspec > 0:
            lane_next_cells(NVl, 0, any_bits, m, y, work.lu[L], lay, ra, W)
        for k in range(nspec):
            r = work.spec[k]
            sTr, vTr = score_rows(ra, work.sfull[k])
            E[ra.keep_of_roll[r], L] = roll_max(r, work.sbits[k], sTr, vTr, work.NVl, work.NVl2, False, None, vmax)[0]
        for k in range(ra.bonus_rolls.shape[0]):
            r = ra.bonus_rolls[k]
            bon = float(extra_bonus_points(ra.yroll[r], y == 1, ra.extra))
            if bon != 0.0:
                E[ra.keep_of_roll[r], L] += bon


@njit(cache=True, inline="always")
def _box_max2(V: np.ndarray, V2: np.ndarray, sb: np.ndarray, vb: np.ndarray, NVl: np.ndarray, NVl2: np.ndarray,
              base: int, nvb: int) -> None:
    """box_max (weight 1) carrying the second moment of the outcome: V2[r] = E[(score + rest)^2] of
    the best box."""
    R = V.shape[0]
    t = _variants(NVl, base, nvb)
    q = _variants(NVl2, base, nvb)
    for r in range(R):
        v = vb[r] if nvb > 1 else 0
        a = _pick(v, t)
        sc = sb[r]
        c = sc + a
        if c > V[r]:
            V[r] = c
            V2[r] = sc * sc + 2.0 * sc * a + _pick(v, q)


@njit(cache=True, inline="always")
def lane_values(at: Any, sub: int, m: int, sets: Any, lay: Any, ra: Any, W: np.ndarray, W2: np.ndarray,
                work: Any) -> None:
    """Final-roll values of one lane (y, u) of mask m: work.V[i, r] (V2: second moments, Qb: the pass
    taken).

    Parameters
    ----------
    at : (int, int, int)
        (L, lane, i): the lane's index in work (lu, ly, X), its index among the mask's lanes
        (y * ucount[sub] + the index of u), its row in V, V2, Qb.
    sub, m : int
        The mask's set of filled upper boxes, the mask.
    sets : (int, int, bool, int)
        (the boxes some roll may take, most rolls' legal boxes, whether those score as jokers, the
        number of rolls with other legal boxes: work.spec)
    lay, ra, W, W2, work
        As lane_final_values.
    """
    L, lane, i = at
    any_bits, bbits, bfull, nspec = sets
    moments = work.moments
    NVl, NVl2 = work.NVl, work.NVl2
    V, V2, Qr = work.V[i], work.V2[i], work.Qb[i]
    yroll = ra.yroll
    R = V.shape[0]
    vmax = ra.du.shape[1]
    u, y = lane_state(m, lane, sub, lay)
    work.lu[L] = u
    work.ly[L] = y
    # values (and second moments) of the states each (box, variant) leads to
    lane_next_cells(NVl.reshape((NVl.shape[0], 1)), 0, any_bits, m, y, u, lay, ra, W)
    if moments:
        for b in range(ra.nb):
            if (any_bits >> b) & 1:
                for v in range(ra.nvar[b]):
                    NVl2[b * vmax + v] = W2[lay.midx[m | (1 << b)], next_column(lay, ra, b, v, y, u)]
    sT, vT = score_rows(ra, bfull)
    if moments or bfull:
        V[:] = NEG
        while bbits:  # (the boxes most rolls may take)
            bbits, b = next_box(bbits)
            if moments:
                _box_max2(V, V2, sT[b], vT[b], NVl, NVl2, b * vmax, ra.nvar[b])
            else:
                box_max(V, None, 0, sT[b], vT[b], NVl, b * vmax, ra.nvar[b], None)
    else:
        # the boxes few rolls score in: a roll scoring nothing there is worth the best of their
        # no-score values, every roll's start; the rolls that score, one by one (sparse_boxes)
        z = NEG
        bb = bbits
        while bb:
            bb, b = next_box(bb)
            if work.sp_on[b]:
                a = NVl[b * vmax + work.sp_v0[b]]
                z = a if a > z else z
        V[:] = z
        while bbits:
            bbits, b = next_box(bbits)
            if work.sp_on[b]:
                for at_ in range(work.sp_ptr[b], work.sp_ptr[b + 1]):
                    r = work.sp_roll[at_]
                    c = work.sp_score[at_] + NVl[b * vmax + work.sp_var[at_]]
                    V[r] = c if c > V[r] else V[r]
            elif ra.nvar[b] > 1 and work.vscored[b]:
                box_max_scored(V, vT[b], NVl, work.vscore[b], b * vmax, ra.nvar[b])
            else:
                box_max(V, None, 0, sT[b], vT[b], NVl, b * vmax, ra.nvar[b], None)
    for k in range(nspec):
        r = work.spec[k]
        fullv = work.sfull[k]
        sTr, vTr = score_rows(ra, fullv)
        V[r], V2[r], _ = roll_max(r, work.sbits[k], sTr, vTr, NVl, NVl2, moments, None, vmax)
    for k in range(ra.bonus_rolls.shape[0]):
        r = ra.bonus_rolls[k]
        bon = float(extra_bonus_points(yroll[r], y == 1, ra.extra))
        if bon != 0.0:
            V2[r] += bon * (bon + 2.0 * V[r])
            V[r] += bon
    if work.allow_pass:
        X = work.X
        for r in range(R):
            q = 0.0
            if work.az[r] and X[L] > V[r] and extra_bonus_points(yroll[r], y == 1, ra.extra) == 0:
                V[r] = X[L]
                V2[r] = 0.0
                q = 1.0
            Qr[r] = q


# --------------------------------------------------------------------------- over the final score
#
# An objective over the final score (solver.utility: a target's probability, a share of first place)
# values each state by a vector over the points gained so far, the trailing lane axis of the keep
# stages: its final-roll values shift the next states' vectors by the points written (shifted_final);
# its keep stages weigh stopping afresh at every stage (keep_stages_stopping).


@njit(**INNER)
def shifted_final(m: int, y: int, Vn: Any, nxt_i: Any, ra: Any, F: Any, box_val: Any,
                  r_pos: int) -> None:
    """Final-roll values of an objective over the final score (solver.utility: E[u(final total)]) in
    state (mask m, Yahtzee lane y), over the points x gained so far: F[r, x] = the best box for final
    roll r, max over its legal boxes of the next state's vector shifted by the points written,
    Vn[nxt_i[b, v], min(x + points, X - 1)]; with r_pos >= 0, also box_val[b, x] (roll r_pos written
    in box b; -1 where illegal).

    Parameters
    ----------
    m, y : int
        The state: filled boxes, Yahtzee lane.
    Vn : float64[states, X]
        The states' vectors (those of m's next states read).
    nxt_i : int64[B, vmax]
        The index in Vn of the state box b (variant v) leads to.
    ra : tables.RuleArrays
        The rule set's arrays.
    F : float64[R, X]
        Written.
    box_val : float64[B, X]
        Written when r_pos >= 0.
    r_pos : int
        The roll showing (Solved.values), or -1.
    """
    R = ra.natT.shape[1]
    X = Vn.shape[1]
    nb = ra.nb
    full = (1 << nb) - 1
    open_ = full & ~m
    ybit = (1 << ra.ybox) if ra.has_y else 0
    yfilled = (m & ybit) != 0
    for r in range(R):
        yr = ra.yroll[r]
        jk = joker_now(ra.joker_code, ra.has_y, yfilled, yr)
        bits = legal_bits(open_, ra.fill0, jk and ra.joker_code == 1, ra.own_bit[r], ra.lower_bits)
        fullv = joker_full_value(jk, open_, ra.own_bit[r])
        bon = extra_bonus_points(yr, y == 1, ra.extra)
        for x in range(X):
            F[r, x] = -1.0
        if r == r_pos:
            for b in range(nb):
                for x in range(X):
                    box_val[b, x] = -1.0
        while bits:
            bits, b = next_box(bits)
            if fullv:
                sc = ra.joker[r, b]
                v = ra.var_jok[r, b]
            else:
                sc = ra.natural[r, b]
                v = ra.var_nat[r, b]
            pts = sc + bon
            j = nxt_i[b, v]
            for x in range(X):
                xx = x + pts
                if xx > X - 1:
                    xx = X - 1
                val = Vn[j, xx]
                if val > F[r, x]:
                    F[r, x] = val
                if r == r_pos:
                    box_val[b, x] = val


@njit(**INNER)
def keep_stages_stopping(F: np.ndarray, G: np.ndarray, E: np.ndarray, B: np.ndarray, ra: Any, J: int) -> None:
    """The keep stages of a turn over lanes x (a trailing axis: solver.utility's points gained) whose
    every stage weighs stopping on roll r at F[r] afresh (the best of a roll with j + 1 rerolls left
    is max(F, its best proper keep), not max(its best with j, ...) as in keep_stages_lanes): with
    j = 0..J - 1, G[j, k] = keep k's value when its reroll leaves j more rolls; B[r] the best of roll
    r with J rerolls left. expect_lanes and best_sub_lanes over the lanes.

    Parameters
    ----------
    F : float64[R, X]
        The value of stopping on each final roll.
    G : float64[J, K, X]
        Written: keep values (the keeps smaller than a full roll).
    E : float64[K, X]
        Scratch.
    B : float64[R, X]
        Written.
    ra : tables.RuleArrays
        The rule set's arrays (add_die, drop_die, keep_of_roll, roll_of_keep).
    J : int
        Rerolls.
    """
    R, X = F.shape
    K = ra.add_die.shape[0]
    first_full = K - R
    for r in range(R):
        for x in range(X):
            B[r, x] = F[r, x]
    for j in range(J):
        for k in range(first_full, K):  # a full keep is worth its roll's best with j more rolls
            r = ra.roll_of_keep[k]
            for x in range(X):
                E[k, x] = B[r, x]
        expect_lanes(E, first_full, ra.add_die, X)
        for k in range(first_full):
            for x in range(X):
                G[j, k, x] = E[k, x]
        for k in range(first_full, K):  # stopping
            r = ra.roll_of_keep[k]
            for x in range(X):
                E[k, x] = F[r, x]
        best_sub_lanes(E, E, E, 0, ra.drop_die, X)
        for r in range(R):
            kr = ra.keep_of_roll[r]
            for x in range(X):
                B[r, x] = E[kr, x]


# --------------------------------------------------------------------------- Turn's arithmetic
#
# strategy.turn.Turn values a position in pure Python; the grader (grade_kernel) values the same
# positions compiled, with Turn's arithmetic in Turn's order, so that values agree to the last bit and
# ties break alike: a placement is worth mult * ((score + bonus) + F(next) - F(now)) (not the build's
# mult * score + mult * (F(next) - F(now))) and maxima start at -inf (keep values are keep_values',
# whose arithmetic Turn shares). These kernels are inlined into the grader's one loop
# and take the arrays they read out of the bundles once a call, never inside a loop: each array taken
# out costs a reference count (several times the arithmetic of a placement); turn_after, which runs
# for every placement, takes numbers and the table alone.

TURN_NEG = -np.inf  # Turn starts its maxima at float("-inf")


class PositionWork(NamedTuple):
    """A sheet position valued as strategy.turn.Turn values it: its numbers and working arrays
    (position_work; one per thread). C columns, B boxes, R rolls, K keeps, J rolls left at most.

    fcur, others [C]    a column's value to go; the best weighted estimate of the other columns
    rows, lanes [C, B]  the table row of the column with box b filled (-1: a sheet the table does not
        hold) and its Yahtzee lane
    final, scoring [R]  the final-roll values relative to the position's; a placement of the roll scores
    opt_v [C * B], opt_i [C * B, 4]  one roll's legal placements: value; column, box, score, bonus
    E [K], EJ [J, K]    keep values (scratch; with j rolls left)
    Eb [K]              a roll's keep values plus the position's (compared as Turn compares them)
    stops [1, R]        final as one row (it is row 0): keep_values' stopping values
    """

    fcur: Any
    others: Any
    rows: Any
    lanes: Any
    final: Any
    scoring: Any
    opt_v: Any
    opt_i: Any
    E: Any
    EJ: Any
    Eb: Any
    stops: Any


def position_work(ra: Any, stages: int) -> PositionWork:
    """A PositionWork for the rule set's arrays `ra`, with keep values for `stages` rolls left."""
    C, B = ra.n_cols, ra.nb
    R, K = ra.natT.shape[1], ra.add_die.shape[0]
    stops = np.empty((1, R))
    return PositionWork(np.empty(C), np.empty(C), np.empty((C, B), np.int64), np.empty((C, B), np.int64),
                        stops[0], np.empty(R, np.bool_), np.empty(C * B), np.empty((C * B, 4), np.int64),
                        np.empty(K), np.empty((max(stages, 1), K)), np.empty(K), stops)


@njit(cache=True, inline="always")
def turn_position(cols_t: np.ndarray, ra: Any, fut: Any, pw: Any) -> tuple[int, float]:
    """A position's value (Turn.__post_init__) and where each open box leads: (0, the sheet's value),
    or (1, 0.0) when the table does not hold the position. Written: pw.fcur, pw.others, pw.rows,
    pw.lanes.

    Parameters
    ----------
    cols_t : int64[C, 4]
        Per column: filled mask, upper total, Yahtzee box (-1 open, 0 zero, 1 full points), points
        written without the upper bonus.
    ra : tables.RuleArrays
        The rule set's arrays.
    fut : Future
        The value to go: an exact table (FUTURE_TABLE; its lanes t, nyt).
    pw : PositionWork
        Written.
    """
    t, nyt, nb, n_cols, add_columns = fut.t, fut.nyt, ra.nb, ra.n_cols, ra.add_columns
    W, midx, mult = fut.W, fut.midx, ra.mult
    fcur, others, rows, lanes = pw.fcur, pw.others, pw.rows, pw.lanes
    base = 0.0
    for c in range(n_cols):
        mask, u, ys, raw = cols_t[c, 0], cols_t[c, 1], cols_t[c, 2], cols_t[c, 3]
        row = midx[mask]
        if row < 0:
            return 1, 0.0
        fcur[c] = W[row, (1 if ys == 1 and nyt == 2 else 0) * (t + 1) + (u if u < t else t)]
        w = (raw + fcur[c]) * mult[c]
        if add_columns:
            base += w
        elif c == 0 or w > base:
            base = w
    for c in range(n_cols):  # where each open box leads: the table row of the next state
        mask, ys = cols_t[c, 0], cols_t[c, 2]
        for b in range(nb):
            rows[c, b] = 0
            lanes[c, b] = t + 1 if ys == 1 and nyt == 2 else 0
            if not (mask >> b) & 1:
                rows[c, b] = midx[mask | (1 << b)]  # -1: not in the table (then never legal)
    for c in range(n_cols):  # the best other column (add_columns off keeps the best one)
        others[c] = TURN_NEG
        for c2 in range(n_cols):
            w = (cols_t[c2, 3] + fcur[c2]) * mult[c2]
            if c2 != c and w > others[c]:
                others[c] = w
    return 0, base


@njit(cache=True, inline="always")
def turn_after(sc: int, bon: int, box: Any, col: Any, base: float, nums: Any, W: np.ndarray) -> float:
    """Turn._after: the expected final total after writing `sc` (+ `bon`) in a box of a column,
    relative to the position's value (it runs for every placement: numbers and the table only).

    Parameters
    ----------
    sc, bon : int
        The score written and the extra bonus earned.
    box : (int, bool, int, int)
        The box: its index, whether it is an upper box, the table row of the column with it filled
        and its Yahtzee lane (turn_position's rows, lanes; the Yahtzee box's own lane follows the
        score written).
    col : (int, int, float, float, float)
        The column: its upper total, points written; its weight, value to go and the best weighted
        estimate of the other columns (turn_position's fcur, others).
    base : float
        The position's value (turn_position).
    nums : (int, int, int, int, int)
        turn_numbers: the table's t and nyt; the rule set's ybox, ypoints and add_columns.
    W : float64[rows, nyt * (t + 1)]
        The table's values (Future.W).
    """
    b, up, row, lane = box
    u, raw, mc, fc, oth = col
    t, nyt, ybox, ypoints, add_columns = nums
    u2 = u + sc if up else u
    if b == ybox:
        lane = t + 1 if sc == ypoints and nyt == 2 else 0
    f2 = W[row, lane + (u2 if u2 < t else t)]
    if add_columns:
        return float(mc * (float(sc + bon) + f2 - fc))
    new = (float(raw + sc + bon) + f2) * mc
    return float((new if new > oth else oth) - base)


@njit(cache=True, inline="always")
def turn_numbers(ra: Any, fut: Any) -> tuple[int, int, int, int, int]:
    """turn_after's numbers: (t, nyt, ybox, ypoints, add_columns)."""
    return fut.t, fut.nyt, ra.ybox, ra.ypoints, ra.add_columns


@njit(cache=True, inline="always")
def turn_options(r: int, cols_t: np.ndarray, base: float, ra: Any, fut: Any, pw: Any) -> tuple[int, bool]:
    """Every legal placement of roll r (Turn._options, in its order: by column, then box) with its
    value relative to the position's (pw.opt_v) and its column, box, score and bonus (pw.opt_i).
    Returns (count, whether one scores: no pass then), count -1 when the table lacks a state it
    leads to. With r = -1, every Yahtzee roll's in turn (the rolls whose legal boxes may differ from
    the others'), the best of each into pw.final and whether one scores into pw.scoring (count 0).

    Parameters
    ----------
    r : int
        The roll, or -1.
    cols_t, base, ra, fut
        As turn_position; base its value.
    pw : PositionWork
        turn_position's; opt_v, opt_i written (final, scoring with r = -1).
    """
    yroll, own_bit, fill, joker, natural, is_upper = ra.yroll, ra.own_bit, ra.fill, ra.joker, ra.natural, ra.is_upper
    W, mult, fcur, others, rows, lanes = fut.W, ra.mult, pw.fcur, pw.others, pw.rows, pw.lanes
    opt_v, opt_i, final, scoring = pw.opt_v, pw.opt_i, pw.final, pw.scoring
    nums = turn_numbers(ra, fut)
    full = (1 << ra.nb) - 1
    n = 0
    any_score = False
    for rr in range(r if r >= 0 else 0, r + 1 if r >= 0 else yroll.shape[0]):
        if r < 0 and not yroll[rr]:
            continue
        n = 0
        any_score = False
        best = TURN_NEG
        for c in range(ra.n_cols):
            mask, u, ys, raw = cols_t[c, 0], cols_t[c, 1], cols_t[c, 2], cols_t[c, 3]
            bits, fullv = roll_legal(full & ~mask, ys >= 0, rr, yroll, own_bit, ra.joker_code, ra.has_y, fill[c],
                                     ra.lower_bits)
            bon = extra_bonus_points(yroll[rr], ys == 1, ra.extra)
            col = (u, raw, mult[c], fcur[c], others[c])
            for b in range(ra.nb):
                if not (bits >> b) & 1:
                    continue
                if rows[c, b] < 0:
                    return -1, any_score
                sc = joker[rr, b] if fullv else natural[rr, b]
                any_score = any_score or sc != 0 or bon != 0
                v = turn_after(sc, bon, (b, is_upper[b], rows[c, b], lanes[c, b]), col, base, nums, W)
                best = v if v > best else best
                opt_v[n] = v
                opt_i[n, 0], opt_i[n, 1], opt_i[n, 2], opt_i[n, 3] = c, b, sc, bon
                n += 1
        if r < 0:
            final[rr] = best
            scoring[rr] = any_score
    return (n, any_score) if r >= 0 else (0, False)


@njit(cache=True, inline="always")
def turn_final_values(cols_t: np.ndarray, base: float, ra: Any, fut: Any, pw: Any) -> int:
    """A position's final-roll values (Turn._roll_final) into pw.final, relative to the position's
    value (a pass: -PASS_COST where nothing scores and passes are allowed); 0, or 1 when a state they
    lead to is not in the table. Every roll but a Yahtzee may go in the same boxes at its natural
    score with no bonus: box by box over all rolls (the maximum does not depend on the order); then
    the Yahtzee rolls one by one (turn_options, all in one call).

    Parameters
    ----------
    cols_t, base, ra, fut, pw
        As turn_options (pw: final, scoring, opt_v, opt_i written).
    """
    final, scoring, rows, lanes, fcur, others = pw.final, pw.scoring, pw.rows, pw.lanes, pw.fcur, pw.others
    natural, yroll, own_bit, fill, mult, is_upper = ra.natural, ra.yroll, ra.own_bit, ra.fill, ra.mult, ra.is_upper
    W = fut.W
    t = fut.t
    nums = turn_numbers(ra, fut)
    R = final.shape[0]
    for r in range(R):
        final[r] = TURN_NEG
        scoring[r] = False
    for c in range(ra.n_cols):
        mask, u, ys, raw = cols_t[c, 0], cols_t[c, 1], cols_t[c, 2], cols_t[c, 3]
        bits, _ = roll_legal(((1 << ra.nb) - 1) & ~mask, ys >= 0, ra.base_roll, yroll, own_bit, ra.joker_code,
                             ra.has_y, fill[c], ra.lower_bits)
        col = (u, raw, mult[c], fcur[c], others[c])
        for b in range(ra.nb):
            if not (bits >> b) & 1:
                continue
            if rows[c, b] < 0:
                return 1
            if ra.add_columns and b != ra.ybox:  # turn_after's arithmetic, its lookups made once for the box
                row, lane, mc, fc, up = rows[c, b], lanes[c, b], mult[c], fcur[c], is_upper[b]
                f2 = W[row, lane + (u if u < t else t)]
                for r in range(R):
                    sc = natural[r, b]
                    if up:
                        u2 = u + sc
                        f2 = W[row, lane + (u2 if u2 < t else t)]
                    v = float(mc * (float(sc) + f2 - fc))
                    final[r] = v if v > final[r] else final[r]
                    scoring[r] = scoring[r] or sc != 0
                continue
            box = (b, is_upper[b], rows[c, b], lanes[c, b])
            for r in range(R):
                sc = natural[r, b]
                v = turn_after(sc, 0, box, col, base, nums, W)
                final[r] = v if v > final[r] else final[r]
                scoring[r] = scoring[r] or sc != 0
    if turn_options(-1, cols_t, base, ra, fut, pw)[0] < 0:  # the Yahtzee rolls
        return 1
    if not ra.must_zero:
        for r in range(R):
            if final[r] < -PASS_COST and not scoring[r]:
                final[r] = -PASS_COST  # a pass: the same position next turn
    return 0
