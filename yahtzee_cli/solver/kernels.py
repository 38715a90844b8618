"""Compiled kernels of the solver: the exact backward induction and the within-turn machinery.

Every rule comes from rules.py: the int-only functions `legal_bits`, `joker_now`, `joker_full_value`
and `extra_bonus_points` are compiled once in compiled.py (never restated), and the scores come from
tables.score_tables (rules.natural_score / rules.joker_value). The kernels only add dynamic
programming.

State of a column at the start of a turn: the filled-box mask, the upper total capped at the
threshold `t` (lanes u = 0..t) and, when the Yahtzee box is filled and extra bonuses exist, whether it
holds its full points (y = 1) or a zero (y = 0). The upper bonus is a terminal reward (paid when the
capped total reaches `t` at the end), which is the same expectation and works for any threshold.

Within a turn (Verhoeff's stages): V0[r] = best box for the final roll r; for each roll left
j = 1, 2: E_j[k] = expected V_{j-1} after keeping k and rerolling the rest ("add one die":
E[k] = mean over faces f of E[k + f], with E of a full keep = V_{j-1} of that roll) and
V_j[r] = max over sub-keeps k of r of E_j[k] ("drop one die": M[k] = max(E[k], max_f M[k - f]),
in place in increasing keep size). The turn-start value is sum_r P(r) V_2[r].

The build kernel evaluates, per filled-box mask, every reachable (y, u) lane of that mask at once:
all arrays are [keep, lane] with the lane contiguous, so the inner loops are SIMD over lanes.
Masks of one popcount layer are independent and run in parallel (solve_chunk on threads, GIL released).
"""

from __future__ import annotations

import numpy as np

from .compiled import (
    FORCED,
    extra_bonus_points,
    joker_full_value,
    joker_now,
    legal_bits,
)
from .jit import INNER, njit

Int = int | np.int64  # an argument compiled code passes as np.int64, never as a literal int

NEG = -1.0e300  # "no option" (never NaN)


@njit(cache=True, inline="always")
def roll_legal(open_: int, yfilled: bool, r: int, yroll: np.ndarray, own_bit: np.ndarray,
               joker_code: int, has_y: bool, fill: int, lower_bits: int) -> tuple[int, bool]:
    """Legal boxes of roll r in a column with open boxes `open_`, and whether a joker scores full value."""
    jk = joker_now(joker_code, has_y, yfilled, yroll[r])
    bits = legal_bits(open_, fill, jk and joker_code == FORCED, own_bit[r], lower_bits)
    return bits, joker_full_value(jk, open_, own_bit[r])


@njit(cache=True)
def roll_options(filled: int, yfilled: bool, yfull: bool, r: int, natural: np.ndarray, joker: np.ndarray,
                 yroll: np.ndarray, own_bit: np.ndarray, nb: int, joker_code: int, has_y: bool, fill: int,
                 lower_bits: int, extra: int) -> tuple[int, np.ndarray, int]:
    """What the kernels let roll r do in a column: legal boxes (bits), the score each would write
    (natural, or a joker's full value) and the extra bonus. For cross-checks against rules.py."""
    open_ = ((1 << nb) - 1) & ~filled
    bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
    out = np.zeros(nb, np.int64)
    for b in range(nb):
        if (bits >> b) & 1:
            out[b] = joker[r, b] if fullv else natural[r, b]
    return bits, out, extra_bonus_points(yroll[r], yfull, extra)


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


# --------------------------------------------------------------------------- within-turn stages


@njit(cache=True, inline="always")
def _expect(E: np.ndarray, first_full: int, add_die: np.ndarray, n: int) -> None:
    """E[k] = mean over faces of E[k + f] for every keep smaller than a full roll (descending size)."""
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
def _best_sub(E: np.ndarray, K: int, drop_die: np.ndarray, n: int) -> None:
    """In place, in increasing keep size: E[k] = max(E[k], E[k - f]) -> best sub-keep value."""
    for k in range(1, K):
        for f in range(6):
            d = drop_die[k, f]
            if d >= 0:
                for lane in range(n):
                    a = E[k, lane]
                    b = E[d, lane]
                    E[k, lane] = b if b > a else a


@njit(cache=True, inline="always")
def _expect2(E: np.ndarray, S: np.ndarray, first_full: int, add_die: np.ndarray,
             n: int) -> None:
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
            S[k, lane] = (S[a0, lane] + S[a1, lane] + S[a2, lane] + S[a3, lane] + S[a4, lane]
                          + S[a5, lane]) * sixth


