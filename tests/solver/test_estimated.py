"""Win chances estimated from games played on (solver.estimated), checked where exact ones exist: the
estimate of a Yahtzee position lies within 3 of its standard errors of the exact chances, and the
standard error is not an understatement (the batch means' error against the estimate's real spread)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import SAVED_RULES

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import estimated, winning


def _sheet(rules: R.RuleSet, rng: random.Random, turns: int) -> R.Column:
    col = R.Column.empty(rules)
    for _ in range(turns):
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
        col, _ = R.place(rules, col, rng.choice(R.options(rules, [col], dice)).box, dice)
    return col


@pytest.mark.parametrize("turns", [4, 9])
def test_estimated_chances_agree_with_the_exact_ones(turns: int) -> None:
    rules = R.preset("yahtzee")
    rng = random.Random(turns)
    cols = [_sheet(rules, rng, turns - (i == 2)) for i in range(3)]
    exact = winning.game_chances(rules, cols)
    est = estimated.estimated_chances(rules, [[c] for c in cols], games=4000)
    assert est.games == 4000
    for e, x in zip(est.players, exact, strict=True):
        assert 0 < e.win_se < 0.02
        assert abs(e.win - x.win) < 3 * e.win_se + 1e-9, (e, x)
        assert abs(e.tie - x.tie) < 3 * max(e.tie_se, 1e-4) + 1e-9, (e, x)


def test_the_standard_error_is_not_an_understatement() -> None:
    """Ten estimates on ten disjoint sets of dice: their spread is about the error each one states."""
    rules = R.preset("yahtzee")
    rng = random.Random(5)
    cols = [[_sheet(rules, rng, 6)] for _ in range(2)]
    wins, ses = [], []
    for k in range(10):
        totals = [estimated.final_totals(rules, c, 0, i, 1000 * k, 1000) for i, c in enumerate(cols)]
        e = estimated.chances_of(totals)[0]
        wins.append(e.win)
        ses.append(e.win_se)
    spread = float(np.std(wins, ddof=1))
    assert spread < 1.6 * float(np.mean(ses))  # a stated error far below the real one would fail here
    assert float(np.mean(ses)) < 3 * spread  # ... and one far above it (nothing learnt from the dice)


def test_more_games_are_played_until_the_error_is_small_enough() -> None:
    rules = R.preset("yahtzee")
    cols = [[R.Column.empty(rules)] for _ in range(4)]
    est = estimated.estimated_chances(rules, cols)
    assert est.games >= estimated.START_GAMES
    assert max(e.win_se for e in est.players) <= 0.01
    assert 0.97 < sum(e.win for e in est.players) <= 1.0  # (the rest: ties for first)


def test_rolls_saved_count_in_the_games_played_on() -> None:
    """A stock of saved rolls is worth points: the games from the same sheet score more with it (two
    boxes filled: a sheet can hold up to 4 saved)."""
    rules = R.rules_from_data(SAVED_RULES)
    sheet = [R.Column((10, 12, None, None))]
    none = estimated.final_totals(rules, sheet, 0, 0, 0, 4000)
    some = estimated.final_totals(rules, sheet, 3, 0, 0, 4000)
    assert some.mean() > none.mean() + 3 * np.hypot(none.std(), some.std()) / np.sqrt(4000)


def test_a_full_sheet_is_its_total() -> None:
    rules = R.preset("yatzy")
    col = R.Column(tuple(min(3 * (b + 1), 30) for b in range(len(rules.boxes))))
    t = estimated.final_totals(rules, [col], 0, 0, 0, 10)
    assert (t == R.sheet_total(rules, [col])).all()


@pytest.mark.parametrize(("dice", "rolls_used"), [((6, 6, 6, 2, 1), 1), ((1, 2, 3, 4, 6), 2), ((5, 5, 5, 5, 3), 3)])
def test_games_from_the_dice_showing_score_what_the_hint_says(dice: tuple[int, ...], rolls_used: int) -> None:
    """Games played on from a turn under way (the dice showing after some rolls, the strategy's keep
    or one forced) average the exact value the hint gives that option: the opening turn starts from
    those dice, and a forced keep is the one rerolled."""
    from yahtzee_cli.play.hint import hint
    from yahtzee_cli.solver.exact import Opening

    rules = R.preset("yahtzee")
    col = _sheet(rules, random.Random(len(dice) + rolls_used), 5)
    ev = hint(rules, [col], dice, 3 - rolls_used)
    keeps = [o for o in ev.options if o.keep is not None and len(o.keep) < len(dice)][:2]
    for keep, value in [(None, ev.best.value)] + [(o.keep, o.value) for o in keeps]:
        if keep is not None and rolls_used == 3:
            continue
        t = estimated.final_totals(rules, [col], 0, 0, 0, 20_000, opening=Opening(dice, rolls_used, keep))
        se = float(t.std()) / np.sqrt(len(t))
        assert abs(float(t.mean()) - value) < 3.5 * se, (keep, t.mean(), value, se)


def test_every_kind_of_option_is_played_on_as_the_hint_values_it() -> None:
    """play.estimated_play's games after each option (a reroll, stopping with rolls left, a box) average
    the exact expected score the hint gives that option: the option is the one played."""
    from yahtzee_cli.play.estimated_play import option_totals
    from yahtzee_cli.play.hint import hint

    rules = R.preset("yahtzee")
    col = _sheet(rules, random.Random(11), 4)
    for dice, left in (((2, 2, 5, 5, 5), 1), ((3, 4, 5, 6, 6), 0)):
        ev = hint(rules, [col], dice, left)
        for o in ev.options[:4]:
            t = option_totals(rules, [col], 0, ev, o, 20_000)
            se = float(t.std()) / np.sqrt(len(t))
            assert abs(float(t.mean()) - o.value) < 3.5 * se, (o, t.mean(), se)


def test_a_first_estimate_says_that_its_kernel_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a fresh install the first estimate waits seconds for the kernel that plays games on from a
    sheet: one line says so first, as the simulator's does; none once it is compiled."""
    from yahtzee_cli.solver import jit

    rules = R.preset("triple-yahtzee")
    sheets = [[R.Column.empty(rules)] * 3] * 2
    heard: list[str] = []
    estimated.estimated_chances(rules, sheets, games=50)  # compiled (or loaded) here
    estimated.estimated_chances(rules, sheets, games=50, say=heard.append)
    assert heard == []
    monkeypatch.setattr(jit, "is_compiled", lambda kernel, args=None: False)
    estimated.estimated_chances(rules, sheets, games=50, say=heard.append)
    assert len(heard) == 1 and heard[0].startswith("compiling the simulator ("), heard
