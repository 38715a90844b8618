"""The one place that decides how a rule set is played and valued: from its exact table, or
approximately. Pure (no numpy): hints ask it before loading anything heavy, the solver asks it before
building, simulate asks it to label `optimal`.

* "exact": single-column rule sets whose turn-start states fit (`MAX_EXACT_STATES`), without saved
  rolls: the exact table of the rules themselves;
* "columns": multi-column sheets whose columns share their fill rule and whose single column has an
  exact table: each column valued by that table (approximate: it ignores that a roll may go to
  whichever column suits it best);
* "saved": rules with saved rolls once an exact saved-rolls table is built (yahtzee_cli.solver.saved),
  or before, where that table builds in about a minute or less (`AUTO_SAVED_MINUTES`: a 5-dice
  sheet's): then the first use builds it;
* "fitted": rules with saved rolls without one, where a model of that table's values by stock of
  saved rolls ships or was fitted (yahtzee_cli.solver.saved_fit: Maxi Yatzy), the turn played exactly
  on it;
* "heuristic": anything else (e.g. saved rolls on other sheets): an additive value to go fitted by
  self-play (yahtzee_cli.solver.approx).

The size of an exact table is its state space's (strategy.space): a column's turn-start states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sized
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ..errors import RiskError
from ..limits import human_bytes, memory_budget
from ..rules.engine import RuleSet
from .space import state_space

MAX_EXACT_BOXES = 24  # the solver indexes rows by a 2**boxes mask table
# (mask, y, u) cells of an exact table: Maxi Yatzy's 2**20 x 85 (89 million) fit, built in minutes
MAX_EXACT_STATES = 1 << 27
BUILD_BYTES_PER_STATE = 24  # the build's float64 values, second moments and the sorted copy

Strategy = Literal["exact", "columns", "heuristic", "saved", "fitted"]
MAX_DIST_STATES = 1 << 23  # exact score distributions keep a pmf per state: larger tables (Maxi Yatzy) have none


def exact_reason(rules: RuleSet) -> str | None:
    """Why the rule set has no exact table (None when it has one)."""
    s = rules.settings
    if s.columns != 1:
        return f"{s.columns} columns"
    if s.saved_rolls:
        return "saved rolls"
    if len(rules.boxes) > MAX_EXACT_BOXES:
        return f"{len(rules.boxes)} boxes"
    states = state_space(rules).states
    if states > MAX_EXACT_STATES:
        return f"{len(rules.boxes)} boxes, {rules.dice} dice: too many states"
    need, budget = states * BUILD_BYTES_PER_STATE, memory_budget()
    if need > budget:
        return f"its exact table needs {human_bytes(need)} to build, and this machine gives {human_bytes(budget)}"
    return None


def single_column(rules: RuleSet, column: int = 0) -> RuleSet:
    """The same rules on a one-column sheet (what column number `column` of a multi-column sheet plays)."""
    if rules.settings.columns == 1:
        return rules
    data = rules.model_dump()
    fill = rules.settings.fills[column]
    data["settings"] = {**data["settings"], "columns": 1, "column_multipliers": None, "add_columns": True,
                        "fill_in_order": fill == "down", "column_fill": None if fill != "up" else ("up",)}
    return RuleSet.model_validate(data)


def same_fill(rules: RuleSet) -> bool:
    """Whether every column is filled by the same rule (then one single-column table serves them all)."""
    return len(set(rules.settings.fills)) == 1


class Plan(NamedTuple):
    """How `rules` is valued: `strategy`, the rules whose exact table it reads (`table_rules`: the
    rules themselves, their single column, or None) and why it is not exact (`why`, None when exact)."""

    rules: RuleSet
    strategy: Strategy
    table_rules: RuleSet | None
    why: str | None

    @property
    def exact(self) -> bool:
        return self.strategy == "exact"

    @property
    def by_stock(self) -> bool:
        """Played on values by stock of saved rolls (solver.saved.play_with): an exact saved-rolls
        table ("saved") or a model fitted to one ("fitted"); table_rules are its capped rules."""
        return self.strategy in ("saved", "fitted") and self.table_rules is not None


def plan(rules: RuleSet) -> Plan:
    """How `rules` is played: their exact table; with saved rolls, the exact saved-rolls table once one
    is built, or one quick to build (strategy "saved", table_rules its capped rules), else values
    fitted to one where they ship ("fitted"); else approximate_plan's answer."""
    if rules.settings.saved_rolls:
        capped = saved_table_rules(rules)
        if capped is not None:
            return Plan(rules, "saved", capped, exact_reason(rules))
        fitted = fitted_saved_rules(rules)
        if fitted is not None:
            return Plan(rules, "fitted", fitted, exact_reason(rules))
        quick = fit_rules(rules)
        if quick_to_build(quick):
            return Plan(rules, "saved", quick, exact_reason(rules))
    return approximate_plan(rules)


