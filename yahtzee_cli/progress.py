"""How far long work has come, for whoever waits on it: the library's one progress hook.

A long computation (a table built, a cache of distributions computed) takes `progress(done, total)`
as a parameter where its caller passes one; where it is reached through calls that take none (the
chances to win under `log add`, five calls down), `given(progress)` falls back to the reporter the
front end installed with `reporting(...)`. The library never draws anything itself: the CLI's
reporter (cli/progress.py) decides whether and how the wait is shown."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Progress = Callable[[int, int], None]  # progress(done, total), in any unit the work counts in

_installed: list[Progress] = []  # (a plain list, not a context variable: work on other threads reports too)
_listeners: list[tuple[int, Callable[[str], None]]] = []  # (the process that installed it, the listener)


def given(progress: Progress | None) -> Progress | None:
    """`progress` when the caller passed one, else the reporter installed by `reporting` (or None)."""
    if progress is not None:
        return progress
    return _installed[-1] if _installed else None


@contextmanager
def reporting(progress: Progress) -> Iterator[None]:
    """Long work started inside the block reports to `progress` unless its caller passes another."""
    _installed.append(progress)
    try:
        yield
    finally:
        _installed.remove(progress)


@contextmanager
def hearing(listener: Callable[[str], None]) -> Iterator[None]:
    """Notes said with `heard` inside the block, in this process, go to `listener` at once."""
    entry = (os.getpid(), listener)
    _listeners.append(entry)
    try:
        yield
    finally:
        _listeners.remove(entry)


def heard(message: str) -> bool:
    """Say `message` now to the front end's listener (`hearing`) when one is installed in this process,
    so a note that starts a long wait ("computing ...") is shown before it, not after; False when
    there is none here (a worker process, whose caller carries its notes back with its results)."""
    if _listeners and _listeners[-1][0] == os.getpid():
        _listeners[-1][1](message)
        return True
    return False
