"""Hints: the value of every option of a position, best first (what `yahtzee hint` prints and what
`replay --analyze` grades against), valued by the source strategy.choice picks for the rules.

Reading a stored table needs no numpy; only a missing or damaged one loads the solver to build it
(once; later runs read the file)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import CorruptTable, PositionError
from ..rules import engine as R
from ..strategy import tablefile
from ..strategy.choice import fitted_for, plan
from ..strategy.sources import HeuristicSource, Source, TableSource
from ..strategy.turn import Evaluation, Turn

Say = Callable[[str], None]
Progress = Callable[[int, int], None]  # (done, total) while a table is built


def source_for(rules: R.RuleSet, say: Say | None = None, progress: Progress | None = None) -> Source:
    """The value source hints use for `rules`: its exact table, its single column's, or the fitted
    heuristic (built on first use with a note to `say`, read from the cache after that)."""
    p = plan(rules)
    if p.exact:
        header, arrays = _stored(rules, "exact", say, progress)
        return TableSource(header, arrays, True)
    fitted, fit_arrays = _stored(rules, "approx", say)
    if not fitted_for(rules, fitted, fit_arrays):  # fitted by an earlier version otherwise: fit it again
        from ..solver import approx

        approx.prepare(rules, say)
        fitted, fit_arrays = _stored(rules, "approx", say)
    if p.table_rules is not None:  # a multi-column sheet: its column's table, weighted as fitted
        header, arrays = _stored(p.table_rules, "exact", say, progress)
        return TableSource(header, arrays, False, float(fitted["scale"]), fitted["levels"])
    return HeuristicSource(rules, fit_arrays["h"], fit_arrays["G"], fit_arrays["yh"], int(fitted["t"]),
                           float(fitted["saved_value"]))


def risk_source(rules: R.RuleSet, theta: float, say: Say | None = None) -> Source:
    """The risk table of theta (solver.distribution.get_risk_table, built on first use) as a value
    source: values are certainty equivalents log E[exp(theta * rest)] / theta of the points still to
    come, and a Turn on it averages rerolls in that sense. theta = 0: source_for(rules).
    NotExact when the rule set has no exact risk table."""
    from ..strategy.choice import effective_theta

    theta = effective_theta(rules, theta)
    if theta == 0.0:
        return source_for(rules, say)
    from ..solver import distribution

    tab = distribution.get_risk_table(rules, theta, say)
    header = {"t": tab.t, "nyt": tab.nyt, "nb": tab.nb, "mean": tab.mean}
    src = TableSource(header, {"masks": tab.masks.tolist(), "W": tab.W.ravel().tolist()}, True)
    src.theta = theta
    src.label = f"exact risk table for theta {theta:g}"
    return src


def _stored(rules: R.RuleSet, kind: str, say: Say | None,
            progress: Progress | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored table of `kind` ("exact" or "approx") for `rules`, made by the solver when missing."""
    path = tablefile.table_path(rules.fingerprint, kind)
    try:
        return tablefile.read(path, rules.fingerprint)
    except CorruptTable as exc:
        if say is not None:
            say(tablefile.ignored(exc))
    except OSError:  # missing, or an unreadable cache directory: build it
        pass
    if kind == "exact":
        from ..solver import exact

        exact.get_table(rules, say, rebuild=True, progress=progress)
    else:
        from ..solver import approx

        approx.prepare(rules, say, rebuild=True)
    return tablefile.read(path, rules.fingerprint)


def hint(rules: R.RuleSet, columns: Sequence[R.Column], dice: Sequence[int], rolls_left: int, saved: int = 0,
         source: Source | None = None, say: Say | None = None, progress: Progress | None = None) -> Evaluation:
    """Every option of the position (keeps with rolls left, boxes without), best first, valued as the
    expected final grand total; `source` defaults to source_for(rules) (built on first use)."""
    src = source if source is not None else source_for(rules, say, progress)
    allowed = R.rolls_allowed(rules, saved) - 1
    if rolls_left > allowed:
        raise PositionError(f"at most {allowed} rolls can be left after the first roll here, got {rolls_left}")
    return Turn(rules, tuple(columns), src, saved).evaluate(dice, rolls_left)
