"""What decisions cost in win probability (play.win_costs, in `analyze`): costs are never negative
and zero where the move made is one of the best for winning; a box's win chance is the chance from
the sheet it leaves against the opponents' sheets at that moment (solver.winning, another route);
the share of first place against brute force; the command's --json, --csv and text agree."""

from __future__ import annotations

import csv
import io
import itertools
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SMALL_RULES as SMALL  # six boxes: exact in well under a second

from yahtzee_cli.formats.jsonio import dumps, loads
from yahtzee_cli.formats.replay import random_log, replay_game, walk_steps
from yahtzee_cli.play.analyze import Analyzer
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import winning
from yahtzee_cli.solver.distribution import Distribution


@pytest.fixture
def small(small_short_early: R.RuleSet) -> R.RuleSet:
    return small_short_early


def _log(rules: R.RuleSet, seed: int, players: tuple[str, ...]) -> dict[str, Any]:
    log = random_log(rules, seed, players)
    log["rules"] = dict(SMALL)  # the rule set itself, in the log
    return log


def test_share_of_first_against_every_joint_outcome() -> None:
    """u(s): alone on top 1, tied with k others 1 / (k + 1), below someone 0, weighed over the
    opponents' joint outcomes."""
    rng = random.Random(3)
    for n_opp in (1, 2, 3):
        others = []
        for _ in range(n_opp):
            w = np.array([rng.random() for _ in range(5)])
            others.append(Distribution(w / w.sum(), rng.randint(0, 3)))
        u = winning.share_of_first(others, 9)
        supports = [[(d.lo + i, float(p)) for i, p in enumerate(d.pmf)] for d in others]
        for s in range(10):
            want = 0.0
            for combo in itertools.product(*supports):
                p = float(np.prod([c[1] for c in combo]))
                if all(c[0] <= s for c in combo):
                    want += p / (1 + sum(c[0] == s for c in combo))
            assert u[s] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("compiled", [False, True])
def test_win_costs_are_never_negative_and_a_box_is_worth_the_sheet_it_leaves(small: R.RuleSet,
                                                                             compiled: bool) -> None:
    for seed, players in ((1, ("Ann", "Ben")), (2, ("Ann", "Ben", "Cy"))):
        log = _log(small, seed, players)
        ga = Analyzer(compiled=compiled, wins=True).game(log)
        steps = {st.index: st for st in walk_steps(log)[0]}
        zero = boxes = 0
        for d in ga.decisions:
            w = d.win
            assert w is not None and 0.0 <= w.made <= w.best <= 1.0 + 1e-9
            assert w.cost >= 0.0
            if w.best_move == d.made or w.made == w.best:
                assert w.cost == 0.0
                zero += 1
            if d.kind == "box" and len(players) == 2 and not d.made.is_pass:
                # another route: the pmf of the sheet after the box, against the opponent's sheet now
                st = steps[d.index]
                after, _ = R.place(small, st.columns[0], d.made.box, d.dice)
                now = replay_game(log, until=d.index)
                opp = next(p.columns[0] for i, p in enumerate(now.players) if i != st.player)
                me, them = winning.win_chances([winning.final_pmf(small, after), winning.final_pmf(small, opp)])
                assert w.made == pytest.approx(me.win + me.tie / 2, abs=1e-6)
                boxes += 1
        assert zero > 0 and (boxes > 0 or len(players) > 2)
        by_player = {p.name: p.win_cost for p in ga.players}
        for name in players:
            assert by_player[name] == pytest.approx(sum(d.win.cost for d in ga.decisions
                                                        if d.player == name and d.win is not None), abs=1e-12)


