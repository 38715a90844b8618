"""`simulate` with the solver's strategies: optimal on yahtzee agrees with the exact expected score,
greedy and matches are sane, logs validate and replay, results never depend on workers or backend."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play import simulate as S
from yahtzee_cli.rules import engine as R

solver = pytest.importorskip("yahtzee_cli.solver.policy")

EXPECTED = 254.5877287  # published: optimal solitaire Yahtzee, official forced joker
EXPECTED_SD = 59.6076
N = 40_000


@pytest.fixture(scope="module")
def optimal_run() -> S.Report:
    return S.simulate(R.preset("yahtzee"), ["optimal"], N, 2024)


def test_optimal_mean_within_three_standard_errors(optimal_run: S.Report) -> None:
    assert optimal_run.to_dict()["games"] == N
    s = optimal_run.to_dict()["seats"][0]
    assert abs(s["mean"] - EXPECTED) < 3 * s["sem"], (s["mean"], s["sem"])


def test_report_figures_against_the_game_totals(optimal_run: S.Report) -> None:
    """The same games played directly (game g draws stream (seed, g, 0) either way), summed by numpy:
    mean and SD as numpy gives them, and the SEM against a second method, the spread of the means of
    40 batches of 1,000 games (SD of batch means / sqrt(40); that estimate is good to about 11%)."""
    s = optimal_run.to_dict()["seats"][0]
    totals = solver.play(R.preset("yahtzee"), "optimal", 2024, 0, N).totals.astype(np.float64)
    assert s["mean"] == pytest.approx(totals.mean(), abs=1e-9)
    assert s["sd"] == pytest.approx(totals.std(ddof=1), rel=1e-9)
    batch_means = totals.reshape(40, N // 40).mean(axis=1)
    assert s["sem"] == pytest.approx(batch_means.std(ddof=1) / math.sqrt(40), rel=0.35)


def test_optimal_sd_and_rates_close_to_the_solver(optimal_run: S.Report) -> None:
    s = optimal_run.to_dict()["seats"][0]
    assert abs(s["sd"] - EXPECTED_SD) < 1.5  # the SD's own standard error here is about 0.4
    assert abs(s["p_upper_bonus"] - 0.68) < 0.02  # published: about 68%
    assert abs(s["p_yahtzee"] - 0.34) < 0.02  # published: about 34%
    assert s["mean_extra_bonus"] > 0


def test_solver_batch_totals_are_the_rules_totals() -> None:
    rules = R.preset("yahtzee")
    b = S.play(rules, "optimal", 3, 0, 200)
    for g in range(0, 200, 17):
        cols = [R.Column(tuple(int(v) for v in b.scores[g, 0]), int(b.yahtzee_bonus[g, 0]))]
        assert int(b.totals[g]) == R.sheet_total(rules, cols)


def test_greedy_is_sane_and_worse_than_optimal() -> None:
    s = S.simulate(R.preset("yahtzee"), ["greedy"], 10_000, 5).to_dict()["seats"][0]
    assert 205 < s["mean"] < 230  # Glenn 2006: greedy 218.05 +- 46.87
    assert s["mean"] < EXPECTED - 20


def test_match_optimal_beats_greedy_and_random() -> None:
    rep = S.simulate(R.preset("yahtzee"), ["optimal", "greedy", "random"], 3000, 9).to_dict()
    opt, greedy, rnd = rep["seats"]
    assert opt["win_rate"] > greedy["win_rate"] > rnd["win_rate"]
    assert rnd["wins"] <= 3  # random hardly ever wins against those two
    # each seat plays the very games it plays alone
    assert opt["mean"] == pytest.approx(S.play(R.preset("yahtzee"), "optimal", 9, 0, 3000).totals.mean())


def test_optimal_results_identical_whatever_workers_and_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same figures whatever runs the games and wherever the chunks split them: the default plan (chunks
    of 100 games) against chunks of 37 (boundaries elsewhere, threads and Dask) and one single batch."""
    rules = R.preset("yatzy")
    one = S.simulate(rules, ["optimal", "greedy"], 1500, 77, workers=1).to_dict()
    threads = S.simulate(rules, ["optimal", "greedy"], 1500, 77, workers=2).to_dict()
    procs = S.simulate(rules, ["optimal", "greedy"], 1500, 77, workers=2, processes=True).to_dict()
    assert one == threads == procs
    plans: list[list[tuple[int, int]]] = []

    def odd_plan(games: int, workers: int, record_limit: int | None = None, slow: bool = False,
                 per_worker: int = 20):
        plan = [(g, min(37, games - g)) for g in range(0, games, 37)]
        plans.append(plan)
        return iter(plan)

    monkeypatch.setattr(S, "chunk_plan", odd_plan)
    odd = S.simulate(rules, ["optimal", "greedy"], 1500, 77, workers=2).to_dict()
    on_dask = S.simulate(rules, ["optimal", "greedy"], 1500, 77, workers=2, backend="dask",
                         processes=False).to_dict()
    assert len(plans) == 2 and len(plans[0]) == 41  # 40 chunks of 37 and one of 20
    assert odd == one and on_dask == one
    for seat, strategy in enumerate(("optimal", "greedy")):
        whole = S.play(rules, strategy, 77, 0, 1500, seat=seat).totals  # one batch, no boundary at all
        assert one["seats"][seat]["mean"] == pytest.approx(whole.mean(), abs=1e-9)


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "forced-yatzy"])
def test_optimal_logs_validate_and_replay(name: str) -> None:
    from yahtzee_cli.formats import validate

    rules = R.preset(name)
    logs: list[bytes] = []
    S.simulate(rules, ["optimal", "greedy"], 40, 3, workers=1, log_sink=logs.append)
    reports = list(validate.validate_stream(io.BytesIO(b"".join(logs))))
    assert len(reports) == 40 and all(r.valid and r.finished for r in reports), reports[0].problems
    from yahtzee_cli.formats.replay import replay_game

    replayed = np.array([[p.total for p in replay_game(loads(line)).players] for line in b"".join(logs).splitlines()])
    for seat, strategy in enumerate(("optimal", "greedy")):
        assert replayed[:, seat].tolist() == S.play(rules, strategy, 3, 0, 40, seat=seat).totals.tolist()


