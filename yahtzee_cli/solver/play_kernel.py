"""The simulator's compiled play kernel, lean on purpose so that a first `simulate` compiles in seconds.

A worker is a Python thread running `play_games` (nogil) on its own games; the turn itself (final-roll
values, keep values, keep and box decisions) is within_turn's, whose helpers compile as ordinary
functions, once each. Only the play kernel and what it calls are compiled by `simulate` (the strategy
table comes shipped or cached). Every compiled player plays through the one game loop below
(new_sheet, play_turn, box_points and mark_box): play_games, play_saved_games (exact saved-rolls tables), play_moves
and play_lockstep (a move table's decisions) and distribution's risk play. Each kernel borrows its
bundles first (jit.borrow), so that passing them into the inlined helpers every turn costs nothing.

`play_games(game, ra, fut, max_turns, saved_value, out, work, log, start, memo)` (built by
solver.exact.play_with; every array read-only except `out`, `work`, `log` and `memo`):
  game   (seed, first_game, seat): the dice streams rng.stream(seed, first_game + g, seat)
  ra     the rule set's arrays (tables.rule_arrays)
  fut    the value to go (within_turn.Future: an exact table or the heuristic)
  max_turns  the turn cap (passes)
  saved_value  the value of a roll saved for later
  out    (scores, ybonus, n_turns): per game, written
  work   turn_work(...): the thread's working arrays
  log    None, or (rolls, held, n_rolls, column, box): the games' dice and choices ([game, turn, ...]),
          written; with None the kernel compiles without the recording (numba prunes it), which a
          first run's compile is the shorter for
  start  None (games from an empty sheet; numba drops that code), or (scores [C, B] with -1 open,
          extra bonuses [C], rolls saved, dice [n], rolls used, keep): every game goes on from that
          sheet, at a turn start (rolls used 0) or from the dice showing after that many rolls of the
          turn (its first reroll keeping `keep` when that is >= 0, else the strategy's keep)
  memo   memo(...): the keep and box decisions of turn-start states seen before, shared by the threads
          (a state's are made once, by whichever thread claims it), made from the turn's values as the
          kernel makes them without a memo (one column, no saved rolls: the state key covers everything
          they depend on), so the games are the same with or without it, whatever the threads; None
          for other rules and short runs (exact._PlayInputs.wants_memo): numba then drops the memo's
          code, and that kernel compiles about 1 s faster
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

import numpy as np

from ..limits import cores
from . import atomic, compiled, jit
from .aside import Job, compiled_aside
from .compiled import extra_bonus_points, roll_budget, rolls_left_over
from .jit import INNER, KERNEL, njit
from .rng import stream
from .within_turn import (
    FUTURE_HEURISTIC,
    FUTURE_TABLE,
    NEG,
    Future,
    Int,
    box_code,
    box_codes,
    compact_cell,
    final_values,
    keep_choice,
    keep_choices,
    keep_dice,
    keep_values,
    keep_values_lanes,
    lane_work,
    lanes_best,
    next_values,
    next_y,
    roll_legal,
    roll_max,
    score_rows,
    state_value,
)

# Called from several places in the kernel: compiled once as a plain function, not inlined at each call
# (a copy of compiled.roll_dice without a Python entry point, cached apart from it).
roll_dice: Any = jit.inner_copy(compiled.roll_dice)

__all__ = ["FUTURE_HEURISTIC", "FUTURE_TABLE", "MAX_REROLLS", "STOP", "TurnWork", "fill_moves", "memo", "move_row",
           "no_memo", "play_games", "play_lockstep", "play_moves", "roll_legal", "saved_scratch", "turn_work"]

MAX_REROLLS = 64  # rerolls a turn's keep values are kept for (saved rolls beyond: as the 64th)


class TurnWork(NamedTuple):
    """The working arrays of one thread playing or valuing turns (turn_work): R rolls, K keeps, C
    columns, `nslot` (box, variant) slots, n dice.

    Vfinal, Vc, Y, Y2, P, Pfin [R]  final-roll values (of the sheet, of a column, as keeps compare
        them, the box pass's), where the dice are, where the turn ends
    nzc, nzr [R]     a placement of the roll scores (in a column, anywhere)
    slot, pts [R]    the (box, variant) slot each final roll is written in (-1 a pass), the points
    E, Pk, M, A [K]  keep values, keep probabilities, best sub-keeps (value, keep)
    EJ [J, K]        the keep values with j rolls left
    NV [C, nslot]    per column, the value of the state each (box, variant) leads to
    Fcur, colraw [C]  a column's value to go and its points written
    cmask, usum, yst [C]  a column's filled boxes, upper total and Yahtzee box (-1 open, 0, 1 full)
    dice, kept [n]; cnt [6]  the dice, those kept, face counts
    VS, YS [1, R]    Vfinal and Y as one-row arrays (they are their row 0): the stopping values
        within_turn.keep_values and keep_by_values take, without a reshape to compile
    """

    Vfinal: Any
    Vc: Any
    Y: Any
    Y2: Any
    P: Any
    Pfin: Any
    nzc: Any
    nzr: Any
    slot: Any
    pts: Any
    E: Any
    Pk: Any
    M: Any
    A: Any
    EJ: Any
    NV: Any
    Fcur: Any
    colraw: Any
    cmask: Any
    usum: Any
    yst: Any
    dice: Any
    kept: Any
    cnt: Any
    VS: Any
    YS: Any


def turn_work(ra: Any, stages: int) -> TurnWork:
    """A TurnWork for the rule set's arrays `ra` with keep values for `stages` rolls left."""
    R = ra.natT.shape[1]
    K = ra.add_die.shape[0]
    C = ra.n_cols
    n = int(ra.keeps[K - 1].sum())

    def f(*shape: int) -> Any:
        return np.empty(shape)

    def i(k: int) -> Any:
        return np.empty(k, np.int64)

    VS, YS = f(1, R), f(1, R)
    return TurnWork(VS[0], f(R), YS[0], f(R), f(R), f(R), np.zeros(R, np.bool_), np.zeros(R, np.bool_), i(R), i(R),
                    f(K), f(K), f(K), f(K), f(max(stages, 1), K), np.zeros((C, ra.nb * ra.du.shape[1])), f(C), f(C),
                    i(C), i(C), i(C), i(n), i(n), i(6), VS, YS)


MEMO_STATES = 1 << 17  # most turn-start states the memo keeps decisions for
MEMO_BYTES = 192 << 20  # most those decisions take (their pages are touched only as states come in)
MEMO_SEEN = 1 << 19  # most states it remembers having seen once
# Visits a state is valued turn by turn before all its decisions are made and kept (on the next one).
# Making them costs about one turn's work (the keep of every roll by proper_subkeeps, the box of every
# roll at once by box_codes; box by box with box_code it cost 15 turns), and 100,000 optimal Yahtzee
# games visit only about 115,000 states, 91% of turns on a state seen before. On 100,000 games on
# 2 cores, decisions made on a state's 2nd to 5th visit all played 34,000-38,000 games/s, on the 17th
# 26,600 (1,000,000 games: 92,000 against 51,900).
MEMO_VISITS = 2


def memo(n_rolls: int, stages: int) -> tuple[Any, ...]:
    """An empty memo for play_games, shared by every thread that plays with the same value to go:
    (hash of state keys, -1 free; per hash slot the decision row + 1 of a state that has one, FILLING
    while a thread makes them, or minus the visits counted; [rows in use, keys in use, MEMO_VISITS];
    per row and roll, the keep with j rolls left [rows, stages, n_rolls] (-1 stop) and the box code
    [rows, n_rolls] (within_turn.box_code)). The threads update it with atomic operations (solver.atomic): a row
    is published only once all its decisions are written."""
    cap = max(1, min(MEMO_STATES, MEMO_BYTES // (2 * (stages + 1) * n_rolls)))
    return (np.full(2 * MEMO_SEEN, -1, np.int64), np.zeros(2 * MEMO_SEEN, np.int64),
            np.array([0, 0, MEMO_VISITS], np.int64),
            np.empty((cap, stages, n_rolls), np.int16), np.empty((cap, n_rolls), np.int16))


def no_memo(n_rolls: int, stages: int) -> tuple[Any, ...]:
    """A memo that keeps nothing (MEMO_VISITS 0), of memo()'s types: what asks whether the kernel with
    a memo is compiled (jit.is_compiled), and plays like no memo at all."""
    return (np.full(1, -1, np.int64), np.zeros(1, np.int64), np.zeros(3, np.int64),
            np.empty((0, stages, n_rolls), np.int16), np.empty((0, n_rolls), np.int16))


FILLING = -(1 << 62)  # a memo slot whose state's decisions a thread is making


@njit(**INNER)
def _add_one(a: np.ndarray, i: int, below: int) -> int:
    """a[i] += 1 atomically if a[i] < below; the old a[i], or -1 (already at `below`)."""
    while True:
        v: int = atomic.load(a, i)
        if v >= below:
            return -1
        if atomic.cas(a, i, v, v + 1) == v:
            return v


@njit(**INNER)
def _memo_row(keys: np.ndarray, rowof: np.ndarray, count: np.ndarray, cap: int, key: int) -> tuple[int, int, bool]:
    """(slot, row, made): a state's hash slot (-1 when the memo remembers no more states), its decision
    row and whether its decisions are made (then the row holds them). A state seen count[2] times
    before gets a new row to make them in (the caller publishes it: atomic.store(rowof, slot, row + 1));
    one seen fewer times has this visit counted (row -1), as has one whose rows ran out or that
    another thread is filling. Linear probing over a hash at most half full; the threads sharing the
    memo insert keys and claim rows with compare-and-swap, so a visit counted by two threads at once
    may count once (which only delays a state's decisions)."""
    mask = keys.shape[0] - 1
    h = (key * 0x9E3779B1) & mask
    while True:
        k = atomic.load(keys, h)
        if k == key:
            break
        if k == -1:
            if 2 * atomic.load(count, 1) >= keys.shape[0]:
                return -1, -1, False
            old = atomic.cas(keys, h, -1, key)
            if old == -1:
                _add_one(count, 1, keys.shape[0])
                break
            if old == key:  # another thread put this very key there first
                break
            # (another key took the slot: probe on)
        h = (h + 1) & mask
    v = atomic.load(rowof, h)
    if v > 0:
        return h, v - 1, True
    if v == FILLING:
        return h, -1, False
    if -v >= count[2] and atomic.cas(rowof, h, v, FILLING) == v:
        row = _add_one(count, 0, cap)
        if row >= 0:
            return h, row, False
        atomic.store(rowof, h, v - 1)  # no rows left
        return h, -1, False
    atomic.cas(rowof, h, v, v - 1)
    return h, -1, False


@njit(**INNER)
def _sheet_next_values(work: Any, fut: Any, ra: Any) -> tuple[float, float, int]:
    """work.NV[c, slot]: the value of the state each (column, box, variant) leads to, relative to
    staying put; work.Fcur[c] the columns' values to go now (the sheet in work's cmask, usum, yst,
    colraw). Returns (best1, best2, arg1): the two best weighted column estimates and the best's
    column (for add_columns off; best1 is what staying put is worth).

    Parameters
    ----------
    work : TurnWork
        The sheet's columns; NV and Fcur written.
    fut : within_turn.Future
        The value to go.
    ra : tables.RuleArrays
        The rule set's arrays.
    """
    NV, Fcur, colraw, cmask, usum, yst = work.NV, work.Fcur, work.colraw, work.cmask, work.usum, work.yst
    best1 = NEG
    best2 = NEG
    arg1 = -1
    for c in range(ra.n_cols):
        yv = 1 if (yst[c] == 1 and fut.nyt == 2) else 0
        Fcur[c] = state_value(cmask[c], yv, usum[c], fut, ra.nb)
        cv = ra.mult[c] * (colraw[c] + Fcur[c])
        if cv > best1:
            best2 = best1
            best1 = cv
            arg1 = c
        elif cv > best2:
            best2 = cv
    for c in range(ra.n_cols):
        yv = 1 if (yst[c] == 1 and fut.nyt == 2) else 0
        # relative to staying put when columns add up; else the column's whole estimate (points + F)
        fnow = Fcur[c] if ra.add_columns else -colraw[c]
        next_values(NV[c], cmask[c], yv, usum[c], fnow, ra.mult[c], fut, ra)
    return best1, best2, arg1


# --------------------------------------------------------------------------- the game loop
#
# Every compiled player (play_games, play_saved_games, play_moves, play_lockstep and
# distribution._play) plays its games with these: new_sheet before a game, play_turn for a turn's dice
# and box_points then mark_box for its box. They differ only in where a turn's decisions come from: keep values
# (keep_by_values), a memo's or move table's decisions (keep_remembered, keep_by_row), box values.
# Inlined (each is a few lines run every turn), so a kernel compiles them with its own arguments' types
# and numba drops what a None argument leaves unused.


@njit(cache=True, inline="always")
def new_sheet(g: int, out: Any, sheet: Any, c0: int, start: Any, ra: Any) -> tuple[int, Any]:
    """Game g's sheet before its first turn: every column empty, or start's boxes and bonuses.
    Returns (boxes open, turns played: an np.int64, as record_reroll is compiled for).

    Parameters
    ----------
    g : int
        The game (its row in out).
    out : (scores, ybonus, ...)
        The games' scores [G, C, B] (-1 open) and extra bonuses [G, C]: game g's written.
    sheet : (cmask, usum, yst, colraw)
        Per column its filled boxes, upper total, Yahtzee box (-1 open, 0 a zero, 1 full points) and
        points written: columns c0 .. c0 + C - 1 written.
    c0 : int
        The game's first column in sheet (play_lockstep keeps a block of games' sheets side by side).
    start : None or (int64[C, B] scores with -1 open, int64[C] extra bonuses, int64 rolls saved, ...)
        The sheet every game goes on from (None: an empty one; numba drops that code).
    ra : tables.RuleArrays
        The rule set's arrays.
    """
    scores, ybonus = out[0], out[1]
    cmask, usum, yst, colraw = sheet
    nb = ra.nb
    open_total = ra.n_cols * nb
    turn = np.int64(0)  # not a literal 0, which would compile record_reroll a second time
    for c in range(ra.n_cols):
        cmask[c0 + c] = 0
        usum[c0 + c] = 0
        yst[c0 + c] = -1
        colraw[c0 + c] = 0.0
        ybonus[g, c] = 0
        for b in range(nb):
            scores[g, c, b] = -1
    if start is not None:  # every game goes on from the same sheet: its boxes, its bonuses
        for c in range(ra.n_cols):
            ybonus[g, c] = start[1][c]
            colraw[c0 + c] = start[1][c]
            for b in range(nb):
                v = start[0][c, b]
                if v >= 0:
                    scores[g, c, b] = v
                    cmask[c0 + c] |= 1 << b
                    colraw[c0 + c] += v
                    open_total -= 1
                    turn += 1
                    if ra.is_upper[b]:
                        usum[c0 + c] += v
                    if b == ra.ybox:
                        yst[c0 + c] = 1 if v == ra.ypoints else 0
    return open_total, turn


@njit(cache=True, inline="always")
def keep_by_values(src: Any, r: int, j: int, jj: int, ra: Any) -> int:
    """The keep of roll r with j rolls left by the keep values (within_turn.keep_choice), -1 to stop:
    src = (EJ [J, K] keep values, S [L + 1, R] the final-roll values with min(j, L) rolls saved,
    sv the value of each roll saved for later); stopping is worth S[min(j, L), r] + sv * j; jj =
    min(j, J)."""
    EJ, S, sv = src
    top = S.shape[0] - 1
    return keep_choice(r, EJ[jj - 1], S[j if j < top else top, r] + sv * j, ra.subkeeps, ra.nsub)


@njit(cache=True, inline="always")
def keep_remembered(src: Any, r: int, j: int, jj: int, ra: Any) -> int:
    """keep_by_values, read from a memo row where the state has one: src = (memo keeps [rows, J, R],
    the state's row or -1, keep_by_values' src)."""
    keeps, row, values = src
    if row >= 0:
        return int(keeps[row, jj - 1, r])
    return keep_by_values(values, r, j, jj, ra)


@njit(cache=True, inline="always")
def keep_by_row(src: Any, r: int, j: int, jj: int, ra: Any) -> int:
    """The keep of roll r read from a move-table row (src: uint8[J + 1, R], STOP to stop)."""
    slot = src[jj - 1, r]
    return -1 if slot == STOP else ra.subkeeps[r, slot]


@njit(cache=True, inline="always")
def roll_index(dice: np.ndarray, cnt: np.ndarray, ra: Any, roll_at: Any) -> int:
    """The roll the dice show: by _roll_at's table when there is one (roll_at not None), else by
    compiled.roll_of_dice."""
    if roll_at is not None:
        return _roll_at(dice, roll_at)
    return compiled.roll_of_dice(dice, cnt, ra.keep_index, ra.roll_of_keep)


@njit(cache=True, inline="always")
def play_turn(st: Any, budget: int, J: int, keep_of: Any, src: Any, work: Any, ra: Any, roll_at: Any, log: Any,
              at: Any, start: Any, opening: bool) -> tuple[Any, Int, int]:
    """One turn's dice: the first roll, then a reroll of whatever keep_of(src, r, j, jj, ra) keeps
    from roll r with j rolls left (jj = min(j, J)) until it stops (-1) or the rolls run out. Dice: see
    solver.policy.play. Returns (the stream's state, rolls used, the final roll). The opening turn of a
    game from a start with dice showing (start[4] rolls used) goes on from those dice instead of a
    first roll, its first reroll keeping start[5] when that is a keep (>= 0).

    Parameters
    ----------
    st : uint64
        The game's dice stream (rng.stream).
    budget : int
        Rolls this turn may use (the first included).
    J : int
        Stages of keep values the keep source has.
    keep_of, src
        The keep source: keep_by_values, keep_remembered or keep_by_row, and what it reads.
    work : TurnWork
        dice, kept, cnt: scratch.
    ra : tables.RuleArrays
        The rule set's arrays.
    roll_at : None or int16 array
        roll_index's table.
    log : None or (rolls, held, n_rolls, column, box)
        The games' dice, written for game g, turn `turn` (None: nothing recorded).
    at : (int, int)
        (g, turn): the game and its turn.
    start : None or play_games' start
        None: every turn begins with a roll (numba drops the rest). Else (..., dice int64[n], rolls
        used int64, keep int64): with rolls used > 0 the opening turn goes on from those dice.
    opening : bool
        Whether this is the game's first turn from `start`.
    """
    g, turn = at
    dice, kept, cnt = work.dice, work.kept, work.cnt
    used = np.int64(1)
    forced = np.int64(-1)  # the first reroll's keep, when the start says
    showing = False
    if start is not None:
        if opening:
            if start[4] > 0:
                showing = True
                for k in range(dice.shape[0]):
                    dice[k] = start[3][k]
                used = start[4]
                forced = start[5]
    if not showing:
        st = roll_dice(dice, kept, np.int64(0), st)  # typed as the rerolls type it: one compile
        if log is not None:
            for k in range(dice.shape[0]):
                log[0][g, turn, 0, k] = dice[k]
    while True:  # (one call site of roll_index: each inlined call is more to compile)
        r = roll_index(dice, cnt, ra, roll_at)
        if used >= budget:
            break
        j = budget - used
        d = keep_of(src, r, j, j if j <= J else J, ra)
        if forced >= 0:
            d = forced
            forced = np.int64(-1)
        if d < 0:
            break
        pos = keep_dice(kept, d, ra.keeps)
        st = roll_dice(dice, kept, np.int64(pos), st)
        if log is not None:
            compiled.record_reroll(log[1], log[0], g, turn, used, kept, pos, dice)
        used += 1
    return st, used, r


@njit(cache=True, inline="always")
def box_arrays(out: Any, sheet: Any, ra: Any) -> tuple[Any, ...]:
    """What box_points and mark_box take, out of the bundles a kernel receives, for the kernel to take
    once before its games: (scores, extra bonuses, the sheet's four arrays, natural and joker scores,
    Yahtzee rolls, upper boxes, (boxes per column, points of an extra Yahtzee), (the Yahtzee box, its
    full points))."""
    return (out[0], out[1], sheet[0], sheet[1], sheet[2], sheet[3], ra.natural, ra.joker, ra.yroll, ra.is_upper,
            (ra.nb, ra.extra), (ra.ybox, ra.ypoints))


@njit(cache=True, inline="always")
def box_points(code: Int, r: int, at: Any, nb_extra: Any, natural: np.ndarray, joker: np.ndarray,
               yroll: np.ndarray, yst: np.ndarray, log: Any) -> tuple[int, int, Int, Int]:
    """What final roll r writes by box code `code` (within_turn.box_code: (column * nb + box) * 2 + 1
    for a joker's full value; -1 a pass): (column or -1 for a pass, box, score, extra bonus); the
    turn's rolls and box recorded in log (None: nothing recorded). Then mark_box writes it.

    The arrays come as arguments, taken out of their (borrowed, jit.borrow) bundles once per kernel
    call by box_arrays.

    Parameters
    ----------
    code : int
        The box code.
    r : int
        The final roll.
    at : (g, turn, used, c0)
        The game (its row in the outputs), its turn, the rolls it used, the game's first column in
        the sheet arrays (play_lockstep keeps a block of games' sheets side by side).
    nb_extra : (int, int)
        Boxes per column, points of an extra Yahtzee.
    natural, joker, yroll : RuleArrays' arrays
        Scores of each roll in each box, natural and as a joker; the Yahtzee rolls.
    yst : int64[columns]
        The sheet's Yahtzee box per column (-1 open, 0 a zero, 1 full points).
    log : None or (rolls, held, n_rolls, column, box)
        The games' dice and boxes.
    """
    g, turn, used, c0 = at
    nb, extra = nb_extra
    bc = -1 if code < 0 else code // (2 * nb)
    b = (code % (2 * nb)) // 2
    if log is not None:
        log[2][g, turn] = used
        log[3][g, turn] = bc if bc >= 0 else 0
        log[4][g, turn] = b if bc >= 0 else -1
    if bc < 0:
        return -1, b, np.int64(0), np.int64(0)
    bs = joker[r, b] if code % 2 else natural[r, b]
    bbon = extra_bonus_points(yroll[r], yst[c0 + bc] == 1, extra)
    return bc, b, np.int64(bs), np.int64(bbon)


@njit(cache=True, inline="always")
def mark_box(written: Any, at: Any, y_box: Any, scores: np.ndarray, ybonus: np.ndarray, cmask: np.ndarray,
             usum: np.ndarray, yst: np.ndarray, colraw: np.ndarray, is_upper: np.ndarray) -> int:
    """Write what box_points returned (`written`) in game at[0]: its score and extra bonus in scores
    [G, C, B] and ybonus [G, C], the column's state in the sheet arrays (as new_sheet's: filled
    boxes, upper total, Yahtzee box, points written; the game's columns from at[3]). y_box: (the
    Yahtzee box, its full points); is_upper: the upper boxes. Returns the boxes written: 1, or 0 for
    a pass."""
    bc, b, bs, bbon = written
    if bc < 0:
        return 0
    g, _turn, _used, c0 = at
    ybox, ypoints = y_box
    c = c0 + bc
    scores[g, bc, b] = bs
    ybonus[g, bc] += bbon
    colraw[c] += bs + bbon
    cmask[c] |= 1 << b
    if is_upper[b]:
        usum[c] += bs
    if b == ybox:
        yst[c] = 1 if bs == ypoints else 0
    return 1



@njit(**KERNEL)
def play_games(game: Any, ra: Any, fut: Any, max_turns: int, saved_value: float, out: Any, work: Any,
               log: Any, start: Any, memo: Any) -> None:
    """Play games game[1].. of seat game[2] with the one-turn lookahead on F (the exact table: optimal
    play); the arguments are in the module docstring.

    A placement in column c is worth, relative to staying put, mult[c] * (score + bonus + F(next) -
    F(now)) when columns add up; with add_columns off, the best weighted column estimate
    max(mult[c] * (points + F)) after the placement minus before. Dice: see yahtzee_cli.solver.policy.play."""
    ra, fut, out, work = jit.borrow(ra), jit.borrow(fut), jit.borrow(out), jit.borrow(work)
    shared = jit.borrow(memo)  # the memo every thread reads and writes: not even their counts shared
    seed, first_game, seat = game
    nb = ra.nb
    nturns_out = out[2]
    # scratch, sized by turn_work(): allocated by the caller, as every numpy allocation here would be
    # one more function for numba to compile on a first run
    Vfinal, EJ, E = work.Vfinal, work.EJ, work.E
    cmask, usum, yst = work.cmask, work.usum, work.yst  # yst: -1 open, 0 zero, 1 full points
    sheet = (cmask, usum, yst, work.colraw)
    (scores, ybonus, s_mask, s_upper, s_y, s_raw, natural, joker, yroll, is_upper, nb_extra,
     y_box) = box_arrays(out, sheet, ra)  # once, before the games (see box_points)
    values = (EJ, work.VS, saved_value)  # (keep_by_values' source: stopping on r is worth Vfinal[r] + ...)
    jmax = EJ.shape[0]
    best12 = (NEG, NEG, -1)
    for g in range(nturns_out.shape[0]):
        st = stream(seed, first_game + g, seat)
        open_total, turn = new_sheet(g, out, sheet, 0, start, ra)
        turn0 = turn
        saved = 0
        if start is not None:  # the rolls saved before the sheet's next turn
            saved = start[2]
        while open_total > 0:
            may_pass_turn = (not ra.must_zero) and (max_turns - turn > open_total)
            budget = roll_budget(ra.saved_rolls, saved)
            J = budget - 1
            if J > jmax:
                J = jmax
            # ---- the memo: this state's decisions from an earlier turn, or a new row for them (after
            # MEMO_VISITS visits: a state seen once is often never seen again, and making all its
            # decisions costs about a turn)
            mr = -1
            slot = -1
            hit = False
            if memo is not None:
                if shared[2][2] > 0:  # (no_memo() keeps nothing)
                    ucap = usum[0] if usum[0] < fut.t else fut.t
                    key = (cmask[0] | (ucap << nb) | ((yst[0] + 1) << (nb + 8)) | (J << (nb + 10))
                           | (np.int64(may_pass_turn) << (nb + 18)))
                    slot, mr, hit = _memo_row(shared[0], shared[1], shared[2], shared[3].shape[0], key)
            if not hit:
                best12 = _sheet_next_values(work, fut, ra)
                final_values(Vfinal, work, work.NV, cmask, yst, may_pass_turn, best12, ra)
                keep_values(values[1], EJ, E, J, saved_value, ra.keep_of_roll, ra.add_die, ra.drop_die)
                if memo is not None:
                    if mr >= 0:  # every decision of the state, once
                        keep_choices(shared[3][mr], EJ, Vfinal, J, saved_value, ra)
                        box_codes(shared[4][mr], work.Vc, work.NV, cmask, yst, may_pass_turn, best12, ra)
                        atomic.store(shared[1], slot, mr + 1)  # published: other threads read the row from now
            # ---- the turn itself
            if memo is not None:  # (numba compiles only one of the two)
                st, used, r = play_turn(st, budget, J, keep_remembered, (shared[3], mr, values), work, ra, None, log,
                                        (g, turn), start, turn == turn0)
            else:
                st, used, r = play_turn(st, budget, J, keep_by_values, values, work, ra, None, log, (g, turn), start,
                                        turn == turn0)
            saved = rolls_left_over(ra.saved_rolls, saved, used, ra.saved_cap)
            # ---- choose the box (or pass)
            code = -2  # not known yet
            if memo is not None:  # nested, not `and`: numba drops the branch only for the None test
                if mr >= 0:
                    code = int(shared[4][mr, r])
            if code == -2:
                code = box_code(r, work.NV, cmask, yst, may_pass_turn, best12, ra)
            at = (g, turn, used, 0)
            written = box_points(code, r, at, nb_extra, natural, joker, yroll, s_y, log)
            open_total -= mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)
            turn += 1
        nturns_out[g] = turn



# ----------------------------------------------------------------------------- the move table
#
# A move table (solver.moves) holds every decision of every turn-start state of a one-column rule set,
# made once by move_row with the very calls play_games makes them with (its memo's), so a game played
# from the table is the game play_games plays. A row, uint8[J + 1, R]: row[j - 1, r] the keep from
# roll r with j rolls left, as its place in ra.subkeeps[r] (STOP: stop), row[J, r] the box code of
# final roll r plus one (0: a pass).

STOP = 255  # a row's "stop rolling"


@njit(cache=True, nogil=True, inline="always")
def _table_next_values(work: Any, fut: Any, ra: Any) -> tuple[float, float, int]:
    """_sheet_next_values of one column valued by an exact table, its lookups inline (the same
    arithmetic, so the same values to the last bit): a fifth of a move table's build went to passing
    the value to go to state_value once per (box, variant)."""
    W, midx, t, nb = fut.W, fut.midx, fut.t, ra.nb
    tp1 = t + 1
    mask, u = work.cmask[0], work.usum[0]
    y = 1 if (work.yst[0] == 1 and fut.nyt == 2) else 0
    fnow = float(W[midx[mask], y * tp1 + (u if u < t else t)])
    work.Fcur[0] = fnow
    cv = ra.mult[0] * (work.colraw[0] + fnow)
    best1 = NEG
    arg1 = -1
    if cv > best1:
        best1 = cv
        arg1 = 0
    NVc = work.NV[0]
    mc = ra.mult[0]
    vmax = ra.du.shape[1]
    for b in range(nb):
        if (mask >> b) & 1:
            continue
        row = midx[mask | (1 << b)]
        for v in range(ra.nvar[b]):
            y2 = next_y(y, b, v, fut.nyt, ra)
            u2 = u + ra.du[b, v]
            NVc[b * vmax + v] = mc * (float(W[row, y2 * tp1 + (u2 if u2 < t else t)]) - fnow)
    return best1, NEG, arg1


@njit(**INNER)
def move_row(row: np.ndarray, mask: int, u: int, y: int, may_pass_turn: bool, ra: Any, fut: Any,
             saved_value: float, work: Any, bd: np.ndarray) -> None:
    """Write the decisions of the turn-start state (mask, upper total u, Yahtzee box y: -1 open, 0, 1)
    into `row` (see above), as play_games makes them (bd int16[R]: scratch)."""
    J = row.shape[0] - 1
    work.cmask[0] = mask
    work.usum[0] = u
    work.yst[0] = y
    work.colraw[0] = 0.0
    if fut.kind == FUTURE_TABLE:
        best12 = _table_next_values(work, fut, ra)
    else:
        best12 = _sheet_next_values(work, fut, ra)
    final_values(work.Vfinal, work, work.NV, work.cmask, work.yst, may_pass_turn, best12, ra)
    keep_values(work.VS, work.EJ, work.E, J, saved_value, ra.keep_of_roll, ra.add_die, ra.drop_die)
    box_codes(bd, work.Vc, work.NV, work.cmask, work.yst, may_pass_turn, best12, ra)
    subkeeps, nsub, Vfinal = ra.subkeeps, ra.nsub, work.Vfinal
    # within_turn.keep_choice's loop, keeping the place of the first best keep, not the keep; both
    # rerolls of a three-roll turn in one pass
    E1, E2 = work.EJ[0], work.EJ[1 if J > 1 else 0]
    for r in range(row.shape[1]):
        bv1 = NEG
        bv2 = NEG
        d1 = -1
        d2 = -1
        for i in range(nsub[r]):
            k = subkeeps[r, i]
            e1 = E1[k]
            e2 = E2[k]
            better1 = e1 > bv1
            better2 = e2 > bv2
            d1 = i if better1 else d1
            bv1 = e1 if better1 else bv1
            d2 = i if better2 else d2
            bv2 = e2 if better2 else bv2
        row[0, r] = d1 if bv1 > Vfinal[r] + saved_value else STOP
        if J > 1:
            row[1, r] = d2 if bv2 > Vfinal[r] + saved_value * 2 else STOP
    for j in range(3, J + 1):  # (more rolls a turn)
        Ej = work.EJ[j - 1]
        for r in range(row.shape[1]):
            bv = NEG
            d = -1
            for i in range(nsub[r]):
                e = Ej[subkeeps[r, i]]
                better = e > bv
                d = i if better else d
                bv = e if better else bv
            row[j - 1, r] = d if bv > Vfinal[r] + saved_value * j else STOP
    for r in range(row.shape[1]):
        row[J, r] = bd[r] + 1


@njit(**KERNEL)
def fill_moves(todo: np.ndarray, states: Any, find: Any, may_pass_turn: bool, ra: Any, fut: Any, saved_value: float,
               rows: Any, work: Any, bd: np.ndarray) -> None:
    """The rows `todo` of a move table, and the rows of the states their boxes lead to marked in `seen`
    (the table keeps only those its play reaches). states = (masks, upper totals, Yahtzee boxes) per
    row; find = (rowof, index) as play_moves takes them; rows = (dec, seen): the table's rows
    (uint8[states, J + 1, R], written) and the marks (bool[states])."""
    ra, fut, work = jit.borrow(ra), jit.borrow(fut), jit.borrow(work)  # (jit.borrow: no counts per call of a helper)
    dec, seen = rows
    masks, us, ys = states
    rowof, index = find
    nb, t = ra.nb, fut.t
    full = (1 << nb) - 1
    J = dec.shape[1] - 1
    for s in todo:
        row = dec[s]
        move_row(row, masks[s], us[s], ys[s], may_pass_turn, ra, fut, saved_value, work, bd)
        for r in range(row.shape[1]):
            code = np.int64(row[J, r]) - 1
            if code < 0:
                continue  # a pass: the same state
            b = (code % (2 * nb)) // 2
            sc = ra.joker[r, b] if code % 2 else ra.natural[r, b]
            m2 = masks[s] | (1 << b)
            if m2 == full:
                continue
            u2 = us[s] + sc if ra.is_upper[b] else us[s]
            u2 = u2 if u2 < t else t
            y2 = ys[s]
            if b == ra.ybox:
                y2 = 1 if sc == ra.ypoints else 0
            s2 = index[(rowof[m2] * 3 + y2 + 1) * (t + 1) + u2]
            if s2 >= 0:
                seen[s2] = True  # (threads may mark the same row at once: each writes True)


@njit(cache=True, inline="always")
def _roll_at(dice: np.ndarray, roll_at: np.ndarray) -> int:
    """compiled.roll_of_dice by one small table: roll_at[sum of 7 ** (face - 1)] (tables' counts key)."""
    key = 0
    for k in range(dice.shape[0]):
        key += SEVEN[dice[k]]
    return int(roll_at[key])


SEVEN = np.array([0, 1, 7, 49, 343, 2401, 16807], np.int64)  # 7 ** (face - 1) by face


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def play_moves(game: Any, ra: Any, fut: Any, moves: Any, max_turns: int, saved_value: float, out: Any, work: Any,
               log: Any, start: Any) -> None:
    """play_games for one column without saved rolls, every decision read from a move table: `moves` =
    (rowof, index, dec, may_pass, scratch): the row of state (mask, y, u) is dec[index[(rowof[mask] * 3 + y + 1)
    * (t + 1) + min(u, t)]] (-1: not in the table), made with passes allowed or not (`may_pass`, as
    the rules allow them); a state outside the table, or one whose passes differ (a game near the turn
    cap), has its row made in `scratch` (row, bd) by move_row, as play_games would make it. The other
    arguments are play_games'."""
    ra, fut, out, work = jit.borrow(ra), jit.borrow(fut), jit.borrow(out), jit.borrow(work)
    rowof, index, dec, table_pass, scratch, roll_at = moves
    row_s, bd = scratch
    seed, first_game, seat = game
    nturns_out = out[2]
    cmask, usum, yst = work.cmask, work.usum, work.yst
    sheet = (cmask, usum, yst, work.colraw)
    (scores, ybonus, s_mask, s_upper, s_y, s_raw, natural, joker, yroll, is_upper, nb_extra,
     y_box) = box_arrays(out, sheet, ra)  # once, before the games (see box_points)
    J = dec.shape[1] - 1
    R = dec.shape[2]
    t = fut.t
    for g in range(nturns_out.shape[0]):
        st = stream(seed, first_game + g, seat)
        open_total, turn = new_sheet(g, out, sheet, 0, start, ra)
        while open_total > 0:
            may_pass_turn = (not ra.must_zero) and (max_turns - turn > open_total)
            ucap = usum[0] if usum[0] < t else t
            mrow = rowof[cmask[0]]
            s = index[(mrow * 3 + yst[0] + 1) * (t + 1) + ucap] if mrow >= 0 else -1
            if s >= 0 and may_pass_turn == table_pass:
                row = dec[s]
                # the row's cache lines asked for at once: their misses overlap, where the three
                # decisions of a turn would wait for one another
                touch = 0
                for i in range(0, (J + 1) * R, 64):
                    touch += row[i // R, i % R]
                work.cnt[0] = touch
            else:
                u_now = usum[0]
                move_row(row_s, cmask[0], ucap, yst[0], may_pass_turn, ra, fut, saved_value, work, bd)
                usum[0] = u_now
                row = row_s
            st, used, r = play_turn(st, J + 1, J, keep_by_row, row, work, ra, roll_at, log, (g, turn), None, False)
            at = (g, turn, used, 0)
            written = box_points(np.int64(row[J, r]) - 1, r, at, nb_extra, natural, joker, yroll, s_y, log)
            open_total -= mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)
            turn += 1
        nturns_out[g] = turn


LOCKSTEP = 128  # games play_lockstep advances together


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def play_lockstep(game: Any, ra: Any, fut: Any, moves: Any, max_turns: int, saved_value: float, out: Any,
                  work: Any, log: Any, start: Any) -> None:
    """play_moves for rules where every game has as many turns (must_zero: no passes), LOCKSTEP games
    at a time turn by turn, each roll of the turn for all of them before the next: the table's rows
    are looked up for a block of games in one loop, so their cache misses overlap instead of each
    turn waiting for its own three. Every game draws from its own stream and reads the same rows as
    play_moves, so the games are play_moves' (the arguments are its)."""
    ra, fut, out, work = jit.borrow(ra), jit.borrow(fut), jit.borrow(out), jit.borrow(work)
    rowof, index, dec, table_pass, scratch, roll_at = moves
    row_s, bd = scratch
    seed, first_game, seat = game
    nb = ra.nb
    subkeeps, keeps = ra.subkeeps, ra.keeps
    nturns_out = out[2]
    n = work.dice.shape[0]
    J = dec.shape[1] - 1
    t = fut.t
    G = nturns_out.shape[0]
    B = LOCKSTEP
    st = np.empty(B, np.uint64)
    cm = np.empty(B, np.int64)  # the block's sheets side by side (game g0 + i: column i)
    us = np.empty(B, np.int64)
    ys = np.empty(B, np.int64)
    sheet = (cm, us, ys, np.empty(B))
    (scores, ybonus, s_mask, s_upper, s_y, s_raw, natural, joker, yroll, is_upper, nb_extra,
     y_box) = box_arrays(out, sheet, ra)  # once, before the games (see box_points)
    srow = np.empty(B, np.int64)  # the game's row this turn (-1: its own, in rows)
    rows = np.empty((B, J + 1, dec.shape[2]), np.uint8)
    dice = np.empty((B, n), np.int64)
    kept = np.empty((B, n), np.int64)
    rr = np.empty(B, np.int64)
    used = np.empty(B, np.int64)
    going = np.empty(B, np.bool_)
    open0 = nb
    turn0 = 0
    if start is not None:
        for b in range(nb):
            if start[0][0, b] >= 0:
                open0 -= 1
                turn0 += 1
    for g0 in range(0, G, B):
        nbk = min(B, G - g0)
        for i in range(nbk):
            st[i] = stream(seed, first_game + g0 + i, seat)
            new_sheet(g0 + i, out, sheet, i, start, ra)
        for k in range(open0):
            turn = np.int64(turn0 + k)
            may_pass_turn = (not ra.must_zero) and (max_turns - turn > open0 - k)
            # the first roll of every game, and the row it reads
            for i in range(nbk):
                ucap = us[i] if us[i] < t else t
                mrow = rowof[cm[i]]
                s_ = index[(mrow * 3 + ys[i] + 1) * (t + 1) + ucap] if mrow >= 0 else -1
                if s_ < 0 or may_pass_turn != table_pass:
                    work.usum[0] = us[i]
                    move_row(row_s, cm[i], ucap, ys[i], may_pass_turn, ra, fut, saved_value, work, bd)
                    rows[i] = row_s
                    s_ = -1
                srow[i] = s_
                st[i] = roll_dice(dice[i], kept[i], np.int64(0), st[i])
                if log is not None:
                    for d in range(n):
                        log[0][g0 + i, turn, 0, d] = dice[i, d]
                rr[i] = _roll_at(dice[i], roll_at)
                used[i] = 1
                going[i] = True
            # each reroll of every game still rolling
            for step in range(1, J + 1):
                for i in range(nbk):
                    if not going[i]:
                        continue
                    slot = dec[srow[i], J - step, rr[i]] if srow[i] >= 0 else rows[i, J - step, rr[i]]
                    if slot == STOP:
                        going[i] = False
                        continue
                    pos = keep_dice(kept[i], subkeeps[rr[i], slot], keeps)
                    st[i] = roll_dice(dice[i], kept[i], np.int64(pos), st[i])
                    if log is not None:
                        compiled.record_reroll(log[1], log[0], g0 + i, turn, step, kept[i], pos, dice[i])
                    rr[i] = _roll_at(dice[i], roll_at)
                    used[i] = step + 1
            # every game's box
            for i in range(nbk):
                r = rr[i]
                code = (np.int64(dec[srow[i], J, r]) if srow[i] >= 0 else np.int64(rows[i, J, r])) - 1
                at = (g0 + i, turn, used[i], i)
                written = box_points(code, r, at, nb_extra, natural, joker, yroll, s_y, log)
                mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)
        for i in range(nbk):
            nturns_out[g0 + i] = turn0 + open0


def saved_scratch(K: int, ra: Any, table: bool = True) -> tuple[Any, ...]:
    """play_saved_games' scratch for values to go with 0..K rolls saved: (FS, NVS, FC, cells, T, lanes),
    `lanes` the within_turn.LaneWork its final-roll values take a lane per game and stock in, its
    placements' scores times the column's weight; `table`: values from an exact table, which never
    fall as the upper total grows (within_turn.roll_entries)."""
    from .within_turn import keep_starts

    nslot = ra.nb * ra.du.shape[1]
    B = SAVED_LANES
    most = int(np.diff(keep_starts(ra.keeps)).max())
    lanes = lane_work(ra, B * (K + 1), False, False, 0, monotone=table)
    lanes = lanes._replace(re_score=lanes.re_score * float(ra.mult[0]))  # (mc * score, as column_final's)
    return (np.full((B, K + 1, ra.natT.shape[1]), NEG), np.empty((B, K + 1, 1, nslot)), np.empty((B, K + 1)),
            np.empty((nslot, 2), np.int64), np.empty((most, B)), lanes)


@njit(**INNER)
def _stock_lanes(lw: Any, NVS: np.ndarray, FC: np.ndarray, off: Int, top: int, row: int, cmask: int, yst: int,
                 raw: float, ra: Any) -> None:
    """One game's stocks s = 0..top as lanes off..off + top of lw for lanes_best: lw.NVt[slot, off + s]
    = NVS[s, 0, slot] for the boxes most final rolls may take (ra.base_roll's legal boxes), NEG for
    every other slot (closed, or not legal: never the best); lw.lrow[off + s] = row + s, the lane's
    row of play_saved_games' FS (as [games * (K + 1), R]), and acc, acc2 what _lanes_finals adds to
    and takes from its values (play_saved_games' base; final_values' best1)."""
    NVt = lw.NVt
    vmax = ra.du.shape[1]
    mc = ra.mult[0]
    bbits, _ = roll_legal(((1 << ra.nb) - 1) & ~cmask, yst >= 0, ra.base_roll, ra.yroll, ra.own_bit, ra.joker_code,
                          ra.has_y, ra.fill[0], ra.lower_bits)
    for b in range(ra.nb):
        legal = (bbits >> b) & 1
        for v in range(ra.nvar[b]):
            slot = b * vmax + v
            for s in range(top + 1):
                NVt[slot, off + s] = NVS[s, 0, slot] if legal else NEG
    for s in range(top + 1):
        lw.lrow[off + s] = row + s
        lw.acc[off + s] = mc * FC[s]
        lw.acc2[off + s] = mc * (raw + FC[s])  # (_sheet_next_values' best12 for one column)


@njit(**INNER)
def _stock_fixups(lw: Any, NVS: np.ndarray, off: int, top: int, cmask: int, yst: int, ra: Any) -> None:
    """After lanes_best, one game's lanes (_stock_lanes'): its rolls of other legal boxes (jokers: only
    a Yahtzee can have them) one by one by stock s's next values NVS[s], then the extra bonuses, as
    column_final takes them."""
    E = lw.E
    mc = ra.mult[0]
    vmax = ra.du.shape[1]
    open_ = ((1 << ra.nb) - 1) & ~cmask
    yfilled = yst >= 0
    bbits, bfull = roll_legal(open_, yfilled, ra.base_roll, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y,
                              ra.fill[0], ra.lower_bits)
    for r in range(ra.yroll.shape[0]):
        if not ra.yroll[r]:
            continue
        bits, fullv = roll_legal(open_, yfilled, r, ra.yroll, ra.own_bit, ra.joker_code, ra.has_y, ra.fill[0],
                                 ra.lower_bits)
        if bits == bbits and fullv == bfull:
            continue
        sTr, vTr = score_rows(ra, fullv)
        for s in range(top + 1):
            E[ra.keep_of_roll[r], off + s] = roll_max(r, bits, sTr, vTr, NVS[s, 0], NVS[s, 0], False, mc, vmax)[0]
    for k in range(ra.bonus_rolls.shape[0]):
        r = ra.bonus_rolls[k]
        bon = extra_bonus_points(ra.yroll[r], yst == 1, ra.extra)
        if bon != 0:
            for s in range(top + 1):
                E[ra.keep_of_roll[r], off + s] += mc * bon


@njit(**INNER)
def _lanes_finals(FS: np.ndarray, lw: Any, n: Int, ra: Any) -> None:
    """Lanes 0..n-1's final-roll values (lw.E's full-keep rows) into their rows of FS (lw.lrow), what
    final_values and play_saved_games make of them: relative to best1 without add_columns, plus
    the base. Roll by roll, the lanes' rows written a roll at a time (they stay in cache)."""
    E, lrow, base, best1 = lw.E, lw.lrow, lw.acc, lw.acc2
    rows = FS.reshape((FS.shape[0] * FS.shape[1], FS.shape[2]))
    for r in range(FS.shape[2]):
        Er = E[ra.keep_of_roll[r]]
        for L in range(n):
            v = Er[L]
            if not ra.add_columns:
                v = (v if v > NEG else NEG) - best1[L]
            rows[lrow[L], r] = v + base[L]


@njit(**INNER)
def _stock_next_values(NVS: np.ndarray, FC: np.ndarray, cells: np.ndarray, work: Any, fut: Any, stocks: Any,
                       top: int, ra: Any) -> None:
    """_sheet_next_values of one column at every stock s = 0..top: NVS[s] its work.NV, FC[s] its
    work.Fcur[0], the same values. From an exact table (fut.kind FUTURE_TABLE) each next state's cell
    is found once (its place in a stock's block: cells[i] = (slot, offset)) and the stocks' blocks
    are read in one loop of independent loads, so their cache and TLB misses overlap (a table of
    some GB, every stock's block in other pages: read stock by stock and box by box through
    state_value, a turn took 82 us of one thread, 55 this way); a fitted model stock by stock.

    Parameters
    ----------
    NVS : float64[K + 1, 1 (the column), B * vmax]
        Written for s = 0..top (the slots of open boxes).
    FC : float64[K + 1]
        Written for s = 0..top.
    cells : int64[B * vmax, 2]
        Scratch.
    work : TurnWork
        The sheet (cmask, usum, yst, colraw of column 0); NV and Fcur are scratch.
    fut, stocks
        As play_saved_games'.
    top : int
        The most rolls saved a stop can leave.
    ra : tables.RuleArrays
        The rule set's arrays.
    """
    if fut.kind != FUTURE_TABLE:
        for s in range(top + 1):
            _sheet_next_values(work, stock_future(fut, stocks, s), ra)
            FC[s] = work.Fcur[0]
            for i in range(NVS.shape[2]):
                NVS[s, 0, i] = work.NV[0, i]
        return
    W, sbase = stocks[0], stocks[1]
    mask = work.cmask[0]
    u = work.usum[0]
    y = 1 if (work.yst[0] == 1 and fut.nyt == 2) else 0  # (as _sheet_next_values and next_values)
    t = fut.t
    vmax = ra.du.shape[1]
    at = compact_cell(fut, mask, y * (t + 1) + (u if u < t else t))
    n = 0
    for b in range(ra.nb):
        if (mask >> b) & 1:
            continue
        m2 = mask | (1 << b)
        for v in range(ra.nvar[b]):
            y2 = next_y(y, b, v, fut.nyt, ra)
            u2 = u + ra.du[b, v]
            cells[n, 0] = b * vmax + v
            cells[n, 1] = compact_cell(fut, m2, y2 * (t + 1) + (u2 if u2 < t else t))
            n += 1
    mc = ra.mult[0]
    held = 0  # the most rolls saved whose block holds the sheet's own cell (blocks shrink as s grows)
    while held < top and at < sbase[held + 2] - sbase[held + 1]:
        held += 1
    for s in range(top + 1):
        base = sbase[s]
        # the sheet's own value, which the next values are taken relative to and added back to: a turn
        # can stop with more rolls saved than the sheet could hold, and its cell is not in those
        # stocks' blocks (read there, another state's or past the table's end): its most held stock's
        f = float(W[sbase[s if s < held else held] + at])
        FC[s] = f
        fnow = f if ra.add_columns else -work.colraw[0]
        for i in range(n):
            NVS[s, 0, cells[i, 0]] = mc * (float(W[base + cells[i, 1]]) - fnow)


@njit(cache=True, inline="always")
def stock_future(fut: Any, stocks: Any, s: int) -> Any:
    """The value to go with s rolls saved: fut with stock s's table block (W[sbase[s]:sbase[s + 1]]),
    h, G and yh (play_saved_games' stocks)."""
    W, sbase, H3, G3, Y3 = stocks
    return Future(fut.kind, fut.t, fut.nyt, W[sbase[s]:sbase[s + 1]], fut.midx, H3[s], G3[s], Y3[s], fut.sub_of,
                  fut.ulane)


@njit(cache=True, inline="always")
def _same_sheet(g: int, h: int, sheet: Any, add_columns: int) -> bool:
    """Whether games g and h's turns are valued alike: the same boxes filled, upper total and Yahtzee
    box state, and where columns do not add the same points written."""
    cm, us, ys, raw = sheet
    return cm[g] == cm[h] and us[g] == us[h] and ys[g] == ys[h] and (add_columns != 0 or raw[g] == raw[h])


@njit(cache=True, inline="always")
def _count_out(key: np.ndarray, n: int, nkeys: int, out: np.ndarray, cnt: np.ndarray) -> None:
    """out[:n] = 0..n-1 in order of key[i] (0..nkeys - 1), i ascending within a key (a counting sort);
    cnt[k] is then where key k's run ends (cnt: at least nkeys + 1 long)."""
    for k in range(nkeys + 1):
        cnt[k] = 0
    for i in range(n):
        cnt[key[i] + 1] += 1
    for k in range(nkeys):
        cnt[k + 1] += cnt[k]
    for i in range(n):
        out[cnt[key[i]]] = i
        cnt[key[i]] += 1


@njit(**INNER)
def _sheet_groups(sheet: Any, Js: np.ndarray, add_columns: int, groups: Any) -> int:
    """The games of play_saved_games grouped by sheet (_same_sheet) for one turn, in linear time, in
    scratch it is given (no sort to compile, nothing allocated): a hash table of the sheets seen,
    then the games counted out by group and the groups by rolls left (_count_out). Returns the
    number of groups, ng.

    Parameters
    ----------
    sheet : (cm, us, ys, raw)
        The games' sheets (play_saved_games').
    Js : int64[G]
        Each game's rolls left after the first this turn, 0..len(cnt) - 2.
    add_columns : int
        The rule set's (where columns do not add, the points written tell sheets apart too).
    groups : (slots, gid, order, gfirst, gJ, gorder, cnt)
        Scratch and results: slots int64[a power of 2 >= 2G], gid int64[G] (each game's group), then
        order int64[G] the games group by group, gfirst int64[G + 1] each group's first place in
        order (and the end), gJ int64[G] each group's most rolls left, gorder int64[G] the groups by
        gJ, cnt int64[at least max(G, most rolls left + 1) + 1].
    """
    cm, us, ys, raw = sheet
    slots, gid, order, gfirst, gJ, gorder, cnt = groups
    G = Js.shape[0]
    mask = slots.shape[0] - 1
    for i in range(slots.shape[0]):
        slots[i] = -1
    ng = 0
    for g in range(G):
        h = (cm[g] * 0x5851F42D4C957F2D) ^ (us[g] * 0x14057B7EF767814F) ^ (ys[g] * 0x2545F4914F6CDD1D)
        if not add_columns:
            h ^= np.int64(raw[g] * 64.0) * 0x5851F42D4C957F2D
        i = (h ^ (h >> 29)) & mask
        while True:
            q = slots[i]
            if q < 0:  # a sheet not seen this turn: a new group, game g its first
                slots[i] = ng
                gfirst[ng] = g
                gJ[ng] = Js[g]
                gid[g] = ng
                ng += 1
                break
            if _same_sheet(gfirst[q], g, sheet, add_columns):
                gid[g] = q
                gJ[q] = max(gJ[q], Js[g])
                break
            i = (i + 1) & mask
    # the games by group, each group's games a run of order
    _count_out(gid, G, ng, order, cnt)
    gfirst[0] = 0
    for q in range(ng):
        gfirst[q + 1] = cnt[q]
    # the groups by rolls left (blocks of groups with as many rolls left as can be)
    top = 0
    for q in range(ng):
        top = max(top, gJ[q])
    _count_out(gJ, ng, top + 1, gorder, cnt)
    return ng


SAVED_LANES = 16  # saved-rolls games played side by side (their keep values: two 512-bit vectors)


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def play_saved_games(game: Any, ra: Any, fut: Any, stocks: Any, out: Any, work: Any, scratch: Any,
                     log: Any, start: Any) -> None:
    """play_games for one column with values to go by stock of saved rolls: an exact saved-rolls table
    (solver.saved), optimal play of the game with at most K saved rolls, or a model fitted to one
    (solver.saved_fit). Each turn values its final rolls once per stock that stopping can
    leave (FS[s] = the final-roll values with s rolls saved for the next turn, s = 0..min(rolls left, K)),
    its keeps from those, and writes its box by the values of the stock it stops with; rolls saved
    beyond the rules' own cap (ra.saved_cap) are lost, beyond the table's K they count as K.

    All the games turn by turn (every game has as many turns: no passes). A turn's values depend only
    on the sheet (_same_sheet) and go as far as the rolls left, so the games whose sheets are alike
    (every game's first turn, most of the second) are valued once, to the most rolls left of any of
    them. The sheets valued SAVED_LANES at a time, grouped by rolls left (a block's keep stages run
    to its most): the final-roll values of every sheet's every stock side by side, a lane each
    (within_turn.lanes_best, the build's placements: SIMD over the lanes, each the same floats as
    final_values on its sheet and stock alone), then the keep values of the block side by side
    (within_turn.keep_values_lanes: SIMD over the sheets, each the same floats as alone), then each
    game of those sheets plays its turn's dice from its own stream. So the games are those played
    one by one (tests/solver/test_saved_lanes.py).

    Parameters
    ----------
    game, ra, out, work, log, start
        As play_games' (no passes: the table needs must_zero).
    fut : within_turn.Future
        The values' kind and layout (kind, t, nyt, midx, sub_of; its W, h, G and yh are stock 0's).
    stocks : (W, sbase, H3, G3, Y3)
        The values to go by stock of saved rolls s = 0..K: an exact table's (solver.saved.Compact: W
        float32[cells], its stock s's block W[sbase[s]:sbase[s + 1]], read through fut's midx and
        ulane) or a fitted model's H3, G3 and Y3 (solver.saved_fit, as within_turn.Future's h, G and
        yh by stock), the others placeholders (stock_future).
    scratch : saved_scratch(K, ...): (FS, NVS, FC, cells, T, lanes)
        FS float64[lanes, K + 1, R]: each game's final-roll values by stock (absolute: points written
        plus value to go); NVS, FC [lanes, ...], cells: _stock_next_values'; T: keep_values_lanes';
        lanes: the LaneWork of the final-roll values (lanes_best), its starts keep_values_lanes'.
    """
    ra, fut, out, work = jit.borrow(ra), jit.borrow(fut), jit.borrow(out), jit.borrow(work)
    FS, NVS, FC, cells, T, lw = scratch
    lw = jit.borrow(lw)
    seed, first_game, seat = game
    nturns_out = out[2]
    wmask, wyst = work.cmask, work.yst  # the game whose turn is valued, as column 0
    B = FS.shape[0]
    K = FS.shape[1] - 1
    jmax = work.EJ.shape[0]
    mult = ra.mult[0]
    G = nturns_out.shape[0]
    cm = np.empty(G, np.int64)  # the games' sheets side by side (game g: column g)
    us = np.empty(G, np.int64)
    ys = np.empty(G, np.int64)
    raw = np.empty(G)
    sheet = (cm, us, ys, raw)
    (scores, ybonus, s_mask, s_upper, s_y, s_raw, natural, joker, yroll, is_upper, nb_extra,
     y_box) = box_arrays(out, sheet, ra)  # once, before the games (see box_points)
    EJ = np.empty((jmax, ra.add_die.shape[0], B))  # keep values by game, as lanes
    E = np.empty((ra.add_die.shape[0], B))
    st = np.empty(G, np.uint64)
    saved = np.empty(G, np.int64)
    budget = np.empty(G, np.int64)
    Js = np.empty(G, np.int64)  # a game's rolls left after this turn's first
    lane0 = np.empty(B, np.int64)  # a block's game's first lane in lw (its stock 0)
    size = 2  # _sheet_groups' hash table: a power of 2, at least twice the games
    while size < 2 * G:
        size *= 2
    groups = (np.empty(size, np.int64), np.empty(G, np.int64), np.empty(G, np.int64), np.empty(G + 1, np.int64),
              np.empty(G, np.int64), np.empty(G, np.int64), np.empty(max(G, jmax + 1) + 1, np.int64))
    order, gfirst, gJ, gorder = groups[2], groups[3], groups[4], groups[5]
    # typed, not literal, arguments: a helper called with a literal 0 or False compiles once more for it
    zero, no_pass = np.int64(0), np.bool_(False)
    open0, turn0 = 0, 0
    for g in range(G):
        st[g] = stream(seed, first_game + g, seat)
        open0, turn0 = new_sheet(g, out, sheet, g, start, ra)  # (the same for every game)
        saved[g] = 0
        if start is not None:
            saved[g] = start[2]
    for k in range(open0):
        turn = turn0 + k
        for g in range(G):
            budget[g] = roll_budget(ra.saved_rolls, saved[g])
            Js[g] = min(budget[g] - 1, jmax)
        # games whose sheets value a turn alike (most of them in the first turns) are valued once: a
        # group's values up to its most rolls left, each game reading those up to its own; the groups
        # in blocks with as many rolls left as can be, as a block's keep stages run to its most (in
        # Maxi Yatzy, 1.64 times the levels its games need in blocks of games in turn, 1.02 sorted)
        ng = _sheet_groups(sheet, Js, ra.add_columns, groups)
        for b0 in range(0, ng, B):
            nbk = min(B, ng - b0)
            Jall = zero
            off = zero
            for i in range(nbk):
                g = order[gfirst[gorder[b0 + i]]]
                J = gJ[gorder[b0 + i]]
                Jall = max(Jall, J)
                top = J if J < K else K
                wmask[0], work.usum[0], wyst[0], work.colraw[0] = cm[g], us[g], ys[g], raw[g]
                _stock_next_values(NVS[i], FC[i], cells, work, fut, stocks, top, ra)
                lane0[i] = off
                _stock_lanes(lw, NVS[i], FC[i], off, top, i * (K + 1), cm[g], ys[g], raw[g], ra)
                off += top + 1
            # the final-roll values of every group's every stock, a lane each (the build's placements)
            lanes_best(off, ra, lw)
            for i in range(nbk):
                g = order[gfirst[gorder[b0 + i]]]
                J = gJ[gorder[b0 + i]]
                _stock_fixups(lw, NVS[i], lane0[i], J if J < K else K, cm[g], ys[g], ra)
            _lanes_finals(FS, lw, off, ra)
            keep_values_lanes(FS, EJ, E, T, lw.starts, Jall, ra.keep_of_roll, ra.add_die, ra.drop_die, nbk)
            for i in range(nbk):
                q = gorder[b0 + i]
                for m in range(gfirst[q], gfirst[q + 1]):
                    g = order[m]
                    values = (EJ[:, :, i], FS[i], 0.0)  # stopping with j rolls left: FS[i, min(j, K)]
                    st[g], used, r = play_turn(st[g], budget[g], Js[g], keep_by_values, values, work, ra, None, log,
                                               (g, turn), start, k == 0)
                    left = budget[g] - used
                    s = left if left < K else K
                    best12 = (mult * (raw[g] + FC[i, s]), NEG, zero)
                    saved[g] = rolls_left_over(ra.saved_rolls, saved[g], used, ra.saved_cap)
                    at = (g, turn, used, g)
                    code = box_code(r, NVS[i, s], cm[g:g + 1], ys[g:g + 1], no_pass, best12, ra)
                    written = box_points(code, r, at, nb_extra, natural, joker, yroll, s_y, log)
                    mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)
    for g in range(G):
        nturns_out[g] = turn0 + open0


