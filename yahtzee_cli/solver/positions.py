"""Per-position distributions kept in the cache: from a turn-start position (filled boxes, Yahtzee
lane, upper total) and a risk strategy theta, the pmf of the points still to come from every state
one box further, under theta's policy. They are what the chances of every option of a hint at that
position are made of (solver.chances.position_chances' `rest`), whatever the dice, the rolls
left or the target; computing them is a pass over every sheet ahead of the position (about 20 s of
CPU from an empty sheet), reading them a few milliseconds.

Positions with many sheets ahead (CACHE_FROM_SHEETS) are stored, one file per rule set, position
and theta, kept in the store like the strategy tables (store.artifact, kind "position"), built
once under a lock when several processes want the same one. Later positions are computed every
time (a fraction of a second) and kept for the process only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..errors import CorruptTable
from ..progress import given
from ..rules.engine import RuleSet
from ..store import artifact as store
from ..store.kinds import POSITION, theta_key

if TYPE_CHECKING:
    from .distribution import Model

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Rest = Callable[[int, int, int], "FloatArray | None"]

VERSION = 1  # bump when a stored position's meaning changes
CACHE_FROM_SHEETS = 500  # positions with at least this many sheets ahead are stored (about a second each)

_memo: dict[tuple[str, float, int, int, int], dict[int, FloatArray]] = {}


def stored(rules: RuleSet, theta: float, state: tuple[int, int, int],
           build: Callable[[], dict[int, FloatArray]] | None = None, sheets: int = 0,
           ) -> store.Artifact[dict[int, FloatArray]]:
    """The position `state` (mask, Yahtzee lane, standing upper total) under theta as the store keeps
    it: the pmfs of the next states by their keys (`build`: how they are computed over the `sheets`
    ahead)."""
    m, y, u = state

    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> dict[int, FloatArray]:
        key = np.frombuffer(arrays["key"], dtype=np.int64)
        length = np.frombuffer(arrays["length"], dtype=np.int64)
        data = np.frombuffer(arrays["data"], dtype=np.float64)
        if int(length.sum()) != len(data) or len(key) != len(length):
            raise CorruptTable("the cached position's arrays do not fit together")
        off = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        return {int(k): data[o: o + n] for k, o, n in zip(key.tolist(), off.tolist(), length.tolist(), strict=True)}

    def encode(got: dict[int, FloatArray]) -> tuple[dict[str, Any], dict[str, Any]]:
        keys = sorted(got)
        header = {"kind": "position", "version": VERSION, "fingerprint": rules.fingerprint, "rule_name": rules.name,
                  "theta": theta, "state": [m, y, u]}
        return header, {"key": ("q", np.array(keys, dtype="<i8").tobytes()),
                        "length": ("q", np.array([len(got[k]) for k in keys], dtype="<i8").tobytes()),
                        "data": ("d", np.concatenate([got[k] for k in keys]).astype("<f8").tobytes()
                                 if keys else b"")}

    def unbuilt() -> dict[int, FloatArray]:
        raise AssertionError("a position read only")

    what = f"{rules.name} distributions of the {sheets:,} sheets ahead of this position" + (
        f" for theta {theta:g}" if theta else "")
    return store.Artifact(POSITION, rules.fingerprint, what, decode, build or unbuilt, encode,
                          f"{theta_key(theta)}.{m}.{y}.{u}", {"version": VERSION, "theta": theta, "state": [m, y, u]})


def _path(rules: RuleSet, theta: float, m: int, y: int, u: int) -> Path:
    return stored(rules, theta, (m, y, u)).path


def next_states(mod: Model, m: int, y: int, u: int) -> list[tuple[int, int, int]]:
    """The turn-start states one box after (m, y, u): every open box, every variant it can take."""
    lay = mod.lay
    out = []
    for b in range(lay.nb):
        if m >> b & 1:
            continue
        for v in range(int(lay.nvar[b])):
            m2 = m | (1 << b)
            y2 = y if lay.yn[b, v] < 0 else int(lay.yn[b, v])
            if lay.yn[b, v] >= 0 and lay.nyt != 2:
                y2 = 0
            out.append((m2, y2, int(mod.eff[lay.sub_of[m2], min(u + int(lay.du[b, v]), lay.t)])))
    return out


def _compute(rules: RuleSet, mod: Model, W: FloatArray, theta: float, m: int, y: int, u: int) -> dict[int, FloatArray]:
    from .distribution import _pass_layers, solver_ties_for

    lay = mod.lay
    p0 = bin(m).count("1")
    states, H, sid = _pass_layers(mod, W, theta, None, solver_ties_for(rules, theta), within=m, stop_layer=p0 + 1,
                                  progress=given(None))
    out: dict[int, FloatArray] = {}
    for m2, y2, u2 in next_states(mod, m, y, u):
        j = int(sid[lay.midx[m2], y2 * (lay.t + 1) + u2])
        o, n = int(states["off"][j]), int(states["length"][j])
        out[int(lay.space.key(m2, y2, u2))] = np.array(H[o: o + n], dtype=np.float64)
    return out


def _read(rules: RuleSet, theta: float, m: int, y: int, u: int) -> dict[int, FloatArray]:
    return store.read(stored(rules, theta, (m, y, u)))


def ahead(mod: Model, m: int) -> int:
    """The sheets after the position of filled boxes m (what its pass goes over)."""
    lay = mod.lay
    p0 = bin(m).count("1")
    return int(np.count_nonzero((lay.masks[int(lay.layer_ptr[p0 + 1]):] & m) == m))


def rest_for(rules: RuleSet, mod: Model, values: Callable[[], FloatArray], theta: float, m: int, y: int, u: int,
             say: Callable[[str], None] | None = None) -> Rest:
    """rest(mask, y, u) for position_chances: the pmfs of the points to come from the states one box
    after (m, y, u) under theta's policy (its table's values in the model's order: `values()`, called
    only when they are computed), from the cache or computed (and stored) now; None for other states."""
    memo_key = (rules.fingerprint, theta, m, y, u)
    got = _memo.get(memo_key)
    if got is None:
        got = _load_or_build(rules, mod, values, theta, m, y, u, say)
        _memo[memo_key] = got
    lay = mod.lay
    found = got

    def rest(m2: int, y2: int, u2: int) -> FloatArray | None:
        return found.get(int(lay.space.key(m2, y2, u2)))

    return rest


def _load_or_build(rules: RuleSet, mod: Model, values: Callable[[], FloatArray], theta: float, m: int, y: int,
                   u: int, say: Callable[[str], None] | None) -> dict[int, FloatArray]:
    n_ahead = ahead(mod, m)
    if n_ahead < CACHE_FROM_SHEETS:
        return _compute(rules, mod, values(), theta, m, y, u)
    return store.get(stored(rules, theta, (m, y, u), lambda: _compute(rules, mod, values(), theta, m, y, u),
                            n_ahead), say)[0]


def start_state(mod: Model) -> tuple[int, int, int]:
    """The empty sheet's turn-start state (mask, Yahtzee lane, standing upper total)."""
    return 0, 0, int(mod.eff[mod.lay.sub_of[0], 0])


