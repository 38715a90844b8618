"""Games per second of `yahtzee simulate` against the `yatzy-solver` package's simulator, same run.

    python benchmarks/bench_simulate.py [--games 100000] [--repeat 3] [--workers N]

Both sides play `--games` optimal games of official Yahtzee (forced joker, +100 extra Yahtzees; theirs:
the `american+forced-joker` variant) on every core, with their strategy tables built or loaded
beforehand (not timed). Ours is timed three ways: the core call `simulate()` that the command runs,
the same call without the play kernel's memo of turn decisions (the previous implementation: every
turn's tables computed afresh), and the whole `yahtzee simulate --json` command as a subprocess
(Python start-up, imports and table load included). Every core run starts with an empty memo, as a
command does. Best of `--repeat` runs each. Then greedy and random (ours only: yatzy-solver has no
compiled greedy or random player). Prints the ratios ours / theirs and memo / no memo.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time


def best_of(repeat: int, run) -> tuple[float, object]:  # noqa: ANN001
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    n, rep, workers = args.games, args.repeat, args.workers

    from yahtzee_cli.play import simulate as S
    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import exact

    def fresh(run):  # noqa: ANN001, ANN202 - a core run with an empty memo, as a new command has
        def go():  # noqa: ANN202
            exact._memos.clear()
            return run()
        return go

    def no_memo() -> object:
        key = exact._memo_key
        exact._memo_key = lambda rules, fut: None  # type: ignore[assignment]
        try:
            return S.simulate(rules, ["optimal"], n, 1, workers=workers)
        finally:
            exact._memo_key = key  # type: ignore[assignment]

    rules = R.preset("yahtzee")
    print(f"{n:,} games per run, best of {rep}, {workers} workers, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at start")

    # ours: warm up (strategy table from the cache or built once, compiled kernels loaded)
    S.prepare(rules, ["optimal", "greedy"])
    S.simulate(rules, ["optimal"], 2000, 1, workers=workers)
    S.simulate(rules, ["greedy"], 2000, 1, workers=workers)
    S.simulate(rules, ["random"], 2000, 1, workers=workers)
    cmd = [shutil.which("yahtzee") or "yahtzee", "simulate", "--games", str(n), "--seed", "1", "--json",
           "--workers", str(workers)]
    try:
        import yatzy_solver as ys
    except ImportError:
        sys.exit("yatzy-solver is not installed: pip install 'yahtzee-cli[bench]'")
    t0 = time.perf_counter()
    solver = ys.Solver.build(ys.Variant("american+forced-joker"))
    build = time.perf_counter() - t0
    solver.simulate(2000, seed=1)

    # interleaved rounds, best of each: a busy machine slows both sides alike
    t_ours = t_cli = t_theirs = t_prev = float("inf")
    report: object = None
    theirs: object = None
    for _ in range(rep):
        t, theirs = best_of(1, lambda: solver.simulate(n, seed=1))
        t_theirs = min(t_theirs, t)
        t, report = best_of(1, fresh(lambda: S.simulate(rules, ["optimal"], n, 1, workers=workers)))
        t_ours = min(t_ours, t)
        t, previous = best_of(1, no_memo)
        t_prev = min(t_prev, t)
        assert previous.to_dict()["seats"] == report.to_dict()["seats"]  # type: ignore[attr-defined]
        t, _ = best_of(1, lambda: subprocess.run(cmd, check=True, capture_output=True))
        t_cli = min(t_cli, t)
    ours = report.to_dict()["seats"][0]  # type: ignore[attr-defined]

    rate_ours, rate_cli, rate_theirs = n / t_ours, n / t_cli, n / t_theirs
    print(f"yatzy-solver table build (not timed below): {build:.1f} s")
    print(f"{'optimal, yatzy-solver simulate()':<42} {rate_theirs:>10,.0f} games/s  "
          f"mean {theirs['mean']:.2f} SD {theirs['std_dev']:.2f}")  # type: ignore[index]
    print(f"{'optimal, yahtzee_cli simulate() (core)':<42} {rate_ours:>10,.0f} games/s  "
          f"mean {ours['mean']:.2f} SD {ours['sd']:.2f}")
    print(f"{'optimal, core without the memo (previous)':<42} {n / t_prev:>10,.0f} games/s  "
          f"(memo {rate_ours / (n / t_prev):.2f}x, same games)")
    print(f"{'optimal, `yahtzee simulate` command':<42} {rate_cli:>10,.0f} games/s  (start-up included)")
    print(f"ratio ours/theirs: core {rate_ours / rate_theirs:.2f}x, command {rate_cli / rate_theirs:.2f}x")

    for strategy in ("greedy", "random"):
        t, r = best_of(rep, fresh(lambda s=strategy: S.simulate(rules, [s], n, 1, workers=workers)))
        d = r.to_dict()["seats"][0]  # type: ignore[attr-defined]
        print(f"{strategy + ', yahtzee_cli simulate() (core)':<42} {n / t:>10,.0f} games/s  "
              f"mean {d['mean']:.2f} SD {d['sd']:.2f}  ({n / t / rate_ours:.1f}x optimal)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end (other work on the machine slows both sides)")


if __name__ == "__main__":
    main()