# A saved-rolls table estimated to build in at most this many minutes on 2 cores is built the first
# time the rules are played, instead of fitting the self-play heuristic, which takes nearly as long
# (Yatzy with saved rolls, a first hint on 2 cores: the table with at most 24 saved rolls 27 s on a
# fresh install and 14 s with the kernels compiled, against the heuristic's 20-23 s and 14 s)
AUTO_SAVED_MINUTES = 1.0


def saved_reason(rules: RuleSet) -> str | None:
    """Why the rule set has no exact saved-rolls table (None when it can have one)."""
    from .saved_cost import without_saved

    s = rules.settings
    if not s.saved_rolls:
        return "no saved rolls"
    if s.saved_rolls_cap is None:
        return "saved rolls without a cap (set saved_rolls_cap=K for the exact game with at most K saved)"
    if not s.must_zero:
        return "saved rolls with passes (must_zero off)"
    return exact_reason(without_saved(rules))


def quick_to_build(table_rules: RuleSet) -> bool:
    """Whether the saved-rolls table of these capped rules can be built and builds within
    AUTO_SAVED_MINUTES (saved_cost's estimate)."""
    from .saved_cost import build_minutes

    return saved_reason(table_rules) is None and build_minutes(table_rules) <= AUTO_SAVED_MINUTES


def approximate_plan(rules: RuleSet) -> Plan:
    """plan without the saved-rolls tables: the exact table, or the approximate strategy ("columns",
    whose table_rules is the single column's, or "heuristic") that solver.approx fits."""
    why = exact_reason(rules)
    if why is None:
        return Plan(rules, "exact", rules, None)
    if rules.settings.columns > 1 and same_fill(rules):  # one exact table values every column alike
        one = single_column(rules)
        if exact_reason(one) is None:
            return Plan(rules, "columns", one, why)
    return Plan(rules, "heuristic", None, why)


def fitted_for(rules: RuleSet, header: Mapping[str, Any], arrays: Mapping[str, Sized]) -> bool:
    """Whether a cached approximate strategy (its header and arrays) is of the kind and shape this
    version plays `rules` with: not one an earlier version fitted otherwise (another strategy, one
    value per box, columns without their weight and levels). Pure: hints ask it without numpy."""
    nb = len(rules.boxes)
    kind = header.get("strategy")
    if kind != approximate_plan(rules).strategy:
        return False
    if kind == "heuristic":
        return len(arrays.get("h", ())) == (nb + 1) * nb
    if kind == "columns":
        return "scale" in header and len(header.get("levels", ())) == rules.settings.columns * nb + 1
    return True


# --------------------------------------------------------------------------- risk parameters

# Risk strategies maximise E[exp(theta * final score)]: values are exponentials of theta times scores
# from 0 to the rule set's best total. Where |theta| * best is below NEGLIGIBLE_RISK, no value moves by
# a millionth of a point, and theta is 0 (the expected-score table, exactly); above MAX_RISK_EXPONENT
# the exponentials leave what a float64 holds (exp(709.8)), and theta is refused.
NEGLIGIBLE_RISK = 1e-6
MAX_RISK_EXPONENT = 700.0


def max_risk(rules: RuleSet) -> float:
    """The largest |theta| the rule set's scores allow: MAX_RISK_EXPONENT / its best total."""
    return MAX_RISK_EXPONENT / max(rules.theoretical_max, 1)


