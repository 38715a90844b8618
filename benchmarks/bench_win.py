"""Win chances of a 4-player Yahtzee game at every point of the game, end to end: `yahtzee replay
FILE --json` on a game cut after 0, 4, 8, ... 48 turns and in the middle of a turn, warm (the early
layers' distributions and the strategy table cached), next to a replay of the finished game (which
needs no chances computed), and the one-time cold cost of the early layers' file.

    python benchmarks/bench_win.py [--runs 3] [--seed 1] [--cache DIR]

Target: every position at most 2 s of wall time warm on this machine kind.
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
from bench_hint import wall  # (this folder is on the path of a script run from it)

from yahtzee_cli.formats.replay import random_log


def positions(seed: int, tmp: Path) -> list[tuple[str, Path]]:
    """(label, file): the game cut at turn starts every 4 turns, and mid-turn (dice showing) at three points."""
    players = ("Ann", "Ben", "Cy", "Dee")
    out = []
    for k in range(0, 52, 4):
        log = random_log("yahtzee", seed, players, turns=k)
        p = tmp / f"turns{k}.json"
        p.write_bytes(orjson.dumps(log))
        out.append((f"after {k} turns", p))
    for k in (5, 23, 41):
        log = random_log("yahtzee", seed, players, turns=k)
        last = log["turns"][-1]
        for key in ("box", "score", "bonus", "column"):
            last.pop(key, None)
        last["rolls"] = last["rolls"][:1]
        last.pop("held", None)
        p = tmp / f"mid{k}.json"
        p.write_bytes(orjson.dumps(log))
        out.append((f"turn {k} after its first roll", p))
    full = random_log("yahtzee", seed, players)
    p = tmp / "finished.json"
    p.write_bytes(orjson.dumps(full))
    out.append(("finished (no chances to compute)", p))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", help="a cache directory to use (default: a new one, so the cold cost is measured)")
    args = ap.parse_args()
    exe = shutil.which("yahtzee") or sys.exit("the yahtzee command is not on PATH (pip install -e .)")
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        cache = args.cache or str(tmp / "cache")
        env = {**os.environ, "YAHTZEE_CACHE_DIR": cache}
        subprocess.run([exe, "solve"], env=env, check=True, capture_output=True)  # the strategy table, not timed
        pos = positions(args.seed, tmp)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; best / median of {args.runs} runs")
        t0 = time.perf_counter()
        subprocess.run([exe, "replay", str(pos[0][1]), "--json"], env=env, check=True, capture_output=True)
        print(f"  first chances (builds the early layers' file once, unless cached): {time.perf_counter() - t0:.1f} s")
        worst = 0.0
        for label, path in pos:
            best, med = wall([exe, "replay", str(path), "--json"], env, args.runs)
            out = orjson.loads(subprocess.run([exe, "replay", str(path), "--json"], env=env, check=True,
                                              capture_output=True).stdout.splitlines()[0])
            wins = " ".join(f"{p['win_probability']:.3f}" for p in out["players"])
            print(f"  {label:<34} {best:6.2f} s best {med:6.2f} s median   P(win) {wins}")
            worst = max(worst, med)
        print(f"slowest position (median): {worst:.2f} s; target 2 s: {'met' if worst <= 2.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
