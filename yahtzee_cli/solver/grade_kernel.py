"""Grading at simulation speed: the values of logged decisions from an exact table, compiled.

`analyze` grades each decision of a game against optimal play. strategy.turn.Turn values a turn in
pure Python; this kernel computes the very same numbers for every turn of a game in one call: per
turn the final-roll values and the keep values with j rolls left (the same arithmetic, in the same
order, as Turn, so values agree to the last bit and ties break alike), then per decision the value
of the move made and the best move. play.analyze decides when it applies (an exact-table source,
no risk grading) and turns the numbers into Decisions.

`grade_turns(cols, stages, asks, ints, sheet, dice_t, W, midx, saved_value, vals, picks)`:
  cols    [T, C, 4] per turn and column: filled mask, upper total, Yahtzee box (-1 open, 0 zero,
          1 full points), points written without the upper bonus
  stages  [T] the most rolls left any decision of the turn asks about
  asks    [D, 5] per decision: turn, kind (ASK_*), key of the roll (base-7 face counts), rolls left,
          key of the dice kept (ASK_KEEP) or column * boxes + box written (-1 a pass; ASK_BOX)
  ints    (n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, t, nyt, must_zero, add_columns)
  sheet   (mult, natural, natT, joker, is_upper, yroll, own_bit, fill): tables.score_tables (natT:
          natural transposed, box-major)
  dice_t  (keep_index, keep_of_roll, roll_of_keep, add_die, drop_die, keeps): tables.dice_tables
  W, midx the table's values and its mask -> row index (-1: a mask the table does not hold)
Positions recur across games (every first turn starts from the empty sheet; last turns often leave
the same box open): on a one-column sheet whose boxes add up, a turn's final-roll and keep values
depend only on the filled boxes, the upper total up to the bonus threshold and the Yahtzee box, so
those of positions near either end of a game (MEMO_EDGE) are kept in the Grader's memo (MEMO_SLOTS)
and copied back when the position comes again: the same numbers, computed once per run.
Written: vals [D, 2] (value of the move made, of the best move: expected final grand totals) and
picks [D, 6] (the best keep's index, or the best column, box, score, bonus, -1 box for a pass; then
the score and bonus the move made wrote). Returns 0, or 1 when a decision cannot be graded here (a
box the rules forbid, a sheet the table does not hold): Turn then says why.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..strategy.turn import PASS_COST
from .compiled import extra_bonus_points
from .jit import INNER, njit
from .play_kernel import roll_legal  # compiled once as a plain function (shared with the simulator)

ASK_KEEP = 0  # dice kept for a reroll, or a stop (the keep of every die)
ASK_AGAIN = 1  # every die kept, yet rolled again: the same dice with one roll fewer
ASK_BOX = 2  # the box written after the last roll, or a pass

NEG = -np.inf  # Turn starts its maxima at float("-inf")
MEMO_EDGE = 3  # positions with at most this many boxes filled, or open, are remembered: they recur across games
MEMO_SLOTS = 4096  # positions remembered per grader (9 KiB each for five dice)


@njit(cache=True, nogil=True, inline="always")
def _after(c: int, b: int, sc: int, bon: int, u: int, raw: int, fcur: np.ndarray, others: np.ndarray, base: float,
           mult: np.ndarray, is_upper: np.ndarray, ybox: int, ypoints: int, t: int, nyt: int, add_columns: bool,
           W: np.ndarray, rows: np.ndarray, lanes: np.ndarray) -> float:
    """Turn._after: the expected final total after writing `sc` (+ `bon`) in box b of column c,
    relative to the position's value; `rows`/`lanes` [C, B] the table row of the column with box b
    filled and its Yahtzee lane (the Yahtzee box's own lane follows the score written)."""
    u2 = u + sc if is_upper[b] else u
    lane = lanes[c, b]
    if b == ybox:
        lane = t + 1 if sc == ypoints and nyt == 2 else 0
    f2 = W[rows[c, b], lane + (u2 if u2 < t else t)]
    if add_columns:
        return float(mult[c] * (float(sc + bon) + f2 - fcur[c]))
    new = (float(raw + sc + bon) + f2) * mult[c]
    return float((new if new > others[c] else others[c]) - base)


@njit(**INNER)
def _roll_options(r: int, cols: Any, opt_v: Any, opt_i: Any, fcur: Any, others: Any, base: float, ints: Any,
                  sheet: Any, W: Any, rows: Any, lanes: Any) -> tuple[int, bool]:
    """Every legal placement of roll r (Turn._options, in its order: by column, then box) with its
    value relative to the position's (opt_v) and its column, box, score and bonus (opt_i). Returns
    (count, whether one scores: no pass then), count -1 when the table lacks a state it leads to."""
    n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, t, nyt, must_zero, add_columns = ints
    mult, natural, natT, joker, is_upper, yroll, own_bit, fill = sheet
    full = (1 << nb) - 1
    n = 0
    scoring = False
    for c in range(n_cols):
        mask, u, ys, raw = cols[c, 0], cols[c, 1], cols[c, 2], cols[c, 3]
        bits, fullv = roll_legal(full & ~mask, ys >= 0, r, yroll, own_bit, joker_code, ybox >= 0, fill[c], lower_bits)
        bon = extra_bonus_points(yroll[r], ys == 1, extra)
        for b in range(nb):
            if not (bits >> b) & 1:
                continue
            if rows[c, b] < 0:
                return -1, scoring
            sc = joker[r, b] if fullv else natural[r, b]
            scoring = scoring or sc != 0 or bon != 0
            opt_v[n] = _after(c, b, sc, bon, u, raw, fcur, others, base, mult, is_upper, ybox, ypoints, t, nyt,
                              add_columns, W, rows, lanes)
            opt_i[n, 0], opt_i[n, 1], opt_i[n, 2], opt_i[n, 3] = c, b, sc, bon
            n += 1
    return n, scoring


@njit(**INNER)
def _best_keep(r: int, j: int, base: float, final: np.ndarray, EJ: np.ndarray, saved_value: float,
               keeps: np.ndarray, keep_index: np.ndarray, keep_of_roll: np.ndarray, n: int,
               sub: np.ndarray) -> tuple[float, int]:
    """Turn.evaluate's best keep of roll r with j rolls left: the largest value (base + value), then
    the most dice kept, then the first in itertools.product order of the face counts (sub: scratch
    for six face counts)."""
    cnt = keeps[keep_of_roll[r]]
    for f in range(6):
        sub[f] = 0
    best = NEG
    best_k = -1
    best_size = -1
    while True:
        key = 0
        size = 0
        for f in range(5, -1, -1):
            key = key * 7 + sub[f]
            size += sub[f]
        k = keep_index[key]
        v = base + (final[r] + saved_value * j if size == n else EJ[j - 1, k])
        if v > best or (v == best and size > best_size):
            best = v
            best_k = k
            best_size = size
        f = 5  # the odometer: the last face counts fastest, as itertools.product
        while f >= 0 and sub[f] == cnt[f]:
            sub[f] = 0
            f -= 1
        if f < 0:
            return best, best_k
        sub[f] += 1


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def grade_turns(cols: Any, stages: Any, asks: Any, ints: Any, sheet: Any, dice_t: Any, W: Any, midx: Any,
                saved_value: float, vals: Any, picks: Any, work: Any) -> int:
    """Value every decision of `asks` (see the module docstring); work: Grader.scratch's arrays."""
    n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, t, nyt, must_zero, add_columns = ints
    mult, natural, natT, joker, is_upper, yroll, own_bit, fill = sheet
    keep_index, keep_of_roll, roll_of_keep, add_die, drop_die, keeps = dice_t
    R = natural.shape[0]
    K = add_die.shape[0]
    nfull = K - R
    n = keeps[K - 1, 0]  # dice: the full keep's count (a loop: .sum() would be one more function to
    for f in range(1, 6):  # compile; and no literal 0 to start, which would compile _best_keep twice)
        n += keeps[K - 1, f]
    T = cols.shape[0]
    # scratch from the caller: every numpy allocation here would be one more function to compile
    fcur, others, final, opt_v, EJ, cur = work[0]  # opt_v, opt_i: one roll's legal placements: value,
    rows, lanes, opt_i, sub = work[1]  # (column, box, score, bonus)
    scoring = work[2]
    memo_keys, memo_slot, memo_final, memo_ej, memo_stages, memo_count = work[3]
    memo_size = memo_final.shape[0]
    memo_mask = memo_keys.shape[0] - 1
    memo_on = memo_size > 0 and n_cols == 1 and add_columns
    base_roll = 0  # a roll that is no Yahtzee
    while yroll[base_roll]:
        base_roll += 1
    i = 0  # the next decision (grouped by turn, in order)
    for tt in range(T):
        # ---- the position: each column's value to go, the sheet's value (Turn.__post_init__)
        base = 0.0
        for c in range(n_cols):
            mask, u, ys, raw = cols[tt, c, 0], cols[tt, c, 1], cols[tt, c, 2], cols[tt, c, 3]
            row = midx[mask]
            if row < 0:
                return 1
            fcur[c] = W[row, (1 if ys == 1 and nyt == 2 else 0) * (t + 1) + (u if u < t else t)]
            w = (raw + fcur[c]) * mult[c]
            if add_columns:
                base += w
            elif c == 0 or w > base:
                base = w
        for c in range(n_cols):  # where each open box leads: the table row of the next state
            mask, ys = cols[tt, c, 0], cols[tt, c, 2]
            for b in range(nb):
                rows[c, b] = 0
                lanes[c, b] = t + 1 if ys == 1 and nyt == 2 else 0
                if not (mask >> b) & 1:
                    rows[c, b] = midx[mask | (1 << b)]  # -1: not in the table (then never legal)
        for c in range(n_cols):  # the best other column (add_columns off keeps the best one)
            others[c] = NEG
            for c2 in range(n_cols):
                w = (cols[tt, c2, 3] + fcur[c2]) * mult[c2]
                if c2 != c and w > others[c]:
                    others[c] = w
        # ---- a position seen before (one column whose boxes add up: the values below depend only on the
        # filled boxes, the upper total up to the bonus threshold and the Yahtzee box): its values again
        slot = -1
        h = -1
        key = -1
        if memo_on and stages[tt] <= memo_ej.shape[1]:
            mask0 = cols[tt, 0, 0]
            filled = 0
            for b in range(nb):
                filled += (mask0 >> b) & 1
            if filled <= MEMO_EDGE or nb - filled <= MEMO_EDGE:
                u0 = cols[tt, 0, 1]
                key = (mask0 * (t + 1) + (u0 if u0 < t else t)) * 3 + cols[tt, 0, 2] + 1
                h = (key * 2654435761) & memo_mask
                while memo_keys[h] >= 0 and memo_keys[h] != key:
                    h = (h + 1) & memo_mask
                if memo_keys[h] == key:
                    slot = memo_slot[h]
        if slot >= 0 and memo_stages[slot] >= stages[tt]:
            for r in range(R):
                final[r] = memo_final[slot, r]
            for j in range(stages[tt]):
                for k in range(K):
                    EJ[j, k] = memo_ej[slot, j, k]
        else:
            if _position_values(tt, cols, stages, ints, sheet, dice_t, W, fcur, others, base, rows, lanes, final, EJ,
                                cur, opt_v, opt_i, scoring, saved_value, base_roll, R, K, nfull):
                return 1
            if key >= 0 and (slot >= 0 or memo_count[0] < memo_size):
                if slot < 0:
                    slot = memo_count[0]
                    memo_count[0] += 1
                    memo_keys[h] = key
                    memo_slot[h] = slot
                for r in range(R):
                    memo_final[slot, r] = final[r]
                for j in range(stages[tt]):
                    for k in range(K):
                        memo_ej[slot, j, k] = EJ[j, k]
                memo_stages[slot] = stages[tt]
        # ---- the turn's decisions
        while i < asks.shape[0] and asks[i, 0] == tt:
            kind, rkey, j, made = asks[i, 1], asks[i, 2], asks[i, 3], asks[i, 4]
            r = roll_of_keep[keep_index[rkey]]
            if kind != ASK_BOX:
                bv, bk = _best_keep(r, j, base, final, EJ, saved_value, keeps, keep_index, keep_of_roll, n, sub)
                picks[i, 0] = bk
                vals[i, 1] = bv
                if kind == ASK_KEEP:
                    km = keep_index[made]
                    vals[i, 0] = base + (final[r] + saved_value * j if km == keep_of_roll[r] else EJ[j - 1, km])
                elif j > 1:
                    vals[i, 0] = _best_keep(r, j - 1, base, final, EJ, saved_value, keeps, keep_index,
                                            keep_of_roll, n, sub)[0]
                else:
                    vals[i, 0] = base + final[r]
                i += 1
                continue
            # the box written (Turn.evaluate with no rolls left): options by column then box, a pass last
            best = NEG
            vals[i, 0] = np.nan
            n_opt, any_score = _roll_options(r, cols[tt], opt_v, opt_i, fcur, others, base, ints, sheet, W, rows,
                                             lanes)
            if n_opt < 0:
                return 1
            for o in range(n_opt):
                v = base + opt_v[o]
                c, b, sc, bon = opt_i[o, 0], opt_i[o, 1], opt_i[o, 2], opt_i[o, 3]
                if v > best:
                    best = v
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = c, b, sc, bon
                if made == c * nb + b:
                    vals[i, 0] = v
                    picks[i, 4], picks[i, 5] = sc, bon
            if not must_zero and not any_score:
                v = base - PASS_COST
                if v > best:
                    best = v
                    picks[i, 0], picks[i, 1], picks[i, 2], picks[i, 3] = 0, -1, 0, 0
                if made < 0:
                    vals[i, 0] = v
                    picks[i, 4], picks[i, 5] = 0, 0
            if vals[i, 0] != vals[i, 0]:
                return 1  # the box made is not a legal choice (or a pass where none is allowed)
            vals[i, 1] = best
            i += 1
    return 0


@njit(**INNER)
def _position_values(tt: int, cols: Any, stages: Any, ints: Any, sheet: Any, dice_t: Any, W: Any, fcur: Any,
                     others: Any, base: float, rows: Any, lanes: Any, final: Any, EJ: Any, cur: Any, opt_v: Any,
                     opt_i: Any, scoring: Any, saved_value: float, base_roll: int, R: int, K: int, nfull: int) -> int:
    """A turn's final-roll values and keep values with j rolls left (Turn._roll_final, Turn.stage):
    0, or 1 when a state it leads to is not in the table."""
    n_cols, nb, ybox, ypoints, extra, joker_code, lower_bits, t, nyt, must_zero, add_columns = ints
    mult, natural, natT, joker, is_upper, yroll, own_bit, fill = sheet
    keep_index, keep_of_roll, roll_of_keep, add_die, drop_die, keeps = dice_t
    full = (1 << nb) - 1
    has_y = ybox >= 0
    # ---- final-roll values (Turn._roll_final), relative to the position's value. Every roll but a
    # Yahtzee may go in the same boxes at its natural score with no bonus: box by box over all rolls
    # (the maximum does not depend on the order); then the Yahtzee rolls one by one.
    for r in range(R):
        final[r] = NEG
        scoring[r] = False
    for c in range(n_cols):
        mask, u, ys, raw = cols[tt, c, 0], cols[tt, c, 1], cols[tt, c, 2], cols[tt, c, 3]
        bits, _ = roll_legal(full & ~mask, ys >= 0, base_roll, yroll, own_bit, joker_code, has_y, fill[c],
                             lower_bits)
        for b in range(nb):
            if not (bits >> b) & 1:
                continue
            if rows[c, b] < 0:
                return 1
            if add_columns and b != ybox:  # _after's arithmetic, its lookups made once for the box
                row, lane, mc, fc, up = rows[c, b], lanes[c, b], mult[c], fcur[c], is_upper[b]
                f2 = W[row, lane + (u if u < t else t)]
                for r in range(R):
                    sc = natT[b, r]
                    if up:
                        u2 = u + sc
                        f2 = W[row, lane + (u2 if u2 < t else t)]
                    v = float(mc * (float(sc) + f2 - fc))
                    final[r] = v if v > final[r] else final[r]
                    scoring[r] = scoring[r] or sc != 0
                continue
            for r in range(R):
                sc = natT[b, r]
                v = _after(c, b, sc, 0, u, raw, fcur, others, base, mult, is_upper, ybox, ypoints, t, nyt,
                           add_columns, W, rows, lanes)
                final[r] = v if v > final[r] else final[r]
                scoring[r] = scoring[r] or sc != 0
    for r in range(R):
        if yroll[r]:
            n_opt, scoring[r] = _roll_options(r, cols[tt], opt_v, opt_i, fcur, others, base, ints, sheet, W,
                                              rows, lanes)
            if n_opt < 0:
                return 1
            best = NEG
            for o in range(n_opt):
                best = opt_v[o] if opt_v[o] > best else best
            final[r] = best
    if not must_zero:
        for r in range(R):
            if final[r] < -PASS_COST and not scoring[r]:
                final[r] = -PASS_COST  # a pass: the same position next turn
    # ---- keep values with j rolls left (Turn.stage and Turn._best_rows)
    for k in range(nfull, K):
        cur[k] = final[roll_of_keep[k]]
    for j in range(1, stages[tt] + 1):
        if j > 1:
            for k in range(1, K):
                m = cur[k] if k < nfull else NEG
                for f in range(6):
                    d = drop_die[k, f]
                    if d >= 0 and cur[d] > m:
                        m = cur[d]
                if k >= nfull:
                    stop = final[roll_of_keep[k]] + saved_value * (j - 1)
                    m = stop if stop > m else m
                cur[k] = m
        for k in range(nfull - 1, -1, -1):
            s = cur[add_die[k, 0]]
            for f in range(1, 6):
                s += cur[add_die[k, f]]
            cur[k] = s / 6.0
        for k in range(K):  # element by element: a slice assignment compiles numba's shape-error message
            EJ[j - 1, k] = cur[k]
    return 0


def _load_lean(dispatcher: Any) -> None:
    """Load `dispatcher`'s machine code from numba's cache without refreshing numba's typing and target
    contexts first (numba does so before every cache load: it imports and registers every typing and
    lowering module numba has, about 0.2 s of a short run, which only a compile needs; a compile still
    refreshes them itself). The runtime (NRT) is initialised, as refresh would: the kernel's array
    arguments need it. On a numba without these internals, numba's own load is left as it is."""
    cache: Any = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "_load_overload", None)
    guard = getattr(cache, "_guard_against_spurious_io_errors", None)
    try:
        from numba.core import runtime
    except ImportError:  # pragma: no cover - another numba layout
        return
    rtsys: Any = getattr(runtime, "rtsys", None)
    if load is None or guard is None or not callable(getattr(rtsys, "initialize", None)):
        return  # pragma: no cover - another numba layout

    def load_overload(sig: Any, target_context: Any) -> Any:
        rtsys.initialize(target_context)
        with guard():
            return load(sig, target_context)
        return None  # pragma: no cover - an I/O error the guard swallowed: numba compiles then

    cache.load_overload = load_overload


