"""Validate game logs and score sheets: every problem, each with a JSON Pointer and a sentence.

Checks are in two layers: the shape (the pydantic models of `yahtzee_cli.formats.logs`) and the rules
(always asked of `yahtzee_cli.rules`: placement and joker/fill-order legality, scores, bonuses,
passes, saved rolls, totals). `walk_log` replays a log turn by turn and is shared by `replay`,
the hint position and `replay --analyze`; `check_sheet` reads a paper sheet.

Speed: a batch is validated game by game with a fast path that walks the raw JSON with table
lookups and no pydantic; any anomaly (or any problem) sends the game down the exact path, which
validates the shape with pydantic and walks again to word every problem. The fast path only ever
*accepts* what the exact path accepts (tests/formats/test_validate.py checks this on random mutations).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import IllegalMove, ProblemCode, RulesError, pointer
from ..rules import engine as R
from ..rules.engine import Column, Dice, Option, RuleSet
from .logs import (
    LOG_FORMAT,
    Document,
    Kind,
    Problem,
    _show,
    check_schema,
    document_kind,
    iter_documents,
    resolve_rules,
    rules_problem,
    sheet_row,
)
from .poker_log import Match, walk_match

MAX_PROBLEMS = 1000  # per game; more are summarised in one last problem

_LOG_KEYS = frozenset({"format", "rules", "players", "turns", "meta"})
_TURN_KEYS = frozenset({"player", "rolls", "held", "column", "box", "score", "bonus"})


# --------------------------------------------------------------------------- per-rule-set tables


def _faces(dice: tuple[Any, ...]) -> bool:
    """Every die a face 1-6, as an int (a bool is not a die)."""
    return all(type(d) is int and 1 <= d <= 6 for d in dice)


class _Tables:
    """Lookups derived once per RuleSet: canonical (sorted) dice by raw tuple, sub-multisets of each
    roll (for held dice), box indices by written name, and the values each box can hold."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.n = rules.dice
        self.canon: dict[tuple[Any, ...], Dice] = {}
        self.subs: dict[Dice, frozenset[Dice]] = {}
        self.box_ids: dict[str, int] = {}
        self.possible: dict[int, frozenset[int]] = {}
        self.contexts: dict[tuple[Dice, int | None], R.RollContext] = {}
        # Dice as packed face counts (4 bits a face, plus _FULL when there are exactly n dice): a held
        # multiset h is within a roll r iff no field of (r + _GUARD) - h borrows. Raw (unsorted) tuples
        # of 0 to n ints 1-6 -> packed counts.
        self.dice_key: dict[tuple[Any, ...], int] = {}
        # the same, split for _fast_walk: whole rolls only (packed), and held dice as _GUARD - packed
        # (a miss in either is a list pack() has not seen, or one that is not a roll or not held dice)
        self.roll_key: dict[tuple[Any, ...], int] = {}
        self.held_key: dict[tuple[Any, ...], int] = {}
        self.by_key: dict[int, Dice] = {}  # packed counts of a roll (with _FULL) -> its sorted dice
        self.allowed: dict[int, int] = {}  # rules.rolls_allowed by saved rolls
        self.saved_left: dict[tuple[int, int], int] = {}  # rules.saved_after by (saved, rolls used)
        # Rolls allowed every turn when no turn can ever save a roll (saved stays 0), else 0.
        base = R.rolls_allowed(rules, 0)
        static = all(R.saved_after(rules, 0, n) <= 0 for n in range(1, base + 1))
        self.fixed_rolls = base if static else 0
        self.ncols = rules.settings.columns
        self.fill = rules.settings.fill_codes
        self.y = rules.yahtzee_index
        self.total_boxes = self.ncols * len(rules.boxes)
        self.blank: list[int | None] = [None] * len(rules.boxes)  # a column's scores before any turn
        # roll contexts by the Yahtzee box's score, then by packed roll: (context, rules.any_open_box)
        self.ctx_tables: dict[tuple[int | None, int], dict[int, tuple[R.RollContext, bool]]] = {}
        self.fresh = [self.ctx_table(None, c) for c in range(self.ncols)]

    def context(self, dice: Dice, yahtzee_score: int | None) -> R.RollContext:
        """rules.roll_context, memoised (a few hundred rolls times the Yahtzee box's few values)."""
        got = self.contexts.get((dice, yahtzee_score))
        if got is None:
            got = R.roll_context(self.rules, dice, yahtzee_score)
            if len(self.contexts) < 8192:
                self.contexts[(dice, yahtzee_score)] = got
        return got

    def rolls_allowed(self, saved: int) -> int:
        got = self.allowed.get(saved)
        if got is None:
            got = self.allowed[saved] = R.rolls_allowed(self.rules, saved)
        return got

    def saved_after(self, saved: int, used: int) -> int:
        got = self.saved_left.get((saved, used))
        if got is None:
            got = self.saved_left[(saved, used)] = max(0, R.saved_after(self.rules, saved, used))
        return got

    def ctx_table(self, yahtzee_score: int | None, column: int) -> dict[int, tuple[R.RollContext, bool]]:
        """The (context, any open box) memo of rolls by packed counts, for a Yahtzee box score in a
        column (columns differ by their fill rule)."""
        key = (yahtzee_score, self.fill[column])
        got = self.ctx_tables.get(key)
        if got is None:
            if len(self.ctx_tables) >= 64:  # a custom rule set's odd Yahtzee values: stay small
                self.ctx_tables.clear()
            got = self.ctx_tables[key] = {}
        return got

    def ctx_entry(self, table: dict[int, tuple[R.RollContext, bool]], packed: int,
                  yahtzee_score: int | None, column: int) -> tuple[R.RollContext, bool]:
        ctx = self.context(self.by_key[packed], yahtzee_score)
        got = table[packed] = (ctx, R.any_open_box(self.rules, ctx, column))
        return got

    def dice(self, raw: Any) -> Dice | None:
        """Sorted dice for a raw roll, or None when it is not `n` faces 1-6 (ints, not bools)."""
        key = tuple(raw)
        got = self.canon.get(key)
        if got is None and len(key) == self.n and _faces(key):
            got = self.canon[key] = tuple(sorted(key))
        return got

    def pack(self, raw: Any) -> int | None:
        """Packed counts of raw dice (0 to n ints 1-6, bools excluded; _FULL set for n dice), or None."""
        key = tuple(raw)
        got = self.dice_key.get(key)
        if got is not None:
            return got
        if len(key) > self.n or not _faces(key):
            return None
        packed: int = sum(1 << 4 * (v - 1) for v in key)
        if len(key) == self.n:
            packed |= _FULL
            self.by_key.setdefault(packed, tuple(sorted(key)))
        if len(self.dice_key) < 1 << 17:  # all of them for 5 dice; most for 6
            self.dice_key[key] = packed
            self.held_key[key] = _GUARD - packed
            if packed & _FULL:
                self.roll_key[key] = packed
        return packed

    def check_dice(self, raw_rolls: list[Any], held_raw: list[Any] | None) -> int | None:
        """The packed last roll when every roll is n dice 1-6 and each held list (when given) is within
        the roll before and the roll after it; None otherwise (the general case of _fast_walk)."""
        packs = [self.pack(r) for r in raw_rolls]
        for r in packs:
            if r is None or not r & _FULL:
                return None
        if held_raw is not None:
            for k, h in enumerate(held_raw):
                hp = self.pack(h)
                if hp is None or (packs[k] + _GUARD - hp) & (packs[k + 1] + _GUARD - hp) & _GUARD != _GUARD:  # type: ignore[operator]
                    return None
        return packs[-1]

    def sub_multisets(self, roll: Dice) -> frozenset[Dice]:
        got = self.subs.get(roll)
        if got is None:
            got = self.subs[roll] = frozenset(
                c for k in range(len(roll) + 1) for c in itertools.combinations(roll, k)
            )
        return got

    def box(self, name: str) -> int:
        i = self.box_ids.get(name)
        if i is None:
            i = self.rules.box_index(name)  # RulesError names the valid boxes
            if len(self.box_ids) < 4096:
                self.box_ids[name] = i
        return i

    def values(self, box: int) -> frozenset[int]:
        """rules.box_values, memoised."""
        got = self.possible.get(box)
        if got is None:
            got = self.possible[box] = R.box_values(self.rules, box)
        return got


