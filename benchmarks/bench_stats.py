"""Benchmark: `yahtzee stats` against `yahtzee validate` on the same NDJSON file of complete games,
games per second of CPU on one core and peak memory.

    python benchmarks/bench_stats.py [--games 100000] [--rules yahtzee] [--players 1] [--repeat 3]

1. Uses the file bench_validate.py writes (benchmarks/out/<rules>-<players>p-<games>.ndjson: complete
   games of random legal play), and a tenth of it.
2. Runs `yahtzee stats FILE --json` (stdout to /dev/null: the whole command, output included) and
   `yahtzee validate FILE --quiet --workers 1` as child processes pinned to one core (taskset when
   present), in alternating pairs, keeping the best of `--repeat` each: CPU seconds (user + system of
   the child), games/s of CPU, and the ratio stats/validate. stats validates every game as validate
   does (it counts only what validate accepts), then tallies.
3. Peak RSS of stats on the whole file and on a tenth of it (the tallies have flat memory: a
   running mean and variance, the last ten scores, no list of games).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import OUT, generate  # noqa: E402  (the same games file)

TARGET = 20_000  # games/s of CPU on one core


def run(args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of `yahtzee ARGS` in a child pinned to one core, stdout discarded."""
    cmd = [sys.executable, "-m", "yahtzee_cli", *args]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(cmd, stdout=null)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"yahtzee {' '.join(args)} failed with exit status {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    path = OUT / f"{args.rules}-{args.players}p-{args.games}.ndjson"
    how = generate(path, args.games, args.rules, args.players)
    tenth = OUT / f"{args.rules}-{args.players}p-{args.games}-tenth.ndjson"
    if not tenth.exists():
        with path.open("rb") as src, tenth.open("wb") as dst:
            for i, line in enumerate(src):
                if i >= args.games // 10:
                    break
                dst.write(line)
    print(f"games: {args.games:,} complete {args.rules} games, {args.players} player(s), random legal play ({how}); "
          f"load average {os.getloadavg()[0]:.2f}")
    best: dict[str, tuple[float, float, int]] = {}
    commands = {"stats": ["stats", str(path), "--json"],
                "validate": ["validate", str(path), "--quiet", "--workers", "1"]}
    for _ in range(args.repeat):
        for name, cmd in commands.items():
            got = run(cmd)
            if name not in best or got[1] < best[name][1]:
                best[name] = got
    for name in commands:
        wall, cpu, rss = best[name]
        print(f"yahtzee {name} (one core, best of {args.repeat}): {wall:.2f} s wall, {cpu:.2f} s CPU -> "
              f"{args.games / cpu:,.0f} games/s of CPU; peak RSS {rss / 1024:.0f} MiB")
    rate = args.games / best["stats"][1]
    print(f"stats / validate: {best['validate'][1] / best['stats'][1]:.2f}x the games/s of CPU")
    print(f"target {TARGET:,} games/s of CPU: {'met' if rate >= TARGET else 'not met'} ({rate:,.0f})")
    small = run(["stats", str(tenth), "--json"])
    growth = best["stats"][2] / small[2]
    print(f"peak RSS of stats: {small[2] / 1024:.0f} MiB on a tenth, {best['stats'][2] / 1024:.0f} MiB on all "
          f"({growth:.2f}x); flat memory (within 10%): {'met' if growth <= 1.10 else 'not met'}")


if __name__ == "__main__":
    main()
