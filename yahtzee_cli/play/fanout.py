"""Running a run's jobs on worker processes or a Dask cluster, with the results in job order.

Games are independent: `validate`, `replay` and `analyze` cut their inputs into jobs
(formats.batch.plan) and each job is read and worked on wherever it runs; the command writes the
results in order, so the output, the summary and the exit status are those of one reading in order,
whatever the number of workers or the backend. At most a few jobs per worker are in flight, so memory
stays flat however big the input. Also the machinery `simulate` uses for its workers (worker set-up,
stopping them, the Dask client, Dask's logging kept quiet).
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import GameError, SimulationError, YahtzeeError
from ..formats.batch import CHUNK_BYTES, Done, Job, in_order, input_bytes, plan, run_job
from ..formats.inputs import Game, Source, Unreadable, bad_game_record
from ..limits import GRADE_PROCESS_BYTES, VALIDATE_PROCESS_BYTES, cores

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("local", "dask")
DASK_CONNECT_TIMEOUT = "10s"
GRADE_CHUNK_BYTES = 64 << 10  # a grading job: a few dozen games (seconds of work at today's speed)


def choose_mode(sources: list[Source], workers: int | None, backend: str, min_bytes: int) -> tuple[str, int]:
    """(mode, workers): "dask" for the dask backend; "processes" when more than one worker is asked
    for (default: every core) and the files come to at least `min_bytes`; else "inline" (this
    process)."""
    if backend not in BACKENDS:
        raise SimulationError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    n = workers if workers is not None else cores()
    if backend == "dask":
        return "dask", n
    if n <= 1 or input_bytes(sources) < min_bytes:
        return "inline", 1
    return "processes", n


def ordered(fn: Callable[[J], R], jobs: Iterator[J], *, mode: str, workers: int,
            scheduler: str | None = None, local: Callable[[J], bool] = lambda job: False) -> Iterator[R]:
    """fn(job) for every job, in job order: in this process ("inline"), on `workers` spawned processes
    ("processes") or on a Dask cluster ("dask": at `scheduler`, or a local cluster of `workers`
    processes). A job for which `local(job)` is true (one that reads stdin) runs in this process when
    its turn comes. `fn` and the jobs must pickle (a module-level function, plain data)."""
    if mode == "inline":
        yield from map(fn, jobs)
    elif mode == "processes":
        yield from _on_processes(fn, jobs, workers, local)
    elif mode == "dask":
        yield from _on_dask(fn, jobs, workers, scheduler, local)
    else:
        raise SimulationError(f"unknown mode {mode!r}")


def _in_order(submit: Callable[[J], Any], result: Callable[[Any], R], fn: Callable[[J], R], jobs: Iterator[J],
              width: int, local: Callable[[J], bool]) -> Iterator[R]:
    """At most `width` jobs in flight, their results taken in order; a local job after the ones before it."""
    pending: deque[Any] = deque()
    for job in jobs:
        if local(job):
            while pending:
                yield result(pending.popleft())
            yield fn(job)
            continue
        pending.append(submit(job))
        while len(pending) >= width:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def _on_processes(fn: Callable[[J], R], jobs: Iterator[J], workers: int, local: Callable[[J], bool]) -> Iterator[R]:
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=init_worker,
                               initargs=(stop, os.getpid()))

    def result(fut: Future[R]) -> R:
        try:
            return fut.result()
        except BrokenProcessPool:
            raise SimulationError("a worker process died (out of memory?)") from None

    finished = False
    try:
        yield from _in_order(lambda job: pool.submit(fn, job), result, fn, jobs, 2 * workers + 1, local)
        finished = True
    finally:
        if not finished:
            stop.set()
            end_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(fn: Callable[[J], R], jobs: Iterator[J], workers: int, scheduler: str | None,
             local: Callable[[J], bool]) -> Iterator[R]:
    with quiet_dask():
        client, cluster = dask_client(scheduler, workers, True, DASK_CONNECT_TIMEOUT)
        futures: list[Any] = []
        try:
            width = 2 * max(workers, len(client.scheduler_info().get("workers", {})), 1) + 1

            def submit(job: J) -> Any:
                f = client.submit(fn, job, pure=False)
                futures.append(f)
                return f

            def result(f: Any) -> R:
                futures.remove(f)
                value: R = f.result()
                return value

            yield from _in_order(submit, result, fn, jobs, width, local)
        finally:
            try:
                if futures:
                    client.cancel(futures)
                client.close()
            finally:
                if cluster is not None:
                    cluster.close()


def local_job(job: Job) -> bool:
    return job.local


def run_batch(fn: Callable[[Job], list[Done[R]]], sources: list[Source], *, workers: int | None = None,
              backend: str = "local", scheduler: str | None = None) -> Iterator[R]:
    """What `fn` makes of each piece of the run's inputs (validation), in input order (see
    formats.batch)."""
    mode, n = choose_mode(sources, workers, backend, VALIDATE_PROCESS_BYTES)
    return in_order(ordered(fn, plan(sources, CHUNK_BYTES), mode=mode, workers=n, scheduler=scheduler,
                            local=local_job))


# --------------------------------------------------------------------------- replay


@dataclass(frozen=True, slots=True)
class ReplayJob:
    job: Job
    overrides: dict[str, Any]
    until: int | None = None


@dataclass(frozen=True, slots=True)
class Replayed:
    """One game of a replay: the game as read (without its data: where it is, its reading problem)
    and its replay, or a poker-dice match (`poker`) checked, or why it cannot be replayed: the
    problems of a game that is not valid, a house-rule setting or `until` that does not apply."""

    item: Game | Unreadable
    replay: Any = None  # formats.replay.Replay
    poker: bool = False
    match: Any = None  # formats.poker_log match
    problems: tuple[Any, ...] = ()
    rules_error: str | None = None
    until_error: str | None = None


def _replay_one(item: Game | Unreadable, rj: ReplayJob) -> Replayed:
    from ..errors import RulesError
    from ..formats.logs import POKER_FORMAT
    from ..formats.poker_log import check_match
    from ..formats.replay import replay_game

    if not isinstance(item, Game):
        return Replayed(item)
    doc = item.doc
    lean = Game(item.source, dataclasses.replace(doc, data=None))
    if doc.problem is not None:
        return Replayed(lean)
    if isinstance(doc.data, dict) and doc.data.get("format") == POKER_FORMAT:
        if rj.overrides or rj.until is not None:
            return Replayed(lean, poker=True)
        match, problems = check_match(doc.data)
        return Replayed(lean, poker=True, match=match, problems=tuple(problems))
    try:
        return Replayed(lean, replay_game(doc.data, overrides=rj.overrides, until=rj.until))
    except GameError as exc:
        return Replayed(lean, problems=tuple(exc.problems))
    except RulesError as exc:
        return Replayed(lean, rules_error=str(exc))
    except YahtzeeError as exc:
        return Replayed(lean, until_error=str(exc))


def replay_job(rj: ReplayJob) -> list[Done[list[Replayed]]]:
    """Replay a job's games (the task `replay` hands out)."""
    return run_job(rj.job, lambda items: [_replay_one(item, rj) for item in items])


