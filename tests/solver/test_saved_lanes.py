"""Saved-rolls play values the final rolls of a block of games at every stock they can stop with at
once, a lane per game and stock (play_kernel._stock_lanes, within_turn.lanes_best, _stock_fixups,
_lanes_finals): each lane's values are those final_values gives that game and stock alone, to the
bit, on every kind of rule set the saved-rolls kernel plays (jokers, extra bonuses, a fill order, a
column's weight, columns that do not add)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import play_kernel as pk
from yahtzee_cli.solver.jit import njit
from yahtzee_cli.solver.tables import rule_arrays
from yahtzee_cli.solver.within_turn import NEG, final_values, lanes_best


@njit(cache=False)
def _both(scratch: Any, NVS: np.ndarray, FC: np.ndarray, tops: np.ndarray, cms: np.ndarray, yss: np.ndarray,
          raws: np.ndarray, ra: Any, work: Any, old: np.ndarray) -> None:
    FS, _, _, _, _, lw = scratch
    K = FS.shape[1] - 1
    n = tops.shape[0]
    lane0 = np.empty(n, np.int64)
    off = 0
    for i in range(n):  # as play_saved_games values a block
        lane0[i] = off
        pk._stock_lanes(lw, NVS[i], FC[i], off, tops[i], i * (K + 1), cms[i], yss[i], raws[i], ra)
        off += tops[i] + 1
    lanes_best(off, ra, lw)
    for i in range(n):
        pk._stock_fixups(lw, NVS[i], lane0[i], tops[i], cms[i], yss[i], ra)
    pk._lanes_finals(FS, lw, off, ra)
    mult = ra.mult[0]
    for i in range(n):  # game by game and stock by stock, as it valued them before
        work.cmask[0], work.yst[0] = cms[i], yss[i]
        for s in range(tops[i] + 1):
            best12 = (mult * (raws[i] + FC[i, s]), NEG, 0)
            final_values(work.Vfinal, work, NVS[i, s], work.cmask, work.yst, False, best12, ra)
            base = mult * FC[i, s]
            for r in range(work.Vfinal.shape[0]):
                old[i, s, r] = work.Vfinal[r] + base


def _next_values(ra: Any, rng: np.random.Generator, shape: tuple[int, ...], table: bool) -> np.ndarray:
    """Random next-state values per (box, variant) slot, rounded (ties); `table`: in the orders a
    table's keep (what roll_entries leans on): each box's never fall as the upper total its variant
    adds grows, and the Yahtzee box holding its points is worth at least the scratched one."""
    vmax = ra.du.shape[1]
    NV = np.round(rng.normal(0.0, 30.0, (*shape, ra.nb * vmax)), int(rng.integers(0, 2)))
    if table:
        for b in range(ra.nb):
            du = np.asarray(ra.du[b, : ra.nvar[b]])
            if len(set(du.tolist())) > 1:
                steps = np.round(rng.exponential(3.0, (*shape, int(du.max()) + 1)), 0).cumsum(axis=-1)
                NV[..., b * vmax: b * vmax + len(du)] = NV[..., b * vmax, None] + steps[..., du]
        if ra.ybox >= 0 and ra.nvar[ra.ybox] == 2:  # (variant 0 scratched, 1 full: yn 0 and 1)
            at = ra.ybox * vmax
            NV[..., at + 1] = np.maximum(NV[..., at + 1], NV[..., at])
    return NV


CASES = [("maxi-yatzy", {}, True), ("maxi-yatzy", {}, False), ("yahtzee", {"saved_rolls": "on"}, True),
         ("yahtzee", {"saved_rolls": "on", "joker": "free"}, True), ("forced-yatzy", {"saved_rolls": "on"}, True),
         ("yatzy", {"saved_rolls": "on"}, False)]


@pytest.mark.parametrize("preset,sets,table", CASES)
@pytest.mark.parametrize("weight,add", [(1.0, 1), (2.0, 1), (1.0, 0)])
def test_every_game_s_every_stock_at_once_is_final_values_alone_to_the_bit(preset: str, sets: dict[str, str],
                                                                           table: bool, weight: float,
                                                                           add: int) -> None:
    """16 games' final rolls at up to K + 1 stocks each (a lane each) against final_values game by game
    and stock by stock, on random sheets (the Yahtzee box open, scratched or full) and random next
    values: an exact table's (never falling as the upper total grows, `table`) or any (a fitted
    model's); with a column weight of 2 and with columns that do not add as well."""
    rules = R.preset(preset, sets)
    ra = rule_arrays(rules, 2 if rules.settings.extra_yahtzee_bonus or preset == "yahtzee" else 1)
    ra = ra._replace(mult=np.array([weight]), add_columns=add)
    rng = np.random.default_rng(5)
    K, B = 6, pk.SAVED_LANES
    scratch = pk.saved_scratch(K, ra, table)
    work = pk.turn_work(ra, 4)
    Rr = ra.natT.shape[1]
    full = (1 << ra.nb) - 1
    checked = 0
    for _ in range(6):
        cms = rng.integers(0, full, B)  # (never full: a turn has a box to fill)
        if ra.ybox >= 0:  # the Yahtzee box often filled: jokers and extra bonuses
            cms = np.where(rng.random(B) < 0.6, cms | (1 << ra.ybox), cms)
            cms = np.where(cms == full, cms & ~1, cms)
        yss = np.where((cms >> max(ra.ybox, 0)) & 1 if ra.ybox >= 0 else np.zeros(B, bool), rng.integers(0, 2, B), -1)
        tops = rng.integers(0, K + 1, B)
        NVS = _next_values(ra, rng, (B, K + 1, 1), table)
        FC = np.round(rng.normal(100.0, 20.0, (B, K + 1)), 1)
        raws = rng.integers(0, 300, B).astype(np.float64)
        old = np.full((B, K + 1, Rr), np.nan)
        _both(scratch, NVS, FC, tops, cms.astype(np.int64), yss.astype(np.int64), raws, ra, work, old)
        FS = scratch[0]
        for i in range(B):
            got, want = FS[i, : tops[i] + 1], old[i, : tops[i] + 1]
            assert np.isfinite(want).all()
            assert got.tobytes() == want.tobytes(), (preset, i, np.flatnonzero((got != want).any(axis=0)))
            checked += tops[i] + 1
    assert checked > 200


