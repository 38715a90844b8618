"""How far long work has come, for whoever waits on it: the library's one progress hook.

A long computation (a table built, a cache of distributions computed) takes `progress(done, total)`
as a parameter where its caller passes one; where it is reached through calls that take none (the
chances to win under `log add`, five calls down), `given(progress)` falls back to the reporter the
front end installed with `reporting(...)`. The library never draws anything itself: the CLI's
reporter (cli/progress.py) decides whether and how the wait is shown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Progress = Callable[[int, int], None]  # progress(done, total), in any unit the work counts in

_installed: list[Progress] = []  # (a plain list, not a context variable: work on other threads reports too)


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
