"""Approximate strategies, for rule sets whose exact state space does not fit. Every value they give
is labelled approximate ("exact": false).

Both are a one-turn lookahead (the exact within-turn machinery: keeps, rerolls, box choice) on an
estimate F of each column's value to go at the next turn start:

* multi-column sheets whose single column has an exact table ("columns"): F of a column is that
  table's exact value times a weight, and the sheet's value is the weighted sum of the columns'
  (points + F) (or, with add_columns off, the best weighted column), plus a level by the number of
  boxes open on the sheet. The table values each column as if played alone, ignoring that every
  roll may go to whichever column suits it best: a column's future is worth relatively less than
  that, and a weight of 0.9 plays about 9 points a game better on Triple Yahtzee (the weight is
  fitted: 1 or 0.9, whichever scores more over the same games). The level, the mean of what the
  strategy went on to score less that estimate over the same games, makes the values estimates of
  this strategy's own final total (the tables alone value an empty Triple Yahtzee sheet at 1527.5;
  the strategy averages about 1852); it is the same for every option of a turn, so decisions
  never depend on it.
* anything else, e.g. saved rolls where no values by stock are fitted ("heuristic"; Maxi Yatzy's ship:
  solver.saved_fit, and this heuristic stays its fallback): a value to go of the column's state
      F = sum over open boxes b of h[k, b]  (k: how many boxes are open)
          + upper bonus x P(bonus | filled upper boxes, upper total)
          (+ yh[k] while the Yahtzee box holds its points, for extra-Yahtzee bonuses)
  plus `saved_value` per saved roll. A box's worth depends on how many boxes are still open (an open
  box is also a place to dump a poor roll, worth more while few are left), which a value per box
  alone misses: fitted on plain Yahtzee's exact table, that form plays 244.7 and this one 253.7.
  The parameters come from self-play (approximate policy iteration): each round plays games with the
  current strategy, then fits h[k, b] = a[b] + c[b] k + d / k and yh[k] = e k by least squares to the
  points each column went on to score from each turn start (the upper bonus as P: from the
  convolution of the strategy's own upper-box score distributions, counted whole once reached).
  A saved roll's value is fitted with them, then kept or replaced by a round candidate, whichever
  scores more in simulation. A second form, h[k, b] = the mean score the strategy writes in b for
  every k, is fitted too, and the one that scores more on the same games is kept. Run on plain
  Yahtzee, where the exact answer is known, it shows how far it is from optimal (docs/strategy.md:
  "Approximate strategies"; benchmarks/bench_hint.py's approx_report).

Parameters and simulated means are kept in the store next to the exact tables (kind "approx").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import StaleStrategy
from ..progress import given
from ..rules import engine as R
from ..rules.engine import RuleSet
from ..store import artifact as store
from ..store.kinds import APPROX
from ..strategy.choice import approximate_plan, fitted_for
from ..strategy.space import state_space
from . import value_to_go as vtg
from .exact import get_table, play_with
from .value_to_go import ValueToGo

FIT_GAMES = (2000, 4000, 8000, 8000, 8000)  # games of each self-play round: early ones move far, later ones refine
FIT_CHECK_GAMES = 2000  # games per candidate saved-roll value
FIT_AVERAGE = 3  # the final strategy averages the fits of the last rounds
PER_BOX_ROUNDS = 3  # rounds of the plain value per box
FORM_CHECK_GAMES = 4000  # games on which the two fitted forms are compared
EVAL_GAMES = 10_000  # games for the reported mean
SAVED_CANDIDATES = (0.0, 1.0, 2.0, 4.0, 8.0)
# weights of a multi-column sheet's column tables, compared over EVAL_GAMES games: on Triple Yahtzee
# 0.85 to 0.95 all play about 10 points better than 1 (40,000 games, SE of a difference about 2), while
# the difference of two weights over a few thousand games has an SE of 5 or more: two candidates and
# more games pick reliably where finer steps would pick noise
SCALE_CANDIDATES = (1.0, 0.9)
SEED = 20240611


Stored = tuple[dict[str, Any], dict[str, Any]]  # the header and arrays of the stored strategy


def stored(rules: RuleSet, say: Callable[[str], None] | None = None) -> store.Artifact[Stored]:
    """The approximate strategy of `rules` as the store keeps it: its header and arrays, as they are."""
    def decode(header: dict[str, Any], arrays: dict[str, Any]) -> Stored:
        if not fitted_for(rules, header, arrays):
            raise StaleStrategy(f"the cached approximate {rules.name} strategy is of another kind; preparing it again")
        return header, arrays

    return store.Artifact(APPROX, rules.fingerprint, f"approximate {rules.name} strategy", decode,
                          lambda: _build(rules, say), lambda got: got,
                          announce=lambda: f"preparing the approximate {rules.name} strategy (once{store.cached_in()})")


def _read(rules: RuleSet, say: Callable[[str], None] | None = None) -> Stored | None:
    """The cached approximate strategy, or None when there is none or it is damaged (said to `say`)."""
    return store.cached(stored(rules), say)


def prepare(rules: RuleSet, say: Callable[[str], None] | None = None, rebuild: bool = False) -> dict[str, Any]:
    """Make (or load) the approximate strategy of `rules` and its simulated mean and SD."""
    vtg.check_memory(rules)  # refuse rules too big for this machine before any note or work
    art = stored(rules, say)
    header = store.get(art, say, rebuild)[0][0]
    path = art.path
    return {"mean": header["mean"], "sd": header["sd"], "games": header["games"], "strategy": header["strategy"],
            "why": header["why"], "path": str(path) if path.exists() else None}


def value_to_go(rules: RuleSet, say: Callable[[str], None] | None = None) -> ValueToGo:
    """The value to go the compiled play kernel uses for the approximate strategy."""
    p = approximate_plan(rules)
    prepare(rules, say)
    got = _read(rules)
    assert got is not None
    header, arrays = got
    if p.table_rules is not None:
        return _columns(p.table_rules, float(header["scale"]), say)
    return vtg.heuristic(rules, np.asarray(arrays["h"], dtype=np.float64), np.asarray(arrays["G"], dtype=np.float64),
                      np.asarray(arrays["yh"], dtype=np.float64), float(header["saved_value"]))


def _upper_dists(rules: RuleSet, batch: Any) -> list[dict[int, float]]:
    """The distribution of the score the strategy wrote in each upper box, over a batch's games."""
    dists = []
    for b in rules.upper_indices:
        vals, counts = np.unique(batch.scores[:, :, b].ravel(), return_counts=True)
        dists.append({int(v): float(c) / counts.sum() for v, c in zip(vals, counts, strict=True)})
    return dists


