"""Hints: the value of every option of a position, best first (what `yahtzee hint` prints and what
`replay --analyze` grades against), valued by the source strategy.choice picks for the rules.

Reading a stored table needs no numpy; only a missing or damaged one loads the solver to build it
(once; later runs read the file)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import CorruptTable, PositionError
from ..rules import engine as R
from ..store import tablefile
from ..strategy.choice import approximate_plan, fitted_for, plan
from ..strategy.sources import HeuristicSource, SavedSource, Source, TableSource
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
    if p.by_stock:
        from ..solver import saved_fit

        tab = saved_fit.stock_values(p, say)
        if tab is not None:  # (else removed meanwhile: the heuristic)
            return SavedSource(tab, rules.settings.saved_rolls_cap,
                               None if p.strategy == "saved" else saved_fit.fitted_label(tab))
    fitted, fit_arrays = _stored(rules, "approx", say)
    if not fitted_for(rules, fitted, fit_arrays):  # fitted by an earlier version otherwise: fit it again
        from ..solver import approx

        approx.prepare(rules, say)
        fitted, fit_arrays = _stored(rules, "approx", say)
    p = approximate_plan(rules)
    if p.table_rules is not None:  # a multi-column sheet: its column's table, weighted as fitted
        header, arrays = _stored(p.table_rules, "exact", say, progress)
        return TableSource(header, arrays, False, float(fitted["scale"]), fitted["levels"])
    return HeuristicSource(rules, fit_arrays["h"], fit_arrays["G"], fit_arrays["yh"], int(fitted["t"]),
                           float(fitted["saved_value"]))


def saved_rolls_advice(rules: R.RuleSet) -> str | None:
    """For rules with saved rolls played by the heuristic (no exact table built): how to build the exact
    one, and about how long it takes (nothing starts that build unasked). None for other rules."""
    if not rules.settings.saved_rolls:
        return None
    from ..strategy.choice import fit_rules

    strategy = plan(rules).strategy
    if strategy not in ("heuristic", "fitted"):
        return None
    from ..strategy.choice import saved_reason
    from ..strategy.saved_cost import about_minutes, build_gb, build_minutes

    cap = rules.settings.saved_rolls_cap
    target = fit_rules(rules)  # the table suggested: the rules' own cap, or the default one
    if saved_reason(target) is not None:
        return None
    k = "K" if cap is None else str(cap)
    how = "a fitted heuristic" if strategy == "heuristic" else "values fitted to the exact table"
    return (f"{rules.name} with saved rolls is played by {how} until its exact table is built: "
            f"yahtzee solve --rules {rules.name} --set saved_rolls_cap={k} "
            f"(K = {target.settings.saved_cap}: {about_minutes(build_minutes(target))} on 2 cores and "
            f"{build_gb(target):.1f} GB of disk, once)")


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
    turn = Turn(rules, tuple(columns), src, saved)
    ev = turn.evaluate(dice, rolls_left)
    if rolls_left > 0:  # stopping now: which box, valued with the rolls it leaves unused
        ev.stop_box = turn.evaluate(dice, 0, rolls_left).best
    return ev


# --------------------------------------------------------------------------- chances of reaching a score


@dataclass(frozen=True)
class RiskRanking:
    """Options of a position by the exact distribution of their final score (one-column, exact rule
    sets): each option's chances and the value it is ranked by, best first, and the score `target` the
    chances are read at. `theta` 0 ranks by the mean (the hint's own values), else by the certainty
    equivalent log E[exp(theta * final)] / theta."""

    target: int
    theta: float
    ranked: list[tuple[Any, Any, float]]  # (option, its Chances, value)


def certainty_equivalent(chances: Any, theta: float) -> float:
    """log E[exp(theta * final)] / theta of an option's exact final-score distribution (theta != 0),
    computed against the best score reached so it never overflows."""
    import math

    import numpy as np

    from ..strategy.turn import NEGLIGIBLE_SPREAD

    d = chances.dist
    x = d.scores.astype(float)
    reached = x[d.pmf > 0]
    ref = float(reached.max())
    if abs(theta) * (ref - float(reached.min())) < NEGLIGIBLE_SPREAD:  # the limit, the mean (see ce_mean)
        return float((d.pmf * x).sum() / d.pmf.sum())
    return ref + math.log(float((d.pmf * np.exp(theta * (x - ref))).sum())) / theta


def round_target(x: float) -> int:
    """A round score near x (a multiple of 10) for P(final >= T) when no target is given."""
    return int(round(x / 10.0)) * 10


def rank_by_risk(rules: R.RuleSet, column: R.Column, ev: Evaluation, theta: float, target: int | None,
                 top: int | None, say: Say | None = None) -> RiskRanking:
    """The exact chances of the options of `ev` (passes left out): with theta != 0 every option, ranked
    by certainty equivalent (the best `top`); with theta 0 the hint's best `top` (3 by default) by
    expected value. `target`: the score the chances are read at (default: a round score near the best
    option's median). NotExact when the rules have no exact distribution."""
    from ..solver import positions

    opts = [o for o in ev.options if not o.is_pass]
    picked = opts if theta != 0.0 else opts[: top or 3]
    chances = positions.chances(rules, column, ev.dice, ev.rolls_left, picked, theta, None, say=say)
    if theta != 0.0:
        scored = sorted(((certainty_equivalent(c, theta), o, c) for o, c in zip(picked, chances, strict=True)),
                        key=lambda t: -t[0])
        ranked = [(o, c, v) for v, o, c in scored][: top or len(scored)]
    else:
        ranked = [(o, c, o.value) for o, c in zip(picked, chances, strict=True)]
    t = target if target is not None else round_target(ranked[0][1].dist.percentile(50))
    return RiskRanking(t, theta, ranked)


EXACT_SECONDS = 3.0  # exact play for a score or a win where its estimated time is at most this (one core)


@dataclass(frozen=True)
class TargetPlay:
    """The best way to reach a score (or, `play_to_win`, to win) from a position. `method` "exact":
    every option valued by exact play maximising E[u(final)] (solver.utility), `ranked` best first,
    theta None, by_theta empty. "risk_strategies": for each risk strategy theta of the cached grid
    (those the rules' scores allow), the option with the best exact chance when playing on by theta
    (`by_theta`), and `ranked` every option at its best theta (`thetas`, the first of equals), best
    first. "estimated" (play.estimated_play): the best options by expected score, each valued by
    `games` games played on after it, `se` their standard errors. `best`: (value, theta, option),
    the first of `ranked`."""

    target: int
    by_theta: list[tuple[float, Any, float]]  # (theta, option, probability)
    best: tuple[float, float | None, Any]  # (probability, theta, option)
    method: str = "risk_strategies"
    ranked: list[tuple[Any, float]] = field(default_factory=list)  # (option, value), best first
    seconds: float = 0.0  # the estimated time of exact play (one core), whichever method ran
    thetas: list[float | None] = field(default_factory=list)  # by `ranked`: the strategy to play on by
    se: list[float] = field(default_factory=list)  # "estimated": by `ranked`, each value's standard error
    games: int = 0  # "estimated": the games played on after each option


def _value(dist: Any, u: Any) -> float:
    """E[u(final)] of a final-score distribution (u[s] for s = 0 .. len(u) - 1, u[-1] beyond)."""
    import numpy as np

    hi = len(u) - 1
    idx = np.minimum(dist.scores, hi)
    return float(np.dot(dist.pmf, np.where(idx >= 0, u[np.maximum(idx, 0)], u[0])))


def play_for_utility(rules: R.RuleSet, column: R.Column, ev: Evaluation, u: Any, say: Say | None = None,
                     exact: bool | None = None, step: bool = False) -> TargetPlay:
    """Maximise E[u(final)] from the position of `ev`: exactly (solver.utility) where its estimated time
    is at most EXACT_SECONDS (or `exact` says so), else over the risk strategies of
    solver.distribution.THETA_GRID (the first best on ties). `step`: u is 0 below its last cell and 1
    from there (a target: only P(final >= it) is computed). NotExact without an exact distribution."""
    from ..errors import NotExact
    from ..solver import distribution as D
    from ..solver import positions, utility
    from ..strategy.choice import max_risk
    from ..strategy.sources import raw_points

    opts = [o for o in ev.options if not o.is_pass]
    hi = len(u) - 1
    seconds = float("inf")
    if hi <= raw_points(rules, column) or float(u.min()) == float(u.max()):
        # u is the same for every total still possible: answered at once (the risk strategies' shortcut)
        exact, step = False, True
    else:
        try:
            seconds = utility.cost(rules, column, hi)
        except NotExact:
            exact = False
    if exact if exact is not None else seconds <= EXACT_SECONDS:
        vals = utility.option_values(rules, column, ev.dice, ev.rolls_left, opts, u)
        order = sorted(range(len(opts)), key=lambda i: (-vals[i], i))
        ranked = [(opts[i], vals[i]) for i in order]
        return TargetPlay(hi, [], (ranked[0][1], None, ranked[0][0]), "exact", ranked, seconds, [None] * len(ranked))
    grid = [t for t in D.THETA_GRID if abs(t) <= max_risk(rules)]  # those the rules' scores allow (0 always)
    by_theta: list[tuple[float, Any, float]] = []
    own: list[tuple[float, float]] = []  # each option's best (value, theta): the first theta on ties
    for theta in grid:
        ch = positions.chances(rules, column, ev.dice, ev.rolls_left, opts, theta, hi if step else None, say=say)
        vals = [_value(c.dist, u) for c in ch]
        k = max(range(len(opts)), key=lambda i: (vals[i], -i))
        by_theta.append((theta, opts[k], vals[k]))
        own = [(v, theta) for v in vals] if not own else [
            (v, theta) if v > was[0] else was for v, was in zip(vals, own, strict=True)]
    order = sorted(range(len(opts)), key=lambda i: (-own[i][0], grid.index(own[i][1]), i))
    ranked = [(opts[i], own[i][0]) for i in order]
    thetas: list[float | None] = [own[i][1] for i in order]
    best = (ranked[0][1], thetas[0], ranked[0][0])
    return TargetPlay(hi, by_theta, best, "risk_strategies", ranked, seconds, thetas)


def play_for_target(rules: R.RuleSet, column: R.Column, ev: Evaluation, target: int,
                    say: Say | None = None, exact: bool | None = None) -> TargetPlay:
    """Maximise P(final >= target) from the position of `ev` (play_for_utility with u = [final >=
    target]). NotExact without an exact distribution."""
    import numpy as np

    if target <= 0:
        u = np.ones(1)
    elif target > rules.score_bound:  # out of reach: no vector as long as the target
        u = np.zeros(1)
    else:
        u = np.zeros(target + 1)
        u[target] = 1.0
    got = play_for_utility(rules, column, ev, u, say, exact, step=True)
    return replace(got, target=target)


def play_to_win(rules: R.RuleSet, column: R.Column, ev: Evaluation, opponents: Sequence[Any],
                say: Say | None = None, exact: bool | None = None) -> TargetPlay:
    """Maximise the expected share of first place (P(win) + P(tie) / players tied) from the position of
    `ev` against opponents whose final scores follow these independent pmfs (solver.pmf.Distribution),
    ties shared as the rules have them (a tie stands). `target` of the result: the total from which
    the player is sure to be alone on top."""
    from ..solver.winning import share_of_first

    hi = max(d.lo + len(d.pmf) for d in opponents)  # above every opponent's best
    return play_for_utility(rules, column, ev, share_of_first(opponents, hi), say, exact)
