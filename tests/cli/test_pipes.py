"""`yahtzee ... | head -1`: when the reader of stdout goes away, every command stops silently with the
status coreutils give under `set -o pipefail` (141 = 128 + SIGPIPE), never 1 ("problems found")."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

YAHTZEE = [sys.executable, "-m", "yahtzee_cli"]  # the same main() as the installed script


def _first_line_then_close(args: list[str], stdin: Path | None = None) -> tuple[int, bytes, bytes]:
    with open(stdin or "/dev/null", "rb") as inp:
        # (no progress lines: a loaded machine may take over 2 s to the first line, and stderr must hold no error)
        env = {**os.environ, "YAHTZEE_PROGRESS_AFTER": "3600"}
        p = subprocess.Popen([*YAHTZEE, *args], stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert p.stdout is not None and p.stderr is not None
        first = p.stdout.readline()
        p.stdout.close()  # what `head -1` does after its line
        err = p.stderr.read()
        return p.wait(timeout=300), first, err


@pytest.fixture(scope="module")
def many_rolls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    path = tmp_path_factory.mktemp("pipes") / "rolls.txt"
    path.write_text("".join(" ".join(str(rng.randint(1, 6)) for _ in range(5)) + "\n" for _ in range(100_000)))
    return path


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pipes") / "games.ndjson"
    subprocess.run([*YAHTZEE, "simulate", "-S", "random", "-n", "3000", "--seed", "5", "--log-out", str(path)],
                   check=True, capture_output=True, timeout=300)
    return path


def test_score_from_stdin(many_rolls: Path) -> None:
    code, first, err = _first_line_then_close(["score", "-"], stdin=many_rolls)
    assert first.split()[:2] == [b"dice", b"ones"]  # the batch table's header row
    assert (code, err) == (141, b"")


def test_replay_json(big_log: Path) -> None:
    code, first, err = _first_line_then_close(["replay", "--json", str(big_log)])
    assert first.startswith(b"{")
    assert (code, err) == (141, b"")


def test_simulate_logs_to_stdout() -> None:
    code, first, err = _first_line_then_close(["simulate", "-S", "random", "-n", "200000", "--seed", "1",
                                               "--log-out", "-"])
    assert first.startswith(b"{")
    assert code == 141
    assert err.decode().splitlines() == []
