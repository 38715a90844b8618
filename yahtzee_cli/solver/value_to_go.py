"""The value to go a compiled strategy plays against (within_turn.state_value): an exact table
(exact.Table.value_to_go), the fitted heuristic, or nothing but the upper bonus (greedy). The
kernels' one-turn lookahead adds it to the points a placement writes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..limits import check_strategy_memory
from ..rules.engine import RuleSet
from ..strategy.space import state_space

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class ValueToGo:
    """What within_turn.state_value reads (as within_turn.Future): `kind` (FUTURE_TABLE or FUTURE_HEURISTIC), the lanes
    (`t`, `nyt`), a table (`W` with rows `midx`) or a heuristic (`h` by open count and box, `G` by
    upper set `sub_of`, `yh`), and the value of one saved roll."""

    kind: int
    t: int
    nyt: int
    W: FloatArray
    midx: IntArray
    h: FloatArray
    G: FloatArray
    yh: FloatArray
    sub_of: IntArray
    saved_value: float = 0.0
    exact: bool = False


def check_memory(rules: RuleSet) -> None:
    """limits.TooBig, before anything is allocated, when the per-sheet arrays of the compiled
    strategies (2**boxes entries) would not fit in this machine's memory."""
    check_strategy_memory(rules.name, len(rules.boxes), len(rules.upper_indices), state_space(rules).t)


def sub_of(rules: RuleSet) -> IntArray:
    """[2**boxes] mask -> index of its set of filled upper boxes (StateSpace.upper_set)."""
    check_memory(rules)
    result: IntArray = state_space(rules).upper_set(np.arange(1 << len(rules.boxes), dtype=np.int64))
    return result


def heuristic(rules: RuleSet, h: FloatArray, G: FloatArray, yh: FloatArray, saved_value: float) -> ValueToGo:
    """The heuristic value to go (see solver.approx): h[open boxes, box] per open box, G[upper set,
    capped upper total], yh[open boxes] while the Yahtzee box holds its full points."""
    from .within_turn import FUTURE_HEURISTIC

    t, nyt = state_space(rules).t, state_space(rules).nyt
    nb = len(rules.boxes)
    return ValueToGo(FUTURE_HEURISTIC, t, nyt, np.zeros((1, 1)), np.zeros(1, np.int64),
                     np.ascontiguousarray(h, dtype=np.float64).reshape(nb + 1, nb),
                     np.ascontiguousarray(G).reshape(1 << len(rules.upper_indices), t + 1),
                     np.ascontiguousarray(yh), sub_of(rules), saved_value)


def greedy(rules: RuleSet) -> ValueToGo:
    """No future value, except that the upper bonus counts on the turn that reaches the threshold."""
    s = rules.settings
    nb = len(rules.boxes)
    t = state_space(rules).t
    G = np.zeros((1 << len(rules.upper_indices), t + 1), dtype=np.float64)
    G[:, t] = float(s.upper_bonus) if t > 0 else 0.0
    return heuristic(rules, np.zeros((nb + 1, nb)), G, np.zeros(nb + 1), 0.0)
