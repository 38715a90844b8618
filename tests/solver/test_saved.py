"""The exact table with saved rolls capped at K (solver.saved) against a brute force written from the
rules alone, and the build's resumption after an interruption."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yahtzee_cli.errors import NotExact
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, saved

# Four boxes, two of them upper with a bonus: every state's value by brute force in seconds.
TINY = {
    "boxes": [
        {"key": "fives", "kind": "upper", "face": 5},
        {"key": "sixes", "kind": "upper", "face": 6},
        {"key": "three_of_a_kind", "kind": "kind", "n": 3},
        {"key": "chance", "kind": "chance"},
    ],
    "settings": {"upper_bonus_threshold": 20, "upper_bonus": 25, "saved_rolls": True},
}


def tiny(cap: int | None) -> R.RuleSet:
    return R.rules_from_data(TINY, {"saved_rolls_cap": cap})


def _prob(dice: tuple[int, ...]) -> float:
    n = len(dice)
    return math.factorial(n) / math.prod(math.factorial(c) for c in Counter(dice).values()) / 6**n


class Brute:
    """Every turn-start value of a saved-rolls game, straight from its definition: a turn begun with s
    saved rolls has 3 + s rolls; stopping with L unused keeps min(L, cap) for later."""

    def __init__(self, rules: R.RuleSet) -> None:
        self.rules = rules
        self.cap = rules.settings.saved_cap
        self.n = rules.dice
        self.rolls = list(R.rolls(self.n))
        self.index = {r: i for i, r in enumerate(self.rolls)}
        self.p = np.array([_prob(r) for r in self.rolls])
        keeps = sorted({k for r in self.rolls for m in range(self.n) for k in itertools.combinations(r, m)})
        self.P = np.zeros((len(keeps), len(self.rolls)))
        for i, k in enumerate(keeps):
            for rest in itertools.product(range(1, 7), repeat=self.n - len(k)):
                self.P[i, self.index[tuple(sorted(k + rest))]] += 6.0 ** -(self.n - len(k))
        kidx = {k: i for i, k in enumerate(keeps)}
        self.subs = [sorted({kidx[k] for m in range(self.n) for k in itertools.combinations(r, m)})
                     for r in self.rolls]
        self.upper = {b: rules.boxes[b].face for b in rules.upper_indices}
        self.t = rules.settings.upper_bonus_threshold

    @functools.cache  # noqa: B019 (one instance per test)
    def value(self, mask: int, u: int, stock: int) -> float:
        nb = len(self.rules.boxes)
        if mask == (1 << nb) - 1:
            return float(self.rules.settings.upper_bonus) if u >= self.t else 0.0

        def final(level: int) -> np.ndarray:
            out = np.empty(len(self.rolls))
            for i, r in enumerate(self.rolls):
                legal = R.legal_mask(self.rules, mask, None, r)
                scores = self.rules.natural_scores(r)
                out[i] = max(scores[b] + self.value(mask | 1 << b, min(u + (scores[b] if b in self.upper else 0),
                                                                       self.t), min(level, self.cap))
                             for b in range(nb) if legal >> b & 1)
            return out

        V = final(0)
        for level in range(1, stock + 3):
            E = self.P @ V
            F = final(level)
            V = np.array([max(F[i], max(E[k] for k in self.subs[i])) for i in range(len(self.rolls))])
        return float(self.p @ V)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[int, saved.SavedTable]:
    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_CACHE_DIR", str(tmp_path_factory.mktemp("saved")))
    try:
        return {k: saved.get_table(tiny(k))[0] for k in (0, 1, 2)}
    finally:
        mp.undo()


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_every_state_of_the_capped_game_matches_a_brute_force(tables: dict[int, saved.SavedTable], cap: int) -> None:
    tab = tables[cap]
    brute = Brute(tiny(cap))
    checked = 0
    for mask in tab.masks.tolist():
        for u in range(brute.t + 1):
            for stock in range(cap + 1):
                got = tab.value(mask, 0, u, stock)
                if got == 0.0 and mask != (1 << 4) - 1:
                    continue  # an upper total this mask cannot have: never read
                assert got == pytest.approx(brute.value(mask, u, stock), abs=1e-4), (mask, u, stock)
                checked += 1
    assert checked > 50 * (cap + 1)
    assert tab.mean == pytest.approx(brute.value(0, 0, 0), abs=1e-4)


def test_no_cap_on_saved_rolls_is_the_table_without_them(tables: dict[int, saved.SavedTable]) -> None:
    plain = exact.build(saved.without_saved(tiny(0)))
    assert tables[0].mean == pytest.approx(plain.mean, abs=1e-4)


def test_the_value_grows_with_the_cap_and_with_the_stock(tables: dict[int, saved.SavedTable]) -> None:
    means = [tables[k].mean for k in (0, 1, 2)]
    assert means[0] < means[1] < means[2]
    tab = tables[2]
    assert tab.value(0, 0, 0, 0) < tab.value(0, 0, 0, 1) < tab.value(0, 0, 0, 2)
    with pytest.raises(ValueError, match="0 to 2"):
        tab.value(0, 0, 0, 3)


def test_an_interrupted_build_goes_on_from_its_finished_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 tables: dict[int, saved.SavedTable]) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    rules = tiny(2)
    calls = 0

    def stop_after_two(done: int, total: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        saved.build(rules, progress=stop_after_two, threads=1)
    assert saved.read(rules) is None
    finished, layers = saved.progress_done(rules) or (0, 0)
    assert 1 < finished < layers  # the terminal layer and the first one computed

    notes: list[str] = []
    seen: list[tuple[int, int]] = []
    tab = saved.build(rules, say=notes.append, progress=lambda d, t: seen.append((d, t)))
    assert any("going on" in n for n in notes)
    assert seen[0][0] > 0 and seen[-1][0] == seen[-1][1]  # counted from the finished layers
    assert np.array_equal(np.asarray(tab.W), np.asarray(tables[2].W))


def test_rules_without_a_cap_or_with_passes_have_no_saved_table() -> None:
    assert saved.saved_reason(tiny(None)) is not None
    with pytest.raises(NotExact, match="saved_rolls_cap"):
        saved.build(tiny(None))
    passes: dict[str, Any] = {**TINY, "settings": {**TINY["settings"], "must_zero": False}}
    assert "passes" in (saved.saved_reason(R.rules_from_data(passes, {"saved_rolls_cap": 1})) or "")


def test_a_cap_is_a_setting_that_changes_the_fingerprint_only_when_set() -> None:
    maxi = R.load_rules("maxi-yatzy")
    assert maxi.settings.saved_rolls_cap is None
    assert R.load_rules("maxi-yatzy", ["saved_rolls_cap=none"]).fingerprint == maxi.fingerprint
    capped = R.load_rules("maxi-yatzy", ["saved_rolls_cap=3"])
    assert capped.fingerprint != maxi.fingerprint
    assert R.saved_after(capped, 2, 1) == 3 and R.saved_after(maxi, 2, 1) == 4
    with pytest.raises(R.RulesError, match="saved_rolls=on"):
        R.load_rules("yahtzee", ["saved_rolls_cap=3"])