_TABLES: dict[int, tuple[RuleSet, _Tables]] = {}


def tables(rules: RuleSet) -> _Tables:
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_TABLES) > 256:
        _TABLES.clear()
    t = _Tables(rules)
    _TABLES[id(rules)] = (rules, t)
    return t


# --------------------------------------------------------------------------- state


@dataclass(slots=True)  # (made for every game read: slots make them quicker to build and read)
class PlayerState:
    """A player's sheet while a game is walked: per column the written scores (None while open), the
    filled-box mask and the extra-Yahtzee bonus points; plus saved rolls and turns taken."""

    name: str
    scores: list[list[int | None]]
    filled: list[int]
    bonus: list[int]
    open_boxes: int
    saved: int = 0
    turns: int = 0

    @classmethod
    def new(cls, name: str, rules: RuleSet) -> PlayerState:
        ncols, nbox = rules.settings.columns, len(rules.boxes)
        return cls(name, [[None] * nbox for _ in range(ncols)], [0] * ncols, [0] * ncols, ncols * nbox)

    @property
    def columns(self) -> list[Column]:
        return [Column(tuple(s), b) for s, b in zip(self.scores, self.bonus, strict=True)]

    @property
    def is_full(self) -> bool:
        return self.open_boxes == 0


@dataclass(frozen=True)
class InProgress:
    """The last turn of a log when it has rolls but no box yet."""

    turn: int  # index in `turns`
    player: int  # index in `players`
    rolls: tuple[Dice, ...]  # sorted dice after each roll so far
    held: tuple[Dice, ...] | None  # dice kept before each reroll so far (when the log gives them)
    saved: int  # saved rolls the player had at the start of the turn
    rolls_used: int
    rolls_left: int

    @property
    def dice(self) -> Dice:
        return self.rolls[-1]


@dataclass(frozen=True)
class TurnStep:
    """One turn of a log as replayed, for `replay --analyze` and tools: the player's sheet *before*
    the decision, the rolls and held dice, and the choice (column, box) with what it wrote."""

    index: int  # turn index (JSON Pointer /turns/<index>)
    player: int  # index in `players`
    name: str
    columns: tuple[Column, ...]  # the player's sheet before the turn
    saved: int  # saved rolls available at the start of the turn
    rolls: tuple[Dice, ...]  # sorted dice after each roll
    held: tuple[Dice, ...] | None  # sorted dice kept before each reroll, when the log gives them
    column: int | None  # 0-based column written (None: passed or in progress)
    box: int | None  # box index written (None: passed or in progress)
    option: Option | None  # what the move wrote: score, bonus, joker (None: passed or in progress)
    passed: bool = False
    in_progress: bool = False
    illegal: str | None = None  # why the rules forbid the move (it was written anyway)


@dataclass(slots=True)
class LogWalk:
    """The result of walking a log: each player's state, whose turn is next, problems found."""

    rules: RuleSet
    players: list[PlayerState]
    problems: list[Problem] = field(default_factory=list)
    turns: int = 0  # turns walked
    in_progress: InProgress | None = None
    next_player: int | None = None  # whose turn it is (None when the game is over)
    last_player: int | None = None

    @property
    def game_over(self) -> bool:
        return all(p.is_full for p in self.players) and self.in_progress is None


def _fmt(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice)) if dice else "none"


def _next_open(players: list[PlayerState], after: int | None) -> int | None:
    n = len(players)
    start = 0 if after is None else after + 1
    for k in range(n):
        j = (start + k) % n
        if not players[j].is_full:
            return j
    return None


class _TooMany(Exception):
    pass


