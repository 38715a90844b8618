"""Keeps: the sub-multisets of a roll (as face counts), by size then in roll order, with
add-one-die/drop-one-die links: the shape the within-turn programme walks, in strategy.turn and in
the solver's kernels (solver.tables lays these very keeps out as arrays). Pure Python."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from ..rules.engine import FACES, rolls

Counts = tuple[int, ...]


class Keeps:
    """Keeps (sub-multisets of a roll, as face counts) of n dice, by size, with add/drop links (a plain
    class: built once per dice count, read everywhere; a dataclass would cost every start-up)."""

    __slots__ = ("n", "counts", "index", "size", "add", "drop", "rolls", "dice")

    def __init__(self, n: int, counts: list[Counts], index: dict[Counts, int], size: list[int],
                 add: list[list[int]], drop: list[list[int]], rolls: list[int], dice: list[tuple[int, ...]]) -> None:
        self.n = n
        self.counts = counts
        self.index = index
        self.size = size
        self.add = add  # keep + one die of each face (empty for full keeps)
        self.drop = drop  # keep - one die of a face it holds
        self.rolls = rolls  # keep indices of the full rolls
        self.dice = dice  # each keep as sorted dice


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


def dice_key(dice: tuple[int, ...]) -> int:
    """The base-7 key of dice's face counts (solver.tables.counts_key), without counting them first:
    the key the compiled graders read a roll or a keep by."""
    key = _DICE_KEYS.get(dice)
    if key is None:
        key = _DICE_KEYS[dice] = sum(7 ** (d - 1) for d in dice)
    return key


_DICE_KEYS: dict[tuple[int, ...], int] = {}  # at most every keep of six dice (924)
