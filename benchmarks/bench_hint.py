"""`yahtzee hint` end to end with a cached table, against interpreter start-up and yatzy-solver's
in-process query; `--approx` also measures the approximate strategies against exact play.

    python benchmarks/bench_hint.py [--runs 10] [--approx]
    python benchmarks/bench_hint.py --target [--runs 3]
    python benchmarks/bench_hint.py --target --warm [--runs 5]

1. Wall time of `yahtzee hint 1 3 3 5 6` (table cached; best and median of --runs), next to
   `python -c pass` and `yahtzee --version` (start-up floor), and the biggest imports of the hint
   (python -X importtime). Target: under 300 ms.
2. In-process: one position's values from the cached table (pure Python) vs yatzy-solver's
   `option_values` on the same position (its table built in memory first, not timed).
With --target, only this (the other parts are left out):
4. Playing for a score: `yahtzee hint 1 3 3 5 6 --target 300` cold (a fresh cache: kernels compiled,
   the risk tables built, the position's distributions computed and stored) and warm (best and
   median of --runs), next to yatzy-solver's cold build (a new process) and our own table build
   (`yahtzee solve --rebuild`, fresh cache). Bounds: warm at most 5 s; cold at most twice
   yatzy-solver's cold build plus our table build. Then `hint --to-win` on a two-player game log at
   its first roll (risk strategies), cold in a fresh cache of its own (the same bound), first in the
   cache the target hint used, and warm; and with three boxes each left (exact play), warm. With --warm, only
   the warm rows, in the cache of $YAHTZEE_CACHE_DIR (each command run once first, untimed, so what
   it needs is built), beside yatzy-solver's cold build.
3. With --approx: the heuristic strategy (approx.py, what maxi-yatzy uses) fitted and played on
   plain Yahtzee, where the exact optimum is known; and the multi-column estimate on Triple Yahtzee
   against its simulated mean.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def wall(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--approx", action="store_true")
    ap.add_argument("--target", action="store_true", help="only part 4: hint --target cold and warm")
    ap.add_argument("--warm", action="store_true", help="with --target: only the warm rows, in $YAHTZEE_CACHE_DIR")
    args = ap.parse_args()
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    if args.target:
        if args.warm:
            warm_report(exe, args.runs)
        else:
            target_report(exe, args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "YAHTZEE_CACHE_DIR": tmp}
        subprocess.run([exe, "solve"], env=env, check=True, capture_output=True)  # build the table once
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; best / median of {args.runs} runs")
        rows = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("yahtzee --version", [exe, "--version"]),
            ("yahtzee hint 1 3 3 5 6", [exe, "hint", "1", "3", "3", "5", "6"]),
            ("yahtzee hint 1 3 3 5 6 --rolls-left 0 --json",
             [exe, "hint", "1", "3", "3", "5", "6", "--rolls-left", "0", "--json"]),
        ]
        for label, cmd in rows:
            best, med = wall(cmd, env, args.runs)
            print(f"  {label:<36} {best * 1000:6.0f} ms best {med * 1000:6.0f} ms median")
        res = subprocess.run([sys.executable, "-X", "importtime", "-m", "yahtzee_cli", "hint", "1", "3", "3", "5", "6"],
                             env=env, capture_output=True, text=True, check=True)
        imports = []
        for line in res.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
            if m and len(m.group(3)) <= 2:
                imports.append((int(m.group(2)), m.group(4)))
        imports.sort(reverse=True)
        print("  largest top-level imports of the hint (cumulative):",
              ", ".join(f"{name} {us / 1000:.0f} ms" for us, name in imports[:6]))
        heavy = [name for name in ("numpy", "numba") if re.search(rf"\|\s+{name}$", res.stderr, re.M)]
        print("  numpy/numba imported by the hint:", ", ".join(heavy) or "neither")

        os.environ["YAHTZEE_CACHE_DIR"] = tmp
        from yahtzee_cli.play import hint as position
        from yahtzee_cli.rules import engine as R

        rules = R.preset("yahtzee")
        col = R.Column.empty(rules)
        t0 = time.perf_counter()
        src = position.source_for(rules)
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        ev = position.hint(rules, [col], [1, 3, 3, 5, 6], 2, source=src)
        t_first = time.perf_counter() - t0
        n = 20
        t0 = time.perf_counter()
        for _ in range(n):
            position.hint(rules, [col], [1, 3, 3, 5, 6], 2, source=src)
        t_eval = (time.perf_counter() - t0) / n
        print(f"\nin-process, ours: table read + checksum {t_load * 1000:.1f} ms, first position "
              f"{t_first * 1000:.1f} ms (scores memoised after), then {t_eval * 1000:.1f} ms per position "
              f"(every roll's turn values; best: keep {list(ev.best.keep or ())} {ev.best.value:.4f})")
        try:
            import yatzy_solver as ys
        except ImportError:
            print("yatzy-solver not installed: pip install 'yahtzee-cli[bench]'")
        else:
            s = ys.Solver.build(ys.Variant("american+forced-joker"))
            q = "dice 1 3 3 5 6 | rolls 2 | upper 0 | filled -"
            s.option_values(q)
            t0 = time.perf_counter()
            for _ in range(1000):
                vals = s.option_values(q)
            t_ys = (time.perf_counter() - t0) / 1000
            best = max(vals, key=lambda kv: kv[1])
            print(f"in-process, yatzy-solver option_values: {t_ys * 1e6:.1f} us per position "
                  f"(best {best[0]} {best[1]:.4f}, remaining score)")
        if args.approx:
            approx_report()


THEIRS_BUILD = "import yatzy_solver as ys; ys.Solver.build(ys.Variant('american+forced-joker'))"
TARGET = ["hint", "1", "3", "3", "5", "6", "--target", "300"]


def fresh_env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = tmp
    return env


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def target_report(exe: str, runs: int) -> None:
    try:
        import yatzy_solver  # noqa: F401
    except ImportError:
        sys.exit("yatzy-solver is not installed: pip install 'yahtzee-cli[bench]'")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    with (tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b, tempfile.TemporaryDirectory() as c,
          tempfile.TemporaryDirectory() as d):
        theirs = timed([sys.executable, "-c", THEIRS_BUILD], fresh_env(a))
        build = timed([exe, "solve", "--rebuild"], fresh_env(b))
        env = fresh_env(c)
        cold = timed([exe, *TARGET], env)
        best, med = wall([exe, *TARGET], env, runs)
        from pathlib import Path

        import orjson

        from yahtzee_cli.formats.replay import random_log

        logs = {}
        for k in (0, 20):  # two players: the game's first roll, and three boxes each left (exact play)
            logs[k] = Path(c) / f"game{k}.json"
            logs[k].write_bytes(orjson.dumps(random_log("yahtzee", 1, ("Ann", "Ben"), turns=k)))
        win0 = [exe, "hint", "1", "3", "3", "5", "6", "--log", str(logs[0]), "--to-win"]
        cold_win = timed(win0, fresh_env(d))
        first_win = timed(win0, env)  # after the target hint: the opponent's distribution is the new part
        wbest, wmed = wall(win0, env, runs)
        win20 = [exe, "hint", "1", "3", "3", "5", "6", "--log", str(logs[20]), "--to-win", "--json"]
        lbest, lmed = wall(win20, env, runs)
        method = orjson.loads(subprocess.run(win20, env=env, check=True, capture_output=True).stdout)["method"]
        bound = 2 * theirs + build
        print(f"  yatzy-solver cold build (new process)          {theirs:7.2f} s")
        print(f"  yahtzee solve --rebuild (fresh cache)          {build:7.2f} s")
        print(f"  yahtzee {' '.join(TARGET)} cold   {cold:7.2f} s   ratio to 2 x theirs + our build "
              f"{cold / bound:5.2f} (goal <= 1)")
        print(f"  yahtzee {' '.join(TARGET)} warm   {best:7.2f} s best {med:6.2f} s median of {runs}   "
              f"ratio to theirs' cold build {med / theirs:5.2f}; goal <= 5 s: {'met' if med <= 5 else 'NOT met'}")
        print(f"  hint 1 3 3 5 6 --to-win, game start, cold      {cold_win:7.2f} s   ratio to 2 x theirs + our build "
              f"{cold_win / bound:5.2f} (goal <= 1)")
        print(f"  hint 1 3 3 5 6 --to-win, game start, first     {first_win:7.2f} s (after the target hint)")
        print(f"  hint 1 3 3 5 6 --to-win, game start, warm      {wbest:7.2f} s best {wmed:6.2f} s median   "
              f"ratio to theirs' cold build {wmed / theirs:5.2f}; goal <= 5 s: {'met' if wmed <= 5 else 'NOT met'}")
        print(f"  hint 1 3 3 5 6 --to-win, three boxes left      {lbest:7.2f} s best {lmed:6.2f} s median   "
              f"method {method}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def warm_report(exe: str, runs: int) -> None:
    """The warm rows of target_report in the cache of $YAHTZEE_CACHE_DIR (each command run once first)."""
    from pathlib import Path

    import orjson

    from yahtzee_cli.formats.replay import random_log

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as c:
        theirs = timed([sys.executable, "-c", THEIRS_BUILD], fresh_env(a))
        logs = {}
        for k in (0, 20):  # as target_report: the game's first roll, and three boxes each left
            logs[k] = Path(c) / f"game{k}.json"
            logs[k].write_bytes(orjson.dumps(random_log("yahtzee", 1, ("Ann", "Ben"), turns=k)))
        rows = [("yahtzee " + " ".join(TARGET) + " --top 3", [exe, *TARGET, "--top", "3"]),
                ("hint 1 3 3 5 6 --to-win, game start", [exe, "hint", "1", "3", "3", "5", "6", "--log", str(logs[0]),
                                                         "--to-win", "--top", "3"]),
                ("hint 1 3 3 5 6 --to-win, three boxes left", [exe, "hint", "1", "3", "3", "5", "6", "--log",
                                                                str(logs[20]), "--to-win", "--top", "3"])]
        print(f"  yatzy-solver cold build (new process)          {theirs:7.2f} s")
        for name, cmd in rows:
            subprocess.run(cmd, env=env, check=True, capture_output=True)  # warm: whatever it needs is built
            best, med = wall(cmd, env, runs)
            print(f"  {name:<46} {best:7.2f} s best {med:6.2f} s median of {runs}   ratio to theirs' cold build "
                  f"{med / theirs:5.2f}; goal <= 5 s: {'met' if med <= 5 else 'NOT met'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def approx_report() -> None:
    import numpy as np

    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import approx, policy, value_to_go
    from yahtzee_cli.solver import exact as solver

    print("\napproximate strategies against exact play (seed 7):")
    rules = R.preset("yahtzee")
    tab, _ = solver.get_table(rules)
    t0 = time.perf_counter()
    h, G, yh, sv, form = approx._fit(rules, rules.settings.upper_bonus_threshold)
    fit = time.perf_counter() - t0
    fut = value_to_go.heuristic(rules, h, G, yh, sv)
    n = 50_000
    heur = solver.play_with(rules, fut, 7, 0, n).totals
    opt = policy.play(rules, "optimal", 7, 0, n).totals
    greedy = policy.play(rules, "greedy", 7, 0, n).totals
    # the heuristic's own estimate of the empty sheet
    from yahtzee_cli.strategy import sources

    hs = sources.HeuristicSource(rules, h.ravel().tolist(), G.ravel().tolist(), yh.tolist(),
                                  rules.settings.upper_bonus_threshold, sv)
    est = hs.value(sources.ColumnState(0, 0, False))
    sem = heur.std() / np.sqrt(n)
    print(f"  yahtzee, exact optimum {tab.mean:.2f}; same {n:,} dice streams:")
    print(f"    optimal play    {opt.mean():7.2f} +- {opt.std() / np.sqrt(n):.2f}")
    print(f"    heuristic       {heur.mean():7.2f} +- {sem:.2f}  ({heur.mean() - tab.mean:+.2f} vs exact, "
          f"{100 * (heur.mean() / tab.mean - 1):+.1f}%; fitted in {fit:.1f} s, form {form}; "
          f"its own start estimate {est:.2f})")
    print(f"    greedy          {greedy.mean():7.2f} +- {greedy.std() / np.sqrt(n):.2f}")
    tri = R.preset("triple-yahtzee")
    play = policy.play(tri, "optimal", 7, 0, 20_000).totals
    print(f"  triple-yahtzee: column-sum estimate of the empty sheet {6 * tab.mean:.2f} "
          f"(sum of multipliers x exact single column), simulated approximate play {play.mean():.2f} "
          f"+- {play.std() / np.sqrt(len(play)):.2f} (20,000 games)")


if __name__ == "__main__":
    main()
