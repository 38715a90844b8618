"""Every turn-start state's pmf of the points still to come under one strategy (the expected-score
table's, theta 0, or a risk strategy's), all at once: what a player who plays to win, game after game,
looks up at every turn (the opponents' chances, and its own after each box it might fill) instead of
a pass over the sheets ahead of each position.

One pass of solver.distribution over the whole table (about 30 s of CPU for Yahtzee) keeps every
state's pmf with its negligible ends cut off (cells below CUT), as float32: about 800 MB for
Yahtzee's 360,000 states (the pmfs run to 1,158 points, as far as extra Yahtzee bonuses reach).
Each pmf is written once into the array that is stored, so a build holds little more than that and
the pass's two layers (peak about 1.8 GB for Yahtzee). Kept in the store (kind "state_pmfs"), one
file per rule set and theta, like the strategy tables, built once under a lock when several
processes want it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import CorruptTable
from ..progress import given
from ..rules.engine import Column, RuleSet
from ..store import artifact as store
from ..store.kinds import STATE_PMFS, theta_key
from ..strategy.sources import column_state
from ..strategy.space import StateSpace, stored_space

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

VERSION = 2  # bump when the stored file changes meaning
CUT = 1e-12  # pmf cells below this at either end of a state's pmf are left out


@dataclass
class StatePmfs:
    """State i (key[i] = space.key(mask, y, u), sorted) has the pmf of the points to come
    data[off[i]: off[i] + length[i]] for points lo[i], lo[i] + 1, ... (float32; data in the order the
    pass wrote them, layer by layer)."""

    theta: float
    key: IntArray
    lo: IntArray
    off: IntArray
    length: IntArray
    data: npt.NDArray[np.float32]
    space: StateSpace
    eff: npt.NDArray[np.int16]  # [mask * (t + 1) + u] the total standing for u (dead totals share one)

    def key_of(self, mask: int, y: int, u: int) -> int:
        """The key of state (mask, Yahtzee lane y, upper total u): u as the total standing for it."""
        t = self.space.t
        return int(self.space.key(mask, y, int(self.eff[mask * (t + 1) + min(u, t)])))

    def state_of(self, rules: RuleSet, column: Column) -> int:
        """The key of a column's turn-start state."""
        st = column_state(rules, column)
        return self.key_of(st.mask, self.space.lane(st.yfull), st.upper)

    def at(self, mask: int, y: int, u: int) -> tuple[int, FloatArray]:
        """(lo, pmf) of the points to come from state (mask, Yahtzee lane y, upper total u)."""
        return self.rest(self.key_of(mask, y, u))

    def rest(self, k: int) -> tuple[int, FloatArray]:
        """(lo, pmf) of the points to come from the state of key k (KeyError for an unknown state)."""
        i = int(np.searchsorted(self.key, k))
        if i >= len(self.key) or int(self.key[i]) != k:
            raise KeyError(k)
        o, n = int(self.off[i]), int(self.length[i])
        return int(self.lo[i]), self.data[o: o + n].astype(np.float64)


_memo: dict[tuple[str, float], StatePmfs] = {}


def stored(rules: RuleSet, theta: float, say: Callable[[str], None] | None = None) -> store.Artifact[StatePmfs]:
    """Every state's pmf under theta's strategy as the store keeps it."""
    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> StatePmfs:
        key = np.frombuffer(arrays["key"], dtype=np.int64)
        length = np.frombuffer(arrays["length"], dtype=np.int64)
        off = np.frombuffer(arrays["off"], dtype=np.int64)
        data = np.frombuffer(arrays["data"], dtype=np.float32)
        if not (len(off) == len(length) == len(key) and int((off + length).max(initial=0)) <= len(data)
                and int(off.min(initial=0)) >= 0):
            raise CorruptTable("the cached state distributions' arrays do not fit together")
        return StatePmfs(theta, key, np.frombuffer(arrays["lo"], dtype=np.int64), off, length, data,
                         stored_space(rules, header),
                         np.frombuffer(arrays["eff"], dtype=np.int16))

    def encode(s: StatePmfs) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": "state_pmfs", "version": VERSION, "fingerprint": rules.fingerprint,
                  "rule_name": rules.name, "theta": s.theta, "width": s.space.width, "t": s.space.t,
                  "nyt": s.space.nyt}
        return header, {"eff": ("h", s.eff.astype("<i2").tobytes()), "key": ("q", s.key.astype("<i8").tobytes()),
                        "lo": ("q", s.lo.astype("<i8").tobytes()), "length": ("q", s.length.astype("<i8").tobytes()),
                        "off": ("q", s.off.astype("<i8").tobytes()),
                        "data": ("f", np.ascontiguousarray(s.data, dtype="<f4"))}  # (written as it is: no copy)

    what = f"{rules.name} score distributions of every position" + (f" for theta {theta:g}" if theta else "")
    return store.Artifact(STATE_PMFS, rules.fingerprint, what, decode, lambda: _build(rules, theta, say), encode,
                          theta_key(theta), {"version": VERSION, "theta": theta})