def walk_log(
    data: Mapping[str, Any],
    rules: RuleSet,
    *,
    until: int | None = None,
    check_claims: bool = True,
    steps: list[TurnStep] | None = None,
) -> LogWalk:
    """Replay a yahtzee-log/1 (already shape-checked: see `check_document`) under `rules`.

    Every rule problem is collected as a Problem (turn order, dice, held dice, rolls allowed, box
    unknown/filled/out of order/joker, claimed score and bonus, passes). `until`: walk the first N
    turns only. A move the rules forbid is reported and still written (at the value the rules give
    that box) unless the box is already filled, so later turns are checked against the sheet as the
    player kept it, and a recalculation under other settings counts it. `check_claims`: compare the
    claimed `score`/`bonus` (off when recalculating). `steps`: when a list is given, one TurnStep per
    turn is appended to it.
    """
    tb = tables(rules)
    names: list[str] = data["players"]
    turns: list[Any] = data.get("turns") or []
    index: dict[str, int] = {}
    dup: list[Problem] = []
    for j, nm in enumerate(names):
        if nm in index:
            dup.append(Problem(f"/players/{j}", f"player {_show(nm)} is listed twice; names must be unique",
                               ProblemCode.DUPLICATE_PLAYER))
        else:
            index[nm] = len(index)
    players = [PlayerState.new(nm, rules) for nm in index]  # a repeated name plays once
    walk = LogWalk(rules, players, dup)
    problems = walk.problems

    def problem(path: str, message: str, code: ProblemCode) -> None:
        if len(problems) >= MAX_PROBLEMS:
            problems.append(Problem(path, "too many problems; the rest of the game was not checked",
                                    ProblemCode.TOO_MANY_PROBLEMS))
            raise _TooMany
        problems.append(Problem(path, message, code))

    count = len(turns) if until is None else max(0, min(until, len(turns)))
    try:
        _walk_turns(walk, tb, turns, count, index, problem, check_claims, steps)
    except _TooMany:
        pass
    walk.turns = count
    if walk.in_progress is not None:
        walk.next_player = walk.in_progress.player
    else:
        walk.next_player = _next_open(players, walk.last_player)
    return walk


def _walk_turns(
    walk: LogWalk,
    tb: _Tables,
    turns: list[Any],
    count: int,
    index: dict[str, int],
    problem: Any,
    check_claims: bool,
    steps: list[TurnStep] | None,
) -> None:
    """The turn loop of walk_log: every problem worded (the fast path is `_fast_walk`). Each turn is
    checked in the order a player plays it: whose turn, the rolls and held dice, then an unfinished
    last turn, a pass, or the box written."""
    players = walk.players
    names = [p.name for p in players]
    last = len(turns) - 1
    cur: int | None = None  # who played last
    for t in range(count):
        turn = turns[t]
        expected = _next_open(players, cur)
        if expected is None:
            more = count - t
            problem(f"/turns/{t}", f"the game is already over (every sheet is full) but {more} more turn"
                    f"{'s follow' if more > 1 else ' follows'}", ProblemCode.AFTER_GAME_OVER)
            break
        name = turn["player"]
        pi = index.get(name)
        if pi is None:  # most likely a misspelt name: count it as the expected player's turn
            problem(f"/turns/{t}/player", f"unknown player {_show(name)}; players: {', '.join(names)}",
                    ProblemCode.UNKNOWN_PLAYER)
            cur = expected
            continue
        if pi != expected:
            problem(f"/turns/{t}/player", f"turn out of order: it is {names[expected]}'s turn, not {name}'s "
                    f"(players go round-robin: {', '.join(names)})", ProblemCode.TURN_OUT_OF_ORDER)
            if players[pi].open_boxes == 0:
                problem(f"/turns/{t}/player", f"{name}'s sheet is already full", ProblemCode.INVALID_VALUE)
                cur = pi
                continue
        cur = walk.last_player = pi
        rd = _read_rolls(tb, t, turn, pi, players[pi], problem)
        if "box" not in turn:
            _unfinished_turn(walk, rd, t == last, problem, steps)
            continue
        before = tuple(rd.p.columns) if steps is not None else ()
        rd.p.saved = max(0, R.saved_after(tb.rules, rd.saved, rd.nrolls))
        rd.p.turns += 1
        if turn["box"] is None:
            _passed_turn(tb, rd, before, check_claims, problem, steps)
        else:
            _written_turn(tb, rd, before, check_claims, problem, steps)


@dataclass
class _TurnRead:
    """One turn of a log as _walk_turns has read it: where and whose it is, the player's state, the
    rolls (None for a roll that is not n dice 1-6) and held lists, and the rolls allowed."""

    t: int
    turn: Mapping[str, Any]
    pi: int
    p: PlayerState
    saved: int  # saved rolls at the start of the turn
    allowed: int
    rolls: list[Dice | None]
    held_raw: Any

    @property
    def nrolls(self) -> int:
        return len(self.rolls)

    @property
    def dice(self) -> Dice | None:
        return self.rolls[-1]

    def known_rolls(self) -> tuple[Dice, ...]:
        return tuple(r for r in self.rolls if r is not None)

    def held(self) -> tuple[Dice, ...] | None:
        return _held(self.held_raw, self.nrolls)


def _read_rolls(tb: _Tables, t: int, turn: Mapping[str, Any], pi: int, p: PlayerState, problem: Any) -> _TurnRead:
    """A turn's rolls and held dice, every problem with them worded."""
    rules = tb.rules
    raw_rolls = turn["rolls"]
    nrolls = len(raw_rolls)
    saved = p.saved
    allowed = R.rolls_allowed(rules, saved)
    if nrolls > allowed:
        extra = f" (3 plus {saved} saved)" if rules.settings.saved_rolls else ""
        problem(f"/turns/{t}/rolls", f"{nrolls} rolls, but {allowed} are allowed this turn{extra}",
                ProblemCode.SAVED_ROLLS if extra else ProblemCode.TOO_MANY_ROLLS)
    rolls: list[Dice | None] = []
    for j, raw in enumerate(raw_rolls):
        d = tb.dice(raw)
        if d is None:
            if len(raw) != rules.dice:
                problem(f"/turns/{t}/rolls/{j}", f"{len(raw)} dice, but {rules.name} is played with {rules.dice}",
                        ProblemCode.DICE_COUNT)
            else:
                problem(f"/turns/{t}/rolls/{j}", "dice faces must be whole numbers 1-6", ProblemCode.INVALID_VALUE)
        rolls.append(d)
    held_raw = turn.get("held")
    if held_raw is not None:
        if len(held_raw) != nrolls - 1:
            problem(f"/turns/{t}/held", f"{len(held_raw)} held lists for {nrolls - 1} reroll"
                    f"{'s' if nrolls != 2 else ''}: give the dice kept before each reroll", ProblemCode.HELD_COUNT)
        for k, h in enumerate(held_raw[: nrolls - 1]):
            hk = tuple(sorted(h))
            for j, verb, code in ((k, "are kept from the roll before", ProblemCode.HELD_NOT_IN_PREVIOUS_ROLL),
                                  (k + 1, "must still show after the reroll", ProblemCode.HELD_NOT_IN_NEXT_ROLL)):
                r = rolls[j]
                if r is not None and hk not in tb.sub_multisets(r):
                    problem(f"/turns/{t}/held/{k}", f"held {_fmt(hk)} are not all in roll {j + 1} ({_fmt(r)}): "
                            f"held dice {verb}", code)
    return _TurnRead(t, turn, pi, p, saved, allowed, rolls, held_raw)


