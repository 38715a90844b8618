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


def test_this_process_works_while_the_workers_are_busy_and_the_order_holds() -> None:
    """`here`: jobs submitted to a slow worker while this process takes the next ones itself; the
    results come back in job order, at most `width` submitted jobs run at once, and this process runs
    a job only while the worker has `width` of them."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from yahtzee_cli.play import executors as E

    me = threading.get_ident()
    where: dict[int, str] = {}

    def fn(job: int) -> int:
        where[job] = "here" if threading.get_ident() == me else "worker"
        time.sleep(0.03 if where[job] == "worker" else 0.01)
        return job * job

    width = 2
    with ThreadPoolExecutor(1) as worker:
        submitted: list[int] = []

        def submit(job: int) -> object:
            running = sum(1 for j in submitted if where.get(j) is None or not done[j].done())
            assert running < width
            submitted.append(job)
            done[job] = worker.submit(fn, job)
            return done[job]

        done: dict[int, object] = {}
        out = list(E._in_order(submit, lambda f: f.result(), fn, iter(range(40)), width,  # type: ignore[attr-defined]
                               lambda job: job == 25, here=True))
    assert out == [j * j for j in range(40)]
    assert where[25] == "here"  # a local job always runs here
    here = [j for j, w in where.items() if w == "here" and j != 25]
    assert here and len(here) < 39  # both took jobs
    assert sorted(where) == list(range(40))


def test_without_here_every_job_is_submitted() -> None:
    from yahtzee_cli.play import executors as E

    ran: list[int] = []
    out = list(E._in_order(lambda job: job, lambda job: ran.append(job) or -job, lambda job: 100 + job,
                           iter(range(6)), 2, lambda job: job == 3))
    assert out == [0, -1, -2, 103, -4, -5]
    assert ran == [0, 1, 2, 4, 5]


# A run whose jobs need only what the command has loaded (validation): the workers are forked copies
# of it (they see a module global set before they started), and text still in stdout's buffer when
# they start is written once (a forked worker flushes its copy of the buffer as it ends).
FORKED = textwrap.dedent('''
    import os, sys
    import marked
    from yahtzee_cli.play.executors import ordered

    marked.MARK = "set here"
    sys.stdout.write("head\\n")  # stdout is a pipe: this stays in the buffer
    out = list(ordered(marked.where, iter(range(8)), mode="processes", workers=2, fork=True))
    assert [job for job, _, _ in out] == list(range(8))
    others = {mark for _, mark, pid in out if pid != os.getpid()}
    sys.stdout.write(f"workers saw {sorted(others)}\\n")
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers are for Linux")
def test_workers_are_forked_and_buffered_output_is_written_once(tmp_path: Path) -> None:
    (tmp_path / "marked.py").write_text("import os, time\nMARK = None\n\n"
                                        "def where(job):\n    time.sleep(0.02)\n    return job, MARK, os.getpid()\n")
    (tmp_path / "run.py").write_text(FORKED)
    done = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "head\nworkers saw ['set here']\n"


def test_no_fork_while_another_thread_runs() -> None:
    import threading

    from yahtzee_cli.play import executors as E

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not E.can_fork()
    finally:
        stop.set()
        thread.join()