_load_lean(grade_turns)


class Grader:
    """One rule set's arrays for grade_turns, built once (the table's W and rows, the score tables,
    the keep graph)."""

    def __init__(self, rules: Any, W: Any, masks: Any, t: int, nyt: int, saved_value: float, scale: float = 1.0,
                 levels: Any = ()) -> None:
        """scale, levels: a multi-column sheet's weight of its column table and level by open boxes
        (strategy.sources.TableSource), applied with the same arithmetic as there."""
        from ..rules.engine import JOKER_CODES
        from .exact import _read_only
        from .tables import score_tables

        s = rules.settings
        sc = score_tables(rules)
        d = sc.dice
        nb = sc.n_boxes
        masks_a = np.asarray(masks, dtype=np.int64)
        midx = np.full(1 << nb, -1, dtype=np.int64)
        midx[masks_a] = np.arange(len(masks_a), dtype=np.int64)
        width = nyt * (t + 1)
        self.nb = nb
        self.ints = (s.columns, nb, sc.yahtzee_box, sc.yahtzee_points, s.extra_yahtzee_bonus, JOKER_CODES[s.joker],
                     sc.lower_bits, t, nyt, int(s.must_zero), int(s.add_columns))
        is_upper = np.array([b.kind == "upper" for b in rules.boxes], dtype=np.bool_)
        self.sheet = _read_only(np.array(s.multipliers, dtype=np.float64), sc.natural, sc.natural.T, sc.joker, is_upper,
                                sc.yahtzee_roll, sc.own_bit, sc.fill)
        self.dice_t = _read_only(d.keep_index, d.keep_of_roll, d.roll_of_keep, d.add_die, d.drop_die, d.keeps)
        W_a = np.asarray(W, dtype=np.float64).reshape(len(masks_a), width)
        if scale != 1.0:
            W_a = scale * W_a
        self.W, self.midx = _read_only(W_a, midx)
        self.levels = np.asarray(levels, dtype=np.float64) if len(levels) else None
        self.saved_value = float(saved_value)
        self._scratch: dict[int, tuple[Any, ...]] = {}
        # remembered positions (grade_turns): an open-addressing table of keys -> slot, each slot a
        # position's final-roll values and keep values (np.empty: memory is touched only as slots fill)
        from ..rules.engine import rolls_allowed

        n_r, n_k = self.sheet[1].shape[0], self.dice_t[3].shape[0]
        slots = MEMO_SLOTS if s.columns == 1 and s.add_columns else 0
        self._memo = (np.full(2 * max(slots, 1), -1, np.int64), np.zeros(2 * max(slots, 1), np.int64),
                      np.empty((slots, n_r)), np.empty((slots, max(rolls_allowed(rules, 0) - 1, 0), n_k)),
                      np.zeros(slots, np.int64), np.zeros(1, np.int64))

    def scratch(self, most: int) -> tuple[Any, ...]:
        """grade_turns' working arrays (most: rolls-left stages of the longest turn), made once per size
        (a Grader grades one game at a time: an Analyzer, and so its Graders, belongs to one thread)."""
        got = self._scratch.get(most)
        if got is None:
            got = self._scratch[most] = self._new_scratch(most)
        return got

    def _new_scratch(self, most: int) -> tuple[Any, ...]:
        n_cols, nb = self.ints[0], self.ints[1]
        R, K = self.sheet[1].shape[0], self.dice_t[3].shape[0]
        floats = (np.empty(n_cols), np.empty(n_cols), np.empty(R), np.empty(n_cols * nb), np.empty((most, K)),
                  np.empty(K))
        ints = (np.empty((n_cols, nb), np.int64), np.empty((n_cols, nb), np.int64),
                np.empty((n_cols * nb, 4), np.int64), np.empty(6, np.int64))
        return floats, ints, np.empty(R, np.bool_), self._memo

    def grade_flat(self, cols: list[int], stages: list[int], asks: list[int]) -> tuple[Any, Any] | None:
        """grade() of the same numbers laid flat (cols: per turn, per column, its 4 numbers; asks: per
        decision, its 5), as play.analyze's fast path builds them: one numpy array from each list."""
        n_cols = self.ints[0]
        cols_a = np.array(cols, dtype=np.int64).reshape(-1, n_cols, 4)
        asks_a = np.array(asks, dtype=np.int64).reshape(-1, 5)
        d = asks_a.shape[0]
        vals = np.empty((d, 2))
        picks = np.zeros((d, 6), dtype=np.int64)
        work = self.scratch(max(stages, default=1) or 1)
        status = grade_turns(cols_a, np.array(stages, dtype=np.int64), asks_a, self.ints, self.sheet, self.dice_t,
                             self.W, self.midx, self.saved_value, vals, picks, work)
        if status:
            return None
        if self.levels is not None:  # Turn adds its level last, to the value of every option
            masks = cols[::4]
            open_boxes = np.array([n_cols * self.nb - sum(bin(m).count("1") for m in masks[i:i + n_cols])
                                   for i in range(0, len(masks), n_cols)], dtype=np.int64)
            vals += self.levels[open_boxes][asks_a[:, 0]][:, None]
        if not np.isfinite(vals).all():  # checked here, once, so the JSON of the grading needs no scan
            raise ValueError("the strategy table gave a non-finite value: it is damaged; delete it from the cache")
        return vals.tolist(), picks.tolist()

    def grade(self, cols: list[list[tuple[int, int, int, int]]], stages: list[int],
              asks: list[tuple[int, int, int, int, int]]) -> tuple[Any, Any] | None:
        """(vals, picks) of grade_turns as lists of rows, or None when some decision cannot be graded here."""
        n_cols = self.ints[0]
        cols_a = np.array(cols, dtype=np.int64).reshape(len(cols), n_cols, 4)
        asks_a = np.array(asks, dtype=np.int64).reshape(len(asks), 5)
        vals = np.empty((len(asks), 2))
        picks = np.zeros((len(asks), 6), dtype=np.int64)
        status = grade_turns(cols_a, np.array(stages, dtype=np.int64), asks_a, self.ints, self.sheet, self.dice_t,
                             self.W, self.midx, self.saved_value, vals, picks, self.scratch(max([1, *stages])))
        if status:
            return None
        if self.levels is not None:  # Turn adds its level last, to the value of every option
            nb = self.nb
            open_boxes = np.array([sum(nb - bin(c[0]).count("1") for c in row) for row in cols], dtype=np.int64)
            vals += self.levels[open_boxes][asks_a[:, 0]][:, None]
        if not np.isfinite(vals).all():  # checked here, once, so the JSON of the grading needs no scan
            raise ValueError("the strategy table gave a non-finite value: it is damaged; delete it from the cache")
        return vals.tolist(), picks.tolist()
