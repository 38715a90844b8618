"""Luck and skill add up: for every graded game, each player's actual total is the expected total
at the start plus their luck minus their skill cost, whatever the play (random moves here, which
make both large), and the turning point is the largest single move of the expected total."""

from __future__ import annotations

import pytest

from yahtzee_cli.formats.replay import random_log, replay_game
from yahtzee_cli.play import luck
from yahtzee_cli.play.analyze import Analyzer
from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy.sources import column_state


@pytest.mark.parametrize(("preset", "seed"), [("yahtzee", 1), ("yahtzee", 2), ("yatzy", 3), ("kniffel", 4)])
def test_actual_total_is_start_plus_luck_minus_skill(preset: str, seed: int) -> None:
    log = random_log(preset, seed, ("Ann", "Ben", "Cy"))
    an = Analyzer()
    ga = an.game(log)
    start = luck.start_value(ga.rules, an.source(ga.rules))
    empty = R.Column.empty(ga.rules)
    assert start == pytest.approx(an.source(ga.rules).value(column_state(ga.rules, empty)), abs=1e-6)  # exact table
    players, lucks = luck.split(ga.decisions, start, [p.name for p in ga.players])
    assert len(lucks) == len(ga.decisions)
    for p, r in zip(players, replay_game(log).players, strict=True):
        assert r.total == pytest.approx(p.start + p.luck - p.skill_cost, abs=1e-6)
        assert p.skill_cost == pytest.approx(sum(d.regret for d in ga.decisions if d.player == p.name), abs=1e-9)
        mine = [(lk, d) for lk, d in zip(lucks, ga.decisions, strict=True) if d.player == p.name]
        biggest = max([abs(lk) for lk, _ in mine] + [d.regret for _, d in mine])
        assert p.turning_point is not None and abs(p.turning_point.points) == pytest.approx(biggest)


def test_a_game_in_progress_ends_at_its_expected_total() -> None:
    log = random_log("yahtzee", 5, ("Ann", "Ben"), turns=9)
    an = Analyzer()
    ga = an.game(log)
    start = luck.start_value(ga.rules, an.source(ga.rules))
    players, _ = luck.split(ga.decisions, start, ["Ann", "Ben"])
    last = {d.player: d.made.value for d in ga.decisions}
    for p in players:
        assert p.end == last[p.name] == pytest.approx(p.start + p.luck - p.skill_cost, abs=1e-6)
