"""Counter-based dice: every (seed, game, seat) has its own stream, so a simulated game is the same
whatever the chunking, worker count or backend. splitmix64, usable from numba kernels and Python."""

from __future__ import annotations

import numpy as np
from numba import uint64

from .jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix(z: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def stream(seed: int, game: int, seat: int) -> np.uint64:  # pragma: no cover - compiled
    """The starting state of the stream for one seat of one game."""
    s = mix(uint64(seed) + _GOLDEN)
    s = mix(s ^ (uint64(game) * _GOLDEN + uint64(1)))
    return mix(s ^ (uint64(seat) * _M1 + uint64(2)))


@njit(cache=True, inline="always")
def next_die(state: np.uint64) -> tuple[int, np.uint64]:  # pragma: no cover - compiled
    """A fair die face 1-6 and the next state (rejection sampling keeps it unbiased)."""
    state = uint64(state)  # a Python int above 2**63 would otherwise arrive as int64 and turn float
    while True:
        state = state + _GOLDEN
        z = mix(state)
        top = z >> uint64(61)  # 0..7
        if top < uint64(6):
            return int(top) + 1, state
