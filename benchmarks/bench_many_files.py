"""Benchmark: `yahtzee validate` on many small files against the same games as one NDJSON stream.

    python benchmarks/bench_many_files.py [--games 2000] [--repeat 3]

1. Writes benchmarks/out/many-<games>/ once (reused later): complete games of random legal play
   (`yahtzee simulate -S random --log-out`), as one NDJSON file, as one compact JSON file per game,
   and as one pretty-printed JSON file per game (indented, as people save them).
2. Runs, interleaved `--repeat` times, `yahtzee validate --quiet` on the NDJSON file, on the folder
   of compact files and on the folder of pretty files (each a child process, interpreter start
   included), and prints the best wall time of each, games per second and the ratio of each folder
   to the single stream (the aim: within 1.5x).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"


def yahtzee() -> list[str]:
    exe = shutil.which("yahtzee")
    return [exe] if exe else [sys.executable, "-m", "yahtzee_cli"]


def generate(games: int) -> tuple[Path, Path, Path]:
    root = OUT / f"many-{games}"
    stream, compact, pretty = root / "games.ndjson", root / "compact", root / "pretty"
    if stream.exists() and compact.is_dir() and pretty.is_dir():
        return stream, compact, pretty
    shutil.rmtree(root, ignore_errors=True)
    compact.mkdir(parents=True)
    pretty.mkdir()
    subprocess.run([*yahtzee(), "simulate", "-S", "random", "-n", str(games), "--seed", "1", "-w", "1",
                    "--log-out", str(stream), "--quiet"], check=True)
    with stream.open("rb") as fh:
        for n, line in enumerate(fh, 1):
            (compact / f"game-{n:06d}.json").write_bytes(line)
            (pretty / f"game-{n:06d}.json").write_text(json.dumps(json.loads(line), indent=2) + "\n")
    return stream, compact, pretty


def wall(path: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([*yahtzee(), "validate", str(path), "--quiet"], check=False)
    if done.returncode != 0:
        sys.exit(f"validate {path} failed with exit status {done.returncode}")
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    stream, compact, pretty = generate(args.games)
    runs: dict[str, list[float]] = {"one NDJSON stream": [], "one compact file per game": [],
                                    "one pretty file per game": []}
    for _ in range(args.repeat):  # interleaved, so a change in load hits every variant alike
        for label, path in zip(runs, (stream, compact, pretty), strict=True):
            runs[label].append(wall(path))
    print(f"{args.games:,} games, best of {args.repeat}, load average {os.getloadavg()[0]:.2f}")
    base = min(runs["one NDJSON stream"])
    for label, times in runs.items():
        best = min(times)
        print(f"  {label:<28} {best:6.2f} s  {args.games / best:8,.0f} games/s  {best / base:5.2f}x the stream  "
              f"(runs {', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