@pytest.fixture(scope="module")
def small_table(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from conftest import SAVED_RULES

    from yahtzee_cli.solver import saved

    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_CACHE_DIR", str(tmp_path_factory.mktemp("saved-lanes")))
    try:
        rules = R.rules_from_data(SAVED_RULES, {"saved_rolls_cap": 2})
        return rules, saved.get_table(rules)[0]
    finally:
        mp.undo()


def _one_by_one_and_together(rules: R.RuleSet, tab: Any, seed: int, n: int) -> None:
    from yahtzee_cli.solver import saved

    together = saved.play_with(rules, tab, seed, 0, n, record=True, threads=1)
    for g in range(n):
        alone = saved.play_with(rules, tab, seed, g, 1, record=True, threads=1)
        assert alone.scores[0].tolist() == together.scores[g].tolist(), g
        assert alone.n_rolls[0].tolist() == together.n_rolls[g].tolist(), g
        used = alone.rolls.shape[2]
        assert np.array_equal(alone.rolls[0], together.rolls[g, :, :used]), g
        assert not together.rolls[g, :, used:].any(), g


def test_games_valued_together_are_the_games_played_alone(small_table: Any) -> None:
    """play_saved_games values a turn once for the games whose sheets are alike (every game's first
    turn, most of the second): the games, die for die, are those each plays alone."""
    rules, tab = small_table
    _one_by_one_and_together(rules, tab, 5, 120)


def test_games_valued_together_from_the_shipped_fit_are_the_games_played_alone() -> None:
    from yahtzee_cli.solver import saved_fit

    rules = R.preset("maxi-yatzy")
    model = saved_fit.read(rules)
    assert model is not None
    _one_by_one_and_together(rules, model, 2, 24)


@njit(cache=False)
def _groups(sheet: Any, Js: np.ndarray, add_columns: int, groups: Any) -> int:
    return pk._sheet_groups(sheet, Js, add_columns, groups)


@pytest.mark.parametrize("add_columns", [1, 0])
def test_sheets_are_grouped_exactly_by_what_values_a_turn(add_columns: int) -> None:
    """_sheet_groups against grouping by the sheet's parts in Python: every game in the group of the
    games with its boxes filled, upper total, Yahtzee box state (and points written where columns do
    not add), a group's rolls left its games' most, the groups in order of rolls left; on random
    sheets with many alike, and with every game alike or none."""
    rng = np.random.default_rng(7)
    for G, kinds in ((1, 1), (2, 1), (300, 1), (300, 300), (1000, 40), (37, 5)):
        cm = rng.integers(0, kinds, G) * 0x10001
        us = rng.integers(0, 3, G) * (kinds > 1)
        ys = rng.integers(-1, 2, G) * (kinds > 1)
        raw = rng.integers(0, 2, G).astype(np.float64) * 0.5
        Js = rng.integers(0, 27, G)
        size = 2
        while size < 2 * G:
            size *= 2
        groups = tuple(np.full(n, -9, np.int64) for n in (size, G, G, G + 1, G, G, max(G, 28) + 1))
        ng = _groups((cm, us, ys, raw), Js, add_columns, groups)
        _, _, order, gfirst, gJ, gorder, _ = groups
        key = [(cm[g], us[g], ys[g]) + ((raw[g],) if not add_columns else ()) for g in range(G)]
        want: dict[tuple[Any, ...], list[int]] = {}
        for g in range(G):
            want.setdefault(key[g], []).append(g)
        got = [sorted(order[gfirst[q]:gfirst[q + 1]].tolist()) for q in range(ng)]
        assert sorted(got) == sorted(want.values()) and gfirst[ng] == G
        for q in range(ng):
            assert gJ[q] == max(Js[g] for g in got[q])
        assert sorted(gorder[:ng].tolist()) == list(range(ng))
        assert all(gJ[gorder[i]] <= gJ[gorder[i + 1]] for i in range(ng - 1))


@njit(cache=False)
def _same(g: int, h: int, sheet: Any, add_columns: int) -> bool:
    return pk._same_sheet(g, h, sheet, add_columns)


def test_sheets_differing_in_any_part_that_values_a_turn_are_not_alike() -> None:
    # (the hash table seldom puts two sheets in one slot: what tells them apart there is tested here)
    base = (5, 30, 0, 12.0)
    for part, other in ((0, 7), (1, 31), (2, 1), (3, 12.5)):
        b = list(base)
        b[part] = other
        sheet = tuple(np.array([base[i], b[i]], np.float64 if i == 3 else np.int64) for i in range(4))
        assert _same(0, 0, sheet, 1) and _same(0, 0, sheet, 0)
        assert _same(0, 1, sheet, 1) == (part == 3)  # points written count only where columns do not add
        assert not _same(0, 1, sheet, 0)
