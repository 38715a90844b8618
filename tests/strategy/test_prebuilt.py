"""The strategy table shipped with the package for the default rules (yahtzee_cli/store/prebuilt.py): it is
the table this solver builds, and a first hint in an empty cache uses it instead of building."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact as solver
from yahtzee_cli.store import prebuilt
from yahtzee_cli.store import tablefile as cache


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    return tmp_path


MEANS = {"yahtzee": "254.5877287", "yatzy": "248.4399894"}  # the published optimal means


@pytest.mark.parametrize("name", prebuilt.PRESETS)
def test_the_default_rules_table_is_shipped_for_the_current_rules_and_solver(name: str) -> None:
    """Fails after a change to the rules or the solver: run `python -m yahtzee_cli.solver.ship`."""
    rules = R.preset(name)
    table = cache.table_path(rules.fingerprint).name
    assert prebuilt.shipped(table) is not None, f"no prebuilt {table}: run python -m yahtzee_cli.solver.ship"


@pytest.mark.parametrize("name", prebuilt.PRESETS)
def test_the_shipped_table_is_the_one_the_solver_builds(empty_cache: Path, name: str) -> None:
    rules = R.preset(name)
    shipped, built = solver.get_table(rules)
    assert not built and (empty_cache / cache.table_path(rules.fingerprint).name).is_file()  # copied
    fresh = solver.build(rules, moments=False)
    assert f"{shipped.mean:.7f}" == MEANS[name] == f"{fresh.mean:.7f}"
    assert shipped.W.shape == fresh.W.shape
    assert np.abs(shipped.W - fresh.W).max() <= 1e-9


def test_a_first_hint_needs_no_build(cli, empty_cache: Path) -> None:  # noqa: ANN001
    r = cli(["hint", "1", "3", "3", "5", "6"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2].split() == ["keep", "3", "3", "251.4054", "best"]
    assert "building" not in r.stderr


@pytest.mark.parametrize("stale", [b"YZTBL01\n" + bytes(200), b"garbage", b""],
                         ids=["earlier-format", "garbage", "empty"])
def test_an_outdated_cached_copy_of_a_shipped_table_is_replaced_without_a_build(cli, empty_cache: Path,
                                                                                 stale: bytes) -> None:  # noqa: ANN001
    """A cache left by an earlier version (another file format) or a damaged copy: the shipped table
    takes its place, with no build and no warning to act on."""
    rules = R.preset("yahtzee")
    path = empty_cache / cache.table_path(rules.fingerprint).name
    path.write_bytes(stale)
    for args in (["hint", "1", "3", "3", "5", "6"], ["solve", "--json"]):
        r = cli(args)
        assert r.exit_code == 0, r.stderr
        assert "building" not in r.stderr and "warning" not in r.stderr, r.stderr
    assert "251.4054" in cli(["hint", "1", "3", "3", "5", "6"]).stdout
    assert path.read_bytes() == prebuilt.shipped(path.name)  # the cache holds the shipped copy now


def test_a_damaged_table_that_is_not_shipped_is_still_rebuilt_with_a_warning(cli, empty_cache: Path) -> None:  # noqa: ANN001
    rules = R.load_rules("yahtzee", ["joker=free"])
    first = cli(["solve", "--set", "joker=free", "--json"])
    assert first.exit_code == 0, first.stderr
    path = empty_cache / cache.table_path(rules.fingerprint).name
    path.write_bytes(b"YZTBL01\n" + bytes(200))
    r = cli(["solve", "--set", "joker=free", "--json"])
    assert r.exit_code == 0 and "ignored" in r.stderr and "building" in r.stderr, r.stderr


def test_the_triple_yahtzee_weights_are_shipped_and_a_first_triple_hint_fits_nothing(cli, empty_cache: Path) -> None:  # noqa: ANN001
    """Triple Yahtzee's columns are valued by the shipped Yahtzee table with a weight and levels fitted
    by self-play (solver.approx): shipped too, for the current rules and fit, so a first hint on an
    empty cache neither builds nor fits."""
    from yahtzee_cli.solver import approx

    rules = R.preset("triple-yahtzee")
    name = cache.table_path(rules.fingerprint, "approx").name
    assert prebuilt.shipped(name) is not None, f"no prebuilt {name}: run python -m yahtzee_cli.solver.ship"
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", "triple-yahtzee", "--top", "1"])
    assert r.exit_code == 0 and "preparing" not in r.stderr and "building" not in r.stderr, r.stderr
    header = approx.prepare(rules)
    assert header["strategy"] == "columns" and header["games"] == approx.EVAL_GAMES
    stored, _ = cache.read(empty_cache / name, rules.fingerprint)
    assert stored["scale"] in approx.SCALE_CANDIDATES and len(stored["levels"]) == 3 * 13 + 1


@pytest.mark.parametrize("name", ["maxi-yatzy", "triple-yatzy"])
def test_a_first_maxi_or_triple_yatzy_hint_fits_nothing(cli, empty_cache: Path, name: str) -> None:  # noqa: ANN001
    """Maxi Yatzy with saved rolls (the heuristic's parameters, fitted by self-play for a minute or two)
    and Triple Yatzy (a weight on the shipped Yatzy table) ship their approximate strategies, for the
    current rules and fit: a first hint on an empty cache neither builds nor fits."""
    from yahtzee_cli.solver import approx

    rules = R.preset(name)
    file = cache.table_path(rules.fingerprint, "approx").name
    assert prebuilt.shipped(file) is not None, f"no prebuilt {file}: run python -m yahtzee_cli.solver.ship"
    dice = ["1", "3", "3", "5", "6"] + (["6"] if rules.dice == 6 else [])
    r = cli(["hint", *dice, "--rules", name, "--top", "1"])
    assert r.exit_code == 0, r.stderr
    assert "preparing" not in r.stderr and "building" not in r.stderr and "fitting" not in r.stderr, r.stderr
    header = approx.prepare(rules)
    assert header["strategy"] == ("heuristic" if name == "maxi-yatzy" else "columns")
