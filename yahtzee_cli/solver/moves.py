"""The move table: every decision of optimal (or greedy) play of a one-column rule set, made once.

For every turn-start state the table's layout can reach (filled boxes, upper total capped at the
bonus threshold, the Yahtzee box open, zero or full) it holds the keep from every roll with every
number of rolls left and the box of every final roll: keep indices and box codes (one byte each), not
values, made by play_kernel.move_row with the calls and tie-breaks play_games makes them with. A run
of many games then reads every decision (play_kernel.play_moves) instead of valuing each turn: the
same games, faster. The value to go it was made from is part of its file's header (a digest of the
table's cells), so a table never serves another strategy.

Rule sets with several columns, saved rolls or more than MOVE_BYTES of decisions have none (the
play kernel and its memo play them). A table is built on first use by a run of BUILD_GAMES games or
more, with progress, and cached like the strategy tables (store.artifact, kind "moves" for the
optimal strategy, "gmoves" for greedy); runs of USE_GAMES or more read a cached one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import CorruptTable, TooBig, YahtzeeError
from ..limits import cores
from ..rules.engine import Column, RuleSet
from ..store import artifact as store
from ..store.kinds import REGISTRY
from .games import GameBatch
from .value_to_go import ValueToGo

VERSION = 1  # bump when the table's meaning changes
USE_GAMES = 200_000  # runs of this many games play from a move table already built
BUILD_GAMES = 1_000_000  # runs of this many games build it first (a few seconds, once)
MOVE_BYTES = 1_200 << 20  # the largest table built: with the rest of a run, peak memory stays under 2 GB


@dataclass
class MoveTable:
    """`dec[s]`: the decisions of state s (play_kernel.move_row's rows, uint8[J + 1, R]); `rowof[mask]`
    the mask's row in `index` (-1 unreachable) and `index[(rowof[mask] * 3 + y + 1) * (t + 1) + min(u,
    t)]` the state of (mask, y, u) (-1 none); `may_pass`: made with passes allowed (rules without
    must_zero)."""

    kind: str
    fingerprint: str
    digest: str
    t: int
    may_pass: bool
    rowof: Any
    index: Any
    dec: Any
    build_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return int(self.rowof.nbytes + self.index.nbytes + self.dec.nbytes)


def kind_of(fut: ValueToGo) -> str:
    return "moves" if fut.exact else "gmoves"


def _key(rules: RuleSet, fut: ValueToGo) -> tuple[Any, ...] | None:
    """exact._memo_key: what the decisions depend on besides the state (None: no move table applies,
    as no memo does: several columns, saved rolls)."""
    from .exact import _memo_key

    return _memo_key(rules, fut)


def applies(rules: RuleSet, fut: ValueToGo) -> bool:
    """Whether these rules and value to go can have a move table: one column, no saved rolls, an exact
    layout (its size is checked by build)."""
    from ..strategy.choice import exact_reason

    return _key(rules, fut) is not None and exact_reason(rules) is None and rules.dice <= 6


def states(rules: RuleSet, fut: ValueToGo) -> tuple[Any, Any, Any, Any, Any]:
    """(masks, upper totals, Yahtzee boxes) of every row the table holds, in table order, with the
    (rowof, index) that find a state's row. States whose decisions are those of another share its row:
    with an exact table, every upper total that can no longer reach the bonus shares the first one's
    (the table build gives them that one's values, bit for bit, and so every state they lead to);
    without extra bonuses (one Yahtzee lane) a full Yahtzee box shares a zero's."""
    from .exact import layout
    from .within_turn import FUTURE_TABLE

    lay = layout(rules)
    t = fut.t
    if lay.t != t:
        raise YahtzeeError(f"the value to go has upper totals to {t}, the layout to {lay.t}")
    shared_dead = fut.kind == FUTURE_TABLE
    masks = lay.masks
    rowof = np.full(1 << lay.nb, -1, dtype=np.int32)
    rowof[masks] = np.arange(len(masks), dtype=np.int32)
    index = np.full(len(masks) * 3 * (t + 1), -1, dtype=np.int32)
    out_m: list[Any] = []
    out_u: list[Any] = []
    out_y: list[Any] = []
    n = 0
    totals: dict[int, tuple[Any, Any]] = {}  # per set of filled upper boxes: (totals with a row, dead ones)
    for i, m in enumerate(masks.tolist()):
        sub = int(lay.sub_of[m])
        if sub not in totals:
            live = lay.ulist[sub, : lay.ucount[sub]]
            dead = lay.dlist[sub, : lay.dcount[sub]]
            totals[sub] = (live if shared_dead else np.unique(np.concatenate([live, dead])), dead)
        us, dead = totals[sub]
        ys = ((0, 1) if fut.nyt == 2 else (0,)) if (m & lay.ybit) and lay.has_y else (-1,)
        for y in ys:
            k = len(us)
            base = (i * 3 + y + 1) * (t + 1)
            index[base + us] = np.arange(n, n + k, dtype=np.int32)
            if shared_dead and len(dead):
                index[base + dead] = n  # ulist[sub, 0] is the first dead total where there are others
            out_m.append(np.full(k, m, dtype=np.int64))
            out_u.append(us)
            out_y.append(np.full(k, y, dtype=np.int64))
            n += k
        if ys == (0,):
            index[(i * 3 + 2) * (t + 1): (i * 3 + 3) * (t + 1)] = index[(i * 3 + 1) * (t + 1): (i * 3 + 2) * (t + 1)]
    return (np.concatenate(out_m), np.concatenate(out_u).astype(np.int64), np.concatenate(out_y), rowof, index)


def _scratch(ra: Any, J: int) -> tuple[Any, Any]:
    R = ra.natural.shape[0]
    return np.empty((J + 1, R), np.uint8), np.empty(R, np.int16)


def build(rules: RuleSet, fut: ValueToGo, progress: Callable[[int, int], None] | None = None,
          threads: int | None = None) -> MoveTable:
    """Every decision of every state (play_kernel.move_row), on `threads` threads (default: every
    core); `progress(done, total)` in states."""
    from . import play_kernel
    from .exact import _PlayInputs

    key = _key(rules, fut)
    if key is None:
        raise YahtzeeError(f"{rules.name} has no move table (several columns or saved rolls)")
    t0 = time.perf_counter()
    inputs = _PlayInputs(rules, fut, 0, False)
    ra, f = inputs.ra, inputs.fut
    J = inputs.memo_shape[1]
    may_pass = not rules.settings.must_zero
    sm, su, sy, rowof, index = states(rules, fut)
    S = len(sm)
    if S * (J + 1) * ra.natural.shape[0] > MOVE_BYTES:
        raise TooBig(f"{rules.name}'s move table would take {S * (J + 1) * ra.natural.shape[0] / 2**30:.1f} GiB, "
                     f"more than {MOVE_BYTES / 2**30:.1f}")
    # rows only for the states play from an empty sheet reaches (a state off that path, a sheet given to
    # play on from, is valued as it comes); the states are by filled boxes, so a layer's rows are made
    # once the layer before has marked them
    dec = np.empty((S, J + 1, ra.natural.shape[0]), dtype=np.uint8)  # (pages of rows never made stay unused)
    seen = np.zeros(S, dtype=np.bool_)
    seen[index[(int(rowof[0]) * 3) * (fut.t + 1)]] = True
    filled = np.zeros(S, dtype=np.int64)
    for b in range(len(rules.boxes)):
        filled += (sm >> b) & 1
    bounds = np.searchsorted(filled, np.arange(len(rules.boxes) + 1))
    n_threads = max(1, threads or cores())

    def piece(todo: Any) -> int:
        work = play_kernel.turn_work(ra, play_kernel.MAX_REROLLS)
        _, bd = _scratch(ra, J)
        play_kernel.fill_moves(todo, (sm, su, sy), (rowof, index), may_pass, ra, f, inputs.saved_value, (dec, seen),
                               work, bd)
        return len(todo)

    piece(np.zeros(0, np.int64))  # compiles (or loads) the kernel once, before the threads start
    done = 0
    with ThreadPoolExecutor(n_threads) as pool:
        for p in range(len(rules.boxes)):
            todo = bounds[p] + np.flatnonzero(seen[bounds[p]: bounds[p + 1]])
            parts = np.array_split(todo, max(1, min(len(todo) // 64, 4 * n_threads)))
            for one in as_completed([pool.submit(piece, part) for part in parts]):
                done += one.result()
                if progress is not None:
                    progress(done, S)
    keep = np.flatnonzero(seen)
    n = len(keep)
    newid = np.full(S + 1, -1, dtype=np.int32)  # (newid[-1]: index's -1 stays -1)
    newid[keep] = np.arange(n, dtype=np.int32)
    index = newid[index]
    for i0 in range(0, n, 4096):  # rows move down in place: a row's source is never an earlier one's target
        i1 = min(i0 + 4096, n)
        dec[i0:i1] = dec[keep[i0:i1]]
    dec = dec[:n]
    if progress is not None:
        progress(S, S)
    seconds = time.perf_counter() - t0
    from .exact import _read_only

    rowof, index, dec = _read_only(rowof, index, dec)
    return MoveTable(kind_of(fut), rules.fingerprint, key[-1], fut.t, may_pass, rowof, index, dec,
                     build_seconds=seconds, meta={"states": n, "bytes": int(dec.nbytes)})


# --------------------------------------------------------------------------- cache


def stored(rules: RuleSet, fut: ValueToGo, progress: Callable[[int, int], None] | None = None,
           ) -> store.Artifact[MoveTable]:
    """The move table of this value to go as the store keeps it (kind "moves" or "gmoves"); its file
    serves only the strategy table whose digest its header holds."""
    key = _key(rules, fut)
    assert key is not None
    digest = key[-1]

    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> MoveTable:
        if header.get("digest") != digest:
            raise CorruptTable("the cached move table was made from another strategy table")
        shape = tuple(int(d) for d in header["shape"])
        dec = np.frombuffer(arrays["dec"], dtype=np.uint8).reshape(shape)  # (mapped: copying it gained nothing)
        rowof = np.frombuffer(arrays["rowof"], dtype=np.int32)
        index = np.frombuffer(arrays["index"], dtype=np.int32)
        meta: dict[str, Any] = {k: header[k] for k in ("states", "bytes") if k in header}
        return MoveTable(header["kind"], header["fingerprint"], digest, int(header["t"]), bool(header["may_pass"]),
                         rowof, index, dec, float(header.get("build_seconds", 0.0)), meta)

    def encode(mt: MoveTable) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"kind": mt.kind, "version": VERSION, "fingerprint": mt.fingerprint, "rule_name": rules.name,
                  "rules": rules.to_dict(), "digest": mt.digest, "t": mt.t, "may_pass": mt.may_pass,
                  "shape": list(mt.dec.shape), "build_seconds": mt.build_seconds, **mt.meta}
        return header, {"rowof": ("i", mt.rowof), "index": ("i", mt.index), "dec": ("B", mt.dec)}

    what = f"{rules.name} move table"

    def announce() -> str:
        play = "optimal" if fut.exact else "greedy"
        return f"building the {what} (every decision of {play} play, for long runs; once{store.cached_in()})"

    return store.Artifact(REGISTRY[kind_of(fut)], rules.fingerprint, what, decode,
                          lambda: build(rules, fut, progress), encode, expect={"version": VERSION},
                          announce=announce)


def _from_file(rules: RuleSet, fut: ValueToGo) -> MoveTable:
    return store.read(stored(rules, fut))


_tables: dict[tuple[Any, ...], MoveTable] = {}  # (one a process: it can be a GB)
_unusable: set[tuple[Any, ...]] = set()  # tables found missing or damaged: not read again chunk after chunk
_lock = threading.Lock()


def _keep(key: tuple[Any, ...], mt: MoveTable) -> MoveTable:
    with _lock:
        _unusable.discard(key)
        _tables.clear()
        _tables[key] = mt
    return mt


def cached(rules: RuleSet, fut: ValueToGo, again: bool = False) -> MoveTable | None:
    """The move table of this value to go: in this process, or read from the cache; None when there
    is none (or it is damaged or stale: built again by the next get()). A table found unusable is
    looked for again only when `again`."""
    key = _key(rules, fut)
    if key is None:
        return None
    with _lock:
        mt = _tables.get(key)
        if mt is not None:
            return mt
        if key in _unusable and not again:
            return None
        try:
            mt = _from_file(rules, fut)
        except (OSError, CorruptTable, KeyError, ValueError, TypeError):
            _unusable.add(key)
            return None
    return _keep(key, mt)


def get(rules: RuleSet, fut: ValueToGo, say: Callable[[str], None] | None = None,
        progress: Callable[[int, int], None] | None = None) -> MoveTable | None:
    """The move table, read from the cache or built and stored (`say`: the notes for stderr); None
    where the rules have none (applies) or it would exceed MOVE_BYTES."""
    from ..progress import given

    if not applies(rules, fut):
        return None
    key = _key(rules, fut)
    assert key is not None
    with _lock:
        mt = _tables.get(key)
    if mt is not None:
        return mt
    try:
        made, _built = store.get(stored(rules, fut, given(progress)), say)
    except TooBig:
        return None
    return _keep(key, made)


def for_run(rules: RuleSet, fut: ValueToGo, run_games: int) -> MoveTable | None:
    """The move table a run of `run_games` games plays from: none below USE_GAMES (the play kernel's
    memo serves short runs), else the one in this process or the cache (get() builds it, which
    play.simulate.prepare asks for runs of BUILD_GAMES)."""
    if run_games < USE_GAMES:
        return None
    return cached(rules, fut)  # (None too where the rules have no move table: no key)


def wanted(rules: RuleSet, fut: ValueToGo, run_games: int) -> bool:
    """Whether a run of `run_games` games builds the move table first when it is missing."""
    return run_games >= BUILD_GAMES and applies(rules, fut)


# --------------------------------------------------------------------------- play



def kernel(rules: RuleSet) -> Any:
    """The kernel that plays the rules' games from a move table: games of as many turns each (no
    passes) advance together (play_lockstep); else one by one (play_moves)."""
    from . import play_kernel

    return play_kernel.play_lockstep if rules.settings.must_zero else play_kernel.play_moves


def play_with(rules: RuleSet, fut: ValueToGo, mt: MoveTable, seed: int, first_game: int, n_games: int,
              seat: int = 0, record: bool = False, threads: int | None = None,
              start: Sequence[Column] | None = None) -> GameBatch:
    """exact.play_with's games (the same, to the last die), every decision read from `mt`."""
    from . import play_kernel
    from .exact import _PlayInputs
    from .totals import on_threads

    inputs = _PlayInputs(rules, fut, n_games, record, start, dice_dtype=np.int8)
    J = mt.dec.shape[1] - 1
    ra = inputs.ra
    roll_at = np.where(ra.keep_index >= 0, ra.roll_of_keep[ra.keep_index], -1).astype(np.int16)

    play = kernel(rules)

    def games(g0: int, g1: int) -> None:
        part = (inputs.scores[g0:g1], inputs.ybonus[g0:g1], inputs.nturns[g0:g1])
        log = tuple(a[g0:g1] for a in inputs.log) if record else None
        moves = (mt.rowof, mt.index, mt.dec, mt.may_pass, _scratch(inputs.ra, J), roll_at)
        play((seed, first_game + g0, seat), inputs.ra, inputs.fut, moves, inputs.max_turns, inputs.saved_value,
             part, play_kernel.turn_work(inputs.ra, play_kernel.MAX_REROLLS), log, inputs.start)

    on_threads(games, n_games, threads)
    return inputs.batch(rules, first_game, copy=False)


__all__ = ["BUILD_GAMES", "USE_GAMES", "MoveTable", "applies", "build", "cached", "for_run", "get", "play_with",
           "wanted"]
