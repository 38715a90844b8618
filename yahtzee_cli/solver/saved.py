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
from typing import TYPE_CHECKING, Any

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
from ..strategy.choice import exact_reason
from .games import GameBatch

if TYPE_CHECKING:
    from .exact import Opening

VERSION = 1  # bump when the table's meaning changes
# The cap suggested for the uncapped game: from the study in docs/strategy.md, each saved roll of cap
# beyond it adds less than 0.01 points, while the build takes about half an hour
DEFAULT_CAP = 24
CHUNK_LANES = 4096  # lanes per task: Ctrl-C waits for the running tasks only (about a second)
Progress = Callable[[int, int], None]


def without_saved(rules: RuleSet) -> RuleSet:
    """The same rules without saved rolls (their states, boxes and scores are the saved table's)."""
    data = rules.model_dump()
    data["settings"] = {**data["settings"], "saved_rolls": False, "saved_rolls_cap": None}
    return RuleSet.model_validate(data)


def saved_reason(rules: RuleSet) -> str | None:
    """Why the rule set has no exact saved-rolls table (None when it can have one)."""
    s = rules.settings
    if not s.saved_rolls:
        return "no saved rolls"
    if s.saved_rolls_cap is None:
        return "saved rolls without a cap (set saved_rolls_cap=K for the exact game with at most K saved)"
    if not s.must_zero:
        return "saved rolls with passes (must_zero off)"
    return exact_reason(without_saved(rules))


def _paths(rules: RuleSet) -> tuple[Path, Path, Path]:
    """The values (float32), the header (JSON: what is done) and the masks (int64, by popcount)."""
    values, header, masks = SAVED.paths(tablefile.cache_dir(), rules.fingerprint)
    return values, header, masks


@dataclass
class SavedTable:
    """A built saved-rolls table: W[stock, row, y * (t + 1) + u] (float32, mapped from its file)."""

    fingerprint: str
    rule_name: str
    cap: int
    t: int
    nyt: int
    masks: npt.NDArray[np.int64]  # rows' filled-box masks
    W: npt.NDArray[np.float32]
    mean: float
    states: int
    build_seconds: float
    path: Path

    @cached_property
    def midx(self) -> npt.NDArray[np.int64]:
        """[2**boxes] filled-box mask -> row (-1 unreachable): the full sheet's mask is the largest."""
        midx = np.full(1 << int(self.masks.max()).bit_length(), -1, dtype=np.int64)
        midx[self.masks] = np.arange(len(self.masks), dtype=np.int64)
        return midx

    def row(self, mask: int) -> int:
        i = int(self.midx[mask]) if 0 <= mask < len(self.midx) else -1
        if i < 0:
            raise KeyError(f"unreachable filled-box set {mask:#x}")
        return i

    def value(self, mask: int, y: int, u: int, stock: int) -> float:
        """Expected remaining score (upper bonus included) of a turn start with `stock` rolls saved
        (0..cap: a stock never holds more)."""
        if not 0 <= stock <= self.cap:
            raise ValueError(f"a stock of {stock} saved rolls: this table holds 0 to {self.cap}")
        return float(self.W[stock, self.row(mask), y * (self.t + 1) + min(u, self.t)])


def _header(path: Path) -> dict[str, Any] | None:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def read(rules: RuleSet) -> SavedTable | None:
    """The finished table from the cache, or None (missing, unfinished, another version)."""
    data_p, head_p, masks_p = _paths(rules)
    h = _header(head_p)
    if h is None or h.get("version") != VERSION or h.get("fingerprint") != rules.fingerprint or not h.get("complete"):
        return None
    try:
        masks = np.fromfile(masks_p, dtype="<i8")
        shape = (int(h["cap"]) + 1, int(h["rows"]), int(h["width"]))
        if len(masks) != shape[1] or data_p.stat().st_size != 4 * shape[0] * shape[1] * shape[2]:
            raise CorruptTable(f"{data_p}: the saved-rolls table does not match its header")
        W = np.memmap(data_p, dtype="<f4", mode="r", shape=shape)
    except (OSError, ValueError, KeyError) as exc:
        raise CorruptTable(f"{data_p}: {exc}") from exc
    return SavedTable(h["fingerprint"], h["rule_name"], int(h["cap"]), int(h["t"]), int(h["nyt"]), masks,
                      np.asarray(W), float(h["mean"]), int(h["states"]), float(h["seconds"]), data_p)


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
    rows, width = len(lay.masks), lay.width
    data_p, head_p, masks_p = _paths(rules)
    data_p.parent.mkdir(parents=True, exist_ok=True)
    size = 4 * (K + 1) * rows * width
    h = _header(head_p)
    fresh = (h is None or h.get("version") != VERSION or h.get("fingerprint") != rules.fingerprint
             or not data_p.exists() or data_p.stat().st_size != size or not masks_p.exists())
    if fresh:
        write_atomic(masks_p, [lay.masks.astype("<i8").tobytes()])
        with open(data_p, "wb") as fh:
            fh.truncate(size)
        h = {"kind": "saved", "version": VERSION, "fingerprint": rules.fingerprint, "rule_name": rules.name,
             "rules": rules.to_dict(), "cap": K, "rows": rows, "width": width, "t": lay.t, "nyt": lay.nyt,
             "states": lay.n_states * (K + 1), "layers": lay.nb + 1, "layers_done": [], "seconds": 0.0,
             "complete": False, "mean": None}
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
    W = np.frombuffer(mm, dtype=np.float32).reshape(K + 1, rows, width)
    mapped = [W]  # the threads' view of the file, dropped before the file is unmapped
    W2 = np.zeros((1, 1))
    cap = max(lane_cap, width)
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
        if lay.nb not in done_layers:
            u = np.arange(lay.t + 1)
            term = np.where(u >= lay.t, float(s.upper_bonus), 0.0)
            W[:, lay.midx[full]] = np.tile(term, lay.nyt).astype(np.float32)
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
                        work = local.work = (lane_work(lay.arrays, cap, False, False, 2),
                                             np.empty((lay.arrays.natT.shape[1], cap)))
                    kernels.saved_chunk(c, nch, lay.masks, (start, end), n_lanes, lay.state, lay.arrays, mapped[0],
                                        W2, work)
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
        mean = float(W[0, lay.midx[0], 0])
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