@njit(cache=True, inline="always")
def _best_sub2(E: np.ndarray, S: np.ndarray, K: int, drop_die: np.ndarray,
               n: int) -> None:
    """As _best_sub, carrying S (a second moment or a probability) along the chosen keep."""
    for k in range(1, K):
        for f in range(6):
            d = drop_die[k, f]
            if d >= 0:
                for lane in range(n):
                    a = E[k, lane]
                    b = E[d, lane]
                    better = b > a
                    E[k, lane] = b if better else a
                    S[k, lane] = S[d, lane] if better else S[k, lane]


# --------------------------------------------------------------------------- exact build


@njit(cache=True, inline="always")
def _best_sub_q(E: np.ndarray, S: np.ndarray, Q: np.ndarray, K: int,
                drop_die: np.ndarray, n: int) -> None:
    for k in range(1, K):
        for f in range(6):
            d = drop_die[k, f]
            if d >= 0:
                for lane in range(n):
                    better = E[d, lane] > E[k, lane]
                    if better:
                        E[k, lane] = E[d, lane]
                        S[k, lane] = S[d, lane]
                        Q[k, lane] = Q[d, lane]


@njit(cache=True, inline="always")
def _bit_index(low: int) -> int:
    b = 0
    while (1 << b) != low:
        b += 1
    return b


@njit(cache=True, inline="always")
def _placement(r: int, b: int, fullv: bool, natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray,
               var_jok: np.ndarray) -> tuple[int, int]:
    """Final roll r written in box b (as a joker when fullv): its score, and the variant of the
    state it leads to (the row forms of the score and variant tables; the solver reads the T forms)."""
    if fullv:
        return joker[r, b], var_jok[r, b]
    return natural[r, b], var_nat[r, b]


@njit(**INNER)
def _final_values(m: int, off: Int, nl: int, nu: int, sub: int, W: np.ndarray, W2: np.ndarray,
                  midx: np.ndarray, ulist: np.ndarray, natT: np.ndarray, jokT: np.ndarray,
                  vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray, du: np.ndarray, yn: np.ndarray,
                  yroll: np.ndarray, own_bit: np.ndarray, keep_of_roll: np.ndarray, bonus_rolls: np.ndarray,
                  base_roll: int, nb: int, t: int, ybit: int, has_y: bool, extra: int, joker_code: int,
                  fill: int, lower_bits: int, moments: bool, allow_pass: bool,
                  E: np.ndarray, S: np.ndarray, Q: np.ndarray, X: np.ndarray, NVl: np.ndarray,
                  NVl2: np.ndarray, V: np.ndarray, V2: np.ndarray, Qb: np.ndarray, spec: np.ndarray,
                  sbits: np.ndarray, sfull: np.ndarray, az: np.ndarray, lu: np.ndarray, ly: np.ndarray) -> None:
    """Final-roll values of mask m's lanes off..off+nl into the full-keep rows of E (S: second
    moment, Q: pass probability): per lane, max over legal boxes of score + value of the next state.

    Rolls whose legal boxes and joker status equal those of `base_roll` are done box by box over all
    rolls (SIMD over rolls); the others (joker rolls) one by one."""
    R = natT.shape[1]
    full = (1 << nb) - 1
    open_ = full & ~m
    yfilled = (m & ybit) != 0
    bbits, bfull = roll_legal(open_, yfilled, base_roll, yroll, own_bit, joker_code, has_y, fill, lower_bits)
    # np.int64 zeros, not literal 0s: a literal argument would compile _lane_values a second time
    nspec = np.int64(0)
    any_bits = np.int64(0)
    for r in range(R):
        bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
        any_bits |= bits
        if bits != bbits or fullv != bfull:
            spec[nspec] = r
            sbits[nspec] = bits
            sfull[nspec] = fullv
            nspec += 1
        if allow_pass:
            zero = True
            bb = bits
            while bb:
                low = bb & -bb
                bb ^= low
                b = _bit_index(low)
                sc = jokT[b, r] if fullv else natT[b, r]
                if sc != 0.0:
                    zero = False
            az[r] = zero
    sT = jokT if bfull else natT
    vT = vjokT if bfull else vnatT
    for blk in range(0, nl, 8):
        nbk = min(8, nl - blk)
        for i in range(nbk):
            _lane_values(off + blk + i, blk + i, nu, sub, m, any_bits, bbits, nspec, W, W2, midx, ulist, sT, vT,
                         natT, jokT, vnatT, vjokT, nvar, du, yn, yroll, bonus_rolls, nb, t, extra, moments,
                         allow_pass, X, NVl, NVl2, V[i], V2[i], Qb[i], spec, sbits, sfull, az, lu, ly)
        # transpose the block into the full-keep rows: E[keep_of_roll[r], lane]
        L0 = off + blk
        for r in range(R):
            kr = keep_of_roll[r]
            for i in range(nbk):
                E[kr, L0 + i] = V[i, r]
        if moments:
            for r in range(R):
                kr = keep_of_roll[r]
                for i in range(nbk):
                    S[kr, L0 + i] = V2[i, r]
        if allow_pass:
            for r in range(R):
                kr = keep_of_roll[r]
                for i in range(nbk):
                    Q[kr, L0 + i] = Qb[i, r]


