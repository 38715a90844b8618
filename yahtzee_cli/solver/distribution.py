"""Beyond the mean: the exact distribution of the final score under a table's policy, and
risk-sensitive tables (maximise E[exp(theta * final score)]).

The policy of a turn-start state (filled mask, y, capped upper total u) is the one the simulator
plays: the same final-roll values (play_kernel._column_final on the next states' values), the same keep
tables (play_kernel._turn_tables) and the same tie-breaks (stopping wins ties, the first sub-keep in
tables.proper_subkeeps' order, the first box in sheet order, a pass charged play_kernel.PASS_COST).
`_turn` turns that policy into the probability of ending the turn on each roll and the box each
final roll goes to; everything here is built on it:

* distribution: backward over the popcount layers, H[s, x] = P(remaining points = x | state s),
  H[s] = sum over the turn's outcomes (box, points, next state) of p * H[next] shifted by the
  points (a pass returns to s: the outcomes are scaled by 1 / (1 - P(pass))). The empty column's H
  is the pmf of the final score. With a cap X, remaining scores >= X are lumped into cell X (what a
  target probability needs: P(final >= T) from a position).
* risk tables: the same backward induction on certainty equivalents CE = log(E[exp(theta * rest)])
  / theta. A box choice is additive (points + CE of the next state); a keep maximises
  sign(theta) * E[exp(theta * value)], evaluated relative to the turn's best final value so nothing
  overflows. theta = 0 is the expected-score table itself.

Totals of the upper section too low to reach the bonus behave alike (the bonus is lost, nothing else
depends on u): they share one state, as in the solver's layout.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import CorruptTable, NotExact
from ..rules.engine import JOKER_CODES, RuleSet, rolls_allowed
from ..strategy import tablefile as cache
from ..strategy.choice import effective_theta, exact_reason, exact_states
from ..strategy.sources import column_state, raw_points
from ..strategy.turn import PASS_COST
from .compiled import extra_bonus_points, record_reroll, roll_dice, roll_of_dice
from .exact import Layout, Table, _bonus_rolls, layout
from .jit import INNER, njit
from .kernels import NEG, _bit_index, _placement, roll_legal
from .play_kernel import _column_final, _keep_choice, _turn_tables
from .rng import stream
from .tables import proper_subkeeps
from .totals import on_chunks

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
NO_KEEP = np.int64(-1)  # _turn's start_keep for a whole turn


# --------------------------------------------------------------------------- compiled core


@njit(cache=True, inline="always")
def _choose_box(r: int, bits: int, fullv: bool, bon: int, natural: np.ndarray, joker: np.ndarray,
                var_nat: np.ndarray, var_jok: np.ndarray, NV: np.ndarray, vmax: int,
                solver_ties: bool) -> tuple[int, int, bool, float]:
    """play_games' box for final roll r among the legal `bits`: the first best in sheet order.
    Returns (box * vmax + variant, score, whether every option scores nothing, its value)."""
    allzero = bon == 0
    best = NEG
    sl = -1
    score = 0
    while bits:
        low = bits & -bits
        bits ^= low
        b = _bit_index(low)
        sc, v = _placement(r, b, fullv, natural, joker, var_nat, var_jok)
        if sc != 0:
            allzero = False
        cand = (float(sc) if solver_ties else float(sc + bon)) + NV[b * vmax + v]
        if cand > best:
            best = cand
            sl = b * vmax + v
            score = sc
    return sl, score, allzero, best


@njit(**INNER)
def _turn(m: int, y: int, u: int, theta: float, W: np.ndarray, midx: np.ndarray, t: int, nyt: int, nb: int,
          natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray, natT: np.ndarray,
          jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray, du: np.ndarray,
          yn: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray, bonus_rolls: np.ndarray, base_roll: int,
          joker_code: int, has_y: bool, fill: int, lower_bits: int, extra: int, allow_pass: bool, ybit: int,
          J: int, roll_prob: np.ndarray, keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
          subkeeps: np.ndarray, nsub: np.ndarray, NV: np.ndarray, Vc: np.ndarray, nzc: np.ndarray,
          Y: np.ndarray, EJ: np.ndarray, E: np.ndarray, P: np.ndarray, Pk: np.ndarray, Pfin: np.ndarray,
          slot: np.ndarray, pts: np.ndarray, solver_ties: bool, M: np.ndarray, A: np.ndarray, Y2: np.ndarray,
          start_keep: Any, start_j: Any) -> tuple[float, float]:  # (np.int64 both, never literals: one compile)
    """The policy of state (m, y, u) on the values W (theta = 0: expected scores; else CE values).

    solver_ties: break ties as the solver's backward induction does (values absolute; a keep ties to
    the larger keep, keeping every die may wait for a later roll), so the distribution's moments are
    the table's; otherwise as simulated games do (play_kernel.play_games), so they match game for game.

    Fills Y (value of each final roll, in the domain keeps compare), EJ (keep values, j rolls left),
    Pfin[r] (probability the turn ends on roll r), slot[r] = box * vmax + variant of the box chosen
    (-1: pass) and pts[r] (points written with the extra bonus). start_keep >= 0: the turn from a
    position, the dice start_keep kept with start_j rolls left (NO_KEEP: from the turn's start).
    Returns (P(pass), the state's value under this policy: expected remaining score or CE)."""
    R = natT.shape[1]
    K = add_die.shape[0]
    first_full = K - R
    vmax = du.shape[1]
    tp1 = t + 1
    full = (1 << nb) - 1
    open_ = full & ~m
    yfilled = (m & ybit) != 0
    yfull = y == 1
    fcur = W[midx[m], y * tp1 + u] if theta == 0.0 and not solver_ties else 0.0
    for b in range(nb):
        if (m >> b) & 1:
            continue
        row = midx[m | (1 << b)]
        for v in range(nvar[b]):
            y2 = y if yn[b, v] < 0 else yn[b, v]
            if yn[b, v] >= 0 and nyt != 2:
                y2 = 0
            u2 = u + du[b, v]
            if u2 > t:
                u2 = t
            NV[b * vmax + v] = (W[row, y2 * tp1 + u2] - fcur) if row >= 0 else NEG
    _column_final(Vc, nzc, open_, yfilled, yfull, 1.0, NV, natT, jokT, vnatT, vjokT, nvar, yroll, own_bit,
                  bonus_rolls, base_roll, joker_code, has_y, fill, lower_bits, extra, allow_pass, vmax)
    if allow_pass:
        for r in range(R):
            if not nzc[r] and -PASS_COST > Vc[r]:
                Vc[r] = -PASS_COST
    ref = 0.0
    if theta == 0.0:
        for r in range(R):
            Y[r] = Vc[r]
    else:
        ref = NEG
        for r in range(R):
            ref = Vc[r] if Vc[r] > ref else ref
        sg = 1.0 if theta > 0.0 else -1.0
        for r in range(R):
            Y[r] = sg * math.exp(theta * (Vc[r] - ref))
    _turn_tables(Y, EJ, E, J, 0.0, keep_of_roll, add_die, drop_die)
    # forward through the turn: where the dice go under this policy
    sixth = 1.0 / 6.0
    jtop = J
    for r in range(R):
        P[r] = roll_prob[r]
        Pfin[r] = 0.0
    if start_keep >= 0:
        # from a position: keep start_keep with start_j rolls left (a whole roll or start_j = 0: stop)
        for k in range(K):
            Pk[k] = 0.0
        Pk[start_keep] = 1.0
        jtop = 0
        if start_j > 0 and start_keep < first_full:
            jtop = start_j - 1
            for k in range(first_full):
                pk = Pk[k]
                if pk != 0.0:
                    for f in range(6):
                        Pk[add_die[k, f]] += pk * sixth
        for r in range(R):
            P[r] = Pk[keep_of_roll[r]]
    for j in range(jtop, 0, -1):
        for k in range(K):
            Pk[k] = 0.0
        if solver_ties:
            # kernels._best_sub2's choice: every keep of a roll, the roll itself worth V_{j-1}
            for k in range(K):
                M[k] = EJ[j - 1, k]
                A[k] = k
            for k in range(1, K):
                for f in range(6):
                    d = drop_die[k, f]
                    if d >= 0 and M[d] > M[k]:
                        M[k] = M[d]
                        A[k] = A[d]
            for r in range(R):
                Pk[A[keep_of_roll[r]]] += P[r]
        else:
            for r in range(R):
                pr = P[r]
                if pr == 0.0:
                    continue
                bk = _keep_choice(r, EJ[j - 1], Y[r], subkeeps, nsub)
                if bk >= 0:
                    Pk[bk] += pr
                else:
                    Pfin[r] += pr
        for k in range(first_full):
            pk = Pk[k]
            if pk != 0.0:
                q = pk * sixth
                for f in range(6):
                    Pk[add_die[k, f]] += q
        for r in range(R):
            P[r] = Pk[keep_of_roll[r]]
    for r in range(R):
        Pfin[r] += P[r]
    # the box each final roll goes to: play_games' choice, the first best in sheet order (box by box
    # over all rolls; rolls with other legal boxes, bonus rolls and possible passes one by one)
    bbits, bfull = roll_legal(open_, yfilled, base_roll, yroll, own_bit, joker_code, has_y, fill, lower_bits)
    sT = jokT if bfull else natT
    vT = vjokT if bfull else vnatT
    for r in range(R):
        Y2[r] = NEG
        slot[r] = -1
    bb = bbits
    while bb:
        low = bb & -bb
        bb ^= low
        b = _bit_index(low)
        sb = sT[b]
        vb = vT[b]
        for r in range(R):
            sl = b * vmax + vb[r]
            c = sb[r] + NV[sl]
            if c > Y2[r]:
                Y2[r] = c
                slot[r] = sl
    for r in range(R):
        if slot[r] >= 0:
            pts[r] = int(sT[slot[r] // vmax, r])
    qpass = 0.0
    acc = 0.0
    for r in range(R):
        if Pfin[r] == 0.0:
            continue
        bits, fullv = roll_legal(open_, yfilled, r, yroll, own_bit, joker_code, has_y, fill, lower_bits)
        bon = extra_bonus_points(yroll[r], yfull, extra)
        if bits != bbits or fullv != bfull or bon != 0 or allow_pass:
            sl, sc, allzero, best = _choose_box(r, bits, fullv, bon, natural, joker, var_nat, var_jok, NV, vmax,
                                                solver_ties)
            slot[r] = sl
            pts[r] = sc
            if allow_pass and allzero and -PASS_COST > best:
                slot[r] = -1
                qpass += Pfin[r]
                continue
            pts[r] += bon
        if theta == 0.0:
            acc += Pfin[r] * Vc[r]
        else:
            acc += Pfin[r] * Y[r]
    if theta == 0.0:
        value = fcur + acc
    else:
        value = ref + math.log(acc if theta > 0.0 else -acc) / theta
    return qpass, value


@njit(cache=True, no_cfunc_wrapper=True)
def _option(m: int, y: int, u: int, theta: float, W: np.ndarray, midx: np.ndarray, t: int, nyt: int, nb: int,
            natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray, natT: np.ndarray,
            jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray, du: np.ndarray,
            yn: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray, bonus_rolls: np.ndarray, base_roll: int,
            joker_code: int, has_y: bool, fill: int, lower_bits: int, extra: int, allow_pass: bool, ybit: int,
            J: int, roll_prob: np.ndarray, keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
            subkeeps: np.ndarray, nsub: np.ndarray, solver_ties: bool, start_keep: int, start_j: int,
            Pfin: np.ndarray, slot: np.ndarray, pts: np.ndarray) -> float:
    """Where the turn ends (Pfin, slot, pts as in `_turn`) after keeping start_keep with start_j rolls
    left and playing on by the policy; returns P(pass)."""
    R = natT.shape[1]
    K = add_die.shape[0]
    vmax = du.shape[1]
    q, _ = _turn(m, y, u, theta, W, midx, t, nyt, nb, natural, joker, var_nat, var_jok, natT, jokT, vnatT, vjokT,
                 nvar, du, yn, yroll, own_bit, bonus_rolls, base_roll, joker_code, has_y, fill, lower_bits, extra,
                 allow_pass, ybit, J, roll_prob, keep_of_roll, add_die, drop_die, subkeeps, nsub,
                 np.zeros(nb * vmax), np.empty(R), np.zeros(R, np.bool_), np.empty(R), np.empty((max(J, 1), K)),
                 np.empty(K), np.empty(R), np.empty(K), Pfin, slot, pts, solver_ties, np.empty(K),
                 np.empty(K, np.int64), np.empty(R), start_keep, start_j)
    return q


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _risk_layer(c: int, nch: int, smask: np.ndarray, sy: np.ndarray, su: np.ndarray, theta: float,
                W: np.ndarray,
                midx: np.ndarray, t: int, nyt: int, nb: int, natural: np.ndarray, joker: np.ndarray,
                var_nat: np.ndarray, var_jok: np.ndarray, natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray,
                vjokT: np.ndarray, nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, yroll: np.ndarray,
                own_bit: np.ndarray, bonus_rolls: np.ndarray, base_roll: int, joker_code: int, has_y: bool,
                fill: int, lower_bits: int, extra: int, ybit: int, J: int, roll_prob: np.ndarray,
                keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray, subkeeps: np.ndarray,
                nsub: np.ndarray, solver_ties: bool, out: np.ndarray) -> None:
    """out[i] = value of state i (smask, sy, su) under theta, from W's later layers."""
    n = smask.shape[0]
    R = natT.shape[1]
    K = add_die.shape[0]
    vmax = du.shape[1]
    NV = np.zeros(nb * vmax)
    Vc = np.empty(R)
    nzc = np.zeros(R, np.bool_)
    Y = np.empty(R)
    EJ = np.empty((max(J, 1), K))
    E = np.empty(K)
    P = np.empty(R)
    Pk = np.empty(K)
    Pfin = np.empty(R)
    slot = np.empty(R, np.int64)
    pts = np.empty(R, np.int64)
    M = np.empty(K)
    A = np.empty(K, np.int64)
    Y2 = np.empty(R)
    for i in range(c, n, nch):
        _, val = _turn(smask[i], sy[i], su[i], theta, W, midx, t, nyt, nb, natural, joker, var_nat, var_jok,
                       natT, jokT, vnatT, vjokT, nvar, du, yn, yroll, own_bit, bonus_rolls, base_roll,
                       joker_code, has_y, fill, lower_bits, extra, False, ybit, J, roll_prob, keep_of_roll,
                       add_die, drop_die, subkeeps, nsub, NV, Vc, nzc, Y, EJ, E, P, Pk, Pfin, slot, pts,
                       solver_ties, M, A, Y2, NO_KEEP, np.int64(0))
        out[i] = val


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _pmf_layer(c: int, nch: int, smask: np.ndarray, sy: np.ndarray, su: np.ndarray, off: np.ndarray,
               length: np.ndarray,
               H: np.ndarray, Hn: np.ndarray, sid_next: np.ndarray, off_next: np.ndarray, len_next: np.ndarray,
               eff: np.ndarray, sub_of: np.ndarray, cap: int, theta: float, W: np.ndarray, midx: np.ndarray,
               t: int, nyt: int, nb: int, natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray,
               var_jok: np.ndarray, natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray,
               nvar: np.ndarray, du: np.ndarray, yn: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray,
               bonus_rolls: np.ndarray, base_roll: int, joker_code: int, has_y: bool, fill: int,
               lower_bits: int, extra: int, allow_pass: bool, ybit: int, J: int, roll_prob: np.ndarray,
               keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray, subkeeps: np.ndarray,
               nsub: np.ndarray, solver_ties: bool, max_pts: int) -> None:
    """H[off[i]:off[i] + length[i]] = pmf of the remaining points of state i, from the next layer's
    Hn (sid_next[row, lane]: a state's index in that layer). Cell `cap` holds P(remaining >= cap)."""
    n = smask.shape[0]
    R = natT.shape[1]
    K = add_die.shape[0]
    vmax = du.shape[1]
    tp1 = t + 1
    nslot = nb * vmax
    NV = np.zeros(nslot)
    Vc = np.empty(R)
    nzc = np.zeros(R, np.bool_)
    Y = np.empty(R)
    EJ = np.empty((max(J, 1), K))
    E = np.empty(K)
    P = np.empty(R)
    Pk = np.empty(K)
    Pfin = np.empty(R)
    slot = np.empty(R, np.int64)
    pts = np.empty(R, np.int64)
    acc = np.zeros((nslot, max_pts + 1))
    touched = np.empty(R, np.int64)
    M = np.empty(K)
    A = np.empty(K, np.int64)
    Y2 = np.empty(R)
    for i in range(c, n, nch):
        m = smask[i]
        y = sy[i]
        u = su[i]
        qpass, _ = _turn(m, y, u, theta, W, midx, t, nyt, nb, natural, joker, var_nat, var_jok, natT, jokT,
                         vnatT, vjokT, nvar, du, yn, yroll, own_bit, bonus_rolls, base_roll, joker_code, has_y,
                         fill, lower_bits, extra, allow_pass, ybit, J, roll_prob, keep_of_roll, add_die,
                         drop_die, subkeeps, nsub, NV, Vc, nzc, Y, EJ, E, P, Pk, Pfin, slot, pts,
                         solver_ties, M, A, Y2, NO_KEEP, np.int64(0))
        # gather the turn's outcomes (slot, points)
        nt = 0
        for r in range(R):
            if slot[r] < 0 or Pfin[r] == 0.0:
                continue
            if acc[slot[r], pts[r]] == 0.0:
                touched[nt] = slot[r] * (max_pts + 1) + pts[r]
                nt += 1
            acc[slot[r], pts[r]] += Pfin[r]
        scale = 1.0 / (1.0 - qpass)
        o = off[i]
        L = length[i]
        for x in range(L):
            H[o + x] = 0.0
        for k in range(nt):
            sl = touched[k] // (max_pts + 1)
            pt = touched[k] % (max_pts + 1)
            p = acc[sl, pt] * scale
            acc[sl, pt] = 0.0
            b = sl // vmax
            v = sl % vmax
            m2 = m | (1 << b)
            y2 = y if yn[b, v] < 0 else yn[b, v]
            if yn[b, v] >= 0 and nyt != 2:
                y2 = 0
            u2 = u + du[b, v]
            if u2 > t:
                u2 = t
            u2 = eff[sub_of[m2], u2]
            j2 = sid_next[midx[m2], y2 * tp1 + u2]
            o2 = off_next[j2]
            L2 = len_next[j2]
            lin = L2
            if cap - pt < lin:
                lin = cap - pt
            if lin < 0:
                lin = 0
            base = o + pt
            for x in range(lin):
                H[base + x] += p * Hn[o2 + x]
            if lin < L2:
                tail = 0.0
                for x in range(lin, L2):
                    tail += Hn[o2 + x]
                H[o + cap] += p * tail


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _play(ch: int, nch: int, seed: int, first_game: int, seat: int, theta: float, W: np.ndarray, midx: np.ndarray,
          t: int, nyt: int,
          nb: int, natural: np.ndarray, joker: np.ndarray, var_nat: np.ndarray, var_jok: np.ndarray,
          natT: np.ndarray, jokT: np.ndarray, vnatT: np.ndarray, vjokT: np.ndarray, nvar: np.ndarray,
          du: np.ndarray, yn: np.ndarray, yroll: np.ndarray, own_bit: np.ndarray, bonus_rolls: np.ndarray,
          base_roll: int, joker_code: int, has_y: bool, fill: int, lower_bits: int, extra: int, ybit: int, J: int,
          roll_prob: np.ndarray, keep_of_roll: np.ndarray, add_die: np.ndarray, drop_die: np.ndarray,
          subkeeps: np.ndarray, nsub: np.ndarray, keeps: np.ndarray, keep_index: np.ndarray,
          roll_of_keep: np.ndarray, is_upper: np.ndarray, ybox: int, ypoints: int, scores: np.ndarray,
          ybonus: np.ndarray, record: bool, rolls_out: np.ndarray, held_out: np.ndarray,
          nrolls_out: np.ndarray, box_out: np.ndarray) -> None:
    """Play games first_game.. of one column by theta's policy (risk play; the dice convention of
    solver.play: game g of seat s rolls rng.stream(seed, g, s), kept dice sorted first). `record`:
    the dice of each roll, the dice held before each reroll and the box, as play_kernel.play_games."""
    g_n = scores.shape[0]
    R = natT.shape[1]
    K = add_die.shape[0]
    vmax = du.shape[1]
    n = keeps[K - 1].sum()
    full = (1 << nb) - 1
    NV = np.zeros(nb * vmax)
    Vc = np.empty(R)
    nzc = np.zeros(R, np.bool_)
    Y = np.empty(R)
    EJ = np.empty((max(J, 1), K))
    E = np.empty(K)
    P = np.empty(R)
    Pk = np.empty(K)
    Pfin = np.empty(R)
    slot = np.empty(R, np.int64)
    pts = np.empty(R, np.int64)
    M = np.empty(K)
    A = np.empty(K, np.int64)
    Y2 = np.empty(R)
    dice = np.zeros(n, np.int64)
    kept = np.zeros(n, np.int64)
    cnt = np.zeros(6, np.int64)
    for g in range(ch, g_n, nch):
        st = stream(seed, first_game + g, seat)
        m = 0
        y = 0
        usum = 0
        ybonus[g, 0] = 0
        for b in range(nb):
            scores[g, 0, b] = -1
        for _turn_no in range(nb):
            u = usum if usum < t else t
            _turn(m, y, u, theta, W, midx, t, nyt, nb, natural, joker, var_nat, var_jok, natT, jokT, vnatT,
                  vjokT, nvar, du, yn, yroll, own_bit, bonus_rolls, base_roll, joker_code, has_y, fill,
                  lower_bits, extra, False, ybit, J, roll_prob, keep_of_roll, add_die, drop_die, subkeeps, nsub,
                  NV, Vc, nzc, Y, EJ, E, P, Pk, Pfin, slot, pts, False, M, A, Y2, NO_KEEP, np.int64(0))
            st = roll_dice(dice, kept, 0, st)
            if record:
                for k in range(n):
                    rolls_out[g, _turn_no, 0, k] = dice[k]
            used = 1
            while used <= J:
                r = roll_of_dice(dice, cnt, keep_index, roll_of_keep)
                j = J + 1 - used
                bk = _keep_choice(r, EJ[j - 1], Y[r], subkeeps, nsub)
                if bk < 0:
                    break
                pos = 0
                for f in range(6):
                    for _i in range(keeps[bk, f]):
                        kept[pos] = f + 1
                        pos += 1
                st = roll_dice(dice, kept, pos, st)
                if record:
                    record_reroll(held_out, rolls_out, g, _turn_no, used, kept, pos, dice)
                used += 1
            r = roll_of_dice(dice, cnt, keep_index, roll_of_keep)
            bits, fullv = roll_legal(full & ~m, (m & ybit) != 0, r, yroll, own_bit, joker_code, has_y, fill,
                                     lower_bits)
            bon = extra_bonus_points(yroll[r], y == 1, extra)
            sl, sc, _, _ = _choose_box(r, bits, fullv, bon, natural, joker, var_nat, var_jok, NV, vmax, False)
            b = sl // vmax
            v = sl % vmax
            scores[g, 0, b] = sc
            ybonus[g, 0] += bon
            if record:
                nrolls_out[g, _turn_no] = used
                box_out[g, _turn_no] = b
            m |= 1 << b
            if is_upper[b]:
                usum += sc
            if yn[b, v] >= 0:
                y = yn[b, v] if nyt == 2 else 0


def _call(kernel: Any, *args: Any) -> Any:
    """Call a compiled kernel (its rule-set arrays come as one tuple, Model.args)."""
    return kernel(*args)


def _on_chunks(kernel: Any, n: int, nchunks: int, *args: Any, threads: int | None = None) -> None:
    """kernel(c, nch, *args) over the chunks of n independent items (totals.on_chunks)."""
    on_chunks(lambda c, nch: kernel(c, nch, *args), n, nchunks, threads)


# --------------------------------------------------------------------------- setup


@dataclass
class Model:
    """A rule set's layout plus the arrays the compiled passes take."""

    rules: RuleSet
    lay: Layout
    subkeeps: IntArray
    nsub: IntArray
    eff: IntArray  # [upper set, u] -> the total standing for u (dead totals share one)
    max_box: IntArray  # [box] most points one turn can write in it (extra bonus included)
    bonus_rolls: IntArray
    J: int
    args: tuple[Any, ...] = field(default=())


SAY_FROM_SHEETS = 1000  # position_chances says it is computing from this many sheets ahead (about a second)
MAX_STATES = 1 << 23  # the distributions keep a score pmf per state: larger tables (Maxi Yatzy) have none


def check_size(rules: RuleSet) -> None:
    """NotExact when the rule set's exact table is too large for distributions and risk tables."""
    states = exact_states(rules)
    if exact_reason(rules) is None and states > MAX_STATES:
        raise NotExact(f"exact score distributions and risk tables are limited to {MAX_STATES:,} states; "
                       f"{rules.name} has {states:,} (its expected score is exact: yahtzee solve)")


def model(rules: RuleSet) -> Model:
    """NotExact when the rule set has no exact table, or one too large for distributions."""
    check_size(rules)
    lay = layout(rules)
    sc = lay.scores
    s = rules.settings
    sk, ns = proper_subkeeps(rules.dice)
    n_sub = lay.ulist.shape[0]
    eff = np.tile(np.arange(lay.t + 1, dtype=np.int64), (n_sub, 1))
    for sub in range(n_sub):
        for i in range(int(lay.dcount[sub])):
            eff[sub, lay.dlist[sub, i]] = lay.ulist[sub, 0]
    yr = sc.yahtzee_roll
    most = np.maximum(sc.natural.max(axis=0), np.where(yr[:, None], sc.joker, 0).max(axis=0))
    max_box = most + s.extra_yahtzee_bonus
    natT = np.ascontiguousarray(sc.natural.T, dtype=np.float64)
    jokT = np.ascontiguousarray(sc.joker.T, dtype=np.float64)
    vnatT = np.ascontiguousarray(lay.var_nat.T, dtype=np.uint8)
    vjokT = np.ascontiguousarray(lay.var_jok.T, dtype=np.uint8)
    br = _bonus_rolls(rules, sc)
    J = rolls_allowed(rules, 0) - 1
    m = Model(rules, lay, sk, ns, eff, max_box.astype(np.int64), br, J)
    m.args = (sc.natural, sc.joker, lay.var_nat, lay.var_jok, natT, jokT, vnatT, vjokT, lay.nvar, lay.du, lay.yn,
              sc.yahtzee_roll, sc.own_bit, br, int(np.argmin(sc.yahtzee_roll)), JOKER_CODES[s.joker], lay.has_y,
              s.fill_codes[0], sc.lower_bits)
    return m


def _lay_values(mod: Model, tab: Table) -> FloatArray:
    """The table's values in the layout's row order (rows by popcount, as lay.midx numbers them)."""
    rows = np.searchsorted(tab.masks, mod.lay.masks)
    return np.ascontiguousarray(tab.W[rows])


def _states(mod: Model, p: int, within: int = 0) -> tuple[IntArray, IntArray, IntArray]:
    """The distinct states of popcount layer p (dead upper totals merged), masks containing `within`."""
    lay = mod.lay
    masks = lay.masks[lay.layer_ptr[p]: lay.layer_ptr[p + 1]]
    if within:
        masks = masks[(masks & within) == within]
    sm: list[int] = []
    sy: list[int] = []
    su: list[int] = []
    for m in masks.tolist():
        sub = int(lay.sub_of[m])
        us = lay.ulist[sub, : lay.ucount[sub]].tolist()
        ny = lay.nyt if m & lay.ybit else 1
        for y in range(ny):
            for u in us:
                sm.append(m)
                sy.append(y)
                su.append(u)
    return np.array(sm, np.int64), np.array(sy, np.int64), np.array(su, np.int64)


def _max_rest(mod: Model, sm: IntArray, sy: IntArray, su: IntArray) -> IntArray:
    """An upper bound of the points still to come from each state (box maxima, extra bonuses, bonus)."""
    lay = mod.lay
    s = mod.rules.settings
    nb = lay.nb
    open_ = ((1 << nb) - 1) & ~sm
    tot = np.zeros(len(sm), dtype=np.int64)
    n_open = np.zeros(len(sm), dtype=np.int64)
    for b in range(nb):
        ob = (open_ >> b) & 1
        tot += ob * (mod.max_box[b] - s.extra_yahtzee_bonus)
        n_open += ob
    if s.extra_yahtzee_bonus and lay.has_y:
        y_open = (open_ & lay.ybit) != 0
        # extra bonuses come only once the Yahtzee box holds its points: at most one per later turn
        n_bonus = np.where(y_open, np.maximum(n_open - 1, 0), np.where(sy == 1, n_open, 0))
        tot += n_bonus * s.extra_yahtzee_bonus
    tot += s.upper_bonus if s.upper_bonus > 0 else 0
    return tot


@dataclass
class Distribution:
    """pmf[x] = P(final score = x) (or of the remaining points), offset `lo` (pmf[0] is score lo)."""

    pmf: FloatArray
    lo: int = 0
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def scores(self) -> IntArray:
        return np.arange(self.lo, self.lo + len(self.pmf), dtype=np.int64)

    @property
    def mean(self) -> float:
        return float(np.dot(self.scores.astype(np.float64), self.pmf))

    @property
    def sd(self) -> float:
        x = self.scores.astype(np.float64)
        mu = self.mean
        return math.sqrt(max(float(np.dot((x - mu) ** 2, self.pmf)), 0.0))

    def at_least(self, x: int) -> float:
        """P(score >= x)."""
        i = x - self.lo
        if i <= 0:
            return float(self.pmf.sum())
        return float(self.pmf[i:].sum()) if i < len(self.pmf) else 0.0

    def percentile(self, q: float) -> int:
        """The smallest score s with P(score <= s) >= q / 100."""
        c = np.cumsum(self.pmf)
        i = int(np.searchsorted(c, q / 100.0 - 1e-12))
        return self.lo + min(i, len(self.pmf) - 1)


def _pass_layers(mod: Model, W: FloatArray, theta: float, cap: int | None, solver_ties: bool, within: int = 0,
                 stop_layer: int = 0, progress: Callable[[int, int], None] | None = None,
                 ) -> tuple[dict[str, IntArray], FloatArray, IntArray]:
    """Run the pmf pass down to layer `stop_layer`; returns that layer's states, H and sid map."""
    lay = mod.lay
    s = mod.rules.settings
    tp1 = lay.t + 1
    width = lay.width
    nb = lay.nb
    allow_pass = not s.must_zero
    big = 1 << 30
    capv = big if cap is None else max(cap, 0)
    max_pts = int(mod.max_box.max())
    # full column: the remaining points are the upper bonus
    sm, sy, su = _states(mod, nb, within)
    bonus = np.where(su >= lay.t, s.upper_bonus if s.upper_bonus > 0 else 0, 0)
    if s.upper_bonus <= 0:
        bonus[:] = 0
    length = np.minimum(bonus, capv) + 1
    off = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    H = np.zeros(int(length.sum()))
    H[off + np.minimum(bonus, capv)] = 1.0
    sid = np.full((len(lay.masks), width), -1, dtype=np.int64)
    sid[lay.midx[sm], sy * tp1 + su] = np.arange(len(sm))
    done = 0
    total = int(lay.layer_ptr[nb] - lay.layer_ptr[stop_layer])
    for p in range(nb - 1, stop_layer - 1, -1):
        sm2, sy2, su2 = _states(mod, p, within)
        if len(sm2) == 0:
            continue
        length2 = np.minimum(_max_rest(mod, sm2, sy2, su2), capv) + 1
        off2 = np.concatenate([[0], np.cumsum(length2)[:-1]]).astype(np.int64)
        H2 = np.empty(int(length2.sum()))
        _on_chunks(_pmf_layer, len(sm2), 64, sm2, sy2, su2, off2, length2, H2, H, sid, off, length, mod.eff,
                   lay.sub_of, capv, theta, W,
                   lay.midx, lay.t, lay.nyt, nb, *mod.args, s.extra_yahtzee_bonus, allow_pass, lay.ybit, mod.J,
                   lay.scores.dice.roll_prob, lay.scores.dice.keep_of_roll, lay.scores.dice.add_die,
                   lay.scores.dice.drop_self, mod.subkeeps, mod.nsub, solver_ties, max_pts)
        sid = np.full((len(lay.masks), width), -1, dtype=np.int64)
        sid[lay.midx[sm2], sy2 * tp1 + su2] = np.arange(len(sm2))
        H, off, length = H2, off2, length2
        sm, sy, su = sm2, sy2, su2
        done += int(lay.layer_ptr[p + 1] - lay.layer_ptr[p])
        if progress is not None:
            progress(done, total)
    return {"mask": sm, "y": sy, "u": su, "off": off, "length": length}, H, sid


def solver_ties_for(rules: RuleSet, theta: float) -> bool:
    """Expected-score play breaks ties as the solver does (so the moments are the table's); risk
    play and rules with passes as the simulator does."""
    return theta == 0.0 and rules.settings.must_zero


def final_distribution(rules: RuleSet, tab: Table, theta: float = 0.0, solver_ties: bool | None = None,
                       progress: Callable[[int, int], None] | None = None) -> Distribution:
    """The exact pmf of the final score from an empty column under the table's policy (theta: the
    risk table's parameter, 0 for the expected-score table). solver_ties: see `_turn` (default:
    `solver_ties_for`)."""
    t0 = time.perf_counter()
    mod = model(rules)
    if theta != 0.0 and not rules.settings.must_zero:
        raise NotExact("risk-sensitive tables need must_zero on")
    ties = solver_ties_for(rules, theta) if solver_ties is None else solver_ties
    W = _lay_values(mod, tab)
    st, H, _ = _pass_layers(mod, W, theta, None, ties, progress=progress)
    o, L = int(st["off"][0]), int(st["length"][0])
    pmf = H[o: o + L].copy()
    nz = np.nonzero(pmf)[0]
    hi = int(nz[-1]) + 1 if len(nz) else 1
    return Distribution(pmf[:hi], 0, time.perf_counter() - t0, {"theta": theta})


def risk_values(rules: RuleSet, theta: float, tab: Table | None = None, solver_ties: bool = False,
                progress: Callable[[int, int], None] | None = None) -> Table:
    """The risk table of theta: W = certainty equivalent of the remaining points, (1 / theta) *
    log E[exp(theta * rest)], under the policy maximising it; by backward induction over the layers.
    theta = 0 (with `tab`): the values the expected-score table's own policy earns (a cross-check)."""
    t0 = time.perf_counter()
    mod = model(rules)
    lay = mod.lay
    s = rules.settings
    if not s.must_zero:
        raise NotExact("risk-sensitive tables need must_zero on (passes would make a turn repeat)")
    tp1 = lay.t + 1
    W = np.zeros((len(lay.masks), lay.width))
    full = (1 << lay.nb) - 1
    u = np.arange(tp1)
    W[lay.midx[full]] = np.tile(np.where(u >= lay.t, float(max(s.upper_bonus, 0)), 0.0), lay.nyt)
    Wsrc = _lay_values(mod, tab) if theta == 0.0 and tab is not None else W
    d = lay.scores.dice
    done = 0
    for p in range(lay.nb - 1, -1, -1):
        sm, sy, su = _states(mod, p)
        out = np.empty(len(sm))
        _on_chunks(_risk_layer, len(sm), 64, sm, sy, su, theta, Wsrc, lay.midx, lay.t, lay.nyt, lay.nb, *mod.args,
                   s.extra_yahtzee_bonus,
                    lay.ybit, mod.J, d.roll_prob, d.keep_of_roll, d.add_die, d.drop_self, mod.subkeeps, mod.nsub,
                    solver_ties, out)
        rows = lay.midx[sm]
        W[rows, sy * tp1 + su] = out
        # dead upper totals share their representative's value
        for i in range(len(sm)):
            sub = int(lay.sub_of[sm[i]])
            if int(lay.ulist[sub, 0]) == int(su[i]):
                for k in range(int(lay.dcount[sub])):
                    W[rows[i], sy[i] * tp1 + lay.dlist[sub, k]] = out[i]
        done += len(sm)
        if progress is not None:
            progress(int(lay.layer_ptr[lay.nb] - lay.layer_ptr[p]), len(lay.masks))
    order = np.argsort(lay.masks)
    Ws = W[order]
    r0 = int(lay.midx[0])
    return Table(rules.fingerprint, rules.name, lay.nb, lay.t, lay.nyt, lay.masks[order], Ws, float(W[r0, 0]),
                 float("nan"), time.perf_counter() - t0, {"theta": theta, "states": lay.n_states})


# --------------------------------------------------------------------------- cache

VERSION = 1  # bump when a distribution's or risk table's meaning changes
THETA_GRID = (-0.02, 0.0, 0.02, 0.05)  # risk strategies `hint --target` chooses among


def theta_key(theta: float) -> str:
    """A cache-name-safe spelling of theta (0 is the expected-score table)."""
    return "0" if theta == 0.0 else f"{theta:+.6g}".replace("+", "p").replace("-", "m")


def _dist_path(rules: RuleSet, theta: float) -> Any:
    return cache.table_path(rules.fingerprint, f"dist{theta_key(theta)}")


def _risk_path(rules: RuleSet, theta: float) -> Any:
    return cache.table_path(rules.fingerprint, f"risk{theta_key(theta)}")


def _read_dist(rules: RuleSet, theta: float) -> Distribution:
    header, arrays = cache.read(_dist_path(rules, theta), rules.fingerprint)
    if header.get("version") != VERSION or header.get("kind") != "distribution" or header.get("theta") != theta:
        raise CorruptTable("the cached distribution is from another version")
    pmf = np.frombuffer(arrays["pmf"], dtype=np.float64).copy()
    return Distribution(pmf, int(header["lo"]), float(header.get("seconds", 0.0)), {"theta": theta})


def _write_dist(rules: RuleSet, d: Distribution) -> None:
    header = {"kind": "distribution", "version": VERSION, "fingerprint": rules.fingerprint, "rule_name": rules.name,
              "theta": d.meta.get("theta", 0.0), "lo": d.lo, "seconds": d.seconds}
    cache.write(_dist_path(rules, float(header["theta"])), header, {"pmf": ("d", d.pmf.astype("<f8").tobytes())})


def _read_risk(rules: RuleSet, theta: float) -> Table:
    header, arrays = cache.read(_risk_path(rules, theta), rules.fingerprint)
    if header.get("version") != VERSION or header.get("kind") != "risk" or header.get("theta") != theta:
        raise CorruptTable("the cached risk table is from another version")
    width = int(header["nyt"]) * (int(header["t"]) + 1)
    masks = np.frombuffer(arrays["masks"], dtype=np.int64)
    W = np.frombuffer(arrays["W"], dtype=np.float64).reshape(len(masks), width)
    return Table(header["fingerprint"], header["rule_name"], int(header["nb"]), int(header["t"]), int(header["nyt"]),
                 masks, W, float(header["mean"]), float("nan"), float(header.get("build_seconds", 0.0)),
                 {"theta": theta})


def _write_risk(rules: RuleSet, tab: Table, theta: float) -> None:
    header = {"kind": "risk", "version": VERSION, "fingerprint": tab.fingerprint, "rule_name": tab.rule_name,
              "theta": theta, "nb": tab.nb, "t": tab.t, "nyt": tab.nyt, "mean": tab.mean,
              "build_seconds": tab.build_seconds}
    cache.write(_risk_path(rules, theta), header, {"masks": ("q", tab.masks.astype("<i8").tobytes()),
                                                   "W": ("d", tab.W.astype("<f8").tobytes())})


def _cached(read: Callable[[], Any], build: Callable[[], Any], write: Callable[[Any], None], what: str,
            say: Callable[[str], None] | None, rebuild: bool) -> tuple[Any, bool]:
    if not rebuild:
        try:
            return read(), False
        except FileNotFoundError:
            pass
        except (CorruptTable, KeyError, ValueError) as exc:
            if say is not None:
                say(f"warning: damaged {what} ignored ({exc}); rebuilding it")
    if say is not None:
        say(f"computing the {what} (once; cached in {cache.cache_dir()})")
    obj = build()
    try:
        write(obj)
    except OSError as exc:
        if say is not None:
            say(f"warning: cannot store the {what} in {cache.cache_dir()}: {exc.strerror}")
    return obj, True


def get_risk_table(rules: RuleSet, theta: float, say: Callable[[str], None] | None = None, rebuild: bool = False,
                   progress: Callable[[int, int], None] | None = None) -> Table:
    """The table whose policy maximises E[exp(theta * final score)] (theta = 0: the expected-score table)."""
    from .exact import get_table

    theta = effective_theta(rules, theta)
    if theta == 0.0:
        return get_table(rules, say, rebuild=rebuild, progress=progress)[0]
    check_size(rules)  # before any note that it is being made
    tab, _ = _cached(lambda: _read_risk(rules, theta), lambda: risk_values(rules, theta, progress=progress),
                     lambda tb: _write_risk(rules, tb, theta), f"{rules.name} risk table for theta {theta:g}", say,
                     rebuild)
    assert isinstance(tab, Table)
    return tab


def get_distribution(rules: RuleSet, theta: float = 0.0, say: Callable[[str], None] | None = None,
                     rebuild: bool = False, progress: Callable[[int, int], None] | None = None,
                     ) -> tuple[Distribution, bool]:
    """The exact final-score distribution of the table's policy (theta: the risk table's), cached."""
    theta = effective_theta(rules, theta)
    def build() -> Distribution:
        tab = get_risk_table(rules, theta, say, progress=progress)
        return final_distribution(rules, tab, theta, progress=progress)

    check_size(rules)  # before any note that it is being made
    what = f"{rules.name} score distribution" + (f" for theta {theta:g}" if theta else "")
    d, built = _cached(lambda: _read_dist(rules, theta), build, lambda dd: _write_dist(rules, dd), what, say,
                       rebuild)
    assert isinstance(d, Distribution)
    return d, built


# --------------------------------------------------------------------------- from a position


@dataclass
class OptionChance:
    """One option of a position and the final score it leads to under the policy (pmf from `lo`;
    with a target, the last cell holds P(final >= target))."""

    keep: tuple[int, ...] | None
    box: int | None
    score: int
    bonus: int
    dist: Distribution

    def at_least(self, x: int) -> float:
        return self.dist.at_least(x)


def position_chances(rules: RuleSet, column: Any, dice: tuple[int, ...], rolls_left: int, options: list[Any],
                     theta: float = 0.0, target: int | None = None, tab: Table | None = None,
                     say: Callable[[str], None] | None = None) -> list[OptionChance]:
    """The final-score distribution of each option (position.Choice: a keep or a box) of a one-column
    position, playing on by the policy of theta's table. With `target`, only P(final >= target) is
    exact (scores from the target up are lumped), which is much less work."""
    from .tables import counts_key

    theta = effective_theta(rules, theta)
    mod = model(rules)
    lay = mod.lay
    s = rules.settings
    st = column_state(rules, column)
    base = raw_points(rules, column)
    m = st.mask
    y = 1 if st.yfull and lay.nyt == 2 else 0
    u = int(mod.eff[lay.sub_of[m], min(st.upper, lay.t)])
    p0 = bin(m).count("1")
    rest = int(_max_rest(mod, np.array([m]), np.array([y]), np.array([u]))[0])
    if target is not None and not base < target <= base + rest:
        # beyond the best reachable total the chance is 0, at or below the points written it is 1:
        # answered at once, whatever the option
        sure = np.zeros(base + rest + 2)
        sure[base if target <= base else base + rest] = 1.0
        return [OptionChance(o.keep, None, 0, 0, Distribution(sure, 0, 0.0, {"theta": theta})) if o.keep is not None
                else OptionChance(None, int(o.box), int(o.score), int(o.bonus), Distribution(sure, 0, 0.0,
                                                                                           {"theta": theta}))
                for o in options]
    if tab is None:
        tab = get_risk_table(rules, theta, say)
    ties = solver_ties_for(rules, theta)
    W = _lay_values(mod, tab)
    cap = None if target is None else target - base
    if say is not None:  # the sheets still ahead, each valued in turn: seconds from an early position
        from .jit import note_compile

        note_compile([_pmf_layer, _option], "the exact distribution's kernels", say)
        ahead = int(np.count_nonzero((lay.masks[int(lay.layer_ptr[p0 + 1]):] & m) == m))
        if ahead >= SAY_FROM_SHEETS:
            say(f"computing the exact final-score distributions from this position ({ahead:,} sheets ahead)")
    states, H, sid = _pass_layers(mod, W, theta, cap, ties, within=m, stop_layer=p0 + 1)
    d = lay.scores.dice
    tp1 = lay.t + 1
    vmax = lay.du.shape[1]
    R = len(d.rolls)
    hi = base + rest if cap is None else base + cap  # (the lumped bin: at most one past the best total)
    out: list[OptionChance] = []

    def rest_of(b: int, v: int) -> tuple[FloatArray, int]:
        m2 = m | (1 << b)
        y2 = y if lay.yn[b, v] < 0 else int(lay.yn[b, v])
        if lay.yn[b, v] >= 0 and lay.nyt != 2:
            y2 = 0
        u2 = int(mod.eff[lay.sub_of[m2], min(u + int(lay.du[b, v]), lay.t)])
        j = int(sid[lay.midx[m2], y2 * tp1 + u2])
        o, L = int(states["off"][j]), int(states["length"][j])
        return H[o: o + L], L

    def add(pmf: FloatArray, p: float, b: int, v: int, pts: int) -> None:
        h, L = rest_of(b, v)
        start = base + pts
        if cap is None:
            pmf[start: start + L] += p * h
            return
        lin = max(min(L, base + cap - start), 0)
        pmf[start: start + lin] += p * h[:lin]
        pmf[base + cap] += p * float(h[lin:].sum())

    for opt in options:
        pmf = np.zeros(hi + 1)
        if opt.keep is not None:
            counts = [0] * 6
            for f in opt.keep:
                counts[f - 1] += 1
            k = int(d.keep_index[counts_key(counts)])
            Pfin = np.empty(R)
            slot = np.empty(R, np.int64)
            pts = np.empty(R, np.int64)
            q = _call(_option, m, y, u, theta, W, lay.midx, lay.t, lay.nyt, lay.nb, *mod.args, s.extra_yahtzee_bonus,
                        not s.must_zero, lay.ybit, mod.J, d.roll_prob, d.keep_of_roll, d.add_die, d.drop_self,
                        mod.subkeeps, mod.nsub, ties, k, rolls_left, Pfin, slot, pts)
            scale = 1.0 / (1.0 - q) if q < 1.0 else 0.0
            acc: dict[tuple[int, int], float] = {}
            for r in np.nonzero(Pfin)[0].tolist():
                if slot[r] >= 0:
                    key = (int(slot[r]), int(pts[r]))
                    acc[key] = acc.get(key, 0.0) + float(Pfin[r]) * scale
            # a pass (must_zero off) comes back to this position: the rest is scaled up to match
            for (sl, pt), p in acc.items():
                add(pmf, p, sl // vmax, sl % vmax, pt)
            out.append(OptionChance(opt.keep, None, 0, 0, Distribution(pmf, 0, 0.0, {"theta": theta})))
        elif opt.box is not None:
            b = int(opt.box)
            v = _variant(lay, b, int(opt.score))
            add(pmf, 1.0, b, v, int(opt.score) + int(opt.bonus))
            out.append(OptionChance(None, b, int(opt.score), int(opt.bonus), Distribution(pmf, 0, 0.0,
                                                                                         {"theta": theta})))
    return out


def _variant(lay: Layout, b: int, score: int) -> int:
    """The next-state variant a score written in box b makes (solver.box_variants' numbering)."""
    sc = lay.scores
    if lay.nvar[b] == 1:
        return 0
    if b == sc.yahtzee_box:
        return 1 if score == sc.yahtzee_points else 0
    for v in range(int(lay.nvar[b])):
        if int(lay.du[b, v]) == score:
            return v
    raise ValueError(f"box {b} cannot hold {score}")


# --------------------------------------------------------------------------- risk play


def play_risk(rules: RuleSet, theta: float, seed: int, first_game: int, n_games: int, seat: int = 0,
              tab: Table | None = None, say: Callable[[str], None] | None = None, record: bool = False,
              threads: int | None = None) -> Any:
    """Games first_game .. first_game + n_games - 1 of seat `seat` played by the policy maximising
    E[exp(theta * final score)] (a games.GameBatch; `record`: with every turn's rolls, held dice and
    box, as solver.play records them, for game logs). `threads`: default one per core."""
    from .games import GameBatch
    from .totals import sheet_totals

    theta = effective_theta(rules, theta)
    mod = model(rules)
    lay = mod.lay
    s = rules.settings
    if tab is None:
        tab = get_risk_table(rules, theta, say)
    W = _lay_values(mod, tab)
    d = lay.scores.dice
    sc = lay.scores
    scores = np.empty((n_games, 1, lay.nb), dtype=np.int64)
    ybonus = np.zeros((n_games, 1), dtype=np.int64)
    is_upper = np.array([b.kind == "upper" for b in rules.boxes], dtype=np.bool_)
    nt = lay.nb  # must_zero on: one box a turn, no passes
    rg, rt, rr = (n_games, nt, mod.J + 1) if record else (1, 1, 1)
    rolls_out = np.zeros((rg, rt, rr, rules.dice), dtype=np.int64)
    held_out = np.zeros((rg, rt, max(rr - 1, 1), rules.dice), dtype=np.int64)
    nrolls = np.zeros((rg, rt), dtype=np.int64)
    box = np.full((rg, rt), -1, dtype=np.int64)
    _on_chunks(_play, n_games, 64, seed, first_game, seat, theta, W, lay.midx, lay.t, lay.nyt, lay.nb, *mod.args,
               s.extra_yahtzee_bonus,
          lay.ybit, mod.J, d.roll_prob, d.keep_of_roll, d.add_die, d.drop_self, mod.subkeeps, mod.nsub, d.keeps,
          d.keep_index, d.roll_of_keep, is_upper, sc.yahtzee_box, sc.yahtzee_points, scores, ybonus, record,
          rolls_out, held_out, nrolls, box, threads=threads)
    totals, _ = sheet_totals(rules, scores, ybonus)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if record:
        r_used = max(int(nrolls.max()) if n_games else 1, 1)
        batch.rolls = rolls_out[:, :, :r_used].copy()
        batch.held = held_out[:, :, : max(r_used - 1, 0)].copy()
        batch.n_rolls = nrolls
        batch.column = np.zeros((n_games, nt), dtype=np.int64)
        batch.box = box
        batch.n_turns = np.full(n_games, nt, dtype=np.int64)
    return batch


# --------------------------------------------------------------------------- presentation


def round_target(x: float) -> int:
    """A round score near x (a multiple of 10) for P(final >= T) when no target is given."""
    return int(round(x / 10.0)) * 10


def thresholds(d: Distribution) -> list[int]:
    """Round thresholds across the likely range (multiples of 50 between the 5th and 99th percentile)."""
    lo, hi = d.percentile(5), d.percentile(99)
    out = list(range((lo + 49) // 50 * 50, hi + 1, 50))
    return out or [round_target(d.percentile(50))]


def summary(d: Distribution, targets: list[int] | None = None) -> dict[str, Any]:
    """The JSON shape of a distribution: pmf pairs (zero cells left out), percentiles, P(>= x)."""
    ts = thresholds(d) if targets is None else targets
    nz = np.nonzero(d.pmf)[0]
    return {
        "mean": d.mean, "sd": d.sd,
        "percentiles": {str(q): d.percentile(q) for q in PERCENTILES},
        "at_least": {str(x): d.at_least(x) for x in ts},
        "pmf": [[int(d.lo + i), float(d.pmf[i])] for i in nz.tolist()],
    }


def histogram_lines(d: Distribution, bar: int = 50, max_bins: int = 30) -> list[str]:
    """A terminal histogram of the likely range (0.1st to 99.9th percentile), bins of 5, 10, 20 or 50."""
    lo, hi = d.percentile(0.1), d.percentile(99.9)
    width = next((w for w in (5, 10, 20, 50, 100) if (hi - lo) // w + 1 <= max_bins), 100)
    start = lo // width * width
    rows = []
    for a in range(start, hi + 1, width):
        i0, i1 = max(a - d.lo, 0), max(min(a + width - d.lo, len(d.pmf)), 0)
        rows.append((f"{a}-{a + width - 1}", float(d.pmf[i0:i1].sum())))
    top = max(p for _, p in rows) or 1.0
    lw = max(len(label) for label, _ in rows)
    lines = [f"final score (bins of {width}, P in %):"]
    for label, p in rows:
        lines.append(f"  {label:>{lw}} | {100 * p:5.2f} {'#' * max(int(round(bar * p / top)), 1 if p > 0 else 0)}")
    return lines
