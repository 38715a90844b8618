"""The exact final-score distribution and risk-sensitive play (yahtzee_cli.solver.distribution).

The full Yahtzee and Yatzy checks take tens of seconds each, so they live in
benchmarks/bench_distribution.py; here the same checks run on small custom rule sets (few boxes,
but the upper bonus, the joker, the extra bonus and passes all in play)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import orjson
import pytest
from conftest import SMALL_RULES as SMALL  # six boxes: exact in well under a second
from conftest import write_small_rules

from yahtzee_cli.play.hint import hint, risk_source
from yahtzee_cli.rules.engine import Column, RuleSet, rules_from_data
from yahtzee_cli.solver import chances as C
from yahtzee_cli.solver import distribution as D
from yahtzee_cli.solver import exact as solver
from yahtzee_cli.solver import policy


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
    games = policy.play(small, "optimal", seed=11, first_game=0, n_games=20_000)
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
    theirs = policy.play(small, "optimal", 5, 100, 500, seat=1)
    assert np.array_equal(ours.scores, theirs.scores)
    assert np.array_equal(ours.totals, theirs.totals)


def test_position_chances_say_when_many_sheets_lie_ahead(small: RuleSet, monkeypatch: pytest.MonkeyPatch) -> None:
    """From an early position the chances take seconds (every sheet ahead is valued): a note says so;
    near the end of a game, nothing."""
    dice = (1, 3, 3, 5, 6)
    early, late = Column((None,) * 6), Column((3, 6, None, 12, 15, 18))
    monkeypatch.setattr(C, "SAY_FROM_SHEETS", 4)
    for col, ahead in ((early, 63), (late, 0)):
        said: list[str] = []
        ev = hint(small, [col], dice, 1)
        C.position_chances(small, col, dice, 1, ev.options[:1], say=said.append)
        notes = [m for m in said if m.startswith("computing")]
        assert notes == ([f"computing the exact final-score distributions from this position ({ahead} sheets ahead)"]
                         if ahead else [])


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
    ev = hint(small, [col], dice, 2)
    ch = C.position_chances(small, col, dice, 2, ev.options[:4])
    for o, c in zip(ev.options[:4], ch, strict=True):
        assert c.dist.pmf.sum() == pytest.approx(1.0, abs=1e-9)
        assert c.dist.mean == pytest.approx(o.value, abs=1e-9)
    capped = C.position_chances(small, col, dice, 2, ev.options[:4], target=140)
    for c, k in zip(ch, capped, strict=True):
        assert k.at_least(140) == pytest.approx(c.at_least(140), abs=1e-12)
    boxes = hint(small, [col], dice, 0)
    for o, c in zip(boxes.options, C.position_chances(small, col, dice, 0, boxes.options), strict=True):
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
    return write_small_rules(tmp_path)


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
    # six boxes: exact play for the target fits in well under a second, so it answers
    assert out["method"] == "exact" and out["theta"] is None and out["objective"] == "maximise P(final >= 150)"
    probs = [row["probability"] for row in out["options"]]
    assert out["best"]["probability"] == max(probs) and out["by_theta"] == []
    # and it is at least as good as the best risk strategy, which answers where exact play would be slow
    small = rules_from_data(SMALL)
    col = Column.empty(small)
    ev = hint(small, [col], (1, 3, 3, 5, 6), 2)
    from yahtzee_cli.play.hint import play_for_target

    risk = play_for_target(small, col, ev, 150, exact=False)
    assert risk.method == "risk_strategies" and risk.best[1] in D.THETA_GRID
    assert risk.best[0] == max(p for _, _, p in risk.by_theta)
    assert out["best"]["probability"] >= risk.best[0] - 1e-12
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", f, "--distribution", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["exact"] is True and 0 < out["options"][0]["probability"] < 1
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", f, "--risk", "0.05"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    assert "E[exp(0.05 * final score)]" in r.stdout
    r = cli(["hint", "1", "3", "3", "5", "6", "--rules", "triple-yahtzee", "--distribution"])  # type: ignore[operator]
    assert r.exit_code == 2 and "exact table" in r.stderr  # (--target there is estimated: test_approximate_labels)


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


# --------------------------------------------------------------------------- analyze --risk

CHANCE_ONLY = {"boxes": [{"key": "chance", "kind": "chance"}],
               "settings": {"upper_bonus": 0, "extra_yahtzee_bonus": 0}}


def _die_ce(theta: float, values: list[float] | None = None) -> float:
    """Certainty equivalent of one fair die (or of `values` by face): log(mean exp(theta * x)) / theta."""
    xs = values if values is not None else [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    if theta == 0.0:
        return sum(xs) / 6
    return math.log(sum(math.exp(theta * x) for x in xs) / 6) / theta


def _chance_log() -> dict[str, object]:
    """One turn of a chance-only game: four 6s kept twice; at the last reroll the 4 is thrown again."""
    return {"format": "yahtzee-log/1", "rules": CHANCE_ONLY, "players": ["Di"],
            "turns": [{"player": "Di", "rolls": [[6, 6, 6, 6, 1], [6, 6, 6, 6, 4], [6, 6, 6, 6, 5]],
                       "held": [[6, 6, 6, 6], [6, 6, 6, 6]], "box": "chance"}]}


@pytest.mark.parametrize("theta", [-0.5, 0.0, 0.5])
def test_analyze_risk_grades_a_reroll_by_its_certainty_equivalent(theta: float) -> None:
    """Rerolling a 4 with one roll left is worth 24 + CE(die) against a sure 28: a loss of 0.5 at
    theta 0 (the die's mean is 3.5), more when avoiding risk (CE(die) = 2.82 at -0.5), none when
    seeking it (CE(die) = 4.18 at 0.5 beats the 4). With two rolls left a die is worth
    CE(max(x, CE(die))): the first keep (the four 6s) is best at every theta."""
    from yahtzee_cli.play.analyze import Analyzer, game_dict

    ga = Analyzer(theta=theta).game(_chance_log())
    first, second, box = ga.decisions
    c1 = _die_ce(theta)
    c2 = _die_ce(theta, [max(x, c1) for x in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)])
    assert first.kind == "keep" and first.regret == 0.0 and first.made.value == pytest.approx(24 + c2, abs=1e-9)
    assert second.made.keep == (6, 6, 6, 6)
    assert second.made.value == pytest.approx(24 + c1, abs=1e-9)
    assert second.best.value == pytest.approx(max(28.0, 24 + c1), abs=1e-9)
    assert second.regret == pytest.approx(max(4.0 - c1, 0.0), abs=1e-9)
    assert box.regret == 0.0 and box.made.value == 29
    out = game_dict(ga)
    assert out["exact"] is True and out["approximation"] is None
    assert out["risk"] == theta and out["objective"].startswith("maximise")
    losses = {t: Analyzer(theta=t).game(_chance_log()).decisions[1].regret for t in (-0.5, 0.5)}
    assert losses[-0.5] == pytest.approx(4.0 - _die_ce(-0.5)) and losses[-0.5] > 1.1 and losses[0.5] == 0.0


def test_analyze_risk_values_are_the_certainty_equivalents_of_the_exact_distribution(small: RuleSet) -> None:
    """Mid-game on the small rules: each option's risk value is the CE of the exact final-score
    distribution of that option followed by the risk strategy (an independent forward pass)."""
    theta = -0.05
    col = Column((None, None, 18, None, None, None))
    dice = (1, 3, 3, 5, 6)
    src = risk_source(small, theta)
    for left in (2, 0):
        ev = hint(small, [col], dice, left, source=src)
        ch = C.position_chances(small, col, dice, left, ev.options[:6], theta)
        for o, c in zip(ev.options[:6], ch, strict=True):
            x = c.dist.scores.astype(float)
            ce = math.log(float((c.dist.pmf * np.exp(theta * x)).sum())) / theta
            assert o.value == pytest.approx(ce, abs=1e-9)


def test_cli_analyze_risk_zero_grades_like_analyze(cli: object, tmp_path: Path) -> None:
    """--risk 0 is the ordinary grading (to 1e-9), saying so; the replay alias takes --risk too."""
    f = _rules_file(tmp_path)
    logs = tmp_path / "greedy.ndjson"
    r = cli(["simulate", "--rules", f, "-S", "greedy", "-n", "3", "--seed", "4", "-w", "1",  # type: ignore[operator]
             "--log-out", str(logs)])
    assert r.exit_code == 0, r.stderr
    plain = [orjson.loads(x) for x in cli(["analyze", str(logs), "--json"]).stdout.splitlines()]  # type: ignore[operator]
    r = cli(["analyze", str(logs), "--json", "--risk", "0"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    risk0 = [orjson.loads(x) for x in r.stdout.splitlines()]
    assert len(plain) == len(risk0) == 4  # three games and the totals
    for a, b in zip(plain, risk0, strict=True):
        assert "risk" not in a and b["risk"] == 0.0 and b["objective"] == "maximise the expected final score"
        assert b["exact"] is True and b["approximation"] is None
        if "decisions" in a:
            assert len(a["decisions"]) == len(b["decisions"]) > 10
            for da, db in zip(a["decisions"], b["decisions"], strict=True):
                assert abs(da["regret"] - db["regret"]) < 1e-9 and da["best"] == db["best"]
    assert sum(d["regret"] for d in plain[0]["decisions"]) > 0  # greedy play loses something
    r = cli(["replay", "--analyze", "--risk", "-0.05", str(logs)])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    assert "E[exp(-0.05 * final score)]" in r.stdout and "certainty equivalents" in r.stdout
    r = cli(["replay", "--risk", "0.05", str(logs)])  # type: ignore[operator]
    assert r.exit_code == 2 and "--analyze" in r.stderr
    r = cli(["analyze", "--risk", "0.05", str(logs)])  # type: ignore[operator]
    assert r.exit_code == 0 and "seeks variance" in r.stdout


def test_analyze_risk_needs_an_exact_table(cli: object, tmp_path: Path) -> None:
    log = tmp_path / "tri.json"
    log.write_bytes(orjson.dumps({"format": "yahtzee-log/1", "rules": "triple-yahtzee", "players": ["Ed"],
                                  "turns": [{"player": "Ed", "rolls": [[1, 2, 3, 4, 5]], "box": "chance",
                                             "column": 1}]}))
    r = cli(["analyze", "--risk", "0.05", str(log)])  # type: ignore[operator]
    assert r.exit_code == 1 and "exact table" in r.stderr


def test_cli_simulate_risk_writes_logs_that_validate_replay_and_grade_to_zero(cli: object, tmp_path: Path) -> None:
    """Risk games as logs (with held dice): validate accepts them, replay reproduces the simulated
    totals, and analyze --risk at the same theta finds no loss in them (at theta 0 it does)."""
    f = _rules_file(tmp_path)
    logs = tmp_path / "risk.ndjson"
    args = ["simulate", "--rules", f, "--risk", "0.05", "-n", "20", "--seed", "7", "-w", "1"]
    r = cli([*args, "--log-out", str(logs), "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    mean = orjson.loads(r.stdout)["seats"][0]["mean"]
    games = [orjson.loads(x) for x in logs.read_bytes().splitlines()]
    assert len(games) == 20 and all("held" in t for g in games for t in g["turns"] if len(t["rolls"]) > 1)
    r = cli(["validate", str(logs)])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    r = cli(["replay", str(logs), "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    totals = [g["standings"][0]["total"] for g in map(orjson.loads, r.stdout.splitlines()) if "standings" in g]
    assert len(totals) == 20 and sum(totals) / 20 == pytest.approx(mean, abs=1e-9)
    batch = D.play_risk(rules_from_data(SMALL), 0.05, 7, 0, 20)
    assert sorted(totals) == sorted(batch.totals.tolist())
    r = cli(["analyze", str(logs), "--risk", "0.05", "--json"])  # type: ignore[operator]
    assert r.exit_code == 0, r.stderr
    assert orjson.loads(r.stdout.splitlines()[-1])["players"][0]["expected_loss"] == 0.0
    r = cli(["analyze", str(logs), "--json"])  # type: ignore[operator]
    assert orjson.loads(r.stdout.splitlines()[-1])["players"][0]["expected_loss"] > 0.0


def test_with_passes_each_options_distribution_has_its_value() -> None:
    """must_zero off: a keep whose rerolls may end in a pass (nothing scores where the dice may go)
    comes back to the sheet's next turn, not to this keep: every option's pmf sums to 1 and has the
    option's expected value, over positions with one, two and three boxes open. (They had been
    scaled up as if the pass repeated the keep: with only Fours open and 1 2 3 4 6 showing, rerolling
    the 4 hoping for a pass had a mean of 35.0 against its value of 44.22.)"""
    rs = rules_from_data({**SMALL, "settings": {**SMALL["settings"], "must_zero": False}})
    checked = 0
    for scores, dice in (((None, 5, 6, 0, 0, 20), (1, 2, 3, 4, 6)), ((None, None, 6, 0, 0, 20), (1, 2, 3, 4, 5)),
                         ((None, 5, None, None, 0, 22), (1, 1, 2, 3, 4))):
        col = Column(scores=scores, yahtzee_bonus=0)
        for left in (2, 1):
            ev = hint(rs, [col], dice, left)
            opts = [o for o in ev.options if not o.is_pass]
            for o, c in zip(opts, C.position_chances(rs, col, dice, left, opts), strict=True):
                assert c.dist.pmf.sum() == pytest.approx(1.0, abs=1e-6)
                assert c.dist.mean == pytest.approx(o.value, abs=1e-4)
                checked += 1
    assert checked > 40
