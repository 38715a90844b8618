"""A first run's compile on two cores: another process compiles some of a kernel's helpers into the
cache while this one compiles the rest, then the kernel itself, which loads the other process's
helpers from the cache (jit's compile locks make it wait for one still being compiled).

numba compiles one function at a time in a process, and a kernel's helpers are compiles of their
own (jit.INNER): most of a first `simulate`'s compile is play_kernel's helpers. The other process is
started as early as a run knows it will compile (start_early: it imports numba and the kernels'
modules meanwhile; `simulate` starts it before its own imports when the cache has no play kernel at
all, start_first), then handed its jobs. It exits by itself; nothing is lost when it fails or is
killed: this process then compiles those helpers itself, and numba writes its cache files whole.

Run as `python -m yahtzee_cli.solver.aside`: imports the kernels, then reads the pickled jobs on stdin.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import pickle
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

Job = tuple[Any, tuple[Any, ...]]  # (a kernel, the numba signature to compile it for)
_PRELOAD = ("yahtzee_cli.solver.within_turn",)  # what the other process imports before its jobs come

_waiting: subprocess.Popen[bytes] | None = None  # started early, no jobs yet


def _spawn() -> subprocess.Popen[bytes] | None:
    try:
        return subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Close its stdin (one still waiting for jobs then exits), and kill it if it is still at work."""
    try:
        if proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
    except OSError:
        pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def start_early(cores: int) -> None:
    """Start the other process now, when this run will compile (a kernel without machine code) and has
    two cores to use: it imports while this one reads its tables. Stopped at exit if unused."""
    global _waiting
    from . import jit

    if _waiting is None and cores >= 2 and jit.CACHE_DIR is not None:
        _waiting = _spawn()
        if _waiting is not None:
            atexit.register(_stop, _waiting)


def start_first(kernel: str, cores: int) -> None:
    """start_early before this run imports numba and the kernels (about a quarter of a second, which
    the other process then spends importing too), when the cache holds no machine code at all for
    `kernel` ("module.function", as numba names its cache files): a first run. Anything else is left
    to start_early, which knows."""
    global _waiting
    import os
    from pathlib import Path

    from ..store.tablefile import cache_dir

    if _waiting is not None or cores < 2:
        return
    try:
        where = Path(os.environ.get("NUMBA_CACHE_DIR") or cache_dir() / "numba")
        if any(where.glob(f"{kernel}-*.nbi")):
            return
    except OSError:
        return
    _waiting = _spawn()
    if _waiting is not None:
        atexit.register(_stop, _waiting)


def _where(kernel: Any) -> tuple[str, str]:
    """(module, name) by which the other process finds `kernel`: the name its module binds it to, which
    may not be its function's (within_turn.roll_legal compiles _roll_legal)."""
    module = kernel.py_func.__module__
    names = [n for n, v in vars(sys.modules.get(module, sys)).items() if v is kernel]
    return module, names[0] if names else kernel.py_func.__name__


@contextmanager
def compiled_aside(theirs: Sequence[Job], ours: Sequence[Job], cores: int) -> Iterator[None]:
    """While the body runs (the kernel's first call, which compiles it): `theirs` compiled in another
    process, `ours` compiled here first. Nothing is done aside with fewer than 2 cores to use, no cache
    to share through, or nothing of theirs left to compile."""
    global _waiting
    from . import jit

    todo = [(_where(k), s) for k, s in theirs
            if s not in getattr(k, "overloads", {}) and s not in jit.cached_signatures(k)]
    proc = None
    if cores >= 2 and jit.CACHE_DIR is not None and todo:
        proc, _waiting = _waiting or _spawn(), None
    if proc is not None:
        try:
            assert proc.stdin is not None
            proc.stdin.write(pickle.dumps(todo))
            proc.stdin.close()
        except OSError:  # it died: everything is compiled here
            _stop(proc)
            proc = None
    try:
        if proc is not None:
            for kernel, sig in ours:
                kernel.compile(sig)
        yield
    finally:
        if proc is not None:
            _stop(proc)  # done by now when the kernel needed its jobs (it waited for them)


def main() -> None:
    gc.disable()  # a process that only compiles, then exits: its garbage goes with it (jit's compiles)
    for module in _PRELOAD:
        importlib.import_module(module)
    import numba

    numba.njit(lambda x: x + 1)(1)  # numba's compiler set up (about half a second) while the jobs are awaited
    data = sys.stdin.buffer.read()
    if not data:  # started early, never needed
        return
    for (module, name), sig in pickle.loads(data):
        getattr(importlib.import_module(module), name).compile(sig)
    gc.freeze()  # its jobs are in the cache: no tearing numba's objects down one by one (cli.main)


if __name__ == "__main__":
    main()
