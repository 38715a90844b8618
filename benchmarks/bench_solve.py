"""Strategy-table build time: `yahtzee solve` against the `yatzy-solver` package, same run.

    python benchmarks/bench_solve.py [--repeat 3] [--cold]

For each rule set (official Yahtzee = theirs "american+forced-joker"; Scandinavian Yatzy = theirs
"yatzy-scandinavian") both sides run as fresh subprocesses, alternately, `--repeat` times:

* ours: `yahtzee solve --rules R --json` with an empty YAHTZEE_CACHE_DIR (the table is built and
  written; compiled kernels come from numba's cache). `build` is the solver's own timing (table
  only); `wall` the whole command (interpreter start, imports, kernel loading, writing the file).
* theirs: `python -c "ys.Solver.build(ys.Variant(V))"`; `build` timed inside, `wall` the process.

The ratio is ours / theirs on wall time (best of the repeats; < 1 means we are faster). Then, in this
process (kernels loaded, warm), the table alone: `solver.build` with and without the SD (second
moment), best of the repeats. Peak memory
is each process's maximum resident set size. `--cold` first runs ours once with an empty numba cache
(NUMBA_CACHE_DIR) to time the one-off kernel compilation. Other users of the machine make figures
noisy: the side-by-side alternation keeps the ratio fair; rerun when the two sides disagree a lot.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CASES = [("yahtzee", "american+forced-joker", 254.5877287), ("yatzy", "yatzy-scandinavian", 248.4399894)]

THEIRS = """
import sys, time, json
import yatzy_solver as ys
t = time.perf_counter()
s = ys.Solver.build(ys.Variant(sys.argv[1]))
b = time.perf_counter() - t
print(json.dumps({"build": b, "expected": s.state_value("upper 0 | filled -")}))
"""


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (bytes) and stdout of a subprocess."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err}")
    return wall, usage.ru_maxrss * 1024, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="also time ours with an empty numba cache")
    args = ap.parse_args()
    try:
        import yatzy_solver  # noqa: F401
    except ImportError:
        sys.exit("yatzy-solver is not installed: pip install 'yahtzee-cli[bench]'")
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.2f} at start; best of {args.repeat}, alternating")
    with tempfile.TemporaryDirectory() as tmp:
        if args.cold:
            env = {**os.environ, "YAHTZEE_CACHE_DIR": os.path.join(tmp, "cold"),
                   "NUMBA_CACHE_DIR": os.path.join(tmp, "numba")}
            wall, _, out = run([exe, "solve", "--json", "--rebuild"], env)
            info = json.loads(out)
            print(f"cold yahtzee solve (kernels compiled, not cached): {wall:.2f} s wall, "
                  f"{info['build_seconds']:.2f} s in build")
        for name, variant, expected in CASES:
            ours: list[tuple[float, float, int]] = []
            theirs: list[tuple[float, float, int]] = []
            info: dict[str, object] = {}
            for i in range(args.repeat):
                # a fresh table cache each time, one numba cache for all (its kernels compiled once, below)
                env = {**os.environ, "YAHTZEE_CACHE_DIR": os.path.join(tmp, f"{name}-{i}"),
                       "NUMBA_CACHE_DIR": os.path.join(tmp, "numba")}
                if i == 0:
                    run([exe, "solve", "--rules", name, "--json", "--rebuild"], env)  # compile, untimed
                # --rebuild: a build every time, never the table the package ships
                wall, rss, out = run([exe, "solve", "--rules", name, "--json", "--rebuild"], env)
                info = json.loads(out)
                assert abs(info["expected"] - expected) < 5e-7, info  # type: ignore[operator]
                ours.append((wall, float(info["build_seconds"]), rss))  # type: ignore[arg-type]
                wall, rss, out = run([sys.executable, "-c", THEIRS, variant], dict(os.environ))
                th = json.loads(out)
                assert abs(th["expected"] - expected) < 5e-7, th
                theirs.append((wall, th["build"], rss))
            ow, ob, orss = min(ours)
            tw, tb, trss = min(theirs)
            size = info["table_bytes"]
            print(f"\n{name} (theirs: {variant}), expected {expected}")
            print(f"  ours   yahtzee solve : {ow:6.2f} s wall, {ob:6.2f} s build, peak RSS {orss / 2**20:6.0f} MiB, "
                  f"table {size / 2**20:.1f} MiB ({info['states']:,} states, SD {info['sd']:.4f} included)")
            print(f"  theirs yatzy-solver  : {tw:6.2f} s wall, {tb:6.2f} s build, peak RSS {trss / 2**20:6.0f} MiB")
            print(f"  ratio ours/theirs    : {ow / tw:.2f} wall, {ob / tb:.2f} build")
    from yahtzee_cli.rules import engine as R
    from yahtzee_cli.solver import exact as solver

    print("\nin-process, warm (table only, no start-up or file):")
    for name, _, _ in CASES:
        rules = R.preset(name)
        solver.build(rules, moments=False)
        for moments in (True, False):
            best = min(_timed(lambda: solver.build(rules, moments=moments)) for _ in range(args.repeat))  # noqa: B023
            print(f"  {name:<8} {'with SD' if moments else 'mean only':<9} {best:6.2f} s")
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")


def _timed(fn) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
