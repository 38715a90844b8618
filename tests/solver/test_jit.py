"""The compile notes: a command says it is compiling exactly when the specialisation it will call has no
machine code yet (in this process or the cache)."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, jit, play_kernel
from yahtzee_cli.solver import value_to_go as V


def test_a_kernel_is_compiled_per_specialisation() -> None:
    kernel = numba.njit(lambda a, log: a[0] + (0 if log is None else log[0]))  # in memory: no cache
    ints, floats = (np.zeros(2, np.int64),), (np.zeros(2),)
    assert not jit.is_compiled(kernel) and not jit.is_compiled(kernel, (*ints, None))
    kernel(*ints, None)
    assert jit.is_compiled(kernel) and jit.is_compiled(kernel, (*ints, None))
    assert not jit.is_compiled(kernel, (*floats, None))  # another specialisation compiles anew
    assert not jit.is_compiled(kernel, (*ints, ints[0]))
    said: list[str] = []
    jit.note_compile([kernel], "the kernel", said.append, [(*ints, None)])
    assert said == []
    jit.note_compile([kernel, kernel], "the kernel", said.append, [(*ints, None), (*floats, None)])
    assert len(said) == 1 and said[0].startswith("compiling the kernel")


def test_recording_games_is_a_specialisation_of_its_own() -> None:
    rules = R.preset("yahtzee")
    fut = V.greedy(rules)
    plain, recording = exact.play_args(rules, fut, False), exact.play_args(rules, fut, True)
    k: Any = play_kernel.play_games
    assert tuple(map(k.typeof_pyval, plain)) != tuple(map(k.typeof_pyval, recording))
    assert plain[7] is None and recording[7] is not None  # the game records: None prunes the recording
