"""Exact optimal-strategy solver: the table of expected remaining scores of every turn-start state.

`build(rules)` runs the compiled backward induction (yahtzee_cli.kernels) over the rules module's
score tables and returns a `Table`; `cache.load_or_build` stores it keyed by `RuleSet.fingerprint`.
Position values (hint, replay --analyze) are in yahtzee_cli.position and never need numba.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .rules import JOKER_CODES, RuleSet, rolls_allowed
from .tables import Scores, score_tables

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Exact tables are built when the state space has at most this many (mask, y, u) states.
MAX_EXACT_STATES = 1 << 23


class NotExact(ValueError):
    """The rule set's exact state space does not fit (multi-column, saved rolls, too many boxes)."""


@dataclass(frozen=True)
class Layout:
    """How a rule set's turn-start states map to table cells, and the per-box data the kernels take.

    A state is (filled mask, y, u): u the upper total capped at `t`, y = 1 when the Yahtzee box holds
    its full points and extra bonuses exist (`nyt` = 2), else 0. Cell: W[midx[mask], y * (t + 1) + u].
    """

    rules: RuleSet
    scores: Scores
    nb: int
    t: int
    nyt: int
    ybit: int
    has_y: bool
    masks: IntArray  # reachable masks, by popcount then value
    layer_ptr: IntArray  # masks[layer_ptr[p]:layer_ptr[p + 1]] have popcount p
    midx: IntArray  # [2**nb] mask -> row (-1 unreachable)
    sub_of: IntArray  # [2**nb] mask -> index of its set of filled upper boxes
    ulist: IntArray  # [2**n_upper, t + 1] reachable capped upper totals of each upper set
    ucount: IntArray
    var_nat: IntArray  # [R, B] next-state variant of the natural score
    var_jok: IntArray  # [R, B] next-state variant of the joker score
    nvar: IntArray  # [B]
    du: IntArray  # [B, V] upper total added by a variant
    yn: IntArray  # [B, V] y after a variant (-1 unchanged)
    n_states: int = 0

    @property
    def width(self) -> int:
        return self.nyt * (self.t + 1)


def exact_reason(rules: RuleSet) -> str | None:
    """Why the rule set has no exact table (None when it has one)."""
    s = rules.settings
    if s.columns != 1:
        return f"{s.columns} columns"
    if s.saved_rolls:
        return "saved rolls"
    if len(rules.boxes) > 24:
        return f"{len(rules.boxes)} boxes"
    return None


def layout(rules: RuleSet) -> Layout:
    """The state layout of a single-column rule set (NotExact when its state space does not fit)."""
    from . import kernels

    why = exact_reason(rules)
    if why is not None:
        raise NotExact(f"{rules.name} has no exact table ({why}); hints use the approximate strategy")
    sc = score_tables(rules)
    s = rules.settings
    nb = sc.n_boxes
    has_y = sc.yahtzee_box >= 0
    ybit = (1 << sc.yahtzee_box) if has_y else 0
    t = s.upper_bonus_threshold if s.upper_bonus > 0 else 0
    nyt = 2 if has_y and s.extra_yahtzee_bonus > 0 else 1
    own_bits = np.unique(np.concatenate([sc.own_bit[sc.yahtzee_roll], np.zeros(1, np.int64)]))
    reach = kernels.reachable_masks(nb, s.fill_in_order, sc.lower_bits, sc.joker_code, has_y, ybit, own_bits)
    all_masks = np.arange(1 << nb, dtype=np.int64)
    pop = np.zeros(1 << nb, dtype=np.int64)
    for b in range(nb):
        pop += (all_masks >> b) & 1
    masks = all_masks[reach]
    masks = masks[np.argsort(pop[masks], kind="stable")]
    layer_ptr = np.searchsorted(pop[masks], np.arange(nb + 2)).astype(np.int64)
    midx = np.full(1 << nb, -1, dtype=np.int64)
    midx[masks] = np.arange(len(masks), dtype=np.int64)

    upper = list(rules.upper_indices)
    sub_of = np.zeros(1 << nb, dtype=np.int64)
    for j, b in enumerate(upper):
        sub_of |= ((all_masks >> b) & 1) << j
    # Scores a box can receive: natural scores, and joker values of Yahtzee rolls.
    yr = sc.yahtzee_roll
    vals = [sorted(set(sc.natural[:, b].tolist()) | set(sc.joker[yr, b].tolist())) for b in range(nb)]
    ulist = np.zeros((1 << len(upper), t + 1), dtype=np.int64)
    ucount = np.zeros(1 << len(upper), dtype=np.int64)
    for sub in range(1 << len(upper)):
        reach_u = {0}
        for j, b in enumerate(upper):
            if sub >> j & 1:
                reach_u = {min(a + v, t) for a in reach_u for v in vals[b]}
        us = sorted(reach_u)
        ulist[sub, : len(us)] = us
        ucount[sub] = len(us)

    R = sc.natural.shape[0]
    vmax = max([len(vals[b]) for b in upper] + [2])
    nvar = np.ones(nb, dtype=np.int64)
    du = np.zeros((nb, vmax), dtype=np.int64)
    yn = np.full((nb, vmax), -1, dtype=np.int64)
    var_nat = np.zeros((R, nb), dtype=np.int64)
    var_jok = np.zeros((R, nb), dtype=np.int64)
    ypts = sc.yahtzee_points
    for b in range(nb):
        if b in upper:
            nvar[b] = len(vals[b])
            du[b, : len(vals[b])] = vals[b]
            pos = {v: i for i, v in enumerate(vals[b])}
            var_nat[:, b] = [pos[v] for v in sc.natural[:, b].tolist()]
            var_jok[:, b] = [pos.get(v, 0) for v in sc.joker[:, b].tolist()]
        elif b == sc.yahtzee_box:
            # rules.extra_bonus: later Yahtzees earn the bonus only while this box holds its full points
            nvar[b] = 2
            yn[b, 0] = 0
            yn[b, 1] = 1 if nyt == 2 else 0
            var_nat[:, b] = sc.natural[:, b] == ypts
            var_jok[:, b] = sc.joker[:, b] == ypts
    n_states = int(sum(ucount[sub_of[m]] * (nyt if (m & ybit) else 1) for m in masks.tolist()))
    if len(masks) * nyt * (t + 1) > MAX_EXACT_STATES:
        raise NotExact(f"{rules.name} has too many states for an exact table; hints use the approximate strategy")
    return Layout(rules, sc, nb, t, nyt, ybit, has_y, masks, layer_ptr, midx, sub_of, ulist, ucount,
                  var_nat, var_jok, nvar, du, yn, n_states)


