"""`simulate --backend dask`: the same chunks on a Dask cluster give exactly the local results."""

from __future__ import annotations

import distributed  # in the test extra: an import error fails the file instead of skipping it
import pytest

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play import executors as E
from yahtzee_cli.play import simulate as S
from yahtzee_cli.rules import engine as R


def test_dask_local_cluster_matches_local_backend() -> None:
    rules = R.preset("yahtzee")
    local = S.simulate(rules, ["random", "random"], 2500, 31, workers=1)
    logs_local: list[bytes] = []
    S.simulate(rules, ["random"], 300, 31, workers=1, log_sink=logs_local.append)
    on_dask = S.simulate(rules, ["random", "random"], 2500, 31, workers=2, backend="dask", processes=False)
    assert on_dask.to_dict() == local.to_dict()
    logs_dask: list[bytes] = []
    S.simulate(rules, ["random"], 300, 31, workers=2, backend="dask", processes=False,
               log_sink=logs_dask.append)
    assert b"".join(logs_dask) == b"".join(logs_local)


def test_cli_on_an_existing_scheduler(cli) -> None:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=":0", scheduler_kwargs={"dashboard": False}) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        args = ["simulate", "-S", "random", "-n", "3000", "--seed", "5", "--json", "--rules", "yatzy"]
        r = cli([*args, "--backend", "dask", "--scheduler", address])
        assert r.exit_code == 0, r.stderr
    local = cli([*args, "-w", "1"])
    assert r.stdout == local.stdout
    assert loads(r.stdout)["games"] == 3000


def test_unreachable_scheduler_is_a_clear_error(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(E, "DASK_CONNECT_TIMEOUT", "1s")
    r = cli(["simulate", "-S", "random", "-n", "10", "--seed", "1", "--backend", "dask",
             "--scheduler", "tcp://127.0.0.1:9"])
    assert r.exit_code == 2  # a wrong --scheduler is a usage error
    assert r.stderr.splitlines()[-1].startswith("yahtzee: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


FAILING_BOT = """
def play(pos):
    if pos.rolls_left:
        return list(pos.dice)
    if pos.game >= 40:
        raise RuntimeError("tired")
    return pos.options[0]
"""


def test_a_failing_bot_on_a_local_cluster_is_one_line_without_distributed_noise(tmp_path) -> None:
    import subprocess
    import sys

    bot = tmp_path / "tired.py"
    bot.write_text(FAILING_BOT)
    r = subprocess.run([sys.executable, "-m", "yahtzee_cli", "simulate", "--backend", "dask", "--workers", "2",
                        "-n", "200", "--seed", "1", "-S", f"{bot}:play"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    # was: each worker's "Compute Failed" log with the task's traceback, heartbeats to a closed scheduler
    lines = [x for x in r.stderr.splitlines() if not x.startswith("yahtzee: compiling")]
    assert len(lines) == 1 and "raised RuntimeError: tired" in lines[0], r.stderr
