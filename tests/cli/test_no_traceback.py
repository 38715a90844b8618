"""No traceback where an optional part is missing or a bot misbehaves: one line, the documented exit
status, nothing half written on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

LOG = str(FIXTURES / "logs" / "yahtzee.json")
EXTRA = "pip install 'yahtzee-cli[dask]'"


@pytest.fixture
def without_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask and distributed cannot be imported (CI installs the extra: this hides it, in this process)."""
    for name in [m for m in sys.modules if m == "dask" or m.startswith(("dask.", "distributed"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "distributed", None)


@pytest.mark.parametrize("args", [
    ["validate", LOG], ["validate", "--json", LOG], ["replay", "--json", LOG], ["replay", "--analyze", LOG],
    ["analyze", "--json", LOG], ["simulate", "-S", "random", "-n", "5", "--json"],
    ["simulate", "-S", "random", "-n", "5", "--log-out", "-"],
])
def test_the_dask_backend_without_dask_is_one_line(cli, without_dask: None, args: list[str]) -> None:
    import importlib

    with pytest.raises(ImportError):
        importlib.import_module("dask")  # the blocker works
    r = cli([*args, "--backend", "dask"])
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("yahtzee: error: ") and EXTRA in r.stderr, r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)


def _bot(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bot.py"
    path.write_text(body)
    return f"{path}:play"


EVIL = """
class Evil:
    def __str__(self):
        raise RuntimeError("no str")
    __repr__ = __str__
    def __eq__(self, other):
        raise RuntimeError("no eq")
    __hash__ = None
"""


@pytest.mark.parametrize(("body", "status", "words"), [
    ("import sys\nsys.exit(4)\ndef play(pos):\n    return 'chance'\n", 2, "SystemExit: 4"),
    ("class Stop(BaseException):\n    pass\nraise Stop('at import')\n", 2, "Stop: at import"),
    ("def play(pos):\n    raise SystemExit(3)\n", 1, "raised SystemExit: 3"),
    ("class Stop(BaseException):\n    pass\ndef play(pos):\n    raise Stop('in a call')\n", 1,
     "raised Stop: in a call"),
    (EVIL + "def play(pos):\n    return Evil()\n", 1, "raised RuntimeError: no str"),
    (EVIL + "def play(pos):\n    return [Evil()] if pos.rolls_left else 'chance'\n", 1, "raised RuntimeError: no str"),
    ("class Loud(Exception):\n    def __str__(self):\n        raise RuntimeError('no str')\n"
     "def play(pos):\n    raise Loud()\n", 1, "raised Loud: <a Loud that cannot be shown>"),
])
def test_a_misbehaving_bot_is_one_line(cli, tmp_path: Path, body: str, status: int, words: str) -> None:
    r = cli(["simulate", "-S", _bot(tmp_path, body), "-n", "2", "--seed", "1", "-w", "1"])
    assert r.exit_code == status, (r.exit_code, r.stderr, r.exception)
    lines = [x for x in r.stderr.splitlines() if not x.startswith("yahtzee: compiling")]
    assert len(lines) == 1 and lines[0].startswith("yahtzee: error: ") and words in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_a_bot_answer_whose_eq_raises_is_read_as_plain_data(cli, tmp_path: Path) -> None:
    """Comparisons happen on plain data taken from the answer, never on the bot's own objects."""
    body = ("class Die(int):\n    def __eq__(self, other):\n        raise RuntimeError('no eq')\n"
            "    __hash__ = int.__hash__\n"
            "def play(pos):\n    if pos.rolls_left:\n        return [Die(d) for d in pos.dice[:2]]\n"
            "    return max(pos.options, key=lambda o: o.score)\n")
    r = cli(["simulate", "-S", _bot(tmp_path, body), "-n", "2", "--seed", "1", "-w", "1", "--json"])
    assert r.exit_code == 0, r.stderr


# --------------------------------------------------------------------------- where a game is: file:LINE: game N


def test_hint_and_log_name_the_file_line_and_game(cli, tmp_path: Path) -> None:
    first = (FIXTURES / "logs" / "in-progress.json").read_bytes()
    two = tmp_path / "two.json"
    two.write_bytes(first + b"{oops\n")
    line = first.count(b"\n") + 1
    r = cli(["hint", "11111", "--log", str(two)])
    assert r.exit_code == 1 and r.stderr.startswith(f"yahtzee: error: --log: {two}:{line}: game 2: invalid JSON")
    r = cli(["log", "add", str(two), "--dice", "11111"])
    assert r.exit_code == 1 and r.stderr.startswith(f"yahtzee: error: {two}:{line}: game 2: invalid JSON")
    bad = FIXTURES / "invalid" / "joker-forbidden.json"
    r = cli(["hint", "11111", "--log", str(bad)])
    assert r.stderr.startswith(f"yahtzee: error: --log: {bad}:208: game 1: /turns/6/box: full_house is not allowed")
    assert cli(["validate", str(bad)]).stdout.startswith(f"{bad}:208: game 1: /turns/6/box: ")  # the same place


# --------------------------------------------------------------------------- simulate: names and noise


def test_exact_is_true_only_for_play_by_the_exact_table(cli) -> None:
    base = ["simulate", "-n", "20", "--seed", "2", "-w", "1", "--json"]
    match = json.loads(cli([*base, "--players", "optimal,greedy,random"]).stdout)
    assert [s["exact"] for s in match["seats"]] == [True, None, None] and match["exact"] is True
    assert all(s["approximation"] is None for s in match["seats"])
    solo = json.loads(cli([*base, "-S", "random"]).stdout)
    assert solo["seats"][0]["exact"] is None and solo["exact"] is None and solo["approximation"] is None
    rows = cli(["simulate", "-n", "20", "--seed", "2", "-w", "1", "--csv", "--players", "optimal,random"]).stdout
    assert [r.split(",")[3] for r in rows.splitlines()] == ["exact", "true", ""]


def test_log_out_to_stdout_leaves_one_line_on_stderr(cli, monkeypatch) -> None:
    monkeypatch.setenv("YAHTZEE_PROGRESS_AFTER", "3600")  # (a first run's compile is a wait with progress lines)
    base = ["simulate", "-S", "random", "-n", "25", "--seed", "4", "-w", "1", "--log-out", "-"]
    r = cli(base)
    assert r.exit_code == 0 and r.stdout.count("\n") == 25
    lines = [x for x in r.stderr.splitlines() if not x.startswith("yahtzee: compiling")]
    assert lines == [lines[0]] and lines[0].startswith("yahtzee: yahtzee, random: 25 games, seed 4; mean ")
    assert lines[0].endswith(" (the full summary with -v)")
    full = cli([*base, "-v"])
    assert full.stdout == r.stdout and full.stderr.count("\n") > 10  # the whole report
    match = cli(["simulate", "--players", "random,greedy", "-n", "10", "--seed", "4", "-w", "1", "--log-out", "-"])
    (line,) = [x for x in match.stderr.splitlines() if not x.startswith("yahtzee: compiling")]
    assert line.count(" mean ") == 2 and line.count(", wins ") == 2 and "; random" in line and "; greedy" in line
