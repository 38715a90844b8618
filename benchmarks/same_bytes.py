"""Byte-identical before and after a change to the engine: hashes of what every part of the engine
produces, written by one checkout and compared with another's.

    python benchmarks/same_bytes.py --out after.json [--python PY] [--cache DIR] [--quick]
    python benchmarks/same_bytes.py --out after.json --compare before.json

--python is the interpreter of the checkout to hash (default: this one); it runs `PY -m yahtzee_cli`
with a cache directory of its own (--cache, default a new temporary one: every table is built, not
loaded). What is hashed, each as the bytes of stdout and the exit status, and of a `solve` every file
it left in the cache, with times (keys naming seconds), table sizes (`table_bytes`, which follow the
digits of the build time) and the cache folder's path made alike:

- `solve --rebuild --json` of every preset and of house rules that change the table (joker free or off, passes
  allowed, Maxi Yatzy without saved rolls), and a saved-rolls table of a small 5-dice sheet (cap 2);
- `solve --distribution --json` and `solve --risk` (distributions and risk tables);
- 100,000 simulated games (`--log-out -`) per built-in strategy, Yatzy's and the saved-rolls sheet's
  optimal games, and 1,000 games of a `to-win` seat against `optimal` (--quick: 100);
- `analyze --json` and `replay --json` of every game-log fixture;
- `hint --json` at 50 positions: first rolls and rerolls of each preset, boxes, `--target`,
  `--distribution`, `--risk`, `--saved` and `--to-win`.

With --compare, the items whose hash differs from the other file's are listed and the exit status
is 1; 0 when every item is the same.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted((ROOT / "fixtures" / "logs").glob("*.json*"))
# Commands run in a folder of their own with the logs and rules file under the same relative names, so
# two checkouts print the same paths.

# the tests' four-box sheet with saved rolls, capped at 2: a saved-rolls table built in seconds
SAVED_RULES = orjson.loads((ROOT / "fixtures" / "rules" / "saved-small.json").read_bytes())
SAVED_RULES["settings"] = {**SAVED_RULES["settings"], "saved_rolls_cap": 2}

PRESETS = ["yahtzee", "kniffel", "yatzy", "forced-yatzy", "triple-yahtzee", "triple-yatzy"]


def items(quick: bool, saved_rules: str) -> list[tuple[str, list[str]]]:
    """(name, arguments) of every command hashed, in order: the tables first, so later commands load
    them as a user's second run would."""
    out: list[tuple[str, list[str]]] = []
    for preset in PRESETS:
        out.append((f"solve {preset}", ["solve", "--rules", preset, "--rebuild", "--json"]))
    for extra in (["--set", "joker=free"], ["--set", "joker=off"], ["--set", "must_zero=off"]):
        out.append((f"solve yahtzee {' '.join(extra)}", ["solve", *extra, "--rebuild", "--json"]))
    out.append(
        ("solve maxi no-save", ["solve", "--rules", "maxi-yatzy", "--set", "saved_rolls=off", "--rebuild", "--json"])
    )
    out.append(("solve saved cap 2", ["solve", "--rules", saved_rules, "--rebuild", "--json"]))
    for preset in ("yahtzee", "yatzy"):
        out.append((f"distribution {preset}", ["solve", "--rules", preset, "--distribution", "--json"]))
    for theta in ("0.02", "-0.02"):
        out.append((f"risk {theta}", ["solve", f"--risk={theta}", "--distribution", "--json"]))
    n = "100000"
    for strategy in ("optimal", "greedy", "random"):
        out.append(
            (f"simulate {strategy}", ["simulate", "-S", strategy, "-n", n, "--seed", "7", "-w", "2", "--log-out", "-"])
        )
    out.append(
        (
            "simulate yatzy optimal",
            ["simulate", "--rules", "yatzy", "-n", n, "--seed", "8", "-w", "2", "--log-out", "-"],
        )
    )
    out.append(("simulate risk 0.02", ["simulate", "--risk", "0.02", "-n", "20000", "--seed", "9", "--json"]))
    out.append(("simulate saved", ["simulate", "--rules", saved_rules, "-n", "20000", "--seed", "9", "--log-out", "-"]))
    out.append(("simulate match", ["simulate", "--players", "optimal,greedy", "-n", "20000", "--seed", "10", "--json"]))
    for log in LOGS:
        out.append((f"replay {log.name}", ["replay", f"logs/{log.name}", "--json"]))
        out.append((f"analyze {log.name}", ["analyze", f"logs/{log.name}", "--json"]))
    out.extend(hints(saved_rules))
    games = "100" if quick else "1000"
    out.append(
        (
            "simulate to-win",
            ["simulate", "--players", "optimal,to-win", "-n", games, "--seed", "1", "-w", "2", "--log-out", "-"],
        )
    )
    return out


