"""Exact optimal-strategy solver: the table of expected remaining scores of every turn-start state.

`build(rules)` runs the compiled backward induction (solver.kernels) over the rules module's score
tables and returns a `Table`; `get_table` keeps it in the store (store.artifact, kind "exact") keyed by
`RuleSet.fingerprint`. Which rule sets have one is strategy.choice's answer. Position values (hint,
replay --analyze) are in strategy.turn and never need numba.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import NotExact
from ..rules.engine import Column, RuleSet, box_values, most_rolls, rolls_allowed
from ..store import artifact as store
from ..store.kinds import EXACT
from ..strategy.choice import exact_reason
from ..strategy.space import StateSpace, state_space
from .games import GameBatch
from .tables import RuleArrays, Scores, keep_id, rule_arrays, score_tables
from .value_to_go import ValueToGo, check_memory
from .within_turn import FUTURE_TABLE, Future, StateLayout, lane_work

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Layout:
    """How a rule set's turn-start states map to table cells, and the per-box data the kernels take.

    A state is (filled mask, y, u): u the upper total capped at `t`, y = 1 when the Yahtzee box holds
    its full points and extra bonuses exist (`nyt` = 2), else 0. Cell: W[midx[mask], y * (t + 1) + u].
    `arrays`: the rule set's arrays (tables.rule_arrays, whose variants these are); `state`: the
    states as the kernels take them (within_turn.StateLayout).
    """

    rules: RuleSet
    scores: Scores
    nb: int
    t: int
    nyt: int
    ybit: int
    has_y: bool
    masks: IntArray  # reachable masks, by popcount then value
    layer_ptr: IntArray  # masks[layer_ptr[p]:layer_ptr[p + 1]] have popcount p
    midx: IntArray  # [2**nb] mask -> row (-1 unreachable)
    sub_of: IntArray  # [2**nb] mask -> index of its set of filled upper boxes
    ulist: IntArray  # [2**n_upper, t + 1] capped upper totals computed for each upper set (see layout)
    ucount: IntArray
    dlist: IntArray  # [2**n_upper, t + 1] totals that cannot reach the bonus: copies of ulist[sub, 0]
    dcount: IntArray
    var_nat: IntArray  # [R, B] next-state variant of the natural score
    var_jok: IntArray  # [R, B] next-state variant of the joker score
    nvar: IntArray  # [B]
    du: IntArray  # [B, V] upper total added by a variant
    yn: IntArray  # [B, V] y after a variant (-1 unchanged)
    arrays: RuleArrays
    state: StateLayout
    n_states: int = 0

    @property
    def space(self) -> StateSpace:
        """The rule set's turn-start states (t and nyt are its)."""
        return state_space(self.rules)

    @property
    def width(self) -> int:
        return self.space.width


