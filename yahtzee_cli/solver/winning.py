"""Who is winning: each player's exact final-score distribution from where their column stands
(optimal expected-score play from there on), and from those the chance each player wins.

Players' futures are independent (each plays the policy of the expected-score table, which does
not look at the others), so with F_j the CDF of player j's final total,

    P(i wins outright)   = sum_x P(X_i = x) * prod_{j != i} P(X_j < x)
    P(i ties for first)  = sum_x P(X_i = x) * (prod_{j != i} P(X_j <= x) - prod_{j != i} P(X_j < x))

(a tie stands as a tie: no tie-break is part of the rules).

Where the pmfs come from: the distribution pass (solver.distribution) computes, layer by layer from
the full column back to the empty one, the pmf of the points still to come from every turn-start
state. The early layers (few boxes filled: a position there has most of the sheet ahead and takes
seconds to compute) are kept in the cache as one file, float32; a later position is computed on
demand from the states above it only, a small part of the pass. The empty sheet's is the rule set's
score distribution (float64, a few kB: shipped with the package for the default rules), so the
start of a game needs neither the early file nor a pass there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import CorruptTable
from ..progress import given
from ..rules.engine import Column, RuleSet
from ..store import artifact as store
from ..store.kinds import EARLY, FINAL
from ..strategy.sources import ColumnState, column_state, raw_points
from ..strategy.space import StateSpace, stored_space
from .pmf import Distribution

if TYPE_CHECKING:  # the compiled passes load only to build the file or for a later position
    from .distribution import Model

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

EARLY_LAYERS = 6  # turn-start states with fewer boxes filled than this are read from the cache
VERSION = 2  # bump when the early layers' file changes meaning
FINAL_VERSION = 1  # bump when a stored position's final-score distribution changes meaning


class Chance(NamedTuple):
    """One player's chance to win outright and to share first place."""

    win: float
    tie: float


@dataclass
class _Early:
    """The remaining-points pmfs of every state of the early layers: state i has key[i] (mask *
    width + y * (t + 1) + u, sorted) and pmf data[off[i]: off[i] + length[i]] (float32)."""

    key: IntArray
    off: IntArray
    length: IntArray
    data: npt.NDArray[np.float32]
    space: StateSpace  # how the states are keyed (key[i] = space.key(mask, y, u))
    eff: npt.NDArray[np.int16]  # [mask * (t + 1) + u] the total standing for u (dead totals share one)

    def key_of(self, mask: int, yfull: bool, upper: int) -> int:
        t = self.space.t
        u = int(self.eff[mask * (t + 1) + min(upper, t)])
        return int(self.space.key(mask, self.space.lane(yfull), u))

    def pmf(self, k: int) -> FloatArray | None:
        i = int(np.searchsorted(self.key, k))
        if i >= len(self.key) or int(self.key[i]) != k:
            return None
        o, n = int(self.off[i]), int(self.length[i])
        return self.data[o: o + n].astype(np.float64)


_early_memo: dict[str, _Early] = {}
_model_memo: dict[str, Model] = {}
_values_memo: dict[str, FloatArray] = {}
_late_memo: dict[tuple[str, int], FloatArray] = {}


def _model(rules: RuleSet) -> Model:
    from .distribution import model

    mod = _model_memo.get(rules.fingerprint)
    if mod is None:
        mod = _model_memo[rules.fingerprint] = model(rules)
    return mod


def _values(rules: RuleSet, say: Callable[[str], None] | None) -> FloatArray:
    """The exact table's values in the pass's row order, read once per process and rule set."""
    from .distribution import _lay_values
    from .exact import get_table

    W = _values_memo.get(rules.fingerprint)
    if W is None:
        W = _values_memo[rules.fingerprint] = _lay_values(_model(rules), get_table(rules, say)[0])
    return W


def model_values(rules: RuleSet, say: Callable[[str], None] | None = None) -> tuple[Model, FloatArray]:
    """The rule set's distribution model and the exact table's values in its order, kept per process
    (position_chances' `mod` and `W`)."""
    return _model(rules), _values(rules, say)


