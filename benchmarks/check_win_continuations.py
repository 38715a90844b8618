"""Win chances against games played on: 4-player games from 5 positions (turn starts, the players'
sheets filled at random legal moves, two players a turn behind), each player's chance to win and to
tie as `replay`, `play` and `log add` show it, next to the share of 20,000 continuations each player
won or tied (`winning.simulated_chances`: every player plays on from their sheet with the strategy the
chances assume, on dice of their own, and the winner of each game is counted).

Rule sets with exact score distributions (Yahtzee, Yatzy, Kniffel, ...) are checked against their
exact chances (`winning.game_chances`); the others (Triple Yahtzee, Maxi Yatzy with or without saved
rolls, ...) against their estimated chances (`estimated.estimated_chances`, dice of their own), with
the two standard errors combined.

    python benchmarks/check_win_continuations.py [--rules yahtzee] [--set KEY=VALUE] [--games 20000] [--seed 1]

Prints each figure with its standard error and the largest difference in standard errors (the check:
at most 3).
"""

from __future__ import annotations

import argparse
import math
import random
import time

from yahtzee_cli.play.odds import unavailable
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import estimated, winning


def sheet(rules: R.RuleSet, rng: random.Random, filled: int) -> tuple[list[R.Column], int]:
    """A sheet after `filled` turns of random rolls placed in a random legal box, and a random stock
    of saved rolls (0 without saved rolls)."""
    cols = [R.Column.empty(rules) for _ in range(rules.settings.columns)]
    for _ in range(filled):
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
        o = rng.choice(R.options(rules, cols, dice))
        cols[o.column], _ = R.place(rules, cols[o.column], o.box, dice, o.column)
    return cols, rng.randint(0, 3) if rules.settings.saved_rolls else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = R.load_rules(args.rules, args.set)
    exact = unavailable(rules) is None
    rng = random.Random(args.seed)
    n_turns = len(rules.boxes) * rules.settings.columns
    worst = 0.0
    print(f"{rules.name}{' ' + ' '.join(args.set) if args.set else ''}: "
          f"{'exact' if exact else 'estimated'} chances against {args.games:,} continuations")
    for turns in [round(n_turns * f) for f in (0, 0.25, 0.45, 0.65, 0.85)]:
        sheets = [sheet(rules, rng, turns - (i >= 2 and turns > 0)) for i in range(4)]
        t0 = time.perf_counter()
        if exact:
            shown = [(c.win, c.tie, None, None) for c in winning.game_chances(rules, [c[0] for c, _ in sheets])]
        else:
            est = estimated.estimated_chances(rules, [c for c, _ in sheets], [s for _, s in sheets])
            shown = [(e.win, e.tie, e.win_se, e.tie_se) for e in est.players]
        t1 = time.perf_counter()
        got = [(p.win, p.tie) for p in winning.simulated_chances(rules, [c for c, _ in sheets], args.games,
                                                                  args.seed + turns, saved=[s for _, s in sheets])]
        t2 = time.perf_counter()
        print(f"after {turns} turns ({'exact' if exact else 'estimated'} {t1 - t0:.1f} s, "
              f"{args.games:,} continuations {t2 - t1:.1f} s)")
        for i, ((w, t, wse, tse), (pw, pt)) in enumerate(zip(shown, got, strict=True)):
            floor = 1 / args.games
            se_w = math.sqrt(max(pw * (1 - pw), floor) / args.games + (wse or 0.0) ** 2)
            se_t = math.sqrt(max(pt * (1 - pt), floor) / args.games + (tse or 0.0) ** 2)
            dw, dt = abs(pw - w) / se_w, abs(pt - t) / se_t
            worst = max(worst, dw, dt)
            mark = "" if wse is None else f" ± {wse:.4f}"
            print(f"  player {i + 1} ({sum(s is not None for c in sheets[i][0] for s in c.scores)} boxes, "
                  f"{sheets[i][1]} saved): win {w:.4f}{mark} shown, {pw:.4f} played ({dw:.2f} SE); "
                  f"tie {t:.4f}, {pt:.4f} ({dt:.2f} SE)")
    print(f"largest difference: {worst:.2f} standard errors (check: at most 3) {'ok' if worst <= 3 else 'FAILED'}")


if __name__ == "__main__":
    main()