def layout(rules: RuleSet) -> Layout:
    """The state layout of a single-column rule set (NotExact when strategy.choice says it has none)."""
    from . import kernels  # numba loads only when a table is built or played, not to read one

    why = exact_reason(rules)
    if why is not None:
        raise NotExact(f"{rules.name} has no exact table ({why}); hints use the approximate strategy")
    check_memory(rules)  # before anything of 2**boxes entries is allocated
    sc = score_tables(rules)
    s = rules.settings
    nb = sc.n_boxes
    has_y = sc.yahtzee_box >= 0
    ybit = (1 << sc.yahtzee_box) if has_y else 0
    space = state_space(rules)
    t, nyt = space.t, space.nyt
    own_bits = np.unique(np.concatenate([sc.own_bit[sc.yahtzee_roll], np.zeros(1, np.int64)]))
    reach = kernels.reachable_masks(nb, s.fill_codes[0], sc.lower_bits, sc.joker_code, has_y, ybit, own_bits)
    all_masks = np.arange(1 << nb, dtype=np.int64)
    pop = np.zeros(1 << nb, dtype=np.int64)
    for b in range(nb):
        pop += (all_masks >> b) & 1
    masks = all_masks[reach]
    masks = masks[np.argsort(pop[masks], kind="stable")]
    layer_ptr = np.searchsorted(pop[masks], np.arange(nb + 2)).astype(np.int64)
    midx = np.full(1 << nb, -1, dtype=np.int64)
    midx[masks] = np.arange(len(masks), dtype=np.int64)

    upper = list(rules.upper_indices)
    sub_of = space.upper_set(all_masks)
    vals = {b: sorted(box_values(rules, b)) for b in upper}  # scores an upper box can hold
    # Lanes to compute per set of filled upper boxes: the reachable capped totals, except that every
    # total too far below the threshold to reach it behaves the same (the bonus is lost, nothing
    # else depends on u), so one of them ("dead", computed first) stands for all (copied to dlist).
    n_sub = 1 << len(upper)
    ulist = np.zeros((n_sub, t + 1), dtype=np.int64)
    ucount = np.zeros(n_sub, dtype=np.int64)
    dlist = np.zeros((n_sub, t + 1), dtype=np.int64)
    dcount = np.zeros(n_sub, dtype=np.int64)
    n_reach = np.zeros(n_sub, dtype=np.int64)
    for sub in range(n_sub):
        reach_u = {0}
        for j, b in enumerate(upper):
            if sub >> j & 1:
                reach_u = {min(a + v, t) for a in reach_u for v in vals[b]}
        rem = sum(max(vals[b]) for j, b in enumerate(upper) if not sub >> j & 1)
        dead = sorted(u for u in reach_u if u + rem < t)
        live = sorted(u for u in reach_u if u + rem >= t)
        us = dead[:1] + live
        ulist[sub, : len(us)] = us
        ucount[sub] = len(us)
        if len(dead) > 1:
            dlist[sub, : len(dead) - 1] = dead[1:]
        dcount[sub] = max(len(dead) - 1, 0)
        n_reach[sub] = len(reach_u)

    ra = rule_arrays(rules, nyt)
    n_states = int(sum(n_reach[sub_of[m]] * (nyt if (m & ybit) else 1) for m in masks.tolist()))
    state = StateLayout(t, nyt, ybit, midx, sub_of, ulist, ucount, dlist, dcount)
    return Layout(rules, sc, nb, t, nyt, ybit, has_y, masks, layer_ptr, midx, sub_of, ulist, ucount, dlist, dcount,
                  ra.var_nat, ra.var_jok, ra.nvar, ra.du, ra.yn, ra, state, n_states)


@dataclass
class Table:
    """A solved rule set: W[row, y * (t + 1) + u] = expected remaining score (upper bonus included) of
    the turn-start state; `masks[row]` its filled boxes. `mean`/`sd`: of the final score from an empty
    column under the optimal policy."""

    fingerprint: str
    rule_name: str
    nb: int
    t: int
    nyt: int
    masks: IntArray
    W: FloatArray
    mean: float
    sd: float
    build_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def row(self, mask: int) -> int:
        i = int(np.searchsorted(self.masks, mask))
        if i >= len(self.masks) or int(self.masks[i]) != mask:
            raise KeyError(f"unreachable filled-box set {mask:#x}")
        return i

    def value_to_go(self, exact: bool) -> ValueToGo:
        """The table's values for the play kernel (exact=False: a multi-column sheet's columns valued by it)."""
        midx = np.full(1 << self.nb, -1, dtype=np.int64)
        midx[self.masks] = np.arange(len(self.masks), dtype=np.int64)
        return ValueToGo(FUTURE_TABLE, self.t, self.nyt, np.ascontiguousarray(self.W), midx,
                         np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1), np.zeros(1, np.int64), exact=exact)


