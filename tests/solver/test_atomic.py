"""solver.atomic: compare-and-swap, acquire loads and release stores on int64 cells, from threads
running compiled code at once (nothing is lost)."""

from __future__ import annotations

import threading

import numba
import numpy as np

from yahtzee_cli.solver import atomic


@numba.njit(nogil=True)
def _count(cells: np.ndarray, n: int, me: int) -> None:  # pragma: no cover - compiled
    for _ in range(n):
        while True:
            v = atomic.load(cells, 0)
            if atomic.cas(cells, 0, v, v + 1) == v:
                break
    atomic.store(cells, 1 + me, n)


def test_increments_from_threads_at_once_all_count() -> None:
    cells = np.zeros(3, np.int64)
    _count(cells, 1, 0)
    cells[:] = 0
    threads = [threading.Thread(target=_count, args=(cells, 300_000, me)) for me in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cells.tolist() == [600_000, 300_000, 300_000]


@numba.njit
def _swap(cells: np.ndarray) -> tuple[int, int, int]:  # pragma: no cover - compiled
    return atomic.cas(cells, 0, 5, 9), atomic.cas(cells, 0, 5, 7), atomic.load(cells, 0)


def test_compare_and_swap_writes_only_over_the_expected_value() -> None:
    cells = np.array([5], np.int64)
    assert _swap(cells) == (5, 9, 9)
    assert cells.tolist() == [9]
