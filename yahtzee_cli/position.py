"""Values of every decision in a position, from a stored strategy table: what `hint` shows and what
`replay --analyze` grades against. Pure Python (no numpy, no numba), so a hint starts fast.

A position is a player's sheet (one rules.Column per column), the dice showing, the rolls left this
turn and the rolls saved (saved_rolls). Every value is an expected final grand total of the sheet
(points already written included). Legality, scores and bonuses come from the rules module
(rules.options, rules.may_pass); the value of the states they lead to from a `Source`:

* exact: the single column's exact table (yahtzee_cli.solver), when the rule set has one;
* approximate, multi-column sheets: each column valued by the exact single-column table;
* approximate, rule sets without one (maxi-yatzy, saved rolls): the additive heuristic of
  yahtzee_cli.approx.
Approximate values are labelled (`exact` false) and come from a one-turn lookahead on that value.

Within the turn: V0[r] = best (column, box) of the final roll r (or a pass); with j rolls left,
keeping k is worth E_j[k] = mean over the rerolled dice of V_{j-1}, and
V_j[r] = max(stop now, best proper keep of r). Stopping with j rolls left is the keep of every die.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from . import rules as R

Counts = tuple[int, ...]
PASS_COST = 1e-6  # play_kernel.PASS_COST: passing loses ties against scoring (must_zero off)


class PositionError(ValueError):
    """A position that cannot be evaluated (wrong dice, full sheet, rolls left out of range)."""


# --------------------------------------------------------------------------- dice combinatorics


@dataclass(frozen=True)
class Keeps:
    """Keeps (sub-multisets of a roll, as face counts) of n dice, by size, with add/drop links."""

    n: int
    counts: list[Counts]
    index: dict[Counts, int]
    size: list[int]
    add: list[list[int]]  # keep + one die of each face (empty for full keeps)
    drop: list[list[int]]  # keep - one die of a face it holds
    rolls: list[int]  # keep indices of the full rolls
    dice: list[tuple[int, ...]]  # each keep as sorted dice


@cache
def keeps(n: int) -> Keeps:
    counts: list[Counts] = []
    for size in range(n + 1):
        for combo in itertools.combinations_with_replacement(range(6), size):
            counts.append(tuple(combo.count(f) for f in range(6)))
    index = {c: i for i, c in enumerate(counts)}
    sizes = [sum(c) for c in counts]
    add: list[list[int]] = []
    drop: list[list[int]] = []
    for c in counts:
        a: list[int] = []
        d: list[int] = []
        for f in range(6):
            if sum(c) < n:
                up = list(c)
                up[f] += 1
                a.append(index[tuple(up)])
            if c[f]:
                down = list(c)
                down[f] -= 1
                d.append(index[tuple(down)])
        add.append(a)
        drop.append(d)
    rolls = [i for i, s in enumerate(sizes) if s == n]
    return Keeps(n, counts, index, sizes, add, drop, rolls, [tuple(dice_of(c)) for c in counts])


def counts_of(dice: Sequence[int]) -> Counts:
    return tuple(sum(1 for d in dice if d == f) for f in R.FACES)


def dice_of(counts: Counts) -> list[int]:
    return [f + 1 for f in range(6) for _ in range(counts[f])]


# --------------------------------------------------------------------------- value sources


@dataclass(frozen=True)
class ColumnState:
    """What a column's value to go depends on: filled boxes, upper total, Yahtzee box holding its
    full points (so later Yahtzees earn the extra bonus)."""

    mask: int
    upper: int
    yfull: bool


def column_state(rules: R.RuleSet, column: R.Column) -> ColumnState:
    upper = sum(column.scores[i] or 0 for i in rules.upper_indices)
    y = rules.yahtzee_index
    yfull = y is not None and column.scores[y] is not None and column.scores[y] == rules.boxes[y].points
    return ColumnState(column.filled_mask, upper, yfull)


def raw_points(rules: R.RuleSet, column: R.Column) -> int:
    """Points written in a column without the upper bonus (the value to go pays that at the end)."""
    return sum(s or 0 for s in column.scores) + column.yahtzee_bonus


class Source:
    """The value to go of a column at a turn start (upper bonus included)."""

    exact: bool = False
    saved_value: float = 0.0  # value of one saved roll (saved_rolls)
    label: str = ""
    theta: float = 0.0  # 0: values are expected scores; else certainty equivalents (see risk_source)

    def value(self, state: ColumnState) -> float:
        raise NotImplementedError


class TableSource(Source):
    """A column's exact table (see yahtzee_cli.solver.Table), read from the cache file's arrays."""

    def __init__(self, header: dict[str, Any], arrays: dict[str, Any], exact: bool) -> None:
        self.masks = arrays["masks"]
        self.W = arrays["W"]
        self.t = int(header["t"])
        self.nyt = int(header["nyt"])
        self.width = self.nyt * (self.t + 1)
        self.dense = len(self.masks) == 1 << int(header["nb"])
        self.exact = exact
        self.mean = float(header["mean"])
        self.label = "exact table" if exact else "columns valued by the exact single-column table"

    def row(self, mask: int) -> int:
        if self.dense:
            return mask
        i = bisect_left(self.masks, mask)
        if i >= len(self.masks) or self.masks[i] != mask:
            raise PositionError("this combination of filled boxes cannot occur under these rules")
        return i

    def value(self, state: ColumnState) -> float:
        y = 1 if state.yfull and self.nyt == 2 else 0
        u = min(state.upper, self.t)
        return float(self.W[self.row(state.mask) * self.width + y * (self.t + 1) + u])


class HeuristicSource(Source):
    """Additive value to go: sum of h over open boxes + G[filled upper boxes][capped upper total] +
    (yh[open boxes] when the Yahtzee box holds its points); see yahtzee_cli.approx."""

    def __init__(self, rules: R.RuleSet, h: Sequence[float], G: Sequence[float], yh: Sequence[float], t: int,
                 saved_value: float) -> None:
        self.rules = rules
        self.h = list(h)
        self.G = G
        self.yh = list(yh)
        self.t = t
        self.saved_value = saved_value
        self.label = "heuristic value to go, fitted by self-play"

    def value(self, state: ColumnState) -> float:
        sub = 0
        for j, b in enumerate(self.rules.upper_indices):
            if state.mask >> b & 1:
                sub |= 1 << j
        u = min(state.upper, self.t)
        acc = float(self.G[sub * (self.t + 1) + u])
        n_open = 0
        for b in range(len(self.rules.boxes)):
            if not state.mask >> b & 1:
                acc += self.h[b]
                n_open += 1
        if state.yfull:
            acc += self.yh[n_open]
        return acc


def single_column(rules: R.RuleSet, column: int = 0) -> R.RuleSet:
    """The same rules on a one-column sheet (what column number `column` of a multi-column sheet plays)."""
    data = rules.model_dump()
    fill = rules.settings.fills[column]
    data["settings"] = {**data["settings"], "columns": 1, "column_multipliers": None, "add_columns": True,
                        "fill_in_order": fill == "down", "column_fill": None if fill != "up" else ("up",)}
    return R.RuleSet.model_validate(data)


def same_fill(rules: R.RuleSet) -> bool:
    """Whether every column is filled by the same rule (then one single-column table serves them all)."""
    return len(set(rules.settings.fills)) == 1


def has_exact_table(rules: R.RuleSet) -> bool:
    s = rules.settings
    return s.columns == 1 and not s.saved_rolls and len(rules.boxes) <= 24


def source_for(rules: R.RuleSet, say: Callable[[str], None] | None = None) -> Source:
    """The value source hints use for `rules`: its exact table, else an approximate one (built on
    first use, with a note to `say`; stored in the cache after that)."""
    if has_exact_table(rules) or (rules.settings.columns > 1 and same_fill(rules)
                                  and has_exact_table(single_column(rules))):
        one = rules if rules.settings.columns == 1 else single_column(rules)
        exact = rules.settings.columns == 1
        try:
            header, arrays = _read_exact(one, say)
            return TableSource(header, arrays, exact)
        except _TooBig:
            pass
    from . import approx

    return approx.source(rules, say)


def risk_source(rules: R.RuleSet, theta: float, say: Callable[[str], None] | None = None) -> Source:
    """The risk table of theta (yahtzee_cli.distribution.get_risk_table, built on first use) as a
    value source: values are certainty equivalents log E[exp(theta * rest)] / theta of the points
    still to come, and a Turn on it averages rerolls in that sense. theta = 0: source_for(rules).
    solver.NotExact (a ValueError) when the rule set has no exact risk table."""
    if theta == 0.0:
        return source_for(rules, say)
    from . import distribution

    tab = distribution.get_risk_table(rules, theta, say)
    header = {"t": tab.t, "nyt": tab.nyt, "nb": tab.nb, "mean": tab.mean}
    src = TableSource(header, {"masks": tab.masks.tolist(), "W": tab.W.ravel().tolist()}, True)
    src.theta = theta
    src.label = f"exact risk table for theta {theta:g}"
    return src


def ce_mean(values: Sequence[float], theta: float) -> float:
    """The certainty equivalent of equally likely values: log(mean(exp(theta * v))) / theta (the mean
    at theta = 0), computed relative to the largest exponent so nothing overflows."""
    if theta == 0.0:
        return sum(values) / len(values)
    a = max(theta * v for v in values)
    return (a + math.log(sum(math.exp(theta * v - a) for v in values) / len(values))) / theta


class _TooBig(Exception):
    pass


def _read_exact(rules: R.RuleSet, say: Callable[[str], None] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    from . import cache

    path = cache.table_path(rules.fingerprint)
    try:
        return cache.read(path, rules.fingerprint)
    except OSError:  # missing, or an unreadable cache directory: build it
        pass
    except cache.CorruptTable as exc:
        if say is not None:
            say(cache.ignored(exc))
    from . import solver

    try:
        solver.get_table(rules, say, rebuild=True)
    except solver.NotExact:
        raise _TooBig() from None
    return cache.read(path, rules.fingerprint)


# --------------------------------------------------------------------------- the turn


@dataclass(frozen=True)
class Choice:
    """One option of a position: a keep (dice held; all dice = stop rolling), a (column, box), or a pass."""

    value: float
    regret: float = 0.0
    keep: tuple[int, ...] | None = None
    box: int | None = None
    column: int = 0
    is_pass: bool = False
    score: int = 0
    bonus: int = 0

    def to_dict(self, rules: R.RuleSet, digits: int = 4) -> dict[str, Any]:
        out = self.move_dict(rules)
        out["value"] = round(self.value, digits)
        out["regret"] = round(self.regret, digits)
        return out

    def move_dict(self, rules: R.RuleSet) -> dict[str, Any]:
        """The move alone as JSON data: {"keep": [...]}, {"pass": true} or {"box", "column"?, "score", "bonus"?}."""
        out: dict[str, Any] = {}
        if self.keep is not None:
            out["keep"] = list(self.keep)
        elif self.is_pass:
            out["pass"] = True
        else:
            assert self.box is not None
            out["box"] = rules.keys[self.box]
            if rules.settings.columns > 1:
                out["column"] = self.column + 1
            out["score"] = self.score
            if self.bonus:
                out["bonus"] = self.bonus
        return out


@dataclass
class Evaluation:
    """Every option of a position, best first (ties keep a fixed order), with values and regrets."""

    rules: R.RuleSet
    dice: tuple[int, ...]
    rolls_left: int
    exact: bool
    options: list[Choice]
    source: str = ""

    @property
    def best(self) -> Choice:
        return self.options[0]

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        opts = self.options if top is None else self.options[:top]
        out: dict[str, Any] = {
            "rules": self.rules.record(), "dice": list(self.dice), "rolls_left": self.rolls_left, "exact": self.exact,
            "approximation": None if self.exact else self.source,
        }
        out["options"] = [o.to_dict(self.rules) for o in opts]
        return out

    def find_keep(self, kept: Sequence[int]) -> Choice:
        want = tuple(sorted(kept))
        for o in self.options:
            if o.keep == want:
                return o
        raise PositionError(f"{list(want)} is not a keep of the dice {list(self.dice)}")

    def find_box(self, box: int, column: int = 0) -> Choice:
        for o in self.options:
            if o.box == box and o.column == column and o.keep is None:
                return o
        raise PositionError(f"box {self.rules.keys[box]} is not a legal choice here")


@dataclass
class Turn:
    """The values of one turn of one position (sheet + saved rolls): computed once, then every roll
    and every decision of the turn is read off (the analyzer grades a whole turn with one Turn)."""

    rules: R.RuleSet
    columns: tuple[R.Column, ...]
    source: Source
    saved: int = 0
    _final: list[float] = field(default_factory=list)
    _stages: dict[int, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rules = self.rules
        if len(self.columns) != rules.settings.columns:
            raise PositionError(f"{rules.name} sheets have {rules.settings.columns} columns, got {len(self.columns)}")
        if all(c.is_full for c in self.columns):
            raise PositionError("the sheet is full: the game is over")
        self.kp = keeps(rules.dice)
        self.mult = rules.settings.multipliers
        self.states = [column_state(rules, c) for c in self.columns]
        self.raw = [raw_points(rules, c) for c in self.columns]
        self.fcur = [self.source.value(st) for st in self.states]
        self.col_values = [self.raw[c] + self.fcur[c] for c in range(len(self.columns))]
        self.base = self._sheet_value(self.col_values)
        self._next_cache: dict[tuple[int, int, int], float] = {}
        self._compute_final()

    def _sheet_value(self, col_values: Sequence[float]) -> float:
        # rules.weighted_total's arithmetic works on expected (float) column totals as well
        return float(R.weighted_total(list(col_values), list(self.mult), self.rules.settings.add_columns))  # type: ignore[arg-type]

    def _after(self, opt: R.Option) -> float:
        """Expected final total after writing `opt` (relative to the position's value)."""
        f2 = self._next_cache.get((opt.column, opt.box, opt.score))
        if f2 is None:
            f2 = self._next_value(opt.column, opt.box, opt.score)
        c = opt.column
        if self.rules.settings.add_columns:
            return self.mult[c] * (opt.score + opt.bonus + f2 - self.fcur[c])
        vals = list(self.col_values)
        vals[c] = self.raw[c] + opt.score + opt.bonus + f2
        return self._sheet_value(vals) - self.base

    def _options(self, dice: tuple[int, ...]) -> list[R.Option]:
        """rules.options(rules, columns, dice), by the rules module's per-roll context and box_score."""
        rules = self.rules
        y = rules.yahtzee_index
        out: list[R.Option] = []
        for c, col in enumerate(self.columns):
            ctx = R.roll_context(rules, dice, col.scores[y] if y is not None else None)
            filled = col.filled_mask
            for b in range(len(rules.boxes)):
                if filled >> b & 1:
                    continue
                score = R.box_score(rules, ctx, filled, b, dice, c)
                if score is not None:
                    out.append(R.Option(b, score, ctx.bonus, c, ctx.joker))
        return out

    def _roll_final(self, dice: tuple[int, ...]) -> float:
        """Best placement value of a final roll (relative to the position; a pass is -PASS_COST)."""
        rules = self.rules
        best = float("-inf")
        for c, filled, open_boxes, ys, m, fc in self._cols:
            ctx = R.roll_context(rules, dice, ys)
            for b in open_boxes:
                sc = R.box_score(rules, ctx, filled, b, dice, c)
                if sc is None:
                    continue
                key = (c, b, sc)
                f2 = self._next_cache.get(key)
                if f2 is None:
                    f2 = self._next_value(c, b, sc)
                if self._add:
                    v = m * (sc + ctx.bonus + f2 - fc)
                else:
                    vals = list(self.col_values)
                    vals[c] = self.raw[c] + sc + ctx.bonus + f2
                    v = self._sheet_value(vals) - self.base
                if v > best:
                    best = v
        if self._pass_possible and best < -PASS_COST and R.may_pass(rules, self._options(dice)):
            best = -PASS_COST  # a pass: the same position next turn (tie-break cost, see kernels)
        return best

    def _next_value(self, c: int, b: int, score: int) -> float:
        st = self.states[c]
        y = self.rules.yahtzee_index
        upper = st.upper + (score if self.rules.boxes[b].kind == "upper" else 0)
        yfull = st.yfull if b != y else score == self.rules.boxes[b].points
        f2 = self.source.value(ColumnState(st.mask | (1 << b), upper, yfull))
        self._next_cache[(c, b, score)] = f2
        return f2

    def _compute_final(self) -> None:
        rules = self.rules
        y = rules.yahtzee_index
        nb = len(rules.boxes)
        self._add = rules.settings.add_columns
        self._pass_possible = R.may_pass(rules, [])  # must_zero off (a scoring roll is checked per roll)
        self._cols = [(c, col.filled_mask, [b for b in range(nb) if col.scores[b] is None],
                       col.scores[y] if y is not None else None, self.mult[c], self.fcur[c])
                      for c, col in enumerate(self.columns)]
        kp = self.kp
        final = [0.0] * len(kp.counts)
        dice_of_keep = kp.dice
        for k in kp.rolls:
            final[k] = self._roll_final(dice_of_keep[k])
        self._final = final

    def stage(self, j: int) -> list[float]:
        """E_j[k]: value of keeping k with j rolls left (relative to the position's value)."""
        got = self._stages.get(j)
        if got is not None:
            return got
        kp = self.kp
        prev = list(self._final) if j == 1 else self._best_rows(j - 1)
        E = prev
        theta = self.source.theta
        for k in range(len(kp.counts) - len(kp.rolls) - 1, -1, -1):
            a = kp.add[k]
            # a die rerolled: its six faces equally likely (risk tables: their certainty equivalent;
            # nesting is exact, since exp(theta * CE) is the expectation it stands for)
            E[k] = sum(E[i] for i in a) / 6.0 if theta == 0.0 else ce_mean([E[i] for i in a], theta)
        self._stages[j] = E
        return E

    def _best_rows(self, j: int) -> list[float]:
        """Full-roll rows V_j[r] = max(stop, best proper keep with j rolls left)."""
        E = list(self.stage(j))
        kp = self.kp
        M = list(E)
        nfull = len(kp.counts) - len(kp.rolls)
        for k in range(1, len(kp.counts)):
            m = M[k]
            for d in kp.drop[k]:
                if M[d] > m:
                    m = M[d]
            if k < nfull:
                M[k] = m
            else:
                # proper sub-keeps only, then the stop option
                best = max((M[d] for d in kp.drop[k]), default=float("-inf"))
                stop = self._final[k] + self.source.saved_value * j
                M[k] = max(best, stop)
        return M

    def evaluate(self, dice: Sequence[int], rolls_left: int) -> Evaluation:
        rules = self.rules
        d = rules.check_dice(dice)
        if rolls_left < 0:
            raise PositionError("rolls left cannot be negative")
        choices: list[Choice] = []
        if rolls_left == 0:
            opts = self._options(d)
            for o in opts:
                choices.append(Choice(self.base + self._after(o), box=o.box, column=o.column, score=o.score,
                                      bonus=o.bonus))
            if R.may_pass(rules, opts):
                choices.append(Choice(self.base - PASS_COST, is_pass=True))
        else:
            E = self.stage(rolls_left)
            cnt = counts_of(d)
            for sub in itertools.product(*(range(c + 1) for c in cnt)):
                k = self.kp.index[sub]
                if sub == cnt:
                    v = self._final[k] + self.source.saved_value * rolls_left
                else:
                    v = E[k]
                choices.append(Choice(self.base + v, keep=tuple(dice_of(sub))))
        # best first; ties: more dice kept first, then sheet order
        choices.sort(key=lambda c: (-c.value, -(len(c.keep) if c.keep is not None else 0)))
        top = choices[0].value
        out = [Choice(c.value, max(top - c.value, 0.0), c.keep, c.box, c.column, c.is_pass, c.score, c.bonus)
               for c in choices]
        return Evaluation(rules, d, rolls_left, self.source.exact, out, self.source.label)


def evaluate(rules: R.RuleSet, columns: Sequence[R.Column], dice: Sequence[int], rolls_left: int, saved: int = 0,
             source: Source | None = None, say: Callable[[str], None] | None = None) -> Evaluation:
    """Every option of the position (keeps with rolls left, boxes without), best first, valued as the
    expected final grand total; `source` defaults to source_for(rules) (built on first use)."""
    src = source if source is not None else source_for(rules, say)
    allowed = R.rolls_allowed(rules, saved) - 1
    if rolls_left > allowed:
        raise PositionError(f"at most {allowed} rolls can be left after the first roll here, got {rolls_left}")
    return Turn(rules, tuple(columns), src, saved).evaluate(dice, rolls_left)
