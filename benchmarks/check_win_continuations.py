"""Win chances against games played on: 4-player Yahtzee from 5 positions of a game (turn starts, the
players' columns filled at random legal moves), each player's exact chance to win and to tie
(`winning.game_chances`, what `replay`, `play` and `log add` show) next to the share of 20,000
continuations each player won or tied (`winning.simulated_chances`: every player plays on from their
column with the strategy table's moves, as the exact chances assume).

    python benchmarks/check_win_continuations.py [--games 20000] [--seed 1]

Prints each figure with its standard error and the largest difference in standard errors (the check:
at most 3).
"""

from __future__ import annotations

import argparse
import math
import random
import time

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import winning


def column(rules: R.RuleSet, rng: random.Random, filled: int) -> R.Column:
    """A column after `filled` turns of random rolls placed in a random legal box."""
    col = R.Column.empty(rules)
    for _ in range(filled):
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
        col, _ = R.place(rules, col, rng.choice(R.options(rules, [col], dice)).box, dice)
    return col


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = R.preset("yahtzee")
    rng = random.Random(args.seed)
    worst = 0.0
    for turns in (0, 3, 6, 9, 12):
        cols = [column(rules, rng, turns - (i >= 2 and turns > 0)) for i in range(4)]  # mid-round: two behind
        t0 = time.perf_counter()
        exact = winning.game_chances(rules, cols)
        t1 = time.perf_counter()
        played = winning.simulated_chances(rules, cols, args.games, seed=args.seed + turns)
        t2 = time.perf_counter()
        print(f"after {turns} turns (exact {t1 - t0:.1f} s, {args.games:,} continuations {t2 - t1:.1f} s)")
        for i, (e, p) in enumerate(zip(exact, played, strict=True)):
            tie_se = math.sqrt(max(e.tie * (1 - e.tie), 1e-12) / args.games)
            dw = abs(p.win - e.win) / max(p.win_se, 1 / args.games)
            dt = abs(p.tie - e.tie) / max(tie_se, 1 / args.games)
            worst = max(worst, dw, dt)
            print(f"  player {i + 1} ({sum(s is not None for s in cols[i].scores)} boxes): "
                  f"win {e.win:.4f} exact, {p.win:.4f} played (SE {p.win_se:.4f}, {dw:.2f} SE); "
                  f"tie {e.tie:.4f}, {p.tie:.4f} ({dt:.2f} SE)")
    print(f"largest difference: {worst:.2f} standard errors (check: at most 3) {'ok' if worst <= 3 else 'FAILED'}")


if __name__ == "__main__":
    main()
