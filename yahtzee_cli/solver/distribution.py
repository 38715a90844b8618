"""Beyond the mean: the exact distribution of the final score under a table's policy, and
risk-sensitive tables (maximise E[exp(theta * final score)]).

The policy of a turn-start state (filled mask, y, capped upper total u) is the one the simulator
plays: the same final-roll values (within_turn.column_final on the next states' values), the same keep
values (within_turn.keep_values) and the same tie-breaks (stopping wins ties, the first sub-keep in
tables.proper_subkeeps' order, the first box in sheet order, a pass charged strategy.turn.PASS_COST).
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import NotExact
from ..progress import given
from ..rules.engine import RuleSet, rolls_allowed
from ..store import artifact as store
from ..store import tablefile
from ..store.kinds import DISTRIBUTION, RISK, theta_key
from ..strategy.choice import MAX_DIST_STATES as MAX_STATES
from ..strategy.choice import effective_theta, exact_reason
from ..strategy.space import state_space
from ..strategy.turn import PASS_COST
from .compiled import extra_bonus_points
from .exact import Layout, Table, layout
from .jit import INNER, KERNEL, borrow, njit
from .play_kernel import TurnWork, box_arrays, box_points, keep_by_values, mark_box, new_sheet, play_turn, turn_work
from .pmf import Distribution
from .rng import stream
from .tables import RuleArrays
from .totals import on_chunks
from .within_turn import (
    FUTURE_TABLE,
    NEG,
    Future,
    best_sub_lanes,
    box_choice,
    box_max,
    column_final,
    keep_choice,
    keep_values,
    next_box,
    next_values,
    roll_legal,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

WHOLE_TURN = (np.int64(-1), np.int64(0))  # _turn's start for a whole turn (np.int64s, never literals: one compile)
NO_CLAMP = (0.0, 0.0, False)  # within_turn.box_choice's clamp: a column's own value


# --------------------------------------------------------------------------- compiled core


@njit(**INNER)
def _turn(state: Any, theta: float, fut: Any, ra: Any, work: Any, play: Any, start: Any) -> tuple[float, float]:
    """The policy of state (m, y, u) on the values fut.W (theta = 0: expected scores; else CE values).

    Parameters
    ----------
    state : (int, int, int)
        (m, y, u): filled boxes, the Yahtzee lane, the capped upper total.
    theta : float
        0 for expected scores; else the risk parameter of the certainty equivalents in fut.W.
    fut : within_turn.Future
        The values of the turn-start states (a table, in the layout's rows).
    ra : tables.RuleArrays
        The rule set's arrays.
    work : play_kernel.TurnWork
        Scratch, and written: Y (value of each final roll, in the domain keeps compare), EJ (keep
        values, j rolls left), Pfin[r] (probability the turn ends on roll r), slot[r] = box * vmax +
        variant of the box chosen (-1: pass) and pts[r] (points written with the extra bonus).
    play : (bool, bool, int)
        (solver_ties, allow_pass, J), the policy's conventions:
    solver_ties : bool
        Break ties as the solver's backward induction does (values absolute; a keep ties to the
        larger keep, keeping every die may wait for a later roll), so the distribution's moments are
        the table's; otherwise as simulated games do (play_kernel.play_games), so they match game
        for game.
    allow_pass : bool
        Passes allowed.
    J : int
        Rolls left after the first.
    start : (int, int)
        (keep, rolls left): the turn from a position, the dice `keep` kept with that many rolls left;
        WHOLE_TURN from the turn's start.

    Returns
    -------
    (P(pass), the state's value under this policy: expected remaining score or CE)
    """
    m, y, u = state
    solver_ties, allow_pass, J = play
    NV, Vc, nzc, Y, EJ, E = work.NV[0], work.Vc, work.nzc, work.Y, work.EJ, work.E
    P, Pk, Pfin, slot, pts, M, A, Y2 = work.P, work.Pk, work.Pfin, work.slot, work.pts, work.M, work.A, work.Y2
    start_keep, start_j = start
    roll_prob, keep_of_roll, add_die, drop_die = ra.roll_prob, ra.keep_of_roll, ra.add_die, ra.drop_die
    yroll, extra = ra.yroll, ra.extra
    natT, jokT, vnatT, vjokT = ra.natT, ra.jokT, ra.vnatT, ra.vjokT
    nb = ra.nb
    W, midx, t = fut.W, fut.midx, fut.t
    ybit = (1 << ra.ybox) if ra.has_y else 0
    R = natT.shape[1]
    K = add_die.shape[0]
    first_full = K - R
    vmax = ra.du.shape[1]
    tp1 = t + 1
    full = (1 << nb) - 1
    open_ = full & ~m
    yfilled = (m & ybit) != 0
    yfull = y == 1
    fcur = W[midx[m], y * tp1 + u] if theta == 0.0 and not solver_ties else 0.0
    next_values(NV, m, y, u, fcur, 1.0, fut, ra)
    column_final(Vc, nzc, open_, yfilled, yfull, 1.0, NV, ra, ra.fill0, allow_pass)
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
    keep_values(work.YS, EJ, E, J, 0.0, ra.keep_of_roll, ra.add_die, ra.drop_die)
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
            # the table build's choice (within_turn.best_sub_lanes, carrying the keep chosen): every
            # keep of a roll, the roll itself worth V_{j-1}
            for k in range(K):
                M[k] = EJ[j - 1, k]
                A[k] = k
            best_sub_lanes(M.reshape((K, 1)), A.reshape((K, 1)), A.reshape((K, 1)), 1, drop_die, 1)
            for r in range(R):
                Pk[int(A[keep_of_roll[r]])] += P[r]
        else:
            for r in range(R):
                pr = P[r]
                if pr == 0.0:
                    continue
                bk = keep_choice(r, EJ[j - 1], Y[r], ra.subkeeps, ra.nsub)
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
    bbits, bfull = roll_legal(open_, yfilled, ra.base_roll, yroll, ra.own_bit, ra.joker_code, ra.has_y, ra.fill0,
                              ra.lower_bits)
    sT = jokT if bfull else natT
    vT = vjokT if bfull else vnatT
    for r in range(R):
        Y2[r] = NEG
        slot[r] = -1
    bb = bbits
    while bb:
        bb, b = next_box(bb)
        box_max(Y2, slot, b, sT[b], vT[b], NV, b * vmax, ra.nvar[b], None)  # slot: the box, for now
    for r in range(R):
        if slot[r] >= 0:
            b = slot[r]
            pts[r] = int(sT[b, r])
            slot[r] = b * vmax + vT[b, r]
    qpass = 0.0
    acc = 0.0
    for r in range(R):
        if Pfin[r] == 0.0:
            continue
        bits, fullv = roll_legal(open_, yfilled, r, yroll, ra.own_bit, ra.joker_code, ra.has_y, ra.fill0,
                                 ra.lower_bits)
        bon = extra_bonus_points(yroll[r], yfull, extra)
        if bits != bbits or fullv != bfull or bon != 0 or allow_pass:
            sl, sc, allzero, best = box_choice(r, bits, fullv, bon, NV, 1.0, NO_CLAMP, ra.rows, vmax, solver_ties)
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
def _option(m: int, y: int, u: int, theta: float, fut: Any, ra: Any, work: Any, solver_ties: bool, J: int,
            start: Any) -> float:
    """Where the turn ends (work.Pfin, slot, pts as in `_turn`) after keeping start[0] with start[1]
    rolls left and playing on by the policy; returns P(pass). Parameters as `_turn`'s (passes allowed
    where the rules allow them: not ra.must_zero)."""
    q, _ = _turn((m, y, u), theta, fut, ra, work, (solver_ties, not ra.must_zero, J), start)
    return q


@njit(**KERNEL)
def _risk_layer(c: int, nch: int, states: Any, theta: float, fut: Any, ra: Any, work: Any, J: int,
                solver_ties: bool, out: np.ndarray) -> None:
    """out[i] = value of state i of `states` (masks, y lanes, upper totals) under theta, from fut.W's later
    layers: the states c, c + nch, ... (a chunk; the others run on other threads). Other parameters as
    `_turn`'s (no passes: risk tables need must_zero on)."""
    fut, ra, work = borrow(fut), borrow(ra), borrow(work)  # (jit.borrow: no counts per call of a helper)
    smask, sy, su = states
    for i in range(c, smask.shape[0], nch):
        _, val = _turn((smask[i], sy[i], su[i]), theta, fut, ra, work, (solver_ties, False, J), WHOLE_TURN)
        out[i] = val


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def _pmf_layer(c: int, nch: int, states: Any, pmfs: Any, theta: float, fut: Any, ra: Any, work: Any,
               play: Any) -> None:
    """The pmf of the remaining points of the states c, c + nch, ... of `states` (masks, y lanes, upper
    totals), from the next layer's.

    Parameters
    ----------
    states : (int64[n], int64[n], int64[n])
        The layer's states.
    pmfs : tuple
        (off, length, H, Hn, sid_next, off_next, len_next, eff, sub_of, cap, max_pts): written,
        H[off[i]:off[i] + length[i]] the pmf of state i; read, the next layer's pmfs Hn (at off_next,
        len_next; sid_next[row, lane]: a state's index in that layer); eff[upper set, u] the total
        standing for u; sub_of; cell `cap` holds P(remaining >= cap); max_pts the most points a
        turn writes in one box.
    theta, fut, ra, work, play
        As `_turn`.
    """
    fut, ra, work = borrow(fut), borrow(ra), borrow(work)  # (jit.borrow: no counts per call of a helper)
    smask, sy, su = states
    off, length, H, Hn, sid_next, off_next, len_next, eff, sub_of, cap, max_pts = pmfs
    Pfin, slot, pts = work.Pfin, work.slot, work.pts
    n = smask.shape[0]
    R = ra.natT.shape[1]
    vmax = ra.du.shape[1]
    yn, du, midx, t, nyt = ra.yn, ra.du, fut.midx, fut.t, fut.nyt
    tp1 = t + 1
    nslot = ra.nb * vmax
    acc = np.zeros((nslot, max_pts + 1))
    touched = np.empty(R, np.int64)
    for i in range(c, n, nch):
        m = smask[i]
        y = sy[i]
        u = su[i]
        qpass, _ = _turn((m, y, u), theta, fut, ra, work, play, WHOLE_TURN)
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


