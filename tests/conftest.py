"""Shared test set-up: a fixed terminal for Rich so table output is stable, the one strategy-table
cache of the session, the fixtures path, and CLI helpers. Tests follow the package's layout
(tests/rules, tests/formats, tests/strategy, tests/solver, tests/play, tests/cli)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"  # committed games, sheets and schemas (fixtures/make_fixtures.py)

# Rich reads these when a Console is made: pin width and plain (non-terminal) output everywhere.
os.environ["COLUMNS"] = "120"
os.environ["TERM"] = "dumb"
os.environ["NO_COLOR"] = "1"
os.environ.pop("FORCE_COLOR", None)

# Strategy tables built by tests go to one throw-away directory shared by the whole session (built
# once, never written into the user's real cache); tests of the cache itself use their own.
_SESSION_CACHE = None
if "YAHTZEE_CACHE_DIR" not in os.environ:
    _SESSION_CACHE = os.environ["YAHTZEE_CACHE_DIR"] = tempfile.mkdtemp(prefix="yahtzee-test-cache-")


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
