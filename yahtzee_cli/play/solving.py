"""Solving a rule set (`api.solve`, `yahtzee solve`): its optimal strategy built or loaded, and what it
scores. Exact rule sets answer from their table (and, when asked, the exact final-score distribution),
saved rolls with a cap from the capped game's table, a risk parameter from its risk table, the others
approximately (the simulated mean of the labelled approximate strategy).

Options are named as `yahtzee solve` names them, and so are the messages of the requests it refuses."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadRequest, Interrupted, NotExact, RiskError
from ..store.artifact import using_cache

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

Say = Callable[[str], None]
Stage = Callable[[str], None]  # the name of the long work starting (what a progress display shows)

SOLVE_CSV_HEAD = ["rules", "fingerprint", "exact", "approximation", "expected", "sd", "risk", "objective",
                  "certainty_equivalent", "states", "games", "built", "seconds", "path"]


@dataclass(frozen=True)
class SolveOptions:
    """What to solve beyond the expected score: `rebuild` the table even when stored, the exact
    `distribution` of the final score (with P(final >= `target`) among its chances, drawn into `plot`),
    the strategy of `risk` theta instead of the mean."""

    rebuild: bool = False
    distribution: bool = False
    risk: float | None = None
    target: int | None = None
    plot: Path | None = None


@dataclass(frozen=True)
class Solution:
    """What optimal play scores on a rule set: exactly (from its exact table) or approximately (the
    simulated mean of the labelled approximate strategy, and `why` there is no exact table). `record`:
    everything known of the solve as one JSON record (`yahtzee solve --json`), `row` its figures under
    SOLVE_CSV_HEAD, `lines` the same for people."""

    rules: RuleSet
    exact: bool
    expected: float
    sd: float
    strategy: str  # "exact", "columns", "heuristic", "saved" or "fitted" (strategy.choice)
    why: str | None = None
    record: dict[str, Any] = field(default_factory=dict)
    row: list[Any] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    advice: str | None = None  # rules with saved rolls played approximately: how to build their exact table


def risk_theta(rules: RuleSet, risk: float | None) -> float | None:
    """--risk as the rule set's scores make it meaningful (strategy.choice.effective_theta): None when it
    is too small to change anything (the plain table answers, as without --risk); RiskError naming the
    valid range when exp(theta * score) would overflow."""
    if risk is None:
        return None
    from ..strategy.choice import effective_theta

    try:
        return effective_theta(rules, risk) or None
    except RiskError as exc:
        raise RiskError("{risk}: " + str(exc), options=("risk",)) from None


def check_plot(plot: Path | None, distribution: bool) -> None:
    """--plot draws the exact distribution: it needs --distribution, a drawable file and the plot extra."""
    if plot is None:
        return
    if not distribution:
        raise BadRequest("{plot} draws the distribution of the final score: add {distribution}",
                         options=("plot", "distribution"))
    from ..formats.plot import check_plot_target

    check_plot_target(plot)


def plot_distribution(plot: Path | None, series: list[tuple[str, Any]], target: int | None, title: str,
                      say: Say | None) -> None:
    if plot is not None:
        from ..formats.plot import distribution_figure

        distribution_figure(series, plot, target=target, title=title)
        if say is not None:
            say(f"wrote {plot}")


def _solved(rules: RuleSet, rec: dict[str, Any], lines: list[str], strategy: str, why: str | None = None,
            sd: float | None = None) -> Solution:
    """The Solution of a solve's record: its CSV row names the rules by name and fingerprint (the
    distribution's pmf is JSON's alone); a field that does not apply is empty."""
    row = {**rec, "rules": rec["rules"]["name"], "fingerprint": rec["rules"]["fingerprint"]}
    expected = rec["certainty_equivalent"] if rec.get("expected") is None else rec["expected"]
    return Solution(rules, bool(rec["exact"]), float(expected), float("nan") if sd is None else sd, strategy, why,
                    {"type": "solve", **rec}, [row.get(k) for k in SOLVE_CSV_HEAD], lines)


def solve(rules: RuleSet, options: SolveOptions | None = None, say: Say | None = None,
          stage: Stage | None = None) -> Solution:
    """Build (once; stored after that) the rule set's optimal strategy and report what it scores."""
    from ..strategy.choice import plan, solved_saved_rules

    o = options or SolveOptions()
    check_plot(o.plot, o.distribution)
    theta = risk_theta(rules, o.risk)
    if theta is not None:
        return _risk_solve(rules, theta, o, say, stage)
    start = time.perf_counter()
    p = plan(rules)
    table_rules = solved_saved_rules(rules, p)
    if table_rules is not None:
        return _saved_solve(rules, table_rules, o, start, say, stage)
    if stage is not None:
        stage(f"solving {rules.name}")
    info: dict[str, Any] | None = None
    with using_cache():
        if p.exact:
            from ..solver.exact import get_table

            tab, built = get_table(rules, say, rebuild=o.rebuild)
        elif p.strategy == "fitted":  # values by stock fitted to a saved-rolls table: measured when fitted
            from ..solver import saved_fit

            info = saved_fit.info(rules)
        if not p.exact and info is None:
            from ..solver import approx

            info = approx.prepare(rules, say, rebuild=o.rebuild)
    if not p.exact:
        assert info is not None
        if o.distribution and say is not None:
            say("warning: no exact table for these rules, so no exact distribution (simulate shows a sampled one)")
        from dataclasses import replace

        from .hint import saved_rolls_advice

        sol = _approximate(rules, info, p.strategy, p.why, o.risk, time.perf_counter() - start)
        return replace(sol, advice=saved_rolls_advice(rules))
    dist = dist_built = None
    too_big = None  # the exact expected score stands; why there is no exact distribution
    if o.distribution:
        from ..solver.distribution import check_size

        try:
            check_size(rules)
        except NotExact as exc:
            too_big = str(exc)
    if o.distribution and too_big is None:
        from ..solver.distribution import get_distribution

        if stage is not None:
            stage(f"distribution of {rules.name}")
        with using_cache():
            dist, dist_built = get_distribution(rules, 0.0, say, rebuild=o.rebuild)
    elif too_big is not None and say is not None:
        say(f"warning: no exact distribution: {too_big}")
    return _exact(rules, tab, built, dist, dist_built, o, time.perf_counter() - start, say)