def _bonus_table(rules: RuleSet, dists: list[dict[int, float]], t: int) -> Any:
    """G[sub, u] = upper bonus x P(capped upper total reaches t | filled upper set `sub`, total u),
    the open upper boxes' scores independent with distributions `dists`."""

    s = rules.settings
    n_up = len(rules.upper_indices)
    G = np.zeros((1 << n_up, t + 1), dtype=np.float64)
    for sub in range(1 << n_up):
        # distribution of what the open upper boxes add, capped at t
        dist = np.zeros(t + 1)
        dist[0] = 1.0
        for j in range(n_up):
            if sub >> j & 1:
                continue
            nxt = np.zeros(t + 1)
            for v, p in dists[j].items():
                if v >= t:
                    nxt[t] += p * dist.sum()
                    continue
                nxt[v:] += p * dist[: t + 1 - v]
                nxt[t] += p * dist[t + 1 - v:].sum()
            dist = nxt
        # P(u + added >= t) for each u
        tail = np.cumsum(dist[::-1])[::-1]  # tail[k] = P(added >= k)
        for u in range(t + 1):
            G[sub, u] = s.upper_bonus * tail[max(t - u, 0)]
    return G


def _build(rules: RuleSet, say: Callable[[str], None] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    p = approximate_plan(rules)
    header: dict[str, Any] = {"kind": "approx", "fingerprint": rules.fingerprint, "rule_name": rules.name,
                              "strategy": p.strategy, "why": p.why}
    if p.strategy == "columns":
        assert p.table_rules is not None
        scale, batch = _fit_scale(rules, p.table_rules, say)
        levels = _levels(rules, p.table_rules, scale, batch)
        header.update(mean=float(batch.totals.mean()), sd=float(batch.totals.std()), games=len(batch), t=0,
                      saved_value=0.0, scale=scale, levels=levels)
        return header, {}
    t = state_space(rules).t
    nb = len(rules.boxes)
    n_up = len(rules.upper_indices)
    h, G, yh, saved_value, form = _fit(rules, t)
    fut = vtg.heuristic(rules, h, G, yh, saved_value)
    batch = play_with(rules, fut, SEED + 99, 0, EVAL_GAMES)
    header.update(mean=float(batch.totals.mean()), sd=float(batch.totals.std()), games=EVAL_GAMES, t=t,
                  saved_value=saved_value, form=form)
    assert h.shape == (nb + 1, nb) and G.shape == (1 << n_up, t + 1)
    arrays = {"h": ("d", np.ascontiguousarray(h, dtype="<f8").tobytes()),
              "G": ("d", np.ascontiguousarray(G, dtype="<f8").tobytes()),
              "yh": ("d", np.ascontiguousarray(yh, dtype="<f8").tobytes())}
    return header, arrays


def _columns(table_rules: RuleSet, scale: float, say: Callable[[str], None] | None) -> ValueToGo:
    """A multi-column sheet's value to go: every column valued by its single column's exact table,
    times `scale` (the play kernel sees the scaled values, exactly as strategy.sources.TableSource)."""
    tab, _ = get_table(table_rules, say)
    fut = tab.value_to_go(exact=False)
    if scale != 1.0:
        fut.W = np.ascontiguousarray(fut.W * scale)
    return fut


def _fit_scale(rules: RuleSet, table_rules: RuleSet, say: Callable[[str], None] | None) -> tuple[float, Any]:
    """The weight of the columns' values to go against the points written now that scores most over
    the same seeded games (EVAL_GAMES), and the recorded games it played. Each column's table values
    it as if played alone; on a sheet of several columns a roll may go to whichever column suits it,
    so a column's future is worth relatively less than its table says, and a weight below 1 plays
    better (Triple Yahtzee: about 10 points a game)."""
    best: tuple[float, float, Any] = (-math.inf, 1.0, None)
    progress = given(None)
    for i, scale in enumerate(SCALE_CANDIDATES):
        batch = play_with(rules, _columns(table_rules, scale, say), SEED, 0, EVAL_GAMES, record=True)
        mean = float(batch.totals.mean())
        if mean > best[0]:
            best = (mean, scale, batch)
        if progress is not None:
            progress(i + 1, len(SCALE_CANDIDATES))
    return best[1], best[2]


def _levels(rules: RuleSet, table_rules: RuleSet, scale: float, batch: Any) -> list[float]:
    """levels[K]: the mean, over the batch's turn starts with K boxes open on the whole sheet, of the
    final total the strategy reached less the columns' estimate there (the sheet value of the points
    written plus `scale` x each column's table value, as strategy.turn.Turn computes it). Every option
    of a turn fills one box, so a level by K moves every value of a turn alike (decisions unchanged)
    and makes the values estimates of what this strategy goes on to score: at the empty sheet, its
    simulated mean. Replays the recorded games turn by turn, all games at once."""
    s = rules.settings
    nb = len(rules.boxes)
    tab, _ = get_table(table_rules)
    W = tab.W.reshape(len(tab.masks), tab.nyt, tab.t + 1)
    rows = np.full(1 << nb, -1, dtype=np.int64)
    rows[tab.masks] = np.arange(len(tab.masks))
    assert batch.box is not None and batch.column is not None and batch.n_turns is not None
    assert batch.rolls is not None and batch.n_rolls is not None
    n, cols = len(batch), s.columns
    mask = np.zeros((n, cols), dtype=np.int64)
    upper = np.zeros((n, cols), dtype=np.int64)
    yfull = np.zeros((n, cols), dtype=np.bool_)
    raw = np.zeros((n, cols), dtype=np.float64)  # points written, extra bonuses included, upper bonus not
    is_upper = np.array([b.kind == "upper" for b in rules.boxes])
    ybox = -1 if rules.yahtzee_index is None else rules.yahtzee_index
    ypoints = rules.boxes[ybox].points if ybox >= 0 else None
    mult = np.array(s.multipliers, dtype=np.float64)
    bits = (1 << np.arange(nb, dtype=np.int64))
    sums = np.zeros(cols * nb + 1)
    counts = np.zeros(cols * nb + 1)
    games = np.arange(n)
    for turn in range(int(batch.n_turns.max()) if n else 0):
        live = turn < batch.n_turns
        open_boxes = nb * cols - ((mask[:, :, None] & bits) != 0).sum(axis=(1, 2))
        lane = (yfull & (tab.nyt == 2)).astype(np.int64)
        values = raw + scale * W[rows[mask], lane, np.minimum(upper, tab.t)]
        weighted = values * mult
        estimate = weighted.sum(axis=1) if s.add_columns else weighted.max(axis=1)
        np.add.at(sums, open_boxes[live], batch.totals[live] - estimate[live])
        np.add.at(counts, open_boxes[live], 1)
        box = batch.box[:, turn].astype(np.int64)
        g = games[live & (box >= 0)]  # a pass writes nothing
        b, c = box[g], batch.column[g, turn].astype(np.int64)
        score = batch.scores[g, c, b].astype(np.int64)
        last = batch.rolls[g, turn, batch.n_rolls[g, turn].astype(np.int64) - 1]
        yahtzee_roll = (last == last[:, :1]).all(axis=1)
        raw[g, c] += score + np.where(yahtzee_roll & yfull[g, c], s.extra_yahtzee_bonus, 0)
        mask[g, c] |= bits[b]
        upper[g, c] += np.where(is_upper[b], score, 0)
        yfull[g, c] = np.where(b == ybox, score == ypoints, yfull[g, c])
    return [float(a / k) if k else 0.0 for a, k in zip(sums, counts, strict=True)]


def _fit(rules: RuleSet, t: int) -> tuple[Any, Any, Any, float, str]:
    """Both forms fitted by self-play; the one that scores more over the same seeded games is kept
    (the value per open count plays Yahtzee better; on Maxi Yatzy's saved rolls, the plain value per
    box did in our runs): (h, G, yh, saved_value, form)."""
    best: tuple[float, tuple[Any, Any, Any, float, str] | None] = (-math.inf, None)
    for form, fit in (("by_open_count", _fit_by_open_count), ("per_box", _fit_per_box)):
        h, G, yh, saved_value = fit(rules, t)
        mean = float(play_with(rules, vtg.heuristic(rules, h, G, yh, saved_value), SEED + 77, 0,
                               FORM_CHECK_GAMES).totals.mean())
        if mean > best[0]:
            best = (mean, (h, G, yh, saved_value, form))
    assert best[1] is not None
    return best[1]


def _fit_per_box(rules: RuleSet, t: int) -> tuple[Any, Any, Any, float]:
    """Self-play fit of h[b] (the same for every open count): the mean score the strategy writes in
    each box, over PER_BOX_ROUNDS rounds of FIT_CHECK_GAMES games."""
    s = rules.settings
    nb = len(rules.boxes)
    y = rules.yahtzee_index
    fut = vtg.greedy(rules)
    h: Any = fut.h
    G: Any = fut.G
    yh: Any = fut.yh
    extra_bonus = y is not None and s.extra_yahtzee_bonus > 0
    for rnd in range(PER_BOX_ROUNDS):
        batch = play_with(rules, fut, SEED + rnd, 0, FIT_CHECK_GAMES, record=extra_bonus)
        h = np.tile(np.clip(batch.scores, 0, None).astype(np.float64).mean(axis=(0, 1)), (nb + 1, 1))
        h[0] = 0.0
        G = _bonus_table(rules, _upper_dists(rules, batch), t)
        if extra_bonus:
            assert batch.box is not None and batch.column is not None and batch.n_turns is not None
            # extra bonus earned per box still open when the Yahtzee box got its points
            open_at = 0.0
            for g in range(len(batch)):
                n_t = int(batch.n_turns[g])
                for c in range(s.columns):
                    hits = np.nonzero((batch.box[g, :n_t] == y) & (batch.column[g, :n_t] == c))[0]
                    if len(hits) and R.holds_full_yahtzee(rules, int(batch.scores[g, c, y])):
                        filled_before = int(((batch.column[g, : hits[0]] == c) & (batch.box[g, : hits[0]] >= 0)).sum())
                        open_at += nb - filled_before - 1
            rate = float(batch.yahtzee_bonus.sum()) / open_at if open_at else 0.0
            yh = rate * np.arange(nb + 1, dtype=np.float64)
        fut = vtg.heuristic(rules, h, G, yh, 0.0)
    saved_value = _best_saved_value(rules, lambda v: vtg.heuristic(rules, h, G, yh, v)) if s.saved_rolls else 0.0
    return h, G, yh, saved_value


def _fit_by_open_count(rules: RuleSet, t: int) -> tuple[Any, Any, Any, float]:
    """Self-play fit of h[k, b] by regression on what the strategy goes on to score (module docstring)."""
    s = rules.settings
    # start: the greedy strategy's view (no value to go), then fit to what the strategy goes on to score
    fut = vtg.greedy(rules)
    h: Any = fut.h
    G: Any = fut.G
    yh: Any = fut.yh
    fits = []
    for rnd, games in enumerate(FIT_GAMES):
        batch = play_with(rules, fut, SEED + rnd, 0, games, record=True)
        G = _bonus_table(rules, _upper_dists(rules, batch), t)
        fits.append((*_regress(rules, batch, G, t, fut.sub_of), G))
        # the last rounds' fits averaged: each is noisy (a few thousand games), and they fit much the same
        last = fits[-FIT_AVERAGE:] if rnd == len(FIT_GAMES) - 1 else fits[-1:]
        h, yh, saved_value, G = (sum(f[i] for f in last) / len(last) for i in range(4))
        fut = vtg.heuristic(rules, h, G, yh, saved_value)
    if s.saved_rolls:  # the fitted value of a saved roll, or a round one if that plays better
        saved_value = _best_saved_value(rules, lambda v: vtg.heuristic(rules, h, G, yh, v),
                                        (round(float(saved_value), 4), *SAVED_CANDIDATES))
    return h, G, yh, float(saved_value)


def _returns(rules: RuleSet, batch: Any, t: int) -> tuple[Any, Any]:
    """(states [n, 4]: filled mask, Yahtzee lane, upper total capped at t, saved rolls; points [n]) for
    each column at each turn start while it has open boxes: the points it went on to score from there
    (box scores, extra bonuses, and its upper bonus if reached at all, counted whole as G counts it)."""
    s = rules.settings
    nb = len(rules.boxes)
    full = (1 << nb) - 1
    upper = set(rules.upper_indices)
    ybox = rules.yahtzee_index
    lanes = state_space(rules).nyt
    assert batch.box is not None and batch.column is not None and batch.n_turns is not None
    assert batch.rolls is not None and batch.n_rolls is not None
    states: list[tuple[int, int, int, int]] = []
    points: list[float] = []
    for g in range(len(batch)):
        n_t = int(batch.n_turns[g])
        mask = [0] * s.columns
        upper_sum = [0] * s.columns
        yfull = [False] * s.columns
        saved = 0
        gains = np.zeros((s.columns, n_t + 1))
        starts: list[tuple[int, int]] = []  # (column, turn) of each sample, in order
        for turn in range(n_t):
            for c in range(s.columns):
                if mask[c] != full:
                    starts.append((c, turn))
                    states.append((mask[c], int(yfull[c] and lanes == 2), min(upper_sum[c], t), saved))
            saved = R.rolls_left_over(s.saved_rolls, saved, int(batch.n_rolls[g, turn]), s.saved_cap)
            box = int(batch.box[g, turn])
            if box < 0:  # a pass
                continue
            c = int(batch.column[g, turn])
            dice = tuple(int(d) for d in batch.rolls[g, turn, int(batch.n_rolls[g, turn]) - 1])
            score = int(batch.scores[g, c, box])
            gains[c, turn] = score + R.extra_bonus_points(rules.is_yahtzee(dice), yfull[c], s.extra_yahtzee_bonus)
            mask[c] |= 1 << box
            if box in upper:
                upper_sum[c] += score
            if box == ybox:
                yfull[c] = R.holds_full_yahtzee(rules, score)
        ahead = np.cumsum(gains[:, ::-1], axis=1)[:, ::-1]  # ahead[c, turn]: points from that turn on
        bonus = [R.upper_bonus_points(upper_sum[c], s.upper_bonus_threshold, s.upper_bonus) for c in range(s.columns)]
        points.extend(float(ahead[c, turn]) + bonus[c] for c, turn in starts)
    return np.array(states, dtype=np.int64).reshape(-1, 4), np.array(points)


def _regress(rules: RuleSet, batch: Any, G: Any, t: int, sub_of: Any) -> tuple[Any, Any, float]:
    """h [boxes + 1, boxes], yh [boxes + 1] and the value of a saved roll: the least-squares fit of the
    points each column went on to score (less the upper bonus's share G, which is computed, not
    fitted) on a[b] + c[b] k (each open box b; k open boxes) + e k (while the Yahtzee box holds its
    points) + d + v x saved rolls. sub_of: value_to_go.sub_of(rules)."""
    nb = len(rules.boxes)
    states, points = _returns(rules, batch, t)
    mask, lane, u, saved = states[:, 0], states[:, 1], states[:, 2], states[:, 3]
    open_ = ((~mask[:, None] >> np.arange(nb)) & 1).astype(np.float64)
    k = open_.sum(axis=1)
    X = np.hstack([open_, open_ * k[:, None], (lane * k)[:, None], np.ones((len(k), 1)), saved[:, None]])
    target = points - G[sub_of[mask], u]
    coef = np.linalg.lstsq(X, target, rcond=None)[0]
    a, c, e, d, v = coef[:nb], coef[nb:2 * nb], coef[2 * nb], coef[2 * nb + 1], coef[2 * nb + 2]
    ks = np.arange(nb + 1, dtype=np.float64)
    h = np.zeros((nb + 1, nb))
    h[1:] = a + np.outer(ks[1:], c) + (d / ks[1:])[:, None]  # d spread over the open boxes
    return h, e * ks, float(v)


def _best_saved_value(rules: RuleSet, with_value: Callable[[float], ValueToGo],
                      candidates: tuple[float, ...] = SAVED_CANDIDATES) -> float:
    """The candidate value of one saved roll whose strategy scores best over the same seeded games."""
    best = (-math.inf, 0.0)
    for cand in candidates:
        mean = float(play_with(rules, with_value(cand), SEED + 50, 0, FIT_CHECK_GAMES).totals.mean())
        if mean > best[0]:
            best = (mean, cand)
    return best[1]
