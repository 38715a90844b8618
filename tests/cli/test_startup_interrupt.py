"""A Ctrl-C while `yahtzee` starts (the modules loading, before a command's own handling) ends it as any
interrupt does: exit 130, one line, no traceback.

The start-up window is a few tens of milliseconds and moves with the machine's load, so the test makes
it wait for the signal: the child finds a stand-in `typer` first on its path (the CLI imports it while
loading), which says it has been reached and then sleeps. The signal is sent only then, so it lands in
the middle of our start-up every time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")

STAND_IN = """\
import os, pathlib, time
pathlib.Path(os.environ["YAHTZEE_TEST_REACHED"]).write_text("typer")
time.sleep(60)
"""


def _interrupt_while_loading(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "stand_in").mkdir()
    (tmp_path / "stand_in" / "typer.py").write_text(STAND_IN)
    reached = tmp_path / "reached"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "stand_in"), YAHTZEE_TEST_REACHED=str(reached))
    # a Ctrl-C at the terminal reaches a program with SIGINT's default disposition; the test's runner
    # may ignore SIGINT (pytest-xdist's workers do), and a child inherits an ignored signal
    child = subprocess.Popen([*command, "solve", "--rules", "yatzy"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not reached.exists():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the CLI never imported typer"
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def test_ctrl_c_at_start_up_is_exit_130_without_a_traceback(yahtzee: list[str], tmp_path: Path) -> None:
    done = _interrupt_while_loading(yahtzee, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "yahtzee: error: interrupted\n")


def test_ctrl_c_at_start_up_of_python_m_yahtzee_cli(tmp_path: Path) -> None:
    done = _interrupt_while_loading([sys.executable, "-m", "yahtzee_cli"], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "yahtzee: error: interrupted\n")


def test_a_program_importing_the_library_keeps_its_own_ctrl_c() -> None:
    code = "import yahtzee_cli, sys; print(sys.excepthook is sys.__excepthook__)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout == "True\n"
