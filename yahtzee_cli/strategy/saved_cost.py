"""What a saved-rolls table (solver.saved) costs before it is built: about how long its build takes
and how much disk it takes (whether the rules can have one at all: strategy.choice.saved_reason).
Pure Python (no numpy): the strategy choice asks it before anything heavy loads."""

from __future__ import annotations

from math import comb

from ..rules.engine import RuleSet, most_saved
from .space import state_space

# The build's cost, from Maxi Yatzy's K = 24 build (docs/strategy.md): CPU seconds per lane and level
# (a final-roll pass and a keep pass over a lane's rolls: 1,524 s for 767 million, 1.97 s of CPU per
# second of wall time on 2 cores), and the lanes the build computes per cell of a dense table (totals
# that can no longer reach the bonus share one lane)
CPU_SECONDS_PER_LANE_LEVEL = 2.0e-6
LANE_SHARE = 0.3755
CPU_PER_WALL = 1.95


def without_saved(rules: RuleSet) -> RuleSet:
    """The same rules without saved rolls (their states, boxes and scores are the saved table's)."""
    data = rules.model_dump()
    data["settings"] = {**data["settings"], "saved_rolls": False, "saved_rolls_cap": None}
    return RuleSet.model_validate(data)


def _stock_levels(rules: RuleSet) -> tuple[float, float]:
    """(stocks stored, levels computed) per lane, averaged over the filled-box sets: a sheet with p boxes
    filled holds 0..most_saved(p) saved rolls and its turn takes levels 0..most_saved(p) + 2."""
    nb = len(rules.boxes)
    tops = [most_saved(rules, p) or 0 for p in range(nb + 1)]
    share = [comb(nb, p) / 2**nb for p in range(nb + 1)]
    return (sum(w * (top + 1) for w, top in zip(share, tops, strict=True)),
            sum(w * (top + 3) for w, top in zip(share[:-1], tops[:-1], strict=True)))


def build_minutes(rules: RuleSet) -> float:
    """About how long the saved-rolls table's build takes on two cores: its lanes times its levels, at
    Maxi Yatzy's measured cost of each."""
    lanes = state_space(without_saved(rules)).states * LANE_SHARE
    return lanes * _stock_levels(rules)[1] * CPU_SECONDS_PER_LANE_LEVEL / CPU_PER_WALL / 60


def build_gb(rules: RuleSet) -> float:
    """About the saved-rolls table's size on disk in GB: a float32 per lane for each stock it can hold."""
    return 4 * state_space(without_saved(rules)).states * LANE_SHARE * _stock_levels(rules)[0] / 1e9


def about_minutes(minutes: float) -> str:
    return "under a minute" if minutes < 1 else f"about {minutes:.0f} min"
