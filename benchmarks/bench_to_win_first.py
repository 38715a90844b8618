"""The `to-win` seat's first match on a fresh cache: `yahtzee simulate --players optimal,greedy,to-win
-n GAMES` with nothing built but the shipped tables, then the same command warm; side by side with
other source trees (`--before DIR`: a checkout of earlier code, run from its folder by this Python).

    python benchmarks/bench_to_win_first.py [--games 10] [--runs 2] [--before /tmp/old-checkout]

Per tree: the cold run's wall and CPU time, the peak memory of its largest process and what it left
in the cache; the warm run's wall (best of --runs); the preparation, cold wall minus warm best (what
the seat builds and compiles before its first game). Bounds: prepared in at most 60 s, at most 2 GB
peak and at most 1 GB added to the cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_chances import PEAK, cold, env_for  # (this folder is on the path of a script run from it)

MB = 1e6


def run(label: str, src: str | None, games: int, runs: int) -> dict[str, float]:
    cmd = [sys.executable, "-m", "yahtzee_cli", "simulate", "--players", "optimal,greedy,to-win",
           "-n", str(games), "--seed", "3"]
    cache = Path(tempfile.mkdtemp(prefix="to-win-first-"))
    if src is not None:  # the other tree's package first on the path
        os.environ["PYTHONPATH"] = src
    try:
        wall, cpu, peak_kb, added, _ = cold(cmd, cache)
        warm = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", PEAK, *cmd], env=env_for(cache), check=True, capture_output=True)
            warm.append(time.perf_counter() - t0)
    finally:
        os.environ.pop("PYTHONPATH", None)
        shutil.rmtree(cache, ignore_errors=True)
    got = {"cold": wall, "cpu": cpu, "peak_mb": peak_kb / 1e3, "cache_mb": added / MB, "warm": min(warm)}
    got["prepare"] = got["cold"] - got["warm"]
    ok = got["prepare"] <= 60 and got["peak_mb"] <= 2000 and got["cache_mb"] <= 1000
    print(f"{label:<8} cold {wall:6.1f} s wall {cpu:6.1f} s CPU  peak {got['peak_mb']:6.0f} MB  "
          f"cache +{got['cache_mb']:5.0f} MB  warm {got['warm']:5.1f} s  prepared in {got['prepare']:5.1f} s  "
          f"bounds (60 s, 2 GB, 1 GB): {'met' if ok else 'NOT met'}", flush=True)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--runs", type=int, default=2, help="warm runs (the best counts)")
    ap.add_argument("--before", help="a checkout of earlier code to run the same way, first")
    args = ap.parse_args()
    os.chdir(tempfile.gettempdir())  # (`python -m` puts the working folder first on the path: not a checkout's)
    with open("/proc/loadavg") as f:
        print(f"load average at the start: {f.read().split()[0]}; "
              f"simulate --players optimal,greedy,to-win -n {args.games} --seed 3", flush=True)
    if args.before:
        before = run("before", str(Path(args.before).resolve()), args.games, args.runs)
    after = run("now", None, args.games, args.runs)
    if args.before:
        print(f"prepared {before['prepare'] / after['prepare']:.2f}x faster, "
              f"peak {before['peak_mb'] / after['peak_mb']:.2f}x lower, "
              f"cache {before['cache_mb'] / after['cache_mb']:.2f}x smaller", flush=True)


if __name__ == "__main__":
    main()
