"""Grade every decision of a logged game against optimal play (`yahtzee replay --analyze`).

A game is walked turn by turn (`replay.turn_steps`: the player's sheet before each turn, the rolls,
the held dice, the box written). Each turn is valued once with `strategy.turn.Turn` and every decision
the player made in it is read off that Turn:

* a keep after each roll that was followed by a reroll (the `held` dice; when the log has none, the
  dice common to the two rolls -- their multiset intersection -- and the decision is flagged
  `inferred`);
* "stop rolling" when the turn ended with rolls left: the keep of every die (kind "stop");
* the box written after the last roll, or the pass (must_zero off), always graded exactly.

For each decision: where (turn index, player, the player's round, roll number), the dice showing,
the move made and the best move with their values (expected final grand totals of the player's
sheet, points already written included: solitaire optimal play) and the regret (expected points
lost by the move made). When the move made is one of the best (a tie), it is shown as the best.
Values come from `hint.source_for`: the exact strategy table where the rule set has one, else
an approximate source, and then every result says so (`exact` false, `source` its label).

Risk-sensitive grading (`theta`, `analyze --risk THETA`): decisions are graded against the strategy
maximising E[exp(theta * final score)] (`hint.risk_source`, exact rule sets only). Values are
then certainty equivalents log E[exp(theta * final)] / theta of the final total (points written
included) and the regret is certainty-equivalent points lost; theta = 0 is the ordinary grading.

Two paths, one answer. Where the values come from an exact table (one column, or every column of
a sheet valued by the single-column table) and no risk strategy is asked for, a whole game is
valued in one call of the compiled grading kernel (solver.grade_kernel: the same arithmetic as Turn,
in the same order, so values, regrets, best moves and ties come out identical), about 40 times
faster; elsewhere (approximate values, risk grading) each turn is valued with Turn. By default the
first COMPILED_AFTER games take the pure path: loading numba and the kernel costs more than they
do, so a single game stays quick. This module alone decides which path grades a game.

Batches: `Analyzer` keeps one value source per rule set and a small LRU of Turns (turn-start
positions repeat across games: every game starts from the empty sheet), and `Totals` adds games up
per player name, keeping only counts, sums and the five worst decisions (memory stays flat).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, NamedTuple, overload

from ..errors import InputError, NotExact, PositionError, YahtzeeError
from ..formats.logs import SHEET_FORMAT, resolve_rules
from ..formats.players import PlayerNames
from ..formats.replay import TurnStep, walk_steps
from ..rules import engine as R
from ..strategy import turn as P
from ..strategy.keeps import dice_key as _key
from ..strategy.keeps import keeps
from ..strategy.sources import Source, TableSource
from .hint import risk_source, source_for
from .luck import Moment, start_value
from .win_costs import ASK_AGAIN, ASK_BOX, ASK_KEEP, WinCost, column_numbers

__all__ = [
    "Analyzer",
    "Decision",
    "GameAnalysis",
    "PlayerSummary",
    "Totals",
    "decision_dict",
    "infer_keep",
    "loss_rows",
]

WORST = 5  # worst decisions kept per player
DIGITS = 6  # decimals of values and regrets in JSON
TIE = 1e-9  # a move within this of the best is one of the best (shown as the best move)

COMPILED_AFTER = 16  # games graded in pure Python before the compiled path loads (numba takes ~0.5 s)

DecisionKind = Literal["keep", "stop", "box"]


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a game, graded (`rules`: the game's rule set, which names its moves).

    `index` is the 0-based index of the turn in the log (JSON Pointer /turns/<index>; shown as turn
    index + 1), `round` the player's own 1-based turn count, `roll` the number of rolls thrown when
    the decision was made (a stop and a box choice come after the turn's last roll), `rolls_left` the
    rerolls still allowed then. `kind`: "keep" (dice held for a reroll that was thrown), "stop" (the
    turn ended with rolls left: the keep of every die) or "box" (the box written, or a pass).
    `made` and `best` are strategy.turn.Choice values (value = expected final grand total); `regret` is
    best.value - made.value (>= 0). `inferred`: a keep guessed from consecutive rolls (no `held`)."""

    rules: R.RuleSet = field(repr=False, compare=False)
    index: int
    player: str
    round: int
    roll: int
    kind: DecisionKind
    dice: R.Dice
    rolls_left: int
    made: P.Choice
    best: P.Choice
    regret: float
    inferred: bool = False
    game: int = 0  # 1-based game number within its file (0: not set)
    file: str = ""  # the input the game was read from
    line: int = 0  # the input line of the decision's turn (0: not set)
    luck: float = 0.0  # the luck of the roll just before (play.luck): best value now - the player's last made value
    win: WinCost | None = None  # win chances after the move made and the best for winning (games of two or more)


def infer_keep(before: Sequence[int], after: Sequence[int]) -> R.Dice:
    """The dice common to two consecutive rolls (multiset intersection), sorted: the most a player
    can have kept. A log without `held` says no more than that."""
    common = Counter(before) & Counter(after)
    return tuple(sorted(common.elements()))


