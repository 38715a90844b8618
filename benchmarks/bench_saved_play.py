"""Optimal play of Maxi Yatzy with saved rolls from its exact table, end to end, against an earlier
checkout on the same machine and the same games.

Runs `yahtzee simulate --rules maxi-yatzy -n N --seed S --log-out FILE` with the cache DIR that holds
the table with at most K saved rolls (built by `yahtzee solve --rules maxi-yatzy --set
saved_rolls_cap=K`; `simulate` plays the largest cap built): games per second of wall time, compile
included (a first run) and not (a second); then without --log-out (compiled), as a batch run of many
games is made (a run that records no games is cut into fewer, larger chunks: `simulate`'s
chunks_per_worker). With --before CHECKOUT, the same from that checkout (its own numba cache), the
ratios, whether both wrote the same games to the byte and whether their batch reports are the same.

    python benchmarks/bench_saved_play.py --cache DIR [--games 4000] [--seed 1] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(checkout: Path | None, cache: Path, numba_dir: Path, games: int, seed: int, out: Path,
        log: bool = True) -> float:
    """Wall seconds of one `simulate` writing its games (log) or its JSON report to `out`."""
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(cache), "NUMBA_CACHE_DIR": str(numba_dir)}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    cmd = [sys.executable, "-m", "yahtzee_cli", "simulate", "--rules", "maxi-yatzy", "-n", str(games),
           "--seed", str(seed), "--json"] + (["--log-out", str(out)] if log else [])
    t0 = time.perf_counter()
    with open(os.devnull if log else out, "wb") as stdout:
        subprocess.run(cmd, env=env, check=True, stdout=stdout, stderr=subprocess.DEVNULL,
                       cwd=str(checkout) if checkout is not None else None)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True, help="the cache holding the saved-rolls table")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--before", type=Path, default=None, help="an earlier checkout, run the same way after")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-saved-play-"))
    rows = [("now", None)] + ([("before", args.before)] if args.before is not None else [])
    rate: dict[str, float] = {}
    for name, checkout in rows:
        first = run(checkout, args.cache, tmp / f"numba-{name}", args.games, args.seed, tmp / f"{name}.ndjson")
        again = run(checkout, args.cache, tmp / f"numba-{name}", args.games, args.seed, tmp / f"{name}.ndjson")
        for _ in range(2):  # (the first compiles the kernel that records nothing)
            batch = run(checkout, args.cache, tmp / f"numba-{name}", args.games, args.seed, tmp / f"{name}.json",
                        False)
        rate[name] = args.games / again
        rate[name + " batch"] = args.games / batch
        print(f"{name:7} {args.games:,} games: first run {first:6.1f} s ({args.games / first:7,.0f} games/s), "
              f"compiled {again:6.1f} s ({args.games / again:7,.0f} games/s), "
              f"without a log {batch:6.1f} s ({args.games / batch:7,.0f} games/s)")
    if "before" in rate:
        same = filecmp.cmp(tmp / "now.ndjson", tmp / "before.ndjson", shallow=False)
        games = "the same to the byte" if same else "DIFFERENT"
        report = "the same" if filecmp.cmp(tmp / "now.json", tmp / "before.json", shallow=False) else "DIFFERENT"
        print(f"ratio   {rate['now'] / rate['before']:.2f}x games/s; games {games}")
        print(f"batch   {rate['now batch'] / rate['before batch']:.2f}x games/s; reports {report}")


if __name__ == "__main__":
    main()
