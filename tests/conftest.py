"""Shared test set-up: a fixed terminal for Rich so table output is stable, the one strategy-table
cache of the session, the fixtures path, and CLI helpers. Tests follow the package's layout
(tests/rules, tests/formats, tests/strategy, tests/solver, tests/play, tests/cli)."""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"  # committed games, sheets and schemas (fixtures/make_fixtures.py)

# A rule set of six boxes: exact tables and distributions in well under a second (solver and plot tests).
SMALL_RULES = {
    "boxes": [
        {"key": "fours", "kind": "upper", "face": 4},
        {"key": "fives", "kind": "upper", "face": 5},
        {"key": "sixes", "kind": "upper", "face": 6},
        {"key": "three_of_a_kind", "kind": "kind", "n": 3},
        {"key": "yahtzee", "kind": "yahtzee", "points": 50},
        {"key": "chance", "kind": "chance"},
    ],
    "settings": {"upper_bonus_threshold": 30, "upper_bonus": 35},
}

# Four boxes, two of them upper with a bonus, and saved rolls: every state's value by brute force in
# seconds (saved-rolls tests).
SAVED_RULES = orjson.loads((FIXTURES / "rules" / "saved-small.json").read_bytes())


def write_small_rules(directory: Path) -> str:
    """SMALL_RULES written as a rules file in `directory` (for --rules); its path."""
    path = directory / "small.json"
    path.write_bytes(orjson.dumps(SMALL_RULES))
    return str(path)


# Rich reads these when a Console is made: pin width and plain (non-terminal) output everywhere.
os.environ["COLUMNS"] = "120"
os.environ["TERM"] = "dumb"
os.environ["NO_COLOR"] = "1"
os.environ.pop("FORCE_COLOR", None)
# Default rules come from the environment and a config file: tests see neither the user's.
os.environ.pop("YAHTZEE_RULES", None)
os.environ["YAHTZEE_CONFIG"] = os.path.join(tempfile.gettempdir(), "yahtzee-test-no-such-config.toml")
# A wait over 2 s shows progress lines on stderr; on a loaded CI machine any command may wait that long, so
# tests see none unless they ask (tests/cli/test_progress.py sets its own thresholds).
os.environ["YAHTZEE_PROGRESS_AFTER"] = "3600"

# Strategy tables built by tests go to one throw-away directory shared by the whole session (built
# once, never written into the user's real cache); tests of the cache itself use their own.
_SESSION_CACHE = None
if "YAHTZEE_CACHE_DIR" not in os.environ:
    _SESSION_CACHE = os.environ["YAHTZEE_CACHE_DIR"] = tempfile.mkdtemp(prefix="yahtzee-test-cache-")
# Compiled kernels too, whatever cache directory a test module or subprocess picks for its tables: the
# compilation is paid once per session (numba's own knob, which yahtzee_cli.solver.jit honours).
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.environ["YAHTZEE_CACHE_DIR"], "numba"))


# The checkout's bytecode, once: the tests start `yahtzee` in many subprocesses, and where
# PYTHONDONTWRITEBYTECODE is set each of them would compile our modules from source again (a cold run
# used 4 min 24 s of CPU with the bytecode present against 4 min 37 s without). __pycache__ is
# ignored by git; an installed copy in site-packages is never touched.
compileall.compile_dir(str(REPO / "yahtzee_cli"), quiet=2)


# The longest test files start first: pytest-xdist hands files to workers whole (--dist loadfile), in
# collection order, and a long file handed out last would run alone at the end. Order within a file stays.
LONG_FIRST = ("test_readme.py", "test_hardening.py", "test_distribution.py", "test_solver.py",
              "test_exact_six_dice.py", "test_rules_coverage.py", "test_fanout_dask.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: file order otherwise kept


def pytest_sessionfinish(session, exitstatus):
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def table_cache() -> Path:
    """The session's strategy-table cache: every table any test needs is built once, here."""
    return Path(os.environ["YAHTZEE_CACHE_DIR"])


@pytest.fixture
def small_fits(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of its own (one per test process) whose approximate strategies are fitted on a few
    hundred games: for tests of what is done with a strategy on rules nothing ships a fit for (a
    multi-column sheet with a house rule), not of how well it plays (tests/solver/test_quality.py)."""
    from yahtzee_cli.solver import approx

    for name, games in (("FIT_GAMES", (300, 300, 300)), ("FIT_CHECK_GAMES", 300), ("FORM_CHECK_GAMES", 300),
                        ("EVAL_GAMES", 500)):
        monkeypatch.setattr(approx, name, games)
    path = tmp_path_factory.getbasetemp() / "small-fits"
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def yahtzee_table(table_cache: Path) -> Any:
    """The exact table of official Yahtzee (built on first use, then read from the session cache)."""
    from yahtzee_cli.rules.engine import preset
    from yahtzee_cli.solver.exact import get_table

    return get_table(preset("yahtzee"))[0]


@pytest.fixture
def cli():
    """Run the CLI in-process: cli(args, input=...) -> Result with .exit_code, .stdout, .stderr."""
    from typer.testing import CliRunner

    from yahtzee_cli.cli import app

    runner = CliRunner()

    def run(args: list[str], input: str | bytes | None = None):  # noqa: A002
        return runner.invoke(app, args, input=input, prog_name="yahtzee")

    return run


def simulated_logs(tmp: Path, strategy: str, games: int, seed: int) -> list[dict[str, Any]]:
    """The game logs of `yahtzee simulate -S STRATEGY -n GAMES --seed SEED --log-out` (run in-process)."""
    from typer.testing import CliRunner

    from yahtzee_cli.cli import app
    from yahtzee_cli.formats.jsonio import loads

    out = tmp / f"{strategy}.ndjson"
    r = CliRunner().invoke(app, ["simulate", "-S", strategy, "-n", str(games), "--seed", str(seed), "-w", "1",
                                 "--log-out", str(out)], prog_name="yahtzee")
    assert r.exit_code == 0, r.stderr
    return [loads(line) for line in out.read_bytes().splitlines()]


def yahtzee_command() -> list[str]:
    """How to run the installed program from a subprocess, never skipping: the `yahtzee` script next to
    this interpreter (a venv or a plain install), else `python -m yahtzee_cli` with this interpreter
    (a `pip install --user` whose script directory is not on PATH, a venv python called by path)."""
    script = Path(sys.executable).with_name("yahtzee.exe" if sys.platform == "win32" else "yahtzee")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "yahtzee_cli"]


@pytest.fixture
def yahtzee() -> list[str]:
    """The command prefix that runs `yahtzee` in a subprocess (see yahtzee_command)."""
    return yahtzee_command()


@pytest.fixture
def small_short_early(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The six-box rules with only layers 0-2 in the win chances' early file (so later positions take
    the pass), in a cache of their own."""
    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import winning

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "short-early-cache"))
    monkeypatch.setattr(winning, "EARLY_LAYERS", 3)
    monkeypatch.setattr(winning, "_early_memo", {})
    monkeypatch.setattr(winning, "_late_memo", {})
    return R.rules_from_data(SMALL_RULES)
