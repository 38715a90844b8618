"""Poker dice without a score sheet: rank hands, compare them, share ties; the keep that best beats a hand."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

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


# --------------------------------------------------------------------------- the keep that beats a hand


@dataclass(frozen=True)
class KeepChance:
    """A keep (the dice held before the next roll; all five: stop) and the exact chance that the
    final hand beats the target, or ties it, playing on as well as possible."""

    keep: Dice
    win: Fraction
    tie: Fraction


def _outcomes(n: int) -> list[tuple[Dice, Fraction]]:
    """Every roll of n dice (sorted) with its probability."""
    if n not in _OUTCOMES:
        ways = Counter(tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=n))
        _OUTCOMES[n] = [(r, Fraction(c, 6**n)) for r, c in sorted(ways.items())]
    return _OUTCOMES[n]


_OUTCOMES: dict[int, list[tuple[Dice, Fraction]]] = {}


def _sub_keeps(dice: Dice) -> list[Dice]:
    """Every distinct multiset of the dice (sorted), all five first."""
    subs = {tuple(sorted(c)) for k in range(len(dice) + 1) for c in itertools.combinations(dice, k)}
    return sorted(subs, key=lambda k: (-len(k), k))


def keep_chances(dice: Sequence[int], beat: Sequence[int], rolls_left: int) -> list[KeepChance]:
    """Every keep of `dice` with `rolls_left` rolls still to come (0-2), best first: the one that
    maximises the exact chance of a final hand better than `beat` (then of a tie)."""
    hand = rank_hand(dice).dice
    target = rank_hand(beat)
    goal = (target.category_rank, target.tiebreak)
    if not 0 <= rolls_left <= 2:
        raise RulesError(f"a poker-dice hand has up to three rolls: 0, 1 or 2 rolls left, got {rolls_left}")
    memo: dict[tuple[Dice, int], tuple[Fraction, Fraction]] = {}

    def final(d: Dice) -> tuple[Fraction, Fraction]:
        h = rank_hand(d)
        key = (h.category_rank, h.tiebreak)
        return (Fraction(int(key > goal)), Fraction(int(key == goal)))

    def value(d: Dice, left: int) -> tuple[Fraction, Fraction]:
        if left == 0:
            return final(d)
        got = memo.get((d, left))
        if got is None:
            got = memo[(d, left)] = max(keep_value(k, left) for k in _sub_keeps(d))
        return got

    def keep_value(k: Dice, left: int) -> tuple[Fraction, Fraction]:
        if len(k) == 5:
            return final(k)  # keeping every die is stopping
        got = memo.get((k, -left))
        if got is None:
            win = tie = Fraction(0)
            for roll, p in _outcomes(5 - len(k)):
                w, t = value(tuple(sorted(k + roll)), left - 1)
                win += p * w
                tie += p * t
            got = memo[(k, -left)] = (win, tie)
        return got

    if rolls_left == 0:
        w, t = final(hand)
        return [KeepChance(hand, w, t)]
    out = [KeepChance(k, *keep_value(k, rolls_left)) for k in _sub_keeps(hand)]
    return sorted(out, key=lambda c: (-c.win, -c.tie, -len(c.keep), c.keep))
