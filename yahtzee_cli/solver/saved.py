"""The exact table of a rule set with saved rolls capped at K (Maxi Yatzy with `saved_rolls_cap`).

A turn-start state is the table's (mask, y, u) plus the stock of saved rolls, s = 0..K: the table is
W[s, row, y * (t + 1) + u], built by the same backward induction as the plain table (kernels.saved_chunk
on the within-turn kernels) with one more dimension. Stopping with L rolls unused saves min(L, K);
the rest are lost. The optimal value grows with K towards the uncapped game's.

The table is large (Maxi Yatzy: 356 MB per stock as float32, values below 1024 kept to within 3.1e-5)
and slow to build (minutes per stock), so it is built into a file mapped in memory, a popcount layer
of masks at a time: after each layer the file is flushed and the layer recorded in its header, so a
build stopped by Ctrl-C (or killed) goes on from the last finished layer when run again.
"""

from __future__ import annotations

import errno
import mmap
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future as TaskFuture
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
import orjson

from ..errors import CorruptTable, NotExact
from ..paths import write_atomic
from ..progress import given
from ..rules.engine import Column, RuleSet
from ..store import artifact as store
from ..store import tablefile
from ..store.kinds import SAVED
from ..strategy.choice import saved_reason
from ..strategy.saved_cost import about_minutes, build_gb, build_minutes, without_saved
from .games import GameBatch

if TYPE_CHECKING:
    from .exact import Opening

VERSION = 2  # bump when the table's meaning changes (2: compact, the cells a game can reach)
CHUNK_LANES = 4096  # lanes per task: Ctrl-C waits for the running tasks only (about a second)
Progress = Callable[[int, int], None]


def _paths(rules: RuleSet) -> tuple[Path, Path, Path]:
    """The values (float32), the header (JSON: what is done) and the layout (int64: Compact.pack)."""
    values, header, masks = SAVED.paths(tablefile.cache_dir(), rules.fingerprint)
    return values, header, masks


@dataclass
class Compact:
    """Where each cell of a compact saved-rolls table is: only the cells a game can reach, stock by stock.

    Rows are the reachable filled-box masks, most filled first; a row holds the lanes its mask's
    states need (y, and the upper totals that can still matter: every total too far below the
    threshold to reach it shares one lane). A sheet with p boxes filled holds at most tops[p] saved
    (rules.engine.most_saved: a turn saves at most 2), so stock s's block holds the rows that can
    hold s, a prefix of the rows. Cell (s, mask, y, u) = sbase[s] + midx[mask] + ulane[sub_of[mask],
    y * (t + 1) + u]."""

    masks: npt.NDArray[np.int64]  # rows, most filled first
    nl: npt.NDArray[np.int64]  # each row's lanes
    ulane: npt.NDArray[np.int64]  # [upper set, y * (t + 1) + u] -> lane in its row (-1: a total it cannot have)
    sbase: npt.NDArray[np.int64]  # [K + 2]: each stock's block
    tops: npt.NDArray[np.int64]  # [boxes + 1]: the most rolls saved with p boxes filled
    nb: int

    @property
    def cells(self) -> int:
        return int(self.sbase[-1])

    @cached_property
    def midx(self) -> npt.NDArray[np.int64]:
        """[2**boxes] mask -> its row's first cell within a stock's block (-1 unreachable)."""
        midx = np.full(1 << self.nb, -1, dtype=np.int64)
        midx[self.masks] = np.concatenate([[0], np.cumsum(self.nl)[:-1]]).astype(np.int64)
        return midx

    def top_stock(self, mask: int) -> int:
        """The most rolls a sheet with these boxes filled can hold saved."""
        return int(self.tops[bin(mask).count("1")])

    def pack(self) -> bytes:
        head = np.array([self.nb, len(self.masks), self.ulane.shape[0], self.ulane.shape[1], len(self.sbase)],
                        dtype="<i8")
        return b"".join(np.ascontiguousarray(a, dtype="<i8").tobytes()
                        for a in (head, self.masks, self.nl, self.ulane, self.sbase, self.tops))

    @classmethod
    def unpack(cls, data: bytes) -> Compact:
        a = np.frombuffer(data, dtype="<i8")
        nb, rows, subs, width, ns = (int(v) for v in a[:5])
        at = 5
        masks, at = a[at:at + rows], at + rows
        nl, at = a[at:at + rows], at + rows
        ulane, at = a[at:at + subs * width].reshape(subs, width), at + subs * width
        sbase, at = a[at:at + ns], at + ns
        tops, at = a[at:at + nb + 1], at + nb + 1
        if at != len(a) or ns < 2:
            raise ValueError("layout size")
        return cls(masks.copy(), nl.copy(), ulane.copy(), sbase.copy(), tops.copy(), nb)


