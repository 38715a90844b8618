"""Benchmark: `yahtzee replay --analyze` on one game and on an NDJSON batch, with a cached table;
the compiled grading path side by side with the pure-Python one.

    python benchmarks/bench_analyze.py [--games 1000] [--pure-games 100] [--strategy greedy] [--rules yahtzee]
    python benchmarks/bench_analyze.py --only-full --plain [--repeat 3]

1. Makes sure the strategy table is cached (`yahtzee solve`; in $YAHTZEE_CACHE_DIR or the user
   cache dir) and writes benchmarks/out/analyze-<rules>-<strategy>-<games>.ndjson once (reused),
   complete one-player games from `yahtzee simulate -S <strategy> --log-out` (held dice included).
2. One game: `yahtzee replay --analyze` on the first game, end to end in a child process (best of
   3, interpreter start included), and in-process per game on each path.
3. Games/s per core, in this process pinned to one core (CPU time): the compiled path
   (Analyzer(compiled=True)) on every game, the pure-Python path (strategy.turn.Turn) on the first
   --pure-games of them, the ratio, and the largest difference between their losses.
4. The batch end to end: `yahtzee replay --analyze FILE` in a child on one core (taskset when
   present), for a tenth of the file and for all of it: wall, CPU, peak RSS (os.wait4), to show
   memory is flat. Side by side, the same file through plain `yahtzee replay` (the log walk alone),
   with the ratio: nothing on PyPI grades Yahtzee logs, so the replay of the same games is the reference.
5. The command at full speed: `yahtzee analyze FILE --json -w 1` and `yahtzee analyze FILE -w 1` on
   --full-games (2,000) complete optimal games with held dice (`simulate -S optimal`, seed 1), in a
   child on one core, output written (to /dev/null): games per second of the whole process's CPU
   time (interpreter start, imports and the compiled grader's load included), best of --repeat, and
   the ratio to the bound of 1,000 games/s (1.00x or more meets it).
6. Win-probability costs: `yahtzee analyze FILE --json -w 1` on --win-games (2,000) complete
   two-player games (`simulate --players optimal,greedy`, seed 1), side by side with the same
   command with `--no-win`, in a child on one core: CPU per game of each (start-up included: every
   state's pmf read once), games per CPU second against the bound of 200, the difference per game
   and the ratio (part of every run; alone with --only-win). `--before DIR`: the same command from a
   checkout of earlier code (run from its folder by this Python), on the first --before-games (20)
   games of the same file, with the ratio of games per CPU second.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
WIN_BOUND = 200  # games per CPU second, win costs included (two-player games)


def yahtzee(*args: str) -> list[str]:
    return [sys.executable, "-m", "yahtzee_cli", *args]


def generate(path: Path, games: int, rules: str, strategy: str) -> None:
    if path.exists() and path.stat().st_size > 0:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    subprocess.run(yahtzee("simulate", "-S", strategy, "-n", str(games), "--seed", "1", "--rules", rules,
                           "-w", "1", "--log-out", str(tmp), "--json"), check=True, capture_output=True)
    tmp.rename(path)


def child(args: list[str], pin: bool = True, tree: str | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of a `yahtzee ...` child, on one core unless `pin` is off; output
    discarded. `tree`: run the code of that source tree instead (from its folder)."""
    cmd = yahtzee(*args)
    if pin and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    env = None if tree is None else {**os.environ, "PYTHONPATH": tree}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, cwd=tree, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(args)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--pure-games", type=int, default=100)
    ap.add_argument("--strategy", default="greedy")
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--full-games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only-full", action="store_true", help="only part 5 (the command at full speed)")
    ap.add_argument("--plain", action="store_true", help="part 5 in a plain run of the command (not pinned to a core)")
    ap.add_argument("--win-games", type=int, default=2000)
    ap.add_argument("--before", help="part 6: a checkout of earlier code, run the same way side by side")
    ap.add_argument("--before-games", type=int, default=20, help="part 6: games for --before (its first ones)")
    ap.add_argument("--only-win", action="store_true", help="only part 6 (win-probability costs)")
    args = ap.parse_args()

    if args.only_win:
        subprocess.run(yahtzee("solve", "--rules", args.rules), check=True, capture_output=True)
        win_costs(args)
        return

    if args.only_full:
        subprocess.run(yahtzee("solve", "--rules", args.rules), check=True, capture_output=True)
        full_speed(args)
        return

    subprocess.run(yahtzee("solve", "--rules", args.rules), check=True, capture_output=True)
    path = OUT / f"analyze-{args.rules}-{args.strategy}-{args.games}.ndjson"
    generate(path, args.games, args.rules, args.strategy)
    lines = path.read_bytes().splitlines(keepends=True)
    one = OUT / f"analyze-{args.rules}-{args.strategy}-one.json"
    one.write_bytes(lines[0])
    tenth = OUT / f"analyze-{args.rules}-{args.strategy}-{args.games}-tenth.ndjson"
    tenth.write_bytes(b"".join(lines[: max(2, args.games // 10)]))
    print(f"games: {args.games:,} complete {args.rules} games played by `simulate -S {args.strategy}` "
          f"(seed 1), table cached")

    walls = [child(["replay", "--analyze", str(one)])[0] for _ in range(3)]
    print(f"one game, `yahtzee replay --analyze` end to end (child, interpreter start included): "
          f"best {min(walls) * 1000:.0f} ms of 3")

    import orjson

    from yahtzee_cli.play.analyze import Analyzer

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core: rates per core
    games = [orjson.loads(x) for x in lines]
    rates = {}
    losses = {}
    for label, compiled, sample in (("compiled", True, games), ("pure Python", False, games[: args.pure_games])):
        an = Analyzer(compiled=compiled)
        an.game(games[0])  # the table read (and the compiled kernel loaded)
        t0 = time.process_time()
        losses[label] = [an.game(g, keep_decisions=False).players[0].loss for g in sample]
        cpu = time.process_time() - t0
        rates[label] = len(sample) / cpu
        print(f"in-process, {label} path: {len(sample):,} games in {cpu:.2f} s CPU -> {rates[label]:,.0f} games/s "
              f"per core, {cpu / len(sample) * 1000:.2f} ms a game")
    n = min(len(losses["compiled"]), len(losses["pure Python"]))
    diff = max(abs(a - b) for a, b in zip(losses["compiled"][:n], losses["pure Python"][:n], strict=True))
    print(f"compiled/pure ratio {rates['compiled'] / rates['pure Python']:.0f}x; largest difference in a game's "
          f"loss over the first {n:,} games: {diff:.1e}")

    results = {}
    for label, p, n in (("tenth", tenth, max(2, args.games // 10)), ("all", path, args.games)):
        results[label] = (*child(["replay", "--analyze", str(p)]), n)
    wall, cpu, rss, n = results["all"]
    print(f"batch, `yahtzee replay --analyze` (one core): {n:,} games in {wall:.1f} s wall, {cpu:.1f} s CPU -> "
          f"{n / wall:.1f} games/s; peak RSS {rss / 1024:.0f} MiB")
    s_wall, _, s_rss, s_n = results["tenth"]
    print(f"memory: peak RSS {s_rss / 1024:.0f} MiB for {s_n:,} games, {rss / 1024:.0f} MiB for {n:,} "
          f"(x{n / s_n:.0f} the games, x{rss / s_rss:.2f} the memory)")
    r_wall, r_cpu, _ = child(["replay", str(path)])
    print(f"reference, plain `yahtzee replay` of the same {n:,} games: {r_wall:.1f} s wall, {r_cpu:.1f} s CPU; "
          f"analyze/replay CPU ratio {cpu / r_cpu:.0f}x")
    full_speed(args)
    win_costs(args)


BOUND = 1000.0  # games per second of CPU the command is to reach, end to end, on one core


def full_speed(args: argparse.Namespace) -> None:
    """Part 5: analyze --json and text on complete optimal games, whole process on one core."""
    path = OUT / f"analyze-{args.rules}-optimal-{args.full_games}.ndjson"
    generate(path, args.full_games, args.rules, "optimal")
    n = args.full_games
    pin = not args.plain
    child(["analyze", str(path), "--json", "-w", "1"])  # the compiled grader loaded once (and cached)
    for form in (["--json"], []):
        runs = [child(["analyze", str(path), *form, "-w", "1"], pin) for _ in range(args.repeat)]
        wall, cpu, rss = min(runs, key=lambda r: r[1])
        rate = n / cpu
        command = " ".join(["yahtzee analyze FILE", *form, "-w 1"])
        where = "one core" if pin else "plain run"
        print(f"full speed, `{command}` ({where}, output written): {n:,} optimal games in {cpu:.2f} s CPU, "
              f"best of {args.repeat} ({', '.join(f'{r[1]:.2f}' for r in runs)}) -> {rate:,.0f} games/s; "
              f"{rate / BOUND:.2f}x the bound of {BOUND:,.0f} games/s; {wall:.2f} s wall, "
              f"peak RSS {rss / 1024:.0f} MiB")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


def win_costs(args: argparse.Namespace) -> None:
    """Part 6: analyze --json with and without the win-probability costs on two-player games."""
    n = args.win_games
    path = (OUT / f"analyze-{args.rules}-duel-{n}.ndjson").resolve()
    if not (path.exists() and path.stat().st_size > 0):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        subprocess.run(yahtzee("simulate", "--players", "optimal,greedy", "-n", str(n), "--seed", "1", "--rules",
                               args.rules, "-w", "1", "--log-out", str(tmp), "--json"), check=True, capture_output=True)
        tmp.rename(path)
    child(["analyze", str(path), "--json", "-w", "1"])  # tables, every state's pmfs and kernels made once
    cpu = {}
    for label, extra in (("with win costs", []), ("--no-win", ["--no-win"])):
        runs = [child(["analyze", str(path), "--json", "-w", "1", *extra]) for _ in range(args.repeat)]
        cpu[label] = min(r[1] for r in runs)
        print(f"win costs, `yahtzee analyze FILE --json -w 1{' --no-win' if extra else ''}` (one core): {n:,} "
              f"two-player games in {cpu[label]:.2f} s CPU, best of {args.repeat} "
              f"({', '.join(f'{r[1]:.2f}' for r in runs)}) -> {n / cpu[label]:,.0f} games/s, "
              f"{cpu[label] / n * 1000:.2f} ms a game", flush=True)
    a, b = cpu["with win costs"], cpu["--no-win"]
    rate = n / a
    print(f"with win costs: {rate:,.0f} games per CPU second, {rate / WIN_BOUND:.2f}x the bound of {WIN_BOUND}; "
          f"they add {(a - b) / n * 1000:.2f} ms of CPU a two-player game ({a / b:.2f}x the run without them)")
    if args.before:
        tree = str(Path(args.before).resolve())
        m = min(args.before_games, n)
        part = path.with_name(f"{path.stem}-first-{m}.ndjson")
        with path.open("rb") as src:
            part.write_bytes(b"".join(itertools.islice(src, m)))
        child(["analyze", str(part), "--json", "-w", "1"], tree=tree)  # its own files made once
        runs = [child(["analyze", str(part), "--json", "-w", "1"], tree=tree) for _ in range(args.repeat)]
        old = min(r[1] for r in runs)
        print(f"before ({tree}): {m:,} of the games in {old:.2f} s CPU, best of {args.repeat} "
              f"({', '.join(f'{r[1]:.2f}' for r in runs)}) -> {m / old:,.2f} games/s; "
              f"now {rate / (m / old):,.0f}x as many games per CPU second")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