@njit(**INNER)
def _lane_values(L: Int, lane: int, nu: int, sub: int, m: int, any_bits: Int, bbits: int, nspec: Int,
                 W: np.ndarray, W2: np.ndarray, midx: np.ndarray, ulist: np.ndarray, sT: np.ndarray,
                 vT: np.ndarray, natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray,
                 nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, yroll: np.ndarray, bonus_rolls: np.ndarray,
                 nb: int, t: int, extra: int, moments: bool, allow_pass: bool, X: np.ndarray,
                 NVl: np.ndarray, NVl2: np.ndarray, V: np.ndarray, V2: np.ndarray, Qr: np.ndarray,
                 spec: np.ndarray, sbits: np.ndarray, sfull: np.ndarray, az: np.ndarray, lu: np.ndarray,
                 ly: np.ndarray) -> None:
    """Final-roll values V[r] (V2: second moments, Qr: pass taken) of one lane (y, u) of mask m."""
    R = V.shape[0]
    vmax = du.shape[1]
    tp1 = t + 1
    u = ulist[sub, lane % nu]
    y = lane // nu
    lu[L] = u
    ly[L] = y
    # values (and second moments) of the states each (box, variant) leads to
    for b in range(nb):
        if not (any_bits >> b) & 1:
            continue
        m2 = midx[m | (1 << b)]
        for v in range(nvar[b]):
            u2 = u + du[b, v]
            if u2 > t:
                u2 = t
            y2 = y if yn[b, v] < 0 else yn[b, v]
            NVl[b * vmax + v] = W[m2, y2 * tp1 + u2]
            if moments:
                NVl2[b * vmax + v] = W2[m2, y2 * tp1 + u2]
    for r in range(R):
        V[r] = NEG
    bb = bbits
    while bb:
        low = bb & -bb
        bb ^= low
        b = _bit_index(low)
        sb = sT[b]
        if nvar[b] == 1:
            a = NVl[b * vmax]
            if moments:
                a2 = NVl2[b * vmax]
                for r in range(R):
                    sc = sb[r]
                    c = sc + a
                    if c > V[r]:
                        V[r] = c
                        V2[r] = sc * sc + 2.0 * sc * a + a2
            else:
                for r in range(R):
                    c = sb[r] + a
                    V[r] = c if c > V[r] else V[r]
        else:
            # a few variants: select from locals (SIMD over rolls; a gather from NVl would not vectorize)
            vb = vT[b]
            base = b * vmax
            nvb = nvar[b]
            t0 = NVl[base]
            t1 = NVl[base + 1]
            t2 = NVl[base + 2] if nvb > 2 else t1
            t3 = NVl[base + 3] if nvb > 3 else t1
            t4 = NVl[base + 4] if nvb > 4 else t1
            t5 = NVl[base + 5] if nvb > 5 else t1
            t6 = NVl[base + 6] if nvb > 6 else t1
            if moments:
                q0 = NVl2[base]
                q1 = NVl2[base + 1]
                q2 = NVl2[base + 2] if nvb > 2 else q1
                q3 = NVl2[base + 3] if nvb > 3 else q1
                q4 = NVl2[base + 4] if nvb > 4 else q1
                q5 = NVl2[base + 5] if nvb > 5 else q1
                q6 = NVl2[base + 6] if nvb > 6 else q1
                for r in range(R):
                    v = vb[r]
                    a = t0
                    a2 = q0
                    if v == 1:
                        a = t1
                        a2 = q1
                    elif v == 2:
                        a = t2
                        a2 = q2
                    elif v == 3:
                        a = t3
                        a2 = q3
                    elif v == 4:
                        a = t4
                        a2 = q4
                    elif v == 5:
                        a = t5
                        a2 = q5
                    elif v == 6:
                        a = t6
                        a2 = q6
                    sc = sb[r]
                    c = sc + a
                    if c > V[r]:
                        V[r] = c
                        V2[r] = sc * sc + 2.0 * sc * a + a2
            elif nvb == 2:
                for r in range(R):
                    a = t1 if vb[r] == 1 else t0
                    c = sb[r] + a
                    V[r] = c if c > V[r] else V[r]
            else:
                for r in range(R):
                    v = vb[r]
                    a = t0
                    a = t1 if v == 1 else a
                    a = t2 if v == 2 else a
                    a = t3 if v == 3 else a
                    a = t4 if v == 4 else a
                    a = t5 if v == 5 else a
                    a = t6 if v == 6 else a
                    c = sb[r] + a
                    V[r] = c if c > V[r] else V[r]
    for i in range(nspec):
        r = spec[i]
        bb = sbits[i]
        fullv = sfull[i]
        best = NEG
        best2 = 0.0
        while bb:
            low = bb & -bb
            bb ^= low
            b = _bit_index(low)
            if fullv:
                sc = jokT[b, r]
                slot = b * vmax + vjokT[b, r]
            else:
                sc = natT[b, r]
                slot = b * vmax + vnatT[b, r]
            c = sc + NVl[slot]
            if c > best:
                best = c
                if moments:
                    best2 = sc * sc + 2.0 * sc * NVl[slot] + NVl2[slot]
        V[r] = best
        V2[r] = best2
    for i in range(bonus_rolls.shape[0]):
        r = bonus_rolls[i]
        bon = float(extra_bonus_points(yroll[r], y == 1, extra))
        if bon != 0.0:
            V2[r] += bon * (bon + 2.0 * V[r])
            V[r] += bon
    if allow_pass:
        for r in range(R):
            q = 0.0
            if az[r] and X[L] > V[r] and extra_bonus_points(yroll[r], y == 1, extra) == 0:
                V[r] = X[L]
                V2[r] = 0.0
                q = 1.0
            Qr[r] = q


