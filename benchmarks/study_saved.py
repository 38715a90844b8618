"""Maxi Yatzy with saved rolls capped at K: the optimal value for K = 0, 1, 2, ... until it grows by
less than --until points from one K to the next (or --max-k), each K's table built by
`yahtzee solve --rules maxi-yatzy --set saved_rolls_cap=K --json` in a child process: wall and CPU
time, peak RSS, the table's size and the expected score, one line per K (and --json-out rows).

    python benchmarks/study_saved.py [--from-k 0] [--max-k 30] [--until 0.01] [--cache DIR] [--keep 2]

--keep N deletes the tables of all but the last N caps built (they take (K + 1) x 356 MB each).
After the last K, the remainder is bounded by the geometric tail of the last increments: if each
increment is at most q times the one before, the uncapped value exceeds the last by at most
d q / (1 - q) (d the last increment, q the largest ratio of the last three).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import orjson
from bench_maxi import timed  # (this folder is the script's: sys.path[0])


def run(k: int, env: dict[str, str]) -> dict[str, float]:
    cmd = [sys.executable, "-m", "yahtzee_cli", "solve", "--rules", "maxi-yatzy", "--set", f"saved_rolls_cap={k}",
           "--json"]
    wall, cpu, rss, out = timed(cmd, env)
    rec = orjson.loads(out)
    return {"k": k, "expected": rec["expected"], "wall_s": wall, "cpu_s": cpu, "rss_mib": rss,
            "table_mb": rec["table_bytes"] / 1e6, "built": rec["built"], "path": rec["path"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from-k", type=int, default=0)
    ap.add_argument("--max-k", type=int, default=30)
    ap.add_argument("--until", type=float, default=0.01)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--json-out", type=Path, default=None, help="append each K's row here (NDJSON)")
    args = ap.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="study-saved-"))
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(cache)}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; cache {cache}", flush=True)
    print(f"{'K':>3} {'expected':>12} {'increase':>9} {'wall':>8} {'CPU':>8} {'peak RSS':>9} {'table':>8}", flush=True)
    values: list[float] = []
    paths: list[str] = []
    for k in range(args.from_k, args.max_k + 1):
        row = run(k, env)
        inc = row["expected"] - values[-1] if values else float("nan")
        values.append(row["expected"])
        paths.append(str(row["path"]))
        how = "" if row["built"] else " (cached)"
        print(f"{k:>3} {row['expected']:>12.7f} {inc:>9.4f} {row['wall_s']:>7.1f}s {row['cpu_s']:>7.1f}s "
              f"{row['rss_mib']:>6.0f} MiB {row['table_mb']:>5.0f} MB{how}  load {os.getloadavg()[0]:.2f}", flush=True)
        if args.json_out is not None:
            with args.json_out.open("ab") as fh:
                fh.write(orjson.dumps({**row, "increase": None if inc != inc else inc}) + b"\n")
        for old in paths[: -args.keep] if args.keep > 0 else []:
            for suffix in (".f32", ".json", ".masks"):
                Path(old).with_suffix(suffix).unlink(missing_ok=True)
        if values[1:] and inc < args.until:
            print(f"converged: the increase from K = {k - 1} to {k} is below {args.until}")
            return
    if len(values) >= 4:
        incs = [b - a for a, b in zip(values, values[1:], strict=False)]
        q = max(incs[-1] / incs[-2], incs[-2] / incs[-3], incs[-3] / incs[-4] if len(incs) > 3 else 0.0)
        if q < 1:
            tail = incs[-1] * q / (1 - q)
            print(f"stopped at K = {args.max_k}: with every later increase at most {q:.3f} times the one before, "
                  f"the uncapped value is at most {values[-1] + tail:.4f} ({tail:.4f} above K = {args.max_k})")


if __name__ == "__main__":
    main()
