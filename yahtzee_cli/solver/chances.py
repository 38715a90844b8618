"""The chances of every option of a position: the final-score distribution each keep or box leads to
when play goes on by the policy of a risk strategy's table (theta 0: the expected-score table), from
the distribution passes of solver.distribution over the sheets ahead of the position."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules.engine import RuleSet
from ..strategy.choice import effective_theta
from ..strategy.sources import column_state, raw_points
from .distribution import (
    Model,
    _lay_values,
    _max_rest,
    _option,
    _pass_layers,
    _pmf_layer,
    get_risk_table,
    model,
    solver_ties_for,
)
from .exact import Layout
from .pmf import Distribution

FloatArray = npt.NDArray[np.float64]
Rest = Callable[[int, int, int], FloatArray | None]

SAY_FROM_SHEETS = 1000  # position_chances says it is computing from this many sheets ahead (about a second)


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


@dataclass(frozen=True)
class Known:
    """What a caller of position_chances already has, so none of it is made again: the rule set's
    distribution model (`mod`), theta's table values in its order (`W`), and `rest(mask, y, u)`, the
    uncapped pmf of the points to come from a next state under theta's policy (a cache; None for a
    state it does not know)."""

    mod: Model | None = None
    W: FloatArray | None = None
    rest: Rest | None = None


def position_chances(rules: RuleSet, column: Any, dice: tuple[int, ...], rolls_left: int, options: list[Any],
                     theta: float = 0.0, target: int | None = None, say: Callable[[str], None] | None = None,
                     known: Known = Known()) -> list[OptionChance]:
    """The final-score distribution of each option (position.Choice: a keep or a box) of a one-column
    position, playing on by the policy of theta's table. With `target`, only P(final >= target) is
    exact (scores from the target up are lumped), which is much less work. `known`: what the caller
    keeps of the model, the values and the next states' pmfs."""
    from .tables import counts_key

    theta = effective_theta(rules, theta)
    mod = known.mod if known.mod is not None else model(rules)
    W = known.W
    rest = known.rest
    lay = mod.lay
    st = column_state(rules, column)
    base = raw_points(rules, column)
    m = st.mask
    y = lay.space.lane(st.yfull)
    u = int(mod.eff[lay.sub_of[m], min(st.upper, lay.t)])
    p0 = bin(m).count("1")
    rest_max = int(_max_rest(mod, np.array([m]), np.array([y]), np.array([u]))[0])
    if target is not None and not base < target <= base + rest_max:
        # beyond the best reachable total the chance is 0, at or below the points written it is 1:
        # answered at once, whatever the option
        sure = np.zeros(base + rest_max + 2)
        sure[base if target <= base else base + rest_max] = 1.0
        return [OptionChance(o.keep, None, 0, 0, Distribution(sure, 0, 0.0, {"theta": theta})) if o.keep is not None
                else OptionChance(None, int(o.box), int(o.score), int(o.bonus), Distribution(sure, 0, 0.0,
                                                                                           {"theta": theta}))
                for o in options]
    if W is None:
        W = _lay_values(mod, get_risk_table(rules, theta, say))
    ties = solver_ties_for(rules, theta)
    cap = None if target is None else target - base
    tp1 = lay.t + 1

    def next_state(b: int, v: int) -> tuple[int, int, int]:
        m2 = m | (1 << b)
        y2 = y if lay.yn[b, v] < 0 else int(lay.yn[b, v])
        if lay.yn[b, v] >= 0 and lay.nyt != 2:
            y2 = 0
        return m2, y2, int(mod.eff[lay.sub_of[m2], min(u + int(lay.du[b, v]), lay.t)])

    # the next states' pmfs from `rest` when it knows every one (then no pass is run)
    next_pmfs: dict[tuple[int, int], FloatArray] | None = {} if rest is not None else None
    if next_pmfs is not None and rest is not None:
        for b in range(lay.nb):
            for v in range(int(lay.nvar[b]) if not m >> b & 1 else 0):
                h = rest(*next_state(b, v))
                if h is None:
                    next_pmfs = None
                    break
                next_pmfs[(b, v)] = h
            if next_pmfs is None:
                break
    if next_pmfs is None:
        if say is not None:  # the sheets still ahead, each valued in turn: seconds from an early position
            from .jit import note_compile

            note_compile([_pmf_layer, _option], "the exact distribution's kernels", say)
            ahead = int(np.count_nonzero((lay.masks[int(lay.layer_ptr[p0 + 1]):] & m) == m))
            if ahead >= SAY_FROM_SHEETS:
                say(f"computing the exact final-score distributions from this position ({ahead:,} sheets ahead)")
        states, H, sid = _pass_layers(mod, W, theta, cap, ties, within=m, stop_layer=p0 + 1)
    d = lay.scores.dice
    vmax = lay.du.shape[1]
    hi = base + rest_max if cap is None else base + cap  # (the lumped bin: at most one past the best total)
    out: list[OptionChance] = []

    def rest_of(b: int, v: int) -> FloatArray:
        if next_pmfs is not None:
            return next_pmfs[(b, v)]
        m2, y2, u2 = next_state(b, v)
        j = int(sid[lay.midx[m2], y2 * tp1 + u2])
        o, L = int(states["off"][j]), int(states["length"][j])
        return H[o: o + L]

    def spread(pmf: FloatArray, p: float, h: FloatArray, start: int) -> None:
        """p times the pmf h of the points to come, from total `start` on (with a target, those from
        it on lumped in its bin)."""
        if cap is None:
            pmf[start: start + len(h)] += p * h
            return
        lin = max(min(len(h), base + cap - start), 0)
        pmf[start: start + lin] += p * h[:lin]
        pmf[base + cap] += p * float(h[lin:].sum())

    def add(pmf: FloatArray, p: float, b: int, v: int, pts: int) -> None:
        spread(pmf, p, rest_of(b, v), base + pts)

    stay: FloatArray | None = None  # this sheet's own pmf of the points to come, when a pass may come back to it
    for opt in options:
        pmf = np.zeros(hi + 1)
        if opt.keep is not None:
            counts = [0] * 6
            for f in opt.keep:
                counts[f - 1] += 1
            k = int(d.keep_index[counts_key(counts)])
            work = mod.work()
            q = _option(m, y, u, theta, mod.future(W), mod.ra, work, ties, mod.J, (np.int64(k), np.int64(rolls_left)))
            Pfin, slot, pts = work.Pfin, work.slot, work.pts
            acc: dict[tuple[int, int], float] = {}
            for r in np.nonzero(Pfin)[0].tolist():
                if slot[r] >= 0:
                    key = (int(slot[r]), int(pts[r]))
                    acc[key] = acc.get(key, 0.0) + float(Pfin[r])
            for (sl, pt), p in acc.items():
                add(pmf, p, sl // vmax, sl % vmax, pt)
            if q > 0.0:  # a pass (must_zero off): the next turn starts from this same sheet
                if stay is None:
                    stay = _stay(rules, column, theta, say)
                spread(pmf, q, stay, base)
            out.append(OptionChance(opt.keep, None, 0, 0, Distribution(pmf, 0, 0.0, {"theta": theta})))
        elif opt.box is not None:
            b = int(opt.box)
            v = _variant(lay, b, int(opt.score))
            add(pmf, 1.0, b, v, int(opt.score) + int(opt.bonus))
            out.append(OptionChance(None, b, int(opt.score), int(opt.bonus), Distribution(pmf, 0, 0.0,
                                                                                         {"theta": theta})))
    return out


def _stay(rules: RuleSet, column: Any, theta: float, say: Callable[[str], None] | None) -> FloatArray:
    """The column's pmf of the points to come from its turn start (what a turn that ends in a pass
    leads to), under the expected-score policy: the only one rule sets with passes have exactly."""
    from ..errors import NotExact
    from .winning import final_pmf

    if theta != 0.0:
        raise NotExact("risk strategies are not exact where a turn may end in a pass (must_zero off)")
    return np.asarray(final_pmf(rules, column, say).pmf, dtype=np.float64)


def _variant(lay: Layout, b: int, score: int) -> int:
    """The next-state variant a score written in box b makes (tables.box_variants' numbering)."""
    sc = lay.scores
    if lay.nvar[b] == 1:
        return 0
    if b == sc.yahtzee_box:
        return 1 if score == sc.yahtzee_points else 0
    for v in range(int(lay.nvar[b])):
        if int(lay.du[b, v]) == score:
            return v
    raise ValueError(f"box {b} cannot hold {score}")
