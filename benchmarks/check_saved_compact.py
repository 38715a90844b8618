"""Every cell of the compact saved-rolls table against a table in the earlier dense layout (every
stock, every filled-box set, every lane: float32 [K + 1, 2**boxes, t + 1]), which that version of the
toolbox wrote as saved-<fingerprint>.f32 with its .json header and .masks rows.

    python benchmarks/check_saved_compact.py DIR [--rules maxi-yatzy --set saved_rolls_cap=24]

DIR holds the dense table's three files; the compact one is read from the cache (build it first:
`yahtzee solve --rules maxi-yatzy --set saved_rolls_cap=24`). Prints, per stock, the cells compared
and the largest absolute difference, then the two tables' values of the empty sheet.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import orjson

from yahtzee_cli.rules.engine import load_rules
from yahtzee_cli.solver import saved
from yahtzee_cli.solver.exact import layout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dense", type=Path)
    ap.add_argument("--rules", default="maxi-yatzy")
    ap.add_argument("--set", action="append", default=None, dest="sets")
    args = ap.parse_args()
    rules = load_rules(args.rules, args.sets or ["saved_rolls_cap=24"])
    name = f"saved-{rules.fingerprint}"
    h = orjson.loads((args.dense / f"{name}.json").read_bytes())
    K, rows, width, t = int(h["cap"]), int(h["rows"]), int(h["width"]), int(h["t"])
    dense = np.memmap(args.dense / f"{name}.f32", dtype="<f4", mode="r", shape=(K + 1, rows, width))
    dmasks = np.fromfile(args.dense / f"{name}.masks", dtype="<i8")
    drow = np.full(1 << len(rules.boxes), -1, np.int64)
    drow[dmasks] = np.arange(len(dmasks))
    tab = saved.read(rules)
    if tab is None:
        raise SystemExit(f"no compact table of {rules.name} in the cache: build it with yahtzee solve first")
    lay, states = tab.lay, layout(saved.without_saved(rules))
    filled = saved.filled_counts(lay.masks, len(rules.boxes))
    worst, cells = 0.0, 0
    for s in range(K + 1):
        n_rows = int(np.sum(lay.tops[filled] >= s))
        masks, nl = lay.masks[:n_rows], lay.nl[:n_rows]
        each = np.repeat(masks, nl)  # a row's lanes: y * ucount + the index of u among its computed totals
        k = np.arange(int(nl.sum())) - np.repeat(np.concatenate([[0], np.cumsum(nl)[:-1]]), nl)
        sub = states.sub_of[each]
        nu = states.ucount[sub]
        y, u = k // nu, states.ulist[sub, k % nu]
        compact = tab.W[lay.sbase[s]:lay.sbase[s + 1]].astype(np.float64)
        diff = float(np.abs(compact - dense[s][drow[each], y * (t + 1) + u]).max()) if len(k) else 0.0
        worst, cells = max(worst, diff), cells + len(k)
        print(f"stock {s:2d}: {len(k):,} cells, largest difference {diff:g}", flush=True)
    print(f"{cells:,} cells compared, largest difference {worst:g}; the empty sheet: compact {tab.mean:.7f}, "
          f"dense {float(h['mean']):.7f}")


if __name__ == "__main__":
    main()
