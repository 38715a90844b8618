"""Compiled kernels of the solver: the exact backward induction and the within-turn machinery.

Every rule comes from rules.py: the int-only functions `legal_bits`, `joker_now`, `joker_full_value`
and `extra_bonus_points` are compiled here with numba (never restated), and the scores come from
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
Masks of one popcount layer are independent and run in parallel (prange).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import rules
from .rng import next_die, stream

# The rules module's int-only functions, compiled: the only place legality and joker logic live.
legal_bits = njit(cache=True, inline="always")(rules.legal_bits)
joker_now = njit(cache=True, inline="always")(rules.joker_now)
joker_full_value = njit(cache=True, inline="always")(rules.joker_full_value)
extra_bonus_points = njit(cache=True, inline="always")(rules.extra_bonus_points)
roll_budget = njit(cache=True, inline="always")(rules.roll_budget)
rolls_left_over = njit(cache=True, inline="always")(rules.rolls_left_over)

FORCED = rules.JOKER_CODES["forced"]
NEG = -1.0e300  # "no option" (never NaN)


@njit(cache=True, inline="always")
def roll_legal(open_: int, yfilled: bool, r: int, yroll: np.ndarray, own_bit: np.ndarray,
               joker_code: int, has_y: bool, fill: bool, lower_bits: int) -> tuple[int, bool]:
    """Legal boxes of roll r in a column with open boxes `open_`, and whether a joker scores full value."""
    jk = joker_now(joker_code, has_y, yfilled, yroll[r])
    bits = legal_bits(open_, fill, jk and joker_code == FORCED, own_bit[r], lower_bits)
    return bits, joker_full_value(jk, open_, own_bit[r])


@njit(cache=True)
def reachable_masks(nb: int, fill: bool, lower_bits: int, joker_code: int, has_y: bool, ybit: int,
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


@njit(cache=True)
def _solve_mask(mi: int, m: int, W: np.ndarray, W2: np.ndarray,
                midx: np.ndarray, sub_of: np.ndarray, ulist: np.ndarray, ucount: np.ndarray,
                natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray,
                nvar: np.ndarray, du: np.ndarray, yn: np.ndarray,
                yroll: np.ndarray, own_bit: np.ndarray, roll_prob: np.ndarray,
                keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
                nb: int, t: int, nyt: int, ybit: int, has_y: bool, extra: int, joker_code: int,
                fill: bool, lower_bits: int, moments: bool, allow_pass: bool, n_stages: int,
                E: np.ndarray, S: np.ndarray, Q: np.ndarray, NV: np.ndarray, NV2: np.ndarray,
                best: np.ndarray, best2: np.ndarray, bon: np.ndarray, X: np.ndarray,
                lu: np.ndarray, ly: np.ndarray) -> None:
    R = natural.shape[0]
    K = add_die.shape[0]
    first_full = K - R
    vmax = du.shape[1]
    full = (1 << nb) - 1
    open_ = full & ~m
    yfilled = (m & ybit) != 0
    sub = sub_of[m]
    nu = ucount[sub]
    ny = 2 if (yfilled and has_y and extra > 0 and nyt == 2) else 1
    n = nu * ny
    for lane in range(n):
        lu[lane] = ulist[sub, lane % nu]
        ly[lane] = lane // nu
    # Boxes any roll may use here, and the value vectors of the states they lead to.
    any_bits = 0
    for r in range(R):
        bits, _ = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
        any_bits |= bits
    tp1 = t + 1
    for b in range(nb):
        if not (any_bits >> b) & 1:
            continue
        m2 = midx[m | (1 << b)]
        for v in range(nvar[b]):
            slot = b * vmax + v
            d = du[b, v]
            yv = yn[b, v]
            for lane in range(n):
                u2 = lu[lane] + d
                if u2 > t:
                    u2 = t
                y2 = ly[lane] if yv < 0 else yv
                NV[slot, lane] = W[m2, y2 * tp1 + u2]
                if moments:
                    NV2[slot, lane] = W2[m2, y2 * tp1 + u2]
    # Newton iterations on the pass option (must_zero off); a single pass otherwise.
    for lane in range(n):
        X[lane] = NEG
    iters = 0
    while True:
        any_pass = False
        for r in range(R):
            bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
            kr = keep_of_roll[r]
            for lane in range(n):
                bon[lane] = extra_bonus_points(yroll[r], ly[lane] == 1, extra)
                best[lane] = NEG
            allzero = True
            bb = bits
            while bb:
                low = bb & -bb
                bb ^= low
                b = 0
                while (1 << b) != low:
                    b += 1
                if fullv:
                    s = joker[r, b]
                    v = var_jok[r, b]
                else:
                    s = natural[r, b]
                    v = var_nat[r, b]
                if s != 0:
                    allzero = False
                slot = b * vmax + v
                fs = float(s)
                if moments:
                    for lane in range(n):
                        nv = NV[slot, lane]
                        c = fs + nv
                        if c > best[lane]:
                            best[lane] = c
                            x = fs + bon[lane]
                            best2[lane] = x * x + 2.0 * x * nv + NV2[slot, lane]
                else:
                    for lane in range(n):
                        c = fs + NV[slot, lane]
                        best[lane] = c if c > best[lane] else best[lane]
            if moments:
                for lane in range(n):
                    E[kr, lane] = best[lane] + bon[lane]
                    S[kr, lane] = best2[lane]
            else:
                for lane in range(n):
                    E[kr, lane] = best[lane] + bon[lane]
            if allow_pass:
                for lane in range(n):
                    Q[kr, lane] = 0.0
                if allzero:
                    any_pass = True
                    for lane in range(n):
                        if bon[lane] == 0 and X[lane] > E[kr, lane]:
                            E[kr, lane] = X[lane]
                            Q[kr, lane] = 1.0
                            if moments:
                                S[kr, lane] = 0.0
        for _stage in range(n_stages):
            if moments:
                _expect2(E, S, first_full, add_die, n)
                if allow_pass:
                    _expect(Q, first_full, add_die, n)
                    # carry Q along the keeps chosen for E (S rides along in a second sweep)
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
        if not allow_pass or not any_pass:
            break
        # turn-start value and pass probability under the current pass value X
        done = True
        for lane in range(n):
            acc = 0.0
            pacc = 0.0
            for r in range(R):
                acc += roll_prob[r] * E[keep_of_roll[r], lane]
                pacc += roll_prob[r] * Q[keep_of_roll[r], lane]
            if X[lane] == NEG:
                newx = acc
                done = False
            elif pacc >= 1.0 - 1e-12:
                newx = X[lane]
            else:
                newx = X[lane] + (acc - X[lane]) / (1.0 - pacc)
                if abs(acc - X[lane]) > 1e-11 * (1.0 + abs(acc)):
                    done = False
            best[lane] = newx
        iters += 1
        if done or iters > 200:
            break
        for lane in range(n):
            X[lane] = best[lane]
    for lane in range(n):
        acc = 0.0
        acc2 = 0.0
        pacc = 0.0
        for r in range(R):
            kr = keep_of_roll[r]
            acc += roll_prob[r] * E[kr, lane]
            if moments:
                acc2 += roll_prob[r] * S[kr, lane]
            if allow_pass:
                pacc += roll_prob[r] * Q[kr, lane]
        col = ly[lane] * tp1 + lu[lane]
        W[mi, col] = acc
        if moments:
            W2[mi, col] = acc2 / (1.0 - pacc) if allow_pass and pacc < 1.0 else acc2


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


@njit(cache=True, parallel=True)
def solve_layer(order: np.ndarray, start: int, end: int, nchunks: int,
                midx: np.ndarray, sub_of: np.ndarray, ulist: np.ndarray, ucount: np.ndarray,
                natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray,
                nvar: np.ndarray, du: np.ndarray, yn: np.ndarray,
                yroll: np.ndarray, own_bit: np.ndarray, roll_prob: np.ndarray,
                keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
                nb: int, t: int, nyt: int, ybit: int, has_y: bool, extra: int, joker_code: int,
                fill: bool, lower_bits: int, moments: bool, allow_pass: bool, n_stages: int,
                W: np.ndarray, W2: np.ndarray) -> None:
    """Fill W (expected remaining score) and W2 (its second moment) for the masks order[start:end]
    (one popcount layer: independent of each other, all their successors already done).

    W/W2: [mask index, y * (t + 1) + u]. Masks are dealt to `nchunks` parallel chunks round-robin."""
    R = natural.shape[0]
    K = add_die.shape[0]
    vmax = du.shape[1]
    lmax = W.shape[1]
    cnt = end - start
    nch = min(cnt, nchunks)
    for c in prange(nch):
        E = np.empty((K, lmax))
        S = np.empty((K if moments else 1, lmax))
        Q = np.empty((K if allow_pass else 1, lmax))
        NV = np.empty((nb * vmax, lmax))
        NV2 = np.empty((nb * vmax if moments else 1, lmax))
        best = np.empty(lmax)
        best2 = np.empty(lmax)
        bon = np.empty(lmax)
        X = np.empty(lmax)
        lu = np.empty(lmax, np.int64)
        ly = np.empty(lmax, np.int64)
        for j in range(start + c, end, nch):
            m = order[j]
            _solve_mask(midx[m], m, W, W2, midx, sub_of, ulist, ucount, natural, joker, var_nat,
                        var_jok, nvar, du, yn, yroll, own_bit, roll_prob, keep_of_roll, add_die,
                        drop_die, nb, t, nyt, ybit, has_y, extra, joker_code, fill, lower_bits, moments,
                        allow_pass, n_stages, E, S, Q, NV, NV2, best, best2, bon, X, lu, ly)
    _ = R


# --------------------------------------------------------------------------- play


FUTURE_TABLE = 0  # F = exact table value W[midx[mask], y * (t + 1) + min(u, t)]
FUTURE_HEURISTIC = 1  # F = sum of h over open boxes + G[upper set, min(u, t)] + (yh[open count] if y)


@njit(cache=True, inline="always")
def future(kind: int, mask: int, y: int, u: int, W: np.ndarray, midx: np.ndarray, t: int,
           h: np.ndarray, G: np.ndarray, yh: np.ndarray, sub_of: np.ndarray, nb: int) -> float:
    """Value to go of a column at a turn start: the exact table, or the additive heuristic."""
    uu = u if u < t else t
    if kind == FUTURE_TABLE:
        return float(W[midx[mask], y * (t + 1) + uu])
    full = (1 << nb) - 1
    open_ = full & ~mask
    acc = G[sub_of[mask], uu]
    n_open = 0
    for b in range(nb):
        if (open_ >> b) & 1:
            acc += h[b]
            n_open += 1
    if y == 1:
        acc += yh[n_open]
    return float(acc)


@njit(cache=True, inline="always")
def best_proper_keep(cnt: np.ndarray, n: int, keep_index: np.ndarray, Ej: np.ndarray,
                     kcnt: np.ndarray) -> tuple[float, int]:
    """Best value Ej[k] over the keeps k strictly inside the roll with face counts `cnt`; the winner's
    face counts go to kcnt (first best in enumeration order); returns (value, size)."""
    total = 1
    for f in range(6):
        total *= cnt[f] + 1
    best = NEG
    best_idx = -1
    best_size = 0
    for idx in range(total):
        rest = idx
        key = 0
        mul = 1
        size = 0
        for f in range(6):
            c = rest % (cnt[f] + 1)
            rest //= cnt[f] + 1
            key += c * mul
            mul *= 7
            size += c
        if size == n:
            continue
        v = Ej[keep_index[key]]
        if v > best:
            best = v
            best_idx = idx
            best_size = size
    rest = best_idx
    for f in range(6):
        kcnt[f] = rest % (cnt[f] + 1)
        rest //= cnt[f] + 1
    return best, best_size


@njit(cache=True)
def _turn_tables(Vfinal: np.ndarray, EJ: np.ndarray, E: np.ndarray, J: int, saved_value: float,
                 keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray) -> None:
    """EJ[j - 1, k]: value of keeping k with j rolls left (j = 1..J), from the final-roll values."""
    R = Vfinal.shape[0]
    K = add_die.shape[0]
    first_full = K - R
    for r in range(R):
        E[keep_of_roll[r], 0] = Vfinal[r]
    for j in range(1, J + 1):
        _expect(E, first_full, add_die, 1)
        for k in range(K):
            EJ[j - 1, k] = E[k, 0]
        if j < J:
            _best_sub(E, K, drop_die, 1)
            for r in range(R):
                kr = keep_of_roll[r]
                stop = Vfinal[r] + saved_value * j
                if stop > E[kr, 0]:
                    E[kr, 0] = stop


@njit(cache=True, parallel=True)
def play_games(seed: int, first_game: int, seat: int, n_cols: int, mult: np.ndarray,
               natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray,
               nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, is_upper: np.ndarray,
               yroll: np.ndarray, own_bit: np.ndarray, keep_index: np.ndarray, roll_of_keep: np.ndarray,
               keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
               nb: int, ybox: int, ypoints: int, extra: int, joker_code: int, fill: bool, lower_bits: int,
               must_zero: bool, saved_rolls: bool,
               kind: int, W: np.ndarray, midx: np.ndarray, t: int, nyt: int, h: np.ndarray, G: np.ndarray,
               yh: np.ndarray, sub_of: np.ndarray, saved_value: float, max_turns: int, nchunks: int,
               record: bool, scores: np.ndarray, ybonus: np.ndarray, rolls_out: np.ndarray,
               held_out: np.ndarray, nrolls_out: np.ndarray, col_out: np.ndarray, box_out: np.ndarray,
               nturns_out: np.ndarray) -> None:
    """Play games first_game.. with the one-turn lookahead on F (the exact table: optimal play).

    Dice: see yahtzee_cli.solver.play."""
    g_n = scores.shape[0]
    R = natural.shape[0]
    K = add_die.shape[0]
    n = rolls_out.shape[3]
    vmax = du.shape[1]
    full = (1 << nb) - 1
    has_y = ybox >= 0
    nch = min(g_n, nchunks)
    for ch in prange(nch):
        Vfinal = np.empty(R)
        E = np.empty((K, 1))
        jmax = 64
        EJ = np.empty((jmax, K))
        NV = np.empty((n_cols, nb * vmax))
        Fcur = np.empty(n_cols)
        cmask = np.zeros(n_cols, np.int64)
        usum = np.zeros(n_cols, np.int64)
        yst = np.zeros(n_cols, np.int64)  # -1 open, 0 zero, 1 full points
        dice = np.zeros(n, np.int64)
        kept = np.zeros(n, np.int64)
        cnt = np.zeros(6, np.int64)
        kcnt = np.zeros(6, np.int64)
        for g in range(ch, g_n, nch):
            st = stream(seed, first_game + g, seat)
            for c in range(n_cols):
                cmask[c] = 0
                usum[c] = 0
                yst[c] = -1
                ybonus[g, c] = 0
                for b in range(nb):
                    scores[g, c, b] = -1
            saved = 0
            turn = 0
            open_total = n_cols * nb
            while open_total > 0:
                may_pass_turn = (not must_zero) and (max_turns - turn > open_total)
                # ---- value vectors of the states each (column, box, variant) leads to
                for c in range(n_cols):
                    yv = 1 if (yst[c] == 1 and nyt == 2) else 0
                    Fcur[c] = future(kind, cmask[c], yv, usum[c], W, midx, t, h, G, yh, sub_of, nb)
                    for b in range(nb):
                        if (cmask[c] >> b) & 1:
                            continue
                        m2 = cmask[c] | (1 << b)
                        for v in range(nvar[b]):
                            y2 = yv if yn[b, v] < 0 else yn[b, v]
                            if yn[b, v] >= 0 and nyt != 2:
                                y2 = 0
                            f2 = future(kind, m2, y2, usum[c] + du[b, v], W, midx, t, h, G, yh, sub_of, nb)
                            NV[c, b * vmax + v] = mult[c] * (f2 - Fcur[c])
                # ---- final-roll values (relative to staying put)
                for r in range(R):
                    best = NEG
                    allzero = True
                    for c in range(n_cols):
                        open_ = full & ~cmask[c]
                        yfilled = yst[c] >= 0
                        bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill,
                                                 lower_bits)
                        bon = extra_bonus_points(yroll[r], yst[c] == 1, extra)
                        if bon != 0:
                            allzero = False
                        while bits:
                            low = bits & -bits
                            bits ^= low
                            b = 0
                            while (1 << b) != low:
                                b += 1
                            if fullv:
                                s = joker[r, b]
                                v = var_jok[r, b]
                            else:
                                s = natural[r, b]
                                v = var_nat[r, b]
                            if s != 0:
                                allzero = False
                            cand = mult[c] * float(s + bon) + NV[c, b * vmax + v]
                            if cand > best:
                                best = cand
                    if may_pass_turn and allzero and 0.0 > best:
                        best = 0.0
                    Vfinal[r] = best
                budget = roll_budget(saved_rolls, saved)
                J = budget - 1
                if J > jmax:
                    J = jmax
                _turn_tables(Vfinal, EJ, E, J, saved_value, keep_of_roll, add_die, drop_die)
                # ---- the turn itself
                for k in range(n):
                    d, st = next_die(st)
                    dice[k] = d
                if record:
                    for k in range(n):
                        rolls_out[g, turn, 0, k] = dice[k]
                used = 1
                while used < budget:
                    for f in range(6):
                        cnt[f] = 0
                    for k in range(n):
                        cnt[dice[k] - 1] += 1
                    key = 0
                    for f in range(5, -1, -1):
                        key = key * 7 + cnt[f]
                    r = roll_of_keep[keep_index[key]]
                    j = budget - used
                    jj = j if j <= J else J
                    stop = Vfinal[r] + saved_value * j
                    bv, kk = best_proper_keep(cnt, n, keep_index, EJ[jj - 1], kcnt)
                    if not bv > stop:
                        break
                    # the kept dice sorted first, then the new dice drawn in order of position
                    pos = 0
                    for f in range(6):
                        for _i in range(kcnt[f]):
                            kept[pos] = f + 1
                            pos += 1
                    for k in range(kk):
                        dice[k] = kept[k]
                    for k in range(kk, n):
                        d, st = next_die(st)
                        dice[k] = d
                    if record:
                        for k in range(kk):
                            held_out[g, turn, used - 1, k] = kept[k]
                        for k in range(n):
                            rolls_out[g, turn, used, k] = dice[k]
                    used += 1
                saved = rolls_left_over(saved_rolls, saved, used)
                # ---- choose the box (or pass)
                for f in range(6):
                    cnt[f] = 0
                for k in range(n):
                    cnt[dice[k] - 1] += 1
                key = 0
                for f in range(5, -1, -1):
                    key = key * 7 + cnt[f]
                r = roll_of_keep[keep_index[key]]
                best = NEG
                bc = -1
                bb_ = -1
                bs = 0
                bbon = 0
                allzero = True
                for c in range(n_cols):
                    open_ = full & ~cmask[c]
                    yfilled = yst[c] >= 0
                    bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
                    bon = extra_bonus_points(yroll[r], yst[c] == 1, extra)
                    if bon != 0:
                        allzero = False
                    while bits:
                        low = bits & -bits
                        bits ^= low
                        b = 0
                        while (1 << b) != low:
                            b += 1
                        if fullv:
                            s = joker[r, b]
                            v = var_jok[r, b]
                        else:
                            s = natural[r, b]
                            v = var_nat[r, b]
                        if s != 0:
                            allzero = False
                        cand = mult[c] * float(s + bon) + NV[c, b * vmax + v]
                        if cand > best:
                            best = cand
                            bc = c
                            bb_ = b
                            bs = s
                            bbon = bon
                if may_pass_turn and allzero and 0.0 >= best:
                    bc = -1
                if record:
                    nrolls_out[g, turn] = used
                    col_out[g, turn] = bc if bc >= 0 else 0
                    box_out[g, turn] = bb_ if bc >= 0 else -1
                if bc >= 0:
                    scores[g, bc, bb_] = bs
                    ybonus[g, bc] += bbon
                    cmask[bc] |= 1 << bb_
                    if is_upper[bb_]:
                        usum[bc] += bs
                    if bb_ == ybox:
                        yst[bc] = 1 if bs == ypoints else 0
                    open_total -= 1
                turn += 1
            nturns_out[g] = turn
