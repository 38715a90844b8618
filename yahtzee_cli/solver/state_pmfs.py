"""Every turn-start state's pmf of the points still to come under one strategy (the expected-score
table's, theta 0, or a risk strategy's), all at once: what a player who plays to win, game after game,
looks up at every turn (its own chances under each risk strategy, the opponents' under optimal
play) instead of a pass over the sheets ahead of each position.

One pass of solver.distribution over the whole table (about 30 s of CPU for Yahtzee) keeps every
state's pmf with its negligible ends cut off (cells below CUT), as float32: about 110 MB for Yahtzee's
360,000 states. Kept in the store (kind "state_pmfs"), one file per rule set and theta, like the
strategy tables, built once under a lock when several processes want it.
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

VERSION = 1  # bump when the stored file changes meaning
CUT = 1e-12  # pmf cells below this at either end of a state's pmf are left out


@dataclass
class StatePmfs:
    """State i (key[i] = space.key(mask, y, u), sorted) has the pmf of the points to come
    data[off[i]: off[i] + length[i]] for points lo[i], lo[i] + 1, ... (float32)."""

    theta: float
    key: IntArray
    lo: IntArray
    off: IntArray
    length: IntArray
    data: npt.NDArray[np.float32]
    space: StateSpace
    eff: npt.NDArray[np.int16]  # [mask * (t + 1) + u] the total standing for u (dead totals share one)

    def state_of(self, rules: RuleSet, column: Column) -> int:
        """The key of a column's turn-start state."""
        st = column_state(rules, column)
        t = self.space.t
        u = int(self.eff[st.mask * (t + 1) + min(st.upper, t)])
        return int(self.space.key(st.mask, self.space.lane(st.yfull), u))

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
        data = np.frombuffer(arrays["data"], dtype=np.float32)
        if int(length.sum()) != len(data):
            raise CorruptTable("the cached state distributions' arrays do not fit together")
        off = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        return StatePmfs(theta, key, np.frombuffer(arrays["lo"], dtype=np.int64), off, length, data,
                         stored_space(rules, header),
                         np.frombuffer(arrays["eff"], dtype=np.int16))

    def encode(s: StatePmfs) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": "state_pmfs", "version": VERSION, "fingerprint": rules.fingerprint,
                  "rule_name": rules.name, "theta": s.theta, "width": s.space.width, "t": s.space.t,
                  "nyt": s.space.nyt}
        return header, {"eff": ("h", s.eff.astype("<i2").tobytes()), "key": ("q", s.key.astype("<i8").tobytes()),
                        "lo": ("q", s.lo.astype("<i8").tobytes()), "length": ("q", s.length.astype("<i8").tobytes()),
                        "data": ("f", s.data.astype("<f4").tobytes())}

    what = f"{rules.name} score distributions of every position" + (f" for theta {theta:g}" if theta else "")
    return store.Artifact(STATE_PMFS, rules.fingerprint, what, decode, lambda: _build(rules, theta, say), encode,
                          theta_key(theta), {"version": VERSION, "theta": theta})


def _build(rules: RuleSet, theta: float, say: Callable[[str], None] | None) -> StatePmfs:
    from . import positions, winning
    from .distribution import _pass_layers, solver_ties_for

    mod, W = winning.model_values(rules, say) if theta == 0.0 else positions.model_values(rules, theta, say)
    lay = mod.lay
    keys: list[IntArray] = []
    los: list[IntArray] = []
    lengths: list[IntArray] = []
    parts: list[npt.NDArray[np.float32]] = []

    def keep(p: int, st: dict[str, IntArray], H: FloatArray) -> None:
        big = H > CUT
        lo = np.empty(len(st["off"]), dtype=np.int64)
        hi = np.empty(len(st["off"]), dtype=np.int64)
        for i, (o, n) in enumerate(zip(st["off"].tolist(), st["length"].tolist(), strict=True)):
            nz = np.flatnonzero(big[o: o + n])
            lo[i], hi[i] = (int(nz[0]), int(nz[-1]) + 1) if len(nz) else (0, 1)
            parts.append(H[o + lo[i]: o + hi[i]].astype(np.float32))
        keys.append(lay.space.key(st["mask"], st["y"], st["u"]))
        los.append(lo)
        lengths.append(hi - lo)

    _pass_layers(mod, W, theta, None, solver_ties_for(rules, theta), progress=given(None), each_layer=keep)
    key = np.concatenate(keys)
    order = np.argsort(key, kind="stable")
    length = np.concatenate(lengths)[order]
    data = np.concatenate([parts[i] for i in order.tolist()])
    off = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    eff = mod.eff[lay.sub_of[np.arange(1 << lay.nb)]].reshape(-1).astype(np.int16)
    return StatePmfs(theta, key[order], np.concatenate(los)[order], off, length, data, lay.space, eff)


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
