"""A rule set as flat numpy arrays, the form the compiled kernels (solver, simulator) consume:
`rule_arrays` builds them once per rule set, as one bundle (RuleArrays) every kernel takes.

Everything here is *derived* from the rules module by calling it (scores from `natural_score` and
`joker_value`, legality from the int-only functions in rules/engine.py, which kernels compile with numba):
no rule is restated. Also the dice combinatorics every kernel shares: distinct rolls, keeps
(sub-multisets of a roll), their probabilities and how they link.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from ..rules import engine
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


def keep_id(n: int, kept: Sequence[int]) -> int:
    """The index of the keep of these dice among n dice's keeps (Dice.keeps), as the kernels name it."""
    counts = [0] * 6
    for face in kept:
        counts[face - 1] += 1
    return int(dice_tables(n).keep_index[counts_key(counts)])


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

    rolls_arr = np.array(roll_list, dtype=np.int64)
    return Dice(n, rolls_arr, roll_counts, roll_prob, keeps, keep_size, keep_index, keep_of_roll, roll_of_keep,
                add_die, drop_die, np.array(ptr, dtype=np.int64), np.array(t_roll, dtype=np.int64),
                np.array(t_prob, dtype=np.float64))


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


@cache
def most_dice_subkeeps(n: int) -> IntArray:
    """Per roll of n dice, its keeps of fewer dice ([R, 2**n], -1 padded; as many as proper_subkeeps)
    in the order strategy.turn.Turn breaks ties by (hints, and the grader that agrees with them): most
    dice first, then itertools.product order of the face counts (sixes varying fastest). The first best
    in this order, stopping winning ties, is Turn's best keep (within_turn.keep_choice over this table)."""
    d = dice_tables(n)
    R = len(d.rolls)
    out = np.full((R, 1 << n), -1, dtype=np.int64)
    for r in range(R):
        c = [int(x) for x in d.roll_counts[r]]
        subs = [sub for sub in itertools.product(*(range(x + 1) for x in c)) if sum(sub) < n]
        subs.sort(key=lambda sub: -sum(sub))  # stable: product order within a size
        for i, sub in enumerate(subs):
            out[r, i] = d.keep_index[counts_key(sub)]
    return out


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
    return Scores(d, natural, joker, yroll, own, upper_face, len(rules.boxes), rules.lower_bits,
                  -1 if y is None else y, 0 if y is None else int(rules.boxes[y].points or 0),
                  s.upper_bonus_threshold, s.upper_bonus, s.extra_yahtzee_bonus, JOKER_CODES[s.joker],
                  np.array(s.fill_codes, dtype=np.int64), s.must_zero)


class RuleArrays(NamedTuple):
    """A rule set's arrays and numbers as every compiled kernel takes them (table build, play, grading,
    distributions, risk): built once per rule set by `rule_arrays`, read-only, passed as one argument.
    R rolls, K keeps, B boxes, V variants of a box, C columns.

    The rule set's numbers:
      n_cols, nb     columns, boxes per column
      ybox, ypoints  the Yahtzee box (-1 none) and its full points
      extra          points of an extra Yahtzee (rules.extra_bonus_points)
      joker_code, lower_bits, fill0  what compiled.legal_bits takes (fill0: the first column's fill rule)
      has_y          the rule set has a Yahtzee box
      base_roll      a roll that is no Yahtzee (its legal boxes are every plain roll's)
      must_zero, saved_rolls, add_columns  the settings (flags as 0/1)
      saved_cap      the most rolls a stock may hold (Settings.saved_cap)
      nyt            2 when the Yahtzee box's full points matter (the variants' `yn`), else 1
    Scores (Scores) and variants (box_variants):
      natural, joker [R, B] int   natural score, a joker's value; natT, jokT [B, R] float their transposes
      var_nat, var_jok [R, B] int  the next-state variant of each; vnatT, vjokT [B, R] uint8
      nvar [B], du [B, V], yn [B, V]  variants per box, upper total each adds, y after it (-1 unchanged)
      yroll [R] bool, own_bit [R]     Yahtzee rolls and their own upper box's bit
      bonus_rolls                     the rolls that can earn the extra bonus
      is_upper [B] bool, fill [C], mult [C] float  upper boxes; each column's fill rule and weight
    Dice (Dice, proper_subkeeps):
      roll_prob [R], keep_of_roll [R], roll_of_keep [K], keep_index [7**6], keeps [K, 6]
      add_die, drop_die [K, 6] (-1: none)
      subkeeps [R, 2**n], nsub [R]    each roll's proper keeps in tie-break order
      subkeeps_most [R, 2**n]  the same keeps in Turn's tie-break order (most_dice_subkeeps)
    rows: (natural, joker, var_nat, var_jok), the row tables a box choice reads (within_turn.placement)
    """

    n_cols: int
    nb: int
    ybox: int
    ypoints: int
    extra: int
    joker_code: int
    lower_bits: int
    fill0: int
    has_y: bool
    base_roll: int
    must_zero: int
    saved_rolls: int
    saved_cap: int
    add_columns: int
    nyt: int
    natural: IntArray
    joker: IntArray
    natT: FloatArray
    jokT: FloatArray
    var_nat: IntArray
    var_jok: IntArray
    vnatT: npt.NDArray[np.uint8]
    vjokT: npt.NDArray[np.uint8]
    nvar: IntArray
    du: IntArray
    yn: IntArray
    yroll: npt.NDArray[np.bool_]
    own_bit: IntArray
    bonus_rolls: IntArray
    is_upper: npt.NDArray[np.bool_]
    fill: IntArray
    mult: FloatArray
    roll_prob: FloatArray
    keep_of_roll: IntArray
    roll_of_keep: IntArray
    keep_index: IntArray
    keeps: IntArray
    add_die: IntArray
    drop_die: IntArray
    subkeeps: IntArray
    subkeeps_most: IntArray
    nsub: IntArray
    rows: tuple[IntArray, IntArray, IntArray, IntArray]