def _common_jobs(ra: Any, out: Any, work: Any) -> dict[str, Job]:
    """The helpers both game loops call, with the signatures they call them with: the dice stream, the
    roll of the dice, a reroll, the kept dice and (after the games) solver.totals.sheet_totals'."""
    import numba

    from .rng import stream as rng_stream
    from .totals import _sheet_totals

    types: Any = cast(Any, numba).types
    typeof: Any = cast(Any, numba).typeof
    i8, b1, ivec = types.int64, types.boolean, typeof(work.dice)
    ia, ba = types.Array(i8, 1, "C"), types.Array(b1, 1, "C")
    return {
        "stream": (rng_stream, (i8, i8, i8)),
        "roll_of_dice": (compiled.roll_of_dice, (ivec, ivec, typeof(ra.keep_index), typeof(ra.roll_of_keep))),
        "roll_dice": (roll_dice, (ivec, ivec, i8, types.uint64)),
        "keep_dice": (keep_dice, (ivec, i8, typeof(ra.keeps))),
        "totals": (_sheet_totals, (typeof(out[0]).copy(layout="C"), typeof(out[1]).copy(layout="C"), ba, i8, i8, ia,
                                   b1, ia, types.Array(b1, 2, "C"), ia)),
    }


def _helper_jobs(args: tuple[Any, ...]) -> tuple[list[Job], list[Job]]:
    """play_games' helpers with the signatures it calls them with for `args` (its arguments), split so
    that both processes of a first run finish about together (the other one starts later, and the
    totals are needed only after the games): (those another process compiles, those this one compiles
    first). tests/solver/test_aside.py checks that none of them is compiled twice."""
    import numba

    types: Any = cast(Any, numba).types
    typeof: Any = cast(Any, numba).typeof
    ra, fut, out, work = args[1], args[2], args[5], args[6]
    common = _common_jobs(ra, out, work)
    i8, f8, b1 = types.int64, types.float64, types.boolean
    R, W, NV, cm, ys = typeof(ra), typeof(work), typeof(work.NV), typeof(work.cmask), typeof(work.yst)
    vec = typeof(work.Vfinal)
    best12 = types.Tuple((f8, f8, i8))
    theirs: list[Job] = [
        # small ones first, done before this process needs them, then final_values (the largest, with
        # roll_legal and column_final), which play_games asks for last: this process compiles the
        # rest and then play_games' own game loop, and waits for none of theirs (their share was
        # measured: with box_code and keep_values there too, play_games' typing waited about 1 s)
        common["stream"],
        common["roll_of_dice"],
        (final_values, (vec, W, NV, cm, ys, b1, best12, R)),
        common["totals"],  # (needed only after the games)
    ]
    ours: list[Job] = [
        (_sheet_next_values, (W, typeof(fut), R)),
        (keep_choice, (i8, typeof(work.E), f8, typeof(ra.subkeeps), typeof(ra.nsub))),
        common["keep_dice"],
        common["roll_dice"],
        (box_code, (i8, NV, cm, ys, b1, best12, R)),
        (keep_values, (types.Array(f8, 2, "C"), typeof(work.EJ), typeof(work.E), i8, f8, typeof(ra.keep_of_roll),
                       typeof(ra.add_die), typeof(ra.drop_die))),
    ]
    return theirs, ours


