"""The `to-win` seat of `simulate --players` (play.to_win): the opponents' distributions it reads,
the turn it plays for first place early (optimal play after it), the exact play it makes late, the
games it plays (reproducible, legal, on its own dice streams, leaving the other seats' games as they
are), on the six-box rules."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from conftest import SMALL_RULES, write_small_rules

from yahtzee_cli.errors import StrategyError
from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.formats.validate import validate_stream
from yahtzee_cli.play import hint as H
from yahtzee_cli.play import simulate as S
from yahtzee_cli.play import strategies as ST
from yahtzee_cli.play import to_win as TW
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import policy, utility, winning

SMALL = R.rules_from_data(SMALL_RULES)


def _sheets(seed: int, game: int = 0) -> list[R.Column]:
    """An optimal game's column before each turn and at the end."""
    b = policy.play(SMALL, "optimal", seed, game, 1, record=True, threads=1)
    return [cols[0] for cols in TW.sheets_by_turn(SMALL, b, 0)]


def test_opponents_distributions_are_the_exact_ones() -> None:
    me = TW.player(SMALL)
    for col in _sheets(3):
        d, e = me.final(col), winning.final_pmf(SMALL, col)
        x = np.zeros(2000)
        x[d.lo: d.lo + len(d.pmf)] += d.pmf
        x[e.lo: e.lo + len(e.pmf)] -= e.pmf
        assert np.abs(x).max() < 1e-6


def _next_column(col: R.Column, dice: tuple[int, ...], box: int) -> R.Column:
    return R.place(SMALL, col, box, dice, 0)[0]


@pytest.mark.parametrize(("seed", "turns"), [(4, 0), (11, 1), (12, 2)])
def test_early_turns_look_one_turn_ahead(seed: int, turns: int) -> None:
    """With more than EXACT_OPEN boxes open the seat plays this turn for its share of first place,
    optimal play after it: a box's value is the share of first place over the final-score pmf of
    optimal play from the sheet it leaves (computed here by a pass of its own), and the move chosen
    is the best of them."""
    me = TW.player(SMALL)
    mine, theirs = _sheets(seed)[turns], _sheets(seed + 50)[turns + 1]
    assert sum(v is None for v in mine.scores) > TW.EXACT_OPEN
    plan = me.plan(mine, [theirs])
    assert plan.method == "lookahead"
    u = winning.share_of_first([winning.final_pmf(SMALL, theirs)], 1000)
    for dice in [(1, 3, 3, 5, 6), (2, 2, 2, 2, 6), (1, 2, 3, 4, 5)]:
        ev = H.hint(SMALL, [mine], dice, 0)
        boxes = [o for o in ev.options if o.box is not None]
        got = plan.solved.values(dice, 0, boxes)
        for o, v in zip(boxes, got, strict=True):
            d = winning.final_pmf(SMALL, _next_column(mine, dice, o.box))
            want = float(np.dot(d.pmf, u[np.clip(np.arange(d.lo, d.lo + len(d.pmf)), 0, 1000)]))
            assert v == pytest.approx(want, abs=2e-5)  # (float32 pmfs, and u within TAIL of its top)
        best = me.choose(plan, mine, dice, 0)
        assert got[boxes.index(best)] == pytest.approx(max(got), abs=1e-12)


def test_lookahead_of_the_expected_score_is_the_optimal_turn() -> None:
    """For u linear in the total, one turn ahead on optimal play's pmfs values every option at its
    expected final total: the values strategy.turn gives from the exact table."""
    me = TW.player(SMALL)
    hi = 2000
    u = np.arange(hi + 1) / hi
    for col in _sheets(21)[:3]:
        sol = utility.solve_turn(SMALL, col, u, me.pmfs.at)
        for dice, left in [((1, 3, 3, 5, 6), 2), ((4, 4, 4, 6, 6), 1), ((1, 1, 2, 5, 6), 0)]:
            opts = [o for o in H.hint(SMALL, [col], dice, left).options if not o.is_pass]
            got = sol.values(dice, left, opts)
            assert [g * hi for g in got] == pytest.approx([o.value for o in opts], abs=1e-3)


@pytest.mark.parametrize(("seed", "turns"), [(5, 3), (6, 4), (7, 5)])
def test_late_turns_play_exactly_to_win(seed: int, turns: int) -> None:
    me = TW.player(SMALL)
    mine, theirs = _sheets(seed)[turns], _sheets(seed + 100)[turns]
    plan = me.plan(mine, [theirs])
    assert plan.method == "exact"
    opp = [winning.final_pmf(SMALL, theirs)]
    for dice, rolls_left in [((1, 3, 3, 5, 6), 2), ((2, 4, 4, 6, 6), 1), ((5, 5, 5, 6, 6), 0)]:
        got = me.choose(plan, mine, dice, rolls_left)
        ev = H.hint(SMALL, [mine], dice, rolls_left)
        want = H.play_to_win(SMALL, mine, ev, opp, exact=True)  # what `hint --to-win` ranks first
        vals = dict(want.ranked)
        assert vals[got] == pytest.approx(want.best[0], abs=2e-5)  # (within TAIL: the same chance)