def build(rules: RuleSet, moments: bool = True, nchunks: int = 16, lane_cap: int = 128,
          progress: Callable[[int, int], None] | None = None) -> Table:
    """Solve a single-column rule set exactly (NotExact when it has no exact table)."""
    from ..progress import given
    from . import kernels
    from .totals import on_chunks

    progress = given(progress)
    t0 = time.perf_counter()
    lay = layout(rules)
    s = rules.settings
    width = lay.width
    n = len(lay.masks)
    W = np.zeros((n, width), dtype=np.float64)
    W2 = np.zeros((n, width) if moments else (1, 1), dtype=np.float64)
    full = (1 << lay.nb) - 1
    fi = lay.midx[full]
    u = np.arange(lay.t + 1)
    term = np.where(u >= lay.t, float(s.upper_bonus), 0.0)
    W[fi] = np.tile(term, lay.nyt)
    if moments:
        W2[fi] = np.tile(term * term, lay.nyt)
    n_stages = rolls_allowed(rules, 0) - 1
    allow_pass = not s.must_zero
    ny_of = np.where((lay.masks & lay.ybit) != 0, lay.nyt, 1)
    n_lanes = lay.ucount[lay.sub_of[lay.masks]] * ny_of
    cap = max(lane_cap, width)
    done = 0
    # The masks of one popcount layer are independent: `nchunks` chunks of them run on one thread per
    # core, a layer at a time since each needs the next one solved.
    for p in range(lay.nb - 1, -1, -1):
        start, end = int(lay.layer_ptr[p]), int(lay.layer_ptr[p + 1])

        def chunk(c: int, nch: int, start: int = start, end: int = end) -> None:
            work = lane_work(lay.arrays, cap, moments, allow_pass, n_stages)
            kernels.solve_chunk(c, nch, lay.masks, (start, end), n_lanes, lay.state, lay.arrays, W, W2, work)

        on_chunks(chunk, end - start, nchunks)
        done += end - start
        if progress is not None:
            progress(done, n)
    order = np.argsort(lay.masks)
    masks_sorted = lay.masks[order]
    W = W[order]
    r0 = int(np.searchsorted(masks_sorted, 0))
    mean = float(W[r0, 0])
    sd = float("nan")
    if moments:
        m2 = float(W2[lay.midx[0], 0])
        sd = math.sqrt(max(m2 - mean * mean, 0.0))
    return Table(
        fingerprint=rules.fingerprint, rule_name=rules.name, nb=lay.nb, t=lay.t, nyt=lay.nyt,
        masks=masks_sorted, W=W, mean=mean, sd=sd, build_seconds=time.perf_counter() - t0,
        meta={"states": lay.n_states, "masks": n},
    )


# --------------------------------------------------------------------------- cache


VERSION = 1  # bump when the table's meaning changes


def _encode(rules: RuleSet, tab: Table) -> tuple[dict[str, Any], dict[str, tuple[str, bytes]]]:
    header = {
        "kind": "exact", "version": VERSION, "fingerprint": tab.fingerprint, "rule_name": tab.rule_name,
        "rules": rules.to_dict(), "nb": tab.nb, "t": tab.t, "nyt": tab.nyt, "mean": tab.mean,
        "sd": tab.sd if math.isfinite(tab.sd) else None, "build_seconds": tab.build_seconds, **tab.meta,
    }
    W = ("f", tab.W.astype("<f4").tobytes()) if stored_as_float32(tab.W) else ("d", tab.W.astype("<f8").tobytes())
    return header, {"masks": ("q", tab.masks.astype("<i8").tobytes()), "W": W}


FLOAT32_CELLS = 1 << 24  # tables of more cells (over 128 MB as float64) are stored as float32 ...
FLOAT32_BELOW = 1024.0  # ... when every value is below this: float32 then keeps them to within 3.1e-5


def stored_as_float32(W: Any) -> bool:
    """Whether a table's values are stored as float32: large tables (Maxi Yatzy's 89 million cells:
    356 MB instead of 713 MB) whose values float32 still holds to 1e-4 (half a unit in the last place
    below 1024 is 2**-15). Smaller tables keep float64, exact to the last digit."""
    return bool(W.size > FLOAT32_CELLS and float(np.abs(W).max(initial=0.0)) < FLOAT32_BELOW)


