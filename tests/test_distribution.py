"""The exact final-score distribution and risk-sensitive play (yahtzee_cli.distribution).

The full Yahtzee and Yatzy checks take tens of seconds each, so they live in
benchmarks/bench_distribution.py; here the same checks run on small custom rule sets (few boxes,
but the upper bonus, the joker, the extra bonus and passes all in play)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import orjson
import pytest

from yahtzee_cli import distribution as D
from yahtzee_cli import position, solver
from yahtzee_cli.rules import Column, RuleSet, rules_from_data

SMALL = {
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


@pytest.fixture(scope="module")
def small() -> RuleSet:
    return rules_from_data(SMALL)


@pytest.fixture(scope="module")
def small_table(small: RuleSet) -> solver.Table:
    return solver.get_table(small)[0]


@pytest.fixture(scope="module")
def small_dist(small: RuleSet, small_table: solver.Table) -> D.Distribution:
    return D.final_distribution(small, small_table)


def _ks(totals: np.ndarray, d: D.Distribution) -> tuple[float, float]:
    """Kolmogorov-Smirnov distance of simulated totals from the exact pmf, and its 1% critical value
    (conservative for a discrete distribution)."""
    n = len(totals)
    xs = d.scores
    cdf = np.cumsum(d.pmf)
    emp = np.searchsorted(np.sort(totals), xs, side="right") / n
    return float(np.abs(emp - cdf).max()), 1.628 / math.sqrt(n)


def test_single_yahtzee_box_is_the_chance_of_a_yahtzee_in_three_rolls() -> None:
    # Going for five alike with three rolls succeeds 2,783,176 times in 6**10 (the classic figure).
    rs = rules_from_data({"boxes": [{"key": "yahtzee", "kind": "yahtzee", "points": 50}],
                          "settings": {"upper_bonus": 0, "extra_yahtzee_bonus": 0}})
    d = D.final_distribution(rs, solver.get_table(rs)[0])
    assert d.at_least(50) == pytest.approx(2_783_176 / 6**10, abs=1e-12)
    assert d.pmf.sum() == pytest.approx(1.0, abs=1e-12)


def test_pmf_sums_to_one_and_matches_the_tables_moments(small_table: solver.Table,
                                                        small_dist: D.Distribution) -> None:
    assert abs(small_dist.pmf.sum() - 1.0) < 1e-9
    assert (small_dist.pmf >= 0).all()
    assert abs(small_dist.mean - small_table.mean) < 1e-6
    assert abs(small_dist.sd - small_table.sd) < 1e-4


def test_agrees_with_simulated_optimal_games(small: RuleSet, small_table: solver.Table) -> None:
    # the simulator breaks ties its own way: compare with the distribution of that same policy
    d = D.final_distribution(small, small_table, solver_ties=False)
    assert abs(d.mean - small_table.mean) < 1e-6
    games = solver.play(small, "optimal", seed=11, first_game=0, n_games=20_000)
    dist, crit = _ks(games.totals, d)
    assert dist < crit


def test_theta_zero_reproduces_the_table(small: RuleSet, small_table: solver.Table) -> None:
    for ties in (True, False):
        again = D.risk_values(small, 0.0, small_table, solver_ties=ties)
        assert np.abs(again.W - small_table.W).max() < 1e-9
    assert D.get_risk_table(small, 0.0) .mean == small_table.mean


def test_small_theta_moves_the_certainty_equivalent_by_half_the_variance(small: RuleSet,
                                                                         small_table: solver.Table) -> None:
    var = small_table.sd ** 2
    for theta in (1e-4, -1e-4):
        ce = D.risk_values(small, theta).mean
        shift = ce - small_table.mean
        assert shift == pytest.approx(theta * var / 2, rel=0.05)


def test_risk_play_at_theta_zero_is_the_simulators_play(small: RuleSet, small_table: solver.Table) -> None:
    ours = D.play_risk(small, 0.0, 5, 100, 500, seat=1, tab=small_table)
    theirs = solver.play(small, "optimal", 5, 100, 500, seat=1)
    assert np.array_equal(ours.scores, theirs.scores)
    assert np.array_equal(ours.totals, theirs.totals)


def test_risk_games_follow_the_risk_distribution(small: RuleSet) -> None:
    theta = 0.05
    d = D.get_distribution(small, theta)[0]
    base = D.get_distribution(small, 0.0)[0]
    assert abs(d.pmf.sum() - 1.0) < 1e-9
    assert d.sd > base.sd  # seeking variance finds it
    assert d.mean < base.mean  # and pays for it in the mean
    games = D.play_risk(small, theta, 3, 0, 10_000)
    dist, crit = _ks(games.totals, d)
    assert dist < crit


def test_position_chances_agree_with_hint_values(small: RuleSet) -> None:
    col = Column((None, None, 18, None, None, None))  # sixes: three of them
    dice = (1, 3, 3, 5, 6)
    ev = position.evaluate(small, [col], dice, 2)
    ch = D.position_chances(small, col, dice, 2, ev.options[:4])
    for o, c in zip(ev.options[:4], ch, strict=True):
        assert c.dist.pmf.sum() == pytest.approx(1.0, abs=1e-9)
        assert c.dist.mean == pytest.approx(o.value, abs=1e-9)
    capped = D.position_chances(small, col, dice, 2, ev.options[:4], target=140)
    for c, k in zip(ch, capped, strict=True):
        assert k.at_least(140) == pytest.approx(c.at_least(140), abs=1e-12)
    boxes = position.evaluate(small, [col], dice, 0)
    for o, c in zip(boxes.options, D.position_chances(small, col, dice, 0, boxes.options), strict=True):
        assert c.dist.mean == pytest.approx(o.value, abs=1e-9)


def test_must_zero_off_distribution_has_the_tables_mean() -> None:
    # a pass returns to the same state; like the table, the distribution allows any number of them
    # (simulated games stop passing after 50 x boxes turns, so they are not compared here)
    rs = rules_from_data({**SMALL, "settings": {**SMALL["settings"], "must_zero": False}})
    tab = solver.get_table(rs)[0]
    d = D.final_distribution(rs, tab)
    assert abs(d.pmf.sum() - 1.0) < 1e-9
    assert d.mean == pytest.approx(tab.mean, abs=1e-4)
    assert d.mean > D.final_distribution(rules_from_data(SMALL), solver.get_table(rules_from_data(SMALL))[0]).mean


def _rules_file(tmp_path: Path) -> str:
    path = tmp_path / "small.json"
    path.write_bytes(orjson.dumps(SMALL))
    return str(path)


def test_cli_solve_distribution_json(cli: object, tmp_path: Path, small_table: solver.Table) -> None:
    r = cli(["solve", "--rules", _rules_file(tmp_path), "--distribution", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    dist = out["distribution"]
    assert dist["exact"] is True and dist["approximation"] is None
    pmf = np.array(dist["pmf"])
    assert abs(pmf[:, 1].sum() - 1.0) < 1e-9
    assert abs(float(pmf[:, 0] @ pmf[:, 1]) - small_table.mean) < 1e-6
    assert list(dist["percentiles"]) == ["1", "5", "10", "25", "50", "75", "90", "95", "99"]
    cdf = np.cumsum(pmf[:, 1])
    for q, x in dist["percentiles"].items():
        i = int(np.searchsorted(pmf[:, 0], x))
        assert cdf[i] >= int(q) / 100 - 1e-12 and (i == 0 or cdf[i - 1] < int(q) / 100)
    text = cli(["solve", "--rules", _rules_file(tmp_path), "--distribution", "--target", "150"])  # type: ignore[operator]
    assert text.exit_code == 0
    assert "P(>= 150)" in text.stdout and "p50" in text.stdout and "#" in text.stdout


def test_cli_hint_target_and_risk(cli: object, tmp_path: Path) -> None:
    f = _rules_file(tmp_path)
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", f, "--target", "150", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["theta"] in D.THETA_GRID and out["objective"] == "maximise P(final >= 150)"
    probs = [row["probability"] for row in out["by_theta"]]
    assert out["best"]["probability"] == max(probs)
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", f, "--distribution", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["exact"] is True and 0 < out["options"][0]["probability"] < 1
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", f, "--risk", "0.05"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    assert "E[exp(0.05 * final score)]" in r.stdout
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", "triple-yahtzee", "--target", "300"])  # type: ignore[operator]
    assert r.exit_code == 2 and "exact table" in r.stderr


def test_cli_simulate_risk_says_what_it_optimises(cli: object, tmp_path: Path) -> None:
    f = _rules_file(tmp_path)
    r = cli(["simulate", "--rules", f, "--risk", "0.05", "-n", "300", "--seed", "1", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    seat = out["seats"][0]
    assert seat["strategy"] == "risk=0.05" and "E[exp(0.05 * final score)]" in seat["objective"]
    r = cli(["simulate", "--rules", f, "--risk", "0.05", "-n", "300", "--seed", "1"])  # type: ignore[operator]
    assert "seeks variance" in r.stdout.splitlines()[0]
    r = cli(["simulate", "--rules", f, "--risk", "0.05", "--players", "optimal,greedy"])  # type: ignore[operator]
    assert r.exit_code == 2
