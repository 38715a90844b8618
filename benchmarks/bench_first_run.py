"""A new user's first run: cold `yahtzee hint` and cold `yahtzee simulate` against yatzy-solver's cold
table build, same run, side by side.

    python benchmarks/bench_first_run.py [--repeat 1]

Each repeat, alternately and each in a fresh cache directory (nothing compiled, no strategy table):
  theirs  yatzy-solver builds its official-Yahtzee table from nothing (`Solver.build`, a new process)
  ours    `yahtzee hint 1 3 3 5 6`                     (kernels compiled, table built, the hint)
  ours    `yahtzee simulate -n 2000 --seed 1 --json`   (kernels compiled, table built, 2,000 games)
Prints wall times (best of --repeat) and the ratios ours / theirs (goal: at most 1.5).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

THEIRS = "import yatzy_solver as ys; ys.Solver.build(ys.Variant('american+forced-joker'))"


def cold(cmd: list[str]) -> tuple[float, str]:
    """Wall time of `cmd` with empty caches; its stderr (what a user sees while waiting)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        env["YAHTZEE_CACHE_DIR"] = tmp
        t0 = time.perf_counter()
        res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        return time.perf_counter() - t0, res.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    try:
        import yatzy_solver  # noqa: F401
    except ImportError:
        sys.exit("yatzy-solver is not installed: pip install 'yahtzee-cli[bench]'")
    cases = [
        ("yatzy-solver cold build", [sys.executable, "-c", THEIRS]),
        ("yahtzee hint 1 3 3 5 6", [exe, "hint", "1", "3", "3", "5", "6"]),
        ("yahtzee simulate -n 2000", [exe, "simulate", "-n", "2000", "--seed", "1", "--json"]),
    ]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; best of {args.repeat}, "
          "fresh caches every run")
    best = {label: float("inf") for label, _ in cases}
    notes: dict[str, str] = {}
    for _ in range(args.repeat):
        for label, cmd in cases:
            seconds, err = cold(cmd)
            best[label] = min(best[label], seconds)
            notes[label] = " | ".join(line for line in err.splitlines() if line.strip())
    theirs = best[cases[0][0]]
    for label, _ in cases:
        ratio = "" if label == cases[0][0] else f"   ratio {best[label] / theirs:5.2f} (goal <= 1.5)"
        print(f"  {label:<26} {best[label]:7.2f} s{ratio}")
    for label, _ in cases[1:]:
        print(f"  stderr of {label}: {notes[label] or '(nothing)'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