def test_cli_optimal_json(cli) -> None:
    r = cli(["simulate", "-n", "2000", "--seed", "1", "--json"])  # optimal is the default
    assert r.exit_code == 0, r.stderr
    data = loads(r.stdout)
    assert data["players"] == ["optimal"] and data["games"] == 2000
    (seat,) = data["seats"]
    assert abs(seat["mean"] - EXPECTED) < 4 * seat["sem"]


@pytest.mark.parametrize(("name", "overrides"), [("yatzy", {"must_zero": False}), ("triple-yahtzee", {}),
                                                 ("maxi-yatzy", {})])
def test_greedy_logs_validate_under_passes_columns_and_saved_rolls(name: str, overrides: dict) -> None:
    from yahtzee_cli.formats.replay import replay_game

    rules = R.preset(name, overrides)
    logs: list[bytes] = []
    S.simulate(rules, ["greedy"], 30, 6, workers=1, log_sink=logs.append)
    lines = b"".join(logs).splitlines()
    totals = [replay_game(loads(line)).players[0].total for line in lines]
    assert totals == S.play(rules, "greedy", 6, 0, 30).totals.tolist()


def test_optimal_is_labelled_approximate_where_no_exact_table_exists(cli) -> None:
    exact = loads(cli(["simulate", "-n", "100", "--seed", "1", "--json", "-r", "yatzy"]).stdout)
    assert exact["exact"] is True and exact["approximation"] is None
    r = cli(["simulate", "-n", "100", "--seed", "1", "-r", "triple-yahtzee"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("triple-yahtzee, optimal (approximate: no exact table with 3 columns): ")
    match = loads(cli(["simulate", "-n", "100", "--seed", "1", "--json", "-r", "triple-yahtzee",
                       "--players", "optimal,greedy"]).stdout)
    assert match["seats"][0]["exact"] is False and match["seats"][1]["exact"] is None  # greedy plays no table
    assert match["seats"][0]["approximation"] == "no exact table with 3 columns" == match["approximation"]
    assert match["seats"][1]["approximation"] is None
