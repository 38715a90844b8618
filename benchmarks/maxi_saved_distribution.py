"""Maxi Yatzy's final score under optimal play with saved rolls (the exact table capped at K) beside
optimal play without them (the table capped at 0: nothing saved), both simulated on the same dice
streams, as a figure and a table.

    python benchmarks/maxi_saved_distribution.py --cap K [--games 1000000] [--seed 1] [--cache DIR]
        [--plot docs/images/maxi-saved.png]

Both come from `yahtzee simulate --rules maxi-yatzy --set saved_rolls_cap=C -n GAMES --json` for
C = K and C = 0 (both tables must be in the cache: `yahtzee solve ... --set saved_rolls_cap=C`;
Maxi Yatzy's exact distribution without saved rolls is beyond the exact distributions' size limit).
The figure gives probability per point on the simulation's bins; the lines the mean, SD and
percentiles of each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson


def command(args: list[str], env: dict[str, str]) -> tuple[dict, float]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "yahtzee_cli", *args], env=env, check=True, stdout=subprocess.PIPE)
    return orjson.loads(out.stdout), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, required=True)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None, help="the cache holding the tables (default: the user's)")
    ap.add_argument("--plot", type=Path, default=None)
    args = ap.parse_args()
    env = dict(os.environ)
    if args.cache is not None:
        env["YAHTZEE_CACHE_DIR"] = str(args.cache)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    seats = {}
    for cap in (args.cap, 0):
        sim, seconds = command(["simulate", "--rules", "maxi-yatzy", "--set", f"saved_rolls_cap={cap}", "-n",
                                str(args.games), "--seed", str(args.seed), "--json"], env)
        seat = sim["seats"][0]
        if not seat["exact"] or seat.get("saved_rolls_cap") != cap:
            raise SystemExit(f"no exact table with at most {cap} saved rolls in the cache: build it first")
        seats[cap] = seat
        value = command(["solve", "--rules", "maxi-yatzy", "--set", f"saved_rolls_cap={cap}", "--json"], env)[0]
        z = (seat["mean"] - value["expected"]) / seat["sem"]
        what = f"at most {cap} saved rolls" if cap else "no saved rolls (cap 0)"
        print(f"{what}: {seat['games']:,} games, seed {args.seed}, {seconds:.0f} s: mean {seat['mean']:.4f} "
              f"+- {seat['sem']:.4f} ({z:+.2f} SE from the table's {value['expected']:.7f}), SD {seat['sd']:.2f}, "
              f"min {seat['min']}, max {seat['max']}, "
              + ", ".join(f"{k} {v}" for k, v in seat["percentiles"].items()), flush=True)

    def per_point(seat: dict) -> list[tuple[int, float]]:
        width = int(seat["histogram"]["width"])
        # each bin's probability spread over its points: a pmf per point, whose sum is the CDF
        return [(s, b["count"] / seat["games"] / width) for b in seat["histogram"]["bins"]
                for s in range(b["low"], b["low"] + width)]

    if args.plot is not None:
        from yahtzee_cli.formats.plot import distribution_figure

        with_saves, without = seats[args.cap], seats[0]
        label = f"saved rolls (at most {args.cap}): mean {with_saves['mean']:.1f}"
        distribution_figure([(label, per_point(with_saves)),
                             (f"no saved rolls: mean {without['mean']:.1f}", per_point(without))], args.plot,
                            title=f"Maxi Yatzy under optimal play, {args.games:,} simulated games each")
        print(f"figure: {args.plot}")


if __name__ == "__main__":
    main()