@njit(**KERNEL)
def _play(ch: int, nch: int, game: Any, theta: float, fut: Any, ra: Any, work: Any, J: int, out: Any,
          log: Any) -> None:
    """Play games ch, ch + nch, ... of one column by theta's policy (risk play) with the play kernel's
    game loop (play_kernel.play_turn, box_points, mark_box; the dice convention of solver.policy.play: game g of
    seat s rolls rng.stream(seed, g, s), kept dice sorted first).

    Parameters
    ----------
    game : (int, int, int)
        (seed, first game, seat).
    theta, fut, ra, work, J
        As `_turn`.
    out : (int64[G, 1, B], int64[G, 1])
        Written: the games' scores and extra bonuses.
    log : None or (rolls, held, n_rolls, column, box)
        Written: the dice of each roll, the dice held before each reroll, the rolls used and the box,
        as play_kernel.play_games records them (None: nothing recorded).
    """
    ra, fut, out, work = borrow(ra), borrow(fut), borrow(out), borrow(work)  # (jit.borrow: no counts per turn)
    seed, first_game, seat = game
    NV = work.NV[0]
    cmask, usum, yst = work.cmask, work.usum, work.yst
    sheet = (cmask, usum, yst, work.colraw)
    (scores, ybonus, s_mask, s_upper, s_y, s_raw, natural, joker, yroll, is_upper, nb_extra,
     y_box) = box_arrays(out, sheet, ra)  # once, before the games (see box_points)
    values = (work.EJ, work.YS, 0.0)  # stopping is worth Y (play_kernel.keep_by_values; Y is YS[0])
    nyt, t, nb = fut.nyt, fut.t, ra.nb
    vmax = ra.du.shape[1]
    full = (1 << nb) - 1
    for g in range(ch, out[0].shape[0], nch):
        st = stream(seed, first_game + g, seat)
        new_sheet(g, out, sheet, 0, None, ra)
        for turn in range(nb):
            m = cmask[0]
            y = 1 if yst[0] == 1 and nyt == 2 else 0
            _turn((m, y, usum[0] if usum[0] < t else t), theta, fut, ra, work, (False, False, J), WHOLE_TURN)
            st, used, r = play_turn(st, J + 1, J, keep_by_values, values, work, ra, None, log, (g, turn), None,
                                    False)
            bits, fullv = roll_legal(full & ~m, yst[0] >= 0, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y,
                                     ra.fill0, ra.lower_bits)
            bon = extra_bonus_points(ra.yroll[r], y == 1, ra.extra)
            sl, _, _, _ = box_choice(r, bits, fullv, bon, NV, 1.0, NO_CLAMP, ra.rows, vmax, False)
            at = (g, turn, used, 0)
            code = (sl // vmax) * 2 + (1 if fullv else 0)
            written = box_points(code, r, at, nb_extra, natural, joker, yroll, s_y, log)
            mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)