def replayed(sources: list[Source], *, overrides: dict[str, Any], until: int | None = None,
             backend: str = "local", scheduler: str | None = None, workers: int | None = None) -> Iterator[Replayed]:
    """Every game of the inputs replayed, in order: here, or on a Dask cluster (a replay is quick:
    locally it never pays to start workers)."""
    mode, n = choose_mode(sources, workers if backend == "dask" else 1, backend, 0)
    jobs = (ReplayJob(job, overrides, until) for job in plan(sources, CHUNK_BYTES))
    for done in in_order(ordered(replay_job, jobs, mode=mode, workers=n, scheduler=scheduler,
                                 local=lambda rj: rj.job.local)):
        yield from done


# --------------------------------------------------------------------------- grading (analyze)


@dataclass(frozen=True, slots=True)
class GradeJob:
    """A grading task: the job's games, how to grade them, and the run it belongs to (a worker keeps
    one Analyzer, with its tables and turn cache, for the run)."""

    job: Job
    run: str
    until: int | None = None
    theta: float | None = None
    keep_decisions: bool = False

    @property
    def local(self) -> bool:
        return self.job.local


@dataclass(frozen=True, slots=True)
class Graded:
    """One game of a grading run: its analysis, or (`analysis` None) the error lines for stderr and
    the NDJSON record of a game that cannot be graded; `fatal`: the run cannot go on at all."""

    where: str
    analysis: Any = None  # play.analyze.GameAnalysis
    errors: tuple[str, ...] = ()
    record: dict[str, Any] | None = None
    fatal: str | None = None
    notes: tuple[str, ...] = ()  # what grading it had to say first (a table built or loaded)


# per thread (a Dask worker may run tasks on threads): the run it grades for, its Analyzer, and the
# Analyzer's notes since the last game
_GRADER = threading.local()


def _analyzer(gj: GradeJob) -> Any:
    if getattr(_GRADER, "run", None) != gj.run:
        from .analyze import Analyzer

        _GRADER.notes = []
        _GRADER.analyzer = Analyzer(_GRADER.notes.append, theta=gj.theta)
        _GRADER.run = gj.run
    return _GRADER.analyzer


def _with_notes(g: Graded) -> Graded:
    """The notes go with the game that caused them, so the command shows them in order, once, from
    whichever process graded it."""
    notes: list[str] = _GRADER.notes
    if not notes:
        return g
    g = dataclasses.replace(g, notes=tuple(notes))
    notes.clear()
    return g


