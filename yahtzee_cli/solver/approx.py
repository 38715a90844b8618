"""Approximate strategies, for rule sets whose exact state space does not fit. Every value they give
is labelled approximate ("exact": false).

Both are a one-turn lookahead (the exact within-turn machinery: keeps, rerolls, box choice) on an
estimate F of each column's value to go at the next turn start:

* multi-column sheets whose single column has an exact table ("columns"): F of a column is that
  table's exact value, and the sheet's value is the weighted sum of the columns' (points + F)
  (or, with add_columns off, the best weighted column). It values each column as if played alone,
  ignoring that every roll may go to whichever column suits it best, so its values are pessimistic
  (Triple Yahtzee: 1527.5 for the empty sheet, while this strategy averages about 1846 in play);
  the decisions it ranks are still sensible, each column's own future being valued exactly.
* anything else, e.g. Maxi Yatzy with saved rolls ("heuristic"): an additive value to go
      F = sum over open boxes of h[box] + upper bonus x P(bonus | filled upper boxes, upper total)
          (+ yh[open boxes] while the Yahtzee box holds its points, for extra-Yahtzee bonuses)
  plus `saved_value` per saved roll. The parameters come from self-play (approximate policy
  iteration): h = the mean score the strategy itself writes in each box, P from the convolution of
  the distributions of its upper-box scores, yh from its extra bonuses; the saved-roll value is
  picked among a few candidates by simulated mean. Run on plain Yahtzee, where the exact answer is
  known, it shows how far it is from optimal (README: "Approximate strategies").

Parameters and simulated means are cached next to the exact tables (kind "approx").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import CorruptTable
from ..rules import engine as R
from ..rules.engine import RuleSet
from ..strategy import tablefile
from ..strategy.choice import plan, upper_lanes
from . import value_to_go as vtg
from .exact import get_table, nothing_cached, play_with
from .value_to_go import ValueToGo

FIT_GAMES = 2000  # games per self-play round
FIT_ROUNDS = 3
EVAL_GAMES = 10_000  # games for the reported mean
SAVED_CANDIDATES = (0.0, 1.0, 2.0, 4.0, 8.0)
SEED = 20240611


def _read(rules: RuleSet, say: Callable[[str], None] | None = None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The cached approximate strategy, or None when there is none or it is damaged (said to `say`)."""
    path = tablefile.table_path(rules.fingerprint, "approx")
    try:
        got = tablefile.read(path, rules.fingerprint)
    except FileNotFoundError:
        return None
    except CorruptTable as exc:
        if say is not None:
            say(tablefile.ignored(exc))
        return None
    if got[0].get("kind") != "approx":
        if say is not None:
            say(f"warning: damaged strategy table ignored ({path} is not an approximate strategy); "
                "rebuilding it")
        return None
    if got[0].get("strategy") != plan(rules).strategy:  # made by a version that played these rules otherwise
        if say is not None:
            say(f"the cached approximate {rules.name} strategy is of another kind; preparing it again")
        return None
    return got


def prepare(rules: RuleSet, say: Callable[[str], None] | None = None, rebuild: bool = False) -> dict[str, Any]:
    """Make (or load) the approximate strategy of `rules` and its simulated mean and SD."""
    path = tablefile.table_path(rules.fingerprint, "approx")
    vtg.check_memory(rules)  # refuse rules too big for this machine before any note or work
    got = None if rebuild else _read(rules, say)
    if got is None:
        if say is not None:
            where = f"; cached in {tablefile.cache_dir()}" if tablefile.writable() else ""
            say(f"preparing the approximate {rules.name} strategy (once{where})")
        header, arrays = _build(rules, say)
        try:
            tablefile.write(path, header, arrays)
        except OSError as exc:  # kept in memory by tablefile.write: this run still has it
            if say is not None:
                say(nothing_cached(exc))
        got = tablefile.read(path, rules.fingerprint)
    header = got[0]
    return {"mean": header["mean"], "sd": header["sd"], "games": header["games"], "strategy": header["strategy"],
            "why": header["why"], "path": str(path) if path.exists() else None}