@njit(**INNER)
def _solve_batch(order: np.ndarray, j0: int, j1: int, step: int, W: np.ndarray, W2: np.ndarray,
                 midx: np.ndarray, sub_of: np.ndarray, ulist: np.ndarray, ucount: np.ndarray,
                 dlist: np.ndarray, dcount: np.ndarray,
                 natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray,
                 nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray,
                 roll_prob: np.ndarray, keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
                 bonus_rolls: np.ndarray, base_roll: int, nb: int, t: int, nyt: int, ybit: int, has_y: bool,
                 extra: int, joker_code: int, fill: int, lower_bits: int, moments: bool, allow_pass: bool,
                 n_stages: int, E: np.ndarray, S: np.ndarray, Q: np.ndarray, X: np.ndarray, NVl: np.ndarray,
                 NVl2: np.ndarray, V: np.ndarray, V2: np.ndarray, Qb: np.ndarray, spec: np.ndarray, sbits: np.ndarray,
                 sfull: np.ndarray, az: np.ndarray, lu: np.ndarray, ly: np.ndarray, lrow: np.ndarray,
                 acc: np.ndarray, acc2: np.ndarray, pacc: np.ndarray) -> None:
    """Solve the masks order[j0:j1:step] together: their lanes side by side in E (the keep stages
    are the same for every mask), final-roll values mask by mask."""
    R = natT.shape[1]
    K = add_die.shape[0]
    first_full = K - R
    tp1 = t + 1
    n = 0
    for j in range(j0, j1, step):
        m = order[j]
        sub = sub_of[m]
        nu = ucount[sub]
        ny = nyt if (m & ybit) != 0 else 1
        for lane in range(nu * ny):
            lrow[n + lane] = midx[m]
            X[n + lane] = NEG
        n += nu * ny
    iters = 0
    while True:
        off = np.int64(0)  # not a literal 0, which would compile _final_values a second time
        for j in range(j0, j1, step):
            m = order[j]
            sub = sub_of[m]
            nu = ucount[sub]
            ny = nyt if (m & ybit) != 0 else 1
            _final_values(m, off, nu * ny, nu, sub, W, W2, midx, ulist, natT, jokT, vnatT, vjokT, nvar, du, yn,
                          yroll, own_bit, keep_of_roll, bonus_rolls, base_roll, nb, t, ybit, has_y, extra,
                          joker_code, fill, lower_bits, moments, allow_pass, E, S, Q, X, NVl, NVl2, V, V2, Qb,
                          spec, sbits, sfull, az, lu, ly)
            off += nu * ny
        for _stage in range(n_stages):
            if moments:
                _expect2(E, S, first_full, add_die, n)
                if allow_pass:
                    _expect(Q, first_full, add_die, n)
                    _best_sub_q(E, S, Q, K, drop_die, n)
                else:
                    _best_sub2(E, S, K, drop_die, n)
            else:
                _expect(E, first_full, add_die, n)
                if allow_pass:
                    _expect(Q, first_full, add_die, n)
                    _best_sub2(E, Q, K, drop_die, n)
                else:
                    _best_sub(E, K, drop_die, n)
        for lane in range(n):
            acc[lane] = 0.0
            acc2[lane] = 0.0
            pacc[lane] = 0.0
        for r in range(R):
            kr = keep_of_roll[r]
            p = roll_prob[r]
            for lane in range(n):
                acc[lane] += p * E[kr, lane]
            if moments:
                for lane in range(n):
                    acc2[lane] += p * S[kr, lane]
            if allow_pass:
                for lane in range(n):
                    pacc[lane] += p * Q[kr, lane]
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
    # totals that cannot reach the bonus any more share the value of the one computed for them
    for j in range(j0, j1, step):
        m = order[j]
        sub = sub_of[m]
        nd = dcount[sub]
        if nd == 0:
            continue
        row = midx[m]
        rep = ulist[sub, 0]
        ny = nyt if (m & ybit) != 0 else 1
        for y in range(ny):
            v = W[row, y * tp1 + rep]
            v2 = W2[row, y * tp1 + rep] if moments else 0.0
            for i in range(nd):
                W[row, y * tp1 + dlist[sub, i]] = v
                if moments:
                    W2[row, y * tp1 + dlist[sub, i]] = v2


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def solve_chunk(c: int, nch: int, order: np.ndarray, start: int, end: int, cap: int, n_lanes: np.ndarray,
                midx: np.ndarray, sub_of: np.ndarray, ulist: np.ndarray, ucount: np.ndarray,
                dlist: np.ndarray, dcount: np.ndarray,
                natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray,
                nvar: np.ndarray, du: np.ndarray, yn: np.ndarray,
                yroll: np.ndarray, own_bit: np.ndarray, roll_prob: np.ndarray,
                keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
                bonus_rolls: np.ndarray, base_roll: int,
                nb: int, t: int, nyt: int, ybit: int, has_y: bool, extra: int, joker_code: int,
                fill: int, lower_bits: int, moments: bool, allow_pass: bool, n_stages: int,
                W: np.ndarray, W2: np.ndarray) -> None:
    """Fill W (expected remaining score) and W2 (its second moment) for chunk `c` of `nch` of the masks
    order[start:end] (one popcount layer: independent of each other, all their successors already
    done): the masks order[start + c], order[start + c + nch], ...

    W/W2: [mask index, y * (t + 1) + u]. Chunks write disjoint rows, so the caller runs them on
    threads at once (the GIL is released). A chunk solves its masks in batches of at most `cap` lanes
    (n_lanes[j]: lanes of order[j])."""
    R = natT.shape[1]
    K = add_die.shape[0]
    vmax = du.shape[1]
    E = np.empty((K, cap))
    S = np.empty((K if moments else 1, cap))
    Q = np.empty((K if allow_pass else 1, cap))
    X = np.empty(cap)
    NVl = np.empty(nb * vmax)
    NVl2 = np.empty(nb * vmax)
    V = np.empty((8, R))
    V2 = np.zeros((8, R))
    Qb = np.zeros((8, R))
    spec = np.empty(R, np.int64)
    sbits = np.empty(R, np.int64)
    sfull = np.empty(R, np.bool_)
    az = np.zeros(R, np.bool_)
    lu = np.empty(cap, np.int64)
    ly = np.empty(cap, np.int64)
    lrow = np.empty(cap, np.int64)
    acc = np.empty(cap)
    acc2 = np.empty(cap)
    pacc = np.empty(cap)
    j = start + c
    while j < end:
        j0 = j
        tot = 0
        while j < end and (tot == 0 or tot + n_lanes[j] <= cap):
            tot += n_lanes[j]
            j += nch
        _solve_batch(order, j0, j, nch, W, W2, midx, sub_of, ulist, ucount, dlist, dcount, natT, jokT, vnatT, vjokT,
                     nvar, du, yn, yroll, own_bit, roll_prob, keep_of_roll, add_die, drop_die, bonus_rolls,
                     base_roll, nb, t, nyt, ybit, has_y, extra, joker_code, fill, lower_bits, moments,
                     allow_pass, n_stages, E, S, Q, X, NVl, NVl2, V, V2, Qb, spec, sbits, sfull, az, lu,
                     ly, lrow, acc, acc2, pacc)