def _bound(mod: Any) -> int:
    """An upper bound of the cells the pass keeps: every state's longest pmf (its points to come at
    most), so the build writes them into one array it allocates once (pages never written are never
    touched: the bound costs no memory)."""
    from .distribution import _max_rest, _states

    n = 0
    for p in range(mod.lay.nb + 1):
        sm, sy, su = _states(mod, p)
        n += int((_max_rest(mod, sm, sy, su) + 1).sum())
    return n


def _build(rules: RuleSet, theta: float, say: Callable[[str], None] | None) -> StatePmfs:
    from . import positions, winning
    from .distribution import _pass_layers, solver_ties_for

    mod, W = winning.model_values(rules, say) if theta == 0.0 else positions.model_values(rules, theta, say)
    lay = mod.lay
    keys: list[IntArray] = []
    los: list[IntArray] = []
    offs: list[IntArray] = []
    lengths: list[IntArray] = []
    # the pmfs in the pass's order, each written once where it stays (no list of parts, no second copy):
    # with the pass's two layers in memory, that keeps a Yahtzee build under 2 GB
    data = np.empty(_bound(mod), dtype=np.float32)
    used = 0

    def keep(p: int, st: dict[str, IntArray], H: FloatArray) -> None:
        nonlocal data, used
        big = H > CUT
        n_st = len(st["off"])
        lo = np.empty(n_st, dtype=np.int64)
        hi = np.empty(n_st, dtype=np.int64)
        off = np.empty(n_st, dtype=np.int64)
        for i, (o, n) in enumerate(zip(st["off"].tolist(), st["length"].tolist(), strict=True)):
            nz = np.flatnonzero(big[o: o + n])
            lo[i], hi[i] = (int(nz[0]), int(nz[-1]) + 1) if len(nz) else (0, 1)
            m = int(hi[i] - lo[i])
            if used + m > len(data):  # (the bound holds; this only guards it)
                data = np.concatenate([data[:used], np.empty(max(m, used // 2), dtype=np.float32)])
            data[used: used + m] = H[o + lo[i]: o + hi[i]]
            off[i] = used
            used += m
        keys.append(lay.space.key(st["mask"], st["y"], st["u"]))
        los.append(lo)
        offs.append(off)
        lengths.append(hi - lo)

    _pass_layers(mod, W, theta, None, solver_ties_for(rules, theta), progress=given(None), each_layer=keep)
    key = np.concatenate(keys)
    order = np.argsort(key, kind="stable")
    eff = mod.eff[lay.sub_of[np.arange(1 << lay.nb)]].reshape(-1).astype(np.int16)
    return StatePmfs(theta, key[order], np.concatenate(los)[order], np.concatenate(offs)[order],
                     np.concatenate(lengths)[order], data[:used], lay.space, eff)


def state_pmfs(rules: RuleSet, theta: float = 0.0, say: Callable[[str], None] | None = None) -> StatePmfs:
    """Every state's pmf of the points to come under theta's strategy (effective theta: see
    strategy.choice.effective_theta), from the cache (computed and stored once). NotExact where the
    rule set has no exact distribution."""
    from .distribution import model

    model(rules)  # NotExact before anything is read or built
    s = _memo.get((rules.fingerprint, theta))
    if s is None:
        s = _memo[(rules.fingerprint, theta)] = store.get(stored(rules, theta, say), say)[0]
    return s
