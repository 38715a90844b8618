"""Value sources: a column's expected points to go at a turn start (upper bonus included), what the
one-turn lookahead of strategy.turn adds to the points it writes. Pure Python: a hint reads a stored
table without numpy.

* TableSource: an exact table (see yahtzee_cli.solver.exact.Table) read from its file's arrays;
* HeuristicSource: the additive value to go fitted by yahtzee_cli.solver.approx.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..errors import PositionError
from ..rules import engine as R
from .space import state_space


class ColumnState(NamedTuple):
    """What a column's value to go depends on: filled boxes, upper total, Yahtzee box holding its
    full points (so later Yahtzees earn the extra bonus)."""

    mask: int
    upper: int
    yfull: bool


def column_state(rules: R.RuleSet, column: R.Column) -> ColumnState:
    upper = sum(column.scores[i] or 0 for i in rules.upper_indices)
    y = rules.yahtzee_index
    return ColumnState(column.filled_mask, upper, y is not None and R.holds_full_yahtzee(rules, column.scores[y]))


def raw_points(rules: R.RuleSet, column: R.Column) -> int:
    """Points written in a column without the upper bonus (the value to go pays that at the end)."""
    totals = R.column_totals(rules, column)
    return totals.total - totals.upper_bonus


class Source:
    """The value to go of a column at a turn start (upper bonus included)."""

    exact: bool = False
    saved_value: float = 0.0  # value of one saved roll (saved_rolls)
    label: str = ""
    theta: float = 0.0  # 0: values are expected scores; else certainty equivalents (see play.hint.risk_source)
    # -1: the value ignores saved rolls (saved_value stands for them); K >= 0: value(state, stock) is
    # the exact table's with at most K saved rolls (a stock above K counts as K)
    cap: int = -1

    def value(self, state: ColumnState, stock: int = 0) -> float:
        raise NotImplementedError

    def level(self, open_boxes: int) -> float:
        """What the position's value adds for `open_boxes` boxes open on the whole sheet: the same for
        every option of a turn (each fills one box), so it moves values, never decisions."""
        return 0.0


class TableSource(Source):
    """A column's exact table (see yahtzee_cli.solver.exact.Table), read from its file's arrays."""

    def __init__(self, header: dict[str, Any], arrays: dict[str, Any], exact: bool, scale: float = 1.0,
                 levels: Sequence[float] = ()) -> None:
        self.masks = arrays["masks"]
        self.W = arrays["W"]
        self.t = int(header["t"])
        self.nyt = int(header["nyt"])
        self.width = self.nyt * (self.t + 1)
        self.dense = len(self.masks) == 1 << int(header["nb"])
        self.exact = exact
        self.mean = float(header["mean"])
        # a multi-column sheet (solver.approx): each column's table value times `scale`, plus levels[K]
        # for K boxes open on the sheet, both fitted by self-play
        self.scale = scale
        self.levels = list(levels)
        self.label = "exact table" if exact else "columns valued by the exact single-column table"
        if scale != 1.0:
            self.label += f" (weighted {scale:g})"

    def row(self, mask: int) -> int:
        if self.dense:
            return mask
        i = bisect_left(self.masks, mask)
        if i >= len(self.masks) or self.masks[i] != mask:
            raise PositionError("this combination of filled boxes cannot occur under these rules")
        return i

    def value(self, state: ColumnState, stock: int = 0) -> float:
        y = 1 if state.yfull and self.nyt == 2 else 0
        u = min(state.upper, self.t)
        return float(self.scale * self.W[self.row(state.mask) * self.width + y * (self.t + 1) + u])

    def level(self, open_boxes: int) -> float:
        return self.levels[open_boxes] if self.levels else 0.0


class HeuristicSource(Source):
    """Heuristic value to go: sum over open boxes of h[open boxes][box] (h flat, a row of a box per open
    count) + G[filled upper boxes][capped upper total] + (yh[open boxes] when the Yahtzee box holds its
    points); see yahtzee_cli.solver.approx."""

    def __init__(self, rules: R.RuleSet, h: Sequence[float], G: Sequence[float], yh: Sequence[float], t: int,
                 saved_value: float) -> None:
        self.rules = rules
        self.h = list(h)
        self.G = G
        self.yh = list(yh)
        self.t = t
        self.saved_value = saved_value
        self.label = "heuristic value to go, fitted by self-play"

    def value(self, state: ColumnState, stock: int = 0) -> float:
        u = min(state.upper, self.t)
        acc = float(self.G[state_space(self.rules).upper_set(state.mask) * (self.t + 1) + u])
        nb = len(self.rules.boxes)
        open_boxes = [b for b in range(nb) if not state.mask >> b & 1]
        n_open = len(open_boxes)
        for b in open_boxes:
            acc += self.h[n_open * nb + b]
        if state.yfull:
            acc += self.yh[n_open]
        return acc


class SavedSource(Source):
    """Values by stock of saved rolls, 0..K: the exact table of a rule set with saved rolls capped at K
    (solver.saved.SavedTable), or a model fitted to one (solver.saved_fit.FittedStocks, described by
    `label`): a turn start's value depends on the stock of saved rolls too."""

    def __init__(self, table: Any, rules_cap: int | None, label: str | None = None) -> None:
        self.table = table
        self.cap = table.cap
        self.exact = label is None
        self.label = label or f"exact table with at most {table.cap} saved rolls"
        if rules_cap is None:  # the uncapped game played by the largest cap built
            self.label += (" (the uncapped game's value is higher; stocks above the cap count as the cap)" if self.exact
                           else f" (a stock above {table.cap} counts as {table.cap})")

    def value(self, state: ColumnState, stock: int = 0) -> float:
        try:
            return float(self.table.value(state.mask, 1 if state.yfull and self.table.nyt == 2 else 0, state.upper,
                                          min(stock, self.cap)))
        except KeyError as exc:
            raise PositionError(f"this position cannot occur under these rules ({exc.args[0]})") from None
