"""The strategy table shipped with the package for the default rules (yahtzee_cli/strategy/prebuilt.py): it is
the table this solver builds, and a first hint in an empty cache uses it instead of building."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact as solver
from yahtzee_cli.strategy import prebuilt
from yahtzee_cli.strategy import tablefile as cache


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_the_default_rules_table_is_shipped_for_the_current_rules_and_solver() -> None:
    """Fails after a change to the rules or the solver: run `python -m yahtzee_cli.solver.ship`."""
    rules = R.preset("yahtzee")
    name = cache.table_path(rules.fingerprint).name
    assert prebuilt.shipped(name) is not None, f"no prebuilt {name}: run python -m yahtzee_cli.solver.ship"


def test_the_shipped_table_is_the_one_the_solver_builds(empty_cache: Path) -> None:
    rules = R.preset("yahtzee")
    shipped, built = solver.get_table(rules)
    assert not built and (empty_cache / cache.table_path(rules.fingerprint).name).is_file()  # copied
    fresh = solver.build(rules, moments=False)
    assert f"{shipped.mean:.7f}" == "254.5877287" == f"{fresh.mean:.7f}"
    assert shipped.W.shape == fresh.W.shape
    assert np.abs(shipped.W - fresh.W).max() <= 1e-9


def test_a_first_hint_needs_no_build(cli, empty_cache: Path) -> None:  # noqa: ANN001
    r = cli(["hint", "1", "3", "3", "5", "6"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[1].split() == ["keep", "3", "3", "251.4054", "best"]
    assert "building" not in r.stderr