def _on_chunks(kernel: Any, n: int, nchunks: int, args: Callable[[], tuple[Any, ...]],
               threads: int | None = None) -> None:
    """kernel(c, nch, *args()) over the chunks of n independent items (totals.on_chunks); args() is
    called per chunk (each its own scratch)."""
    on_chunks(lambda c, nch: kernel(c, nch, *args()), n, nchunks, threads)


# --------------------------------------------------------------------------- setup


@dataclass
class Model:
    """A rule set's layout plus the arrays the compiled passes take."""

    rules: RuleSet
    lay: Layout
    ra: RuleArrays
    eff: IntArray  # [upper set, u] -> the total standing for u (dead totals share one)
    max_box: IntArray  # [box] most points one turn can write in it (extra bonus included)
    J: int

    def future(self, W: FloatArray) -> Future:
        """The values W (in the layout's rows) as the kernels read them."""
        lay = self.lay
        none = np.zeros((1, 1))
        return Future(FUTURE_TABLE, lay.t, lay.nyt, W, lay.midx, none, none, np.zeros(1), lay.sub_of)

    def work(self) -> TurnWork:
        """One thread's scratch."""
        return turn_work(self.ra, self.J)


def check_size(rules: RuleSet) -> None:
    """NotExact when the rule set's exact table is too large for distributions and risk tables."""
    states = state_space(rules).states
    if exact_reason(rules) is None and states > MAX_STATES:
        raise NotExact(f"exact score distributions and risk tables are limited to {MAX_STATES:,} states; "
                       f"{rules.name} has {states:,} (its expected score is exact: yahtzee solve)")


