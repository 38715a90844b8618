"""Poker dice without a score sheet (seed 004): rank hands, compare them, share ties."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Dice, RulesError

CATEGORIES = (
    "nothing",
    "one_pair",
    "two_pairs",
    "three_of_a_kind",
    "straight",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
)


@dataclass(frozen=True, order=True)
class Hand:
    """A ranked hand; comparing two Hands compares them as the seed says."""

    category_rank: int
    tiebreak: tuple[int, ...]
    dice: Dice

    @property
    def category(self) -> str:
        return CATEGORIES[self.category_rank]


def rank_hand(dice: Sequence[int]) -> Hand:
    """Category first; then the dice that make it up (the three before the pair in a full house,
    the higher pair first in two pairs), then the other dice, high to low."""
    hand = tuple(sorted(dice))
    if len(hand) != 5 or any(not 1 <= d <= 6 for d in hand):
        raise RulesError(f"a poker dice hand is five dice with faces 1-6, got {list(dice)}")
    groups = sorted(Counter(hand).items(), key=lambda fc: (fc[1], fc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    order = tuple(f for f, _ in groups)
    if shape == (5,):
        cat = 7
    elif shape == (4, 1):
        cat = 6
    elif shape == (3, 2):
        cat = 5
    elif hand in ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)):
        cat = 4
    elif shape == (3, 1, 1):
        cat = 3
    elif shape == (2, 2, 1):
        cat = 2
    elif shape == (2, 1, 1, 1):
        cat = 1
    else:
        cat = 0
    return Hand(cat, order, hand)


@dataclass(frozen=True)
class Standing:
    player: int
    hand: Hand
    rank: int


def standings(hands: Sequence[Sequence[int]]) -> list[Standing]:
    """Hands in the order given, each with its rank (1 is best; equal hands share a rank)."""
    ranked = [rank_hand(h) for h in hands]
    keys = [(h.category_rank, h.tiebreak) for h in ranked]
    # rank = 1 + the number of strictly better hands: one sort, then a walk (n log n, not n squared)
    order = sorted(range(len(keys)), key=keys.__getitem__, reverse=True)
    rank_of = [0] * len(keys)
    for pos, i in enumerate(order):
        rank_of[i] = rank_of[order[pos - 1]] if pos and keys[order[pos - 1]] == keys[i] else pos + 1
    return [Standing(i, h, rank_of[i]) for i, h in enumerate(ranked)]