def _oracle(rules: R.RuleSet, log: dict[str, Any], an: Analyzer, d: Any,
            memo: dict[Any, float]) -> tuple[float, list[tuple[Any, float]]]:
    """Another route to a decision's win chances, in plain Python: the policy's moves from
    strategy.turn.Turn, every reroll's outcomes enumerated, each box worth its sheet's final pmf
    (winning.final_pmf; a pass the sheet's own, the same turn again) against u from each opponent's
    final pmf where they stand: (the chance after the move made, every option with its chance)."""
    st = next(s for s in walk_steps(log)[0] if s.index == d.index)
    col = st.columns[0]
    now = replay_game(log, until=d.index)
    others = [winning.final_pmf(rules, p.columns[0]) for i, p in enumerate(now.players) if i != st.player]
    u = winning.share_of_first(others, max(o.lo + len(o.pmf) for o in others))
    tn = an.turn(rules, st.columns, st.saved)

    def chance(c: R.Column) -> float:
        dist = winning.final_pmf(rules, c)
        pm = np.zeros(max(dist.lo + len(dist.pmf), len(u)))
        pm[dist.lo: dist.lo + len(dist.pmf)] = dist.pmf
        return float(np.dot(pm[:len(u)], u) + pm[len(u):].sum()) / float(pm.sum())

    def option(o: Any, dice: tuple[int, ...], left: int) -> float:
        if o.is_pass:
            return chance(col)
        if o.keep is None:
            return chance(R.place(rules, col, o.box, dice)[0])
        if len(o.keep) == len(dice):  # a stop: the policy's box
            return policy(dice, 0)
        n = len(dice) - len(o.keep)
        total = 0.0
        for rest in itertools.product(range(1, 7), repeat=n):
            total += policy(tuple(sorted(o.keep + rest)), left - 1)
        return total / 6 ** n

    def policy(dice: tuple[int, ...], left: int) -> float:
        key = (d.index, dice, left)
        if key not in memo:
            memo[key] = option(tn.evaluate(dice, left).best, dice, left)
        return memo[key]

    every = [(o, option(o, d.dice, d.rolls_left)) for o in tn.evaluate(d.dice, d.rolls_left).options]
    m = d.made
    if d.kind == "keep" and len(m.keep) == len(d.dice):  # kept every die, rolled again
        return policy(d.dice, d.rolls_left - 1), every
    if m.keep is not None:
        return next(v for o, v in every if o.keep == tuple(sorted(m.keep))), every
    return next(v for o, v in every if o.is_pass == m.is_pass and o.box == m.box), every


@pytest.mark.parametrize(("settings", "players"), [({}, ("Ann", "Ben")), ({}, ("Ann", "Ben", "Cy", "Di")),
                                                   ({"must_zero": False}, ("Ann", "Ben", "Cy")),
                                                   ({"joker": "free", "extra_yahtzee_bonus": 100}, ("Ann", "Ben"))])
def test_every_decision_agrees_with_each_options_final_pmf(small: R.RuleSet, settings: dict[str, Any],
                                                             players: tuple[str, ...]) -> None:
    """The compiled grader's chances (one call a game, over every state's stored pmf) against each
    option's own final pmf and u from the opponents' sheets: the move made's and the best's within
    1e-6 (float32 storage), the best move's own chance the best, none above it; with 2 and 4 players,
    passes, a free joker and extra Yahtzee bonuses."""
    data = {**SMALL, "settings": {**SMALL["settings"], **settings}}
    rules = R.rules_from_data(data)
    an = Analyzer(wins=True, compiled=True)
    checked = costly = 0
    for seed in (11, 12):
        memo: dict[Any, float] = {}  # the policy's chances of a game's turns
        log = random_log(rules, seed, players)
        log["rules"] = data
        ga = an.game(log)
        for d in ga.decisions[seed % 2::2]:
            w = d.win
            assert w is not None
            made, every = _oracle(rules, log, an, d, memo)
            best = max(v for _, v in every)
            assert w.made == pytest.approx(made, abs=1e-6) and w.best == pytest.approx(best, abs=1e-6)
            if w.best_move is not None:
                assert next(v for o, v in every if o.move_dict(rules) == w.best_move.move_dict(rules)) == \
                    pytest.approx(best, abs=1e-6)
            checked += 1
            costly += w.cost > 1e-4
    assert checked > 30 and costly > 3


def test_solo_games_have_no_win_costs(small: R.RuleSet) -> None:
    ga = Analyzer(wins=True).game(_log(small, 4, ("Solo",)))
    assert all(d.win is None for d in ga.decisions) and ga.players[0].win_cost is None


