"""The exact saved-rolls table's build, end to end, against an earlier checkout's on the same machine.

Runs `yahtzee solve --rules RULES --set saved_rolls_cap=K --json` (and any --set given) in a child
process on an empty cache: wall and CPU time, peak RSS, the table's size on disk and the value it
reports. With --before DIR (a checkout of an earlier commit), the same command from that checkout,
one after the other on the same machine, the ratio of the two, and whether the two tables are the
same to the bit (cell by cell).

    python benchmarks/bench_saved_build.py [--rules maxi-yatzy] [--cap 24] [--set NAME=VALUE ...]
        [--before DIR] [--keep DIR]

Maxi Yatzy at K = 24 takes about 15 to 25 minutes a build on 2 cores and 2.8 GB of disk for each
table; `--rules yatzy --set saved_rolls=on` about a minute.
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

import numpy as np
import orjson


def build(checkout: Path | None, cache: Path, rules: str, sets: list[str]) -> dict[str, float]:
    """One build on an empty cache in a child process: wall and CPU seconds, peak RSS, size, value."""
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(cache)}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    cmd = [sys.executable, "-m", "yahtzee_cli", "solve", "--rules", rules, "--json"]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=str(checkout) if checkout is not None else None)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (cache {cache})")
    data = orjson.loads(out)
    table = max(cache.rglob("*.f32"), key=lambda p: p.stat().st_size, default=None)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024,
            "bytes": float(table.stat().st_size) if table is not None else 0.0,
            "mean": float(data["expected"])}


def same_tables(a: Path, b: Path) -> tuple[bool, int]:
    """Whether the two caches' saved-rolls tables are the same to the bit (and how many cells)."""
    fa = max(a.rglob("*.f32"), key=lambda p: p.stat().st_size)
    fb = max(b.rglob("*.f32"), key=lambda p: p.stat().st_size)
    if fa.stat().st_size != fb.stat().st_size:
        return False, 0
    x = np.memmap(fa, dtype="<u4", mode="r")
    y = np.memmap(fb, dtype="<u4", mode="r")
    step = 1 << 26
    same = all(np.array_equal(x[i:i + step], y[i:i + step]) for i in range(0, len(x), step))
    return same, len(x)


def show(name: str, r: dict[str, float]) -> None:
    print(f"{name:8} wall {r['wall_s']:7.1f} s ({r['wall_s'] / 60:5.1f} min)  CPU {r['cpu_s']:7.1f} s  "
          f"peak {r['peak_rss_mib']:6.0f} MiB  disk {r['bytes'] / 1e9:5.2f} GB  value {r['mean']:.7f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="maxi-yatzy")
    ap.add_argument("--cap", type=int, default=24)
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--before", type=Path, default=None, help="an earlier checkout, built the same way after")
    ap.add_argument("--keep", type=Path, default=None, help="keep the caches here (default: removed)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-saved-build-"))
    sets = [*args.sets, f"saved_rolls_cap={args.cap}"]
    print(f"yahtzee solve --rules {args.rules} " + " ".join(f"--set {s}" for s in sets) + " (empty cache)")
    now = build(None, root / "now", args.rules, sets)
    show("now", now)
    if args.before is not None:
        then = build(args.before, root / "before", args.rules, sets)
        show("before", then)
        same, cells = same_tables(root / "now", root / "before")
        print(f"ratio    wall {then['wall_s'] / now['wall_s']:.2f}x  CPU {then['cpu_s'] / now['cpu_s']:.2f}x  "
              f"tables {'the same to the bit' if same else 'DIFFERENT'} ({cells:,} cells)")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
