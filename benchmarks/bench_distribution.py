"""The full-size checks of the exact score distribution (too slow for the test suite), with the time
and peak memory of computing it.

For each rule set: build the table in a fresh cache, then time `yahtzee solve --distribution --json`
in a child process (wall time and its peak RSS from wait4), and check what it printed: the pmf sums
to 1 (1e-9), its mean and SD are the table's (1e-6, 1e-4), and it agrees with N simulated optimal
games (Kolmogorov-Smirnov at the 1% level, against the distribution of the simulator's own
tie-breaks). Prints the load average with the figures (timings on a shared machine are noisy).

    python benchmarks/bench_distribution.py [--games 1000000] [--rules yahtzee yatzy]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import orjson


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, bytes]:
    """Wall seconds, CPU seconds (user + system, all threads), peak RSS (MiB) and stdout of a child
    process: on a loaded machine the CPU time says more than the wall time."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode})")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--rules", nargs="+", default=["yahtzee", "yatzy"])
    args = ap.parse_args()
    exe = [sys.executable, "-m", "yahtzee_cli"]
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    for name in args.rules:
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "YAHTZEE_CACHE_DIR": tmp}
            timed(exe + ["solve", "--rules", name], env)  # the table first (and the kernels compiled)
            wall, cpu, rss, out = timed(exe + ["solve", "--rules", name, "--distribution", "--json"], env)
            data = orjson.loads(out)
            pmf = np.array(data["distribution"]["pmf"])
            x, p = pmf[:, 0], pmf[:, 1]
            mean = float(x @ p)
            sd = math.sqrt(float(((x - mean) ** 2) @ p))
            print(f"{name}: distribution in {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MiB "
                  f"(load {os.getloadavg()[0]:.2f})")
            print(f"  sum {p.sum():.15f}  mean {mean:.7f} (table {data['expected']:.7f})  "
                  f"SD {sd:.4f} (table {data['sd']:.4f})")
            ok = abs(p.sum() - 1) < 1e-9 and abs(mean - data["expected"]) < 1e-6 and abs(sd - data["sd"]) < 1e-4
            print(f"  percentiles {data['distribution']['percentiles']}")
            if args.games:
                from yahtzee_cli import distribution as D
                from yahtzee_cli import solver
                from yahtzee_cli.rules import preset

                os.environ["YAHTZEE_CACHE_DIR"] = tmp
                rs = preset(name)
                tab = solver.get_table(rs)[0]
                d = D.final_distribution(rs, tab, solver_ties=False)
                t0 = time.perf_counter()
                totals = solver.play(rs, "optimal", 1, 0, args.games).totals
                sim_s = time.perf_counter() - t0
                emp = np.searchsorted(np.sort(totals), d.scores, side="right") / len(totals)
                ks = float(np.abs(emp - np.cumsum(d.pmf)).max())
                crit = 1.628 / math.sqrt(len(totals))
                print(f"  {args.games:,} simulated games ({sim_s:.1f} s): KS distance {ks:.5f}, "
                      f"1% critical value {crit:.5f} -> {'agrees' if ks < crit else 'DISAGREES'}")
                ok = ok and ks < crit
            print(f"  checks {'pass' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
