"""Estimated chances to win of a 4-player game, for the rule sets without exact score distributions
(Triple Yahtzee, Triple Yatzy, Maxi Yatzy with and without saved rolls) and Yatzy with passes:
`yahtzee log show FILE` on a game cut early, in the middle and late (every player with a fifth, half
and four fifths of their boxes filled).

    python benchmarks/bench_estimated_chances.py [--runs 3] [--seed 1]

Per rule set and position: the wall time of `log show` (best and median of --runs, after one run
that prepares what it needs: the strategy and the compiled kernels), its chances line, and the
largest standard error of the chances in its --json record. Bounds: at most 3 s and 1 percentage point.
Then, per rule set, the first `log show` of the mid-game position on a fresh install (an empty cache,
numba's included: what a new user's first game costs). With --hints, per rule set also `hint --target`
(a target near the rules' median total) and `hint --to-win` (the player to move of the mid-game
log) by games played on, warm: best and median of --runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from bench_chances import env_for  # (this folder is on the path of a script run from it)
from bench_hint import wall

from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules import engine as R

PLAYERS = ("Ann", "Ben", "Cy", "Dee")
# targets near each rule set's median total under its strategy (simulate's p50)
TARGETS = {("triple-yahtzee", ()): 1750, ("triple-yatzy", ()): 1780, ("maxi-yatzy", ()): 450,
           ("maxi-yatzy", ("saved_rolls",)): 400, ("yatzy", ("must_zero",)): 320}
RULES = (("triple-yahtzee", {}), ("triple-yatzy", {}), ("maxi-yatzy", {}), ("maxi-yatzy", {"saved_rolls": False}),
         ("yatzy", {"must_zero": False}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hints", action="store_true", help="only hint --target and --to-win, warm")
    args = ap.parse_args()
    if args.hints:
        hints(args)
        return
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; 4 players")
    print(f"{'rules':<28} {'position':<10} {'method':<9} {'best':>6} {'median':>7} {'max SE':>7}  chances")
    worst_t, worst_se = 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, over in RULES:
            rules = R.preset(name, over)
            label = name + "".join(f" {k}={R.setting_text(v)}" for k, v in over.items())
            spec = {"preset": name, "settings": over} if over else name
            boxes = len(rules.boxes) * rules.settings.columns
            for pos, frac in (("early", 0.2), ("mid-game", 0.5), ("late", 0.8)):
                each = round(boxes * frac)
                log = random_log(rules, args.seed, PLAYERS, spec=spec, turns=len(PLAYERS) * each)
                path = Path(tmp) / f"{name}-{len(over)}-{each}.json"
                path.write_bytes(orjson.dumps(log))
                cmd = [exe, "log", "show", str(path)]
                subprocess.run(cmd, check=True, capture_output=True)  # prepares the strategy, compiles
                best, median = wall(cmd, dict(os.environ), args.runs)
                shown = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
                line = next((ln for ln in shown.splitlines() if ln.startswith("Chances to win")), "(none)")
                rec = orjson.loads(subprocess.run([*cmd, "--json"], check=True, capture_output=True).stdout)
                se = max((p["win_probability_se"] or 0.0 for p in rec["players"]), default=0.0)
                print(f"{label:<28} {pos:<10} {rec['win_probability_method'] or '-':<9} {best:5.2f}s {median:6.2f}s "
                      f"{100 * se:5.2f}pp  {line[len('Chances to win: '):][:70]}", flush=True)
                worst_t, worst_se = max(worst_t, best), max(worst_se, se)
        print("first run on a fresh install (mid-game):")
        for name, over in RULES:
            label = name + "".join(f" {k}={R.setting_text(v)}" for k, v in over.items())
            path = Path(tmp) / f"{name}-{len(over)}-mid.json"
            rules = R.preset(name, over)
            spec = {"preset": name, "settings": over} if over else name
            each = round(len(rules.boxes) * rules.settings.columns * 0.5)
            path.write_bytes(orjson.dumps(random_log(rules, args.seed, PLAYERS, spec=spec, turns=len(PLAYERS) * each)))
            cache = Path(tmp) / f"cold-{name}-{len(over)}"
            t0 = time.perf_counter()
            subprocess.run([exe, "log", "show", str(path)], env=env_for(cache), check=True, capture_output=True)
            print(f"  {label:<28} {time.perf_counter() - t0:6.2f}s", flush=True)
    ok = worst_t <= 3 and worst_se <= 0.01
    print(f"slowest {worst_t:.2f} s (bound 3), largest standard error {100 * worst_se:.2f} pp (bound 1): "
          f"{'met' if ok else 'NOT met'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def hints(args: argparse.Namespace) -> None:
    """hint --target and --to-win by games played on, warm, per rule set."""
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; hints by games played on, warm")
    print(f"{'rules':<28} {'mode':<14} {'best':>6} {'median':>7}  best option")
    with tempfile.TemporaryDirectory() as tmp:
        for name, over in RULES:
            rules = R.preset(name, over)
            label = name + "".join(f" {k}={R.setting_text(v)}" for k, v in over.items())
            spec = {"preset": name, "settings": over} if over else name
            each = round(len(rules.boxes) * rules.settings.columns * 0.5)
            path = Path(tmp) / f"{name}-{len(over)}.json"
            path.write_bytes(orjson.dumps(random_log(rules, args.seed, PLAYERS, spec=spec, turns=len(PLAYERS) * each)))
            dice = ["6", "6", "6", "2", "1"] + ["3"] * (rules.dice - 5)
            sets = [a for k, v in over.items() for a in ("--set", f"{k}={R.setting_text(v)}")]
            target = str(TARGETS[name, tuple(over)])
            for mode, cmd in (("--target " + target, [exe, "hint", *dice, "--rules", name, *sets, "--target", target]),
                              ("--to-win", [exe, "hint", *dice, "--log", str(path), "--to-win"])):
                subprocess.run(cmd, check=True, capture_output=True)  # prepares, compiles
                best, median = wall(cmd, dict(os.environ), args.runs)
                rec = orjson.loads(subprocess.run([*cmd, "--json"], check=True, capture_output=True).stdout)
                print(f"{label:<28} {mode:<14} {best:5.2f}s {median:6.2f}s  {rec['method']}: "
                      f"{rec['best']}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
