"""Simulation throughput at scale, whole process, side by side with yatzy-solver in one run.

    python benchmarks/bench_throughput.py [--games 10000000] [--their-games 200000]
        [--log-games 1000000] [--reference DIR]

Measures, on official Yahtzee with every core:
  * the move table's first build against the strategy table's build (both in this process, kernels
    compiled; not cached), and the move table's size;
  * `yahtzee simulate -n GAMES --seed 1 --json` as a subprocess with the move table cached (warm):
    games per second for the whole process, peak RSS, and the summary's SHA-256;
  * yatzy-solver's `simulate()` in the same run (its table built beforehand, not timed);
  * `yahtzee simulate -n LOG_GAMES --seed 1 --json --log-out FILE`: games per second written, and the
    SHA-256 of a 100,000-game log;
  * with --reference DIR (a checkout of the code before the move table, e.g. `git worktree add DIR
    6f48666`): the same summary and 100,000-game log made by that code (PYTHONPATH=DIR), and whether
    the hashes agree.
The load average is printed with each figure: the machine is shared, and other work slows every side.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


# The command is started by a small launcher that reports its peak RSS: a child forked from this
# process (which holds the tables built above) would count this process's memory as its own.
LAUNCH = ("import resource, subprocess, sys; "
          "code = subprocess.run(sys.argv[1:], stderr=subprocess.DEVNULL).returncode; "
          "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(code)")


def run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, bytes, int, float]:
    """(seconds, stdout, peak RSS in KiB, CPU seconds) of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", LAUNCH, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env)
    out, err = p.communicate()
    seconds = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - _spent[0]
    _spent[0] += cpu
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode})")
    return seconds, out, int(err.decode().strip() or 0), cpu


_spent = [0.0]  # CPU seconds of the commands run so far (RUSAGE_CHILDREN adds them up)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000_000)
    ap.add_argument("--their-games", type=int, default=200_000)
    ap.add_argument("--log-games", type=int, default=1_000_000)
    ap.add_argument("--reference", type=Path, default=None)
    args = ap.parse_args()

    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import exact, moves

    rules = R.preset("yahtzee")
    print(f"{os.cpu_count()} cores, {load()} at start")
    exact.build(R.preset("forced-yatzy"))  # kernels compiled before anything is timed
    t0 = time.perf_counter()
    tab = exact.build(rules)
    t_table = time.perf_counter() - t0
    fut = tab.value_to_go(exact=True)
    moves.build(R.preset("forced-yatzy"), exact.get_table(R.preset("forced-yatzy"))[0].value_to_go(exact=True))
    t0 = time.perf_counter()
    mt = moves.build(rules, fut)
    t_moves = time.perf_counter() - t0
    print(f"strategy table build {t_table:.2f} s; move table first build {t_moves:.2f} s "
          f"({t_moves / t_table:.2f}x), {mt.meta['states']:,} states, {mt.nbytes / 2**20:.0f} MiB ({load()})")
    moves.get(rules, exact.get_table(rules)[0].value_to_go(exact=True))  # cached for the commands below

    yahtzee = [shutil.which("yahtzee") or "yahtzee", "simulate", "--seed", "1", "--json"]
    with tempfile.TemporaryDirectory() as tmp:  # kernels loaded (or compiled) once, untimed
        run([*yahtzee, "-n", str(moves.USE_GAMES)])
        run([*yahtzee, "-n", str(moves.USE_GAMES), "--log-out", os.path.join(tmp, "warm.ndjson")])

    try:
        import yatzy_solver as ys
    except ImportError:
        sys.exit("yatzy-solver is not installed: pip install 'yahtzee-cli[bench]'")
    solver = ys.Solver.build(ys.Variant("american+forced-joker"))
    solver.simulate(2000, seed=1)
    t0 = time.perf_counter()
    solver.simulate(args.their_games, seed=1)
    rate_theirs = args.their_games / (time.perf_counter() - t0)
    print(f"yatzy-solver simulate(): {rate_theirs:,.0f} games/s ({args.their_games:,} games, {load()})")

    secs, summary, rss, cpu = run([*yahtzee, "-n", str(args.games)])
    rate = args.games / secs
    print(f"yahtzee simulate -n {args.games:,}: {secs:.2f} s, {rate:,.0f} games/s whole process "
          f"({rate / rate_theirs:.1f}x yatzy-solver), {args.games / cpu:,.0f} games per CPU second, "
          f"peak RSS {rss / 1024:.0f} MiB, summary {sha(summary)} ({load()})")

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "games.ndjson")
        secs, _, rss, cpu = run([*yahtzee, "-n", str(args.log_games), "--log-out", log])
        print(f"yahtzee simulate -n {args.log_games:,} --log-out: {secs:.2f} s, {args.log_games / secs:,.0f} games/s "
              f"written ({os.path.getsize(log) / 2**20:,.0f} MiB), {args.log_games / cpu:,.0f} games per CPU second, "
              f"peak RSS {rss / 1024:.0f} MiB ({load()})")
        _, small, _, _ = run([*yahtzee, "-n", "100000", "--log-out", log])
        log_hash = sha(Path(log).read_bytes())
        print(f"100,000-game log {log_hash}, its summary {sha(small)}")
        if args.reference is not None:
            env = {**os.environ, "PYTHONPATH": str(args.reference.resolve())}
            old = [sys.executable, "-m", "yahtzee_cli", "simulate", "--seed", "1", "--json"]
            secs_old, summary_old, _, cpu_old = run([*old, "-n", str(args.games)], env)
            _, small_old, _, _ = run([*old, "-n", "100000", "--log-out", log], env)
            old_hash = sha(Path(log).read_bytes())
            same = summary_old == summary and small_old == small and old_hash == log_hash
            print(f"reference code: summary {sha(summary_old)} ({args.games / secs_old:,.0f} games/s, "
                  f"{args.games / cpu_old:,.0f} per CPU second), "
                  f"100,000-game log {old_hash}, its summary {sha(small_old)}: {'identical' if same else 'DIFFERENT'}")
            if not same:
                sys.exit(1)
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
