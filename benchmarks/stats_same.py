"""Check: `yahtzee stats` prints the same bytes as another version of the toolbox (default: the `main`
branch), for text, --json and --csv, with and without filters, on the fixtures, on a generated mixed
library and on the benchmark's 100,000 games. For changes that must not change what stats prints.

    python benchmarks/stats_same.py [--against REF] [--games 20000] [--big 100000]

1. Extracts REF (`git archive`) into a temporary folder; the other side is this checkout.
2. Writes a mixed library (benchmarks/out/stats-mixed-<games>/, one file a month): every preset and two
   house rules, 1-4 players whose names are spelt several ways, dates (`meta.started`, `meta.date`,
   none), abandoned and unfinished games, damaged lines, a wrong claim, a float die.
3. Runs `python -m yahtzee_cli stats ...` of both versions on each input and option set, and compares
   stdout, stderr and the exit status byte for byte. Prints each difference; exit 1 if any.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import OUT, generate  # noqa: E402  (the benchmark's games file)

RULES: list[object] = [
    "yahtzee", "yatzy", "kniffel", "maxi-yatzy", "triple-yahtzee", "forced-yatzy", "triple-yatzy",
    {"preset": "yahtzee", "settings": {"joker": "free"}},
    {"preset": "kniffel", "settings": {"columns": 3, "column_fill": ["down", "up", "free"]}},
]
NAMES = ["Anna", "anna", "ANNA", "Ben", "Cleo", "Dag", "Émile", "Emile", "Zoë", "Bo", "Anna-Lena", "anna lena"]


def mixed_library(folder: Path, games: int) -> None:
    """A library of `games` games of every kind stats meets, in 12 monthly files (kept when present)."""
    if folder.exists() and any(folder.iterdir()):
        return
    from yahtzee_cli.formats.logs import dump_line, resolve_rules
    from yahtzee_cli.formats.replay import random_log

    tmp = folder.with_suffix(".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    files = {}
    try:
        for i in range(games):
            spec = rng.choice(RULES)
            want = rng.choice((1, 1, 2, 2, 3, 4))
            players: list[str] = []
            while len(players) < want:
                name = rng.choice(NAMES)
                if name not in players:
                    players.append(name)
            turns = rng.randint(0, 20) if rng.random() < 0.03 else None
            game = random_log(resolve_rules(spec), rng, players, spec=spec, turns=turns)
            meta: dict[str, object] = {}
            month = 1 + i * 12 // games
            if rng.random() < 0.8:
                meta["started"] = f"2026-{month:02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"
            elif rng.random() < 0.5:
                meta["date"] = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            if rng.random() < 0.02:
                meta["abandoned"] = True
            if meta:
                game["meta"] = meta
            line = dump_line(game)
            r = rng.random()
            if r < 0.005:
                line = line[: len(line) // 2] + b"\n"  # a damaged line
            elif r < 0.01:
                line = line.replace(b'"score":', b'"score":1', 1)  # a wrong claim
            elif r < 0.012:
                line = line.replace(b"[[", b"[[1.0,", 1)  # a float die
            if month not in files:
                files[month] = (tmp / f"games-2026-{month:02d}.ndjson").open("wb")
            files[month].write(line)
    finally:
        for fh in files.values():
            fh.close()
    tmp.rename(folder)


def cases(mixed: Path, big: Path) -> list[list[str]]:
    fixtures = ROOT / "fixtures"
    out: list[list[str]] = []
    for inputs in ([str(fixtures / "logs")], [str(fixtures / "sheets")], [str(fixtures / "invalid")],
                   [str(fixtures / "poker")], [str(fixtures)], [str(mixed)], [str(big)]):
        for fmt in ([], ["--json"], ["--csv"]):
            out.append([*inputs, *fmt])
    for opts in (["--player", "anna"], ["--player", "Emile", "--player", "bo"], ["--rules", "yatzy"],
                 ["--rules", "yahtzee (joker=free)"], ["--rules", "kniffel"], ["--since", "2026-06-01"],
                 ["--player", "nobody"], ["--rules", "yatzee", "--since", "2026-11-30"]):
        for fmt in ([], ["--json"]):
            out.append([str(mixed), *opts, *fmt])
    return out


def run(tree: Path, args: list[str]) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=str(tree), NO_COLOR="1", COLUMNS="120")
    done = subprocess.run([sys.executable, "-m", "yahtzee_cli", "stats", *args], env=env, capture_output=True,
                          check=False, cwd=tree)
    return done.returncode, done.stdout, done.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="main", help="the git ref to compare with (default: main)")
    ap.add_argument("--games", type=int, default=20_000, help="games in the mixed library")
    ap.add_argument("--big", type=int, default=100_000, help="games in the benchmark file (0: leave it out)")
    args = ap.parse_args()
    mixed = OUT / f"stats-mixed-{args.games}"
    mixed_library(mixed, args.games)
    big = OUT / f"yahtzee-1p-{args.big}.ndjson"
    if args.big:
        generate(big, args.big, "yahtzee", 1)
    with tempfile.TemporaryDirectory(prefix="stats-same-") as tmp:
        other = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "yahtzee_cli"],
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(other, filter="data")
        for tree in (ROOT, other):  # each side imports its own code
            env = dict(os.environ, PYTHONPATH=str(tree))
            where = subprocess.run([sys.executable, "-c", "import yahtzee_cli; print(yahtzee_cli.__file__)"],
                                   env=env, cwd=tree, capture_output=True, text=True, check=True).stdout
            if not Path(where.strip()).is_relative_to(tree):
                raise SystemExit(f"{tree}: imports yahtzee_cli from {where.strip()}")
        differ = 0
        todo = [c for c in cases(mixed, big) if args.big or str(big) not in c]
        for i, case in enumerate(todo, 1):
            # (absolute paths: both sides print the same file names)
            ours, theirs = run(ROOT, case), run(other, case)
            shown = " ".join(a.replace(str(ROOT) + "/", "").replace(str(OUT) + "/", "out/") for a in case)
            if ours == theirs:
                print(f"[{i}/{len(todo)}] same: stats {shown} ({len(ours[1]):,} + {len(ours[2]):,} bytes, "
                      f"exit {ours[0]})")
                continue
            differ += 1
            what = [name for name, a, b in zip(("exit status", "stdout", "stderr"), ours, theirs, strict=True)
                    if a != b]
            print(f"[{i}/{len(todo)}] DIFFERENT ({', '.join(what)}): stats {shown}")
    print(f"{len(todo) - differ} of {len(todo)} the same as {args.against}")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