def filled_counts(masks: npt.NDArray[np.int64], nb: int) -> npt.NDArray[np.int64]:
    """The number of filled boxes of each mask (of nb boxes)."""
    counts = np.zeros(len(masks), dtype=np.int64)
    for b in range(nb):
        counts += (masks >> b) & 1
    return counts


def compact_layout(rules: RuleSet, lay: Any) -> Compact:
    """The compact table's layout of capped rules with saved rolls, exact.layout `lay` their states
    without saved rolls (see Compact)."""
    from ..rules.engine import most_saved

    K = rules.settings.saved_cap
    tops = np.array([most_saved(rules, p) for p in range(lay.nb + 1)], dtype=np.int64)
    masks = np.asarray(lay.masks, dtype=np.int64)
    pc = filled_counts(masks, lay.nb)
    order = np.lexsort((masks, -pc))  # most filled first, then by mask
    rows, pcs = masks[order], pc[order]
    ny = np.where((rows & lay.ybit) != 0, lay.nyt, 1)
    nl = lay.ucount[lay.sub_of[rows]] * ny
    ends = np.cumsum(nl)
    blocks = []
    for s in range(K + 1):
        n_rows = int(np.sum(tops[pcs] >= s))  # a prefix: pcs falls along the rows
        blocks.append(int(ends[n_rows - 1]) if n_rows else 0)
    sbase = np.concatenate([[0], np.cumsum(blocks)]).astype(np.int64)
    t = lay.t
    subs = lay.ucount.shape[0]
    ulane = np.full((subs, lay.nyt * (t + 1)), -1, dtype=np.int64)
    for sub in range(subs):
        nu = int(lay.ucount[sub])
        for y in range(lay.nyt):
            for i in range(nu):
                ulane[sub, y * (t + 1) + int(lay.ulist[sub, i])] = y * nu + i
            for i in range(int(lay.dcount[sub])):  # sharing the dead lane computed first
                ulane[sub, y * (t + 1) + int(lay.dlist[sub, i])] = y * nu
    return Compact(rows, nl, ulane, sbase, tops, lay.nb)