def _decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> Table:
    width = int(header["nyt"]) * (int(header["t"]) + 1)
    masks = np.frombuffer(arrays["masks"], dtype=np.int64)
    # float32 tables (stored_as_float32) are widened once: the kernels read float64
    W = np.asarray(arrays["W"], dtype=np.float64).reshape(len(masks), width)
    sd = header.get("sd")
    meta: dict[str, Any] = {k: header[k] for k in ("states", "masks", "build_seconds") if k in header}
    return Table(header["fingerprint"], header["rule_name"], int(header["nb"]), int(header["t"]),
                 int(header["nyt"]), masks, W, float(header["mean"]), float("nan") if sd is None else float(sd),
                 float(header.get("build_seconds", 0.0)), meta)


def stored(rules: RuleSet, progress: Callable[[int, int], None] | None = None) -> store.Artifact[Table]:
    """The rule set's exact table as the store keeps it."""
    def announce() -> str:
        states = state_space(rules).states
        size = f"{states:,} states, some minutes; " if states > FLOAT32_CELLS else ""
        return f"building the {rules.title} strategy table ({size}once{store.cached_in()})"

    return store.Artifact(EXACT, rules.fingerprint, f"{rules.title} strategy table", _decode,
                          lambda: build(rules, progress=progress), lambda tab: _encode(rules, tab),
                          expect={"version": VERSION}, announce=announce)


def _to_file(rules: RuleSet, tab: Table) -> None:
    store.write(stored(rules), tab)


def _from_file(rules: RuleSet) -> Table:
    return store.read(stored(rules))


def get_table(rules: RuleSet, say: Callable[[str], None] | None = None, rebuild: bool = False,
              progress: Callable[[int, int], None] | None = None) -> tuple[Table, bool]:
    """The rule set's exact table from the cache, built and stored when missing or damaged.

    Returns (table, built). `say` receives the notes for stderr (building, damaged file)."""
    return store.get(stored(rules, progress), say, rebuild)


# --------------------------------------------------------------------------- play


def _read_only(*arrays: Any) -> tuple[Any, ...]:
    """Read-only C-contiguous views: one compiled specialisation whether a table was just built
    (writable) or read from a file (read-only)."""
    out = []
    for a in arrays:
        v = np.ascontiguousarray(a).view()
        v.flags.writeable = False
        out.append(v)
    return tuple(out)


MEMO_KEEP = 4  # value-to-go memos kept in a process (a match alternates its strategies chunk by chunk)
MEMO_RUN_GAMES = 50_000  # runs this long keep a memo of turn decisions even if its kernel must be compiled
_memos: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()
_memos_lock = threading.Lock()