def hints(saved_rules: str) -> list[tuple[str, list[str]]]:
    """50 hint positions, drawn from a fixed seed."""
    rng = random.Random(46)
    out: list[tuple[str, list[str]]] = []

    def dice(n: int) -> str:
        return "".join(str(rng.randint(1, 6)) for _ in range(n))

    for preset in ("yahtzee", "yatzy", "forced-yatzy", "triple-yahtzee", "maxi-yatzy"):
        n = 6 if preset == "maxi-yatzy" else 5
        extra = ["--set", "saved_rolls=off"] if preset == "maxi-yatzy" else []
        for rolls_left in (2, 1, 0, 2, 1, 0):
            d = dice(n)
            out.append(
                (
                    f"hint {preset} {d} {rolls_left} {' '.join(extra)}",
                    ["hint", d, "--rules", preset, *extra, "--rolls-left", str(rolls_left), "--json"],
                )
            )
    for i in range(4):
        d = dice(5)
        out.append((f"hint target {d}", ["hint", d, "--target", str(200 + 25 * i), "--json"]))
        out.append((f"hint distribution {d}", ["hint", d, "--distribution", "--json"]))
    for theta in ("0.02", "-0.02"):
        d = dice(5)
        out.append((f"hint risk {theta} {d}", ["hint", d, "--risk", theta, "--json"]))
    for saved in ("0", "1", "2"):
        d = dice(5)
        out.append((f"hint saved {saved} {d}", ["hint", d, "--rules", saved_rules, "--saved", saved, "--json"]))
    for rolls_left in (2, 1, 0):
        d = dice(5)
        out.append(
            (
                f"hint kniffel {d} {rolls_left}",
                ["hint", d, "--rules", "kniffel", "--rolls-left", str(rolls_left), "--json"],
            )
        )
    for log in ("yahtzee.json", "kniffel.json", "in-progress.json"):
        out.append((f"hint log {log}", ["hint", "--log", f"logs/{log}", "--json"]))
    out.append(("hint to-win", ["hint", "--log", "logs/in-progress.json", "--to-win", "--json"]))
    return out[:50]


# what differs between two runs of the same code: times, and the cache folder in the paths printed
TIMES = re.compile(rb'"(\w*(?:seconds|elapsed)\w*)":\s*(?:-?[0-9.]+(?:[eE][+-]?[0-9]+)?|null)')
# a table file's size, which follows its header's length and so the digits of its build time (the file
# itself is hashed apart, its header's padding left out)
SIZES = re.compile(rb'"(table_bytes)":\s*[0-9]+')
TABLE_MAGIC = b"YZTBL02\n"


def canonical(data: bytes, cache: Path) -> bytes:
    """`data` with its times and cache paths made the same for every run; of a table file, its header
    so made and its values (the trailing SHA-256 of the file, which covers the times, left out)."""
    if data[:8] == TABLE_MAGIC and len(data) > 48:
        n = struct.unpack("<Q", data[8:16])[0]
        # (the header is padded with spaces to align the values: its length follows the times')
        return canonical(data[16 : 16 + n].rstrip(b" "), cache) + data[16 + n : -32]
    return SIZES.sub(rb'"\1":0', TIMES.sub(rb'"\1":0', data)).replace(str(cache).encode(), b"CACHE")


def run(python: str, args: list[str], cache: Path, work: Path) -> tuple[str, float]:
    env = dict(os.environ, YAHTZEE_CACHE_DIR=str(cache), NO_COLOR="1", YAHTZEE_PROGRESS_AFTER="3600")
    env.pop("YAHTZEE_RULES", None)
    before = {p: p.stat().st_mtime_ns for p in cache.glob("*") if p.is_file()}
    t = time.perf_counter()
    done = subprocess.run([python, "-m", "yahtzee_cli", *args], capture_output=True, env=env, cwd=work)
    took = time.perf_counter() - t
    h = hashlib.sha256()
    h.update(canonical(done.stdout, cache))
    h.update(b"\0exit %d\0" % done.returncode)
    # the files a table build wrote are part of what it produced (other commands are hashed by their
    # output alone, so that --only may run an item without the builds before it)
    built = args[0] == "solve"
    for p in sorted(cache.glob("*")) if built else []:
        if p.is_file() and not p.name.endswith(".lock") and before.get(p) != p.stat().st_mtime_ns:
            h.update(p.name.encode() + b"\0")
            h.update(canonical(p.read_bytes(), cache))
    if done.returncode not in (0, 1):
        print(f"  {' '.join(args)}: exit {done.returncode}: {done.stderr.decode()[-400:]}", file=sys.stderr)
    return h.hexdigest(), took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--quick", action="store_true", help="100 to-win games instead of 1,000")
    ap.add_argument("--compare", type=Path, help="another run's --out: list what differs")
    ap.add_argument("--only", nargs="+", help="only the items whose name contains one of these")
    a = ap.parse_args()
    cache = a.cache or Path(tempfile.mkdtemp(prefix="same-bytes-"))
    cache.mkdir(parents=True, exist_ok=True)
    work = cache.parent / f"{cache.name}-work"
    (work / "logs").mkdir(parents=True, exist_ok=True)
    for log in LOGS:
        (work / "logs" / log.name).write_bytes(log.read_bytes())
    (work / "saved.json").write_bytes(orjson.dumps(SAVED_RULES))
    hashes: dict[str, str] = {}
    if not a.compare or not a.out.exists():
        for name, args in items(a.quick, "saved.json"):
            if a.only and not any(part in name for part in a.only):
                continue
            digest, took = run(a.python, args, cache, work)
            hashes[name] = digest
            print(f"{took:8.1f} s  {digest[:16]}  {name}", file=sys.stderr, flush=True)
        a.out.write_bytes(orjson.dumps(hashes, option=orjson.OPT_INDENT_2))
    else:
        hashes = orjson.loads(a.out.read_bytes())
    if a.compare:
        other = orjson.loads(a.compare.read_bytes())
        differ = [k for k in hashes if k in other and other[k] != hashes[k]]
        missing = [k for k in hashes if k not in other]
        for k in differ:
            print(f"DIFFERS  {k}")
        for k in missing:
            print(f"only in {a.out}: {k}")
        same = len(hashes) - len(differ) - len(missing)
        print(f"{same} of {len(hashes)} items byte-identical; {len(differ)} differ")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