def model(rules: RuleSet) -> Model:
    """NotExact when the rule set has no exact table, or one too large for distributions."""
    check_size(rules)
    lay = layout(rules)
    sc = lay.scores
    s = rules.settings
    n_sub = lay.ulist.shape[0]
    eff = np.tile(np.arange(lay.t + 1, dtype=np.int64), (n_sub, 1))
    for sub in range(n_sub):
        for i in range(int(lay.dcount[sub])):
            eff[sub, lay.dlist[sub, i]] = lay.ulist[sub, 0]
    yr = sc.yahtzee_roll
    most = np.maximum(sc.natural.max(axis=0), np.where(yr[:, None], sc.joker, 0).max(axis=0))
    max_box = most + s.extra_yahtzee_bonus
    return Model(rules, lay, lay.arrays, eff, max_box.astype(np.int64), rolls_allowed(rules, 0) - 1)


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


def _pass_layers(mod: Model, W: FloatArray, theta: float, cap: int | None, solver_ties: bool, within: int = 0,
                 stop_layer: int = 0, progress: Callable[[int, int], None] | None = None,
                 each_layer: Callable[[int, dict[str, IntArray], FloatArray], None] | None = None,
                 say: Callable[[str], None] | None = None) -> tuple[dict[str, IntArray], FloatArray, IntArray]:
    """Run the pmf pass down to layer `stop_layer`; returns that layer's states, H and sid map.
    each_layer(p, states, H) sees every layer on the way, the full column's (p = number of boxes) first.
    `say` hears that the pass's kernel is compiled first, when it is (seconds before any progress)."""
    from .jit import note_compile

    note_compile([_pmf_layer], "the score-distribution kernels", say)
    lay = mod.lay
    s = mod.rules.settings
    tp1 = lay.t + 1
    width = lay.width
    nb = lay.nb
    allow_pass = not s.must_zero
    big = 1 << 30
    capv = big if cap is None else max(cap, 0)
    max_pts = int(mod.max_box.max())
    fut = mod.future(W)
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
    if each_layer is not None:
        each_layer(nb, {"mask": sm, "y": sy, "u": su, "off": off, "length": length}, H)
    done = 0
    total = int(lay.layer_ptr[nb] - lay.layer_ptr[stop_layer])
    for p in range(nb - 1, stop_layer - 1, -1):
        sm2, sy2, su2 = _states(mod, p, within)
        if len(sm2) == 0:
            continue
        length2 = np.minimum(_max_rest(mod, sm2, sy2, su2), capv) + 1
        off2 = np.concatenate([[0], np.cumsum(length2)[:-1]]).astype(np.int64)
        H2 = np.empty(int(length2.sum()))
        def pmf_args(states: Any = (sm2, sy2, su2),
                     pmfs: Any = (off2, length2, H2, H, sid, off, length, mod.eff, lay.sub_of, capv, max_pts),
                     ) -> tuple[Any, ...]:
            return states, pmfs, theta, fut, mod.ra, mod.work(), (solver_ties, allow_pass, mod.J)

        _on_chunks(_pmf_layer, len(sm2), 64, pmf_args)
        sid = np.full((len(lay.masks), width), -1, dtype=np.int64)
        sid[lay.midx[sm2], sy2 * tp1 + su2] = np.arange(len(sm2))
        H, off, length = H2, off2, length2
        sm, sy, su = sm2, sy2, su2
        if each_layer is not None:
            each_layer(p, {"mask": sm, "y": sy, "u": su, "off": off, "length": length}, H)
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
    st, H, _ = _pass_layers(mod, W, theta, None, ties, progress=given(progress))
    o, L = int(st["off"][0]), int(st["length"][0])
    pmf = H[o: o + L].copy()
    nz = np.nonzero(pmf)[0]
    hi = int(nz[-1]) + 1 if len(nz) else 1
    return Distribution(pmf[:hi], 0, time.perf_counter() - t0, {"theta": theta})