def _unfinished_turn(walk: LogWalk, rd: _TurnRead, is_last: bool, problem: Any,
                     steps: list[TurnStep] | None) -> None:
    """A turn without a box: allowed only as the game's last turn (then it is the turn in progress)."""
    t = rd.t
    if not is_last:
        problem(f"/turns/{t}", "no box: only the last turn of a game may be unfinished", ProblemCode.NO_BOX_MID_GAME)
        return
    if rd.turn.get("score") is not None:
        problem(f"/turns/{t}/score", "a score but no box: the turn is still in progress", ProblemCode.INVALID_VALUE)
    if rd.turn.get("bonus") is not None:
        problem(f"/turns/{t}/bonus", "a bonus but no box: the turn is still in progress", ProblemCode.INVALID_VALUE)
    if all(r is not None for r in rd.rolls):
        ip = walk.in_progress = InProgress(t, rd.pi, rd.known_rolls(), rd.held(), rd.saved, rd.nrolls,
                                           max(0, rd.allowed - rd.nrolls))
        if steps is not None:
            steps.append(TurnStep(t, rd.pi, rd.p.name, tuple(rd.p.columns), rd.saved, ip.rolls, ip.held, None, None,
                                  None, in_progress=True))


def _passed_turn(tb: _Tables, rd: _TurnRead, before: tuple[Column, ...], check_claims: bool, problem: Any,
                 steps: list[TurnStep] | None) -> None:
    """A turn passed (box null): allowed with must_zero off when nothing scores; it writes nothing."""
    rules = tb.rules
    t, dice = rd.t, rd.dice
    if dice is None:
        return
    opts = R.options(rules, rd.p.columns, dice)
    illegal = None
    if not R.may_pass(rules, opts):
        if rules.settings.must_zero:
            illegal = "passed (box null), but must_zero is on: every turn fills a box (a 0 if nothing fits)"
            code = ProblemCode.PASS_MUST_ZERO
        else:
            best = max(opts, key=lambda o: o.score + o.bonus)
            illegal = (f"passed (box null), but {_fmt(dice)} scores {best.score + best.bonus} in "
                       f"{rules.keys[best.box]}: a turn may pass only when nothing scores")
            code = ProblemCode.PASS_WHILE_SCORING
        problem(f"/turns/{t}/box", illegal, code)
    score, bonus_claim = rd.turn.get("score"), rd.turn.get("bonus")
    if check_claims and score:
        problem(f"/turns/{t}/score", f"claimed score {score}, but a passed turn writes nothing",
                ProblemCode.WRONG_SCORE)
    if check_claims and bonus_claim:
        problem(f"/turns/{t}/bonus", f"claimed bonus {bonus_claim}, but a passed turn earns nothing",
                ProblemCode.WRONG_BONUS)
    if steps is not None:
        steps.append(TurnStep(t, rd.pi, rd.p.name, before, rd.saved, rd.known_rolls(), rd.held(), None, None, None,
                              passed=True, illegal=illegal))


def _written_turn(tb: _Tables, rd: _TurnRead, before: tuple[Column, ...], check_claims: bool, problem: Any,
                  steps: list[TurnStep] | None) -> None:
    """A turn that writes a box (in a column): where, whether the rules allow it, the score and bonus
    it writes against those claimed."""
    rules = tb.rules
    ncols = rules.settings.columns
    keys = rules.keys
    y = rules.yahtzee_index
    t, turn, p, dice = rd.t, rd.turn, rd.p, rd.dice
    try:
        bi = tb.box(turn["box"])
    except RulesError as exc:
        problem(f"/turns/{t}/box", str(exc), exc.code)
        return
    col = turn.get("column")
    ci = 0
    if col is not None:
        if col > ncols:
            # (with one column this has always been an invalid value, not a column out of range)
            problem(f"/turns/{t}/column", f"column {col}, but {rules.name} sheets have {ncols} column"
                    f"{'s' if ncols > 1 else ''}",
                    ProblemCode.COLUMN_OUT_OF_RANGE if ncols > 1 else ProblemCode.INVALID_VALUE)
            return
        ci = col - 1
    elif ncols > 1:
        problem(f"/turns/{t}/column", f"{rules.name} sheets have {ncols} columns: say which with "
                f"\"column\": 1-{ncols}", ProblemCode.MISSING_COLUMN)
        return
    if dice is None:
        return
    filled = p.filled[ci]
    scores = p.scores[ci]
    ys = scores[y] if y is not None else None
    ctx = tb.context(dice, ys)
    value = R.box_score(rules, ctx, filled, bi, dice, ci)
    illegal = None
    if value is None:
        if filled >> bi & 1:
            where = f" in column {ci + 1}" if ncols > 1 else ""
            illegal = f"box {keys[bi]} is already filled{where}"
            code = ProblemCode.BOX_FILLED_IN_COLUMN if ncols > 1 else ProblemCode.BOX_FILLED
        else:
            try:
                R.place(rules, Column(tuple(scores), p.bonus[ci]), bi, dice, ci)
                illegal = f"{keys[bi]} is not allowed here"  # pragma: no cover - box_score and place agree
                code = ProblemCode.INVALID_VALUE  # pragma: no cover
            except IllegalMove as exc:
                illegal = str(exc)
                code = exc.code
        problem(f"/turns/{t}/box", illegal, code)
        if filled >> bi & 1:
            return
        # Written anyway (at the value the rules give that box), as on the player's sheet: later
        # turns are then checked against the sheet as it was kept, and a recalculation counts it.
        value = R.box_value(rules, bi, dice, filled, ys)
    bonus = ctx.bonus
    score, bonus_claim = turn.get("score"), turn.get("bonus")
    if check_claims and illegal is None:
        if score is not None and score != value:
            joker = " (as a joker)" if ctx.joker else ""
            problem(f"/turns/{t}/score", f"claimed score {score}, but {_fmt(dice)} scores {value} in "
                    f"{keys[bi]}{joker}", ProblemCode.WRONG_SCORE)
        if bonus_claim is not None and bonus_claim != bonus:
            problem(f"/turns/{t}/bonus", f"claimed bonus {bonus_claim}, but the turn earns {bonus}",
                    ProblemCode.WRONG_BONUS)
    scores[bi] = value
    p.filled[ci] = filled | (1 << bi)
    p.bonus[ci] += bonus
    p.open_boxes -= 1
    if steps is not None:
        steps.append(TurnStep(t, rd.pi, p.name, before, rd.saved, rd.known_rolls(), rd.held(), ci, bi,
                              Option(bi, value, bonus, ci, ctx.joker), illegal=illegal))


