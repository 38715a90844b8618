"""The turn-start states of one column of a rule set, named once: every table, distribution and win
computation indexes its states the same way. Pure Python (no numpy): hints ask it before anything
heavy loads; its `key` and `upper_set` work on ints and, element-wise, on integer numpy arrays alike.

A column's turn-start state is (mask, y, u):

* mask, the filled boxes (bit b: box b);
* y, the Yahtzee lane: 1 while the Yahtzee box holds its full points and extra-Yahtzee bonuses exist
  (then later Yahtzees earn them: `nyt` = 2 lanes), else 0 (`nyt` = 1 when no bonus depends on it);
* u, the upper total, capped at the bonus threshold `t` (0 when there is no upper bonus: the total
  then changes nothing).

Filled in any order, every set of filled boxes can occur (any roll may go in any open box); filled
down (or up) the sheet, only its prefixes: `masks` counts the rows of an exact table, `states` its
cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import CorruptTable
from ..rules.engine import RuleSet


@dataclass(frozen=True)
class StateSpace:
    """One rule set's column states (see the module): `boxes` per column, `upper` the upper boxes'
    indices, `t` upper lanes above 0, `nyt` Yahtzee lanes, `masks` filled-box sets a table holds."""

    boxes: int
    upper: tuple[int, ...]
    t: int
    nyt: int
    masks: int

    @property
    def width(self) -> int:
        """A mask's states: Yahtzee lanes x (t + 1) upper totals."""
        return self.nyt * (self.t + 1)

    @property
    def states(self) -> int:
        """Cells of the rule set's exact table: filled-box sets x Yahtzee lanes x upper lanes."""
        return self.masks * self.width

    def key(self, mask: Any, y: Any, u: Any) -> Any:
        """A state's key, mask * width + y * (t + 1) + u (u a standing total, at most t)."""
        return mask * self.width + y * (self.t + 1) + u

    def lane(self, yfull: bool) -> int:
        """The Yahtzee lane of a column whose Yahtzee box does (or does not) hold its full points."""
        return 1 if yfull and self.nyt == 2 else 0

    def upper_set(self, mask: Any) -> Any:
        """The index of a mask's set of filled upper boxes (bit j: the j-th upper box)."""
        sub = mask & 0
        for j, b in enumerate(self.upper):
            sub |= ((mask >> b) & 1) << j
        return sub


@lru_cache(maxsize=64)
def state_space(rules: RuleSet) -> StateSpace:
    """The rule set's StateSpace (built once per rule set)."""
    s = rules.settings
    nb = len(rules.boxes)
    t = s.upper_bonus_threshold if s.upper_bonus > 0 else 0
    nyt = 2 if rules.yahtzee_index is not None and s.extra_yahtzee_bonus > 0 else 1
    masks = 1 << nb if s.fills[0] == "free" else nb + 1  # a column filled in order: its prefixes
    return StateSpace(nb, tuple(rules.upper_indices), t, nyt, masks)


def stored_space(rules: RuleSet, header: Mapping[str, Any]) -> StateSpace:
    """The rule set's state space, checked against a stored artifact's header (its width, t and nyt):
    CorruptTable when the file indexes its states another way."""
    space = state_space(rules)
    if (int(header["width"]), int(header["t"]), int(header["nyt"])) != (space.width, space.t, space.nyt):
        raise CorruptTable("the cached distributions index another state layout")
    return space