def play_with(rules: RuleSet, tab: SavedTable, seed: int, first_game: int, n_games: int, seat: int = 0,
              record: bool = False, threads: int | None = None, start: Sequence[Column] | None = None,
              saved: int = 0, opening: Opening | None = None) -> GameBatch:
    """Play games first_game .. first_game + n_games - 1 of seat `seat` by the saved-rolls table
    (play_kernel.play_saved_games: optimal play with at most tab.cap saved rolls), with the dice and
    tie conventions of every strategy (solver.policy.play). `start`, `saved`, `opening`: the column
    every game goes on from (default: an empty sheet), as exact.start_arrays takes them.
    Returns a games.GameBatch."""
    from ..rules.engine import most_rolls
    from . import play_kernel
    from .exact import start_arrays
    from .tables import rule_arrays
    from .totals import on_threads, sheet_totals
    from .within_turn import FUTURE_TABLE, Future

    ra = rule_arrays(rules, tab.nyt)
    nb = ra.nb
    W3 = tab.W
    fut = Future(FUTURE_TABLE, tab.t, tab.nyt, W3[0], tab.midx, np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1),
                 np.zeros(1, np.int64))
    scores = np.empty((n_games, 1, nb), dtype=np.int64)
    ybonus = np.zeros((n_games, 1), dtype=np.int64)
    nturns = np.zeros(n_games, dtype=np.int64)
    max_rolls = most_rolls(rules, nb)
    rg, rt, rr = (n_games, nb, max_rolls) if record else (1, 1, 1)
    log = (np.zeros((rg, rt, rr, rules.dice), dtype=np.int64), np.zeros((rg, rt, max(rr - 1, 1), rules.dice),
                                                                          dtype=np.int64),
           np.zeros((rg, rt), dtype=np.int64), np.zeros((rg, rt), dtype=np.int64), np.full((rg, rt), -1, np.int64))
    stages = max_rolls - 1
    first = start_arrays(rules, start, saved, opening)

    def games(g0: int, g1: int) -> None:
        work = play_kernel.turn_work(ra, stages)
        FS = np.empty((tab.cap + 1, ra.natT.shape[1]))
        part = (scores[g0:g1], ybonus[g0:g1], nturns[g0:g1])
        lg = tuple(a[g0:g1] for a in log) if record else None
        play_kernel.play_saved_games((seed, first_game + g0, seat), ra, fut, W3, part, work, FS, lg, first)

    on_threads(games, n_games, threads)
    totals, _ = sheet_totals(rules, scores, ybonus)
    batch = GameBatch(first_game, scores, ybonus, totals)
    if record:
        r_used = max(int(log[2].max()) if n_games else 1, 1)
        batch.rolls = log[0][:, :, :r_used].copy()
        batch.held = log[1][:, :, : max(r_used - 1, 0)].copy()
        batch.n_rolls = log[2].copy()
        batch.column = log[3].copy()
        batch.box = log[4].copy()
        batch.n_turns = nturns
    return batch


# The build's CPU time for Maxi Yatzy's 89 million cells per stock, measured for K = 0..9 (the study
# in docs/strategy.md): about 186 s at K = 0 (compile included) and 119 s more per saved roll of cap
# (one final-roll pass and one keep pass over the states); its two threads made about 1.6 s of CPU per
# second of wall time.
CPU_SECONDS_MAXI = 186.0
CPU_SECONDS_PER_CAP_MAXI = 119.0
MAXI_CELLS = 89_128_960
CPU_PER_WALL = 1.6


def build_minutes(rules: RuleSet) -> float:
    """About how long the saved-rolls table's build takes on two cores: linear in the cap, scaled by
    the states from Maxi Yatzy's measured build."""
    from ..strategy.space import state_space

    K = rules.settings.saved_cap
    cpu = (CPU_SECONDS_MAXI + CPU_SECONDS_PER_CAP_MAXI * K) * state_space(without_saved(rules)).states / MAXI_CELLS
    return cpu / CPU_PER_WALL / 60


def build_gb(rules: RuleSet) -> float:
    """The saved-rolls table's size on disk in GB: a float32 per state for each stock 0..K."""
    from ..strategy.space import state_space

    return 4 * (rules.settings.saved_cap + 1) * state_space(without_saved(rules)).states / 1e9


def about_minutes(minutes: float) -> str:
    return "under a minute" if minutes < 1 else f"about {minutes:.0f} min"
