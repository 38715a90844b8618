"""The build's lane kernels taken faster give the same values to the bit: best sub-keep by size
through scratch rows (best_sub_max) against the sub-keep by sub-keep update (best_sub_lanes), a
box's values per variant (box_max_scored) against per roll (box_max), final-roll values of a
batch's lanes at once (lanes_best) against lane by lane (lane_values); and the wider vectors are a setting
of the code generator only."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver.jit import njit
from yahtzee_cli.solver.kernels import _batch_end, _batch_final_values
from yahtzee_cli.solver.tables import rule_arrays
from yahtzee_cli.solver.within_turn import (
    NEG,
    best_roll_max,
    best_sub_lanes,
    best_sub_max,
    box_max,
    box_max_scored,
    keep_starts,
    keep_values,
    keep_values_lanes,
    lane_values,
    lane_work,
    mask_rolls,
    roll_subs,
    variant_scores,
)


@njit(cache=False)
def _subs(E: np.ndarray, T: np.ndarray, drop_die: np.ndarray, starts: np.ndarray, n: int, new: bool) -> None:
    if new:
        best_sub_max(E, T, drop_die, starts, n)
    else:
        best_sub_lanes(E, E, E, 0, drop_die, n)


@njit(cache=False)
def _rolls_best(E: np.ndarray, T: np.ndarray, subs: np.ndarray, starts: np.ndarray, n: int) -> None:
    best_roll_max(E, T, subs, starts, n)


@njit(cache=False)
def _keeps(S: np.ndarray, Js: np.ndarray, ra: Any, starts: np.ndarray, n: int, EJ: np.ndarray,
           one: np.ndarray) -> None:
    E, T = np.empty((ra.add_die.shape[0], EJ.shape[2])), np.empty((ra.natT.shape[1], EJ.shape[2]))
    keep_values_lanes(S, EJ, E, T, starts, Js.max(), ra.keep_of_roll, ra.add_die, ra.drop_die, n)
    for i in range(n):
        keep_values(S[i], one[i], np.empty(ra.add_die.shape[0]), Js[i], 0.0, ra.keep_of_roll, ra.add_die,
                    ra.drop_die)


@njit(cache=False)
def _box(V: np.ndarray, sb: np.ndarray, vb: np.ndarray, NV: np.ndarray, vs: np.ndarray, base: int, nvb: int,
         new: bool) -> None:
    if new:
        box_max_scored(V, vb, NV, vs, base, nvb)
    else:
        box_max(V, None, 0, sb, vb, NV, base, nvb, None)


@pytest.mark.parametrize("preset", ["yatzy", "maxi-yatzy"])
def test_the_best_sub_keep_by_size_is_the_same_to_the_bit(preset: str) -> None:
    ra = rule_arrays(R.preset(preset), 1)
    K, R_ = ra.add_die.shape[0], ra.natT.shape[1]
    starts = keep_starts(ra.keeps)
    sizes = np.asarray(ra.keeps).sum(axis=1)
    assert starts[0] == 0 and starts[-1] == K and len(starts) == ra.keeps[-1].sum() + 2
    assert all((sizes[starts[c]:starts[c + 1]] == c).all() for c in range(len(starts) - 1))
    rng = np.random.default_rng(7)
    for n, ties in ((37, False), (64, True)):
        E = rng.normal(100, 30, (K, 64))
        if ties:  # equal values and large gaps: a maximum taken in another order must not differ
            E = np.round(E / 25) * 25
        a, b = E.copy(), E.copy()
        _subs(a, np.empty((R_, 64)), ra.drop_die, starts, n, False)
        _subs(b, np.full((R_, 64), np.nan), ra.drop_die, starts, n, True)
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64))
        assert (b[:, :n] >= E[:, :n]).all() and (b[:, :n] > E[:, :n]).any()
        assert np.array_equal(b[:, n:], E[:, n:])  # lanes beyond n untouched


@pytest.mark.parametrize("preset", ["yatzy", "maxi-yatzy", "yahtzee"])
def test_the_full_rolls_best_sub_keep_is_best_sub_max_s_to_the_bit(preset: str) -> None:
    """best_roll_max (the build's: only the full rolls wanted, each keep reading only the sub-keeps it
    has, the sizes' maxima left in T) against best_sub_max: the full rolls' rows the same floats,
    ties and large gaps included; the smaller keeps and the lanes beyond n untouched."""
    ra = rule_arrays(R.preset(preset), 1)
    K, R_ = ra.add_die.shape[0], ra.natT.shape[1]
    starts = keep_starts(ra.keeps)
    subs = roll_subs(ra.drop_die, starts)
    has = np.asarray(ra.drop_die) >= 0
    assert (subs[starts[1]:, 0] == has[starts[1]:].sum(axis=1)).all() and (subs[starts[1]:, 0] >= 1).all()
    first_full = K - R_
    rng = np.random.default_rng(11)
    for n, ties in ((37, False), (64, True), (128, False)):
        E = rng.normal(100, 30, (K, 128))
        if ties:
            E = np.round(E / 25) * 25
        a, b = E.copy(), E.copy()
        _subs(a, np.empty((R_, 128)), ra.drop_die, starts, n, True)
        _rolls_best(b, np.full((R_, 128), np.nan), subs, starts, n)
        assert np.array_equal(a[first_full:, :n].view(np.uint64), b[first_full:, :n].view(np.uint64))
        assert (b[first_full:, :n] > E[first_full:, :n]).any()
        assert np.array_equal(b[:first_full], E[:first_full]) and np.array_equal(b[:, n:], E[:, n:])


def test_values_per_variant_are_box_max_to_the_bit() -> None:
    for preset in ("yahtzee", "yatzy", "maxi-yatzy"):
        ra = rule_arrays(R.preset(preset), 1)
        vscore, vscored = variant_scores(ra)
        upper = np.asarray(ra.is_upper)
        assert vscored[upper].all()  # an upper box scores its face times its count: its variant
        vmax = ra.du.shape[1]
        rng = np.random.default_rng(3)
        for b in range(ra.nb):
            if not vscored[b] or ra.nvar[b] < 2:
                continue
            NV = rng.normal(150, 40, ra.nb * vmax)
            V0 = rng.normal(170, 40, ra.natT.shape[1])
            V0[::5] = NEG
            a, c = V0.copy(), V0.copy()
            _box(a, ra.natT[b], ra.vnatT[b], NV, vscore[b], b * vmax, int(ra.nvar[b]), False)
            _box(c, ra.natT[b], ra.vnatT[b], NV, vscore[b], b * vmax, int(ra.nvar[b]), True)
            assert np.array_equal(a.view(np.uint64), c.view(np.uint64)), (preset, b)


def test_a_box_whose_score_is_not_its_variant_is_not_taken_per_variant() -> None:
    ra = rule_arrays(R.preset("yahtzee"), 1)
    _, vscored = variant_scores(ra)
    for b in range(ra.nb):
        scores, variants = np.asarray(ra.natT[b]), np.asarray(ra.vnatT[b])
        one_score = all(len(set(scores[variants == v])) <= 1 for v in set(variants.tolist()))
        assert vscored[b] == one_score


def _features(env: dict[str, str]) -> str:
    """numba's CPU features in a process that imports the kernels, the same in its environment (what a
    reload of numba's config and the processes it starts read)."""
    code = ("import os, numba; import yahtzee_cli.solver.jit; numba.core.config.reload_config()\n"
            "assert numba.config.CPU_FEATURES == os.environ.get('NUMBA_CPU_FEATURES')\n"
            "print(numba.config.CPU_FEATURES)")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_wider_vectors_only_where_the_cpu_has_them_and_never_over_the_users_setting() -> None:
    import llvmlite.binding as ll

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
    got = _features(env)
    if ll.get_host_cpu_features().get("avx512f"):
        assert got.endswith(",-prefer-256-bit") and "+avx512f" in got
    else:
        assert got == "None"
    assert _features({**env, "NUMBA_CPU_FEATURES": "+sse2"}) == "+sse2"


@pytest.mark.parametrize("preset", ["yatzy", "maxi-yatzy"])
def test_keep_values_of_games_side_by_side_are_each_game_s_alone_to_the_bit(preset: str) -> None:
    """Saved-rolls play values its games' keeps side by side (keep_values_lanes); each game's keep
    values with j rolls left are keep_values' for that game alone, whatever the other lanes hold:
    the same games, each game's turn as long as its rolls. Lanes past n are left alone."""
    ra = rule_arrays(R.preset(preset), 1)
    K, R_ = ra.add_die.shape[0], ra.natT.shape[1]
    starts = keep_starts(ra.keeps)
    rng = np.random.default_rng(11)
    L, J, lanes = 6, 9, 16
    for n, ties in ((16, False), (11, True)):
        S = rng.normal(200, 60, (lanes, L + 1, R_))
        if ties:  # equal stops and keep values: the first best must stay the first best
            S = np.round(S / 40) * 40
        Js = 1 + np.arange(lanes) % J  # a turn of each length, the longest J
        EJ = np.full((J, K, lanes), -7.0)
        one = np.empty((lanes, J, K))
        _keeps(S, Js, ra, starts, n, EJ, one)
        for i in range(n):  # (the game's own levels: the others belong to longer turns)
            assert EJ[: Js[i], :, i].tobytes() == np.ascontiguousarray(one[i, : Js[i]]).tobytes()
        assert (EJ[:, :, n:] == -7.0).all()


@njit(cache=False)
def _finals(masks: np.ndarray, lay: Any, ra: Any, W: np.ndarray, work: Any, old: np.ndarray,
            new: np.ndarray) -> None:
    W2 = np.zeros((1, 1))
    cap = work.E.shape[1]
    n_lanes = np.empty(masks.shape[0], np.int64)
    for j in range(masks.shape[0]):
        m = masks[j]
        n_lanes[j] = lay.ucount[lay.sub_of[m]] * (lay.nyt if (m & lay.ybit) != 0 else 1)
    j0 = 0
    while j0 < masks.shape[0]:  # batches of masks, as the build takes them
        j1 = _batch_end(j0, masks.shape[0], 1, n_lanes, cap)
        rolls = np.empty((j1 - j0, 4), np.int64)
        _batch_final_values(masks, j0, j1, 1, lay, ra, W, W2, work, rolls, True)
        off = 0
        for j in range(j0, j1):
            for i in range(n_lanes[j]):
                for r in range(ra.natT.shape[1]):
                    new[j, i, r] = work.E[ra.keep_of_roll[r], off + i]
            off += n_lanes[j]
        j0 = j1
    for j in range(masks.shape[0]):  # one lane at a time, SIMD over rolls
        m = masks[j]
        sub = lay.sub_of[m]
        sets = mask_rolls(m, lay, ra, work)
        for i in range(n_lanes[j]):
            lane_values((np.int64(i), np.int64(i), 0), sub, m, sets, lay, ra, W, W2, work)
            for r in range(ra.natT.shape[1]):
                old[j, i, r] = work.V[0, r]


@pytest.mark.parametrize("preset,sets,table32", [("yahtzee", {}, False), ("yatzy", {}, False),
                                                 ("maxi-yatzy", {}, False), ("forced-yatzy", {}, False),
                                                 ("yahtzee", {"joker": "free"}, False), ("kniffel", {}, False),
                                                 ("maxi-yatzy", {}, True), ("yahtzee", {"joker": "free"}, True)])
def test_final_values_of_a_batch_at_once_are_lane_by_lane_s_to_the_bit(preset: str, sets: dict[str, Any],
                                                                        table32: bool) -> None:
    """The build's final-roll values of a batch of masks (every lane at once, roll by roll:
    lanes_next, lanes_best, lanes_fixups; joker masks lane by lane) against lane_values (lane by
    lane, SIMD over rolls, box by box), on random next-state values that never fall as the upper
    total grows, as a table's (roll_entries leans on that order and on nothing else), and masks of
    every size, jokers and Yahtzee bonuses included: the same floats. table32: a float32 table with
    the batch's next values held as float32, as the saved-rolls build holds them (a closed box's
    NEG is -inf there)."""
    from yahtzee_cli.solver.exact import layout
    from yahtzee_cli.strategy.saved_cost import without_saved

    lay = layout(without_saved(R.preset(preset, sets)))  # (Maxi Yatzy's saved-rolls build takes these lanes too)
    st, ra = lay.state, lay.arrays
    rng = np.random.default_rng(7)
    W = rng.uniform(0.0, 400.0, (int(st.midx.max()) + 1, st.nyt * (st.t + 1))).round(rng.integers(0, 3))
    W = np.sort(W.reshape(len(W), st.nyt, st.t + 1), axis=2).reshape(W.shape)  # (ties too: rounded)
    full = (1 << ra.nb) - 1
    masks = np.array(sorted({int(m) for m in rng.choice(lay.masks, 300)} - {full}), np.int64)
    if table32:
        W = W.astype(np.float32)
    work = lane_work(ra, max(128, lay.width), False, False, 2, np.float32 if table32 else np.float64)
    Rr = ra.natT.shape[1]
    old = np.full((len(masks), lay.width, Rr), np.nan)
    new = np.full((len(masks), lay.width, Rr), np.nan)
    _finals(masks, st, ra, W, work, old, new)
    lanes = ~np.isnan(old)
    assert lanes.sum() > 1000 and not np.isnan(new[lanes]).any()
    assert np.array_equal(old[lanes].view(np.uint64), new[lanes].view(np.uint64))


@pytest.mark.parametrize("preset", ["yahtzee", "yatzy"])
def test_a_table_s_values_never_fall_as_the_upper_total_grows(preset: str) -> None:
    """What roll_entries leans on to start every roll from an upper box's 0: in every row and
    Yahtzee lane of a built table, a larger upper total is worth at least as much (the shipped
    tables; the build's own floats)."""
    from yahtzee_cli.solver.exact import get_table, layout

    rules = R.preset(preset)
    tab, _ = get_table(rules)
    lay = layout(rules)
    checked = 0
    for row, mask in enumerate(tab.masks):
        sub = lay.sub_of[mask]
        us = np.sort(lay.ulist[sub, : lay.ucount[sub]])
        for y in range(tab.nyt if mask & lay.ybit else 1):
            vals = np.asarray(tab.W[row, y * (tab.t + 1) + us], dtype=np.float64)
            assert (np.diff(vals) >= 0).all(), (hex(int(mask)), y, us, vals)
            checked += len(us) > 1
    assert checked > 1000


def test_an_upper_box_s_zero_starts_every_roll() -> None:
    """roll_entries: Maxi Yatzy's upper boxes take a roll only where it scores there (their 0 is
    every roll's start, as a one-variant box's is), and every roll still has each box it scores in."""
    from yahtzee_cli.solver.within_turn import roll_entries, sparse_boxes

    ra = rule_arrays(R.preset("maxi-yatzy"), 1)
    sp_on, sp_v0 = sparse_boxes(ra)[:2]
    ptr, slot, score, zslot = roll_entries(ra, sp_on, sp_v0)
    vmax = ra.du.shape[1]
    upper = [b for b in range(ra.nb) if ra.nvar[b] > 1 and not sp_on[b]]
    zero_variant = [int(np.asarray(ra.vnatT[b])[np.asarray(ra.natT[b]) == 0][0]) for b in upper]
    assert len(upper) == 6
    assert [zslot[b] for b in upper] == [b * vmax + v for b, v in zip(upper, zero_variant, strict=True)]
    assert (score != 0).all()
    for r in range(ra.natT.shape[1]):
        boxes = set((slot[ptr[r]:ptr[r + 1]] // vmax).tolist())
        assert boxes == {b for b in range(ra.nb) if ra.natT[b][r] != 0}
