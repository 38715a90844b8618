"""Before and after a change, side by side in one run: the speed benchmarks on a baseline checkout and
on this one, alternately, each figure with its ratio.

    python benchmarks/bench_before_after.py --before-python /path/to/baseline-venv/bin/python [--rounds 2]

The baseline is another checkout of the project installed (`pip install -e '.[dev,bench]'`) in its own
virtual environment; --before-python is that environment's interpreter, --after-python this one's
(default: the interpreter running this script). Each side runs its own checkout's bench_solve.py,
bench_simulate.py, bench_analyze.py, bench_distribution.py and bench_hint.py --target (the checkout its
interpreter imports yahtzee_cli from: a script may use options the other side lacks), with its `yahtzee`
first on PATH and caches of its own (YAHTZEE_CACHE_DIR and NUMBA_CACHE_DIR under --cache, kept between
rounds: compiled kernels and built tables are loaded, as a user's second run would). --rounds rounds; in
each, every script runs for one side then the other (the first side alternates from round to round), so
load on the machine falls on both sides alike. Each figure is the best over the rounds (the least time,
the most games per second). A side's run that fails stops the comparison.

Printed per figure: before, after, and the after side's cost relative to before (after / before for
times, before / after for rates: above 1 the after side is slower); "WORSE" marks a cost above
--bound (1.10: 10% slower). The yatzy-solver figures the scripts print beside ours (the same package
on both sides) show how much the machine's load moved between the two sides. Then the first-run bound
(bench_first_run.py: a new user's cold `hint` and `simulate` against yatzy-solver's cold build, goal
at most 1.5) for the after side, unless --no-first-run.

Extra arguments to a script: --solve-args, --simulate-args, --analyze-args, --distribution-args
(one string each, e.g. --simulate-args="--games 20000 --repeat 1"; defaults: the scripts' own, with
--games 0 for bench_distribution: the simulated cross-check is a test of the distribution, not its
speed; --target --runs 3 for bench_hint). --only solve simulate ...: those scripts alone.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# figure label, script, regex whose group "v" is the figure, unit ("s" lower is better, "/s" higher is better)
NUM = r"(?P<v>[0-9][0-9,]*\.?[0-9]*)"


@dataclass(frozen=True)
class Figure:
    label: str
    script: str
    pattern: str
    unit: str  # "s": seconds, less is better; "/s": a rate, more is better

    def find(self, text: str) -> float | None:
        m = re.search(self.pattern, text, re.MULTILINE)
        return None if m is None else float(m.group("v").replace(",", ""))


FIGURES = [
    Figure("solve yahtzee: command wall", "bench_solve.py", r"^yahtzee \(theirs.*\n\s+ours\s.*?:\s+" + NUM + " s wall",
           "s"),
    Figure("solve yahtzee: build", "bench_solve.py", r"^yahtzee \(theirs.*\n\s+ours\s.*? wall,\s+" + NUM + " s build",
           "s"),
    Figure("solve yatzy: command wall", "bench_solve.py", r"^yatzy \(theirs.*\n\s+ours\s.*?:\s+" + NUM + " s wall",
           "s"),
    Figure("solve yatzy: build", "bench_solve.py", r"^yatzy \(theirs.*\n\s+ours\s.*? wall,\s+" + NUM + " s build", "s"),
    Figure("solve yahtzee: in-process, with SD", "bench_solve.py", r"^\s+yahtzee\s+with SD\s+" + NUM + " s", "s"),
    Figure("solve yahtzee: in-process, mean only", "bench_solve.py", r"^\s+yahtzee\s+mean only\s+" + NUM + " s",
           "s"),
    Figure("solve yatzy: in-process, with SD", "bench_solve.py", r"^\s+yatzy\s+with SD\s+" + NUM + " s", "s"),
    Figure("(control) yatzy-solver build, yahtzee", "bench_solve.py",
           r"^yahtzee \(theirs.*\n.*\n\s+theirs yatzy-solver\s+:\s+" + NUM + " s wall", "s"),
    Figure("simulate optimal: core", "bench_simulate.py", r"^optimal, yahtzee_cli simulate\(\) \(core\)\s+" + NUM,
           "/s"),
    Figure("simulate optimal: core without the memo", "bench_simulate.py", r"^optimal, core without the memo.*?\s"
           + NUM + " games/s", "/s"),
    Figure("simulate optimal: command", "bench_simulate.py", r"^optimal, `yahtzee simulate` command\s+" + NUM,
           "/s"),
    Figure("simulate greedy: core", "bench_simulate.py", r"^greedy, yahtzee_cli simulate\(\) \(core\)\s+" + NUM,
           "/s"),
    Figure("simulate random: core", "bench_simulate.py", r"^random, yahtzee_cli simulate\(\) \(core\)\s+" + NUM,
           "/s"),
    Figure("(control) yatzy-solver simulate()", "bench_simulate.py", r"^optimal, yatzy-solver simulate\(\)\s+" + NUM,
           "/s"),
    Figure("analyze: one game, replay --analyze", "bench_analyze.py", r"^one game, .*best " + NUM + " ms", "s"),
    Figure("analyze: in-process, compiled path", "bench_analyze.py",
           r"^in-process, compiled path: .*-> " + NUM + " games/s", "/s"),
    Figure("analyze: in-process, pure Python path", "bench_analyze.py",
           r"^in-process, pure Python path: .*-> " + NUM + " games/s", "/s"),
    Figure("analyze: batch replay --analyze, CPU", "bench_analyze.py",
           r"^batch, `yahtzee replay --analyze`.* wall, " + NUM + " s CPU", "s"),
    Figure("analyze: full speed, --json", "bench_analyze.py",
           r"^full speed, `yahtzee analyze FILE --json -w 1`.*-> " + NUM + " games/s", "/s"),
    Figure("analyze: full speed, text", "bench_analyze.py",
           r"^full speed, `yahtzee analyze FILE -w 1`.*-> " + NUM + " games/s", "/s"),
    Figure("distribution yahtzee: CPU", "bench_distribution.py", r"^yahtzee: distribution in .* wall, " + NUM
           + " s CPU", "s"),
    Figure("distribution yahtzee: wall", "bench_distribution.py", r"^yahtzee: distribution in " + NUM + " s wall",
           "s"),
    Figure("distribution yatzy: CPU", "bench_distribution.py", r"^yatzy: distribution in .* wall, " + NUM
           + " s CPU", "s"),
    Figure("distribution yatzy: wall", "bench_distribution.py", r"^yatzy: distribution in " + NUM + " s wall", "s"),
    Figure("hint --target: cold", "bench_hint.py", r"^\s+yahtzee hint .*--target \d+ cold\s+" + NUM + " s", "s"),
    Figure("hint --target: warm", "bench_hint.py", r"^\s+yahtzee hint .*--target \d+ warm\s+" + NUM + " s", "s"),
    Figure("hint --to-win: cold", "bench_hint.py", r"^\s+hint .*--to-win, game start, cold\s+" + NUM + " s", "s"),
    Figure("hint --to-win: warm", "bench_hint.py", r"^\s+hint .*--to-win, game start, warm\s+" + NUM + " s", "s"),
    Figure("hint --to-win: three boxes left", "bench_hint.py", r"^\s+hint .*--to-win, three boxes left\s+" + NUM
           + " s", "s"),
    Figure("(control) yatzy-solver build, hint", "bench_hint.py", r"^\s+yatzy-solver cold build .*?\s" + NUM + " s",
           "s"),
]
SCRIPTS = ["bench_solve.py", "bench_simulate.py", "bench_analyze.py", "bench_distribution.py", "bench_hint.py"]


@dataclass(frozen=True)
class Side:
    name: str
    python: Path
    cache: Path

    def checkout(self) -> Path:
        """The checkout this side's interpreter imports yahtzee_cli from (asked from / so that no
        checkout in the working directory shadows it)."""
        code = "import pathlib, yahtzee_cli; print(pathlib.Path(yahtzee_cli.__file__).resolve().parents[1])"
        res = subprocess.run([str(self.python), "-c", code], env=self.env(), capture_output=True, text=True,
                             cwd="/", check=True)
        return Path(res.stdout.strip())

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("YAHTZEE_CACHE_DIR", "NUMBA_CACHE_DIR")}
        env["PATH"] = f"{self.python.parent}{os.pathsep}{env.get('PATH', '')}"  # its `yahtzee` first
        env["YAHTZEE_CACHE_DIR"] = str(self.cache / "yahtzee")
        env["NUMBA_CACHE_DIR"] = str(self.cache / "numba")
        env.pop("VIRTUAL_ENV", None)
        return env

    def run(self, script: str, extra: list[str]) -> str:
        cmd = [str(self.python), str(self.checkout() / "benchmarks" / script), *extra]
        print(f"[{time.strftime('%H:%M:%S')}] {self.name}: {' '.join(cmd[1:])} (load {os.getloadavg()[0]:.2f})",
              flush=True)
        # not from a checkout's root: `python -m yahtzee_cli` (bench_analyze) would import the package there
        self.cache.mkdir(parents=True, exist_ok=True)
        res = subprocess.run(cmd, check=False, env=self.env(), capture_output=True, text=True, cwd=self.cache)
        if res.returncode != 0:
            sys.exit(f"{self.name}: {script} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
        return res.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before-python", type=Path, required=True, help="the baseline's virtual environment python")
    ap.add_argument("--after-python", type=Path, default=Path(sys.executable))
    ap.add_argument("--cache", type=Path, default=Path("/tmp/yahtzee-bench-before-after"),
                    help="where each side's caches live (CACHE/before, CACHE/after)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--bound", type=float, default=1.10)
    keys = [s.removeprefix("bench_").removesuffix(".py") for s in SCRIPTS]
    ap.add_argument("--only", nargs="+", choices=keys, default=keys, help="run only these scripts")
    ap.add_argument("--no-first-run", action="store_true", help="skip bench_first_run.py")
    for script in SCRIPTS:
        key = script.removeprefix("bench_").removesuffix(".py")
        default = {"distribution": "--games 0", "hint": "--target --runs 3"}.get(key, "")
        ap.add_argument(f"--{key}-args", default=default)
    args = ap.parse_args()
    args.only = [f"bench_{k}.py" for k in args.only]
    sides = [Side("before", args.before_python.absolute(), args.cache / "before"),
             Side("after", args.after_python.absolute(), args.cache / "after")]
    extra = {s: shlex.split(getattr(args, s.removeprefix("bench_").removesuffix(".py") + "_args")) for s in SCRIPTS}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; {args.rounds} rounds, "
          f"alternating; before: {sides[0].checkout()}, after: {sides[1].checkout()}", flush=True)
    outputs: dict[tuple[str, str], list[str]] = {}
    for rnd in range(args.rounds):
        order = sides if rnd % 2 == 0 else sides[::-1]
        for script in args.only:
            for side in order:
                outputs.setdefault((side.name, script), []).append(side.run(script, extra[script]))

    print(f"\n{'figure':<44} {'before':>12} {'after':>12}  cost")
    worse = []
    for fig in FIGURES:
        if fig.script not in args.only:
            continue
        best = {}
        for side in sides:
            found = [v for v in (fig.find(text) for text in outputs[(side.name, fig.script)]) if v is not None]
            best[side.name] = (min(found) if fig.unit == "s" else max(found)) if found else None
        b, a = best["before"], best["after"]
        if b is None or a is None or a == 0 or b == 0:
            print(f"{fig.label:<44} {'-' if b is None else f'{b:,.2f}':>12} {'-' if a is None else f'{a:,.2f}':>12}  "
                  "(not printed)")
            continue
        cost = a / b if fig.unit == "s" else b / a
        unit = "games/s" if fig.unit == "/s" else ("ms" if " ms" in fig.pattern else "s")
        flag = ""
        if cost > args.bound and not fig.label.startswith("(control)"):
            flag = "  WORSE"
            worse.append(fig.label)
        print(f"{fig.label:<44} {b:>12,.2f} {a:>12,.2f}  {cost:.3f} {unit}{flag}")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end; cost = after / before in time (above 1: slower); "
          f"bound {args.bound:.2f}: {'met' if not worse else 'NOT met (' + ', '.join(worse) + ')'}")
    if not args.no_first_run:
        print("\nfirst run (after side, bench_first_run.py):", flush=True)
        print(sides[1].run("bench_first_run.py", []), end="")


if __name__ == "__main__":
    main()