def test_seats_see_the_others_as_they_stand() -> None:
    hist = {0: [[c] for c in _sheets(8)], 2: [[c] for c in _sheets(9)]}
    mine = {1: R.Column.empty(SMALL)}
    assert TW._standing(mine, hist, 0, 1, 2) == hist[0][3][0]  # seat 1 has played its turn 3 (t = 2)
    assert TW._standing(mine, hist, 2, 1, 2) == hist[2][2][0]  # seat 3 has not
    assert TW._standing(mine, hist, 2, 1, 99) == hist[2][-1][0]
    assert TW._standing(mine, hist, 1, 0, 2) is mine[1]


def test_match_games_are_reproducible_legal_and_leave_the_other_seat_alone() -> None:
    logs: list[bytes] = []
    rep = S.simulate(SMALL, ["optimal", "to-win"], 40, 5, workers=1, log_sink=logs.append)
    again = S.simulate(SMALL, ["optimal", "to-win"], 40, 5, workers=1)
    assert orjson.dumps(rep.to_dict()["seats"]) == orjson.dumps(again.to_dict()["seats"])
    data = b"".join(logs)
    reports = list(validate_stream(io.BytesIO(data)))
    assert len(reports) == 40 and all(r.valid and r.finished for r in reports)
    b = S.play_match(SMALL, ["optimal", "to-win"], 5, 0, 40, record=True, threads=1)
    assert b[0].totals.tolist() == policy.play(SMALL, "optimal", 5, 0, 40, seat=0, threads=1).totals.tolist()
    # the to-win seat rolls its own stream: its first roll of each game is anyone's first roll there
    assert b[1].rolls is not None
    first = ST.random_play(SMALL, 5, 0, 40, seat=1, record=True)
    assert first.rolls is not None and (b[1].rolls[:, 0, 0] == first.rolls[:, 0, 0]).all()
    seats = rep.to_dict()["seats"]
    assert seats[1]["wins"] == int((b[1].totals > b[0].totals).sum())
    assert seats[1]["ties"] == int((b[1].totals == b[0].totals).sum())
    assert seats[1]["mean"] == pytest.approx(float(b[1].totals.mean()))
    assert rep.to_dict()["exact"] is True and "chance to win" in seats[1]["objective"]


def test_a_first_match_builds_one_file_of_distributions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat's first match on an empty cache builds the exact table and one file of every
    position's pmfs under optimal play: no risk strategy and no pmfs under one."""
    from yahtzee_cli.solver import state_pmfs

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(TW, "_players", {})
    monkeypatch.setattr(state_pmfs, "_memo", {})
    S.simulate(SMALL, ["optimal", "to-win"], 3, 1, workers=1)
    tables = sorted(p.name.split("-")[0] for p in tmp_path.glob("*.tbl"))
    assert tables == ["exact", "states0"]


def test_to_win_needs_a_match_and_an_exact_table_without_passes() -> None:
    with pytest.raises(StrategyError, match="other seats of a match"):
        S.simulate(SMALL, ["to-win"], 10, 1, workers=1)
    with pytest.raises(StrategyError, match="needs an exact table"):
        S.check_strategy("to-win", R.preset("yahtzee", {"columns": 3}))
    with pytest.raises(StrategyError, match="must_zero"):
        S.check_strategy("to-win", R.rules_from_data(SMALL_RULES, {"must_zero": False}))
    assert S.check_strategy(" To-Win ", SMALL) == "to-win"
    with pytest.raises(StrategyError, match="did you mean 'to-win'"):
        S.check_strategy("to-wi")


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def small_file(tmp_path: Path) -> str:
    return write_small_rules(tmp_path)


def test_cli_match_of_to_win(cli: Any, small_file: str) -> None:
    args = ["simulate", "--rules", small_file, "--players", "to-win,optimal", "-n", "30", "--seed", "2", "-w", "1"]
    r = cli([*args, "--json"])
    assert r.exit_code == 0, r.stderr
    data = loads(r.stdout)
    seat = data["seats"][0]
    assert seat["strategy"] == "to-win" and seat["exact"] is True and "chance to win" in seat["objective"]
    assert data["seats"][0]["wins"] + data["seats"][1]["wins"] + seat["ties"] == 30
    text = cli(args)
    assert text.exit_code == 0 and "to-win" in text.stdout and "wins" in text.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-S", "to-win"], "plays against the other seats of a match"),
        (["--players", "to-win,optimal", "--set", "must_zero=off"], "needs must_zero on"),
        (["--players", "to-win,optimal", "--set", "columns=3"], "needs an exact table"),
    ],
)
def test_cli_to_win_errors(cli: Any, small_file: str, args: list[str], message: str) -> None:
    r = cli(["simulate", "--rules", small_file, "-n", "5", *args])
    assert r.exit_code == 2, r.stdout
    assert r.stderr.startswith("yahtzee: error: ") and message in r.stderr and len(r.stderr.splitlines()) == 1
