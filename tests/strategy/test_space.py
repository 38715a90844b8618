"""The state space of every preset: one key per (mask, y, u), the exact table's layout the same."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy.choice import exact_reason
from yahtzee_cli.strategy.space import state_space


@pytest.mark.parametrize("name", R.preset_names())
def test_every_state_has_its_own_key_on_ints_and_arrays_alike(name: str) -> None:
    rules = R.preset(name)
    space = state_space(rules)
    assert space is state_space(rules)  # built once per rule set
    masks = np.arange(min(1 << space.boxes, 4096), dtype=np.int64)
    m, y, u = (a.ravel() for a in np.meshgrid(masks, np.arange(space.nyt), np.arange(space.t + 1), indexing="ij"))
    keys = space.key(m, y, u)
    assert len(np.unique(keys)) == len(keys)
    assert keys.min() == 0 and keys.max() == len(masks) * space.width - 1
    i = len(keys) // 3
    assert space.key(int(m[i]), int(y[i]), int(u[i])) == int(keys[i])
    # the set of filled upper boxes: bit j for the j-th upper box, alike on an int and an array
    for mask in (0, (1 << space.boxes) - 1, 0b101101 & ((1 << space.boxes) - 1)):
        want = sum(1 << j for j, b in enumerate(rules.upper_indices) if mask >> b & 1)
        assert space.upper_set(mask) == want == int(space.upper_set(np.array([mask]))[0])


@pytest.mark.parametrize("name", R.preset_names())
def test_lanes_follow_the_settings(name: str) -> None:
    rules = R.preset(name)
    space, s = state_space(rules), rules.settings
    assert space.t == (s.upper_bonus_threshold if s.upper_bonus else 0)
    assert space.nyt == (2 if rules.yahtzee_index is not None and s.extra_yahtzee_bonus else 1)
    assert space.lane(False) == 0 and space.lane(True) == space.nyt - 1
    assert space.states == space.masks * space.nyt * (space.t + 1)


def test_the_exact_table_is_laid_out_by_the_state_space() -> None:
    from yahtzee_cli.solver.exact import layout

    for rules in (R.preset("yahtzee"), R.preset("yatzy"), R.preset("yahtzee", {"fill_in_order": True})):
        assert exact_reason(rules) is None
        lay, space = layout(rules), state_space(rules)
        assert (lay.t, lay.nyt, lay.width) == (space.t, space.nyt, space.width)
        assert (lay.sub_of == space.upper_set(np.arange(1 << space.boxes))).all()
        assert len(lay.masks) <= space.masks  # the reachable ones
    assert state_space(R.preset("yahtzee", {"fill_in_order": True})).masks == 14