def stored(rules: RuleSet, say: Callable[[str], None] | None = None,
           progress: Callable[[int, int], None] | None = None) -> store.Artifact[_Early]:
    """The early layers' pmfs of the rule set as the store keeps them."""
    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> _Early:
        return _Early(np.frombuffer(arrays["key"], dtype=np.int64), np.frombuffer(arrays["off"], dtype=np.int64),
                      np.frombuffer(arrays["length"], dtype=np.int64), np.frombuffer(arrays["data"], dtype=np.float32),
                      stored_space(rules, header),
                      np.frombuffer(arrays["eff"], dtype=np.int16))

    def encode(e: _Early) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": "early", "version": VERSION, "fingerprint": rules.fingerprint, "rule_name": rules.name,
                  "layers": EARLY_LAYERS, "width": e.space.width, "t": e.space.t,
                  "nyt": e.space.nyt}
        return header, {"eff": ("h", e.eff.astype("<i2").tobytes()), "key": ("q", e.key.astype("<i8").tobytes()),
                        "off": ("q", e.off.astype("<i8").tobytes()), "length": ("q", e.length.astype("<i8").tobytes()),
                        "data": ("f", e.data.astype("<f4").tobytes())}

    return store.Artifact(EARLY, rules.fingerprint, f"{rules.name} early-game score distributions", decode,
                          lambda: _build(rules, say, given(progress)), encode,
                          expect={"version": VERSION, "layers": EARLY_LAYERS})


def _build(rules: RuleSet, say: Callable[[str], None] | None,
           progress: Callable[[int, int], None] | None) -> _Early:
    from .distribution import _pass_layers, solver_ties_for

    mod = _model(rules)
    lay = mod.lay
    W = _values(rules, say)
    keys: list[IntArray] = []
    lengths: list[IntArray] = []
    parts: list[npt.NDArray[np.float32]] = []

    def keep(p: int, st: dict[str, IntArray], H: FloatArray) -> None:
        if p >= EARLY_LAYERS:
            return
        keys.append(lay.space.key(st["mask"], st["y"], st["u"]))
        lengths.append(st["length"])
        parts.append(H.astype(np.float32))  # (states lie in H back to back, in order)
        if p == 0:  # the empty sheet's: the rule set's score distribution, stored too (float64, for final_pmf)
            _store_start(rules, H[int(st["off"][0]): int(st["off"][0]) + int(st["length"][0])])

    _pass_layers(mod, W, 0.0, None, solver_ties_for(rules, 0.0), progress=progress, each_layer=keep, say=say)
    key = np.concatenate(keys)
    length = np.concatenate(lengths)
    data = np.concatenate(parts)
    off = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    order = np.argsort(key, kind="stable")
    # the data stays in pass order; only the index is sorted for the lookup
    eff = mod.eff[lay.sub_of[np.arange(1 << lay.nb)]].reshape(-1).astype(np.int16)
    return _Early(key[order], off[order], length[order], data, lay.space, eff)


_start_memo: dict[str, FloatArray] = {}


def _store_start(rules: RuleSet, H: FloatArray) -> None:
    """Keep the empty sheet's pmf of the points to come, as the distribution pass made it, and store it
    as the rule set's score distribution (what solver.distribution.final_distribution computes) unless
    it is stored already."""
    from .distribution import stored_distribution

    pmf = np.array(H, dtype=np.float64)
    nz = np.nonzero(pmf)[0]
    pmf = pmf[: int(nz[-1]) + 1 if len(nz) else 1]  # (as final_distribution trims it)
    _start_memo[rules.fingerprint] = pmf
    art = stored_distribution(rules, 0.0)
    if store.cached(art) is None:
        try:
            store.write(art, Distribution(pmf, 0, 0.0, {"theta": 0.0}))
        except OSError:
            pass