def effective_theta(rules: RuleSet, theta: float) -> float:
    """theta as every risk strategy uses it: 0.0 when it is too small to change anything (so the plain
    expected-score table serves it), RiskError (one line, the valid range) when exp(theta * score)
    would overflow or theta is not a number."""
    import math

    top = max(rules.theoretical_max, 1)
    if not math.isfinite(theta):
        raise RiskError(f"theta must be a number from {-max_risk(rules):.4g} to {max_risk(rules):.4g}, got {theta}")
    if abs(theta) * top < NEGLIGIBLE_RISK:
        return 0.0
    if abs(theta) * top > MAX_RISK_EXPONENT * (1 + 1e-3):  # the bound as shown (4 digits) is accepted
        raise RiskError(f"theta must be from {-max_risk(rules):.4g} to {max_risk(rules):.4g} for {rules.name} "
                        f"(scores up to {top:,}: exp(theta * score) must fit a float; useful values are a few "
                        f"hundredths), got {theta:g}")
    return theta


# --------------------------------------------------------------------------- saved rolls

_capped_variants: dict[str, list[RuleSet]] = {}


def capped(rules: RuleSet, cap: int) -> RuleSet:
    """The same rules with at most `cap` rolls saved."""
    data = rules.model_dump()
    return RuleSet.model_validate({**data, "settings": {**data["settings"], "saved_rolls_cap": cap}})


def solved_saved_rules(rules: RuleSet, p: Plan) -> RuleSet | None:
    """The rules whose saved-rolls table `solve` reports for `rules` (p their plan): capped rules their
    own (built when asked), the uncapped game the largest cap built; None when no such table applies."""
    if rules.settings.saved_rolls_cap is not None:
        return rules
    return p.table_rules if p.strategy == "saved" else None


# The cap of the exact table suggested for a game with saved rolls and no cap, and of the table the
# shipped fit is made from: each saved roll of cap beyond it adds under 0.01 points (docs/strategy.md)
DEFAULT_SAVED_CAP = 24


def fit_rules(rules: RuleSet) -> RuleSet:
    """The capped rules a model of values by stock (solver.saved_fit) is fitted for: the rules' own cap,
    or DEFAULT_SAVED_CAP for the game without one (a stock above it counts as the cap)."""
    return rules if rules.settings.saved_rolls_cap is not None else capped(rules, DEFAULT_SAVED_CAP)


def fitted_path(rules: RuleSet) -> Path:
    """Where the cache keeps the values by stock fitted for `rules` (fit_rules(rules)'s)."""
    from ..store import tablefile
    from ..store.kinds import SAVED_FIT

    return SAVED_FIT.path(tablefile.cache_dir(), fit_rules(rules).fingerprint)


def fitted_saved_rules(rules: RuleSet) -> RuleSet | None:
    """fit_rules(rules) when a fitted model for them is in the cache or ships with the package, else
    None. Pure: it only looks for the file."""
    from ..store.prebuilt import DATA, SUFFIX

    path = fitted_path(rules)
    if path.exists() or (DATA / f"{path.name}{SUFFIX}").exists():
        return fit_rules(rules)
    return None


def saved_table_rules(rules: RuleSet) -> RuleSet | None:
    """The rules whose exact saved-rolls table plays `rules` (solver.saved), None while none is built:
    capped rules, their own; the uncapped game, the largest cap built (its value a lower bound of the
    game's). Pure: it only looks for the finished tables' headers in the cache."""
    import orjson

    from ..rules.engine import MAX_SAVED_ROLLS_CAP
    from ..store import tablefile
    from ..store.kinds import SAVED

    if rules.settings.saved_rolls_cap is not None:
        candidates = [rules]
    else:
        candidates = _capped_variants.get(rules.fingerprint) or []
        if not candidates:
            candidates = [capped(rules, k) for k in range(MAX_SAVED_ROLLS_CAP, -1, -1)]
            _capped_variants[rules.fingerprint] = candidates
    cache = tablefile.cache_dir()
    for r in candidates:
        head = SAVED.paths(cache, r.fingerprint)[1]  # (the header says whether it is finished)
        try:
            if orjson.loads(head.read_bytes()).get("complete"):
                return r
        except (OSError, ValueError, AttributeError):
            continue
    return None
