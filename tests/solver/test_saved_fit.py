"""Values by stock fitted to a saved-rolls table (solver.saved_fit): near the table's play, read back as
written, the same in the compiled kernels and in hints, and what `optimal` plays with no table built."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from conftest import SAVED_RULES

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import saved, saved_fit
from yahtzee_cli.strategy import choice
from yahtzee_cli.strategy.choice import plan

TINY = SAVED_RULES


def tiny(cap: int | None) -> R.RuleSet:
    return R.rules_from_data(TINY, {"saved_rolls_cap": cap})


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> tuple[saved.SavedTable, saved_fit.FittedStocks, Path]:
    """The tiny rules' table with at most 24 saved rolls (what the game without a cap is fitted to), and
    values fitted to it, in a cache of their own."""
    cache = tmp_path_factory.mktemp("savedfit")
    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_CACHE_DIR", str(cache))
    try:
        tab = saved.get_table(tiny(24))[0]
        return tab, saved_fit.fit(tiny(24), tab, games=2000), cache
    finally:
        mp.undo()


def test_the_fit_plays_close_to_the_table_it_was_fitted_to(fitted: Any) -> None:
    tab, model, _ = fitted
    rules = tiny(None)
    exact = saved.play_with(rules, tab, 5, 0, 20_000).totals
    approx = saved.play_with(rules, model, 5, 0, 20_000).totals
    diff = exact - approx  # the same dice: a paired difference
    se = diff.std() / math.sqrt(len(diff))
    assert diff.mean() < 0.01 * exact.mean() + 3 * se, (exact.mean(), approx.mean())
    assert abs(approx.mean() - exact.mean()) < abs(exact.mean() - 0.9 * exact.mean())  # not a toy


def test_the_fitted_values_track_the_table_at_the_positions_play_reaches(fitted: Any) -> None:
    tab, model, _ = fitted
    rules = tiny(24)
    batch = saved.play_with(rules, tab, 9, 0, 500, record=True)
    mask, lane, u, _ = saved_fit._positions(rules, batch, tab.t)
    filled = np.array([bin(int(m)).count("1") for m in mask])
    for s in range(8):
        keep = tab.lay.tops[filled] >= s
        exact = tab.values(s, mask[keep], lane[keep], u[keep])
        got = np.array([model.value(int(m), 0, int(v), s) for m, v in zip(mask[keep], u[keep], strict=True)])
        assert np.sqrt(np.mean((got - exact) ** 2)) < 0.05 * np.abs(exact).mean() + 1.0


def test_written_and_read_back_the_values_are_the_same(fitted: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tab, model, cache = fitted
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(cache))
    model.measured = {"games": 100, "seed": 1, "mean": 40.0, "sd": 9.0, "exact_mean": 41.0, "below": 1.0,
                      "below_se": 0.1}
    saved_fit.write(tiny(None), model)
    back = saved_fit.read(tiny(None))  # the game without a cap reads the fit to the cap-24 table
    assert back is not None and back is not model
    for name in ("H", "G", "Y", "sub_of"):
        assert np.array_equal(getattr(back, name), getattr(model, name)), name
    assert back.measured == model.measured and back.cap == 24
    assert back.value(5, 0, 7, 1) == model.value(5, 0, 7, 1)
    assert saved_fit.read(tiny(None)) is back  # decoded once while the file stays as it is (a run reads it a chunk)
    model.measured = {**model.measured, "mean": 39.0}
    saved_fit.write(tiny(None), model)
    again = saved_fit.read(tiny(None))
    assert again is not back and again is not None and again.measured["mean"] == 39.0


def test_games_of_the_fitted_values_grade_as_their_own_best_moves(fitted: Any, cli: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # the compiled kernel (state_value with the pairs) and the hint's pure Python value the same positions
    # alike: analyze, grading by the fitted values, finds no loss in the games they played
    tab, model, cache = fitted
    fresh = tmp_path / "cache"
    fresh.mkdir()
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(fresh))
    model.measured = {"games": 100, "seed": 1, "mean": 40.0, "sd": 9.0, "exact_mean": 41.0, "below": 1.0,
                      "below_se": 0.1}
    saved_fit.write(tiny(None), model)
    assert plan(tiny(None)).strategy == "fitted" and plan(tiny(None)).by_stock
    assert plan(tiny(3)).strategy == "saved"  # another cap: no fit of its own, its table quick to build
    monkeypatch.setattr(choice, "AUTO_SAVED_MINUTES", 0.0)
    assert plan(tiny(3)).strategy == "heuristic"  # (one too slow to build unasked: the heuristic)
    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    log = tmp_path / "games.ndjson"
    r = cli(["simulate", "--rules", str(rules_file), "-n", "20", "--seed", "4", "--log-out", str(log), "--json"])
    assert r.exit_code == 0, r.stderr
    seat = orjson.loads(r.stdout)["seats"][0]
    assert seat["exact"] is False and "fitted to the exact table with at most 24 saved rolls" in seat["approximation"]
    assert "1.00 points a game below" in seat["approximation"] and seat["saved_rolls_cap"] == 24
    r = cli(["analyze", str(log), "--json"])
    assert r.exit_code == 0, r.stderr
    games = [x for x in map(orjson.loads, r.stdout.splitlines()) if x.get("type") == "game"]
    assert games and all(abs(p["expected_loss"]) < 1e-6 for g in games for p in g["players"])
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file)])
    assert r.exit_code == 0 and "values by stock fitted" in r.stdout, r.stdout
    assert "values fitted to the exact table until its exact table is built" in r.stderr
    r = cli(["solve", "--rules", str(rules_file), "--json"])
    rec = orjson.loads(r.stdout)
    assert r.exit_code == 0 and rec["expected"] == 40.0 and "fitted" in rec["approximation"], rec
    assert not list(fresh.glob("saved-*"))  # nothing built unasked
