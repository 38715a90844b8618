"""A two-player match of the `to-win` seat against `optimal` (maximising the expected score), on the
same dice both ways: game g is played once with to-win in seat 1 and once with the seats swapped, with
the same seed, so each player rolls the other's dice streams in the other game (seat s of game g
always rolls rng.stream(seed, g, s)). The games of one seed are played as those two matches,
`yahtzee simulate --players to-win,optimal` and `--players optimal,to-win`, in chunks on worker
processes.

Prints, as the chunks come in and at the end: games, to-win's wins, ties and losses, its rate (a
tie counts half) and the 99% confidence interval of that rate. The interval is computed over the
pairs of games (one per seed and game number, i.i.d.), which is the design's own variance: when
to-win plays as optimal would, the two games of a pair are mirror images and cancel. The plain
binomial interval (as if the games were independent) is printed too; it is wider.

    nice -n 15 python benchmarks/bench_to_win_match.py --games 20000 --seed 1 --workers 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np

Z99 = 2.5758293035489  # two-sided 99%


def _chunk(args: tuple[str, int, int, int, bool]) -> tuple[int, int, Any]:
    """(first game, direction, shares of to-win per game: 1 win, 0.5 tie, 0 loss)."""
    rules_name, seed, first, n, swapped = args
    from yahtzee_cli.play.simulate import play_match
    from yahtzee_cli.rules import engine as R

    rules = R.preset(rules_name)
    strategies = ["optimal", "to-win"] if swapped else ["to-win", "optimal"]
    b = play_match(rules, strategies, seed, first, n, threads=1)
    me, other = (b[1].totals, b[0].totals) if swapped else (b[0].totals, b[1].totals)
    share = np.where(me > other, 1.0, np.where(me == other, 0.5, 0.0))
    return first, int(swapped), share


def summary(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """The match's figures from to-win's shares in the pairs' two games (a: seat 1, b: seat 2)."""
    shares = np.concatenate([a, b])
    games = len(shares)
    rate = float(shares.mean())
    pair = (a + b) / 2
    se_pair = float(pair.std(ddof=1)) / math.sqrt(len(pair)) if len(pair) > 1 else float("nan")
    se_binom = math.sqrt(rate * (1 - rate) / games)
    return {"games": games, "wins": int((shares == 1).sum()), "ties": int((shares == 0.5).sum()),
            "losses": int((shares == 0).sum()), "rate": rate,
            "ci99": (rate - Z99 * se_pair, rate + Z99 * se_pair),
            "ci99_binomial": (rate - Z99 * se_binom, rate + Z99 * se_binom)}


def line(s: dict[str, Any], seconds: float) -> str:
    lo, hi = s["ci99"]
    blo, bhi = s["ci99_binomial"]
    return (f"games {s['games']:,}  wins {s['wins']:,}  ties {s['ties']:,}  losses {s['losses']:,}  "
            f"rate {s['rate']:.4f}  99% interval [{lo:.4f}, {hi:.4f}] (pairs; binomial [{blo:.4f}, {bhi:.4f}])  "
            f"{seconds:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000, help="games in all (half with the seats swapped)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=50, help="games per chunk and direction")
    args = ap.parse_args()
    pairs = args.games // 2
    from yahtzee_cli.play.to_win import player
    from yahtzee_cli.rules import engine as R

    player(R.preset(args.rules), lambda m: print(m, file=sys.stderr))  # build what the seat needs, once
    jobs = [(args.rules, args.seed, first, min(args.chunk, pairs - first), swapped)
            for first in range(0, pairs, args.chunk) for swapped in (False, True)]
    got: dict[tuple[int, int], np.ndarray] = {}
    start = time.perf_counter()
    print(f"to-win against optimal, {args.rules}, seed {args.seed}: {2 * pairs:,} games "
          f"({pairs:,} with to-win in seat 1, the same with the seats swapped)", flush=True)
    with ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as ex:
        futs = [ex.submit(_chunk, j) for j in jobs]
        done = 0
        for f in as_completed(futs):
            first, swapped, share = f.result()
            got[(first, swapped)] = share
            done += 1
            # the pairs whose two games are both in
            firsts = sorted(k for k, s in got if s == 0 and (k, 1) in got)
            if firsts and (done % 20 == 0 or done == len(jobs)):
                a = np.concatenate([got[(k, 0)] for k in firsts])
                b = np.concatenate([got[(k, 1)] for k in firsts])
                print(line(summary(a, b), time.perf_counter() - start), flush=True)
    firsts = sorted(k for k, s in got if s == 0)
    s = summary(np.concatenate([got[(k, 0)] for k in firsts]), np.concatenate([got[(k, 1)] for k in firsts]))
    print("final: " + line(s, time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
