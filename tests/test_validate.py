"""`yahtzee validate` and yahtzee_cli.validate: every kind of problem, with its pointer and sentence."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli import rules as R

PRESETS = list(R.PRESETS)


# --------------------------------------------------------------------------- rules.placement


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(PRESETS + ["free", "off", "order"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_placement_agrees_with_column_options(name: str, seed: int) -> None:
    """rules.placement (and roll_context/box_score under it) gives exactly the Option column_options lists."""
    variants = {"free": ("yahtzee", {"joker": "free"}), "off": ("yahtzee", {"joker": "off"}),
                "order": ("yahtzee", {"fill_in_order": True})}
    preset, over = variants.get(name, (name, {}))
    rs = R.preset(preset, over)
    rng = random.Random(seed)
    nbox = len(rs.boxes)
    y = rs.yahtzee_index
    scores: list[int | None] = [None] * nbox
    for i in rng.sample(range(nbox), rng.randrange(nbox)):
        scores[i] = 0
    if y is not None and rng.random() < 0.7:
        scores[y] = rng.choice([None, 0, rs.boxes[y].points])
    col = R.Column(tuple(scores))
    face = rng.randint(1, 6)
    dice = (face,) * rs.dice if rng.random() < 0.5 else tuple(sorted(rng.randint(1, 6) for _ in range(rs.dice)))
    legal = {o.box: o for o in R.column_options(rs, col, dice)}
    ys = scores[y] if y is not None else None
    for box in range(nbox):
        assert R.placement(rs, col.filled_mask, ys, box, dice) == legal.get(box)
        if box in legal:
            assert R.place(rs, col, box, dice)[1] == legal[box]
        else:
            with pytest.raises(R.IllegalMove):
                R.place(rs, col, box, dice)