def test_analyze_json_csv_text_and_plot_agree(small: R.RuleSet, cli: Any, tmp_path: Path) -> None:
    """A two-player game and a solo one: the win chances and costs, luck and skill the same in
    --json, --csv and the text table (the plot: tests/formats/test_plot.py)."""
    path = tmp_path / "games.ndjson"
    path.write_bytes(dumps(_log(small, 5, ("Ann", "Ben"))) + b"\n" + dumps(_log(small, 6, ("Solo",))) + b"\n")
    js = cli(["analyze", str(path), "--json", "-w", "1"])
    assert js.exit_code == 0, js.stderr
    *games, _ = [loads(line) for line in js.stdout.splitlines()]
    rows = list(csv.DictReader(io.StringIO(cli(["analyze", str(path), "--csv", "-w", "1"]).stdout)))
    text = cli(["analyze", str(path), "-v", "-w", "1"]).stdout
    assert [r["player"] for r in rows] == ["Ann", "Ben", "Solo"]
    flat = [p for g in games for p in g["players"]]
    for row, p in zip(rows, flat, strict=True):
        assert row["luck"] == str(p["luck"]) and row["expected_loss"] == str(p["expected_loss"])
        assert row["win_cost"] == ("" if p["win_cost"] is None else str(p["win_cost"]))
    two = games[0]
    for p in two["players"]:
        assert p["win_cost"] == pytest.approx(sum(d["win_cost"] for d in two["decisions"] if d["player"] == p["name"]),
                                              abs=1e-5)
        # the text table's line for the player: luck, loss and the win probability lost
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [p["name"]] and "turn " in ln)
        assert f"{p['luck']:+.4f}" in line and f"{p['expected_loss']:.4f}" in line
        assert f"{100 * p['win_cost']:.2f} pp" in line
    assert all(d["win_probability"] is None and d["win_cost"] is None for d in games[1]["decisions"])
    assert games[1]["players"][0]["win_cost"] is None
    off = cli(["analyze", str(path), "--json", "--no-win", "-w", "1"])  # left out: the rest unchanged
    *plain, _ = [loads(line) for line in off.stdout.splitlines()]
    assert off.exit_code == 0 and all(d["win_cost"] is None for g in plain for d in g["decisions"])
    assert [p["luck"] for p in plain[0]["players"]] == [p["luck"] for p in two["players"]]



def test_estimated_win_costs_agree_with_the_exact_ones(small: R.RuleSet) -> None:
    """The estimated route (games played on after each option, the opponents' from their sheets) on
    a rule set that also has the exact one: every decision's chance after the move made within four
    of its largest standard errors (0.5 / sqrt(games)) of the exact chance, costs never negative, a
    cost counted only with its standard error, and the players' totals their decisions' sums."""
    from yahtzee_cli.play.win_costs import estimated_win_costs

    games = 2000
    an = Analyzer(wins=True, compiled=True)
    log = _log(small, 7, ("Ann", "Ben"))
    ga = an.game(log)
    steps = walk_steps(log)[0]
    est = estimated_win_costs(small, log, steps, ga.decisions, an.turn, games=games, screen=games)
    assert len(est) == len(ga.decisions) > 20
    worst = 0.0
    for d, e in zip(ga.decisions, est, strict=True):
        assert d.win is not None and d.win.se is None  # (exact)
        worst = max(worst, abs(e.made - d.win.made))
        assert 0.0 <= e.made <= e.best <= 1.0 and e.cost >= 0.0 and e.se is not None
        assert (e.best_move is None) == (e.cost == 0.0) and (e.cost == 0.0 or e.cost > 2 * e.se)
    assert worst <= 4 * 0.5 / games ** 0.5
    assert any(e.cost > 0 for e in est)
    # screened (the first 500 games of each option, all 2,000 only where another option looks ahead):
    # a cost it counts is the full run's, on the same dice; fewer decisions go on to all the games
    screened = estimated_win_costs(small, log, steps, ga.decisions, an.turn, games=games, screen=500)
    assert any(e.cost > 0 for e in screened)
    for s, e in zip(screened, est, strict=True):
        if s.cost > 0:
            assert (s.made, s.best, s.se) == (e.made, e.best, e.se)


def test_analyze_estimates_win_costs_where_there_are_no_exact_distributions(small: R.RuleSet, cli: Any,
                                                                             tmp_path: Path) -> None:
    """A two-column sheet has no exact distributions: analyze still values its games in win
    probability, estimated, says so (the game's `estimates`, each cost's `win_cost_se`, the players'
    `win_cost_se`; "±" in the text), and the players' costs are their decisions' sums."""
    data = {**SMALL, "settings": {**SMALL["settings"], "columns": 2}}
    log = random_log(R.rules_from_data(data), 8, ("Ann", "Ben"))
    log["rules"] = data
    path = tmp_path / "two.json"
    path.write_bytes(dumps(log))
    js = cli(["analyze", str(path), "--json", "-w", "1"])
    assert js.exit_code == 0, js.stderr
    game = loads(js.stdout.splitlines()[0])
    assert game["exact"] is False and {"win_probability", "win_cost", "win_best"} <= set(game["estimates"])
    for p in game["players"]:
        mine = [d for d in game["decisions"] if d["player"] == p["name"]]
        assert all(d["win_cost"] is not None and d["win_cost_se"] is not None for d in mine)
        assert p["win_cost"] == pytest.approx(sum(d["win_cost"] for d in mine), abs=1e-5)
        assert p["win_cost_se"] == pytest.approx(sum(d["win_cost_se"] ** 2 for d in mine) ** 0.5, abs=1e-5)
    text = cli(["analyze", str(path), "-w", "1"]).stdout
    assert " ± " in text and "Estimated (no exact score distributions" in text