@dataclass
class SavedTable:
    """A built saved-rolls table, compact (Compact: the cells a game can reach), float32, mapped from
    its file."""

    fingerprint: str
    rule_name: str
    cap: int
    t: int
    nyt: int
    lay: Compact
    W: npt.NDArray[np.float32]  # [cells]
    mean: float
    states: int
    build_seconds: float
    path: Path
    sub_of: npt.NDArray[np.int64]  # [2**boxes] mask -> its set of filled upper boxes

    @property
    def masks(self) -> npt.NDArray[np.int64]:
        """The rows' filled-box masks."""
        return self.lay.masks

    @property
    def midx(self) -> npt.NDArray[np.int64]:
        return self.lay.midx

    def cell(self, mask: int, y: int, u: int, stock: int) -> int:
        """The index in W of a state's value (KeyError: a state no game reaches)."""
        if not 0 <= stock <= self.cap:
            raise ValueError(f"a stock of {stock} saved rolls: this table holds 0 to {self.cap}")
        lay = self.lay
        base = int(lay.midx[mask]) if 0 <= mask < len(lay.midx) else -1
        if base < 0:
            raise KeyError(f"unreachable filled-box set {mask:#x}")
        if stock > lay.top_stock(mask):
            raise KeyError(f"{stock} saved rolls with {bin(mask).count('1')} boxes filled (a turn saves at most 2)")
        lane = int(lay.ulane[self.sub_of[mask], y * (self.t + 1) + min(u, self.t)])
        if lane < 0:
            raise KeyError(f"an upper total of {u} with filled boxes {mask:#x}")
        return int(lay.sbase[stock]) + base + lane

    def value(self, mask: int, y: int, u: int, stock: int) -> float:
        """Expected remaining score (upper bonus included) of a turn start with `stock` rolls saved
        (0..cap: a stock never holds more; at most 2 per turn played)."""
        return float(self.W[self.cell(mask, y, u, stock)])

    def values(self, stock: int, masks: npt.NDArray[np.int64], ys: npt.NDArray[np.int64],
               us: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """value() of many states of one stock at once (every one reachable: not checked)."""
        lay = self.lay
        lanes = lay.ulane[self.sub_of[masks], ys * (self.t + 1) + np.minimum(us, self.t)]
        at = lay.sbase[stock] + lay.midx[masks] + lanes
        return np.asarray(self.W[at], dtype=np.float64)

    def stocks(self) -> tuple[Any, tuple[Any, ...]]:
        """(within_turn.Future, stocks): the table as play_kernel.play_saved_games takes it."""
        from .within_turn import FUTURE_TABLE, Future

        none = np.zeros((self.cap + 1, 1, 1))
        lay = self.lay
        fut = Future(FUTURE_TABLE, self.t, self.nyt, self.W[: lay.sbase[1]], lay.midx, none[0], none[0], none[0, 0],
                     self.sub_of, lay.ulane)
        return fut, (self.W, lay.sbase, none, none, none[:, 0])


def _header(path: Path) -> dict[str, Any] | None:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def read(rules: RuleSet) -> SavedTable | None:
    """The finished table from the cache, or None (missing, unfinished, another version); opened once
    in a process while its files stay as they are (tablefile.opened)."""
    return tablefile.opened("saved", _paths(rules), lambda: _read(rules))


def _read(rules: RuleSet) -> SavedTable | None:
    data_p, head_p, lay_p = _paths(rules)
    h = _header(head_p)
    if h is None or h.get("version") != VERSION or h.get("fingerprint") != rules.fingerprint or not h.get("complete"):
        return None
    try:
        lay = Compact.unpack(lay_p.read_bytes())
        if lay.cells != int(h["cells"]) or data_p.stat().st_size != 4 * lay.cells:
            raise CorruptTable(f"{data_p}: the saved-rolls table does not match its header")
        W = np.memmap(data_p, dtype="<f4", mode="r", shape=(lay.cells,))
    except (OSError, ValueError, KeyError) as exc:
        raise CorruptTable(f"{data_p}: {exc}") from exc
    from .value_to_go import sub_of

    return SavedTable(h["fingerprint"], h["rule_name"], int(h["cap"]), int(h["t"]), int(h["nyt"]), lay,
                      np.asarray(W), float(h["mean"]), int(h["states"]), float(h["seconds"]), data_p,
                      sub_of(without_saved(rules)))


def progress_done(rules: RuleSet) -> tuple[int, int] | None:
    """(layers finished, layers) of an unfinished build in the cache, or None."""
    h = _header(_paths(rules)[1])
    if h is None or h.get("version") != VERSION or h.get("complete"):
        return None
    return len(h.get("layers_done", [])), int(h.get("layers", 0))


def build(rules: RuleSet, say: Callable[[str], None] | None = None, progress: Progress | None = None,
          threads: int | None = None, lane_cap: int = 128) -> SavedTable:
    """Build (or go on building) the rule set's saved-rolls table in the cache; NotExact when it has none.

    `progress(done, total)` is called as lanes are finished (work done this run and before);
    KeyboardInterrupt stops the build within about a second, keeping the finished layers."""
    from ..limits import cores
    from . import kernels
    from .exact import layout
    from .within_turn import lane_work

    why = saved_reason(rules)
    if why is not None:
        raise NotExact(f"{rules.name} has no exact saved-rolls table ({why})")
    t0 = time.perf_counter()
    progress = given(progress)
    K = rules.settings.saved_cap
    lay = layout(without_saved(rules))
    s = rules.settings
    comp = compact_layout(rules, lay)
    data_p, head_p, lay_p = _paths(rules)
    data_p.parent.mkdir(parents=True, exist_ok=True)
    size = 4 * comp.cells
    h = _header(head_p)
    fresh = (h is None or h.get("version") != VERSION or h.get("fingerprint") != rules.fingerprint
             or not data_p.exists() or data_p.stat().st_size != size or not lay_p.exists())
    if fresh:
        write_atomic(lay_p, [comp.pack()])
        with open(data_p, "wb") as fh:
            fh.truncate(size)
        n_reach = (lay.ucount + lay.dcount)[lay.sub_of[comp.masks]] * np.where((comp.masks & lay.ybit) != 0, lay.nyt, 1)
        pcs = filled_counts(comp.masks, lay.nb)
        h = {"kind": "saved", "version": VERSION, "fingerprint": rules.fingerprint, "rule_name": rules.name,
             "rules": rules.to_dict(), "cap": K, "cells": comp.cells, "t": lay.t, "nyt": lay.nyt,
             "states": int((n_reach * (comp.tops[pcs] + 1)).sum()), "layers": lay.nb + 1,
             "layers_done": [], "seconds": 0.0, "complete": False, "mean": None}
    assert h is not None
    done_layers = set(h["layers_done"])
    before = float(h["seconds"])
    if done_layers and say is not None:
        say(f"going on with the {rules.name} table from layer {len(done_layers)} of {lay.nb + 1} "
            f"(finished before: {before / 60:.1f} min of building)")
    ny_of = np.where((lay.masks & lay.ybit) != 0, lay.nyt, 1)
    n_lanes = lay.ucount[lay.sub_of[lay.masks]] * ny_of
    total = int(n_lanes[: lay.layer_ptr[lay.nb]].sum())  # the full sheet's lanes are set, not computed
    done = int(sum(int(n_lanes[lay.layer_ptr[p]:lay.layer_ptr[p + 1]].sum()) for p in done_layers
                   if p < lay.nb))
    fd = os.open(data_p, os.O_RDWR)
    try:
        _reserve(fd, size)
    except OSError:
        os.close(fd)
        if fresh:  # nothing finished: leave no half-reserved file behind
            data_p.unlink(missing_ok=True)
        raise
    mm = mmap.mmap(fd, size)
    os.close(fd)
    W = np.frombuffer(mm, dtype=np.float32)
    mapped = [W]  # the threads' view of the file, dropped before the file is unmapped
    state = lay.state._replace(midx=comp.midx, ulane=comp.ulane)  # the kernels read and write compact cells
    cap = max(lane_cap, lay.width)
    workers = max(1, threads or cores())
    local = threading.local()
    stop = threading.Event()
    lock = threading.Lock()

    def save(layer: int) -> None:
        mm.flush()
        h["layers_done"] = sorted(done_layers | {layer})
        h["seconds"] = before + time.perf_counter() - t0
        write_atomic(head_p, [orjson.dumps(h)])
        done_layers.add(layer)
        if hasattr(mmap, "MADV_DONTNEED"):  # finished pages are on disk: let them go (peak memory)
            mm.madvise(mmap.MADV_DONTNEED)

    previous = _on_ctrl_c(stop)
    try:
        full = (1 << lay.nb) - 1
        if lay.nb not in done_layers:  # the full sheet: the upper bonus or nothing, whatever the stock
            sub = int(lay.sub_of[full])
            us = lay.ulist[sub, : lay.ucount[sub]]
            term = np.tile(np.where(us >= lay.t, float(s.upper_bonus), 0.0), int(comp.nl[0]) // len(us))
            for k in range(int(comp.tops[lay.nb]) + 1):  # (the stocks a full sheet can be reached with)
                at = int(comp.sbase[k] + comp.midx[full])
                W[at: at + len(term)] = term.astype(np.float32)
            save(lay.nb)
        with ThreadPoolExecutor(workers) as pool:
            for p in range(lay.nb - 1, -1, -1):
                if p in done_layers:
                    continue
                start, end = int(lay.layer_ptr[p]), int(lay.layer_ptr[p + 1])
                layer_lanes = int(n_lanes[start:end].sum())
                nch = max(1, min(end - start, -(-layer_lanes // CHUNK_LANES)))

                def chunk(c: int, nch: int = nch, start: int = start, end: int = end) -> None:
                    nonlocal done
                    if stop.is_set():
                        return
                    work = getattr(local, "work", None)
                    if work is None:
                        work = local.work = (lane_work(lay.arrays, cap, False, False, 2, np.float32),
                                             np.empty((lay.arrays.natT.shape[1], cap)))
                    kernels.saved_chunk(c, nch, lay.masks, (start, end), n_lanes, state, lay.arrays, mapped[0],
                                        (comp.sbase, comp.tops), work)
                    lanes = int(n_lanes[start + c:end:nch].sum())
                    if progress is not None and lanes:
                        with lock:
                            done += lanes
                            progress(done, total)

                chunk(end - start, 1)  # owns no mask: compiles (or loads) the kernel first
                tasks: list[TaskFuture[None]] = [pool.submit(chunk, c) for c in range(nch)]
                try:
                    for task in tasks:
                        while not stop.is_set():
                            try:
                                task.result(timeout=0.25)  # (a Ctrl-C only sets `stop`: see _on_ctrl_c)
                                break
                            except TimeoutError:
                                continue
                except BaseException:
                    stop.set()
                    raise
                finally:
                    if stop.is_set():
                        for task in tasks:
                            task.cancel()
                if stop.is_set():
                    raise KeyboardInterrupt  # the running chunks have returned: this layer is not recorded
                save(p)
        mean = float(W[comp.midx[0]])  # (stock 0's block first, the empty sheet's one lane)
        h.update(complete=True, mean=mean, seconds=before + time.perf_counter() - t0)
        mm.flush()
        write_atomic(head_p, [orjson.dumps(h)])
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGINT, previous)
        mapped.clear()
        del W
        try:
            mm.close()
        except BufferError:  # a view still held (a traceback's frame): unmapped when it goes
            pass
    tab = read(rules)
    if tab is None:
        raise CorruptTable(f"{data_p}: the saved-rolls table was built but cannot be read back")
    return tab


def _on_ctrl_c(stop: threading.Event) -> Any:
    """In the main thread, a Ctrl-C sets `stop` (the running chunks finish, about a second, and the
    build raises KeyboardInterrupt with its finished layers recorded); a second one stops at once.
    Returns the previous handler (None when none was set: not the main thread)."""
    import signal

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    try:
        return signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        return None


def stored(rules: RuleSet, say: Callable[[str], None] | None = None,
           progress: Progress | None = None) -> store.Artifact[SavedTable]:
    """The rule set's saved-rolls table as the store keeps it: read from its own files, which its
    build writes (and goes on writing after a stop), so the store writes nothing."""
    def announce() -> str:
        return (f"building the {rules.title} strategy table with at most {rules.settings.saved_cap} saved rolls "
                f"({about_minutes(build_minutes(rules))} on 2 cores, {build_gb(rules):.1f} GB; Ctrl-C keeps the "
                f"finished layers, run again to go on; cached in {tablefile.cache_dir()})")

    return store.Artifact(SAVED, rules.fingerprint, f"{rules.title} strategy table", None,
                          lambda: build(rules, say, progress),
                          announce=announce, load=lambda: read(rules))


def get_table(rules: RuleSet, say: Callable[[str], None] | None = None, rebuild: bool = False,
              progress: Progress | None = None) -> tuple[SavedTable, bool]:
    """The rule set's saved-rolls table from the cache, built (or finished) when missing. Returns
    (table, built)."""
    return store.get(stored(rules, say, progress), say, rebuild)


def _reserve(fd: int, size: int) -> None:
    """Reserve the file's disk space before it is mapped: a write through the map to a full disk would
    kill the build with SIGBUS, where this fails first with an OSError that says what is needed."""
    fallocate = getattr(os, "posix_fallocate", None)  # (not on macOS: the file stays sparse there)
    if fallocate is None:
        return
    try:
        fallocate(fd, 0, size)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            why = f"{os.strerror(errno.ENOSPC)} (the table needs {size / 1e9:.1f} GB)"
            raise OSError(errno.ENOSPC, why) from exc
        if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # a file system without it: write sparse
            raise


# --------------------------------------------------------------------------- play


class StockValues(Protocol):
    """Values to go by stock of saved rolls, 0..cap: a SavedTable, or a model fitted to one
    (solver.saved_fit.FittedStocks)."""

    cap: int
    t: int
    nyt: int

    def stocks(self) -> tuple[Any, tuple[Any, ...]]: ...

    def value(self, mask: int, y: int, u: int, stock: int) -> float: ...


def play_with(rules: RuleSet, tab: StockValues, seed: int, first_game: int, n_games: int, seat: int = 0,
              record: bool = False, threads: int | None = None, start: Sequence[Column] | None = None,
              saved: int = 0, opening: Opening | None = None) -> GameBatch:
    """Play games first_game .. first_game + n_games - 1 of seat `seat` by values to go by stock: the
    saved-rolls table (play_kernel.play_saved_games: optimal play with at most tab.cap saved rolls) or
    a model fitted to one (solver.saved_fit), with the dice and
    tie conventions of every strategy (solver.policy.play). `start`, `saved`, `opening`: the column
    every game goes on from (default: an empty sheet), as exact.start_arrays takes them.
    Returns a games.GameBatch."""
    from . import play_kernel
    from .totals import on_threads, sheet_totals

    if start is not None and rules.settings.saved_rolls:
        from ..rules.engine import most_saved

        most = most_saved(rules, bin(start[0].filled_mask).count("1"))
        if most is not None and saved > most:  # (a table holds no such cell: never read past it)
            raise ValueError(f"{saved} rolls saved with {bin(start[0].filled_mask).count('1')} boxes filled: "
                             f"at most {most}")
    args = play_args(rules, tab, n_games, record, start, saved, opening)
    ra, fut, stocks, (scores, ybonus, nturns), first = args[1], args[2], args[3], args[4], args[8]
    log = args[7]

    def games(g0: int, g1: int) -> None:
        work = play_kernel.turn_work(ra, args[5].EJ.shape[0])
        scratch = play_kernel.saved_scratch(tab.cap, ra, fut.kind == play_kernel.FUTURE_TABLE)
        part = (scores[g0:g1], ybonus[g0:g1], nturns[g0:g1])
        lg = tuple(a[g0:g1] for a in log) if log is not None else None
        play_kernel.play_saved_games((seed, first_game + g0, seat), ra, fut, stocks, part, work, scratch, lg,
                                     first)

    with play_kernel.compiled_on_two_cores(args, threads, play_kernel.play_saved_games):
        on_threads(games, n_games, threads)
    totals, _ = sheet_totals(rules, scores, ybonus)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if log is not None:
        r_used = max(int(log[2].max()) if n_games else 1, 1)
        batch.rolls = log[0][:, :, :r_used].astype(np.int64)
        batch.held = log[1][:, :, : max(r_used - 1, 0)].astype(np.int64)
        batch.n_rolls = log[2].copy()
        batch.column = log[3].copy()
        batch.box = log[4].copy()
        batch.n_turns = nturns
    return batch


def play_args(rules: RuleSet, tab: StockValues, n_games: int, record: bool = False,
              start: Sequence[Column] | None = None, saved: int = 0, opening: Opening | None = None) -> tuple[Any, ...]:
    """The arguments play_kernel.play_saved_games takes for n_games games of `tab` (outputs allocated;
    what play_with hands each thread, and what asks whether the kernel is compiled for them)."""
    from ..rules.engine import most_rolls
    from . import play_kernel
    from .exact import start_arrays
    from .tables import rule_arrays

    ra = rule_arrays(rules, tab.nyt)
    nb = ra.nb
    fut, stocks = tab.stocks()
    out = (np.empty((n_games, 1, nb), dtype=np.int64), np.zeros((n_games, 1), dtype=np.int64),
           np.zeros(n_games, dtype=np.int64))
    max_rolls = most_rolls(rules, nb)
    log = None
    if record:
        rg, rt, rr = n_games, nb, max_rolls
        # the dice one byte each (a turn may take dozens of rolls: 8 bytes a die capped a recorded
        # chunk at 852 Maxi Yatzy games, simulate.record_cap); int64 again once played (play_with)
        log = (np.zeros((rg, rt, rr, rules.dice), dtype=np.int8), np.zeros((rg, rt, max(rr - 1, 1), rules.dice),
                                                                             dtype=np.int8),
               np.zeros((rg, rt), dtype=np.int64), np.zeros((rg, rt), dtype=np.int64), np.full((rg, rt), -1, np.int64))
    work = play_kernel.turn_work(ra, max_rolls - 1)
    scratch = play_kernel.saved_scratch(tab.cap, ra, fut.kind == play_kernel.FUTURE_TABLE)
    return ((0, 0, 0), ra, fut, stocks, out, work, scratch, log, start_arrays(rules, start, saved, opening))