def start_path(rules: RuleSet, theta: float) -> Path:
    """The cache file of the empty sheet's position under theta (what the package ships for the default
    rules, next to their risk tables: store.prebuilt)."""
    from .winning import _model

    return _path(rules, theta, *start_state(_model(rules)))


def prepare_start(rules: RuleSet, theta: float, say: Callable[[str], None] | None = None) -> Path:
    """The empty sheet's position under theta in the cache (read, or computed and stored); its path."""
    from .winning import _model

    mod = _model(rules)
    rest_for(rules, mod, lambda: model_values(rules, theta, say)[1], theta, *start_state(mod), say)
    return start_path(rules, theta)


_values_memo: dict[tuple[str, float], FloatArray] = {}


def model_values(rules: RuleSet, theta: float, say: Callable[[str], None] | None = None) -> tuple[Model, FloatArray]:
    """The rule set's distribution model and theta's table values in its order, kept per process."""
    from .distribution import _lay_values, get_risk_table
    from .winning import _model

    mod = _model(rules)
    W = _values_memo.get((rules.fingerprint, theta))
    if W is None:
        W = _values_memo[(rules.fingerprint, theta)] = _lay_values(mod, get_risk_table(rules, theta, say))
    return mod, W


def chances(rules: RuleSet, column: Any, dice: tuple[int, ...], rolls_left: int, options: Sequence[Any],
            theta: float = 0.0, target: int | None = None, say: Callable[[str], None] | None = None) -> list[Any]:
    """solver.chances.position_chances with the position's next states from the cache (computed
    and stored on first use): the same answer, in milliseconds once the position is known."""
    from ..strategy.choice import effective_theta
    from ..strategy.sources import column_state
    from .chances import Known, position_chances

    theta = effective_theta(rules, theta)
    from .winning import _model

    mod = _model(rules)
    lay = mod.lay
    st = column_state(rules, column)
    m = st.mask
    y = lay.space.lane(st.yfull)
    u = int(mod.eff[lay.sub_of[m], min(st.upper, lay.t)])
    got: list[Rest] = []

    def rest(m2: int, y2: int, u2: int) -> FloatArray | None:  # (looked up on its first call only)
        if not got:
            got.append(rest_for(rules, mod, lambda: model_values(rules, theta, say)[1], theta, m, y, u, say))
        return got[0](m2, y2, u2)

    # (the table's values load only past the answers position_chances gives at once: a target out of reach)
    return position_chances(rules, column, dice, rolls_left, list(options), theta, target, say=say,
                            known=Known(mod=mod, rest=rest))