@dataclass
class PlayerSummary:
    """A player's grading: total expected loss (the skill cost), decisions graded (and how many were
    inferred keeps), games, and the worst decisions (largest regret first; ties: earliest first).

    Luck and skill (play.luck): `start` the expected total of an empty sheet, `luck` the sum of the
    rolls' luck, `end` the value of the last move made (the actual total once the game is over), so
    end = start + luck - loss; `turning` the roll or decision that moved the expected total most
    (one game's; None in batch totals). Over games, start, luck and end are sums."""

    name: str
    loss: float = 0.0
    decisions: int = 0
    inferred: int = 0
    games: int = 0
    start: float = 0.0
    luck: float = 0.0
    end: float = 0.0
    turning: Moment | None = None
    win_cost: float | None = None  # win probability lost by the decisions (None: no win chances here)
    win_var: float | None = None  # the variance of win_cost where it is estimated (None: exact, or none)
    # (regret, -order, order, the decision or where the fast path keeps it: made only when read)
    _heap: list[tuple[float, int, int, Decision | _Ref]] = field(default_factory=list, repr=False)
    _seq: int = 0

    def add(self, d: Decision) -> Decision:
        """Count a decision of this player (the next in the game's order); returns it with the luck
        of the roll before it."""
        lk = d.best.value - self.end
        self.luck += lk
        self.end = d.made.value
        if lk:
            d = dataclasses.replace(d, luck=lk)
        self.loss += d.regret
        self.decisions += 1
        if d.inferred:
            self.inferred += 1
        if d.win is not None:
            self.add_win(d.win)
        self.turn_on(lk, d.regret, d.index, d.round, d.roll, d.line)
        self._push(d.regret, d)
        return d

    def add_win(self, w: WinCost) -> None:
        """Count a decision's win cost (and, estimated, its variance)."""
        self.win_cost = (self.win_cost or 0.0) + w.cost
        if w.se is not None:
            self.win_var = (self.win_var or 0.0) + w.se * w.se

    @property
    def win_cost_se(self) -> float | None:
        """The standard error of an estimated win_cost (the decisions' estimates are independent)."""
        return None if self.win_var is None else math.sqrt(self.win_var)

    def turn_on(self, lk: float, regret: float, index: int, rnd: int, roll: int, line: int) -> None:
        """The roll's luck and the decision's cost as turning-point candidates: the largest move of
        the expected total (in absolute points) wins, the earliest on ties, the roll before its decision."""
        tp = self.turning
        most = 0.0 if tp is None else abs(tp.points)
        if abs(lk) > most:
            self.turning = tp = Moment("roll", index, rnd, roll, lk, line)
            most = abs(lk)
        if regret > most:
            self.turning = Moment("decision", index, rnd, roll, -regret, line)

    def _push(self, regret: float, d: Decision | _Ref) -> None:
        """Keep `d` if it is among the WORST largest regrets so far."""
        self._seq += 1
        # min-heap on (regret, -order): the smallest regret (latest on ties) drops out first
        item = (regret, -self._seq, self._seq, d)
        if len(self._heap) < WORST:
            heapq.heappush(self._heap, item)
        elif item[:2] > self._heap[0][:2]:
            heapq.heapreplace(self._heap, item)

    def _worst(self) -> list[tuple[float, Decision | _Ref]]:
        return [(it[0], it[3]) for it in sorted(self._heap, key=lambda it: (-it[0], it[2]))]

    @property
    def worst(self) -> list[Decision]:
        return [d if isinstance(d, Decision) else d.rows[d.at] for _, d in self._worst()]

    def worst_records(self) -> list[dict[str, Any]]:
        """`worst` as decision_dict gives them."""
        return [decision_dict(d) if isinstance(d, Decision) else d.rows.records()[d.at] for _, d in self._worst()]

    def merge(self, other: PlayerSummary) -> None:
        self.loss += other.loss
        self.start += other.start
        self.luck += other.luck
        self.end += other.end
        if other.win_cost is not None:
            self.win_cost = (self.win_cost or 0.0) + other.win_cost
        if other.win_var is not None:
            self.win_var = (self.win_var or 0.0) + other.win_var
        self.decisions += other.decisions
        self.inferred += other.inferred
        self.games += other.games
        for regret, d in other._worst():
            self._push(regret, d)


@dataclass
class GameAnalysis:
    """One game graded: the rule set, whether the values are exact (and their source), every
    decision in order (unless the Analyzer was asked not to keep them), and a summary per player
    (in the log's player order)."""

    rules: R.RuleSet
    exact: bool
    source: str
    players: list[PlayerSummary]
    decisions: Sequence[Decision]
    turns: int  # turns graded
    game_over: bool
    game: int = 0
    file: str = ""
    line: int = 0
    theta: float | None = None  # graded against the risk strategy of theta (None: not asked for)


# --------------------------------------------------------------------------- the analyzer


