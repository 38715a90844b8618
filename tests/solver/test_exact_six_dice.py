"""The exact solver on six dice (Maxi Yatzy's boxes) against two independent methods written here in
plain Python (a turn's expectation also as numpy matrices, checked against the lists), asking the
rules module only for the boxes, their scores and the settings:

* a straightforward solver (memoised recursion over turn-start states, each turn worked bottom-up
  over the 462 rolls of six dice and their keeps) on reduced Maxi sheets of a few boxes: the table's
  mean and every reachable state's value agree;
* a brute-force expectimax of the last one or two turns (rolls enumerated die by die, keeps by the
  positions held) at random end positions of larger random Maxi sheets.

Maxi Yatzy has no joker and no extra-Yahtzee bonus, and a roll may always be scored (0 if it does not
fit) in any open box: the only state besides the filled boxes is the upper total, capped at the
bonus threshold (beyond it only the bonus matters). A sheet of a few boxes gets a threshold scaled
down like Maxi's own, 84 = four of each face, so that the bonus is within reach.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from operator import mul

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact

DICE = 6
FACES = range(1, 7)
TOL = 1e-9

Roll = tuple[int, ...]


def maxi_sheet(keys: Sequence[str], threshold: int | None = None, bonus: int | None = None) -> R.RuleSet:
    """Maxi Yatzy without saved rolls on just the boxes `keys` (in Maxi's order), the upper bonus
    threshold scaled to four of each face present unless given."""
    maxi = R.preset("maxi-yatzy", {"saved_rolls": False})
    boxes = [b for b in maxi.boxes if b.key in keys]
    assert len(boxes) == len(keys), keys
    settings = maxi.settings.model_dump()
    settings["upper_bonus_threshold"] = (threshold if threshold is not None
                                         else 4 * sum(b.face or 0 for b in boxes if b.kind == "upper"))
    if bonus is not None:
        settings["upper_bonus"] = bonus
    data = {"name": "maxi-part", "dice": DICE, "boxes": [b.model_dump() for b in boxes], "settings": settings}
    return R.rules_from_data(data)


def check_model(rules: R.RuleSet) -> None:
    """The rules the methods here model: Maxi's settings, one column, every box open to every roll."""
    s = rules.settings
    assert rules.dice == DICE
    assert (s.joker, s.extra_yahtzee_bonus, s.must_zero, s.fill_in_order, s.columns, s.saved_rolls) == (
        "off", 0, True, False, 1, False)
    assert s.upper_bonus > 0 and s.upper_bonus_threshold > 0


def table_value(tab: exact.Table, mask: int, upper: int) -> float:
    """The table's value of the turn-start state (filled boxes, upper total): one Yahtzee lane here."""
    assert tab.nyt == 1
    return float(tab.W[tab.row(mask), min(upper, tab.t)])


# --------------------------------------------------------------------------- straightforward solver


def _multinomial(dice: Roll) -> float:
    """Probability of rolling the sorted `dice` (any order) with len(dice) fair dice."""
    ways = math.factorial(len(dice))
    for c in Counter(dice).values():
        ways //= math.factorial(c)
    return ways / 6 ** len(dice)


class Turns:
    """One turn of six dice worked bottom-up: the 462 rolls, the 924 keeps (sub-multisets, of 0 to 6
    dice) with the distribution of the roll each one leads to, and each roll's keeps."""

    def __init__(self) -> None:
        self.rolls: list[Roll] = list(itertools.combinations_with_replacement(FACES, DICE))
        index = {r: i for i, r in enumerate(self.rolls)}
        self.prob = [_multinomial(r) for r in self.rolls]
        keeps: dict[Roll, int] = {}
        self.roll_keeps: list[list[int]] = []
        for r in self.rolls:
            counts = Counter(r)
            subs = itertools.product(*(range(counts[f] + 1) for f in FACES))
            ids = []
            for sub in subs:
                keep = tuple(f for f, n in zip(FACES, sub, strict=True) for _ in range(n))
                ids.append(keeps.setdefault(keep, len(keeps)))
            self.roll_keeps.append(ids)
        # per keep: the rolls it can lead to and their probabilities
        self.keep_rolls: list[list[int]] = [[] for _ in keeps]
        self.keep_probs: list[list[float]] = [[] for _ in keeps]
        for keep, k in keeps.items():
            for more in itertools.combinations_with_replacement(FACES, DICE - len(keep)):
                self.keep_rolls[k].append(index[tuple(sorted(keep + more))])
                self.keep_probs[k].append(_multinomial(more))
        assert len(self.rolls) == 462 and len(keeps) == 924
        assert all(math.isclose(sum(p), 1.0) for p in (self.prob, *self.keep_probs))

        # the same as matrices, for value(): keep -> roll probabilities, and each roll's keeps padded
        # with the keep of all six dice (always one of its keeps, so the padding changes no maximum)
        self.to_roll = np.zeros((len(keeps), len(self.rolls)))
        for k, (rolls, probs) in enumerate(zip(self.keep_rolls, self.keep_probs, strict=True)):
            for r, p in zip(rolls, probs, strict=True):
                self.to_roll[k, r] += p
        width = max(map(len, self.roll_keeps))
        self.keeps_of = np.array([ks + [ks[-1]] * (width - len(ks)) for ks in self.roll_keeps])
        self.roll_prob = np.array(self.prob)

    def value(self, final: list[float]) -> float:
        """Expected value of a turn (a roll and two rerolls) whose roll ends worth final[roll]."""
        f = np.array(final)
        e = f
        for _ in range(2):  # with one reroll left, then with two
            kv = self.to_roll @ e
            e = np.maximum(f, kv[self.keeps_of].max(axis=1))
        return float(self.roll_prob @ e)

    def value_by_lists(self, final: list[float]) -> float:
        """value(), written with lists alone (checked against it below)."""
        e = final
        for _ in range(2):
            kv = [sum(map(mul, probs, map(e.__getitem__, rolls)))
                  for rolls, probs in zip(self.keep_rolls, self.keep_probs, strict=True)]
            e = [max(f, *map(kv.__getitem__, ks)) for f, ks in zip(final, self.roll_keeps, strict=True)]
        return sum(map(mul, self.prob, e))


@cache
def turns() -> Turns:
    return Turns()  # made on first use, not when the tests are collected


class Straightforward:
    """The optimal expected remaining score of every turn-start state (filled boxes, upper total
    capped at the threshold), upper bonus included, by memoised recursion."""

    def __init__(self, rules: R.RuleSet) -> None:
        check_model(rules)
        self.nb = len(rules.boxes)
        self.full = (1 << self.nb) - 1
        self.upper = [b.kind == "upper" for b in rules.boxes]
        self.t = rules.settings.upper_bonus_threshold
        self.bonus = rules.settings.upper_bonus
        self.scores = [rules.natural_scores(r) for r in turns().rolls]
        self.values: dict[tuple[int, int], float] = {}

    def value(self, mask: int, upper: int) -> float:
        key = (mask, upper)
        got = self.values.get(key)
        if got is not None:
            return got
        if mask == self.full:
            v = float(self.bonus if upper >= self.t else 0)
        else:
            open_ = [b for b in range(self.nb) if not mask >> b & 1]
            # what writing score s in open box b is worth: s plus the value of the state it leads to
            worth: dict[tuple[int, int], float] = {}
            final = []
            for sc in self.scores:
                best = -math.inf
                for b in open_:
                    s = sc[b]
                    w = worth.get((b, s))
                    if w is None:
                        after = min(upper + s, self.t) if self.upper[b] else upper
                        w = worth[b, s] = s + self.value(mask | 1 << b, after)
                    best = max(best, w)
                final.append(best)
            v = turns().value(final)
        self.values[key] = v
        return v


# Reduced Maxi sheets: (boxes, upper bonus threshold or None for four of each face, bonus or None for Maxi's).
REDUCED = {
    "upper-only": (("ones", "twos", "threes", "fours", "fives"), None, None),
    "pairs-and-groups": (("sixes", "one_pair", "two_pairs", "three_pairs", "castle", "tower"), None, None),
    "straights-chance": (("ones", "twos", "small_straight", "large_straight", "full_straight", "chance"), None, None),
    "kinds-and-maxi-yatzy": (("fives", "three_of_a_kind", "four_of_a_kind", "five_of_a_kind", "full_house",
                              "maxi_yatzy"), 15, 50),
    "upper-and-lower": (("ones", "sixes", "one_pair", "castle", "small_straight", "maxi_yatzy", "chance"), None, None),
}


def test_the_turn_by_matrices_is_the_turn_by_lists() -> None:
    rng = random.Random(5)
    t = turns()
    for _ in range(3):
        final = [rng.choice((0.0, rng.uniform(0, 100))) for _ in t.rolls]
        assert math.isclose(t.value(final), t.value_by_lists(final), rel_tol=1e-12)


@pytest.mark.parametrize("name", list(REDUCED))
def test_reduced_maxi_matches_a_straightforward_solver(name: str) -> None:
    keys, threshold, bonus = REDUCED[name]
    rules = maxi_sheet(keys, threshold, bonus)
    tab = exact.build(rules, moments=False)
    ref = Straightforward(rules)
    mean = ref.value(0, 0)
    assert abs(tab.mean - mean) <= TOL, (name, tab.mean, mean)
    # The recursion from the empty sheet visited every reachable state: as many as the table counts,
    # in every filled-box set (any box may be filled at any time), the bonus among them.
    assert len(ref.values) == tab.meta["states"]
    assert tab.masks.tolist() == list(range(ref.full + 1))
    assert any(m == ref.full and u >= ref.t for m, u in ref.values)
    wrong = [(m, u, table_value(tab, m, u), v) for (m, u), v in sorted(ref.values.items())
             if not abs(table_value(tab, m, u) - v) <= TOL]
    assert not wrong, f"{len(wrong)} of {len(ref.values)} states differ, e.g. (mask, upper, table, ref) {wrong[:5]}"


# --------------------------------------------------------------------------- brute force, last turns


def _outcomes(n: int) -> list[tuple[Roll, float]]:
    """Sorted outcomes of rolling n dice, counted over all 6**n ordered throws."""
    tally = Counter(tuple(sorted(t)) for t in itertools.product(FACES, repeat=n))
    return [(o, c / 6 ** n) for o, c in sorted(tally.items())]


@cache
def outcomes() -> list[list[tuple[Roll, float]]]:
    return [_outcomes(n) for n in range(DICE + 1)]


@cache
def held() -> dict[Roll, list[Roll]]:
    """What each roll may hold, by the positions held."""
    return {roll: sorted({tuple(roll[i] for i in range(DICE) if pos >> i & 1) for pos in range(1 << DICE)})
            for roll, _ in outcomes()[DICE]}


def brute_turn(final: Callable[[Roll], float]) -> float:
    """Expectimax of one turn: roll all dice; twice, hold any of them and roll the rest, or stop;
    the roll that ends the turn is worth final(roll)."""
    end = cache(final)
    outs, hold = outcomes(), held()

    @cache
    def roll_rest(kept: Roll, rerolls: int) -> float:
        total = 0.0
        for more, p in outs[DICE - len(kept)]:
            roll = tuple(sorted(kept + more))
            v = end(roll)
            if rerolls:
                v = max(v, *(roll_rest(h, rerolls - 1) for h in hold[roll]))
            total += p * v
        return total

    return roll_rest((), 2)


class LastTurns:
    """Brute-force values of positions with one or two open boxes."""

    def __init__(self, rules: R.RuleSet) -> None:
        check_model(rules)
        self.rules = rules
        self.nb = len(rules.boxes)
        self.t = rules.settings.upper_bonus_threshold
        self.bonus = rules.settings.upper_bonus
        self.upper = [b.kind == "upper" for b in rules.boxes]
        self.memo: dict[tuple[int, int], float] = {}

    def value(self, mask: int, upper: int) -> float:
        open_ = [b for b in range(self.nb) if not mask >> b & 1]
        assert len(open_) <= 2
        if not open_:
            return float(self.bonus if upper >= self.t else 0)
        key = (mask, upper)
        if key not in self.memo:
            def final(roll: Roll) -> float:
                scores = self.rules.natural_scores(roll)
                return max(scores[b] + self.value(mask | 1 << b, upper + scores[b] if self.upper[b] else upper)
                           for b in open_)
            self.memo[key] = brute_turn(final)
        return self.memo[key]


def random_positions(seed: int, n_sheets: int, per_sheet: int) -> list[tuple[R.RuleSet, list[tuple[int, int]]]]:
    """Random Maxi sheets of 5 to 7 boxes (at least one upper box), each with random end positions:
    one or two open boxes and an upper total the filled upper boxes can hold (uncapped)."""
    maxi = R.preset("maxi-yatzy", {"saved_rolls": False})
    upper = [b.key for b in maxi.boxes if b.kind == "upper"]
    lower = [b.key for b in maxi.boxes if b.kind != "upper"]
    rng = random.Random(seed)
    out = []
    for _ in range(n_sheets):
        n = rng.randint(5, 7)
        n_up = rng.randint(1, min(3, n - 1))
        chosen = set(rng.sample(upper, n_up)) | set(rng.sample(lower, n - n_up))
        rules = maxi_sheet([b.key for b in maxi.boxes if b.key in chosen])
        positions = []
        for _ in range(per_sheet):
            open_ = rng.sample(range(n), rng.randint(1, 2))
            mask = (1 << n) - 1 - sum(1 << b for b in open_)
            upper_total = sum(rng.randint(0, DICE) * (rules.boxes[b].face or 0)
                              for b in rules.upper_indices if mask >> b & 1)
            positions.append((mask, upper_total))
        out.append((rules, positions))
    return out


SHEETS = random_positions(seed=15, n_sheets=6, per_sheet=4)


@pytest.mark.parametrize("k", range(len(SHEETS)), ids=["+".join(SHEETS[k][0].keys) for k in range(len(SHEETS))])
def test_last_turns_match_brute_force(k: int) -> None:
    rules, positions = SHEETS[k]
    tab = exact.build(rules, moments=False)
    brute = LastTurns(rules)
    for mask, upper in positions:
        want = brute.value(mask, upper)
        got = table_value(tab, mask, upper)
        assert abs(got - want) <= TOL, (rules.keys, f"{mask:#b}", upper, got, want)
    # The one-open-box positions the two-box ones lead to were worked out on the way: check them too.
    for (mask, upper), want in brute.memo.items():
        assert abs(table_value(tab, mask, upper) - want) <= TOL, (rules.keys, f"{mask:#b}", upper)


def test_both_methods_see_the_bonus() -> None:
    """A check of the methods themselves, from the rules' sentences: Sixes as the last box, one six
    short of the threshold. More sixes is always better, so every six rolled is held and the rest
    rolled again: each die ends a six with chance 1 - (5/6)**3, independently of the others; the
    bonus is paid when at least one of the six dice does."""
    p_six = 1 - (5 / 6) ** 3
    bonus = R.preset("maxi-yatzy").settings.upper_bonus
    want = 6 * DICE * p_six + bonus * (1 - (1 - p_six) ** DICE)
    alone = maxi_sheet(("sixes",), threshold=6)
    assert abs(Straightforward(alone).value(0, 0) - want) <= TOL
    rules = maxi_sheet(("ones", "sixes", "chance"), threshold=24)
    mask = (1 << len(rules.boxes)) - 1 - (1 << rules.box_index("sixes"))
    assert abs(LastTurns(rules).value(mask, 18) - want) <= TOL
