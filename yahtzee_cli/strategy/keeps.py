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
    counts: list[Counts] = [counts_of(combo) for size in range(n + 1) for combo in rolls(size)]
    index = {c: i for i, c in enumerate(counts)}
    sizes = [sum(c) for c in counts]
    add: list[list[int]] = []
    drop: list[list[int]] = []
    for c, size in zip(counts, sizes, strict=True):
        a: list[int] = []
        d: list[int] = []
        for f in range(6):
            if size < n:
                a.append(index[c[:f] + (c[f] + 1,) + c[f + 1 :]])
            if c[f]:
                d.append(index[c[:f] + (c[f] - 1,) + c[f + 1 :]])
        add.append(a)
        drop.append(d)
    full = [i for i, s in enumerate(sizes) if s == n]
    return Keeps(n, counts, index, sizes, add, drop, full, [tuple(dice_of(c)) for c in counts])


def counts_of(dice: Sequence[int]) -> Counts:
    return tuple(dice.count(f) for f in FACES)


def dice_of(counts: Counts) -> list[int]:
    return [f + 1 for f in range(6) for _ in range(counts[f])]
