"""One worker pool: a worker process that dies is the same one-line error in every command that runs
jobs on processes (simulate's bots, and validate, replay and analyze through executors.ordered)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from yahtzee_cli.errors import SimulationError
from yahtzee_cli.play import executors as E
from yahtzee_cli.play import simulate as S
from yahtzee_cli.rules import engine as R

EXITING_BOT = """
import os

def play(pos):
    if pos.game >= 3:
        os._exit(3)
    if pos.rolls_left:
        return list(pos.dice)
    return pos.options[0]
"""


def _pid(job: int) -> int:
    return os.getpid()


def exit_in_a_worker(job: tuple[int, int]) -> int:
    parent, i = job
    if os.getpid() != parent:  # (the parent runs some jobs itself: it must live on)
        os._exit(3)
    return i


def test_a_bot_that_ends_its_worker_is_the_pools_error(tmp_path: Path) -> None:
    bot = tmp_path / "quitter.py"
    bot.write_text(EXITING_BOT)
    with pytest.raises(SimulationError) as err:
        S.simulate(R.preset("yahtzee"), [f"{bot}:play"], 400, 1, workers=2, processes=True)
    assert str(err.value) == E.WORKER_DIED


def test_a_job_that_ends_its_worker_is_the_same_error() -> None:
    with pytest.raises(SimulationError) as err:
        list(E.ordered(exit_in_a_worker, ((os.getpid(), i) for i in range(40)), mode="processes", workers=2))
    assert str(err.value) == E.WORKER_DIED


def test_without_the_parent_working_every_job_runs_in_a_worker() -> None:
    out = list(E.ordered(_pid, iter(range(8)), mode="processes", workers=2,
                         parent_works=False))
    assert len(out) == 8 and os.getpid() not in out