def _saved_helper_jobs(args: tuple[Any, ...]) -> tuple[list[Job], list[Job]]:
    """_helper_jobs for play_saved_games (`args` its arguments): this process compiles the helpers its
    game loop asks for first, the other one those asked for later, in that order (a first run on
    two cores: measured with tests/solver/test_aside.py's count of each helper's compiles)."""
    import numba

    types: Any = cast(Any, numba).types
    typeof: Any = cast(Any, numba).typeof
    ra, fut, stocks, out, work, scratch = args[1:7]
    common = _common_jobs(ra, out, work)
    FS, NVS, FC, cells, T, lw = scratch
    i8, f8, b1 = types.int64, types.float64, types.boolean
    ivec = types.Array(i8, 1, "C")
    R, W, L = typeof(ra), typeof(work), typeof(lw)
    nvs, fc = typeof(NVS[0]), typeof(FC[0])
    EJ = np.empty((work.EJ.shape[0], ra.add_die.shape[0], FS.shape[0]))  # (as the game loop makes them)
    E = np.empty((ra.add_die.shape[0], FS.shape[0]))
    ours: list[Job] = [
        common["stream"],
        # (add_columns: the rule arrays' int)
        (_sheet_groups, (types.Tuple((ivec, ivec, ivec, types.Array(f8, 1, "C"))), ivec, i8, types.UniTuple(ivec, 7))),
        (_stock_next_values, (nvs, fc, typeof(cells), W, typeof(fut), typeof(stocks), i8, R)),
        common["roll_dice"],
        common["roll_of_dice"],
        (box_code, (i8, typeof(NVS[0, 0]), typeof(work.cmask), typeof(work.yst), b1, types.Tuple((f8, f8, i8)), R)),
    ]
    theirs: list[Job] = [
        (_stock_lanes, (L, nvs, fc, i8, i8, i8, i8, i8, f8, R)),
        (lanes_best, (i8, R, L)),
        (_stock_fixups, (L, nvs, i8, i8, i8, i8, R)),
        (_lanes_finals, (typeof(FS), L, i8, R)),
        (keep_values_lanes, (typeof(FS), typeof(EJ), typeof(E), typeof(T), typeof(lw.starts), i8,
                             typeof(ra.keep_of_roll), typeof(ra.add_die), typeof(ra.drop_die), i8)),
        (keep_choice, (i8, typeof(EJ[:, :, 0][0]), f8, typeof(ra.subkeeps), typeof(ra.nsub))),
        common["keep_dice"],
        common["totals"],
    ]
    return theirs, ours


@contextmanager
def compiled_on_two_cores(args: tuple[Any, ...], threads: int | None, kernel: Any = None) -> Iterator[None]:
    """Around the first call of `kernel` (play_games, or play_saved_games) with `args`: where it is not
    compiled yet, half of its helpers' compile is done by another process meanwhile
    (aside.compiled_aside)."""
    kernel = play_games if kernel is None else kernel
    if jit.is_compiled(kernel, args):
        yield
        return
    theirs, ours = (_helper_jobs if kernel is play_games else _saved_helper_jobs)(args)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with compiled_aside(theirs, ours, threads or cores()):
            yield
    finally:
        if collecting:
            # the compiles' objects (most of them garbage by now, some 25 MB) are left out of the
            # collector's way for good: collecting them cost about 0.1 s, each collection after a
            # compile going over all of them
            gc.freeze()
            gc.enable()