def start_pmf(rules: RuleSet, say: Callable[[str], None] | None = None) -> FloatArray:
    """The empty sheet's pmf of the final score under optimal play: the rule set's score distribution
    (solver.distribution.get_distribution, a small file; the package ships the default rules'), not
    the early file (hundreds of MB, so never shipped), which stores it too when it is built."""
    got = _start_memo.get(rules.fingerprint)
    if got is not None:
        return got
    from .distribution import get_distribution, stored_distribution

    stored_pmf = store.cached(stored_distribution(rules, 0.0))
    if stored_pmf is not None:
        got = stored_pmf.pmf
    else:
        if rules.fingerprint not in _early_memo:
            early(rules, say)  # (built now, it stores the distribution: one pass for both)
        got = _start_memo.get(rules.fingerprint)
        if got is None:  # an early file stored before it kept the distribution: the distribution's own pass
            got = get_distribution(rules, 0.0, say)[0].pmf
    _start_memo[rules.fingerprint] = got
    return got


def early(rules: RuleSet, say: Callable[[str], None] | None = None,
          progress: Callable[[int, int], None] | None = None) -> _Early:
    """The early layers' pmfs of the rule set, from the cache (computed and stored once)."""
    e = _early_memo.get(rules.fingerprint)
    if e is None:
        e = _early_memo[rules.fingerprint] = store.get(stored(rules, say, progress), say)[0]
    return e


def cached_rest(rules: RuleSet, say: Callable[[str], None] | None = None,
                ) -> Callable[[int, int, int], FloatArray | None]:
    """rest(mask, y, u): the pmf of the points to come from a turn-start state of the early layers
    (solver.chances.position_chances' `rest`), None for a later state."""
    def rest(m: int, y: int, u: int) -> FloatArray | None:
        if bin(m).count("1") >= EARLY_LAYERS:
            return None
        e = early(rules, say)
        return e.pmf(e.space.key(m, y, u))  # (u is already a standing total)

    return rest


def final_pmf(rules: RuleSet, column: Column, say: Callable[[str], None] | None = None,
              known: Callable[[int, int, int], FloatArray | None] | None = None) -> Distribution:
    """The exact pmf of the column's final total (upper bonus and extra bonuses included) from its
    turn-start position under optimal expected-score play. NotExact where the rule set has no
    exact distribution. `known(mask, y, u)`: a later state's pmf of the points to come when the
    caller has it (chain_rest), else None: the position's is then kept in the cache (FINAL), so that
    asking again (the next `log show`, another player's turn) reads a few kB instead of a pass."""
    st = column_state(rules, column)
    base = raw_points(rules, column)
    if st.mask == 0:
        rest = start_pmf(rules, say)
    elif known is not None:
        rest = _rest(rules, st, say, known)
    else:
        rest = store.get(_final_stored(rules, st, lambda: _rest(rules, st, say, None)))[0]
    return Distribution(np.asarray(rest, dtype=np.float64), base)


def _final_stored(rules: RuleSet, st: ColumnState, build: Callable[[], FloatArray]) -> store.Artifact[FloatArray]:
    """The pmf of the points to come from a position (final_pmf's), as the store keeps it: keyed by
    the column's state as written (filled boxes, Yahtzee box full, upper total), so that reading it
    needs neither the model nor the exact table."""
    state = [st.mask, int(st.yfull), st.upper]

    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> FloatArray:
        return np.frombuffer(arrays["pmf"], dtype=np.float64).copy()

    def encode(pmf: FloatArray) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": FINAL.name, "version": FINAL_VERSION, "fingerprint": rules.fingerprint,
                  "rule_name": rules.name, "state": state}
        return header, {"pmf": ("d", np.ascontiguousarray(pmf, dtype="<f8").tobytes())}

    return store.Artifact(FINAL, rules.fingerprint, f"{rules.name} final-score distribution of a position", decode,
                          build, encode, ".".join(map(str, state)), {"version": FINAL_VERSION, "state": state})