def box_variants(rules: RuleSet, sc: Scores, nyt: int) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """How a written score moves a column's state: per (roll, box) the variant of the natural and the
    joker score; per (box, variant) the upper total added (`du`) and the new y (`yn`, -1 unchanged).
    Upper boxes: one variant per score they can hold; the Yahtzee box: full points or not
    (rules.extra_bonus pays later Yahtzees only while it holds its full points)."""
    nb = sc.n_boxes
    upper = set(rules.upper_indices)
    vals = {b: sorted(engine.box_values(rules, b)) for b in upper}
    R = sc.natural.shape[0]
    vmax = max([len(vals[b]) for b in sorted(upper)] + [2])
    nvar = np.ones(nb, dtype=np.int64)
    du = np.zeros((nb, vmax), dtype=np.int64)
    yn = np.full((nb, vmax), -1, dtype=np.int64)
    var_nat = np.zeros((R, nb), dtype=np.int64)
    var_jok = np.zeros((R, nb), dtype=np.int64)
    ypts = sc.yahtzee_points
    for b in range(nb):
        if b in upper:
            nvar[b] = len(vals[b])
            du[b, : len(vals[b])] = vals[b]
            pos = {v: i for i, v in enumerate(vals[b])}
            var_nat[:, b] = [pos[v] for v in sc.natural[:, b].tolist()]
            var_jok[:, b] = [pos.get(v, 0) for v in sc.joker[:, b].tolist()]
        elif b == sc.yahtzee_box:
            # rules.extra_bonus: later Yahtzees earn the bonus only while this box holds its full points
            nvar[b] = 2
            yn[b, 0] = 0
            yn[b, 1] = 1 if nyt == 2 else 0
            var_nat[:, b] = sc.natural[:, b] == ypts
            var_jok[:, b] = sc.joker[:, b] == ypts
    return var_nat, var_jok, nvar, du, yn


def bonus_rolls(rules: RuleSet, sc: Scores) -> IntArray:
    """The rolls that can earn the extra-Yahtzee bonus (rules.extra_bonus_points with a full box)."""
    extra = rules.settings.extra_yahtzee_bonus
    return np.array([r for r in range(len(sc.yahtzee_roll))
                     if engine.extra_bonus_points(bool(sc.yahtzee_roll[r]), True, extra)], dtype=np.int64)


@lru_cache(maxsize=16)
def rule_arrays(rules: RuleSet, nyt: int) -> RuleArrays:
    """The rule set's RuleArrays (`nyt`: the Yahtzee lanes of the values played against), built once
    per rule set and shared, read-only, by every kernel and every thread."""
    s = rules.settings
    sc = score_tables(rules)
    d = sc.dice
    var_nat, var_jok, nvar, du, yn = box_variants(rules, sc, nyt)
    subkeeps, nsub = proper_subkeeps(rules.dice)

    def frozen(a: Any, dtype: Any = None) -> Any:
        v = np.ascontiguousarray(a, dtype=dtype).view()  # (a view: the cached tables stay as they are)
        v.flags.writeable = False
        return v

    ra = RuleArrays(
        n_cols=s.columns, nb=sc.n_boxes, ybox=sc.yahtzee_box, ypoints=sc.yahtzee_points,
        extra=s.extra_yahtzee_bonus, joker_code=sc.joker_code, lower_bits=sc.lower_bits, fill0=s.fill_codes[0],
        has_y=sc.yahtzee_box >= 0, base_roll=int(np.argmin(sc.yahtzee_roll)), must_zero=int(s.must_zero),
        saved_rolls=int(s.saved_rolls), saved_cap=s.saved_cap, add_columns=int(s.add_columns), nyt=nyt,
        natural=frozen(sc.natural), joker=frozen(sc.joker),
        natT=frozen(sc.natural.T, np.float64), jokT=frozen(sc.joker.T, np.float64),
        var_nat=frozen(var_nat), var_jok=frozen(var_jok),
        vnatT=frozen(var_nat.T, np.uint8), vjokT=frozen(var_jok.T, np.uint8),
        nvar=frozen(nvar), du=frozen(du), yn=frozen(yn), yroll=frozen(sc.yahtzee_roll), own_bit=frozen(sc.own_bit),
        bonus_rolls=frozen(bonus_rolls(rules, sc)),
        is_upper=frozen(np.array([b.kind == "upper" for b in rules.boxes], dtype=np.bool_)),
        fill=frozen(sc.fill), mult=frozen(np.array(s.multipliers, dtype=np.float64)),
        roll_prob=frozen(d.roll_prob), keep_of_roll=frozen(d.keep_of_roll), roll_of_keep=frozen(d.roll_of_keep),
        keep_index=frozen(d.keep_index), keeps=frozen(d.keeps), add_die=frozen(d.add_die),
        drop_die=frozen(d.drop_die), subkeeps=frozen(subkeeps),
        subkeeps_most=frozen(most_dice_subkeeps(rules.dice)), nsub=frozen(nsub),
        rows=cast(Any, ()),  # (filled in below, from the frozen arrays)
    )
    return ra._replace(rows=(ra.natural, ra.joker, ra.var_nat, ra.var_jok))