def risk_values(rules: RuleSet, theta: float, tab: Table | None = None, solver_ties: bool = False,
                progress: Callable[[int, int], None] | None = None, down_to: int = 0) -> Table:
    """The risk table of theta: W = certainty equivalent of the remaining points, (1 / theta) *
    log E[exp(theta * rest)], under the policy maximising it; by backward induction over the layers.
    theta = 0 (with `tab`): the values the expected-score table's own policy earns (a cross-check).
    `down_to`: only the layers of at least that many filled boxes (the others left 0: a check of a
    table's late states at a fraction of the cost)."""
    t0 = time.perf_counter()
    progress = given(progress)
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
    fut = mod.future(_lay_values(mod, tab) if theta == 0.0 and tab is not None else W)
    done = 0
    for p in range(lay.nb - 1, down_to - 1, -1):
        sm, sy, su = _states(mod, p)
        out = np.empty(len(sm))
        def risk_args(states: Any = (sm, sy, su), out: Any = out) -> tuple[Any, ...]:
            return states, theta, fut, mod.ra, mod.work(), mod.J, solver_ties, out

        _on_chunks(_risk_layer, len(sm), 64, risk_args)
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


def theta_path(rules: RuleSet, prefix: str, theta: float) -> Path:
    """The cache file of a table of `rules` kept per theta (distributions, risk tables, state pmfs)."""
    return tablefile.table_path(rules.fingerprint, f"{prefix}{theta_key(theta)}")


def stored_distribution(rules: RuleSet, theta: float, build: Callable[[], Distribution] | None = None,
                        ) -> store.Artifact[Distribution]:
    """The score distribution of theta's strategy as the store keeps it (`build`: how it is made)."""
    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> Distribution:
        pmf = np.frombuffer(arrays["pmf"], dtype=np.float64).copy()
        return Distribution(pmf, int(header["lo"]), float(header.get("seconds", 0.0)), {"theta": theta})

    def encode(d: Distribution) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": "distribution", "version": VERSION, "fingerprint": rules.fingerprint,
                  "rule_name": rules.name, "theta": d.meta.get("theta", 0.0), "lo": d.lo, "seconds": d.seconds}
        return header, {"pmf": ("d", d.pmf.astype("<f8").tobytes())}

    def unbuilt() -> Distribution:
        raise AssertionError("a distribution read or written only")

    what = f"{rules.name} score distribution" + (f" for theta {theta:g}" if theta else "")
    return store.Artifact(DISTRIBUTION, rules.fingerprint, what, decode, build or unbuilt, encode,
                          theta_key(theta), {"version": VERSION, "theta": theta})


