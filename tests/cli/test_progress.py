"""A long wait shows its progress on stderr (a line with done/total and the time left when stderr is no
terminal), a short one shows nothing, and stdout never carries any of it."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import write_small_rules

from yahtzee_cli.cli import progress as P


def test_a_wait_shows_nothing_before_its_threshold() -> None:
    w = P.Waiting("building", after=2.0, every=0.0, terminal=False)
    w.update(1, 10)
    w.tick(w.t0 + 1.9)
    assert w.lines == 0


def test_a_line_gives_done_total_and_the_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    w = P.Waiting("building the yatzy strategy table", after=0.0, every=5.0, terminal=False)
    w.update(0, 200)
    w.stage_t0 -= 10  # ten seconds for the first 50: 150 more take about 30
    w.update(50, 200)
    w.tick(time.monotonic())
    w.tick(time.monotonic())  # (within the interval: no second line)
    err = capsys.readouterr().err
    assert err == "yahtzee: building the yatzy strategy table: 25% (50 of 200), about 30 s left\n"


def test_a_note_that_starts_work_names_the_stage() -> None:
    w = P.Waiting("computing the chances to win", after=0.0, terminal=False)
    w.noted("computing the yahtzee early-game score distributions (once; cached in /tmp/x)")
    assert w.label == "computing the yahtzee early-game score distributions"
    w.noted("seed 7 (repeat this run with --seed 7)")  # not work: the stage stays
    assert w.label == "computing the yahtzee early-game score distributions"
    w.update(3, None, label="analyzing", unit="games")
    assert w.line().startswith("analyzing: 3 games so far (")


def test_a_new_stage_starts_its_own_estimate() -> None:
    w = P.Waiting("x", after=0.0, terminal=False)
    w.update(0, 100)
    w.update(90, 100)
    w.update(1, 13)  # another pass: its rate, not the last one's
    assert w.left() is None and w.stage_done0 == 1


def test_a_stage_inside_another_gives_way_to_it_when_done() -> None:
    """The chances' pass needs the strategy table first: once the table is built, the pass is named again."""
    w = P.Waiting("computing the chances to win", after=0.0, terminal=False)
    w.noted("computing the yatzy early-game score distributions (once; cached in /tmp/x)")
    w.noted("building the yatzy strategy table (once; cached in /tmp/x)")
    w.update(10, 64)
    w.update(64, 64)
    w.update(1, 13)
    assert w.label == "computing the yatzy early-game score distributions"


@pytest.fixture
def slow_builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A fresh cache, a wait shown from its start with a line every 0.05 s, and builds that report
    their progress slowly (the small rules build in well under a second)."""
    from yahtzee_cli.solver import exact, winning

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("YAHTZEE_PROGRESS_AFTER", "0")
    monkeypatch.setenv("YAHTZEE_PROGRESS_EVERY", "0.05")
    monkeypatch.setattr(P, "TICK", 0.01)
    # (another test of this process may have computed the small rules' chances: start from none)
    for memo in ("_early_memo", "_values_memo", "_late_memo"):
        monkeypatch.setattr(winning, memo, {})
    for module, name in ((exact, "build"), (winning, "_build")):
        real = getattr(module, name)

        def slow(*args: Any, real: Any = real, name: str = name, **kwargs: Any) -> Any:
            from yahtzee_cli.progress import given

            progress = given(kwargs.get("progress") or (args[2] if name == "_build" else None))
            assert progress is not None  # the command's reporter reaches the build
            for done in range(4):
                progress(done, 4)
                time.sleep(0.1)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, slow)


def _progress_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "% (" in line and " left" in line]


def test_solve_shows_the_table_build(cli: Any, tmp_path: Path, slow_builds: None) -> None:
    r = cli(["solve", "--rules", write_small_rules(tmp_path)])
    assert r.exit_code == 0, r.stderr
    lines = _progress_lines(r.stderr)
    assert lines and lines[-1].startswith("yahtzee: building the custom strategy table: "), r.stderr
    assert "done after" in r.stderr
    assert "%" not in r.stdout and "so far" not in r.stdout


def test_log_add_shows_the_chances_tables(cli: Any, tmp_path: Path, slow_builds: None) -> None:
    game = tmp_path / "game.ndjson"
    assert cli(["log", "new", str(game), "--players", "A,B,C", "--rules", write_small_rules(tmp_path)]).exit_code == 0
    r = cli(["log", "add", str(game), "--dice", "44456", "--box", "fours"])
    assert r.exit_code == 0, r.stderr
    assert any("early-game score distributions: " in line for line in _progress_lines(r.stderr)), r.stderr
    assert r.stdout.lower().startswith("a: fours 12.") and "Chances to win" in r.stdout and "left" not in r.stdout


def test_quiet_shows_no_progress(cli: Any, tmp_path: Path, slow_builds: None) -> None:
    r = cli(["solve", "--rules", write_small_rules(tmp_path), "--quiet"])
    assert r.exit_code == 0, r.stderr
    assert _progress_lines(r.stderr) == [] and "done after" not in r.stderr and r.stdout == ""


def test_a_short_wait_shows_nothing(cli: Any, tmp_path: Path, slow_builds: None,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A build of under a second, at the default threshold (2 s): no line of progress."""
    rules = write_small_rules(tmp_path)
    assert cli(["solve", "--rules", rules]).exit_code == 0  # (the kernels compiled, if no test did before)
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "another-cache"))
    monkeypatch.delenv("YAHTZEE_PROGRESS_AFTER")
    r = cli(["solve", "--rules", rules])
    assert r.exit_code == 0, r.stderr
    assert r.stderr.startswith("yahtzee: building the custom strategy table (once")
    assert r.stderr.count("\n") == 1


def test_the_installed_script_shows_progress_in_a_pipe(yahtzee: list[str], tmp_path: Path) -> None:
    """Through the `yahtzee` script, stderr a pipe: the first chances of a small game are computed in a
    fresh cache, shown from the start by the environment's thresholds."""
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(tmp_path / "cache"), "YAHTZEE_PROGRESS_AFTER": "0",
           "YAHTZEE_PROGRESS_EVERY": "0"}
    game = tmp_path / "game.ndjson"
    subprocess.run([*yahtzee, "log", "new", str(game), "--players", "A,B", "--rules", write_small_rules(tmp_path)],
                   env=env, check=True, capture_output=True)
    r = subprocess.run([*yahtzee, "log", "add", str(game), "--dice", "66612", "--box", "sixes"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "yahtzee: computing the custom early-game score distributions: " in r.stderr
    assert r.stderr.rstrip().splitlines()[-1].startswith("yahtzee: done after ")
    assert r.stdout.lower().startswith("a: sixes 18.") and "yahtzee:" not in r.stdout


def test_no_thread_wakes_between_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ticker runs while a wait goes on and ends after it (a `play` session waits now and then and
    idles in between), and the next wait starts it again."""
    import threading

    monkeypatch.setattr(P, "TICK", 0.01)

    def ticking() -> bool:
        return any(t.name == "yahtzee-progress" for t in threading.enumerate())

    for _ in range(2):
        with P.waiting("a wait", after=3600):
            time.sleep(0.05)
            assert ticking()
        time.sleep(0.1)
        assert not ticking()