class Analyzer:
    """Grades games. Holds one value source per rule set (the exact table, built on first use with
    a note to `say`, or the approximate source) and an LRU of up to `turn_cache` strategy.turn.Turn
    objects keyed by (rule set, sheet, saved rolls), so positions that recur across games (the empty
    sheet of every first turn, common openings) are valued once. `theta`: grade against the risk
    strategy of theta (certainty equivalents; None or 0: expected scores). `compiled`: True grades
    with the compiled kernel wherever it applies, False never, None (default) after COMPILED_AFTER
    games (the answers are the same; `compiled_games` counts the games it graded). `wins`: value
    every decision of a game of two or more in win probability too (play.win_costs; `Decision.win`,
    `PlayerSummary.win_cost`), where the rule set has exact score distributions."""

    def __init__(self, say: Callable[[str], None] | None = None, turn_cache: int = 64,
                 theta: float | None = None, compiled: bool | None = None, wins: bool = False) -> None:
        self.say = say
        self.wins = wins  # value games of two or more in win probability too (play.win_costs)
        self._win_graders: dict[str, Any] = {}  # per rule set: its WinGrader, or None (no win chances)
        self.compiled = compiled
        self._graders: dict[str, Any] = {}
        self._compiled_rules: set[str] = set()  # rule sets graded on the compiled path
        self._pure_games = 0
        self.compiled_games = 0  # games graded by the compiled path
        self.turn_cache = turn_cache
        self.theta = theta
        self._sources: dict[str, Source] = {}
        self._starts: dict[str, float] = {}
        self._turns: OrderedDict[tuple[str, tuple[str, ...], tuple[R.Column, ...], int], P.Turn] = OrderedDict()
        self.turns_built = 0
        self.turns_reused = 0

    def source(self, rules: R.RuleSet) -> Source:
        key = rules.fingerprint
        src = self._sources.get(key)
        if src is None:
            if self.theta:
                try:
                    src = risk_source(rules, self.theta, self.say)
                except NotExact as exc:  # no exact (risk) table for these rules
                    raise NotExact(f"risk-sensitive grading needs an exact table: {exc}") from None
            else:
                src = source_for(rules, self.say)
            self._sources[key] = src
        return src

    def start(self, rules: R.RuleSet) -> float:
        """The expected total of an empty sheet, as the grading values it (play.luck.start_value)."""
        key = rules.fingerprint
        v = self._starts.get(key)
        if v is None:
            v = self._starts[key] = start_value(rules, self.source(rules))
        return v

    def _win_grader(self, rules: R.RuleSet, players: int) -> Any:
        """The compiled win grader of `rules` (solver.grade_kernel.WinGrader) for a game of `players`, or
        None when its decisions get no win chances: solo games, risk grading, no exact distributions.
        Every state's pmf is computed once per rule set (solver.state_pmfs, with a note to `say`)."""
        if not self._wins_wanted(players):
            return None
        key = rules.fingerprint
        if key not in self._win_graders:
            from .odds import unavailable

            src = self.source(rules)
            wg = None
            if unavailable(rules) is None and isinstance(src, TableSource) and not src.theta:
                from ..solver import grade_kernel, jit
                from ..solver.state_pmfs import state_pmfs

                pmfs = state_pmfs(rules, 0.0, self.say)
                jit.note_compile([grade_kernel.grade_wins], "the win-chance kernel", self.say)
                wg = grade_kernel.WinGrader(self._grader(rules, src), pmfs)
            self._win_graders[key] = wg
        return self._win_graders[key]

    def _win_costs(self, rules: R.RuleSet, data: Mapping[str, Any], players: int, decisions: Sequence[Decision],
                   steps: Sequence[TurnStep], until: int | None) -> list[WinCost] | None:
        """The decisions' win chances (play.win_costs) in a game of two or more under a rule set with
        exact distributions, graded for expected points; else None."""
        if not decisions or not self._wins_wanted(players):
            return None
        wg = self._win_grader(rules, players)
        if wg is not None:
            from .win_costs import game_win_costs

            return game_win_costs(rules, wg, data, steps, decisions, until)
        from .odds import too_large, unavailable

        if unavailable(rules) is None or too_large(rules) is not None:
            return None  # (exact distributions graded otherwise, or the rules' strategy cannot play here)
        from .win_costs import estimated_win_costs

        return estimated_win_costs(rules, data, steps, decisions, self.turn, until, self.say)

    def _wins_wanted(self, players: int) -> bool:
        """Whether decisions are valued in win probability: asked for, two or more players, and
        graded for expected points (not a risk strategy)."""
        return self.wins and players >= 2 and not self.theta

    def turn(self, rules: R.RuleSet, columns: tuple[R.Column, ...], saved: int) -> P.Turn:
        key = (rules.fingerprint, rules.keys, columns, saved)  # keys: a Turn's options name its boxes
        t = self._turns.get(key)
        if t is not None:
            self._turns.move_to_end(key)
            self.turns_reused += 1
            return t
        t = P.Turn(rules, columns, self.source(rules), saved)
        self.turns_built += 1
        if self.turn_cache > 0:
            self._turns[key] = t
            if len(self._turns) > self.turn_cache:
                self._turns.popitem(last=False)
        return t

    def steps(self, rules: R.RuleSet, steps: Iterable[TurnStep], game: int = 0, file: str = "",
              lines: Sequence[int] | int = 0) -> Iterator[Decision]:
        """The graded decisions of turn steps (replay.turn_steps) played under `rules`, in order
        (`lines`: the input line of each turn, or one line for every turn)."""
        rounds: dict[int, int] = {}
        for st in steps:
            rounds[st.player] = rounds.get(st.player, 0) + 1
            yield from self._grade_turn(rules, st, rounds[st.player], game, file, _line(lines, st.index))

    def _grade_turn(self, rules: R.RuleSet, st: TurnStep, rnd: int, game: int, file: str,
                    line: int = 0) -> Iterator[Decision]:
        if not st.rolls:
            return
        turn = self.turn(rules, st.columns, st.saved)
        for a in _asks(rules, st):
            if a.kind == "box":
                ev = turn.evaluate(a.dice, 0, R.rolls_allowed(rules, st.saved) - len(st.rolls))
                if st.passed:
                    passes = [o for o in ev.options if o.is_pass]
                    if not passes:  # pragma: no cover - turn_steps only gives legal passes
                        raise PositionError(f"/turns/{st.index}: a pass is not allowed here")
                    made = passes[0]
                else:
                    assert st.box is not None
                    made = ev.find_box(st.box, st.column or 0)
            else:
                ev = turn.evaluate(a.dice, a.left)
                if a.again:  # the same dice with one roll fewer
                    v = turn.evaluate(a.dice, a.left - 1).best.value
                    made = P.Choice(v, max(ev.best.value - v, 0.0), keep=a.kept)
                else:
                    made = ev.find_keep(a.kept)
            yield _decision(rules, a, made, ev.best, st, rnd, game, file, line)

    def _compiled(self, rules: R.RuleSet, src: Source) -> Any:
        """The compiled grader of `rules` (solver.grade_kernel.Grader), or None when the compiled path
        does not apply: an approximate value to go, risk grading, the pure path asked for, or (by
        default) before COMPILED_AFTER games, since loading numba costs more than grading a few games."""
        if self.compiled is False or self.theta or not isinstance(src, TableSource) or src.theta:
            return None
        key = rules.fingerprint
        if key not in self._compiled_rules:
            if self.compiled is None and self._pure_games < COMPILED_AFTER:
                self._pure_games += 1
                return None
            from ..solver import grade_kernel, jit

            jit.note_compile([grade_kernel.grade_turns], "the grading kernel", self.say)
            self._compiled_rules.add(key)
        return self._grader(rules, src)

    def _grader(self, rules: R.RuleSet, src: TableSource) -> Any:
        """The compiled grader's arrays for `rules` on its exact table (made once; the win grader's too)."""
        grader = self._graders.get(rules.fingerprint)
        if grader is None:
            from ..solver import grade_kernel

            grader = self._graders[rules.fingerprint] = grade_kernel.Grader(
                rules, src.W, src.masks, src.t, src.nyt, src.saved_value, src.scale, src.levels)
        return grader

    def _grade_compiled(self, grader: Any, rules: R.RuleSet, steps: Sequence[TurnStep], game: int,
                        file: str, lines: Sequence[int] | int = 0) -> list[Decision] | None:
        """Every decision of `steps`, valued in one call of the compiled grader (None when some decision
        cannot be graded there: the pure path then says why)."""
        nb = len(rules.boxes)
        cols: list[list[tuple[int, int, int, int]]] = []
        stages: list[int] = []
        asks: list[tuple[int, int, int, int, int]] = []
        where: list[tuple[TurnStep, int, _Ask]] = []
        rounds: dict[int, int] = {}
        for st in steps:
            rounds[st.player] = rnd = rounds.get(st.player, 0) + 1
            if not st.rolls:
                continue
            tt = len(cols)
            cols.append([column_numbers(rules, col) for col in st.columns])
            most = 0
            for a in _asks(rules, st):
                if a.kind == "box":
                    written = -1 if st.passed else (st.column or 0) * nb + (st.box or 0)
                    asks.append((tt, ASK_BOX, _key(a.dice), 0, written))
                else:
                    asks.append((tt, ASK_AGAIN if a.again else ASK_KEEP, _key(a.dice), a.left, _key(a.kept)))
                most = max(most, a.left)
                where.append((st, rnd, a))
            stages.append(most)
        got = grader.grade(cols, stages, asks)
        if got is None:
            return None
        dice_of_keep = keeps(rules.dice).dice
        out = []
        for (st, rnd, a), (made_v, best_v), p in zip(where, *got, strict=True):
            regret = max(best_v - made_v, 0.0)
            if a.kind != "box":
                best = P.Choice(best_v, keep=dice_of_keep[p[0]])
                made = P.Choice(made_v, regret, keep=a.kept)
            else:
                best = (P.Choice(best_v, column=p[0], box=p[1], score=p[2], bonus=p[3]) if p[1] >= 0
                        else P.Choice(best_v, is_pass=True))
                made = (P.Choice(made_v, regret, is_pass=True) if st.passed
                        else P.Choice(made_v, regret, column=st.column or 0, box=st.box, score=p[4], bonus=p[5]))
            out.append(_decision(rules, a, made, best, st, rnd, game, file, _line(lines, st.index)))
        return out

    def _fast(self, grader: Any, rules: R.RuleSet, src: Source, data: Mapping[str, Any], trusted: bool, game: int,
              file: str, line: int, lines: Sequence[int] | int, keep_decisions: bool) -> GameAnalysis | None:
        """A valid game graded from its turns as logged, in one pass: no TurnSteps, and no Choice or
        Decision per decision (those are made for the decisions among a player's worst, and on demand
        for the others: `Graded`). None when the game is not one for this path (not valid on the
        validator's fast path, saved rolls): the general path then grades it, to the same result."""
        from ..formats.validate import fast_turns

        got = fast_turns(data, rules, trusted)
        if got is None:
            return None
        walk, written = got
        turns: list[Any] = data["turns"]
        names: list[str] = data["players"]
        n_dice = rules.dice
        nb = len(rules.boxes)
        ncols = rules.settings.columns
        allowed = R.rolls_allowed(rules, 0)
        upper = set(rules.upper_indices)
        y = -1 if rules.yahtzee_index is None else rules.yahtzee_index
        full_y = rules.boxes[y].points if y >= 0 else None
        # per player and column: filled mask, upper total, Yahtzee box (-1 open, 0 zero, 1 full), points
        state = [[[0, 0, -1, 0] for _ in range(ncols)] for _ in names]
        rounds = [0] * len(names)
        cols: list[int] = []  # laid flat (Grader.grade_flat): per turn, per column, its 4 numbers
        stages: list[int] = []
        asks: list[int] = []  # per decision, its 5 numbers
        meta: list[tuple[int, int, int, int, int, Any, int, Any, bool, int]] = []  # see _Rows
        pw = _POW
        ip = walk.in_progress
        if ip is not None:
            written = [*written, (ip.turn, ip.player, -2, -2, 0, 0)]
        wg = self._win_grader(rules, len(names))
        opps: list[int] = []  # per turn, each opponent's column then (its 4 numbers; for the win grader)
        for t, pi, ci, bi, value, bonus in written:
            turn = turns[t]
            rolls = turn["rolls"]
            held = turn.get("held")
            rounds[pi] = rnd = rounds[pi] + 1
            tt = len(stages)
            for s in state[pi]:
                cols += s
            if wg is not None:
                for j, other in enumerate(state):
                    if j != pi:
                        opps += other[0]
            n = len(rolls)
            most = 0
            for i in range(n - 1):
                dice = rolls[i]
                if held is not None:
                    kept = held[i]
                    inferred = False
                else:
                    kept = infer_keep(dice, rolls[i + 1])
                    inferred = True
                left = allowed - i - 1
                again = len(kept) == n_dice
                asks += (tt, ASK_AGAIN if again else ASK_KEEP, sum(map(pw.__getitem__, dice)), left,
                         sum(map(pw.__getitem__, kept)))
                meta.append((t, pi, rnd, i + 1, _KEEP, dice, left, kept, inferred, -1))
                most = left if left > most else most
            if ci != -2:  # the turn ended: a stop with rolls left, then the box (or a pass)
                last = rolls[-1]
                key = sum(map(pw.__getitem__, last))
                if n < allowed:
                    asks += (tt, ASK_KEEP, key, allowed - n, key)
                    meta.append((t, pi, rnd, n, _STOP, last, allowed - n, last, False, -1))
                    most = allowed - n if allowed - n > most else most
                asks += (tt, ASK_BOX, key, 0, -1 if ci < 0 else ci * nb + bi)
                meta.append((t, pi, rnd, n, _BOX, last, 0, None, False, -1 if ci < 0 else ci * nb + bi))
                if ci >= 0:
                    s = state[pi][ci]
                    s[0] |= 1 << bi
                    if bi in upper:
                        s[1] += value
                    if bi == y:
                        s[2] = 1 if value == full_y else 0
                    s[3] += value + bonus
            stages.append(most)
        graded = grader.grade_flat(cols, stages, asks)
        if graded is None:
            return None
        vals, picks = graded
        s0 = self.start(rules)
        summaries = [PlayerSummary(nm, games=1, start=s0, end=s0) for nm in names]
        lucks: list[float] = []
        rows = _Rows(rules, names, meta, vals, picks, game, file, lines, lucks)
        for i, (m, (made_v, best_v)) in enumerate(zip(meta, vals, strict=True)):
            p = summaries[m[1]]
            regret = best_v - made_v
            if regret > TIE:
                p.loss += regret
            else:
                regret = 0.0
                best_v = made_v  # shown as the best move
            lk = best_v - p.end  # play.luck: the roll's luck, then the move's cost
            p.luck += lk
            p.end = made_v
            lucks.append(lk)
            if lk or regret:
                p.turn_on(lk, regret, m[0], m[2], m[3], _line(lines, m[0]))
            p.decisions += 1
            if m[8]:
                p.inferred += 1
            heap = p._heap
            p._seq += 1
            if len(heap) < WORST or regret > heap[0][0]:  # among the worst so far
                item = (regret, -p._seq, p._seq, _Ref(rows, i))
                if len(heap) < WORST:
                    heapq.heappush(heap, item)
                else:
                    heapq.heapreplace(heap, item)
        wins: list[WinCost] | None = None
        if wg is not None and asks:
            from .win_costs import win_costs

            wins = win_costs(rules, asks[1::5], wg.grade(cols, opps, len(names), stages, asks))
        if wins is not None:
            rows.wins = wins
            for m, w in zip(meta, wins, strict=True):
                summaries[m[1]].add_win(w)
        over = bool(written) and walk.game_over
        return GameAnalysis(rules, src.exact, src.label, summaries, rows if keep_decisions else [], len(written), over,
                            game, file, line, self.theta)

    def game(self, data: Mapping[str, Any], *, until: int | None = None, game: int = 0,
             keep_decisions: bool = True, file: str = "", line: int = 0,
             turn_lines: Sequence[int] | None = None, trusted: bool = False) -> GameAnalysis:
        """Grade one valid yahtzee-log/1 game (its first `until` turns when given). Raises
        GameError (every problem) when the log is not valid, InputError for a sheet. `line`: where the
        game starts in its input; `turn_lines`: where each turn does (default: every turn on `line`,
        as in NDJSON). `trusted`: see formats.logs.Document."""
        if isinstance(data, Mapping) and data.get("format") == SHEET_FORMAT:
            raise InputError("a score sheet has no turns to grade; grading needs a yahtzee-log/1 game log")
        lines: Sequence[int] | int = turn_lines or line
        fast = _fast_rules(data, until)
        if fast is not None:  # a log that may take the fast path: its grader first (the same as below)
            src = self.source(fast)
            grader = self._compiled(fast, src)
            if grader is not None:
                ga = self._fast(grader, fast, src, data, trusted, game, file, line, lines, keep_decisions)
                if ga is not None:
                    self.compiled_games += 1
                    return ga
        else:
            grader = None
        steps, walk = walk_steps(data, until=until)
        rules = resolve_rules(data["rules"])
        src = self.source(rules)
        s0 = self.start(rules)
        summaries = {nm: PlayerSummary(nm, games=1, start=s0, end=s0) for nm in dict.fromkeys(data["players"])}
        decisions: list[Decision] = []
        if fast is None:
            grader = self._compiled(rules, src)
        graded = self._grade_compiled(grader, rules, steps, game, file, lines) if grader is not None else None
        self.compiled_games += graded is not None
        every = graded if graded is not None else list(self.steps(rules, steps, game, file, lines))
        wins = self._win_costs(rules, data, len(summaries), every, steps, until)
        for i, d in enumerate(every):
            if wins is not None:
                d = dataclasses.replace(d, win=wins[i])
            d = summaries[d.player].add(d)
            if keep_decisions:
                decisions.append(d)
        over = bool(steps) and walk.game_over
        return GameAnalysis(rules, src.exact, src.label, list(summaries.values()), decisions, len(steps), over, game,
                            file, line, None if self.theta is None else src.theta)  # the theta in force


