"""Where a turn of saved-rolls play goes: optimal Maxi Yatzy games from the exact table with at most K
saved rolls, one thread, split into the play kernel's four steps by the CPU's cycle counter.

    python benchmarks/profile_saved_play.py --cache DIR [--games 2000] [--seed 1]

DIR holds the table (`yahtzee solve --rules maxi-yatzy --set saved_rolls_cap=24`). The script compiles
an instrumented copy of play_kernel.play_saved_games (the module's own source, with counters read
around each step; it stops with a message if that source no longer has the steps it expects) and
plays the same games as the kernel. Printed per turn: the next-state values read from the table,
the final-roll values by stock (a lane per sheet and stock a stop can leave), the keep values of each
block of sheets side by side, and the dice and box writing; how many sheets were valued (games whose
sheets are alike share one) and the levels each costs. Only the split is
the script's own: the total is one thread's games per second, which `bench_saved_play.py` measures
end to end.
"""

from __future__ import annotations

import argparse
import inspect
import os
import time
from typing import Any

import numpy as np

# the counters, by the line of play_saved_games each goes around (found by what it starts with, once):
# (line start, inserted before the line, inserted after it); an inserted line takes the indentation
# given, relative to the line's own
PROBES = [
    ("_stock_next_values(NVS[i], FC[i], cells, work, fut, stocks, top, ra)",
     ["c0 = _cycles()"], ["c1 = _cycles()", "cyc[0] += c1 - c0"]),
    ("_stock_lanes(lw, NVS[i], FC[i],", [], ["cyc[1] += _cycles() - c1", "cyc[5] += top + 1"]),
    ("lanes_best(off, ra, lw)", ["c1 = _cycles()"], []),
    ("keep_values_lanes(FS, EJ, E, T, lw.starts, Jall,",
     ["c2 = _cycles()", "cyc[1] += c2 - c1"],
     ["c3 = _cycles()", "cyc[2] += c3 - c2", "cyc[6] += Jall", "cyc[4] += 1", "cyc[7] += nbk"]),
    ("mark_box(written, at, y_box, scores, ybonus, s_mask, s_upper, s_y, s_raw, is_upper)", [],
     ["<<cyc[3] += _cycles() - c3"]),
]
STEPS = ["next-state values", "final-roll values", "keep values", "dice and box"]


def instrumented() -> Any:
    """play_saved_games compiled with cycle counters: (game, ra, fut, stocks, out, work, scratch, log,
    start, cyc), cyc uint64[8] added to."""
    from llvmlite import ir
    from numba import njit, types
    from numba.core import cgutils
    from numba.extending import intrinsic

    from yahtzee_cli.solver import play_kernel

    @intrinsic
    def _cycles(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                                "llvm.readcyclecounter")
            return builder.call(fn, [])

        return types.uint64(), codegen

    src = inspect.getsource(play_kernel.play_saved_games.py_func)
    lines = src[src.index("def play_saved_games("):].splitlines()
    for start, before, after in PROBES:
        at = [i for i, line in enumerate(lines) if line.strip().startswith(start)]
        if len(at) != 1:
            raise SystemExit(f"play_saved_games no longer has one step {start!r}: update PROBES")
        i = at[0]
        indent = len(lines[i]) - len(lines[i].lstrip())

        def placed(text: str, indent: int = indent) -> str:
            out = text.lstrip("<")
            return " " * (indent - 4 * (len(text) - len(out))) + out  # each "<": one level out

        lines[i:i + 1] = [*map(placed, before), lines[i], *map(placed, after)]
    src = "\n".join(lines) + "\n"
    src = src.replace("log: Any, start: Any) -> None:", "log: Any, start: Any, cyc: Any) -> None:", 1)
    space = {**vars(play_kernel), "_cycles": _cycles}
    exec(compile(src, "<instrumented play_saved_games>", "exec"), space)  # (the module's own source)
    return njit(nogil=True)(space["play_saved_games"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True, help="the cache holding the saved-rolls table")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cap", type=int, default=24, help="the table's saved_rolls_cap")
    args = ap.parse_args()
    os.environ["YAHTZEE_CACHE_DIR"] = args.cache
    from yahtzee_cli.rules.engine import load_rules
    from yahtzee_cli.solver import saved
    from yahtzee_cli.solver.play_kernel import SAVED_LANES

    rules = load_rules("maxi-yatzy", [f"saved_rolls_cap={args.cap}"])
    tab = saved.read(rules)
    if tab is None:
        raise SystemExit(f"no finished table with at most {args.cap} saved rolls in {args.cache}")
    kernel = instrumented()
    n = args.games
    for _ in range(2):  # the first compiles
        a = saved.play_args(rules, tab, n)
        cyc = np.zeros(8, np.uint64)
        t0 = time.perf_counter()
        kernel((args.seed, 0, 0), *a[1:], cyc)
        dt = time.perf_counter() - t0
    turns = n * len(rules.boxes)
    c = cyc.astype(float)
    hz = c[:4].sum() / dt  # (the steps are nearly all of the time)
    print(f"{n:,} games, one thread: {n / dt:,.0f} games/s, {dt / turns * 1e6:.1f} us a turn "
          f"(counter {hz / 1e9:.2f} GHz over the steps)")
    for i, name in enumerate(STEPS):
        print(f"  {name:18} {c[i] / c[:4].sum() * 100:5.1f}%  {c[i] / hz / turns * 1e6:6.2f} us a turn")
    lanes = SAVED_LANES
    sheets, blocks = c[7], c[4]
    print(f"  sheets valued: {sheets / turns:.3f} a game's turn (the games whose sheets are alike, once)")
    print(f"  final-roll values: {c[5] / sheets:.2f} stocks a sheet valued, {c[1] / hz / c[5] * 1e6:.2f} us each")
    print(f"  keep values: {c[6] / blocks:.2f} levels a block of up to {lanes} sheets ({sheets / blocks:.1f} on "
          f"average), {c[2] / hz / (c[6] * sheets / blocks) * 1e6:.2f} us a sheet and level")


if __name__ == "__main__":
    main()
