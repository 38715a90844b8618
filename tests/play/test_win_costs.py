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

