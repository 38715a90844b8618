"""Values of every decision of a turn: what `hint` shows and what `replay --analyze` grades against.
Pure Python (no numpy, no numba), so a hint starts fast.

A position is a player's sheet (one rules.Column per column), the dice showing, the rolls left this
turn and the rolls saved (saved_rolls). Every value is an expected final grand total of the sheet
(points already written included). Legality, scores and bonuses come from the rules module
(rules.options, rules.may_pass); the value of the states they lead to from a value source
(strategy.sources), chosen by strategy.choice: an exact table, or an approximate value to go.
Approximate values are labelled (`exact` false) and come from a one-turn lookahead on that value.

Within the turn: V0[r] = best (column, box) of the final roll r (or a pass); with j rolls left,
keeping k is worth E_j[k] = mean over the rerolled dice of V_{j-1}, and
V_j[r] = max(stop now, best proper keep of r). Stopping with j rolls left is the keep of every die.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..errors import PositionError
from ..rules import engine as R
from .keeps import Keeps, counts_of, dice_of, keeps
from .sources import ColumnState, Source, column_state, raw_points

# With must_zero off a pass can be repeated for free, so passing and scoring are often worth exactly
# the same (any policy that scores eventually is optimal). Playing and hints charge a pass this much,
# as a tie-break towards progress, so games end; solved values do not include it.
PASS_COST = 1e-6

# |theta| * (spread of the values) below which a certainty equivalent is the mean: the correction
# theta * variance / 2 is then under 1e-12 of the spread, and exp(theta * v) rounds to 1 anyway.
NEGLIGIBLE_SPREAD = 1e-12

SIXTH = 1.0 / 6.0  # a reroll's mean is the faces' sum times this (within_turn.expect_lanes' arithmetic)


def ce_mean(values: Sequence[float], theta: float) -> float:
    """The certainty equivalent of equally likely values: log(mean(exp(theta * v))) / theta (the mean
    at theta = 0), computed relative to the largest exponent so nothing overflows."""
    if theta == 0.0 or abs(theta) * (max(values) - min(values)) < NEGLIGIBLE_SPREAD:
        # the limit theta -> 0 is the mean; below this the exponentials round to 1 and would give the max
        return sum(values) / len(values)
    a = max(theta * v for v in values)
    return (a + math.log(sum(math.exp(theta * v - a) for v in values) / len(values))) / theta


# --------------------------------------------------------------------------- the turn


class Choice(NamedTuple):
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


class Evaluation:
    """Every option of a position, best first (ties keep a fixed order), with values and regrets."""

    def __init__(self, rules: R.RuleSet, dice: tuple[int, ...], rolls_left: int, exact: bool, options: list[Choice],
                 source: str = "", saved_cap: int | None = None) -> None:
        self.rules = rules
        self.dice = dice
        self.rolls_left = rolls_left
        self.exact = exact
        self.options = options
        self.source = source
        self.saved_cap = saved_cap  # exact with at most this many saved rolls (an exact saved-rolls table)
        self.stop_box: Choice | None = None  # with rolls left: the box stopping now leads to (hints set it)

    @property
    def kind(self) -> str:
        """How the values were found, for text: exact (with the cap on saved rolls) or APPROXIMATE."""
        if not self.exact:
            return f"APPROXIMATE: {self.source}"
        return "exact" if self.saved_cap is None else f"exact with at most {self.saved_cap} saved rolls"

    @property
    def best(self) -> Choice:
        return self.options[0]

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        opts = self.options if top is None else self.options[:top]
        out: dict[str, Any] = {
            "rules": self.rules.record(), "dice": list(self.dice), "rolls_left": self.rolls_left, "exact": self.exact,
            "approximation": None if self.exact else self.source,
        }
        if self.saved_cap is not None:
            out["saved_rolls_cap"] = self.saved_cap
        out["options"] = [o.to_dict(self.rules) for o in opts]
        if self.stop_box is not None:
            for o in out["options"]:
                if len(o.get("keep", ())) == len(self.dice):  # stopping: then this box
                    o["then"] = self.stop_box.move_dict(self.rules)
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


class Turn:
    """The values of one turn of one position (sheet + saved rolls): computed once, then every roll
    and every decision of the turn is read off (the analyzer grades a whole turn with one Turn).
    A plain class, not a dataclass: every hint builds one, and a dataclass is built at import."""

    kp: Keeps
    mult: tuple[int, ...]  # column multipliers
    states: list[ColumnState]  # each column's state now
    raw: list[int]  # points written per column, upper bonus left to the value to go
    fcur: list[float]  # each column's value to go now
    col_values: list[float]  # raw + fcur
    base: float  # the position's value (the sheet's expected final total), less `level`
    level: float  # the source's level for the boxes open on the sheet (0 but on multi-column sheets)

    def __init__(self, rules: R.RuleSet, columns: tuple[R.Column, ...], source: Source, saved: int = 0) -> None:
        self.rules = rules
        self.columns = columns
        self.source = source
        self.saved = saved
        # with an exact saved-rolls table (source.cap >= 0): the final-roll values when stopping leaves
        # s rolls saved, by s (_final_at)
        self._final_by_stock: dict[int, list[float]] = {}
        self._stock = 0  # the stock the next states are valued with (_next_value)
        self._stages: dict[int, list[float]] = {}  # E_j by rolls left j
        # (column, box, score, stock) -> value to go
        self._next_cache: dict[tuple[int, int, int, int], float] = {}
        # per column: (index, filled mask, open boxes, Yahtzee score, multiplier, value to go now), for
        # the final-roll loop
        self._cols: list[tuple[int, int, list[int], int | None, int, float]] = []
        self._add = True  # settings.add_columns
        self._pass_possible = False  # a pass may ever be allowed (must_zero off)
        if len(self.columns) != rules.settings.columns:
            raise PositionError(f"{rules.name} sheets have {rules.settings.columns} columns, got {len(self.columns)}")
        if all(c.is_full for c in self.columns):
            raise PositionError("the sheet is full: the game is over")
        self.kp = keeps(rules.dice)
        self.mult = tuple(rules.settings.multipliers)
        self.states = [column_state(rules, c) for c in self.columns]
        self.raw = [raw_points(rules, c) for c in self.columns]
        self.fcur = [self.source.value(st, saved) for st in self.states]
        self.col_values = [self.raw[c] + self.fcur[c] for c in range(len(self.columns))]
        self.base = self._sheet_value(self.col_values)
        # added to every value last, as the compiled grader adds it (the same bits either way)
        self.level = self.source.level(sum(len(rules.boxes) - bin(st.mask).count("1") for st in self.states))
        self._final = self._final_at(0)  # V0 by keep index (full rolls only), relative to base

    def _sheet_value(self, col_values: Sequence[float]) -> float:
        # rules.weighted_total's arithmetic works on expected (float) column totals as well
        return float(R.weighted_total(list(col_values), list(self.mult), self.rules.settings.add_columns))  # type: ignore[arg-type]

    def _after(self, opt: R.Option) -> float:
        """Expected final total after writing `opt` (relative to the position's value)."""
        f2 = self._next_cache.get((opt.column, opt.box, opt.score, self._stock))
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
            natural = ctx.scores if R.any_open_box(rules, ctx, c) else None  # then every open box takes it
            for b in open_boxes:
                sc = natural[b] if natural is not None else R.box_score(rules, ctx, filled, b, dice, c)
                if sc is None:
                    continue
                f2 = self._next_cache.get((c, b, sc, self._stock))
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
        yfull = st.yfull if b != y else R.holds_full_yahtzee(self.rules, score)
        f2 = self.source.value(ColumnState(st.mask | (1 << b), upper, yfull), self._stock)
        self._next_cache[(c, b, score, self._stock)] = f2
        return f2

    def _stop(self, k: int, rolls_left: int) -> float:
        """The value of stopping on roll k with `rolls_left` rolls unused: its final-roll value with the
        rolls saved (an exact saved-rolls table: the next turn starts with min(rolls_left, cap) saved),
        or plus the source's value per saved roll."""
        cap = self.source.cap
        if cap < 0:
            return self._final[k] + self.source.saved_value * rolls_left
        return self._final_at(min(rolls_left, cap))[k]

    def _final_at(self, stock: int) -> list[float]:
        """The final-roll values when the next turn starts with `stock` rolls saved (computed once)."""
        final = self._final_by_stock.get(stock)
        if final is None:
            self._stock = stock
            try:
                final = self._final_by_stock[stock] = self._compute_final()
            finally:
                self._stock = 0
        return final

    def _compute_final(self) -> list[float]:
        """The final-roll values by keep index, with the next states valued at self._stock."""
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
        quick = self._natural_finals([dice_of_keep[k] for k in kp.rolls])
        if quick is not None:
            for k, v in zip(kp.rolls, quick, strict=True):
                final[k] = v
        else:
            for k in kp.rolls:
                final[k] = self._roll_final(dice_of_keep[k])
        return final

    def _natural_finals(self, roll_dice: list[tuple[int, ...]]) -> list[float] | None:
        """_roll_final of every roll at once, box by box (list operations, not a Python loop per roll
        and box: a hint's first position pays this), where every roll but a Yahtzee writes its natural
        score in any open box: columns filled freely and adding up, no passes. Yahtzee rolls (jokers,
        the extra bonus) go through _roll_final. None: not that case."""
        rules = self.rules
        if not self._add or self._pass_possible or any(rules.settings.fill_codes[c] for c, *_ in self._cols):
            return None
        natural = [rules.natural_scores(d) for d in roll_dice]
        per_box: list[list[float]] = []
        for c, _filled, open_boxes, _ys, m, fc in self._cols:
            for b in open_boxes:
                scores = [row[b] for row in natural]
                value: dict[int, float] = {}
                for sc in set(scores):
                    f2 = self._next_cache.get((c, b, sc, self._stock))
                    if f2 is None:
                        f2 = self._next_value(c, b, sc)
                    value[sc] = m * (sc + 0 + f2 - fc)  # _roll_final's arithmetic (no bonus off a Yahtzee)
                per_box.append([value[sc] for sc in scores])
        best = list(map(max, *per_box)) if len(per_box) > 1 else per_box[0]
        for i, d in enumerate(roll_dice):
            if rules.is_yahtzee(d):
                best[i] = self._roll_final(d)
        return best

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
            if theta == 0.0:  # the compiled kernels' order: the faces' sum, left to right, times 1 / 6
                E[k] = (E[a[0]] + E[a[1]] + E[a[2]] + E[a[3]] + E[a[4]] + E[a[5]]) * SIXTH
            else:
                E[k] = ce_mean([E[i] for i in a], theta)
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
                M[k] = max(best, self._stop(k, j))
        return M

    def evaluate(self, dice: Sequence[int], rolls_left: int, unused: int = 0) -> Evaluation:
        """Every option with `rolls_left` rolls left (0: the boxes). `unused`: with no rolls left, the
        rolls the turn stopped without using (an exact saved-rolls table values the boxes with the
        stock they leave for the next turn; a value per saved roll moves every box alike)."""
        rules = self.rules
        d = rules.check_dice(dice)
        if rolls_left < 0:
            raise PositionError("rolls left cannot be negative")
        choices: list[Choice] = []
        if rolls_left == 0:
            opts = self._options(d)
            cap = self.source.cap
            self._stock = min(unused, cap) if cap >= 0 else 0
            try:
                for o in opts:
                    choices.append(Choice(self.base + self._after(o) + self.level, box=o.box, column=o.column,
                                          score=o.score, bonus=o.bonus))
            finally:
                self._stock = 0
            if R.may_pass(rules, opts):
                choices.append(Choice(self.base - PASS_COST + self.level, is_pass=True))
        else:
            E = self.stage(rolls_left)
            cnt = counts_of(d)
            for sub in itertools.product(*(range(c + 1) for c in cnt)):
                k = self.kp.index[sub]
                if sub == cnt:
                    v = self._stop(k, rolls_left)
                else:
                    v = E[k]
                choices.append(Choice(self.base + v + self.level, keep=tuple(dice_of(sub))))
        # best first; ties: more dice kept first, then sheet order
        choices.sort(key=lambda c: (-c.value, -(len(c.keep) if c.keep is not None else 0)))
        top = choices[0].value
        out = [Choice(c.value, max(top - c.value, 0.0), c.keep, c.box, c.column, c.is_pass, c.score, c.bonus)
               for c in choices]
        return Evaluation(rules, d, rolls_left, self.source.exact, out, self.source.label,
                          self.source.cap if self.source.cap >= 0 else None)