@dataclass
class Table:
    """A solved rule set: W[row, y * (t + 1) + u] = expected remaining score (upper bonus included) of
    the turn-start state; `masks[row]` its filled boxes. `mean`/`sd`: of the final score from an empty
    column under the optimal policy."""

    fingerprint: str
    rule_name: str
    nb: int
    t: int
    nyt: int
    masks: IntArray
    W: FloatArray
    mean: float
    sd: float
    build_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def row(self, mask: int) -> int:
        i = int(np.searchsorted(self.masks, mask))
        if i >= len(self.masks) or int(self.masks[i]) != mask:
            raise KeyError(f"unreachable filled-box set {mask:#x}")
        return i


def build(rules: RuleSet, moments: bool = True, nchunks: int = 16,
          progress: Callable[[int, int], None] | None = None) -> Table:
    """Solve a single-column rule set exactly (NotExact when its state space does not fit)."""
    from . import kernels

    t0 = time.perf_counter()
    lay = layout(rules)
    sc = lay.scores
    d = sc.dice
    s = rules.settings
    width = lay.width
    n = len(lay.masks)
    W = np.zeros((n, width), dtype=np.float64)
    W2 = np.zeros((n, width) if moments else (1, 1), dtype=np.float64)
    full = (1 << lay.nb) - 1
    fi = lay.midx[full]
    u = np.arange(lay.t + 1)
    term = np.where(u >= lay.t, float(s.upper_bonus), 0.0)
    W[fi] = np.tile(term, lay.nyt)
    if moments:
        W2[fi] = np.tile(term * term, lay.nyt)
    n_stages = rolls_allowed(rules, 0) - 1
    allow_pass = not s.must_zero
    done = 0
    for p in range(lay.nb - 1, -1, -1):
        start, end = int(lay.layer_ptr[p]), int(lay.layer_ptr[p + 1])
        if end > start:
            kernels.solve_layer(
                lay.masks, start, end, nchunks, lay.midx, lay.sub_of, lay.ulist, lay.ucount,
                sc.natural, sc.joker, lay.var_nat, lay.var_jok, lay.nvar, lay.du, lay.yn,
                sc.yahtzee_roll, sc.own_bit, d.roll_prob, d.keep_of_roll, d.add_die, d.drop_die,
                lay.nb, lay.t, lay.nyt, lay.ybit, lay.has_y, s.extra_yahtzee_bonus, JOKER_CODES[s.joker],
                s.fill_in_order, sc.lower_bits, moments, allow_pass, n_stages, W, W2,
            )
        done += end - start
        if progress is not None:
            progress(done + 1, n)
    order = np.argsort(lay.masks)
    masks_sorted = lay.masks[order]
    W = W[order]
    r0 = int(np.searchsorted(masks_sorted, 0))
    mean = float(W[r0, 0])
    sd = float("nan")
    if moments:
        m2 = float(W2[lay.midx[0], 0])
        sd = math.sqrt(max(m2 - mean * mean, 0.0))
    return Table(
        fingerprint=rules.fingerprint, rule_name=rules.name, nb=lay.nb, t=lay.t, nyt=lay.nyt,
        masks=masks_sorted, W=W, mean=mean, sd=sd, build_seconds=time.perf_counter() - t0,
        meta={"states": lay.n_states, "masks": n},
    )