def _held(held_raw: Any, nrolls: int) -> tuple[Dice, ...] | None:
    if held_raw is None:
        return None
    return tuple(tuple(sorted(h)) for h in held_raw[: nrolls - 1])


_INT64_MAX = 2**63 - 1
_GUARD = sum(8 << 4 * i for i in range(6))  # the high bit of each face's 4-bit count
_FULL = 1 << 24  # packed dice: set when they are a whole roll (n dice)


def _fast_walk(data: dict[str, Any], rules: RuleSet, trusted: bool,
               written: list[tuple[int, int, int, int, int, int]] | None = None) -> LogWalk | None:
    """The validator's hot path: the same acceptance as the exact path (schema + walk_log) on raw
    JSON, with table lookups and no messages; None at the first thing it does not accept (the exact
    path then words every problem). `trusted`: the text held no `true` and no decimal or exponent
    numbers (see logs.Document), so dice need no per-die type checks. Kept equal to the exact path
    by a property test on random games and mutations (tests/formats/test_validate.py).

    Written for speed (about 2 µs a turn): few Python lines per turn, C-level maps for the dice.
    `written`: when a list is given, each finished turn is appended to it as (turn index, player,
    column, box, score, bonus), a pass with column and box -1 (see fast_turns)."""
    names = data["players"]
    turns = data.get("turns", [])
    if type(names) is not list or not names or type(turns) is not list:
        return None
    index: dict[str, int] = {}
    for nm in names:
        if type(nm) is not str or not nm or nm in index or not nm.isprintable() or nm != nm.strip():
            return None  # (the exact path words blank-edged and control-character names)
        index[nm] = len(index)
    tb = tables(rules)
    ncols = tb.ncols
    blank = tb.blank
    total = tb.total_boxes
    if ncols == 1:  # (as PlayerState.new, without its per-call lookups, and one list per column)
        players = [PlayerState(nm, [blank.copy()], [0], [0], total) for nm in names]
    else:
        players = [PlayerState(nm, [blank.copy() for _ in range(ncols)], [0] * ncols, [0] * ncols, total)
                   for nm in names]
    walk = LogWalk(rules, players, [])
    nplayers = len(players)
    following = [*range(1, nplayers), 0]  # following[cur]: who plays after cur (and after -1: player 0)
    one_col = ncols == 1
    y = tb.y
    # a miss gives None, which the packed arithmetic turns into a TypeError: typed as never missing
    roll_get: Callable[[tuple[Any, ...]], int] = tb.roll_key.get  # type: ignore[assignment]
    held_get: Callable[[tuple[Any, ...]], int] = tb.held_key.get  # type: ignore[assignment]
    roll_or_0 = tb.roll_key.get
    by_key = tb.by_key
    box_get = tb.box_ids.get
    fixed_rolls = tb.fixed_rolls  # rolls allowed every turn when no rolls are ever saved, else 0
    turn_keys = _TURN_KEYS
    guard = _GUARD
    # per player and column: the roll contexts for what the column's Yahtzee box holds now
    cmaps = list(map(list, itertools.repeat(tb.fresh, nplayers)))
    last = len(turns) - 1
    cur = -1
    for t, turn in enumerate(turns):
        # the turns the toolbox writes, these five keys or the four without "held", read by name (five or
        # four keys that are not these: a KeyError; not an object: a TypeError, and the exact path says);
        # any other turn in the general lane below
        n_keys = len(turn)
        try:
            if n_keys == 5:
                name, raw_rolls, held_raw, box, score = (turn["player"], turn["rolls"], turn["held"], turn["box"],
                                                         turn["score"])
                bonus_claim = col = None
            elif n_keys == 4:
                name, raw_rolls, box, score = turn["player"], turn["rolls"], turn["box"], turn["score"]
                held_raw = bonus_claim = col = None
            else:
                n_keys = 0
        except KeyError:
            n_keys = 0
        if not n_keys:
            if type(turn) is not dict or not turn.keys() <= turn_keys:
                return None
            get = turn.get
            name, raw_rolls, held_raw, box = get("player"), get("rolls"), get("held"), get("box")
            score, bonus_claim, col = get("score"), get("bonus"), get("column")
        expected = following[cur]
        p = players[expected]
        if not p.open_boxes:
            nxt = _next_open(players, cur)
            if nxt is None:
                return None  # a turn after the game is over
            expected = nxt
            p = players[nxt]
        if name != names[expected] or type(raw_rolls) is not list:  # names are unique non-empty strings
            return None
        cur = expected
        nrolls = len(raw_rolls)
        if not 0 < nrolls <= fixed_rolls and (fixed_rolls or not 0 < nrolls <= tb.rolls_allowed(p.saved)):
            return None
        if held_raw is not None and (type(held_raw) is not list or len(held_raw) != nrolls - 1):
            return None
        if not trusted and not (_all_ints(raw_rolls) and (held_raw is None or _all_ints(held_raw))):
            return None  # e.g. true, which equals 1 in the table lookups
        try:  # the common turns: a table lookup a list, then packed arithmetic; 0: the general check
            if nrolls == 3 and held_raw is not None:
                # (a call each: a third of the instructions of map() over the lists)
                a, b, c = raw_rolls
                d, e = held_raw
                r0, r1, roll = roll_get(tuple(a)), roll_get(tuple(b)), roll_get(tuple(c))
                h0, h1 = held_get(tuple(d)), held_get(tuple(e))
                if (r0 + h0) & (r1 + h0) & (r1 + h1) & (roll + h1) & guard != guard:
                    return None  # each held multiset within the roll before and the roll after it
            elif nrolls == 1:
                roll = roll_or_0(tuple(raw_rolls[0]), 0)
            elif nrolls == 2 and held_raw is not None:
                a, c = raw_rolls
                r0, roll = roll_get(tuple(a)), roll_get(tuple(c))
                h0 = held_get(tuple(held_raw[0]))
                if (r0 + h0) & (roll + h0) & guard != guard:
                    return None
            elif nrolls == 2:
                roll = roll_or_0(tuple(raw_rolls[0]), 0) and roll_or_0(tuple(raw_rolls[1]), 0)
            else:
                roll = 0
        except TypeError:  # a list the tables have not seen yet (None in the sums), or not a list at all
            roll = 0
        if not roll:
            got = tb.check_dice(raw_rolls, held_raw)
            if got is None:
                return None
            roll = got
        if box is None or col is not None or not one_col:  # in progress, a pass, a column: the slow lane
            if col is not None and not (type(col) is int and 1 <= col <= _INT64_MAX):
                return None
            if box is None:
                if "box" not in turn:  # an in-progress last turn
                    if t != last or score is not None or bonus_claim is not None:
                        return None
                    walk.in_progress = InProgress(t, expected, tuple(tb.dice(r) for r in raw_rolls),  # type: ignore[misc]
                                                  _held(held_raw, nrolls), p.saved, nrolls,
                                                  tb.rolls_allowed(p.saved) - nrolls)
                    break
                # a pass: rare, so asked of the rules in full
                if not ((score is None or type(score) is int) and (bonus_claim is None or type(bonus_claim) is int)):
                    return None
                if score or bonus_claim or not R.may_pass(rules, R.options(rules, p.columns, by_key[roll])):
                    return None
                if not fixed_rolls:
                    p.saved = tb.saved_after(p.saved, nrolls)
                p.turns += 1  # a pass; turns that fill a box are counted at the end
                if written is not None:
                    written.append((t, expected, -1, -1, 0, 0))
                continue
            if col is None or col > ncols:
                return None  # several columns: the turn must say which one there is
            ci = col - 1
        else:
            ci = 0
        if not fixed_rolls:
            p.saved = tb.saved_after(p.saved, nrolls)
        bi = box_get(box)
        if bi is None:
            if type(box) is not str:
                return None
            try:
                bi = tb.box(box)
            except RulesError:
                return None
        filled = p.filled[ci]
        entry = cmaps[expected][ci].get(roll)
        if entry is None:
            entry = tb.ctx_entry(cmaps[expected][ci], roll, p.scores[ci][y] if y is not None else None, ci)
        ctx, free = entry
        # where any open box takes the natural score (rules.any_open_box), skip rules.box_score
        if free and not filled >> bi & 1:
            value = ctx.scores[bi]
        else:
            maybe = R.box_score(rules, ctx, filled, bi, by_key[roll], ci)
            if maybe is None:
                return None
            value = maybe
        # (`score is value`: the same int object, so an int equal to it; small ints are shared objects)
        if ((score is not value and score is not None and (score != value or type(score) is not int))
                or (bonus_claim is not None and (bonus_claim != ctx.bonus or type(bonus_claim) is not int))):
            return None
        p.scores[ci][bi] = value
        p.filled[ci] = filled | (1 << bi)
        p.open_boxes -= 1
        if ctx.bonus:
            p.bonus[ci] += ctx.bonus
        if bi == y:
            cmaps[expected][ci] = tb.ctx_table(value, ci)
        if written is not None:
            written.append((t, expected, ci, bi, value, ctx.bonus))
    for p in players:
        p.turns += total - p.open_boxes
    walk.turns = len(turns)
    walk.last_player = None if cur < 0 else cur
    if walk.in_progress is not None:
        walk.next_player = walk.in_progress.player
    else:
        walk.next_player = _next_open(players, walk.last_player)
    return walk