def _exact(rules: RuleSet, tab: Any, built: bool, dist: Any, dist_built: Any, o: SolveOptions, seconds: float,
           say: Say | None) -> Solution:
    from ..store import tablefile
    from .report import distribution_lines, summary, targets

    path = tablefile.table_path(tab.fingerprint)
    stored = path.exists()  # not when the cache directory cannot be written
    rec: dict[str, Any] = {
        "rules": rules.record(), "exact": True, "approximation": None, "expected": tab.mean, "sd": tab.sd,
        "states": int(tab.meta.get("states", 0)), "table_bytes": path.stat().st_size if stored else None,
        "built": built, "build_seconds": round(tab.build_seconds, 3) if built else None,
        "seconds": round(seconds, 3), "path": str(path) if stored else None,
    }
    if dist is not None:
        rec["distribution"] = {**summary(dist, targets(dist, o.target)), "exact": True, "approximation": None,
                               "built": dist_built, "build_seconds": round(dist.seconds, 3) if dist_built else None}
        plot_distribution(o.plot, [(f"optimal play, mean {dist.mean:.2f}", rec["distribution"]["pmf"])], o.target,
                          f"{rules.name}: final score under optimal play (exact)", say)
    _negligible_risk(rec, o.risk)
    lines = [f"{rules.name}: expected score {tab.mean:.7f}, SD {tab.sd:.4f} (exact, optimal play)"]
    if o.risk:
        lines.append(f"risk theta {o.risk:g} is too small to change any choice: optimal play serves it, and its "
                     f"certainty equivalent is the expected score, {tab.mean:.4f}")
    how = f"built in {tab.build_seconds:.2f} s" if built else "loaded from the cache"
    lines.append(f"{rec['states']:,} turn-start states, {how}: {path if stored else 'not cached'}")
    if dist is not None:
        lines += distribution_lines(dist, targets(dist, o.target))
    return _solved(rules, rec, lines, "exact", sd=tab.sd)


def _approximate(rules: RuleSet, info: dict[str, Any], strategy: str, why: str | None, asked: float | None,
                 seconds: float) -> Solution:
    rec: dict[str, Any] = {"rules": rules.record(), "exact": False,
                           "approximation": f"{info['strategy']} ({info['why']})", "expected": info["mean"],
                           "sd": info["sd"], "games": info["games"], "seconds": round(seconds, 3),
                           "path": info["path"]}
    _negligible_risk(rec, asked)
    lines = [f"{rules.name}: expected score about {info['mean']:.2f}, SD {info['sd']:.2f} (approximate strategy: "
             f"{info['strategy']}; mean of {info['games']:,} simulated games)",
             f"no exact table for these rules ({info['why']}); cached: {info['path'] or 'nothing'}"]
    return _solved(rules, rec, lines, strategy, why, sd=float(info["sd"]))