def _memo_key(rules: RuleSet, fut: ValueToGo) -> tuple[Any, ...] | None:
    """What a memo's decisions depend on besides the state, or None where play_games keeps no memo
    (several columns, saved rolls: the state key would not cover them). A table is known by its
    rule set plus a sample of its cells (the same rules can be valued by a float64 build and by its
    float32 file)."""
    s = rules.settings
    if s.columns != 1 or not s.add_columns or s.saved_rolls or fut.t >= 256 or len(rules.boxes) > 40:
        return None
    sample = np.ascontiguousarray(fut.W.ravel()[:: max(1, fut.W.size // 4096)])
    digest = hashlib.blake2b(b"".join(np.ascontiguousarray(a).tobytes() for a in (sample, fut.h, fut.G, fut.yh)))
    return (rules.fingerprint, fut.kind, fut.t, fut.nyt, fut.saved_value, fut.W.shape, digest.hexdigest())


class Opening(NamedTuple):
    """Where the first turn of games from a start stands: the dice showing after `rolls_used` rolls,
    and the keep of its next reroll (None: the strategy's own)."""

    dice: Sequence[int]
    rolls_used: int
    keep: Sequence[int] | None = None


def start_arrays(rules: RuleSet, start: Sequence[Column] | None, saved: int = 0,
                 opening: Opening | None = None) -> tuple[Any, ...] | None:
    """play_kernel.play_games' `start` for games from the sheet `start` (None: from an empty sheet):
    its scores and bonuses, `saved` rolls saved before its next turn, and that turn's `opening` (None:
    the turn is still to be rolled)."""
    if start is None:
        return None
    dice = np.zeros(rules.dice, dtype=np.int64)
    used, keep = 0, -1
    if opening is not None:
        dice[:] = sorted(opening.dice)
        used = opening.rolls_used
        if opening.keep is not None:
            keep = keep_id(rules.dice, opening.keep)
    return (np.array([[-1 if v is None else v for v in c.scores] for c in start], dtype=np.int64),
            np.array([c.yahtzee_bonus for c in start], dtype=np.int64), np.int64(saved), dice, np.int64(used),
            np.int64(keep))


class _PlayInputs:
    """play_kernel.play_games' inputs for n_games games: built once per batch, cut per thread."""

    def __init__(self, rules: RuleSet, fut: ValueToGo, n_games: int, record: bool,
                 start: Sequence[Column] | None = None, dice_dtype: Any = np.int64, saved: int = 0,
                 opening: Opening | None = None) -> None:
        """`dice_dtype`: of the recorded dice (int8 for solver.moves: an eighth of the memory to fill
        and read; play_games records int64). `saved`, `opening`: see start_arrays."""
        s = rules.settings
        self.ra = ra = rule_arrays(rules, fut.nyt)
        nb = ra.nb
        n_cols = s.columns
        n_turns = n_cols * nb
        max_turns = n_turns if s.must_zero else 50 * n_turns
        self.max_turns = max_turns
        self.record = record
        self.scores = np.empty((n_games, n_cols, nb), dtype=np.int64)
        self.ybonus = np.zeros((n_games, n_cols), dtype=np.int64)
        self.nturns = np.zeros(n_games, dtype=np.int64)
        max_rolls = most_rolls(rules, max_turns) if record else 1
        rg, rt = (n_games, max_turns) if record else (1, 1)
        self.log = (np.zeros((rg, rt, max_rolls, rules.dice), dtype=dice_dtype),  # rolls
                    np.zeros((rg, rt, max(max_rolls - 1, 1), rules.dice), dtype=dice_dtype),  # held
                    np.zeros((rg, rt), dtype=np.int64),  # n_rolls
                    np.zeros((rg, rt), dtype=np.int64),  # column
                    np.full((rg, rt), -1, dtype=np.int64))  # box
        self.fut = Future(fut.kind, fut.t, fut.nyt, *_read_only(fut.W, fut.midx, fut.h, fut.G, fut.yh, fut.sub_of))
        self.saved_value = fut.saved_value
        self.memo_key = _memo_key(rules, fut)
        self.memo_shape = (ra.natural.shape[0], most_rolls(rules, 1) - 1)
        self.start = start_arrays(rules, start, saved, opening)

    def wants_memo(self, run_games: int) -> bool:
        """Whether play_games keeps a memo for a run of `run_games` games: where one applies, for runs of
        MEMO_RUN_GAMES or more, or when its kernel is compiled already. The kernel without the memo
        (memo None: numba drops that code) compiles about 1 s faster, which is a first short run's
        wait; the memo pays for itself on long runs (the games are the same either way)."""
        from . import jit, play_kernel

        if self.memo_key is None:
            return False
        if run_games >= MEMO_RUN_GAMES:
            return True
        memo_typed = play_kernel.no_memo(*self.memo_shape)
        return jit.is_compiled(play_kernel.play_games, self.args((0, 0, 0), 0, 0, memo_typed))

    def memo(self, use: bool) -> tuple[Any, ...] | None:
        """The process's memo of turn decisions (play_kernel.memo) for this value to go, shared by every
        thread that plays with it and kept across calls, where its hits add up; None when `use` is
        false or none applies (wants_memo)."""
        from . import play_kernel

        key = self.memo_key
        if key is None or not use:
            return None
        with _memos_lock:
            m = _memos.pop(key, None)
            if m is None:
                m = play_kernel.memo(*self.memo_shape)
            _memos[key] = m
            while len(_memos) > MEMO_KEEP:
                _memos.popitem(last=False)
        return m

    def batch(self, rules: RuleSet, first_game: int, copy: bool = True) -> GameBatch:
        """The games played, with their totals and (recorded) the dice and choices cut to the turns and
        rolls used: copies, or with `copy` False views (a chunk's logs written and dropped at once)."""
        from .totals import sheet_totals

        scores, ybonus, nturns = self.scores, self.ybonus, self.nturns
        totals, _ = sheet_totals(rules, scores, ybonus)
        batch = GameBatch(first_game, scores, ybonus, totals)
        if self.record:
            n_games = len(nturns)
            rolls_out, held_out, nrolls, col, box = self.log
            t_used = max(int(nturns.max()) if n_games else 1, 1)
            r_used = max(int(nrolls.max()) if n_games else 1, 1)
            cut = [rolls_out[:, :t_used, :r_used], held_out[:, :t_used, : max(r_used - 1, 0)],
                   nrolls[:, :t_used], col[:, :t_used], box[:, :t_used]]
            batch.rolls, batch.held, batch.n_rolls, batch.column, batch.box = (a.copy() if copy else a for a in cut)
            batch.n_turns = nturns
        return batch

    def args(self, game: tuple[int, int, int], g0: int, g1: int, memo: tuple[Any, ...] | None) -> tuple[Any, ...]:
        """play_games' arguments for games g0..g1 - 1 of the batch (game: seed, first game, seat), with
        the memo (self.memo())."""
        from . import play_kernel

        part = (self.scores[g0:g1], self.ybonus[g0:g1], self.nturns[g0:g1])
        log = tuple(a[g0:g1] for a in self.log) if self.record else None
        return (game, self.ra, self.fut, self.max_turns, self.saved_value, part,
                play_kernel.turn_work(self.ra, play_kernel.MAX_REROLLS), log, self.start, memo)


def play_args(rules: RuleSet, fut: ValueToGo, record: bool, run_games: int = 0,
              start: Sequence[Column] | None = None) -> tuple[Any, ...]:
    """Arguments of one play_games call like play_with's for a run of `run_games` games (same types:
    the compiled specialisation it will use; `start`: games from a sheet), for asking whether that
    specialisation is compiled yet."""
    from . import play_kernel

    inputs = _PlayInputs(rules, fut, 1, record, start)
    memo = play_kernel.no_memo(*inputs.memo_shape) if inputs.wants_memo(run_games) else None
    return inputs.args((0, 0, 0), 0, 1, memo)


def play_with(rules: RuleSet, fut: ValueToGo, seed: int, first_game: int, n_games: int, seat: int = 0,
              record: bool = False, threads: int | None = None, run_games: int | None = None,
              start: Sequence[Column] | None = None, saved: int = 0, opening: Opening | None = None) -> GameBatch:
    """Play with the one-turn lookahead on the value to go `fut` (see solver.policy.play for the
    conventions of dice, ties and passes). `run_games`: the games of the whole run this call is a part
    of (default n_games), which decides whether a memo of turn decisions is kept (wants_memo).
    `start`: the sheet's columns every game goes on from, at a turn start (default: an empty sheet);
    its decisions depend on the state alone, so the memo serves it too. `saved`, `opening`: see
    start_arrays."""
    from . import play_kernel
    from .totals import on_threads

    inputs = _PlayInputs(rules, fut, n_games, record, start, saved=saved, opening=opening)
    memo = inputs.memo(inputs.wants_memo(n_games if run_games is None else max(run_games, n_games)))

    def games(g0: int, g1: int) -> None:
        play_kernel.play_games(*inputs.args((seed, first_game + g0, seat), g0, g1, memo))

    with play_kernel.compiled_on_two_cores(inputs.args((seed, first_game, seat), 0, 0, memo), threads):
        on_threads(games, n_games, threads)
    return inputs.batch(rules, first_game)
