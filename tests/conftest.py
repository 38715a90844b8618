"""Shared test set-up: a fixed terminal for Rich so table output is stable, and CLI helpers."""

from __future__ import annotations

import os

import pytest

# Rich reads these when a Console is made: pin width and plain (non-terminal) output everywhere.
os.environ["COLUMNS"] = "120"
os.environ["TERM"] = "dumb"
os.environ["NO_COLOR"] = "1"
os.environ.pop("FORCE_COLOR", None)


@pytest.fixture
def cli():
    """Run the CLI in-process: cli(args, input=...) -> Result with .exit_code, .stdout, .stderr."""
    from typer.testing import CliRunner

    from yahtzee_cli.cli import app

    runner = CliRunner()

    def run(args: list[str], input: str | bytes | None = None):  # noqa: A002
        return runner.invoke(app, args, input=input, prog_name="yahtzee")

    return run