def _all_ints(lists: list[Any]) -> bool:
    """Every roll and held list is a list of ints (not bools, not floats)."""
    for raw in lists:
        if not (type(raw) is list and all(type(v) is int for v in raw)):
            return False
    return True


# --------------------------------------------------------------------------- sheets


@dataclass
class SheetState:
    """A score sheet as read: each player's columns (as PlayerState), whether each column's bonus box
    was left empty, and problems."""

    rules: RuleSet
    players: list[PlayerState]
    bonus_open: list[list[bool]]
    problems: list[Problem] = field(default_factory=list)

    @property
    def bonus_box(self) -> bool:
        """Whether the sheet has a Yahtzee-bonus box to fill (the rules pay extra Yahtzees)."""
        return _bonus_unit(self.rules) > 0

    def unfinished_reason(self) -> str | None:
        for p, opens in zip(self.players, self.bonus_open, strict=True):
            if not p.is_full:
                return f"{p.name} has {p.open_boxes} open box{'es' if p.open_boxes != 1 else ''}"
            if self.bonus_box and any(opens):
                return f"{p.name}'s yahtzee_bonus box is empty (write 0 when there were no extra Yahtzees)"
        return None

    @property
    def finished(self) -> bool:
        return self.unfinished_reason() is None

    @property
    def next_player(self) -> int | None:
        """The player with the fewest filled boxes (the first such), while any box is open."""
        open_players = [i for i, p in enumerate(self.players) if not p.is_full]
        if not open_players:
            return None
        return max(open_players, key=lambda i: (self.players[i].open_boxes, -i))


def _unit_for(rules: RuleSet, yahtzee_score: int | None) -> int:
    """What one extra Yahtzee earns (rules.extra_bonus) in a column whose Yahtzee box holds `yahtzee_score`."""
    return R.extra_bonus(rules, (1,) * rules.dice, yahtzee_score)


def _bonus_unit(rules: RuleSet) -> int:
    """What one extra Yahtzee earns once the Yahtzee box holds its full value (0: no bonus box)."""
    y = rules.yahtzee_index
    return 0 if y is None else _unit_for(rules, rules.boxes[y].points)


def _ranges(values: frozenset[int]) -> str:
    vals = sorted(values)
    out: list[str] = []
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(str(vals[i]) if j - i < 2 else f"{vals[i]}-{vals[j]}")
        if j - i == 1:
            out.append(str(vals[j]))
        i = j + 1
    return ", ".join(out)


