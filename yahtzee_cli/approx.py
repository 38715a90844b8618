"""Approximate strategies for rule sets without an exact table (multi-column sheets, saved rolls,
too many boxes). Every value they give is labelled approximate ("exact": false)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .rules import RuleSet

if TYPE_CHECKING:
    from .solver import Future


def future(rules: RuleSet, say: Callable[[str], None] | None = None) -> Future:
    """Multi-column sheets whose single column has an exact table: each column is valued by that
    table, weighted by its multiplier (the sheet's value = sum over columns of multiplier x (points
    so far + exact value to go)); decisions are a one-turn lookahead on that sum."""
    from . import solver

    one = solver.single_column(rules)
    if rules.settings.columns > 1 and solver.exact_reason(one) is None:
        tab, _ = solver.get_table(one, say)
        return solver.table_future(tab, exact=False)
    raise NotImplementedError("heuristic future not written yet")