def stored_risk(rules: RuleSet, theta: float, progress: Callable[[int, int], None] | None = None,
                ) -> store.Artifact[Table]:
    """The risk table of theta as the store keeps it."""
    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> Table:
        width = int(header["nyt"]) * (int(header["t"]) + 1)
        masks = np.frombuffer(arrays["masks"], dtype=np.int64)
        W = np.frombuffer(arrays["W"], dtype=np.float64).reshape(len(masks), width)
        return Table(header["fingerprint"], header["rule_name"], int(header["nb"]), int(header["t"]),
                     int(header["nyt"]), masks, W, float(header["mean"]), float("nan"),
                     float(header.get("build_seconds", 0.0)), {"theta": theta})

    def encode(tab: Table) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": "risk", "version": VERSION, "fingerprint": tab.fingerprint, "rule_name": tab.rule_name,
                  "theta": theta, "nb": tab.nb, "t": tab.t, "nyt": tab.nyt, "mean": tab.mean,
                  "build_seconds": tab.build_seconds}
        return header, {"masks": ("q", tab.masks.astype("<i8").tobytes()), "W": ("d", tab.W.astype("<f8").tobytes())}

    return store.Artifact(RISK, rules.fingerprint, f"{rules.name} risk table for theta {theta:g}", decode,
                          lambda: risk_values(rules, theta, progress=progress), encode, theta_key(theta),
                          {"version": VERSION, "theta": theta})


def _read_risk(rules: RuleSet, theta: float) -> Table:
    return store.read(stored_risk(rules, theta))


def get_risk_table(rules: RuleSet, theta: float, say: Callable[[str], None] | None = None, rebuild: bool = False,
                   progress: Callable[[int, int], None] | None = None) -> Table:
    """The table whose policy maximises E[exp(theta * final score)] (theta = 0: the expected-score table)."""
    from .exact import get_table

    theta = effective_theta(rules, theta)
    if theta == 0.0:
        return get_table(rules, say, rebuild=rebuild, progress=progress)[0]
    check_size(rules)  # before any note that it is being made
    return store.get(stored_risk(rules, theta, progress), say, rebuild)[0]


def get_distribution(rules: RuleSet, theta: float = 0.0, say: Callable[[str], None] | None = None,
                     rebuild: bool = False, progress: Callable[[int, int], None] | None = None,
                     ) -> tuple[Distribution, bool]:
    """The exact final-score distribution of the table's policy (theta: the risk table's), cached."""
    theta = effective_theta(rules, theta)
    def build() -> Distribution:
        tab = get_risk_table(rules, theta, say, progress=progress)
        return final_distribution(rules, tab, theta, progress=progress)

    check_size(rules)  # before any note that it is being made
    return store.get(stored_distribution(rules, theta, build), say, rebuild)


# --------------------------------------------------------------------------- risk play


def play_risk(rules: RuleSet, theta: float, seed: int, first_game: int, n_games: int, seat: int = 0,
              tab: Table | None = None, say: Callable[[str], None] | None = None, record: bool = False,
              threads: int | None = None) -> Any:
    """Games first_game .. first_game + n_games - 1 of seat `seat` played by the policy maximising
    E[exp(theta * final score)] (a games.GameBatch; `record`: with every turn's rolls, held dice and
    box, as solver.policy.play records them, for game logs). `threads`: default one per core."""
    from .games import GameBatch
    from .totals import sheet_totals

    theta = effective_theta(rules, theta)
    mod = model(rules)
    lay = mod.lay
    if tab is None:
        tab = get_risk_table(rules, theta, say)
    W = _lay_values(mod, tab)
    scores = np.empty((n_games, 1, lay.nb), dtype=np.int64)
    ybonus = np.zeros((n_games, 1), dtype=np.int64)
    nt = lay.nb  # must_zero on: one box a turn, no passes
    rg, rt, rr = (n_games, nt, mod.J + 1) if record else (1, 1, 1)
    rolls_out = np.zeros((rg, rt, rr, rules.dice), dtype=np.int64)
    held_out = np.zeros((rg, rt, max(rr - 1, 1), rules.dice), dtype=np.int64)
    nrolls = np.zeros((rg, rt), dtype=np.int64)
    column = np.zeros((rg, rt), dtype=np.int64)
    box = np.full((rg, rt), -1, dtype=np.int64)
    fut = mod.future(W)
    log = (rolls_out, held_out, nrolls, column, box) if record else None
    _on_chunks(_play, n_games, 64, lambda: ((seed, first_game, seat), theta, fut, mod.ra, mod.work(), mod.J,
                                            (scores, ybonus), log), threads=threads)
    totals, _ = sheet_totals(rules, scores, ybonus)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if record:
        r_used = max(int(nrolls.max()) if n_games else 1, 1)
        batch.rolls = rolls_out[:, :, :r_used].copy()
        batch.held = held_out[:, :, : max(r_used - 1, 0)].copy()
        batch.n_rolls = nrolls
        batch.column = column
        batch.box = box
        batch.n_turns = np.full(n_games, nt, dtype=np.int64)
    return batch