def check_sheet(data: Mapping[str, Any], rules: RuleSet, *, reprice_from: RuleSet | None = None) -> SheetState:
    """Read a yahtzee-sheet/1 (already shape-checked) under `rules`: every box value must be one some
    roll can write there; the yahtzee bonus a multiple of the extra bonus, paid only while the Yahtzee
    box holds its full value, and no more extra Yahtzees than other filled boxes; given derived rows
    and totals must add up. `reprice_from`: the bonus points were written under these rules; count
    the extra Yahtzees with them and price them under `rules` (a recalculation with --set)."""
    tb = tables(rules)
    s = rules.settings
    ncols = s.columns
    state = SheetState(rules, [], [])
    problems = state.problems
    seen_names: dict[str, int] = {}
    for pi, player in enumerate(data["players"]):
        name = player["name"]
        base = f"/players/{pi}"
        if name in seen_names:
            problems.append(Problem(f"{base}/name", f"player {_show(name)} is listed twice; names must be unique",
                                    ProblemCode.DUPLICATE_PLAYER))
        seen_names.setdefault(name, pi)
        ps = PlayerState.new(name, rules)
        state.players.append(ps)
        bonus_open = [True] * ncols
        state.bonus_open.append(bonus_open)
        if player.get("columns") is not None:
            cols = [(f"{base}/columns/{c}/boxes", col["boxes"]) for c, col in enumerate(player["columns"])]
            if len(cols) != ncols:
                problems.append(Problem(f"{base}/columns", f"{len(cols)} columns, but {rules.name} sheets have "
                                        f"{ncols}", ProblemCode.SHEET_COLUMN_COUNT))
        else:
            cols = [(f"{base}/boxes", player["boxes"])]
            if ncols > 1:
                problems.append(Problem(f"{base}/boxes", f"{rules.name} sheets have {ncols} columns: give "
                                        f"\"columns\": [{{\"boxes\": ...}}, ...] with {ncols} entries",
                                        ProblemCode.SHEET_COLUMN_COUNT))
        for ci, (path, boxes) in enumerate(cols[:ncols]):
            given, bonus_key, bonus_value = _sheet_boxes(tb, ps, ci, path, boxes, problems)
            refused = None  # a bonus box found wrong: the derived rows are checked with it as written
            if bonus_value is not None:
                bonus_open[ci] = False
                before = len(problems)
                _sheet_bonus(rules, ps, ci, path + pointer([bonus_key]), bonus_value, reprice_from or rules,
                             problems)
                if len(problems) > before:
                    refused = bonus_value
            if given:
                _sheet_derived_rows(rules, ps, ci, given, problems, refused)
        if player.get("total") is not None and len(cols) == ncols:
            total = R.sheet_total(rules, ps.columns)
            if player["total"] != total:
                problems.append(Problem(f"{base}/total", f"total is {player['total']}, but the columns make it "
                                        f"{total}", ProblemCode.SHEET_TOTAL_WRONG))
    return state


def _sheet_boxes(tb: _Tables, ps: PlayerState, ci: int, path: str, boxes: Mapping[str, Any],
                 problems: list[Problem]) -> tuple[dict[str, tuple[str, int]], str, int | None]:
    """One column of a sheet written into `ps`: each box's value checked against what a roll can
    write there. Returns the derived rows given (row -> (pointer, value)), the key naming the
    yahtzee_bonus box and its value (None while empty)."""
    rules = tb.rules
    scores = ps.scores[ci]
    given: dict[str, tuple[str, int]] = {}
    named: dict[int, str] = {}
    bonus_value: int | None = None
    bonus_key = ""
    for key, value in boxes.items():
        kpath = path + pointer([key])
        try:
            what, ref = sheet_row(rules, key)
        except RulesError as exc:
            problems.append(Problem(kpath, str(exc), ProblemCode.SHEET_UNKNOWN_BOX))
            continue
        if what == "box":
            assert isinstance(ref, int)
            if ref in named:
                problems.append(Problem(kpath, f"{_show(key)} and {_show(named[ref])} both name box "
                                        f"{rules.keys[ref]}", ProblemCode.SHEET_DUPLICATE_BOX))
                continue
            named[ref] = key
            if value is None:
                continue
            if value not in tb.values(ref):
                problems.append(Problem(kpath, f"{value} is a score no roll can write in {rules.keys[ref]} "
                                        f"(possible: {_ranges(tb.values(ref))})", ProblemCode.SHEET_IMPOSSIBLE_SCORE))
            scores[ref] = value
            ps.filled[ci] |= 1 << ref
            ps.open_boxes -= 1
        elif what == "bonus":
            if bonus_key:
                problems.append(Problem(kpath, f"{_show(key)} and {_show(bonus_key)} both name the "
                                        "yahtzee_bonus box", ProblemCode.SHEET_DUPLICATE_BOX))
                continue
            bonus_key = key
            if value is not None:
                bonus_value = value
        else:
            assert isinstance(ref, str)
            if value is not None:
                given[ref] = (kpath, value)
    return given, bonus_key, bonus_value


def _sheet_bonus(rules: RuleSet, ps: PlayerState, ci: int, bpath: str, bonus_value: int, unit_src: RuleSet,
                 problems: list[Problem]) -> None:
    """The extra-Yahtzee bonus written in a column: a multiple of the extra bonus (as `unit_src`
    paid it), paid only while the Yahtzee box holds its full value, no more extra Yahtzees than
    other filled boxes. Writes the bonus (priced under `rules`) into `ps`."""
    y = rules.yahtzee_index
    ys = ps.scores[ci][y] if y is not None else None
    unit = _bonus_unit(unit_src)
    ybox = rules.keys[y] if y is not None else "yahtzee"
    if unit == 0:
        if bonus_value:
            problems.append(Problem(bpath, f"{unit_src.name} pays no extra-Yahtzee bonus "
                                    "(extra_yahtzee_bonus is 0), so yahtzee_bonus must be 0",
                                    ProblemCode.SHEET_BONUS_NOT_MULTIPLE))
    elif bonus_value % unit:
        problems.append(Problem(bpath, f"yahtzee_bonus {bonus_value} is not a multiple of the "
                                f"extra bonus {unit}", ProblemCode.SHEET_BONUS_NOT_MULTIPLE))
    elif bonus_value and _unit_for(unit_src, ys) == 0:
        held = "nothing" if ys is None else str(ys)
        problems.append(Problem(bpath, f"yahtzee_bonus is {bonus_value}, but the {ybox} box holds "
                                f"{held}: extra Yahtzees earn a bonus only while it holds "
                                f"{rules.boxes[y].points if y is not None else 50}",
                                ProblemCode.SHEET_BONUS_WITHOUT_YAHTZEE))
    else:
        n_extra = bonus_value // unit
        others = bin(ps.filled[ci] & ~(1 << y if y is not None else 0)).count("1")
        if n_extra > others:
            problems.append(Problem(bpath, f"yahtzee_bonus {bonus_value} means {n_extra} extra "
                                    f"Yahtzees, but each fills a box and only {others} other boxes "
                                    "are filled", ProblemCode.SHEET_BONUS_TOO_MANY))
        ps.bonus[ci] = n_extra * _unit_for(rules, ys)


