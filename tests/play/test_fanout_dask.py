"""`validate`, `replay` and `analyze --backend dask`: files cut into pieces (by file and by byte
ranges of NDJSON) on a Dask cluster give byte for byte the output of a local run."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import distributed  # in the test extra: an import error fails the file instead of skipping it
import pytest

from yahtzee_cli.play import executors as E
from yahtzee_cli.play import fanout as F

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GAMES = (FIXTURES / "logs" / "batch.ndjson").read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: Any) -> list[str]:
    root = tmp_path_factory.mktemp("dask")
    lines = []
    for i in range(40):
        lines.append(GAMES[i % len(GAMES)])
        if i % 9 == 2:
            lines.append(b"{oops\n\n")
    (root / "big.ndjson").write_bytes(b"".join(lines))
    return [str(root / "big.ndjson"), str(FIXTURES / "logs"), str(FIXTURES / "invalid" / "bad-face.json"),
            str(FIXTURES / "poker")]


def _errors(r: Any) -> tuple[int, str, list[str], str]:
    """Exit status, stdout, the error lines (without notes of tables built or loaded) and any exception
    that escaped (none should)."""
    exc = r.exc_info[1] if r.exc_info and not isinstance(r.exc_info[1], SystemExit) else None
    return r.exit_code, r.stdout, [x for x in r.stderr.splitlines() if x.startswith("yahtzee: error:")], repr(exc)


RUNS = [["validate"], ["validate", "--json"], ["replay"], ["replay", "--json", "--set", "joker=free"],
        ["replay", "-v"]]


def _same_on(cli: Any, address: str, inputs: list[str], monkeypatch: pytest.MonkeyPatch, grade: list[str],
             runs: list[list[str]] = RUNS) -> None:
    local = {tuple(a): _errors(cli([*a, *inputs])) for a in runs}
    graded_local = _errors(cli(["analyze", "--until", "6", "-w", "1", *grade]))
    monkeypatch.setattr(F, "CHUNK_BYTES", 4000)  # many pieces: by file and by byte ranges of the big file
    monkeypatch.setattr(F, "GRADE_CHUNK_BYTES", 2000)
    for a in runs:
        assert _errors(cli([*a, "--backend", "dask", "--scheduler", address, *inputs])) == local[tuple(a)], a
    assert all(run[0] in (1, 2) for run in local.values())  # invalid games (and a usage error)
    graded = _errors(cli(["analyze", "--until", "6", "--backend", "dask", "--scheduler", address, *grade]))
    assert graded == graded_local and graded[0] == 1


def _grade_inputs(tmp_path: Path) -> list[str]:
    big = tmp_path / "grade.ndjson"
    big.write_bytes(GAMES[0] + b"{x\n" + GAMES[3] + GAMES[0])
    return [str(big), str(FIXTURES / "logs" / "joker.json"), str(FIXTURES / "invalid" / "bad-face.json")]


def test_on_a_local_cluster(cli: Any, inputs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            yahtzee_table: Any) -> None:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=":0", scheduler_kwargs={"dashboard": False}) as cluster:
        _same_on(cli, cluster.scheduler_address, inputs, monkeypatch, _grade_inputs(tmp_path))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_on_a_scheduler_and_worker_processes(cli: Any, inputs: list[str], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch, yahtzee_table: Any) -> None:
    """A real `dask scheduler` and `dask worker` (other processes, as on a cluster), started here."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen([*dask, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "2",
                               "--nthreads", "1", "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            pids = set(client.run(lambda: __import__("os").getpid()).values())
        assert len(pids) == 2 and not pids & {scheduler.pid, worker.pid}  # tasks run in other processes
        _same_on(cli, address, inputs, monkeypatch, _grade_inputs(tmp_path),
                 [["validate", "--json"], ["replay", "--json"]])
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
        deadline = time.monotonic() + 10
        for proc in (worker, scheduler):
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_unreachable_scheduler_is_a_clear_error(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(E, "DASK_CONNECT_TIMEOUT", "1s")
    for cmd in ("validate", "replay", "analyze"):
        r = cli([cmd, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", str(FIXTURES / "logs" / "yatzy.json")])
        assert r.exit_code == 2 and r.stdout == "", (cmd, r.stderr)  # a wrong --scheduler is a usage error
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("yahtzee: error: cannot reach the Dask scheduler at "
                                                       "tcp://127.0.0.1:9"), (cmd, r.stderr)
