"""The first chances to win of a 4-player game, cold and warm, for Yahtzee, Scandinavian Yatzy and
Kniffel: `yahtzee log show FILE` on a game cut in the middle (every player with half their boxes
filled) and early (two boxes each).

    python benchmarks/bench_chances.py [--runs 3] [--rules yahtzee yatzy kniffel] [--seed 1]

Per rule set and position: the first `log show` in a fresh cache (nothing compiled, no table but the
shipped ones: what a new user's first game costs), its wall and CPU time, the peak memory of its
largest process and what it left in the cache; then the same command warm (best and median of --runs).
Bounds (mid-game): cold at most 15 s wall and 1 GB; warm at most 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from bench_hint import wall  # (this folder is on the path of a script run from it)

from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules import engine as R

PLAYERS = ("Ann", "Ben", "Cy", "Dee")
# runs the command and prints the peak resident memory of its largest process (kB): a process of its own,
# so that no earlier run's peak counts
PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True); "
        "sys.stderr.buffer.write(r.stderr); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "sys.exit(r.returncode)")


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def env_for(cache: Path) -> dict[str, str]:
    """This environment with `cache` as the only cache (numba's included)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = str(cache)
    return env


def cold(cmd: list[str], cache: Path) -> tuple[float, float, int, int, str]:
    """(wall s, CPU s, peak kB of the largest process, cache bytes added, stderr) of `cmd`'s first run."""
    env = env_for(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", PEAK, *cmd], env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int(res.stdout.split()[-1]), size_of(cache), res.stderr


def warm(cmd: list[str], cache: Path, runs: int) -> tuple[float, float]:
    """(best, median) wall seconds of `cmd` again, everything it needs in the cache."""
    return wall(cmd, env_for(cache), runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", nargs="+", default=["yahtzee", "yatzy", "kniffel"])
    args = ap.parse_args()
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; 4 players, "
          "a fresh cache per cold run")
    print(f"{'rules':<8} {'position':<22} {'cold wall':>9} {'CPU':>7} {'peak MB':>8} {'cache MB':>9} "
          f"{'warm best':>9} {'median':>7}  chances")
    worst_cold, worst_mem, worst_warm = 0.0, 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rules:
            boxes = len(R.preset(name).boxes)
            for label, each in ((f"mid-game ({boxes // 2} of {boxes} each)", boxes // 2), ("early (2 each)", 2)):
                log = random_log(name, args.seed, PLAYERS, turns=len(PLAYERS) * each)
                path = Path(tmp) / f"{name}-{each}.json"
                path.write_bytes(orjson.dumps(log))
                cache = Path(tmp) / f"cache-{name}-{each}"
                cmd = [exe, "log", "show", str(path)]
                wall_s, cpu, peak, added, _ = cold(cmd, cache)
                best, median = warm(cmd, cache, args.runs)
                shown = subprocess.run(cmd, env=env_for(cache), check=True,
                                       capture_output=True, text=True).stdout
                line = next((ln for ln in shown.splitlines() if ln.startswith("Chances to win")), "(none)")
                print(f"{name:<8} {label:<22} {wall_s:8.2f}s {cpu:6.1f}s {peak / 1024:8.0f} {added / 2**20:9.1f} "
                      f"{best:8.2f}s {median:6.2f}s  {line[len('Chances to win: '):][:60]}", flush=True)
                if each != 2:
                    worst_cold, worst_mem = max(worst_cold, wall_s), max(worst_mem, peak)
                    worst_warm = max(worst_warm, best)
    ok = worst_cold <= 15 and worst_mem <= 1024 * 1024 and worst_warm <= 0.5
    print(f"mid-game: slowest cold {worst_cold:.2f} s (bound 15), largest peak {worst_mem / 1024:.0f} MB (bound 1024), "
          f"slowest warm {worst_warm:.2f} s (bound 0.5): {'met' if ok else 'NOT met'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