def _sheet_derived_rows(rules: RuleSet, ps: PlayerState, ci: int, given: Mapping[str, tuple[str, int]],
                        problems: list[Problem], refused_bonus: int | None = None) -> None:
    """Derived rows written on the sheet (upper sum, bonus, totals) must be what its boxes make. A
    yahtzee_bonus box found wrong (`refused_bonus`, reported on its own) is added as written, and
    named, so the sums in the messages add up to what the sheet shows."""
    bonus = ps.bonus[ci] if refused_bonus is None else refused_bonus
    ct = R.column_totals(rules, Column(tuple(ps.scores[ci]), bonus))
    actual = {"upper_sum": ct.upper_sum, "upper_bonus": ct.upper_bonus, "upper_total": ct.upper_total,
              "lower_total": ct.lower_total, "grand_total": ct.total}
    for row, (gpath, value) in given.items():
        if value != actual[row]:
            note = (f" (with yahtzee_bonus {refused_bonus} as written)"
                    if refused_bonus is not None and row in ("lower_total", "grand_total") else "")
            problems.append(Problem(gpath, f"{row} is {value}, but the boxes make it {actual[row]}{note}",
                                    ProblemCode.SHEET_TOTAL_WRONG))


# --------------------------------------------------------------------------- one game, a stream


@dataclass(slots=True)
class GameReport:
    """The verdict on one game of an input: its number and line, its format, every problem, and the
    walked state (a LogWalk for logs, a SheetState for sheets) when the rules could be read."""

    index: int
    line: int
    kind: Kind | None
    problems: list[Problem]
    rules: RuleSet | None = None
    log: LogWalk | None = None
    sheet: SheetState | None = None
    match: Match | None = None  # a poker-dice match (poker-log/1)
    doc: Document | None = None  # the document read, to find the line of each problem

    def line_of(self, problem: Problem) -> int:
        """The input line of the value a problem is about (the game's own line for NDJSON)."""
        return self.doc.line_of(problem.path) if self.doc is not None else self.line

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def finished(self) -> bool:
        if self.log is not None:
            return self.log.game_over
        if self.sheet is not None:
            return self.sheet.finished
        if self.match is not None:
            return self.match.over
        return False


def _fast_log(data: Any, trusted: bool) -> LogWalk | None:
    """The fast path: a finished check when the log is valid, None to take the exact path."""
    if type(data) is not dict or not data.keys() <= _LOG_KEYS or data.get("format") != LOG_FORMAT:
        return None
    meta = data.get("meta")
    if meta is not None and type(meta) is not dict:
        return None
    try:
        rules = resolve_rules(data["rules"])
        return _fast_walk(data, rules, trusted)
    except (RulesError, KeyError, TypeError, AttributeError, IndexError):
        return None


def fast_turns(data: Any, rules: RuleSet, trusted: bool = False
               ) -> tuple[LogWalk, list[tuple[int, int, int, int, int, int]]] | None:
    """A valid log walked on the fast path (the same acceptance as check_document), with every finished
    turn as (turn index, player index, column, box, score, bonus), a pass with column and box -1, in
    order: what grading reads, without a TurnStep per turn. `rules`: the log's own, resolved. None
    when the fast path does not accept the log (not valid, or unusual: the exact path then says)."""
    if type(data) is not dict or not data.keys() <= _LOG_KEYS or data.get("format") != LOG_FORMAT:
        return None
    meta = data.get("meta")
    if meta is not None and type(meta) is not dict:
        return None
    written: list[tuple[int, int, int, int, int, int]] = []
    try:
        walk = _fast_walk(data, rules, trusted, written)
    except (RulesError, KeyError, TypeError, AttributeError, IndexError):
        return None
    return None if walk is None else (walk, written)


def check_document(data: Any, *, index: int = 1, line: int = 1, trusted: bool = False) -> GameReport:
    """Every problem of one parsed game document (a log or a sheet). `trusted`: see logs.Document."""
    walk = _fast_log(data, trusted)
    if walk is not None:
        return GameReport(index, line, "log", [], walk.rules, log=walk)
    kind, problems = check_schema(data)
    if kind is None or problems:
        return GameReport(index, line, kind, problems)
    if kind == "poker":
        match = walk_match(data)
        return GameReport(index, line, kind, match.problems, match=match)
    try:
        rules = resolve_rules(data["rules"])
    except RulesError as exc:
        return GameReport(index, line, kind, [rules_problem(exc, data["rules"])])
    if kind == "log":
        walk = walk_log(data, rules)
        return GameReport(index, line, kind, walk.problems, rules, log=walk)
    sheet = check_sheet(data, rules)
    return GameReport(index, line, kind, sheet.problems, rules, sheet=sheet)


def check_game(data: Any) -> list[Problem]:
    """Every problem of one game given as JSON data (a dict, e.g. written by the simulator); [] if valid."""
    return check_document(data).problems


def report_document(doc: Document) -> GameReport:
    if doc.problem is not None:
        return GameReport(doc.index, doc.line, None, [doc.problem])
    report = check_document(doc.data, index=doc.index, line=doc.line, trusted=doc.trusted)
    if report.problems:
        report.doc = doc
    return report


def validate_stream(stream: IO[bytes]) -> Iterator[GameReport]:
    """A GameReport per game of a binary stream (one document or NDJSON), read with flat memory.
    Raises errors.InputError when the input as a whole is unreadable."""
    for doc in iter_documents(stream):
        yield report_document(doc)


__all__ = [
    "GameReport",
    "InProgress",
    "LogWalk",
    "PlayerState",
    "SheetState",
    "TurnStep",
    "check_document",
    "check_game",
    "check_sheet",
    "document_kind",
    "fast_turns",
    "validate_stream",
    "walk_log",
]
