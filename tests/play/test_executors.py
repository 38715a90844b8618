"""Worker processes end with the run, whatever state they are in when it stops."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# A worker killed in the middle of sending its result: it writes the start of a result message into
# the pool's result pipe, says so, and hangs. The run then stops its workers, as an interrupted
# simulate or validate does, and must still exit.
SCRIPT = textwrap.dedent('''
    import os, struct, sys, time
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing

    from yahtzee_cli.play import executors as E

    def half_a_result(marker):
        result_queue = sys._getframe(1).f_locals["result_queue"]  # the pool's worker loop
        os.write(result_queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
        open(marker, "w").close()
        time.sleep(600)

    if __name__ == "__main__":
        marker = sys.argv[1]
        pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        pool.submit(half_a_result, marker)
        deadline = time.monotonic() + 60
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert os.path.exists(marker), "the worker never started"
        time.sleep(0.2)  # the pool is now reading the half message
        E.end_workers(pool)
        print("ended")
''')


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_worker_killed_mid_result_does_not_hang_the_exit(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    p = subprocess.run([sys.executable, str(script), str(tmp_path / "started")], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "ended\n"


def test_quiet_dask_hides_a_coroutine_left_unawaited_at_close(recwarn: pytest.WarningsRecorder) -> None:
    """distributed sometimes leaves a coroutine unawaited when a client closes; Python reports it where
    the coroutine is collected (our code), so a filter on distributed's modules alone let it through."""
    import gc

    pytest.importorskip("distributed")
    from yahtzee_cli.play import executors as E

    async def closing() -> None:
        pass

    with E.quiet_dask():
        pending = closing()
        del pending
        gc.collect()
    assert not [w for w in recwarn if "never awaited" in str(w.message)]
