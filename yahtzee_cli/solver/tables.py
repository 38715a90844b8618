"""A rule set as flat numpy arrays, the form the compiled kernels (solver, simulator) consume.

Everything here is *derived* from the rules module by calling it (scores from `natural_score` and
`joker_value`, legality from the int-only functions in rules.py, which kernels compile with numba):
no rule is restated. Also the dice combinatorics every kernel shares: distinct rolls, keeps
(sub-multisets of a roll), their probabilities and how they link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt

from ..rules.engine import FACES, JOKER_CODES, RuleSet, joker_value, own_box_bit, rolls
from ..strategy.keeps import keeps as keeps_of

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

BASE = 7  # a multiset of <= 6 dice is a base-7 number of its face counts


def counts_key(counts: tuple[int, ...] | list[int] | npt.NDArray[np.int64]) -> int:
    """Base-7 key of face counts (counts[0] is the number of ones)."""
    key = 0
    for f in range(5, -1, -1):
        key = key * BASE + int(counts[f])
    return key


@dataclass(frozen=True)
class Dice:
    """Dice combinatorics for n dice: rolls, keeps and the links between them.

    rolls        [R, n]  every distinct roll, sorted (R = 252 for five dice, 462 for six)
    roll_counts  [R, 6]  face counts of each roll
    roll_prob    [R]     probability of each roll when all n dice are thrown
    keeps        [K, 6]  face counts of every keep (sub-multiset of a roll, 0..n dice), by size then key
    keep_size    [K]
    keep_index   [7**6]  key -> keep index (-1 if not a keep); a full keep of n dice is also a roll
    keep_of_roll [R]     the keep equal to the whole roll
    roll_of_keep [K]     the roll equal to a full keep (-1 for smaller keeps)
    add_die      [K, 6]  keep with one more die of face f (-1 when the keep is full)
    drop_die     [K, 6]  keep with one die of face f removed (-1 when there is none)
    drop_self    [K, 6]  drop_die with the keep itself for -1 (a max over the keeps one die smaller needs no test)
    trans_ptr/trans_roll/trans_prob  CSR: for keep k, rolls r reachable by rerolling the rest, with P(r | k)
    """

    n: int
    rolls: IntArray
    roll_counts: IntArray
    roll_prob: FloatArray
    keeps: IntArray
    keep_size: IntArray
    keep_index: IntArray
    keep_of_roll: IntArray
    roll_of_keep: IntArray
    add_die: IntArray
    drop_die: IntArray
    drop_self: IntArray
    trans_ptr: IntArray
    trans_roll: IntArray
    trans_prob: FloatArray


def _multinomial(counts: list[int]) -> float:
    total = sum(counts)
    ways = math.factorial(total)
    for c in counts:
        ways //= math.factorial(c)
    return float(ways) / float(6**total)


@cache
def dice_tables(n: int) -> Dice:
    roll_list = list(rolls(n))
    roll_counts = np.array([[r.count(f) for f in FACES] for r in roll_list], dtype=np.int64)
    roll_prob = np.array([_multinomial(list(c)) for c in roll_counts], dtype=np.float64)

    kp = keeps_of(n)  # the same keeps, in the same order, as the pure within-turn values
    keep_list = kp.counts
    keeps = np.array(keep_list, dtype=np.int64)
    keep_index = np.full(BASE**6, -1, dtype=np.int64)
    for i, c in enumerate(keep_list):
        keep_index[counts_key(c)] = i
    keep_size = keeps.sum(axis=1)

    roll_key = {counts_key(c): i for i, c in enumerate(roll_counts.tolist())}
    keep_of_roll = np.array([keep_index[counts_key(c)] for c in roll_counts.tolist()], dtype=np.int64)
    roll_of_keep = np.array([roll_key.get(counts_key(c), -1) if sum(c) == n else -1 for c in keep_list],
                            dtype=np.int64)

    add_die = np.full((len(keep_list), 6), -1, dtype=np.int64)
    drop_die = np.full((len(keep_list), 6), -1, dtype=np.int64)
    for i, c in enumerate(keep_list):
        if kp.add[i]:  # one link per face while the keep is not full
            add_die[i] = kp.add[i]
        drop_die[i, [f for f in range(6) if c[f] > 0]] = kp.drop[i]  # one link per face the keep holds

    ptr = [0]
    t_roll: list[int] = []
    t_prob: list[float] = []
    for c in keep_list:
        free = n - sum(c)
        for extra in rolls(free):
            ec = [extra.count(f) for f in FACES]
            full = [a + b for a, b in zip(c, ec, strict=True)]
            t_roll.append(roll_key[counts_key(full)])
            t_prob.append(_multinomial(ec))
        ptr.append(len(t_roll))

    return Dice(
        n=n,
        rolls=np.array(roll_list, dtype=np.int64),
        roll_counts=roll_counts,
        roll_prob=roll_prob,
        keeps=keeps,
        keep_size=keep_size,
        keep_index=keep_index,
        keep_of_roll=keep_of_roll,
        roll_of_keep=roll_of_keep,
        add_die=add_die,
        drop_die=drop_die,
        drop_self=np.where(drop_die >= 0, drop_die, np.arange(len(keep_list), dtype=np.int64)[:, None]),
        trans_ptr=np.array(ptr, dtype=np.int64),
        trans_roll=np.array(t_roll, dtype=np.int64),
        trans_prob=np.array(t_prob, dtype=np.float64),
    )


@cache
def proper_subkeeps(n: int) -> tuple[IntArray, IntArray]:
    """Per roll of n dice, its keeps of fewer dice ([R, 2**n], -1 padded) and how many: in the order
    every strategy breaks ties between keeps by (face counts, ones varying fastest; the first best wins)."""
    d = dice_tables(n)
    R = len(d.rolls)
    out = np.full((R, 1 << n), -1, dtype=np.int64)
    cnt = np.zeros(R, dtype=np.int64)
    for r in range(R):
        c = [int(x) for x in d.roll_counts[r]]
        total = 1
        for f in range(6):
            total *= c[f] + 1
        for idx in range(total):
            rest = idx
            key = 0
            mul = 1
            size = 0
            for f in range(6):
                k = rest % (c[f] + 1)
                rest //= c[f] + 1
                key += k * mul
                mul *= 7
                size += k
            if size == n:
                continue
            out[r, cnt[r]] = d.keep_index[key]
            cnt[r] += 1
    return out, cnt


@dataclass(frozen=True)
class Scores:
    """One rule set's per-roll scores and the ints its legality functions take.

    natural    [R, B]  natural score of each roll in each box (rules.natural_score)
    joker      [R, B]  a joker's value in each box (rules.joker_value); used only for Yahtzee rolls
    yahtzee_roll [R]   every die alike
    own_bit    [R]     bit of the roll's own upper box when it is a Yahtzee roll (0 otherwise)
    upper_face [B]     the face an upper box counts (0 for lower boxes)
    """

    dice: Dice
    natural: IntArray
    joker: IntArray
    yahtzee_roll: npt.NDArray[np.bool_]
    own_bit: IntArray
    upper_face: IntArray
    n_boxes: int
    lower_bits: int
    yahtzee_box: int  # -1 when the rule set has none
    yahtzee_points: int
    threshold: int
    upper_bonus: int
    extra_bonus: int
    joker_code: int
    fill: IntArray  # each column's fill rule (rules.FILL_CODES)
    must_zero: bool


@lru_cache(maxsize=16)
def score_tables(rules: RuleSet) -> Scores:
    """The rule set's Scores, built once per rule set (a simulation asks once per chunk of games); the
    arrays are read-only, as every caller shares them."""
    sc = _score_tables(rules)
    for a in (sc.natural, sc.joker, sc.yahtzee_roll, sc.own_bit, sc.upper_face, sc.fill):
        a.flags.writeable = False
    return sc


def _score_tables(rules: RuleSet) -> Scores:
    d = dice_tables(rules.dice)
    roll_list = [tuple(int(x) for x in r) for r in d.rolls]
    natural = np.array([rules.natural_scores(r) for r in roll_list], dtype=np.int64)
    joker = np.array([[joker_value(b, r) for b in rules.boxes] for r in roll_list], dtype=np.int64)
    yroll = np.array([rules.is_yahtzee(r) for r in roll_list], dtype=np.bool_)
    own = np.array([own_box_bit(rules, r) if rules.is_yahtzee(r) else 0 for r in roll_list], dtype=np.int64)
    upper_face = np.array([b.face if b.kind == "upper" and b.face else 0 for b in rules.boxes], dtype=np.int64)
    y = rules.yahtzee_index
    s = rules.settings
    return Scores(
        dice=d,
        natural=natural,
        joker=joker,
        yahtzee_roll=yroll,
        own_bit=own,
        upper_face=upper_face,
        n_boxes=len(rules.boxes),
        lower_bits=rules.lower_bits,
        yahtzee_box=-1 if y is None else y,
        yahtzee_points=0 if y is None else int(rules.boxes[y].points or 0),
        threshold=s.upper_bonus_threshold,
        upper_bonus=s.upper_bonus,
        extra_bonus=s.extra_yahtzee_bonus,
        joker_code=JOKER_CODES[s.joker],
        fill=np.array(s.fill_codes, dtype=np.int64),
        must_zero=s.must_zero,
    )
