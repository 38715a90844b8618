"""Command-line interface: `app` plus one module per command group."""

from __future__ import annotations

import sys

# Each module registers its commands on `app` when imported.
from . import poker, replay, rules_cmd, schema, score, simulate, solve, validate  # noqa: F401
from .app import app

__all__ = ["app", "main"]


def main() -> None:
    app(prog_name="yahtzee")
    sys.exit(0)
