"""A first run compiles half of the play kernel's helpers in another process (solver.aside)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from yahtzee_cli.solver import aside

# A first run in a fresh cache: per helper of play_games, whether it was compiled aside (then this
# process loaded it from the cache: a hit) or here (a miss), and how often.
FIRST_RUN = """
import orjson
from yahtzee_cli.rules.engine import preset
from yahtzee_cli.solver import exact, play_kernel, policy
rules = preset("yahtzee")
fut = policy.value_to_go_for(rules, "optimal")
theirs, ours = play_kernel._helper_jobs(exact.play_args(rules, fut, False, 3))
batch = exact.play_with(rules, fut, 1, 0, 3, threads=2)
def seen(jobs):
    return [[k.py_func.__name__, sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())]
            for k, _ in jobs]
print(orjson.dumps({"totals": batch.totals.tolist(), "theirs": seen(theirs), "ours": seen(ours)}).decode())
"""

# The same for play_saved_games, on Maxi Yatzy's shipped fit (what a fresh install plays it with).
FIRST_SAVED_RUN = """
import orjson
from yahtzee_cli.rules.engine import preset
from yahtzee_cli.solver import play_kernel, saved, saved_fit
from yahtzee_cli.strategy.choice import plan
rules = preset("maxi-yatzy")
values = saved_fit.stock_values(plan(rules), None)
theirs, ours = play_kernel._saved_helper_jobs(saved.play_args(rules, values, 3))
batch = saved.play_with(rules, values, 1, 0, 3, threads=2)
def seen(jobs):
    return [[k.py_func.__name__, sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())]
            for k, _ in jobs]
print(orjson.dumps({"totals": batch.totals.tolist(), "theirs": seen(theirs), "ours": seen(ours)}).decode())
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="compiles aside only with two cores to use")
@pytest.mark.parametrize("script", [FIRST_RUN, FIRST_SAVED_RUN], ids=["play_games", "play_saved_games"])
def test_each_helper_is_compiled_once_half_of_them_aside(tmp_path: Path, script: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = str(tmp_path)
    res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, check=True)
    seen = orjson.loads(res.stdout)
    # aside: loaded here from the cache the other process filled, so the signatures it compiled are
    # those play_games calls (a wrong one would be a miss, a second compile)
    assert [(hits, misses) for _, hits, misses in seen["theirs"]] == [(1, 0)] * len(seen["theirs"]) != []
    # here: compiled once (a signature unlike play_games' call would make it compile again)
    assert [(hits, misses) for _, hits, misses in seen["ours"]] == [(0, 1)] * len(seen["ours"]) != []
    assert len(seen["totals"]) == 3


class _Kernel:
    """A stand-in for a numba dispatcher: compiled for ("sig",) already."""

    py_func = aside.main
    overloads = {("sig",): None}

    def __init__(self, compiled: list[object]) -> None:
        self.compiled = compiled

    def compile(self, sig: object) -> None:
        self.compiled.append(sig)


def test_nothing_is_done_aside_without_a_second_core_or_with_nothing_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    monkeypatch.setattr(aside, "_spawn", lambda: started.append(1))
    monkeypatch.setattr(aside, "_waiting", None)
    compiled: list[object] = []
    with aside.compiled_aside([(_Kernel(compiled), ("other",))], [(_Kernel(compiled), ("mine",))], cores=1):
        pass
    with aside.compiled_aside([(_Kernel(compiled), ("sig",))], [(_Kernel(compiled), ("mine",))], cores=2):
        pass  # theirs compiled already
    assert started == [] and compiled == []


def test_a_helper_process_that_cannot_start_leaves_the_compile_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aside, "_spawn", lambda: None)
    monkeypatch.setattr(aside, "_waiting", None)  # (none started early by another test's run)
    compiled: list[object] = []
    with aside.compiled_aside([(_Kernel(compiled), ("other",))], [(_Kernel(compiled), ("mine",))], cores=2):
        pass
    assert compiled == []  # nothing compiled ahead: the kernel's own compile does it all, in order


def test_a_first_simulate_starts_the_other_process_before_its_imports(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """start_first starts it only with two cores to use and no machine code of the kernel in the cache."""
    started: list[int] = []
    monkeypatch.setattr(aside, "_spawn", lambda: started.append(1))  # (None: as if it could not start)
    monkeypatch.setattr(aside, "_waiting", None)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    aside.start_first("play_kernel.play_games", 1)
    assert started == []
    aside.start_first("play_kernel.play_games", 2)
    assert started == [1]
    (tmp_path / "play_kernel.play_games-507.py311.nbi").write_bytes(b"")
    aside.start_first("play_kernel.play_games", 2)
    assert started == [1]
