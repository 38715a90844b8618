"""A match of the `to-win` seat against `optimal` seats (maximising the expected score), on the same
dice from every seat: each game number g is played once with to-win in each seat (the other seats
optimal), with the same seed, so seat s of game g always rolls rng.stream(seed, g, s) whoever sits
there. Two players: `yahtzee simulate --players to-win,optimal` and `--players optimal,to-win`;
three: to-win in seat 1, 2 and 3 of `optimal,optimal,optimal`; and so on. Played in chunks on
worker processes.

Prints how long the seat took to prepare (its tables built or read in this process), then, as the
chunks come in and at the end: games, to-win's wins, shared first places and losses, its share of
first place (a tie for first shared equally) against 1/players, an optimal seat's share were it as
strong, and the 99% confidence interval of that share. The interval is computed over the groups of
games (one per game number: the game from every seat, i.i.d.), which is the design's own variance:
when to-win plays as optimal would, a group's games mirror each other and cancel. The plain
binomial interval (as if the games were independent) is printed too; it is wider.

    nice -n 15 python benchmarks/bench_to_win_match.py --games 20000 --seed 1 --workers 2
    nice -n 15 python benchmarks/bench_to_win_match.py --players 3 --games 21000 --seed 1 --workers 2
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


def _chunk(args: tuple[str, int, int, int, int, int]) -> tuple[int, int, Any]:
    """(first game, to-win's seat, its share of first place per game: 1 alone on top, 1/k tied with
    k - 1 others, else 0)."""
    rules_name, seed, first, n, players, seat = args
    from yahtzee_cli.play.simulate import play_match
    from yahtzee_cli.rules import engine as R

    rules = R.preset(rules_name)
    strategies = ["optimal"] * players
    strategies[seat] = "to-win"
    b = play_match(rules, strategies, seed, first, n, threads=1)
    totals = np.stack([x.totals for x in b])  # [seat, game]
    top = totals.max(axis=0)
    on_top = totals == top
    share = np.where(on_top[seat], 1.0 / on_top.sum(axis=0), 0.0)
    return first, seat, share


def summary(shares: np.ndarray) -> dict[str, Any]:
    """The match's figures from to-win's shares, [seat it sat in, game]: each game number was played
    once from every seat (a group, i.i.d. across game numbers)."""
    players, groups = shares.shape
    flat = shares.reshape(-1)
    games = len(flat)
    rate = float(flat.mean())
    group = shares.mean(axis=0)
    se_group = float(group.std(ddof=1)) / math.sqrt(groups) if groups > 1 else float("nan")
    se_binom = math.sqrt(rate * (1 - rate) / games)
    return {"games": games, "players": players, "wins": int((flat == 1).sum()),
            "ties": int(((flat > 0) & (flat < 1)).sum()), "losses": int((flat == 0).sum()), "rate": rate,
            "ci99": (rate - Z99 * se_group, rate + Z99 * se_group),
            "ci99_binomial": (rate - Z99 * se_binom, rate + Z99 * se_binom)}


def line(s: dict[str, Any], seconds: float) -> str:
    lo, hi = s["ci99"]
    blo, bhi = s["ci99_binomial"]
    fair = 1 / s["players"]
    verdict = "beats optimal" if lo > fair else "not shown better than optimal"
    return (f"games {s['games']:,}  wins {s['wins']:,}  shared {s['ties']:,}  losses {s['losses']:,}  "
            f"share of first {s['rate']:.4f} (an optimal seat's would be {fair:.4f})  "
            f"99% interval [{lo:.4f}, {hi:.4f}] (groups; binomial [{blo:.4f}, {bhi:.4f}]): {verdict}  "
            f"{seconds:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000, help="games in all (as many from each seat)")
    ap.add_argument("--players", type=int, default=2, help="seats: to-win and players - 1 optimal ones")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=50, help="games per chunk and seat")
    args = ap.parse_args()
    n = args.players
    groups = args.games // n
    from yahtzee_cli.play.to_win import player
    from yahtzee_cli.rules import engine as R

    start = time.perf_counter()
    player(R.preset(args.rules), lambda m: print(m, file=sys.stderr))  # build what the seat needs, once
    print(f"prepared in {time.perf_counter() - start:.1f} s", flush=True)
    jobs = [(args.rules, args.seed, first, min(args.chunk, groups - first), n, seat)
            for first in range(0, groups, args.chunk) for seat in range(n)]
    got: dict[tuple[int, int], np.ndarray] = {}
    start = time.perf_counter()
    print(f"to-win against {n - 1} optimal seat{'s' if n > 2 else ''}, {args.rules}, seed {args.seed}: "
          f"{n * groups:,} games (each of {groups:,} game numbers played with to-win in each seat)", flush=True)

    def done_groups() -> np.ndarray:
        firsts = sorted({k for k, _ in got if all((k, s) in got for s in range(n))})
        return np.stack([np.concatenate([got[(k, s)] for k in firsts]) for s in range(n)])

    with ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as ex:
        futs = [ex.submit(_chunk, j) for j in jobs]
        done = 0
        for f in as_completed(futs):
            first, seat, share = f.result()
            got[(first, seat)] = share
            done += 1
            if done % (10 * n) == 0 and done < len(jobs):
                shares = done_groups()
                if shares.shape[1] > 1:
                    print(line(summary(shares), time.perf_counter() - start), flush=True)
    print("final: " + line(summary(done_groups()), time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
