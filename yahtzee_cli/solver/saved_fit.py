"""A compact value to go by stock of saved rolls, fitted once to an exact saved-rolls table
(solver.saved): near-optimal play of a game with saved rolls with no table built.

A turn-start position (filled boxes, upper total u, stock s) is valued as

    V[s](mask, u) = sum over open boxes b of H[s, k, b] + sum over pairs of open boxes b < c of
    P[s, b, c] + G[s, group, u] (+ Y[s, k] while the Yahtzee box holds its full points),

k the number of open boxes, group the set of filled upper boxes and how many others are open: the
heuristic value to go's form (solver.approx) once per stock, so a box is worth more with rolls in hand
to chase it, plus what two open boxes are worth together (one roll may serve either: five of a kind
and Maxi Yatzy, a full house and a villa). The pairs halve the error in the difference between
filling one box and another (1.2 points RMS against 2.3 at the start of a game) and took the play of
Maxi Yatzy from 7.8 to about 0.6 points a game below its table's. The turn itself is played exactly on
these values, as play_kernel.play_saved_games plays an exact table's (the values of every stock it can
stop with).

The fit is least squares, stock by stock, against the exact table's values at the turn starts that
optimal play reaches (games played by the table) and at every position one box away from them (each
box a turn could fill, with each upper total it could write), alternating between H, P and Y (the
normal equations over a sample of the positions) and G (a mean per cell over all of them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules.engine import RuleSet
from ..store.kinds import SAVED_FIT
from ..strategy.choice import Plan, fit_rules, fitted_path, quick_to_build
from ..strategy.saved_cost import without_saved
from ..strategy.space import state_space

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

VERSION = 1  # bump when the model's form changes
FIT_GAMES = 4000  # games of optimal play whose turn starts (and the positions a box away) are fitted
FIT_SEED = 20261207
ROUNDS = 12  # alternations between (H, P) and G
FIT_ROWS = 200_000  # positions (a sample) H and P are fitted to per stock; G is fitted to every one
MEASURE_GAMES = 100_000  # games the shipped fit is measured on against its table (the same dice)
MEASURE_SEED = 1


@dataclass
class FittedStocks:
    """The fitted values to go: H [K + 1, boxes + 1, boxes], G [K + 1, groups, t + 1] (groups(rules)),
    Y [K + 1, boxes + 1 + boxes * boxes] (the Yahtzee lane's term by open count, then P [boxes, boxes]
    row-major: within_turn.FUTURE_FITTED); `measured`: how it played against the exact table it was
    fitted to (same dice)."""

    fingerprint: str
    cap: int
    t: int
    nyt: int
    H: FloatArray
    G: FloatArray
    Y: FloatArray
    sub_of: IntArray
    measured: dict[str, Any] = field(default_factory=dict)

    def stocks(self) -> tuple[Any, tuple[Any, ...]]:
        """(within_turn.Future, stocks) as play_kernel.play_saved_games takes them."""
        from .within_turn import FUTURE_FITTED, Future

        none = np.zeros(1, dtype=np.float32)
        fut = Future(FUTURE_FITTED, self.t, self.nyt, none, np.zeros(1, np.int64), self.H[0], self.G[0],
                     self.Y[0], self.sub_of)
        return fut, (none, np.zeros(self.cap + 2, np.int64), self.H, self.G, self.Y)

    def value(self, mask: int, y: int, u: int, stock: int) -> float:
        s = min(max(stock, 0), self.cap)
        nb = self.H.shape[2]
        open_ = [b for b in range(nb) if not mask >> b & 1]
        k = len(open_)
        acc = float(self.G[s, self.sub_of[mask], min(u, self.t)])
        for i, b in enumerate(open_):
            acc += float(self.H[s, k, b])
            for b2 in open_[i + 1:]:
                acc += float(self.Y[s, nb + 1 + b * nb + b2])
        if y == 1:
            acc += float(self.Y[s, k])
        return acc


def _positions(rules: RuleSet, batch: Any, t: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """(mask, lane, u capped at t, weight): the turn starts of the games in `batch` and every position
    one box away from each (the box's every upper total), counted by how often they come up."""
    from .approx import _returns

    nb = len(rules.boxes)
    states, _ = _returns(rules, batch, t)
    mask, lane, u = states[:, 0], states[:, 1], states[:, 2]
    parts = [(mask, lane, u)]
    upper_face = {i: rules.boxes[i].face or 0 for i in rules.upper_indices}
    ybox = rules.yahtzee_index
    for b in range(nb):
        free = (mask >> b & 1) == 0
        m2, l2, u2 = mask[free] | (1 << b), lane[free], u[free]
        if b in upper_face:
            for n in range(rules.dice + 1):
                parts.append((m2, l2, np.minimum(u2 + n * upper_face[b], t)))
        else:
            parts.append((m2, l2, u2))
            if b == ybox and state_space(rules).nyt == 2:
                parts.append((m2, np.ones_like(l2), u2))
    allm = np.concatenate([p[0] for p in parts])
    alll = np.concatenate([p[1] for p in parts])
    allu = np.concatenate([p[2] for p in parts])
    key = (allm << 16) | (alll << 15) | allu
    keys, counts = np.unique(key, return_counts=True)
    return keys >> 16, (keys >> 15) & 1, keys & 0x7FFF, counts.astype(np.int64)


def fit(rules: RuleSet, table: Any, games: int = FIT_GAMES, say: Any = None) -> FittedStocks:
    """Fit the values by stock to `table` (a solver.saved.SavedTable of `rules`, capped rules)."""
    from . import saved
    K, t, nyt = table.cap, table.t, table.nyt
    nb = len(rules.boxes)
    sub_of = groups(rules)
    nsub = int(sub_of.max()) + 1
    batch = saved.play_with(rules, table, FIT_SEED, 0, games, record=True)
    mask, lane, u, weight = _positions(rules, batch, t)
    filled = saved.filled_counts(mask, nb)
    k_open = nb - filled
    open_bits = ((~mask[:, None] >> np.arange(nb)) & 1).astype(np.float64)
    cell = sub_of[mask] * (t + 1) + u
    H = np.zeros((K + 1, nb + 1, nb))
    G = np.zeros((K + 1, nsub, t + 1))
    Y = np.zeros((K + 1, nb + 1 + nb * nb))
    for s in range(K + 1):
        keep = table.lay.tops[filled] >= s  # the positions that can hold s saved rolls
        target = table.values(s, mask[keep], lane[keep], u[keep])
        H[s], G[s], Y[s] = _fit_stock(target, weight[keep].astype(np.float64), open_bits[keep], k_open[keep],
                                      lane[keep], cell[keep], nb, nsub, t)
        if say is not None:
            say(f"fitted stock {s} of {K}")
    return FittedStocks(rules.fingerprint, K, t, nyt, H, G, Y, sub_of)


# the upper bonus's share G is fitted per set of filled upper boxes and per how many other boxes are
# open (a turn left for them is one more to dump a roll in or to chase the bonus with): by these groups
LOWER_GROUPS = (0, 1, 2, 3, 3, 4, 4, 4, 4, 5)  # group of 0..9 open other boxes; more: the last


def groups(rules: RuleSet) -> IntArray:
    """[2**boxes] mask -> the row of G its turn starts read: the set of filled upper boxes, and the group
    of how many other boxes are open (LOWER_GROUPS)."""
    from .value_to_go import sub_of as sub_of_masks

    sub = sub_of_masks(without_saved(rules))
    nsub = int(sub.max()) + 1
    masks = np.arange(len(sub), dtype=np.int64)
    lower = [b for b in range(len(rules.boxes)) if b not in set(rules.upper_indices)]
    open_lower = np.zeros(len(sub), dtype=np.int64)
    for b in lower:
        open_lower += 1 - ((masks >> b) & 1)
    grp = np.asarray(LOWER_GROUPS, dtype=np.int64)[np.minimum(open_lower, len(LOWER_GROUPS) - 1)]
    return grp * nsub + sub


def _fit_stock(target: FloatArray, w: FloatArray, open_bits: FloatArray, k_open: IntArray, lane: IntArray,
               cell: IntArray, nb: int, nsub: int, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One stock's H [nb + 1, nb], G [nsub, t + 1] and Y [nb + 1 + nb * nb] (the Yahtzee lane's term by
    open count, then P, the pairs of open boxes, row-major, upper triangle) by alternating least
    squares: H, P and Y by the normal equations over at most FIT_ROWS positions (their matrix is the
    same every round, so it is factored once), G by the mean of what they leave in each of its cells
    over every position."""
    pairs = np.triu_indices(nb, 1)
    npair = len(pairs[0])
    nh = (nb + 1) * nb
    nf = nh + npair + (nb + 1)
    yl = lane.astype(np.float64)
    rng = np.random.default_rng(FIT_SEED)
    n = len(target)
    sub = np.sort(rng.choice(n, FIT_ROWS, replace=False)) if n > FIT_ROWS else np.arange(n)
    Os, ks, ys, ws = open_bits[sub], k_open[sub], yl[sub], w[sub]
    X = np.zeros((len(sub), nf))
    rows = np.arange(len(sub))
    for b in range(nb):
        X[rows, ks * nb + b] = Os[:, b]
    X[:, nh:nh + npair] = Os[:, pairs[0]] * Os[:, pairs[1]]
    X[rows, nh + npair + ks] = ys
    A = X.T @ (X * ws[:, None])
    A[np.diag_indices(nf)] += 1e-6 * (1.0 + A.diagonal())  # (features no position has: held at 0)
    ncell = nsub * (t + 1)
    wsum = np.bincount(cell, weights=w, minlength=ncell)
    seen = wsum > 0
    Gf = np.zeros(ncell)
    H = np.zeros((nb + 1, nb))
    P = np.zeros((nb, nb))
    Yk = np.zeros(nb + 1)
    for _ in range(ROUNDS):
        rest = target[sub] - Gf[cell[sub]]
        coef: FloatArray = np.linalg.solve(A, X.T @ (rest * ws)).astype(np.float64)
        H = coef[:nh].reshape(nb + 1, nb)
        P[pairs] = coef[nh:nh + npair]
        Yk = coef[nh + npair:]
        # every position's value from H, P and Y: what G is fitted to the rest of
        hs = (open_bits * H[k_open]).sum(axis=1) + ((open_bits @ P) * open_bits).sum(axis=1) + Yk[k_open] * yl
        sums = np.bincount(cell, weights=w * (target - hs), minlength=ncell)
        Gf = np.where(seen, sums / np.maximum(wsum, 1e-300), 0.0)
    G = Gf.reshape(nsub, t + 1)
    _fill_unseen(G, seen.reshape(nsub, t + 1))
    return H, G, np.concatenate([Yk, P.ravel()])


def _fill_unseen(G: FloatArray, seen: npt.NDArray[np.bool_]) -> None:
    """Cells no position reached: the nearest seen total's value in the same upper set (else the mean
    of every seen set at that total)."""
    nsub, width = G.shape
    col_mean = np.array([G[seen[:, u], u].mean() if seen[:, u].any() else 0.0 for u in range(width)])
    for sub in range(nsub):
        have = np.flatnonzero(seen[sub])
        if len(have) == 0:
            G[sub] = col_mean
            continue
        for u in np.flatnonzero(~seen[sub]):
            G[sub, u] = G[sub, have[np.argmin(np.abs(have - u))]]



# --------------------------------------------------------------------------- stored


def encode(model: FittedStocks, rules: RuleSet) -> tuple[dict[str, Any], dict[str, Any]]:
    header = {"kind": SAVED_FIT.name, "version": VERSION, "fingerprint": model.fingerprint, "rule_name": rules.name,
              "cap": model.cap, "t": model.t, "nyt": model.nyt, "nb": int(model.H.shape[2]),
              "subs": int(model.G.shape[1]), "measured": model.measured}
    arrays = {name: ("d", np.ascontiguousarray(a, dtype="<f8").tobytes())
              for name, a in (("H", model.H), ("G", model.G), ("Y", model.Y))}
    return header, arrays


def decode(rules: RuleSet, header: dict[str, Any], arrays: dict[str, Any]) -> FittedStocks:
    K, t, nb, subs = int(header["cap"]), int(header["t"]), int(header["nb"]), int(header["subs"])
    H = np.frombuffer(arrays["H"], dtype="<f8").reshape(K + 1, nb + 1, nb)
    G = np.frombuffer(arrays["G"], dtype="<f8").reshape(K + 1, subs, t + 1)
    Y = np.frombuffer(arrays["Y"], dtype="<f8").reshape(K + 1, nb + 1 + nb * nb)
    return FittedStocks(header["fingerprint"], K, t, int(header["nyt"]), H, G, Y, groups(rules),
                        dict(header.get("measured") or {}))


def read(rules: RuleSet) -> FittedStocks | None:
    """The fitted values for `rules` (fit_rules(rules)'s), from the cache or the package; None when
    there are none (or they are damaged); read once in a process while the file stays as it is
    (tablefile.opened: decoding the model takes tens of milliseconds, and a run reads it a chunk)."""
    from ..store import tablefile

    return tablefile.opened("saved-fit", [fitted_path(rules)], lambda: _read(rules))


def _read(rules: RuleSet) -> FittedStocks | None:
    from ..errors import CorruptTable
    from ..store import tablefile

    fr = fit_rules(rules)
    try:
        header, arrays = tablefile.read(fitted_path(rules), fr.fingerprint)
        if header.get("kind") != SAVED_FIT.name or header.get("version") != VERSION:
            return None
        return decode(fr, header, arrays)
    except (OSError, CorruptTable, KeyError, ValueError):
        return None


def stock_values(p: Plan, say: Callable[[str], None] | None = None) -> Any:
    """The values by stock a plan with p.by_stock plays: the exact saved-rolls table ("saved"; built
    here when it is quick to build, strategy.choice.quick_to_build) or the model fitted to one
    ("fitted"); None when it has gone from the cache meanwhile."""
    from . import saved

    if p.strategy == "saved" and p.table_rules is not None:
        tab = saved.read(p.table_rules)
        if tab is None and quick_to_build(p.table_rules):
            tab = saved.get_table(p.table_rules, say)[0]
        return tab
    if p.strategy == "fitted":
        return read(p.rules)
    return None


def fitted_label(model: Any) -> str:
    """How a fitted model of values by stock is described wherever it plays: what it was fitted to and
    how far below that table it measured."""
    m = model.measured
    text = f"values by stock fitted to the exact table with at most {model.cap} saved rolls"
    if m.get("games"):
        text += (f" ({m['below']:.2f} points a game below that table's play over the same {m['games']:,} games, "
                 f"{m['mean']:.2f} against {m['exact_mean']:.2f})")
    return text


def info(rules: RuleSet) -> dict[str, Any] | None:
    """What `solve` reports of the fitted values for `rules` (as approx.prepare's): the mean and SD its
    games scored when it was measured, None when there are no fitted values or no measurement."""
    model = read(rules)
    if model is None or not model.measured.get("games"):
        return None
    m = model.measured
    path = fitted_path(rules)
    return {"mean": m["mean"], "sd": m["sd"], "games": m["games"], "strategy": fitted_label(model),
            "why": "saved rolls: no exact table built", "path": str(path) if path.exists() else None}


def write(rules: RuleSet, model: FittedStocks) -> Path:
    from ..store import tablefile

    path = fitted_path(rules)
    header, arrays = encode(model, fit_rules(rules))
    tablefile.write(path, header, arrays)
    return path