def _rest(rules: RuleSet, st: ColumnState, say: Callable[[str], None] | None,
          known: Callable[[int, int, int], FloatArray | None] | None) -> FloatArray:
    """The pmf of the points to come from a turn-start state that is not the empty sheet: from the
    early layers' file, or a pass over the sheets ahead of it (see final_pmf)."""
    m = st.mask
    p = bin(m).count("1")
    rest: FloatArray | None
    if p < EARLY_LAYERS:
        e = early(rules, say)
        rest = e.pmf(e.key_of(m, st.yfull, st.upper))
    else:
        mod = _model(rules)
        lay = mod.lay
        y = lay.space.lane(st.yfull)
        u = int(mod.eff[lay.sub_of[m], min(st.upper, lay.t)])
        k = lay.space.key(m, y, u)
        rest = _late_memo.get((rules.fingerprint, k)) if known is None else known(m, y, u)
        if rest is None:
            from .distribution import _pass_layers, solver_ties_for

            W = _values(rules, say)
            states, H, sid = _pass_layers(mod, W, 0.0, None, solver_ties_for(rules, 0.0), within=m, stop_layer=p,
                                          progress=given(None), say=say)  # (the wait shows how far, and the time left)
            j = int(sid[lay.midx[m], y * (lay.t + 1) + u])
            o, n = int(states["off"][j]), int(states["length"][j])
            rest = H[o: o + n].copy()
            _late_memo[(rules.fingerprint, k)] = rest
    if rest is None:  # (every reachable state is in the pass)
        raise CorruptTable(f"no distribution for the position of mask {m}")
    return rest


def win_chances(dists: Sequence[Distribution]) -> list[Chance]:
    """Each player's chance to win outright and to tie for first, from independent final-score pmfs."""
    if not dists:
        return []
    lo = min(d.lo for d in dists)
    hi = max(d.lo + len(d.pmf) for d in dists)
    n = hi - lo
    pm = np.zeros((len(dists), n))
    for i, d in enumerate(dists):
        pm[i, d.lo - lo: d.lo - lo + len(d.pmf)] = d.pmf
    pm /= np.maximum(pm.sum(axis=1, keepdims=True), 1e-300)  # float32 storage: renormalise
    le = np.cumsum(pm, axis=1)  # P(X <= x)
    lt = le - pm  # P(X < x)
    out: list[Chance] = []
    for i in range(len(dists)):
        others_lt = np.ones(n)
        others_le = np.ones(n)
        for j in range(len(dists)):
            if j != i:
                others_lt *= lt[j]
                others_le *= le[j]
        win = float(np.dot(pm[i], others_lt))
        tie = float(np.dot(pm[i], others_le - others_lt)) if len(dists) > 1 else 0.0
        out.append(Chance(min(max(win, 0.0), 1.0), min(max(tie, 0.0), 1.0)))
    return out


def game_chances(rules: RuleSet, columns: Sequence[Column], say: Callable[[str], None] | None = None,
                 ) -> list[Chance]:
    """Each player's chances from their (single) column at a turn start."""
    return win_chances([final_pmf(rules, c, say) for c in columns])


class Simulated(NamedTuple):
    """One player's chances estimated from played games: to win outright, to share first place, and
    the standard error of the first."""

    win: float
    tie: float
    win_se: float


def simulated_chances(rules: RuleSet, sheets: Sequence[Sequence[Column]], games: int, seed: int = 1,
                      threads: int | None = None, saved: Sequence[int] | None = None) -> list[Simulated]:
    """game_chances (or the estimated chances) checked the other way: `games` continuations of the
    game from where it stands (a turn start), each player playing on from their sheet (their columns,
    `saved` rolls saved) with the rules' strategy, player i on the dice streams of seat i (their
    futures independent, as the chances assume), and the winner of each game counted."""
    from .policy import play
    from .totals import first_places

    stock = list(saved) if saved is not None else [0] * len(sheets)
    won, tied = first_places(np.stack([play(rules, "optimal", seed, 0, games, seat=i, threads=threads,
                                            start=list(cols), saved=stock[i]).totals
                                       for i, cols in enumerate(sheets)]))
    out = []
    for i in range(len(sheets)):
        win = float(np.mean(won[i])) if games else 0.0
        tie = float(np.mean(tied[i])) if games else 0.0
        out.append(Simulated(win, tie, math.sqrt(win * (1 - win) / games) if games else 0.0))
    return out


