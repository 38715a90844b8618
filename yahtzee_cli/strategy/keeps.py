"""Keeps: the sub-multisets of a roll (as face counts), by size then in roll order, with
add-one-die/drop-one-die links: the shape the within-turn programme walks, in strategy.turn and in
the solver's kernels (solver.tables lays these very keeps out as arrays). Pure Python."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from ..rules.engine import FACES, rolls

Counts = tuple[int, ...]


@dataclass(frozen=True)
class Keeps:
    """Keeps (sub-multisets of a roll, as face counts) of n dice, by size, with add/drop links."""

    n: int
    counts: list[Counts]
    index: dict[Counts, int]
    size: list[int]
    add: list[list[int]]  # keep + one die of each face (empty for full keeps)
    drop: list[list[int]]  # keep - one die of a face it holds
    rolls: list[int]  # keep indices of the full rolls
    dice: list[tuple[int, ...]]  # each keep as sorted dice


@cache
def keeps(n: int) -> Keeps:
    dice = [combo for size in range(n + 1) for combo in rolls(size)]  # sorted, so each keep's dice
    counts: list[Counts] = [tuple(map(combo.count, FACES)) for combo in dice]
    index = {c: i for i, c in enumerate(counts)}
    sizes = [len(combo) for combo in dice]
    # Links by arithmetic: a keep's counts as the digits of a base-(n + 1) number, so one die more or
    # less of face f is that number plus or minus (n + 1) ** (f - 1) (a hint's first position builds
    # this: map and dict lookups, not loops over the six faces, as it is a few milliseconds of start-up).
    place = [(n + 1) ** f for f in range(6)]
    value_of = dict(zip(FACES, place, strict=True))
    codes = [sum(map(value_of.__getitem__, combo)) for combo in dice]
    at = {code: i for i, code in enumerate(codes)}
    add = [[at[code + p] for p in place] if size < n else [] for code, size in zip(codes, sizes, strict=True)]
    # the faces a keep holds, in face order (its dice are sorted): one die fewer of each
    drop = [[at[code - value_of[f]] for f in dict.fromkeys(combo)] for combo, code in zip(dice, codes, strict=True)]
    full = [i for i, s in enumerate(sizes) if s == n]
    return Keeps(n, counts, index, sizes, add, drop, full, dice)


def counts_of(dice: Sequence[int]) -> Counts:
    return tuple(dice.count(f) for f in FACES)


def dice_of(counts: Counts) -> list[int]:
    return [f + 1 for f in range(6) for _ in range(counts[f])]
