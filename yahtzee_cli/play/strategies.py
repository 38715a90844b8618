"""Simulation strategies that are not the solver's: `random` (a compiled kernel) and user strategies
(`module:function`, plain Python called per decision). Both return `games.GameBatch`.

Dice, for every strategy (the convention of the solver's `play`): game g, seat s of a run with seed S
draws its dice from `rng.stream(S, g, s)` with `rng.next_die`; the first roll draws every die into
positions 0..n-1 in order; before a reroll the kept dice are sorted ascending into positions 0..k-1
and the n - k rerolled dice are drawn into positions k..n-1 in order (as `solver.policy.play` documents).
So a game depends only on (seed, game, seat) and the strategy's choices, never on chunking, workers
or backend.

`random` is uniform over legal moves, exactly:
  * before each reroll the player picks uniformly one of the 2**n subsets of the n dice (by position,
    i.e. each die is kept with probability 1/2, independently); keeping all n dice means stopping
    (the remaining rolls are not used; under saved_rolls they are saved);
  * then one of the legal (column, box) places of the final roll, uniformly (legality from the rules
    module's int-only functions, compiled); `random` never passes a turn (a pass is never required).
  Its choices come from a second stream derived from the dice stream, so its dice follow the same
  convention as every other strategy's.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from numba import uint64

from ..errors import IllegalMove, MissingFile, RulesError, StrategyError
from ..rules import engine as R
from ..solver import compiled
from ..solver.games import GameBatch
from ..solver.jit import njit
from ..solver.rng import mix, next_die, stream
from ..solver.tables import rule_arrays
from ..solver.totals import on_threads, sheet_totals
from ..strategy.space import state_space

# --------------------------------------------------------------------------- compiled rules

_legal_bits = compiled.legal_bits
_joker_now = compiled.joker_now
_joker_full_value = compiled.joker_full_value
_extra_bonus_points = compiled.extra_bonus_points
_upper_bonus_points = compiled.upper_bonus_points
_weighted_total = compiled.weighted_total
_roll_budget = compiled.roll_budget
_rolls_left_over = compiled.rolls_left_over

_DECISION_SALT = np.uint64(0x5EED5EED0D1CE5)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FORCED = compiled.FORCED


@njit(cache=True, inline="always")
def _next_u64(state: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - compiled
    state = uint64(state) + _GOLDEN
    return mix(state), state


@njit(cache=True)
def _uniform(state: np.uint64, n: int) -> tuple[int, np.uint64]:  # pragma: no cover - compiled
    """An unbiased integer in [0, n) (Lemire's multiply-shift with rejection on 32-bit draws)."""
    nn = uint64(n)
    while True:
        z, state = _next_u64(state)
        m = (z >> uint64(32)) * nn
        low = m & uint64(0xFFFFFFFF)
        if low >= nn or low >= (uint64(0x100000000) - nn) % nn:
            return int(m >> uint64(32)), state


@njit(cache=True, inline="always")
def _open_boxes(column: Any, ybox: int) -> tuple[int, bool]:  # pragma: no cover - compiled
    """A column's open boxes (bits) from its scores (-1 open), and whether its Yahtzee box is filled."""
    open_ = 0
    for b in range(column.shape[0]):
        if column[b] < 0:
            open_ |= 1 << b
    return open_, ybox >= 0 and column[ybox] >= 0


@njit(cache=True, nogil=True)
def _random_block(lo: int, hi: int, game: Any, ra: Any, record: bool, out: Any,
                  log: Any) -> None:  # pragma: no cover - compiled
    """Games lo..hi - 1 played by `random`.

    Parameters
    ----------
    lo, hi : int
        The games (rows of `out` and `log`).
    game : (int, int, int)
        (seed, first game, seat): game i rolls rng.stream(seed, first game + i, seat).
    ra : tables.RuleArrays
        The rule set's arrays.
    record : bool
        Write `log`.
    out : (int64[G, C, B], int64[G, C])
        Written: scores and extra bonuses.
    log : (rolls, held, n_rolls, column, box)
        Written when `record`: the games' dice and choices ([game, turn, ...]).
    """
    seed, first_game, seat = game
    scores, ybonus = out
    rolls_out, held_out, nrolls_out, col_out, box_out = log
    n_cols, natural, joker, yroll, own_bit = ra.n_cols, ra.natural, ra.joker, ra.yroll, ra.own_bit
    keep_index, roll_of_keep, lower_bits = ra.keep_index, ra.roll_of_keep, ra.lower_bits
    ybox, ypoints = ra.ybox, ra.ypoints
    extra, joker_code, fill, saved_rolls = ra.extra, ra.joker_code, ra.fill, ra.saved_rolls
    n_boxes = scores.shape[2]
    n_dice = rolls_out.shape[3]
    full_keep = (1 << n_dice) - 1
    dice = np.zeros(n_dice, dtype=np.int64)
    kept = np.zeros(n_dice, dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    masks = np.zeros(n_cols, dtype=np.int64)
    n_turns = n_cols * n_boxes
    for i in range(lo, hi):
        st = stream(seed, first_game + i, seat)
        ds = mix(st ^ _DECISION_SALT)
        saved = 0
        for c in range(n_cols):
            for b in range(n_boxes):
                scores[i, c, b] = -1
            ybonus[i, c] = 0
        for t in range(n_turns):
            budget = _roll_budget(saved_rolls, saved)
            st = compiled.roll_dice(dice, kept, 0, st)
            if record:
                for k in range(n_dice):
                    rolls_out[i, t, 0, k] = dice[k]
            used = 1
            while used < budget:
                z, ds = _next_u64(ds)
                keep = int(z >> uint64(64 - n_dice))
                if keep == full_keep:
                    break
                nk = 0
                for k in range(n_dice):
                    if keep >> k & 1:
                        kept[nk] = dice[k]
                        nk += 1
                for a in range(1, nk):  # sort the kept dice (insertion: numba's sort is seconds to compile)
                    v = kept[a]
                    b = a - 1
                    while b >= 0 and kept[b] > v:
                        kept[b + 1] = kept[b]
                        b -= 1
                    kept[b + 1] = v
                st = compiled.roll_dice(dice, kept, nk, st)
                if record:
                    compiled.record_reroll(held_out, rolls_out, i, t, used, kept, nk, dice)
                used += 1
            saved = _rolls_left_over(saved_rolls, saved, used, ra.saved_cap)
            r = compiled.roll_of_dice(dice, counts, keep_index, roll_of_keep)
            total = 0
            for c in range(n_cols):
                open_, yfilled = _open_boxes(scores[i, c], ybox)
                jok = _joker_now(joker_code, ybox >= 0, yfilled, yroll[r])
                m = _legal_bits(open_, fill[c], jok and joker_code == _FORCED, own_bit[r], lower_bits)
                masks[c] = m
                while m:
                    m &= m - 1
                    total += 1
            pick, ds = _uniform(ds, total)
            for c in range(n_cols):
                m = masks[c]
                for b in range(n_boxes):
                    if m >> b & 1:
                        if pick == 0:
                            open_, yfilled = _open_boxes(scores[i, c], ybox)
                            yfull = yfilled and scores[i, c, ybox] == ypoints
                            jok = _joker_now(joker_code, ybox >= 0, yfilled, yroll[r])
                            if _joker_full_value(jok, open_, own_bit[r]):
                                scores[i, c, b] = joker[r, b]
                            else:
                                scores[i, c, b] = natural[r, b]
                            ybonus[i, c] += _extra_bonus_points(yroll[r], yfull, extra)
                            if record:
                                col_out[i, t] = c
                                box_out[i, t] = b
                                nrolls_out[i, t] = used
                        pick -= 1


def random_play(rules: R.RuleSet, seed: int, first_game: int, n_games: int, seat: int = 0,
                record: bool = False, threads: int | None = None) -> GameBatch:
    """Games `first_game` .. `first_game + n_games - 1` of a run with `seed`, played by `random`.
    `threads`: threads for this call (default: one per core); never changes the games."""
    ra = rule_arrays(rules, state_space(rules).nyt)
    n_cols = rules.settings.columns
    n_boxes = len(rules.boxes)
    n_turns = n_cols * n_boxes
    scores = np.empty((n_games, n_cols, n_boxes), dtype=np.int64)
    ybonus = np.zeros((n_games, n_cols), dtype=np.int64)
    max_rolls = R.most_rolls(rules, n_turns) if record else 1
    rg, rt = (n_games, n_turns) if record else (1, 1)
    rolls_out = np.zeros((rg, rt, max_rolls, rules.dice), dtype=np.int64)
    held_out = np.zeros((rg, rt, max(max_rolls - 1, 1), rules.dice), dtype=np.int64)
    nrolls = np.zeros((rg, rt), dtype=np.int64)
    col = np.zeros((rg, rt), dtype=np.int64)
    box = np.zeros((rg, rt), dtype=np.int64)
    def block(lo: int, hi: int) -> None:
        _random_block(lo, hi, (seed, first_game, seat), ra, record, (scores, ybonus),
                      (rolls_out, held_out, nrolls, col, box))

    on_threads(block, n_games, threads)
    totals, _ = sheet_totals(rules, scores, ybonus)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if record:
        used = int(nrolls.max()) if n_games else 1
        batch.rolls = rolls_out[:, :, :used]
        batch.held = held_out[:, :, : max(used - 1, 0)]
        batch.n_rolls = nrolls
        batch.column = col
        batch.box = box
        batch.n_turns = np.full(n_games, n_turns, dtype=np.int64)
    return batch


# --------------------------------------------------------------------------- user strategies

# A user strategy's turn as recorded: the dice after each roll, the dice held before each reroll,
# the column and box written (-1, -1 for a pass).
TurnRecord = tuple[list[list[int]], list[list[int]], int, int]


class ChunkCancelled(RuntimeError):
    """A chunk given up at the caller's request (an interrupted run)."""


@dataclass(frozen=True)
class BotView:
    """What a user strategy sees at each decision.

    rules       the rule set (rules.RuleSet)
    columns     the player's sheet: one rules.Column per column (scores, None while open; yahtzee_bonus)
    dice        the dice showing, by position (after a reroll: the kept dice sorted, then the new ones)
    rolls_left  rerolls still allowed this turn (0: the answer must be a box)
    roll        which roll of the turn this is (1 = the first)
    turn        the player's turn number in this game (1 = the first), as in every output
    game, seat  the game's number in the run and the player's seat (1 = the first), as in every output
    options     every legal place for `dice` now (rules.options: box, score, bonus, column, joker)
    may_pass    a pass (answer None) is allowed: must_zero is off and nothing scores
    """

    rules: R.RuleSet
    columns: tuple[R.Column, ...]
    dice: tuple[int, ...]
    rolls_left: int
    roll: int
    turn: int
    game: int
    seat: int
    options: tuple[R.Option, ...] = field(repr=False)
    may_pass: bool = False

    @property
    def score(self) -> int:
        """The sheet's total so far."""
        return R.sheet_total(self.rules, self.columns)

    def box_name(self, option: R.Option) -> str:
        return self.rules.keys[option.box]


UserStrategy = Callable[[BotView], Any]


@cache
def load_user_strategy(spec: str) -> UserStrategy:
    """`module:function` (an importable module) or `path/to/file.py:function`."""
    if ":" not in spec:
        from ..text import did_you_mean

        raise StrategyError(f"unknown strategy {spec!r}{did_you_mean(spec.lower(), ('optimal', 'greedy', 'random'))}; "
                            "valid: optimal, greedy, random, or module:function")
    mod_name, _, func_name = spec.rpartition(":")
    if mod_name.endswith(".py") and not os.path.exists(mod_name):
        raise MissingFile(mod_name)
    try:
        if mod_name.endswith(".py"):
            name = f"yahtzee_user_strategy_{zlib.crc32(mod_name.encode()):08x}"
            loader = importlib.util.spec_from_file_location(name, mod_name)
            if loader is None or loader.loader is None:
                raise ImportError(f"cannot load {mod_name}")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # anything user code raises on import (sys.exit too) is the strategy's error
        raise StrategyError(f"cannot import strategy module {mod_name!r}: {type(exc).__name__}: {said(exc)}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise StrategyError(f"strategy {spec!r}: {mod_name} has no function {func_name!r}")
    return func  # type: ignore[no-any-return]


def said(exc: BaseException) -> str:
    """What an exception from user code says; its own __str__ may raise too (then its type's name)."""
    try:
        return str(exc)
    except Exception:
        return f"<a {type(exc).__name__} that cannot be shown>"


class _Shown(str):
    """A value from a bot's answer that is not a die, kept as its repr for messages."""

    def __repr__(self) -> str:
        return str(self)


def plain_answer(answer: Any) -> Any:
    """A bot's answer as plain data before it is read: None, an Option of whole numbers, a list of whole
    numbers (anything else in it kept as its repr), or text. The bot's own methods (__str__, __iter__,
    __repr__, __eq__) run here, in its call, so an exception in them is the bot's error, not ours."""
    if answer is None:
        return None
    if isinstance(answer, R.Option):
        if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in (answer.box, answer.column)):
            raise TypeError(f"an Option needs whole numbers for box and column, got {type(answer.box).__name__} "
                            f"and {type(answer.column).__name__}")
        return dataclasses.replace(answer, box=int(answer.box), column=int(answer.column))
    if isinstance(answer, list | tuple | np.ndarray):
        return [int(v) if isinstance(v, int | np.integer) and not isinstance(v, bool) else _Shown(repr(v))
                for v in list(answer)]
    return str.__str__(answer) if isinstance(answer, str) else str(answer)


def _take_keep(answer: Sequence[int], dice: tuple[int, ...]) -> list[int] | None:
    """The positions of the kept dice (kept values matched left to right), or None if not a sub-multiset."""
    free = list(range(len(dice)))
    out: list[int] = []
    for v in answer:
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            return None
        hit = next((p for p in free if dice[p] == v), None)
        if hit is None:
            return None
        free.remove(hit)
        out.append(hit)
    return sorted(out)


def _find_place(rules: R.RuleSet, columns: Sequence[R.Column], answer: Any, opts: Sequence[R.Option],
                dice: tuple[int, ...]) -> R.Option | str:
    """The legal Option an answer names, or a sentence saying why it is not legal (the rules module's
    own IllegalMove message where it has one)."""
    if isinstance(answer, R.Option):
        b, column = answer.box, answer.column
        if not 0 <= b < len(rules.boxes) or not 0 <= column < len(columns):
            return f"{answer} names no box of {rules.name}"
    else:
        name, _, col_text = str(answer).partition(":")
        try:
            b = rules.box_index(name)
        except RulesError as exc:
            return str(exc)
        if col_text:
            number = R.parse_int(col_text)
            if number is None or not 1 <= number <= len(columns):
                return f"column {col_text!r} does not exist; columns are 1-{len(columns)}"
            column = number - 1
        else:  # the first column where the box is legal, else the first where it is open
            column = next((o.column for o in opts if o.box == b),
                          next((c for c, col in enumerate(columns) if col.scores[b] is None), 0))
    hit = next((o for o in opts if o.box == b and o.column == column), None)
    if hit is not None:
        return hit
    try:
        R.place(rules, columns[column], b, dice, column)
    except IllegalMove as exc:
        where = f" in column {column + 1}" if len(columns) > 1 else ""
        return f"{exc}{where}"
    return f"box {rules.keys[b]} is not legal now"  # pragma: no cover - place() and options() agree


def _draw(state: np.uint64) -> tuple[int, np.uint64]:
    """rng.next_die from Python: the state stays a numpy uint64 (a Python int above 2**63 would not fit
    numba's int64 argument)."""
    f, nxt = next_die(state)
    return int(f), np.uint64(nxt)


def user_play(rules: R.RuleSet, spec: str, seed: int, first_game: int, n_games: int, seat: int = 0,
              record: bool = False, max_turns: int | None = None,
              should_stop: Callable[[], bool] | None = None) -> GameBatch:
    """Games played by a user strategy `spec` (module:function), legality from the rules module.

    The function is called with a BotView at every decision and answers:
      * a list/tuple of dice values to keep (rerolling the others), while rolls_left > 0; keeping
        every die stops rolling (it is then asked for a box with rolls_left 0);
      * a box to write the dice in: its key or any alias ("full_house", "FH"), optionally with a
        1-based column ("full_house:2"), or one of `position.options`;
      * None to pass the turn, only when position.may_pass.
    Anything else raises StrategyError naming the game, seat and turn. `should_stop()` is asked before
    each game; True raises ChunkCancelled."""
    func = load_user_strategy(spec)
    n_cols = rules.settings.columns
    n_boxes = len(rules.boxes)
    limit = max_turns if max_turns is not None else 50 * n_cols * n_boxes
    scores = np.zeros((n_games, n_cols, n_boxes), dtype=np.int64)
    ybonus = np.zeros((n_games, n_cols), dtype=np.int64)
    totals = np.zeros(n_games, dtype=np.int64)
    rec: list[list[TurnRecord]] = []
    for i in range(n_games):
        if should_stop is not None and should_stop():
            raise ChunkCancelled(f"stopped before game {first_game + i + 1}")
        columns, turns = _user_game(rules, spec, func, seed, first_game + i, seat, limit)
        for c, column in enumerate(columns):
            scores[i, c] = [s if s is not None else -1 for s in column.scores]
            ybonus[i, c] = column.yahtzee_bonus
        totals[i] = R.sheet_total(rules, columns)
        rec.append(turns)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if record:
        _pack_record(batch, rules, rec)
    return batch


def _user_game(rules: R.RuleSet, spec: str, func: UserStrategy, seed: int, game: int, seat: int,
               limit: int) -> tuple[list[R.Column], list[TurnRecord]]:
    """One game of a user strategy: the final sheet and each turn's record."""
    st = np.uint64(stream(seed, game, seat))
    columns = [R.Column.empty(rules) for _ in range(rules.settings.columns)]
    saved = 0
    turns: list[TurnRecord] = []
    t = 0
    while not all(c.is_full for c in columns):
        if t >= limit:
            raise StrategyError(f"strategy {spec} passed too often: game {game + 1}, seat {seat + 1} is not over "
                                f"after {limit} turns")
        st, used, turn = _user_turn(rules, spec, func, columns, st, R.rolls_allowed(rules, saved), t, game, seat)
        turns.append(turn)
        saved = R.saved_after(rules, saved, used)
        t += 1
    return columns, turns


def _user_turn(rules: R.RuleSet, spec: str, func: UserStrategy, columns: list[R.Column], st: Any, budget: int,
               t: int, game: int, seat: int) -> tuple[Any, int, TurnRecord]:
    """One turn of a user strategy on `columns` (written in place): the dice stream's next state, the
    rolls used and the turn's record. Every answer is checked by the rules module."""
    where = f"game {game + 1}, seat {seat + 1}, turn {t + 1}"
    dice: list[int] = []
    for _ in range(rules.dice):
        f, st = _draw(st)
        dice.append(f)
    rolls = [list(dice)]
    helds: list[list[int]] = []
    used = 1
    stopped = False
    while True:
        d = tuple(dice)
        opts = R.options(rules, columns, d)
        pos = BotView(rules, tuple(columns), d, 0 if stopped else budget - used, used, t + 1, game + 1, seat + 1,
                      tuple(opts), R.may_pass(rules, opts))
        try:
            answer = plain_answer(func(pos))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a crash, sys.exit or any exception in user code is the bot's error
            raise StrategyError(f"strategy {spec} raised {type(exc).__name__}: {said(exc)} ({where})") from None
        if isinstance(answer, list | tuple | np.ndarray) and not isinstance(answer, R.Option):
            if pos.rolls_left <= 0:
                raise StrategyError(f"strategy {spec} answered a keep {list(answer)} with no rolls left "
                                    f"({where}, dice {list(d)}); it must name a box")
            kept_pos = _take_keep(list(answer), d)
            if kept_pos is None:
                raise StrategyError(f"strategy {spec} kept {list(answer)}, which are not among the dice "
                                    f"{list(d)} ({where})")
            if len(kept_pos) == len(d):
                stopped = True
                continue
            kept = sorted(d[p] for p in kept_pos)
            dice = list(kept)
            for _ in range(rules.dice - len(kept)):
                f, st = _draw(st)
                dice.append(f)
            helds.append(sorted(kept))
            rolls.append(list(dice))
            used += 1
            continue
        if answer is None:
            if not pos.may_pass:
                raise StrategyError(f"strategy {spec} passed, which is not allowed ({where}, dice "
                                    f"{list(d)}): a pass needs must_zero off and a roll scoring nothing")
            return st, used, (rolls, helds, -1, -1)
        place = _find_place(rules, columns, answer, opts, d)
        if isinstance(place, str):
            raise StrategyError(f"strategy {spec} made an illegal move ({where}, dice {list(d)}): {place}")
        columns[place.column], _ = R.place(rules, columns[place.column], place.box, d, place.column)
        return st, used, (rolls, helds, place.column, place.box)


def _pack_record(batch: GameBatch, rules: R.RuleSet,
                 rec: list[list[TurnRecord]]) -> None:
    g_n = len(rec)
    t_n = max((len(turns) for turns in rec), default=1) or 1
    r_n = max((len(r) for turns in rec for r, _, _, _ in turns), default=1)
    n = rules.dice
    batch.rolls = np.zeros((g_n, t_n, r_n, n), dtype=np.int64)
    batch.held = np.zeros((g_n, t_n, max(r_n - 1, 0), n), dtype=np.int64)
    batch.n_rolls = np.zeros((g_n, t_n), dtype=np.int64)
    batch.column = np.zeros((g_n, t_n), dtype=np.int64)
    batch.box = np.full((g_n, t_n), -1, dtype=np.int64)
    batch.n_turns = np.array([len(turns) for turns in rec], dtype=np.int64)
    for g, turns in enumerate(rec):
        for t, (rolls, helds, c, b) in enumerate(turns):
            batch.n_rolls[g, t] = len(rolls)
            batch.column[g, t] = max(c, 0)
            batch.box[g, t] = b
            for k, roll in enumerate(rolls):
                batch.rolls[g, t, k] = roll
            for k, held in enumerate(helds):
                batch.held[g, t, k, : len(held)] = held

