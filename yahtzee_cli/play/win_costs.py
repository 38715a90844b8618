"""What each decision of a game of two or more cost in win probability (`analyze`).

At a decision the player's opponents stand at the start of their next turns (their sheets as they
are at that moment), each with the exact final-score pmf of optimal expected-score play from there
(solver.winning). A final total s is worth u(s), the player's expected share of first place against
them (alone on top 1, tied with k others 1 / (k + 1), else 0). Every option of the decision (each
keep of the dice showing, every legal box, a pass) has an exact final-score pmf, the player playing on
by the optimal expected-score policy after it (solver.chances.position_chances), so its win
chance is sum_s pmf[s] * u[s]. The decision's win cost is the best option's chance minus the chance
after the move made: >= 0, and 0 when the move made is one of the best for winning (which need not
be the best move in points: a player far behind may do better with a riskier move).

Only rule sets with exact score distributions have these (play.odds.unavailable); approximate or
risk-sensitive grading leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..formats.replay import TurnStep, replay_game
from ..rules import engine as R
from ..strategy import turn as P

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class WinCost:
    """A decision's win chances: after the move made, after the best move for winning (`best_move`)."""

    made: float
    best: float
    best_move: P.Choice

    @property
    def cost(self) -> float:
        return max(self.best - self.made, 0.0)


def opponents_at(steps: Sequence[TurnStep], finals: Sequence[R.Column], players: int) -> list[list[R.Column]]:
    """For each step, every player's (first) column at that moment: before their next turn, or their
    last sheet once they have no turn left."""
    seq: list[list[tuple[int, R.Column]]] = [[] for _ in range(players)]
    for st in steps:
        seq[st.player].append((st.index, st.columns[0]))
    out: list[list[R.Column]] = []
    pos = [0] * players
    for st in steps:
        row = []
        for j in range(players):
            while pos[j] < len(seq[j]) and seq[j][pos[j]][0] < st.index:
                pos[j] += 1
            row.append(seq[j][pos[j]][1] if pos[j] < len(seq[j]) else finals[j])
        out.append(row)
    return out


def game_win_costs(rules: R.RuleSet, data: Mapping[str, Any], steps: Sequence[TurnStep], decisions: Sequence[Any],
                   turn: Callable[[R.RuleSet, tuple[R.Column, ...], int], P.Turn], until: int | None = None,
                   say: Say | None = None) -> list[WinCost | None]:
    """The win chances of every decision (play.analyze.Decision values, in the game's order) of a
    game of two or more players under `rules` (exact distributions; one column). `turn`: the
    Analyzer's cached strategy.turn.Turn maker."""
    import numpy as np

    from ..solver import winning
    from ..solver.chances import Known, position_chances

    rp = replay_game(data, until=until)
    n = len(rp.players)
    finals = [p.columns[0] for p in rp.players]
    at = opponents_at(steps, finals, n)
    step_of = {st.index: (st, row) for st, row in zip(steps, at, strict=True)}
    # every player's later states from one pass each (solver.winning.chain_rest)
    rests = [winning.chain_rest(rules, [st.columns[0] for st in steps if st.player == j] + [finals[j]], say)
             for j in range(n)]
    mod, W = winning.model_values(rules, say)
    out: list[WinCost | None] = []
    cur: tuple[int, Any, Any, Any] | None = None  # (turn index, u, rest, Turn) of the turn being valued
    for d in decisions:
        st, row = step_of[d.index]
        col = st.columns[0]
        if cur is None or cur[0] != d.index:
            others = [winning.final_pmf(rules, row[j], say, rests[j]) for j in range(n) if j != st.player]
            # u up to the best total an opponent can reach; above it the player is alone on top
            u = winning.share_of_first(others, max(o.lo + len(o.pmf) for o in others))
            cur = (d.index, u, rests[st.player], turn(rules, st.columns, st.saved))
        _, u, rest, tn = cur

        def chances(dice: R.Dice, left: int, options: list[P.Choice], u: Any = u, rest: Any = rest,
                    col: R.Column = col) -> list[float]:
            moves = [o for o in options if not o.is_pass]
            got = iter(position_chances(rules, col, dice, left, moves, say=say, known=Known(mod, W, rest)))
            vals = []
            for o in options:
                dist = winning.final_pmf(rules, col, say, rest) if o.is_pass else next(got).dist
                pm = np.zeros(max(dist.lo + len(dist.pmf), len(u)))
                pm[dist.lo: dist.lo + len(dist.pmf)] = dist.pmf
                vals.append(float(np.dot(pm[:len(u)], u) + pm[len(u):].sum()) / max(float(pm.sum()), 1e-300))
            return vals

        ev = tn.evaluate(d.dice, d.rolls_left)
        options = list(ev.options)
        values = chances(d.dice, d.rolls_left, options)
        i_best = max(range(len(options)), key=lambda k: (values[k], -k))
        made = _made(d, options, values, tn, chances)
        if made >= values[i_best]:  # one of the best (kept every die and rolled again: maybe better still)
            out.append(WinCost(made, made, d.made))
        else:
            out.append(WinCost(made, values[i_best], options[i_best]))
    return out


def _made(d: Any, options: list[P.Choice], values: list[float], tn: P.Turn,
          chances: Callable[[R.Dice, int, list[P.Choice]], list[float]]) -> float:
    """The win chance after the move made (a keep of every die rolled again: the policy's move at the
    same dice with one roll fewer)."""
    m = d.made
    if m.keep is not None:
        want = tuple(sorted(m.keep))
        if d.kind == "keep" and len(want) == len(d.dice):  # kept every die and rolled again
            ev = tn.evaluate(d.dice, d.rolls_left - 1)
            return chances(d.dice, d.rolls_left - 1, [ev.best])[0]
        return next(v for o, v in zip(options, values, strict=True) if o.keep == want)
    if m.is_pass:
        return next(v for o, v in zip(options, values, strict=True) if o.is_pass)
    return next(v for o, v in zip(options, values, strict=True)
                if o.keep is None and not o.is_pass and o.box == m.box and o.column == m.column)
