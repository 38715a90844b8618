"""`validate`, `analyze` and `replay --analyze` on worker processes: byte for byte the output, the
summary and the exit status of a run in one process, whatever the number of workers and wherever the
inputs are cut."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.play import executors as E
from yahtzee_cli.play import fanout as F

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GAMES = (FIXTURES / "logs" / "batch.ndjson").read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: Any) -> list[str]:
    """Valid, invalid and unparseable games: a big NDJSON file (blank lines, broken JSON, a game that
    breaks a rule), many small files, the invalid fixtures, and an empty file."""
    root = tmp_path_factory.mktemp("fanout")
    bad = (FIXTURES / "invalid" / "bad-face.json").read_bytes().replace(b"\n", b"") + b"\n"
    lines = []
    for i in range(120):
        lines.append(GAMES[i % len(GAMES)])
        if i % 17 == 3:
            lines.append(b"\n")
        if i % 29 == 5:
            lines.append(b"{not json\n")
        if i % 41 == 7:
            lines.append(bad)
    (root / "big.ndjson").write_bytes(b"".join(lines))
    many = root / "many"
    many.mkdir()
    for i in range(30):
        (many / f"g{i:02}.json").write_bytes(GAMES[i % len(GAMES)])
    (root / "empty.json").write_bytes(b"")
    return [str(root / "big.ndjson"), str(many), str(FIXTURES / "invalid"), str(FIXTURES / "logs"),
            str(root / "empty.json")]


def _force_processes(monkeypatch: pytest.MonkeyPatch, chunk: int = 3000) -> None:
    """Workers for any input, and jobs of a few games (the thresholds exist for speed only)."""
    monkeypatch.setattr(F, "VALIDATE_PROCESS_BYTES", 0)
    monkeypatch.setattr(F, "GRADE_PROCESS_BYTES", 0)
    monkeypatch.setattr(F, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(F, "GRADE_CHUNK_BYTES", chunk)


def _run(cli: Any, args: list[str]) -> tuple[int, str, str]:
    r = cli(args)
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("form", [[], ["--json"], ["--csv"], ["--quiet"]])
def test_validate_is_the_same_on_two_workers(cli: Any, inputs: list[str], form: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    one = _run(cli, ["validate", *form, "-w", "1", *inputs])  # one process, nothing cut
    assert one[0] == 1
    if not form:
        assert "not valid" in one[1].splitlines()[-1]
    _force_processes(monkeypatch)
    assert E.choose_mode(0, 2, "local", F.VALIDATE_PROCESS_BYTES) == ("processes", 2)
    assert _run(cli, ["validate", *form, "-w", "2", *inputs]) == one
    assert _run(cli, ["validate", *form, "-w", "1", *inputs]) == one  # cut, in this process


def test_validate_of_valid_games_exits_0_on_workers(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ok.ndjson"
    path.write_bytes(b"".join(g for g in GAMES * 20))
    one = _run(cli, ["validate", "-w", "1", str(path)])
    assert one[0] == 0 and one[1].startswith(f"{path}: 100 games, 100 valid"), one
    _force_processes(monkeypatch, 1000)
    assert _run(cli, ["validate", "-w", "2", str(path)]) == one


def test_small_inputs_stay_in_this_process(inputs: list[str]) -> None:
    from yahtzee_cli.formats.batch import input_bytes
    from yahtzee_cli.formats.inputs import expand

    size = input_bytes(expand(inputs))
    assert 0 < size < F.VALIDATE_PROCESS_BYTES
    assert E.choose_mode(size, 2, "local", F.VALIDATE_PROCESS_BYTES) == ("inline", 1)
    assert E.choose_mode(size, None, "local", size) == ("processes", E.cores())
    assert E.choose_mode(size, 1, "local", 0) == ("inline", 1)
    assert E.choose_mode(size, None, "dask", 0)[0] == "dask"


def _errors(run: tuple[int, str, str]) -> tuple[int, str, list[str]]:
    """A run without the notes on stderr (a table built or loaded: each process says what it had to do)."""
    return run[0], run[1], [x for x in run[2].splitlines() if x.startswith("yahtzee: error:")]


def test_analyze_is_the_same_on_two_workers(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            yahtzee_table: Any) -> None:
    one_line = [(FIXTURES / "logs" / f"{name}.json").read_bytes().replace(b"\n", b"") + b"\n"
                for name in ("joker", "yahtzee", "in-progress")]
    big = tmp_path / "games.ndjson"
    big.write_bytes(GAMES[0] + b"\n{broken\n" + GAMES[3] + b"".join(one_line))
    inputs = [str(big), str(FIXTURES / "invalid" / "bad-face.json"), str(FIXTURES / "logs" / "joker.json")]
    runs = {}
    for form in ([], ["--json"], ["--csv"]):
        runs[tuple(form)] = _errors(_run(cli, ["analyze", "--until", "8", *form, "-w", "1", *inputs]))
        assert runs[tuple(form)][0] == 1 and len(runs[tuple(form)][2]) == 2
    _force_processes(monkeypatch, 1500)
    for form in ([], ["--json"], ["--csv"]):
        assert _errors(_run(cli, ["analyze", "--until", "8", *form, "-w", "2", *inputs])) == runs[tuple(form)]
    replay = _run(cli, ["replay", "--analyze", "--until", "8", "--json", "-w", "2", *inputs])
    assert _errors(replay) == runs[("--json",)]


def test_workers_out_of_range_and_scheduler_without_dask_are_usage_errors(cli: Any) -> None:
    for cmd in (["validate"], ["analyze"]):
        r = cli([*cmd, "-w", "0", str(FIXTURES / "logs" / "yatzy.json")])
        assert r.exit_code == 2 and "--workers must be from 1 to" in r.stderr
        r = cli([*cmd, "--scheduler", "tcp://127.0.0.1:9", str(FIXTURES / "logs" / "yatzy.json")])
        assert r.exit_code == 2 and "--scheduler needs --backend dask" in r.stderr
    r = cli(["replay", "-w", "2", str(FIXTURES / "logs" / "yatzy.json")])
    assert r.exit_code == 2 and "--analyze" in r.stderr


def test_the_installed_command_on_workers(yahtzee: list[str], inputs: list[str], tmp_path: Path) -> None:
    """Through the real program (spawned workers, a real stdout): a big file of games over workers
    prints what one process prints."""
    path = tmp_path / "big.ndjson"
    data = Path(inputs[0]).read_bytes()
    path.write_bytes(data * (F.VALIDATE_PROCESS_BYTES // len(data) + 1))  # big enough for workers
    one = subprocess.run([*yahtzee, "validate", "-w", "1", str(path), "-"], input=GAMES[0], capture_output=True,
                         timeout=300)
    two = subprocess.run([*yahtzee, "validate", "-w", "2", str(path), "-"], input=GAMES[0], capture_output=True,
                         timeout=300)
    assert one.returncode == 1 and one.stdout.count(b"\n") > 100
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)


def test_a_note_is_said_at_once_where_the_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first analysis in this process says "computing ... every position" to the command's listener
    as it starts the build (so the wait that follows is named), not after the game with its result;
    where no listener is installed here (a worker process), the note goes back with the game."""
    from conftest import SMALL_RULES

    from yahtzee_cli.formats.inputs import Source
    from yahtzee_cli.formats.jsonio import dumps
    from yahtzee_cli.formats.replay import random_log
    from yahtzee_cli.progress import heard, hearing
    from yahtzee_cli.rules import engine as R

    rules = R.rules_from_data(SMALL_RULES)
    path = tmp_path / "two.json"
    log = random_log(rules, 3, ("Ann", "Ben"))
    log["rules"] = SMALL_RULES
    path.write_bytes(dumps(log))
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("yahtzee_cli.solver.state_pmfs._memo", {})  # (another test here may have read them)
    got: list[str] = []
    with hearing(got.append):
        graded = list(F.grade([Source(str(path), str(path))], workers=1, wins=True))
    assert [g.analysis is not None for g in graded] == [True]
    built = [m for m in got if m.startswith("computing") and "every position" in m]
    assert len(built) == 1 and not any("every position" in m for g in graded for m in g.notes)
    assert heard("outside") is False
    with hearing(got.append):
        monkeypatch.setattr("yahtzee_cli.progress.os.getpid", lambda: -1)  # as in a forked worker
        assert heard("in a worker") is False and got[-1] != "in a worker"