def chance_to_beat(rules: RuleSet, column: Column, score: int, say: Callable[[str], None] | None = None) -> float:
    """P(final total > score): a solo game's chance of beating a personal best."""
    d = final_pmf(rules, column, say)
    return min(max(d.at_least(score + 1) / max(float(d.pmf.sum()), 1e-300), 0.0), 1.0)


def share_of_first(others: Sequence[Distribution], hi: int) -> FloatArray:
    """u[s] for s = 0..hi: a player's expected share of first place with a final total of s against
    independent opponents of these final-score pmfs (alone on top: 1; tied with k others: 1 / (k + 1);
    below someone: 0). A player's win chance from a pmf p of their own is sum_s p[s] * u[s]."""
    n = hi + 1
    # coef[k][s] = P(exactly k opponents score s and none scores more), built opponent by opponent
    coef = [np.ones(n)]
    for d in others:
        pm = np.zeros(max(n, d.lo + len(d.pmf)))
        pm[d.lo: d.lo + len(d.pmf)] = d.pmf
        pm /= max(float(pm.sum()), 1e-300)  # float32 storage: renormalise
        eq = pm[:n]
        lt = (np.cumsum(pm) - pm)[:n]
        nxt = [c * lt for c in coef] + [np.zeros(n)]
        for k, c in enumerate(coef):
            nxt[k + 1] += c * eq
        coef = nxt
    return np.asarray(sum(c / (k + 1) for k, c in enumerate(coef)), dtype=np.float64)


def chain_rest(rules: RuleSet, columns: Sequence[Column], say: Callable[[str], None] | None = None,
               ) -> Callable[[int, int, int], FloatArray | None]:
    """rest(mask, y, u) (as position_chances takes it) for the states one player of a game reaches:
    `columns` are the player's column at the start of each of their turns, in order (each holds the
    one before), and the last one. Early states come from the cache; the later states those turns
    start from or lead to (one box further) come from a single pass over the sheets ahead of the
    first column that needs one, which keeps only those: one pass per player and game instead of one
    per turn. None for any other state."""
    early_rest = cached_rest(rules, say)
    mod = _model(rules)
    lay = mod.lay
    masks = [column_state(rules, c).mask for c in columns]
    late = [m for m in masks if bin(m).count("1") + 1 >= EARLY_LAYERS]
    need: set[int] = set()
    for m in late:
        need.add(m)
        need.update(m | (1 << b) for b in range(lay.nb) if not m >> b & 1)
    store: dict[int, FloatArray] = {}
    ran: list[bool] = []

    def keep(p: int, st: dict[str, IntArray], H: FloatArray) -> None:
        sm = st["mask"]
        for i in np.nonzero(np.isin(sm, np.fromiter(need, dtype=np.int64)))[0].tolist():
            k = int(lay.space.key(int(sm[i]), int(st["y"][i]), int(st["u"][i])))
            o, n = int(st["off"][i]), int(st["length"][i])
            store[k] = np.array(H[o: o + n], dtype=np.float64)

    def rest(m2: int, y2: int, u2: int) -> FloatArray | None:
        if bin(m2).count("1") < EARLY_LAYERS:
            return early_rest(m2, y2, u2)
        if not ran and late:
            from .distribution import _pass_layers, solver_ties_for

            ran.append(True)
            first = late[0]
            _pass_layers(mod, _values(rules, say), 0.0, None, solver_ties_for(rules, 0.0), within=first,
                         stop_layer=max(bin(first).count("1"), EARLY_LAYERS), each_layer=keep, say=say)
        return store.get(int(lay.space.key(m2, y2, u2)))

    return rest
