"""Exact Maxi Yatzy without saved rolls, and what each strategy scores with and without them.

1. `yahtzee solve --rules maxi-yatzy --set saved_rolls=off --json` in a child process (a fresh cache
   unless --cache DIR is given, which keeps the table between runs): wall and CPU time, peak RSS, the
   table's file size, expected score and SD.
2. The exact value against N simulated optimal games (`simulate ... -n N --seed S`): the difference
   in standard errors (within 3 is agreement).
3. Maxi Yatzy with saved rolls (the preset): every strategy over the same G seeded games (the same
   dice streams): the default with no saved-rolls table built (values by stock fitted to that table,
   shipped), the additive heuristic fitted by self-play it replaced, the exact no-save table
   with a value per saved roll (the best of a few candidates by simulated mean, as the heuristic's
   is chosen) or none, and greedy; mean, SE and the difference to the exact no-save value, which
   any strategy could reach by leaving its saved rolls unused.

    python benchmarks/bench_maxi.py [--check-games 1000000] [--games 100000] [--seed 1] [--cache DIR]
        [--saved-cap K]

With --saved-cap K, part 3 also plays the exact table with at most K saved rolls (solver.saved) on
the same games; when that table is not in the cache it is first built by `yahtzee solve --rules
maxi-yatzy --set saved_rolls_cap=K --json` in a child process: wall and CPU time, peak RSS, file size.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, bytes]:
    """Wall seconds, CPU seconds (all threads), peak RSS (MiB) and stdout of a child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check-games", type=int, default=1_000_000)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None, help="keep the tables here (default: a fresh directory)")
    ap.add_argument("--saved-cap", type=int, default=None, metavar="K",
                    help="also the exact table with at most K saved rolls (built when not in the cache)")
    args = ap.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="bench-maxi-"))
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(cache)}
    os.environ["YAHTZEE_CACHE_DIR"] = str(cache)
    yahtzee = [sys.executable, "-m", "yahtzee_cli"]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; cache {cache}")

    wall, cpu, rss, out = timed([*yahtzee, "solve", "--rules", "maxi-yatzy", "--set", "saved_rolls=off", "--json"],
                                env)
    solved = orjson.loads(out)
    exact = float(solved["expected"])
    built = "built" if solved["built"] else "read from the cache"
    print(f"exact table: expected {exact:.7f}, SD {solved['sd']:.4f}, {solved['states']:,} states, "
          f"{(solved['table_bytes'] or 0) / 2**20:,.1f} MiB file; {built} in {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU, peak RSS {rss:,.0f} MiB (load {os.getloadavg()[0]:.2f})")

    t0 = time.perf_counter()
    out = subprocess.run([*yahtzee, "simulate", "--rules", "maxi-yatzy", "--set", "saved_rolls=off", "-n",
                          str(args.check_games), "--seed", str(args.seed), "--json"], env=env, check=True,
                         capture_output=True).stdout
    seat = orjson.loads(out)["seats"][0]
    z = (seat["mean"] - exact) / seat["sem"]
    print(f"{args.check_games:,} simulated optimal games: {seat['mean']:.4f} +- {seat['sem']:.4f} (SE); "
          f"{z:+.2f} SE from the exact value ({time.perf_counter() - t0:.0f} s)")

    import dataclasses

    from yahtzee_cli.rules.engine import preset
    from yahtzee_cli.solver import approx, policy
    from yahtzee_cli.solver.exact import get_table, play_with

    rules = preset("maxi-yatzy")
    table = get_table(preset("maxi-yatzy", {"saved_rolls": False}))[0].value_to_go(exact=False)

    def row(name: str, totals: object) -> None:
        import numpy as np

        t = np.asarray(totals, dtype=np.float64)
        mean, se = float(t.mean()), float(t.std() / math.sqrt(len(t)))
        print(f"  {name:62s} {mean:8.2f} +- {se:.2f}  {mean - exact:+7.2f} vs exact no-save", flush=True)

    print(f"Maxi Yatzy with saved rolls, {args.games:,} games, seed {args.seed} (same dice streams):")
    if args.saved_cap is not None:  # the exact capped table (built first if missing), on the same games
        from yahtzee_cli.solver import saved
        from yahtzee_cli.strategy.choice import capped

        k = args.saved_cap
        tab = saved.read(capped(rules, k))
        if tab is None:  # build it as a user would: one solve in a child process
            load = os.getloadavg()[0]
            wall, cpu, rss, out = timed([*yahtzee, "solve", "--rules", "maxi-yatzy", "--set",
                                         f"saved_rolls_cap={k}", "--json"], env)
            size = orjson.loads(out)["table_bytes"] / 1e9
            how = (f"built by `yahtzee solve --set saved_rolls_cap={k}` in {wall:.1f} s wall, {cpu:.1f} s CPU, "
                   f"peak RSS {rss:,.0f} MiB, {size:.2f} GB file (load {load:.2f} before, "
                   f"{os.getloadavg()[0]:.2f} after)")
            tab = saved.read(capped(rules, k))
            assert tab is not None
        else:
            how = "read from the cache"
        print(f"  (the table with at most {k} saved rolls: value {tab.mean:.7f}, {how})", flush=True)
        row(f"exact table with at most {args.saved_cap} saved rolls", saved.play_with(rules, tab, args.seed, 0,
                                                                                  args.games).totals)
    from yahtzee_cli.solver import saved as saved_tables
    from yahtzee_cli.solver import saved_fit

    model = saved_fit.read(rules)
    if model is not None:
        row(f"values by stock fitted to the table with at most {model.cap} (shipped: optimal, no table built)",
            saved_tables.play_with(rules, model, args.seed, 0, args.games).totals)
    row("additive heuristic fitted by self-play (before the fitted values by stock)",
        play_with(rules, approx.value_to_go(rules), args.seed, 0, args.games).totals)
    value = approx._best_saved_value(rules, lambda v: dataclasses.replace(table, saved_value=v))
    row(f"exact no-save table + fitted saved-roll value ({value:g})",
        play_with(rules, dataclasses.replace(table, saved_value=value), args.seed, 0, args.games).totals)
    row("exact no-save table, saved rolls valued at 0",
        play_with(rules, table, args.seed, 0, args.games).totals)
    row("greedy", policy.play(rules, "greedy", args.seed, 0, args.games).totals)

if __name__ == "__main__":
    main()
