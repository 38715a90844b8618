"""Multi-column sheets (Triple Yahtzee, Triple Yatzy, wider sheets): the strategy that values every
column by its single column's exact table, with that value weighted as `yahtzee` fits it, against
the same tables unweighted (this toolbox's strategy before the weight), over the same seeded games.

For each rule set: mean and SE of every weight over G games (the same dice streams), the paired
difference to weight 1 with its SE, the weight the fit chose, and the empty sheet's estimate: the
tables' value alone, and with the fitted level (which should match the simulated mean).

    python benchmarks/bench_columns.py [--games 40000] [--seed 11] [--rules triple-yahtzee ...]
"""

from __future__ import annotations

import argparse
import math
import os
import time

WEIGHTS = (1.0, 0.95, 0.9, 0.85)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--rules", nargs="+", default=["triple-yahtzee", "triple-yatzy", "triple-yahtzee:columns=6"],
                    help="presets, each optionally with settings after a colon (name:key=value,...)")
    args = ap.parse_args()

    from yahtzee_cli.play.hint import source_for
    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import approx
    from yahtzee_cli.solver.exact import play_with
    from yahtzee_cli.strategy import turn
    from yahtzee_cli.strategy.choice import plan

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; {args.games:,} games, seed {args.seed}")
    for spec in args.rules:
        name, _, sets = spec.partition(":")
        rules = R.load_rules(name, [s for s in sets.split(",") if s])
        one = plan(rules).table_rules
        assert one is not None, f"{spec} is not valued by column tables"
        t0 = time.perf_counter()
        fitted = approx.prepare(rules)
        src = source_for(rules)
        empty = turn.Turn(rules, tuple(R.Column.empty(rules) for _ in range(rules.settings.columns)), src)
        print(f"{spec}: fitted weight {src.scale:g} (fit and mean of {fitted['games']:,} games: "
              f"{fitted['mean']:.2f}; {time.perf_counter() - t0:.1f} s, or read from the cache)")
        print(f"  empty sheet: tables alone {empty.base / src.scale:.2f}, with the weight and the level "
              f"{empty.base + empty.level:.2f}")
        base = None
        for w in WEIGHTS:
            totals = play_with(rules, approx._columns(one, w, None), args.seed, 0, args.games).totals.astype(float)
            mean, se = float(totals.mean()), float(totals.std() / math.sqrt(len(totals)))
            if base is None:
                base = totals
                diff = ""
            else:
                d = totals - base
                diff = f"  {d.mean():+6.2f} +- {d.std() / math.sqrt(len(d)):.2f} vs weight 1"
            mark = "  (fitted)" if w == src.scale else ""
            print(f"  weight {w:<5g} {mean:9.2f} +- {se:.2f}{diff}{mark}", flush=True)


if __name__ == "__main__":
    main()