def _fast_rules(data: Mapping[str, Any], until: int | None) -> R.RuleSet | None:
    """The rule set of a log that may be graded on Analyzer._fast (its own rules, all of its turns,
    no saved rolls), else None."""
    if type(data) is not dict or type(data.get("turns")) is not list:
        return None
    if until is not None and until < len(data["turns"]):
        return None
    try:
        rules = resolve_rules(data["rules"])
    except (YahtzeeError, KeyError, TypeError, ValueError):
        return None
    return None if rules.settings.saved_rolls else rules


_POW = (0, 1, 7, 49, 343, 2401, 16807)  # 7 ** (face - 1): a roll's base-7 key of face counts, die by die
_KEEP, _STOP, _BOX = 0, 1, 2  # the kinds of _Rows' decisions
_KINDS: tuple[DecisionKind, ...] = ("keep", "stop", "box")


class _Rows(Sequence[Decision]):
    """The decisions of a game graded by Analyzer._fast, kept as the grader's numbers: a Decision is
    made when one is asked for, and `records` gives them all as JSON data straight from the numbers
    (what `analyze --json` writes for each game)."""

    def __init__(self, rules: R.RuleSet, names: Sequence[str], meta: list[Any], vals: list[list[float]],
                 picks: list[list[int]], game: int, file: str, lines: Sequence[int] | int,
                 lucks: list[float]) -> None:
        self.rules = rules
        self.names = names
        self.meta = meta  # (turn, player, round, roll, kind, dice, rolls left, kept, inferred, box written)
        self.vals = vals  # (value of the move made, of the best move)
        self.picks = picks  # grade_kernel's picks
        self.lucks = lucks  # the luck of the roll before each decision
        self.wins: list[WinCost] | None = None  # their win chances (games of two or more)
        self.game = game
        self.file = file
        self.lines = lines
        self._records: list[dict[str, Any]] | None = None  # records(), once made

    def __len__(self) -> int:
        return len(self.meta)

    @overload
    def __getitem__(self, i: int) -> Decision: ...

    @overload
    def __getitem__(self, i: slice) -> list[Decision]: ...

    def __getitem__(self, i: int | slice) -> Decision | list[Decision]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        t, pi, rnd, roll, kind, dice, left, kept, inferred, written = self.meta[i]
        made_v, best_v = self.vals[i]
        p = self.picks[i]
        regret = max(best_v - made_v, 0.0)
        rules = self.rules
        if kind != _BOX:
            best = P.Choice(best_v, keep=_dice_of_keep(rules.dice)[p[0]])
            made = P.Choice(made_v, regret, keep=tuple(sorted(kept)))
        else:
            best = (P.Choice(best_v, column=p[0], box=p[1], score=p[2], bonus=p[3]) if p[1] >= 0
                    else P.Choice(best_v, is_pass=True))
            nb = len(rules.boxes)
            made = (P.Choice(made_v, regret, is_pass=True) if written < 0
                    else P.Choice(made_v, regret, column=written // nb, box=written % nb, score=p[4], bonus=p[5]))
        return Decision(rules, t, self.names[pi], rnd, roll, _KINDS[kind], tuple(sorted(dice)), left, made,
                        made if regret <= TIE else best, regret if regret > TIE else 0.0, inferred, self.game,
                        self.file, _line(self.lines, t), self.lucks[i], None if self.wins is None else self.wins[i])

    def records(self, which: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """Every decision (or those of the indices `which`) as decision_dict writes it, from the numbers.
        Made once: a decision among a player's worst is the same record as in the game's list."""
        done = self._records
        if done is None:
            done = self._records = self._make_records()
        return done if which is None else [done[i] for i in which]

    def _make_records(self) -> list[dict[str, Any]]:
        rules = self.rules
        keys = rules.keys
        nb = len(rules.boxes)
        columns = rules.settings.columns > 1
        of_keep = _dice_of_keep(rules.dice)
        names = self.names
        game, file, lines = self.game, self.file, self.lines
        one_line = lines if isinstance(lines, int) else None
        paths = _paths(self.meta[-1][0] + 1 if self.meta else 0)
        kinds = _KINDS
        out: list[dict[str, Any]] = []
        append = out.append
        for (t, pi, rnd, roll, kind, dice, left, kept, inferred, written), (made_v, best_v), p, lk in zip(
                self.meta, self.vals, self.picks, self.lucks, strict=True):
            regret = best_v - made_v
            mv = round(made_v, DIGITS) or 0.0
            if kind != _BOX:
                made: dict[str, Any] = {"keep": sorted(kept), "value": mv}
            elif written < 0:
                made = {"pass": True, "value": mv}
            else:
                made = {"box": keys[written % nb]}
                if columns:
                    made["column"] = written // nb + 1
                made["score"] = p[4]
                if p[5]:
                    made["bonus"] = p[5]
                made["value"] = mv
            if regret <= TIE:
                best = made
                regret = 0.0
            else:
                regret = round(regret, DIGITS) or 0.0
                bv = round(best_v, DIGITS) or 0.0
                if kind != _BOX:
                    best = {"keep": list(of_keep[p[0]]), "value": bv}
                elif p[1] < 0:
                    best = {"pass": True, "value": bv}
                else:
                    best = {"box": keys[p[1]]}
                    if columns:
                        best["column"] = p[0] + 1
                    best["score"] = p[2]
                    if p[3]:
                        best["bonus"] = p[3]
                    best["value"] = bv
            if game:  # (dict literals: the fastest way to build them)
                append({"type": "decision", "file": file,
                        "line": one_line if one_line is not None else _line(lines, t), "game": game,
                        "turn": t + 1, "path": paths[t], "player": names[pi], "round": rnd, "roll": roll,
                        "decision": kinds[kind], "dice": sorted(dice), "rolls_left": left, "made": made,
                        "best": best, "regret": regret, "luck": round(lk, DIGITS) or 0.0, "inferred": inferred,
                        "win_probability": None, "win_cost": None, "win_best": None, "win_cost_se": None})
            else:
                append({"type": "decision", "turn": t + 1, "path": paths[t], "player": names[pi],
                        "round": rnd, "roll": roll, "decision": kinds[kind], "dice": sorted(dice),
                        "rolls_left": left, "made": made, "best": best, "regret": regret,
                        "luck": round(lk, DIGITS) or 0.0, "inferred": inferred,
                        "win_probability": None, "win_cost": None, "win_best": None, "win_cost_se": None})
        if self.wins is not None:
            for rec, w in zip(out, self.wins, strict=True):
                rec.update(win_dict(rules, w, rec["made"]))
        return out


_PATHS: list[str] = []  # "/turns/<t>", made once per turn index


def _paths(n: int) -> list[str]:
    """_PATHS with at least n entries."""
    paths = _PATHS
    while len(paths) < n:
        paths.append(f"/turns/{len(paths)}")
    return paths


class _Ref(NamedTuple):
    """A decision the fast path graded, by its place: made into a Decision (or a record) when read."""

    rows: _Rows
    at: int


@cache
def _dice_of_keep(n: int) -> list[tuple[int, ...]]:
    return keeps(n).dice


@dataclass(frozen=True, slots=True)
class _Ask:
    """One decision of a turn before it is valued: its kind, the rolls thrown, the dice showing, the
    rolls left, the dice kept (every die for a stop; none for a box), whether the keep was inferred,
    and whether every die was kept yet rolled again (`again`: worth the same dice with one roll fewer)."""

    kind: DecisionKind
    roll: int
    dice: R.Dice
    left: int
    kept: R.Dice = ()
    inferred: bool = False
    again: bool = False


def _asks(rules: R.RuleSet, st: TurnStep) -> Iterator[_Ask]:
    """The decisions of a turn with rolls, in order: a keep before each reroll (the `held` dice, or
    the dice common to the two rolls), a stop when the turn ended with rolls left, the box (or pass)."""
    allowed = R.rolls_allowed(rules, st.saved)
    n = len(st.rolls)
    for i in range(n - 1):
        dice = st.rolls[i]
        kept, inferred = (st.held[i], False) if st.held is not None else (infer_keep(dice, st.rolls[i + 1]), True)
        yield _Ask("keep", i + 1, dice, allowed - (i + 1), tuple(kept), inferred, len(kept) == len(dice))
    if st.in_progress:
        return
    last = st.rolls[-1]
    if n < allowed:
        yield _Ask("stop", n, last, allowed - n, last)
    yield _Ask("box", n, last, 0)




def _line(lines: Sequence[int] | int, index: int) -> int:
    """The input line of turn `index`: from the turns' lines, or the one line they all are on."""
    if isinstance(lines, int):
        return lines
    return lines[index] if index < len(lines) else (lines[-1] if lines else 0)


def _decision(rules: R.RuleSet, a: _Ask, made: P.Choice, best: P.Choice, st: TurnStep, rnd: int, game: int,
              file: str, line: int = 0) -> Decision:
    if not (math.isfinite(made.value) and math.isfinite(best.value)):  # so the JSON needs no scan for NaN
        raise ValueError("the strategy gave a non-finite value: its table is damaged; delete it from the cache")
    regret = made.regret if made.regret > TIE else 0.0
    return Decision(rules, st.index, st.name, rnd, a.roll, a.kind, a.dice, a.left, made,
                    made if made.regret <= TIE else best, regret, a.inferred, game, file, line)


# --------------------------------------------------------------------------- batches


class Totals:
    """Per-player totals over many games: expected loss, decisions, inferred keeps, games, the five
    worst decisions (with their game number). Players are matched as stats matches them
    (formats.players: `Mom` and `mom` are one player, shown as first spelled). Memory: a few numbers
    and five decisions per player, however many games are added."""

    def __init__(self) -> None:
        self.players: dict[str, PlayerSummary] = {}  # by player key
        self.names = PlayerNames()
        self.games = 0
        self.problems = 0  # games that could not be graded
        self.exact = True
        self.sources: dict[str, tuple[R.RuleSet, bool, str]] = {}  # fingerprint -> (rules, exact, source label)
        self.theta: float | None = None

    def add(self, ga: GameAnalysis) -> None:
        self.games += 1
        self.exact = self.exact and ga.exact
        self.theta = ga.theta
        self.sources.setdefault(ga.rules.fingerprint, (ga.rules, ga.exact, ga.source))
        for p in ga.players:
            name, key = self.names.add(p.name)
            acc = self.players.get(key)
            if acc is None:
                acc = self.players[key] = PlayerSummary(name)
            acc.merge(p)


# --------------------------------------------------------------------------- output


def _r(x: float) -> float:
    v = round(x, DIGITS)
    return 0.0 if v == 0 else v


def objective_dict(theta: float | None) -> dict[str, Any]:
    """What the grading optimises, as simulate and solve say it: {"risk", "objective"} (empty when
    no risk strategy was asked for)."""
    if theta is None:
        return {}
    from .simulate import objective, risk_name  # numpy: only once a risk table is in use

    return {"risk": theta, "objective": objective(risk_name(theta))}


def choice_dict(rules: R.RuleSet, c: P.Choice) -> dict[str, Any]:
    """A move as JSON data: {"keep": [...]} / {"box": key, "column"?, "score", "bonus"?} / {"pass": true},
    with its value (expected final grand total)."""
    return {**c.move_dict(rules), "value": _r(c.value)}


def decision_dict(d: Decision) -> dict[str, Any]:
    """One decision as JSON data (`replay --analyze --json`): where it was made (the file, the line of
    its turn and the game, once the game's place is known), the dice, the move made and the best."""
    rules = d.rules
    out: dict[str, Any] = {"type": "decision"}
    if d.game:
        out["file"] = d.file
        out["line"] = d.line
        out["game"] = d.game
    out.update({
        "turn": d.index + 1, "path": f"/turns/{d.index}", "player": d.player, "round": d.round, "roll": d.roll,
        "decision": d.kind, "dice": list(d.dice), "rolls_left": d.rolls_left,
        "made": choice_dict(rules, d.made), "best": choice_dict(rules, d.best), "regret": _r(d.regret),
        "luck": _r(d.luck), "inferred": d.inferred,
        **(win_dict(rules, d.win, d.made.move_dict(rules)) if d.win is not None
           else {"win_probability": None, "win_cost": None, "win_best": None, "win_cost_se": None}),
    })
    return out


def win_dict(rules: R.RuleSet, w: WinCost, made: Mapping[str, Any]) -> dict[str, Any]:
    """A decision's win chances as JSON data: the chance after the move made, what it cost, and the
    best move for winning with its chance (`made`, the move made as JSON data, when it is one of the
    best)."""
    move = made if w.best_move is None else w.best_move.move_dict(rules)
    return {"win_probability": _r(w.made), "win_cost": _r(w.cost),
            "win_best": {**{k: v for k, v in move.items() if k != "value"}, "win_probability": _r(w.best)},
            "win_cost_se": None if w.se is None else _r(w.se)}


LOSS_HEAD = ["file", "line", "game", "player", "rules", "expected_loss", "decisions", "inferred", "exact",
             "approximation", "expected_start", "luck", "expected_end", "turning_point", "turning_point_turn",
             "turning_point_roll", "turning_point_points", "win_cost", "win_cost_se"]


def loss_rows(ga: GameAnalysis) -> list[list[Any]]:
    """A graded game as rows, one per player (`analyze --csv`, LOSS_HEAD): where the game is, the
    player, the rules, the expected loss (--json's rounding), decisions, inferred keeps, the values'
    quality, then luck and skill: the expected total at the start, the luck, the expected total at
    the end (the total, once the game is over) and the turning point (kind, turn, roll, points)."""
    rows = []
    for p in ga.players:
        tp = p.turning
        rows.append([ga.file, ga.line, ga.game, p.name, ga.rules.name, _r(p.loss), p.decisions, p.inferred, ga.exact,
                     None if ga.exact else ga.source, _r(p.start), _r(p.luck), _r(p.end),
                     *((None, None, None, None) if tp is None else (tp.kind, tp.index + 1, tp.roll, _r(tp.points))),
                     None if p.win_cost is None else _r(p.win_cost),
                     None if p.win_cost_se is None else _r(p.win_cost_se)])
    return rows


def turning_dict(m: Moment | None) -> dict[str, Any] | None:
    """A turning point as JSON data: the roll or decision (`kind`), where (turn, path, round, roll,
    line) and the points it moved the expected total by (a roll's luck; minus a decision's cost)."""
    if m is None:
        return None
    return {"kind": m.kind, "turn": m.index + 1, "path": f"/turns/{m.index}", "round": m.round, "roll": m.roll,
            "line": m.line, "points": _r(m.points)}


def summary_dict(p: PlayerSummary, games: bool = False) -> dict[str, Any]:
    """A player's summary as JSON data (`games`: the totals of a batch, whose figures are sums over
    the player's games, with games played and each figure's mean per game; else one game's, with its
    turning point)."""
    out: dict[str, Any] = {"name": p.name, "expected_loss": _r(p.loss), "decisions": p.decisions,
                           "inferred": p.inferred, "expected_start": _r(p.start), "luck": _r(p.luck),
                           "expected_end": _r(p.end), "win_cost": None if p.win_cost is None else _r(p.win_cost),
                           "win_cost_se": None if p.win_cost_se is None else _r(p.win_cost_se)}
    if games:
        # the totals' figures are sums over the player's games; each has its mean beside it (`_per_game`)
        n = p.games
        out["games"] = n
        out["loss_per_game"] = _r(p.loss / n) if n else 0.0
        out["luck_per_game"] = _r(p.luck / n) if n else 0.0
        out["expected_start_per_game"] = _r(p.start / n) if n else 0.0
        out["expected_end_per_game"] = _r(p.end / n) if n else 0.0
    else:
        out["turning_point"] = turning_dict(p.turning)
    out["worst"] = p.worst_records()
    return out


# what grading against an approximate strategy only estimates (its values are not the optimal ones);
# the win chances (win_probability, win_cost, win_best) are then estimated too (WIN_ESTIMATES), from
# games played on, each cost with its standard error (win_cost_se)
ESTIMATES = ("expected_loss", "regret", "value", "luck", "expected_start", "expected_end", "turning_point")


WIN_ESTIMATES = ("win_probability", "win_cost", "win_best")  # estimated where there are no exact distributions


def _estimated(players: Iterable[PlayerSummary]) -> bool:
    """Whether these players' win chances are estimated (from games played on)."""
    return any(p.win_var is not None for p in players)


def game_dict(ga: GameAnalysis) -> dict[str, Any]:
    """A graded game as JSON data: where it was read, rules, exact/approximation, per-player summaries,
    every decision."""
    # the decisions first: a player's worst are the same records (made once, on the fast path)
    decisions = ga.decisions.records() if isinstance(ga.decisions, _Rows) else [
        decision_dict(d) for d in ga.decisions]
    out: dict[str, Any] = {"type": "game", "file": ga.file, "line": ga.line, "game": ga.game}
    out.update({
        "rules": ga.rules.record(), "exact": ga.exact, "approximation": None if ga.exact else ga.source,
        "estimates": ([] if ga.exact else list(ESTIMATES)) + (list(WIN_ESTIMATES) if _estimated(ga.players) else []),
        **objective_dict(ga.theta), "turns": ga.turns, "game_over": ga.game_over,
        "players": [summary_dict(p) for p in ga.players],
        "decisions": decisions,
    })
    return out


def totals_dict(t: Totals) -> dict[str, Any]:
    """The totals as JSON data (the last line of `analyze --json`, for one game as for many): games
    graded, games that could not be, and per player."""
    notes = [f"{rs.name}: {src}" for rs, exact, src in t.sources.values() if not exact]
    return {"type": "summary", "games": t.games, "problems": t.problems, "exact": t.exact,
            "approximation": "; ".join(notes) or None,
            "estimates": (list(ESTIMATES) if notes else [])
            + (list(WIN_ESTIMATES) if _estimated(t.players.values()) else []),
            **objective_dict(t.theta),
            "rule_sets": [{"rules": rs.record(), "exact": e, "approximation": None if e else src}
                          for rs, e, src in t.sources.values()],
            "players": [summary_dict(p, games=True) for p in t.players.values()]}
