"""Running jobs on worker processes or a Dask cluster, results in job order (`ordered`): validate,
replay, analyze and simulate all run their jobs through it, so a worker that dies is one error
(WORKER_DIED), wherever it happened. Also worker set-up, stopping workers, the Dask client
and Dask's logging kept quiet. At most a few jobs per worker are in flight, so memory stays flat
however many jobs there are.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..errors import MissingExtra, SchedulerError, SimulationError
from ..limits import cores

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("local", "dask")
DASK_CONNECT_TIMEOUT = "10s"


def choose_mode(nbytes: int, workers: int | None, backend: str, min_bytes: int) -> tuple[str, int]:
    """(mode, workers): "dask" for the dask backend; "processes" when more than one worker is asked
    for (default: every core) and the input (`nbytes`) comes to at least `min_bytes`; else "inline"
    (this process)."""
    if backend not in BACKENDS:
        raise SimulationError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    n = workers if workers is not None else cores()
    if backend == "dask":
        return "dask", n
    if n <= 1 or nbytes < min_bytes:
        return "inline", 1
    return "processes", n


WORKER_DIED = "a worker process died (out of memory, or a bot that ended its process?)"


def ordered(fn: Callable[[J], R], jobs: Iterator[J], *, mode: str, workers: int,
            scheduler: str | None = None, local: Callable[[J], bool] = lambda job: False,
            parent_works: bool = True, dask_processes: bool = True, fork: bool = False) -> Iterator[R]:
    """fn(job) for every job, in job order: in this process ("inline"), on `workers` spawned processes
    ("processes") or on a Dask cluster ("dask": at `scheduler`, or a local cluster of `workers`
    workers, processes unless `dask_processes` is false). A job for which `local(job)` is true (one
    that reads stdin) runs in this process when its turn comes. `parent_works` (processes): this
    process is one of the workers (it runs jobs itself while the others are busy); off, every job runs
    in a worker (a bot that ends its process must not end the command). A worker that dies raises
    SimulationError(WORKER_DIED). `fn` and the jobs must pickle (a module-level function, plain data).
    `fork` (processes): `fn` needs nothing this process has not loaded and no compiled kernels, so the
    workers may be forked copies of this process where that is safe (see `can_fork`)."""
    if mode == "inline":
        yield from map(fn, jobs)
    elif mode == "processes":
        yield from _on_processes(fn, jobs, workers, local, parent_works, fork)
    elif mode == "dask":
        yield from _on_dask(fn, jobs, workers, scheduler, local, dask_processes)
    else:
        raise SimulationError(f"unknown mode {mode!r}")


def _in_order(submit: Callable[[J], Any], result: Callable[[Any], R], fn: Callable[[J], R], jobs: Iterator[J],
              width: int, local: Callable[[J], bool], here: bool = False) -> Iterator[R]:
    """At most `width` jobs in flight, their results taken in order; a local job after the ones before it.
    `here` (what was submitted has .done()): while `width` submitted jobs are still running, this
    process runs the next job itself instead of waiting (and holds under 3 * width results)."""
    pending: deque[tuple[bool, Any]] = deque()  # (True, a result worked out here) or (False, a submitted job)

    def take() -> R:
        done_here, held = pending.popleft()
        if done_here:
            value: R = held
            return value
        return result(held)

    def running() -> int:
        return sum(1 for done_here, held in pending if not done_here and not held.done())

    for job in jobs:
        if local(job):
            while pending:
                yield take()
            yield fn(job)
            continue
        if here:
            while pending and (pending[0][0] or pending[0][1].done()):
                yield take()
            if running() >= width:
                pending.append((True, fn(job)))
            else:
                pending.append((False, submit(job)))
            while len(pending) >= 3 * width:
                yield take()
        else:
            pending.append((False, submit(job)))
            while len(pending) >= width:
                yield take()
    while pending:
        yield take()


def can_fork() -> bool:
    """Whether worker processes may be forked copies of this one: on Linux (elsewhere system libraries
    are not fork-safe) with no other thread running (a lock it holds would stay held in the copy).
    multiprocessing flushes stdout and stderr before it forks, so nothing buffered is written twice."""
    import multiprocessing
    import threading

    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return False
    return threading.active_count() == 1


def _on_processes(fn: Callable[[J], R], jobs: Iterator[J], workers: int, local: Callable[[J], bool],
                  parent_works: bool, fork: bool = False) -> Iterator[R]:
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # A forked worker starts at once, with this process's modules; a spawned one first imports them
    # (0.15 s before its first job, 0.3 s of CPU with the resource tracker spawning starts): validating
    # 40,000 games on two took 1.15-1.18 s forked against 1.19-1.29 s spawned (1.8-1.9 s on one).
    ctx = multiprocessing.get_context("fork" if fork and can_fork() else "spawn")
    stop = ctx.Event()
    # this process is one of the workers: it runs jobs itself while the others are busy (it would
    # only wait for them), and one process fewer starts (about 0.2 s of imports each)
    helpers = max(workers - 1, 1) if parent_works else max(workers, 1)
    pool = ProcessPoolExecutor(max_workers=helpers, mp_context=ctx, initializer=init_worker,
                               initargs=(stop, os.getpid()))

    def result(fut: Future[R]) -> R:
        try:
            return fut.result()
        except BrokenProcessPool:
            raise SimulationError(WORKER_DIED) from None

    finished = False
    try:
        yield from _in_order(lambda job: pool.submit(fn, job), result, fn, jobs, 2 * helpers + 1, local,
                             here=parent_works)
        finished = True
    finally:
        if not finished:
            stop.set()
            end_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(fn: Callable[[J], R], jobs: Iterator[J], workers: int, scheduler: str | None,
             local: Callable[[J], bool], processes: bool) -> Iterator[R]:
    with dask_session(scheduler, workers, processes, DASK_CONNECT_TIMEOUT) as (client, futures):
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


@contextmanager
def dask_session(scheduler: str | None, workers: int, processes: bool,
                 timeout: str = DASK_CONNECT_TIMEOUT) -> Iterator[tuple[Any, list[Any]]]:
    """A Dask client for one run (on the cluster at `scheduler`, or on a local cluster of `workers`
    it starts), with Dask kept quiet, and the list where the run keeps its futures: those still
    there when the run ends (interrupted, failed) are cancelled, then the client and cluster close."""
    with quiet_dask():
        client, cluster = dask_client(scheduler, workers, processes, timeout)
        futures: list[Any] = []
        try:
            yield client, futures
        finally:
            try:
                if futures:
                    client.cancel(futures)
                client.close()
            finally:
                if cluster is not None:
                    cluster.close()


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




def end_workers(pool: Any, grace: float = 0.2) -> None:
    """Stop a pool's worker processes now: a bot that hangs or ignores SIGTERM must not keep the
    command (or its processes) alive. Workers told to stop (the stop event) get `grace` s to end their
    chunk and leave; then SIGTERM, and SIGKILL for whatever is left after another `grace` s."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # (shutdown forgets them)
    results = getattr(pool, "_result_queue", None)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)
    # A worker killed while sending a result leaves half a message in the result pipe, and the pool's
    # manager thread waits for the rest for ever (the interpreter joins that thread at exit: the
    # command would hang after printing its summary). With every worker gone, closing our own end of
    # the pipe turns that wait into end-of-file, which the pool handles.
    writer = getattr(results, "_writer", None)
    if writer is not None and not any(p.is_alive() for p in procs):
        writer.close()