def value_to_go(rules: RuleSet, say: Callable[[str], None] | None = None) -> ValueToGo:
    """The value to go the compiled play kernel uses for the approximate strategy."""
    p = plan(rules)
    if p.table_rules is not None:
        tab, _ = get_table(p.table_rules, say)
        return tab.value_to_go(exact=False)
    prepare(rules, say)
    got = _read(rules)
    assert got is not None
    header, arrays = got
    return vtg.heuristic(rules, np.asarray(arrays["h"], dtype=np.float64), np.asarray(arrays["G"], dtype=np.float64),
                      np.asarray(arrays["yh"], dtype=np.float64), float(header["saved_value"]))


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
    p = plan(rules)
    header: dict[str, Any] = {"kind": "approx", "fingerprint": rules.fingerprint, "rule_name": rules.name,
                              "strategy": p.strategy, "why": p.why}
    if p.strategy == "columns":
        fut = value_to_go(rules, say)
        batch = play_with(rules, fut, SEED, 0, EVAL_GAMES)
        header.update(mean=float(batch.totals.mean()), sd=float(batch.totals.std()), games=EVAL_GAMES, t=0,
                      saved_value=0.0)
        return header, {}
    t = upper_lanes(rules)
    nb = len(rules.boxes)
    n_up = len(rules.upper_indices)
    h, G, yh, saved_value = _fit(rules, t)
    fut = vtg.heuristic(rules, h, G, yh, saved_value)
    batch = play_with(rules, fut, SEED + 99, 0, EVAL_GAMES)
    header.update(mean=float(batch.totals.mean()), sd=float(batch.totals.std()), games=EVAL_GAMES, t=t,
                  saved_value=saved_value, h=[round(float(x), 4) for x in h])
    assert len(h) == nb and G.shape == (1 << n_up, t + 1)
    arrays = {"h": ("d", np.ascontiguousarray(h, dtype="<f8").tobytes()),
              "G": ("d", np.ascontiguousarray(G, dtype="<f8").tobytes()),
              "yh": ("d", np.ascontiguousarray(yh, dtype="<f8").tobytes())}
    return header, arrays


def _fit(rules: RuleSet, t: int) -> tuple[Any, Any, Any, float]:
    """Self-play fit of the heuristic's parameters (see the module docstring)."""
    s = rules.settings
    nb = len(rules.boxes)
    upper = list(rules.upper_indices)
    y = rules.yahtzee_index
    # start: the greedy strategy's view (no value to go), then iterate on what the strategy scores
    h = np.zeros(nb)
    G = vtg.greedy(rules).G.copy()
    yh = np.zeros(nb + 1)
    saved_value = 0.0
    for rnd in range(FIT_ROUNDS):
        fut = vtg.heuristic(rules, h, G, yh, saved_value)
        batch = play_with(rules, fut, SEED + rnd, 0, FIT_GAMES, record=y is not None and
                                 s.extra_yahtzee_bonus > 0)
        sc = np.clip(batch.scores, 0, None).astype(np.float64)  # [G, C, B]
        h = sc.mean(axis=(0, 1))
        dists = []
        for b in upper:
            vals, counts = np.unique(batch.scores[:, :, b].ravel(), return_counts=True)
            dists.append({int(v): float(c) / counts.sum() for v, c in zip(vals, counts, strict=True)})
        G = _bonus_table(rules, dists, t)
        if (y is not None and s.extra_yahtzee_bonus > 0 and batch.box is not None and batch.column is not None
                and batch.n_turns is not None):
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
    if s.saved_rolls:
        saved_value = _best_saved_value(rules, lambda v: vtg.heuristic(rules, h, G, yh, v))
    return h, G, yh, saved_value


def _best_saved_value(rules: RuleSet, with_value: Callable[[float], ValueToGo]) -> float:
    """The candidate value of one saved roll whose strategy scores best over the same seeded games."""
    best = (-math.inf, 0.0)
    for cand in SAVED_CANDIDATES:
        mean = float(play_with(rules, with_value(cand), SEED + 50, 0, FIT_GAMES).totals.mean())
        if mean > best[0]:
            best = (mean, cand)
    return best[1]