def _grade_one(analyzer: Any, item: Game | Unreadable, gj: GradeJob) -> Graded:
    if not isinstance(item, Game):
        return Graded(item.source.name, errors=(f"{item.source.name}: {item.message}",),
                      record=bad_game_record(item.source.name, None, [], item.code, item.message))
    doc = item.doc
    if doc.problem is not None:
        return Graded(item.where, errors=(f"{item.where}: {doc.problem}",),
                      record=bad_game_record(item.file, doc, [doc.problem]))
    try:
        ga = analyzer.game(doc.data, until=gj.until, game=doc.index, file=item.file, line=doc.line,
                           keep_decisions=gj.keep_decisions)
    except GameError as exc:
        return Graded(item.where, errors=tuple(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}"
                                               for p in exc.problems),
                      record=bad_game_record(item.file, doc, exc.problems))
    except YahtzeeError as exc:
        return Graded(item.where, errors=(f"{item.where}: {exc}",),
                      record=bad_game_record(item.file, doc, [], "not-gradable", str(exc)))
    except OSError as exc:
        from ..strategy import tablefile

        return Graded(item.where, fatal=f"cannot use the cache directory {tablefile.cache_dir()}: {exc.strerror}")
    return Graded(item.where, ga)


def grade_job(gj: GradeJob) -> list[Done[list[Graded]]]:
    """Grade a job's games (the task `analyze` hands out)."""
    analyzer = _analyzer(gj)
    return run_job(gj.job, lambda items: [_with_notes(_grade_one(analyzer, item, gj)) for item in items])


def grade(sources: list[Source], *, until: int | None = None, theta: float | None = None,
          keep_decisions: bool = False, workers: int | None = None, backend: str = "local",
          scheduler: str | None = None) -> Iterator[Graded]:
    """Every game of the inputs graded, in order (see `ordered` for where the work runs)."""
    import secrets

    mode, n = choose_mode(sources, workers, backend, GRADE_PROCESS_BYTES)
    run = secrets.token_hex(8)
    jobs = (GradeJob(job, run, until, theta, keep_decisions) for job in plan(sources, GRADE_CHUNK_BYTES))
    for graded in in_order(ordered(grade_job, jobs, mode=mode, workers=n, scheduler=scheduler,
                                   local=lambda gj: gj.local)):
        yield from graded


_STOP: Any = None  # in worker processes: the pool's stop event (set by the parent to cancel chunks)
PARENT_POLL_SECONDS = 0.5  # how often a worker checks that the command that started it is alive


def init_worker(stop: Any, parent: int) -> None:  # pragma: no cover - runs in worker processes
    """Workers leave Ctrl-C to the parent, which cancels their chunks through `stop`, and never
    outlive it: on Linux the kernel kills them with the parent (PR_SET_PDEATHSIG); everywhere a
    watchdog thread ends the process once its parent is gone, whatever the bot is doing."""
    import signal
    import threading

    global _STOP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP = stop
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def die_with_parent() -> None:  # pragma: no cover - runs in worker processes
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def stop_requested() -> bool:
    return _STOP is not None and bool(_STOP.is_set())




def end_workers(pool: Any, grace: float = 0.3) -> None:
    """Stop a pool's worker processes now: a bot that hangs or ignores SIGTERM must not keep the
    command (or its processes) alive. SIGTERM first, SIGKILL for whatever is left after `grace` s."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # (shutdown forgets them)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


def dask_client(scheduler: str | None, workers: int, processes: bool, timeout: str = "10s") -> tuple[Any, Any]:
    try:
        dist: Any = importlib.import_module("distributed")
    except ImportError:
        raise SimulationError("the dask backend needs the dask extra: pip install 'yahtzee-cli[dask]'") from None
    if scheduler:
        try:
            return dist.Client(scheduler, timeout=timeout), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise SimulationError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                dashboard_address=None, silence_logs=QUIET)
    try:
        return dist.Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


QUIET = logging.CRITICAL + 1  # a level no record reaches


@contextmanager
def quiet_dask() -> Iterator[None]:
    """Silence distributed's own logging for a run, in this process and in the worker processes it
    starts: a task that fails (a bot's error, which the CLI reports in one line), connections and
    heartbeats cut at shutdown, workers slow to stop -- none of it is news to the user, and much of it
    comes with tracebacks."""
    import warnings

    dask: Any = importlib.import_module("dask")
    names = ("distributed", "tornado", "asyncio")
    loggers = [logging.getLogger(n) for n in names] + [
        logging.getLogger(n) for n in list(logging.root.manager.loggerDict) if n.startswith("distributed.")]
    levels = [lg.level for lg in loggers]
    handlers = [h for lg in loggers for h in lg.handlers]
    handler_levels = [h.level for h in handlers]
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    # read by each worker process when it imports distributed, before it logs anything
    environ["DASK_LOGGING__DISTRIBUTED"] = "critical"
    for lg in loggers:
        lg.setLevel(QUIET)
    for h in handlers:
        h.setLevel(QUIET)
    try:
        with warnings.catch_warnings(), dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            warnings.filterwarnings("ignore", module="distributed")
            yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
        for h, level in zip(handlers, handler_levels, strict=True):
            h.setLevel(level)