def need_dask() -> Any:
    """The `distributed` module, or MissingExtra naming the extra to install (checked before any work,
    so a command without dask writes nothing and says so in one line)."""
    try:
        importlib.import_module("dask")
        return importlib.import_module("distributed")
    except ImportError:
        raise MissingExtra("the dask backend needs the dask extra: pip install 'yahtzee-cli[dask]'") from None


def dask_client(scheduler: str | None, workers: int, processes: bool, timeout: str = "10s") -> tuple[Any, Any]:
    dist = need_dask()
    if scheduler:
        check_scheduler(scheduler, timeout)
        try:
            return dist.Client(scheduler, timeout=timeout), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                dashboard_address=None, silence_logs=QUIET)
    try:
        return dist.Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


MAX_HANDSHAKE = 1 << 20  # a scheduler's first message (its handshake) is a few hundred bytes


def check_scheduler(address: str, timeout: str | float | None = None) -> None:
    """SchedulerError (one line, a usage error) unless a Dask scheduler answers at `address` within
    `timeout`: a closed port, a server that accepts and says nothing, or one that speaks another protocol
    (HTTP, garbage) would leave Dask's client waiting for ever, or reading a length of exabytes. A
    scheduler greets a new connection first, with its handshake: a length, then frames (a count and
    their lengths); that greeting is read here, bounded in size and time, before the client connects.
    Addresses of other transports (tls://, ucx://) are left to Dask and its timeout."""
    import socket
    import struct

    need_dask()
    from dask.utils import parse_timedelta
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    seconds = float(parse_timedelta(DASK_CONNECT_TIMEOUT if timeout is None else timeout, default="seconds"))
    try:
        scheme, loc = parse_address(address)
        get_backend(scheme)  # ValueError for a scheme Dask does not know (http://)
        if scheme != "tcp":
            return
        host, port = parse_host_port(loc, 8786)
    except (ValueError, TypeError) as exc:
        raise SchedulerError(f"{address} is not a Dask scheduler address like tcp://HOST:8786 ({exc})") from None
    deadline = time.monotonic() + seconds

    def read(sock: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(min(n - len(data), 65536))
            if not chunk:
                raise ConnectionResetError("the connection was closed")
            data += chunk
        return data

    not_dask = f"{address} does not answer as a Dask scheduler (a different server, or a different port?)"
    try:
        with socket.create_connection((host, int(port)), timeout=seconds) as sock:
            (size,) = struct.unpack("Q", read(sock, 8))
            if not 16 <= size <= MAX_HANDSHAKE:
                raise SchedulerError(not_dask)
            body = read(sock, size)
            (frames,) = struct.unpack_from("Q", body)
            if not 1 <= frames <= 64 or 8 * (frames + 1) > size:
                raise SchedulerError(not_dask)
            lengths = struct.unpack_from(f"{frames}Q", body, 8)
            if sum(lengths) < size - 8 * (frames + 1):
                raise SchedulerError(not_dask)
    except TimeoutError:
        raise SchedulerError(f"no Dask scheduler answered at {address} within {seconds:g} s") from None
    except ConnectionResetError:
        raise SchedulerError(not_dask) from None
    except OSError as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None


QUIET = logging.CRITICAL + 1  # a level no record reaches


@contextmanager
def quiet_dask() -> Iterator[None]:
    """Silence distributed's own logging for a run, in this process and in the worker processes it
    starts: a task that fails (a bot's error, which the CLI reports in one line), connections and
    heartbeats cut at shutdown, workers slow to stop -- none of it is news to the user, and much of it
    comes with tracebacks."""
    import warnings

    need_dask()
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
            # a coroutine of distributed's left unawaited when a client closes is reported where it is
            # collected (here, in our code), not in distributed: seen once in a test run's close()
            warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
            yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
        for h, level in zip(handlers, handler_levels, strict=True):
            h.setLevel(level)




def check_workers(workers: int | None, backend: str, scheduler: str | None) -> None:
    """--workers within what this machine allows; --scheduler only with --backend dask, and answering;
    the dask extra installed for it (BadRequest, MissingExtra, SchedulerError), all before any work."""
    from ..errors import BadRequest
    from ..limits import WORKERS_PER_CORE, max_workers

    if workers is not None and not 1 <= workers <= max_workers():
        raise BadRequest(f"{{workers}} must be from 1 to {max_workers()} on this machine ({cores()} cores, at most "
                         f"{WORKERS_PER_CORE} workers per core), got {workers}", options=("workers",))
    if scheduler is not None and backend != "dask":
        raise BadRequest("{scheduler} needs {backend} dask", options=("scheduler", "backend"))
    if backend == "dask":  # without the extra, one line and nothing on stdout
        need_dask()
    if scheduler is not None:  # a wrong address is one line and nothing on stdout
        check_scheduler(scheduler)