def _negligible_risk(rec: dict[str, Any], asked: float | None) -> None:
    """A --risk too small to change play (served by the plain table): the record still names it, with the
    certainty equivalent at its limit, the mean (log E[exp(theta X)] / theta -> E[X] as theta -> 0)."""
    if asked:
        from .simulate import objective, risk_name

        rec.update(risk=asked, objective=objective(risk_name(asked)), certainty_equivalent=rec["expected"])


def _risk_solve(rules: RuleSet, theta: float, o: SolveOptions, say: Say | None, stage: Stage | None) -> Solution:
    from ..solver.distribution import get_distribution, get_risk_table
    from .report import distribution_lines, summary, targets
    from .simulate import objective, risk_name

    start = time.perf_counter()
    if stage is not None:
        stage(f"solving {rules.name} for theta {theta:g}")
    try:
        with using_cache():
            tab = get_risk_table(rules, theta, say, rebuild=o.rebuild)
            d = get_distribution(rules, theta, say, rebuild=o.rebuild)[0] if o.distribution else None
    except NotExact as exc:
        raise NotExact("{risk} needs an exact table: " + str(exc), options=("risk",)) from None
    goal = objective(risk_name(theta))
    rec: dict[str, Any] = {"rules": rules.record(), "exact": True, "approximation": None,
                           "risk": theta, "objective": goal, "certainty_equivalent": tab.mean,
                           "seconds": round(time.perf_counter() - start, 3)}
    if d is not None:
        rec["expected"] = d.mean
        rec["sd"] = d.sd
        rec["distribution"] = summary(d, targets(d, o.target))
        plot_distribution(o.plot, [(f"theta {theta:g}, mean {d.mean:.2f}", rec["distribution"]["pmf"])], o.target,
                          f"{rules.name}: final score under the risk strategy theta {theta:g}", say)
    lines = [f"{rules.name}, risk strategy theta {theta:g} ({goal})",
             f"certainty equivalent {tab.mean:.4f} (log E[exp(theta * score)] / theta, exact)"]
    if d is not None:
        lines += distribution_lines(d, targets(d, o.target))
    else:
        lines.append("add --distribution for its mean, SD and chances of reaching a score")
    return _solved(rules, rec, lines, "exact", sd=None if d is None else d.sd)


def _saved_solve(rules: RuleSet, table_rules: RuleSet, o: SolveOptions, start: float, say: Say | None,
                 stage: Stage | None) -> Solution:
    """solve with saved_rolls_cap: the exact capped game's table (solver.saved), built or finished; for
    the uncapped game (rules), the table of the largest cap built (table_rules), which plays it."""
    from ..solver import saved
    from ..strategy.choice import saved_reason

    why = saved_reason(table_rules)
    if why is not None:
        raise BadRequest(f"no exact table with saved_rolls_cap for {rules.name}: {why}")
    if o.distribution and say is not None:
        say("warning: no exact distribution with saved rolls (simulate shows a sampled one)")
    if stage is not None:
        stage(f"building {rules.name}")
    try:
        with using_cache():
            tab, built = saved.get_table(table_rules, say, rebuild=o.rebuild)
    except KeyboardInterrupt:
        kept = saved.progress_done(table_rules)
        what = f"{kept[0]} of {kept[1]} layers are kept" if kept else "nothing was finished"
        raise Interrupted(f"interrupted: {what}; the same command goes on from there") from None
    except NotExact as exc:
        raise BadRequest(str(exc)) from None
    cap = table_rules.settings.saved_cap
    rec: dict[str, Any] = {
        "rules": rules.record(), "exact": True, "approximation": None, "saved_rolls_cap": cap,
        "expected": round(tab.mean, 7), "sd": None, "states": tab.states, "table_bytes": tab.path.stat().st_size,
        "built": built, "build_seconds": round(tab.build_seconds, 3) if built else None,
        "seconds": round(time.perf_counter() - start, 3), "path": str(tab.path),
    }
    lines = [f"{rules.name}: expected score {tab.mean:.7f} (exact, optimal play with at most {cap} saved rolls; "
             f"float32 table, to within 1e-4)"]
    if rules.settings.saved_rolls_cap is None:
        lines.append(f"without a cap on saved rolls, {rules.name} is played by this table, the largest cap built: "
                     f"its value is a lower bound of the uncapped game's")
    how = f"built in {tab.build_seconds / 60:.1f} min" if built else "loaded from the cache"
    lines.append(f"{tab.states:,} turn-start states, {how}: {tab.path}")
    sol = _solved(rules, rec, lines, "saved")
    from dataclasses import replace

    return replace(sol, expected=tab.mean)
