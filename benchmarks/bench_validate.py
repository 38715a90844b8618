"""Benchmark: `yahtzee validate` on an NDJSON file of complete games, games per second and peak memory.

    python benchmarks/bench_validate.py [--games 100000] [--rules yahtzee] [--players 1] [--workers 2]

1. Writes benchmarks/out/<rules>-<players>p-<games>.ndjson once (reused on later runs): complete
   games of random legal play, with the simulator's random strategy (`yahtzee simulate -S random
   --log-out`, compiled, fast) or, when that is missing, yahtzee_cli.formats.replay.random_log.
2. Runs `yahtzee validate FILE --quiet` as a child process on one core (taskset when present) for
   the whole file and for a tenth of it: wall and CPU time, games/s, and the child's peak RSS
   (os.wait4), to show that memory does not grow with the file.
3. With --workers N: `yahtzee validate FILE --quiet` with 1 worker and with N, run in alternating
   pairs (the faster of `--repeat` pairs each), games/s of each and the ratio, and the peak RSS of
   the N-worker run on the whole file and on a tenth of it (memory stays flat).
4. Side by side, in-process on a sample: JSON parsing alone (the floor) and the exact path
   (pydantic schema + the worded rule walk, what validation costs without the fast path), with
   the ratio. Nothing on PyPI validates these logs, so the exact path is the reference.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"


def generate(path: Path, games: int, rules: str, players: int) -> str:
    if path.exists() and path.stat().st_size > 0:
        return "cached"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    exe = shutil.which("yahtzee")
    if exe:
        cmd = [exe, "simulate", "-S", "random", "-n", str(games), "--seed", "1", "--rules", rules, "-w", "1",
               "--log-out", str(tmp), "--json"]
        if players > 1:
            cmd[2:4] = ["--players", ",".join(["random"] * players)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode == 0 and tmp.exists():
            tmp.rename(path)
            return "yahtzee simulate -S random"
    from yahtzee_cli.formats.logs import dump_line
    from yahtzee_cli.formats.replay import random_log

    names = tuple(f"P{i + 1}" for i in range(players))
    import random

    rng = random.Random(1)
    with open(tmp, "wb") as fh:
        for _ in range(games):
            fh.write(dump_line(random_log(rules, rng, names)))
    tmp.rename(path)
    return "yahtzee_cli.formats.replay.random_log"


def run_validate(path: Path, workers: int | None = None) -> tuple[float, float, int, int]:
    """(wall s, CPU s, peak RSS KiB, exit code) of `yahtzee validate PATH --quiet` in a child: pinned
    to one core, or with `workers` worker processes (CPU and RSS then include the workers')."""
    cmd = [sys.executable, "-m", "yahtzee_cli", "validate", str(path), "--quiet", "--workers", str(workers or 1)]
    if workers is None and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage (not earlier children's)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, child.returncode


def in_process(path: Path, sample: int) -> tuple[float, float, float]:
    """Games/s (CPU) on the first `sample` games: parse only, the exact path, our validate_stream."""
    import orjson

    from yahtzee_cli.formats.logs import check_schema, resolve_rules
    from yahtzee_cli.formats.validate import validate_stream, walk_log

    lines = []
    with open(path, "rb") as fh:
        for line in fh:
            lines.append(line)
            if len(lines) >= sample:
                break
    data = b"".join(lines)

    def parse() -> None:
        for line in lines:
            orjson.loads(line)

    def exact() -> None:
        for line in lines:
            doc = orjson.loads(line)
            kind, problems = check_schema(doc)
            assert kind == "log" and not problems
            assert not walk_log(doc, resolve_rules(doc["rules"])).problems

    def ours() -> None:
        assert all(r.valid for r in validate_stream(io.BytesIO(data)))

    rates = []
    for fn in (parse, exact, ours):
        fn()  # warm the caches (rule tables, memoised scores)
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            fn()
            best = min(best, time.process_time() - t0)
        rates.append(len(lines) / best)
    return rates[0], rates[1], rates[2]


def compare_workers(path: Path, tenth: Path, games: int, workers: int, repeat: int) -> None:
    """1 worker against `workers`, in alternating pairs; the best wall time of each."""
    best: dict[int, float] = {}
    cpu: dict[int, float] = {}
    rss: dict[int, int] = {}
    for _ in range(repeat):
        for n in (1, workers):
            wall, used, peak, code = run_validate(path, n)
            if code != 0:
                sys.exit(f"validate --workers {n} exited {code} on {path}")
            best[n] = min(best.get(n, float("inf")), wall)
            cpu[n] = min(cpu.get(n, float("inf")), used)
            rss[n] = max(rss.get(n, 0), peak)
    one, many = games / best[1], games / best[workers]
    small = run_validate(tenth, workers)[2]
    print(f"yahtzee validate --workers 1: {one:,.0f} games/s; --workers {workers}: {many:,.0f} games/s "
          f"-> {many / one:.2f}x (best of {repeat} alternating pairs, wall time)")
    # CPU of every process of the run: what the workers cost beyond the work itself. On a machine with
    # `workers` idle cores the speed-up is at most workers x this efficiency (load does not change it).
    print(f"CPU per game: {cpu[1] / games * 1e6:.1f} us with 1 worker, {cpu[workers] / games * 1e6:.1f} us with "
          f"{workers} (all processes) -> efficiency {cpu[1] / cpu[workers]:.2f}, at most "
          f"{workers * cpu[1] / cpu[workers]:.2f}x on {workers} idle cores")
    print(f"memory with --workers {workers}: peak RSS {small / 1024:.0f} MiB for a tenth of the file, "
          f"{rss[workers] / 1024:.0f} MiB for all of it")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--sample", type=int, default=5_000, help="games for the in-process comparison")
    ap.add_argument("--workers", type=int, help="also compare 1 worker with this many, side by side")
    ap.add_argument("--repeat", type=int, default=3, help="pairs of runs for --workers (the best of each)")
    args = ap.parse_args()

    path = OUT / f"{args.rules}-{args.players}p-{args.games}.ndjson"
    t0 = time.perf_counter()
    how = generate(path, args.games, args.rules, args.players)
    print(f"games: {args.games:,} complete {args.rules} games, {args.players} player(s), random legal play "
          f"({how}, {time.perf_counter() - t0:.1f} s); {path.stat().st_size / 1e6:.1f} MB")
    tenth = OUT / f"{args.rules}-{args.players}p-{args.games}-tenth.ndjson"
    if not tenth.exists():
        with open(path, "rb") as src, open(tenth, "wb") as dst:
            for i, line in enumerate(src):
                if i >= args.games // 10:
                    break
                dst.write(line)
    results = {}
    for label, p, n in (("tenth", tenth, args.games // 10), ("all", path, args.games)):
        wall, cpu, rss, code = run_validate(p)
        if code != 0:
            sys.exit(f"validate exited {code} on {p}")
        results[label] = (wall, cpu, rss, n)
    wall, cpu, rss, n = results["all"]
    print(f"yahtzee validate (one core): {n:,} games in {wall:.2f} s wall, {cpu:.2f} s CPU -> "
          f"{n / wall:,.0f} games/s wall, {n / cpu:,.0f} games/s CPU; peak RSS {rss / 1024:.0f} MiB")
    small = results["tenth"]
    print(f"memory: peak RSS {small[2] / 1024:.0f} MiB for {small[3]:,} games, {rss / 1024:.0f} MiB for {n:,} "
          f"(x{n / small[3]:.0f} the games, x{rss / small[2]:.2f} the memory)")
    if args.workers:
        compare_workers(path, tenth, args.games, args.workers, args.repeat)
    parse, exact, ours = in_process(path, args.sample)
    print(f"in-process on {args.sample:,} games (CPU): JSON parsing alone {parse:,.0f} games/s; exact path "
          f"(pydantic + worded rule walk) {exact:,.0f} games/s; validate {ours:,.0f} games/s "
          f"= {ours / exact:.1f}x the exact path")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
