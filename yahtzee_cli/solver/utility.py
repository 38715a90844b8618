"""Playing for a utility of the final score, exactly: maximise E[u(final total)] from a position, for
any u that is constant beyond some total (u(s) = [s >= T] for a target, u(s) = the expected share
of first place against opponents' final-score pmfs to win a game).

The same backward induction as the expected score's, with a vector over the points gained from the
position (x = 0 .. X - 1, the last cell standing for "X - 1 or more") in place of one number per
turn-start state: V(state, x) = the best E[u(base + x + points still to come)]. A full column's
V is u(base + x + upper bonus); a turn's, from the next states' vectors shifted by what each box
writes, the keeps averaging over their rerolls and maximising cell by cell (the best play depends
on the points already gained). Exact, and as fast as the states reachable from the position times
the vector's length allow: late in a game (few open boxes) it takes milliseconds to seconds;
`cost` estimates it so a caller can fall back to the risk strategies early in a game.

Rule sets with passes (must_zero off) are not handled here (a pass returns to the same state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import NotExact
from ..rules.engine import Column, RuleSet
from ..strategy.sources import column_state, raw_points
from .jit import borrow, njit
from .within_turn import keep_stages_stopping, shifted_final

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

STATE_SECONDS = 5e-6  # listing the states reachable (plain Python), per state
OPS_PER_SECOND = 1.6e10  # what `cost` counts, per second of one core (measured on Yahtzee positions: 1.7-2.5e10)


@njit(cache=True, nogil=True)
def _turn(m: int, y: int, Vn: Any, nxt_i: Any, ra: Any, J: int, work: Any,
          r_pos: int) -> None:  # pragma: no cover - compiled
    """One turn from state (mask m, Yahtzee lane y) on the next states' vectors Vn[j, x]
    (within_turn.shifted_final, then within_turn.keep_stages_stopping with the points gained x as
    lanes): work = (F, G, E, B, box_val) written: F[r, x] the best box for final roll r, G[j, k, x]
    keep k's value (its reroll followed by j more rolls allowed), B[r, x] the best of roll r with J
    rerolls left (the first roll's outcomes), box_val[b, x] roll r_pos written in box b (r_pos -1:
    none); E scratch."""
    F, G, E, B, box_val = work
    shifted_final(m, y, Vn, nxt_i, ra, F, box_val, r_pos)
    keep_stages_stopping(F, G, E, B, ra, J)


@njit(cache=True, nogil=True)
def _boxes(m: int, y: int, Vn: Any, nxt_i: Any, ra: Any, work: Any, r_pos: int) -> None:  # pragma: no cover - compiled
    """_turn's final-roll values again, with box_val for roll r_pos (the keeps' values unchanged)."""
    F, _, _, _, box_val = work
    shifted_final(m, y, Vn, nxt_i, ra, F, box_val, r_pos)


@njit(cache=True, nogil=True)
def _solve(states: Any, nxt: Any, V: Any, Uf: Any, ra: Any, J: int, bonus: Any,
           work: Any) -> None:  # pragma: no cover - compiled
    """V[i] for the states i = n - 1 .. 1 of states = (masks, Yahtzee lanes, upper totals) (in that
    order, every next state's index above its own; state 0, the position, is left to the caller): a
    full column's u of the points gained plus the upper bonus (bonus = (the threshold t, the bonus)),
    any other's the average of its first roll's outcomes (work: _turn's)."""
    ra, work = borrow(ra), borrow(work)  # (jit.borrow: no counts per call of a helper)
    sm, sy, su = states
    t, ubonus = bonus
    B = work[3]
    n = sm.shape[0]
    X = V.shape[1]
    R = ra.natT.shape[1]
    full = (1 << ra.nb) - 1
    for i in range(n - 1, 0, -1):
        if sm[i] == full:
            add = ubonus if su[i] >= t else 0
            for x in range(X):
                xx = x + add
                V[i, x] = Uf[xx if xx < X else X - 1]
            continue
        _turn(sm[i], sy[i], V, nxt[i], ra, J, work, -1)
        for x in range(X):
            V[i, x] = 0.0
        for r in range(R):
            p = ra.roll_prob[r]
            for x in range(X):
                V[i, x] += p * B[r, x]


def _states(mod: Any, m0: int, y0: int, u0: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The turn-start states reachable from (m0, y0, u0), the position first and every state before
    the states it leads to; nxt[i, b, v] the index of the state box b (variant v) leads to from i."""
    lay = mod.lay
    nb = lay.nb
    seen: dict[tuple[int, int, int], int] = {}
    order: list[tuple[int, int, int]] = []
    layer = [(m0, y0, u0)]
    while layer:
        nxt_layer: dict[tuple[int, int, int], None] = {}
        for s in layer:
            seen[s] = len(order)
            order.append(s)
            m, y, u = s
            for b in range(nb):
                if m >> b & 1:
                    continue
                for v in range(int(lay.nvar[b])):
                    nxt_layer[_next(lay, m, y, u, b, v)] = None
        layer = list(nxt_layer)
    n = len(order)
    vmax = lay.du.shape[1]
    nxt = np.zeros((n, nb, vmax), dtype=np.int64)
    for i, (m, y, u) in enumerate(order):
        for b in range(nb):
            if not m >> b & 1:
                for v in range(int(lay.nvar[b])):
                    nxt[i, b, v] = seen[_next(lay, m, y, u, b, v)]
    arr = np.array(order, dtype=np.int64).reshape(n, 3)
    return arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), nxt


def _next(lay: Any, m: int, y: int, u: int, b: int, v: int) -> tuple[int, int, int]:
    y2 = y if lay.yn[b, v] < 0 else int(lay.yn[b, v])
    if lay.yn[b, v] >= 0 and lay.nyt != 2:
        y2 = 0
    return m | (1 << b), y2, min(u + int(lay.du[b, v]), lay.t)


def _position(rules: RuleSet, column: Column) -> tuple[Any, int, int, int, int]:
    from .winning import _model

    if not rules.settings.must_zero:
        raise NotExact("exact play for a score needs must_zero on (a pass would repeat a turn)")
    mod: Any = _model(rules)
    lay = mod.lay
    st = column_state(rules, column)
    y = 1 if st.yfull and lay.nyt == 2 else 0
    return mod, st.mask, y, min(st.upper, lay.t), raw_points(rules, column)


def cost(rules: RuleSet, column: Column, hi: int) -> float:
    """Estimated seconds of one core for `option_values` from this column's turn start with a utility
    constant from total `hi` on (an upper bound of the states reachable: every set of the open boxes,
    both Yahtzee lanes, every upper total from the column's up). NotExact where the rules are not handled."""
    mod, m, y, u, base = _position(rules, column)
    lay = mod.lay
    ra = mod.ra
    open_boxes = bin(((1 << ra.nb) - 1) & ~m).count("1")
    upper_open = any(not m >> b & 1 for b in range(ra.nb) if ra.is_upper[b])
    n_states = (1 << open_boxes) * lay.nyt * ((lay.t - u + 1) if upper_open else 1)
    X = max(hi - base, 0) + 1
    R = ra.natT.shape[1]
    K = ra.add_die.shape[0]
    per_state = (R * (open_boxes + 2) + mod.J * K * 14) * X
    return float(n_states * per_state / OPS_PER_SECOND + n_states * STATE_SECONDS)


@dataclass
class Solved:
    """Exact play for a utility from one turn-start position: every state after it solved (V), ready
    to value any roll of the turn's options (`values`)."""

    rules: RuleSet
    mod: Any
    m: int
    y: int
    V: FloatArray
    nxt: IntArray
    work: tuple[FloatArray, ...]
    at: int = -2  # the roll whose box values work holds (-1: none), -2 before the turn is solved

    def keep_of(self, faces: Sequence[int]) -> int:
        from .tables import counts_key

        counts = [0] * 6
        for f in faces:
            counts[int(f) - 1] += 1
        return int(self.mod.lay.scores.dice.keep_index[counts_key(counts)])

    def values(self, dice: Sequence[int], rolls_left: int, options: Sequence[Any]) -> list[float]:
        """E[u(final total)] of each option (strategy.turn.Choice: a keep, or a box of the dice
        showing) with these dice and rolls left, under the play that maximises it from there."""
        ra = self.mod.ra
        r_pos = int(ra.roll_of_keep[self.keep_of(dice)])
        F, G, _, _, box_val = self.work
        if self.at == -2:  # the turn once (F, G); box_val for this roll
            _turn(self.m, self.y, self.V, self.nxt[0], ra, self.mod.J, self.work, r_pos)
            self.at = r_pos
        elif self.at != r_pos and any(o.keep is None for o in options):  # box_val for another roll
            _boxes(self.m, self.y, self.V, self.nxt[0], ra, self.work, r_pos)
            self.at = r_pos
        out: list[float] = []
        for o in options:
            if o.keep is not None:
                k = self.keep_of(o.keep)
                if rolls_left == 0 or len(o.keep) == len(dice):
                    out.append(float(F[r_pos, 0]))  # keeping every die: stop, the best box
                else:
                    out.append(float(G[rolls_left - 1, k, 0]))
            elif o.box is not None:
                out.append(float(box_val[int(o.box), 0]))  # (the roll showing, written in that box)
            else:
                raise NotExact("passes are not valued by exact play for a score")
        return out


def solve(rules: RuleSet, column: Column, u: FloatArray) -> Solved:
    """Exact play maximising E[u(final total)] from a one-column turn start: `u[s]` for totals s = 0 ..
    len(u) - 1 (nondecreasing is not needed; u is taken as u[-1] beyond)."""
    mod, m, y, uu, base = _position(rules, column)
    lay = mod.lay
    ra = mod.ra
    sm, sy, su, nxt = _states(mod, m, y, uu)
    hi = len(u) - 1
    X = max(hi - base, 0) + 1
    Uf = np.array([u[min(base + x, hi)] for x in range(X)], dtype=np.float64)
    R = ra.natT.shape[1]
    K = ra.add_die.shape[0]
    J = mod.J
    work = (np.empty((R, X)), np.empty((max(J, 1), K, X)), np.empty((K, X)), np.empty((R, X)), np.empty((ra.nb, X)))
    V = np.zeros((len(sm), X))
    _solve((sm, sy, su), nxt, V, Uf, ra, J, (lay.t, max(rules.settings.upper_bonus, 0)), work)
    return Solved(rules, mod, m, y, V, nxt, work)


def solve_turn(rules: RuleSet, column: Column, u: FloatArray,
               rest: Callable[[int, int, int], tuple[int, FloatArray]]) -> Solved:
    """Play for E[u(final total)] in this turn only, the later turns played by the strategy whose
    pmf of the points still to come from a turn-start state (mask, Yahtzee lane, upper total) is
    `rest(m, y, u)` (lo, pmf): a one-turn lookahead on that strategy. Each next state's vector is
    V[j, x] = sum_t pmf_j[t] u(base + x + lo_j + t) (u[-1] beyond its end); the turn is then solved on
    them as `solve` solves each of its turns. For the expected-score strategy's pmfs this improves on
    its play for u (no turn of it does worse in E[u]), at the cost of one turn, not of every state ahead."""
    mod, m, y, uu, base = _position(rules, column)
    lay = mod.lay
    ra = mod.ra
    hi = len(u) - 1
    X = max(hi - base, 0) + 1
    nb = lay.nb
    full = (1 << nb) - 1
    vmax = lay.du.shape[1]
    rows: dict[tuple[int, int, int], int] = {}
    nxt = np.zeros((1, nb, vmax), dtype=np.int64)
    for b in range(nb):
        if not m >> b & 1:
            for v in range(int(lay.nvar[b])):
                nxt[0, b, v] = rows.setdefault(_next(lay, m, y, uu, b, v), len(rows))
    V = np.empty((len(rows), X))
    ubonus = max(rules.settings.upper_bonus, 0)
    for (m2, y2, u2), j in rows.items():
        if m2 == full:
            add = ubonus if u2 >= lay.t else 0
            V[j] = u[np.minimum(base + np.arange(X) + add, hi)]
            continue
        lo, pmf = rest(m2, y2, u2)
        # u at base + x + lo + t for x < X, t < len(pmf): one window per x
        ue = u[np.minimum(base + lo + np.arange(X + len(pmf) - 1), hi)]
        V[j] = np.correlate(ue, pmf, mode="valid")
    R = ra.natT.shape[1]
    K = ra.add_die.shape[0]
    J = mod.J
    work = (np.empty((R, X)), np.empty((max(J, 1), K, X)), np.empty((K, X)), np.empty((R, X)), np.empty((nb, X)))
    return Solved(rules, mod, m, y, V, nxt, work)


def option_values(rules: RuleSet, column: Column, dice: Sequence[int], rolls_left: int, options: Sequence[Any],
                  u: FloatArray) -> list[float]:
    """E[u(final total)] of each option (strategy.turn.Choice: a keep, or a box of the dice showing)
    of a one-column position under the play that maximises it. `u[s]` for totals s = 0 .. len(u) - 1
    (nondecreasing is not needed; u is taken as u[-1] beyond)."""
    return solve(rules, column, u).values(dice, rolls_left, options)
