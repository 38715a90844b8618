"""The `to-win` seat of a match: a player who plays to win against the other seats as they stand at the
start of each of its turns (late in a game the policy of `hint --to-win`; earlier a one-turn lookahead
that needs only one file of distributions, fast enough for thousands of games).

At each turn start the seat reads every opponent's final-score pmf from where their sheet stands
(optimal expected-score play assumed for them; solver.state_pmfs, one lookup each) and from those
u(s), its expected share of first place with a final total of s (solver.winning.share_of_first).
Then:

  * with at most EXACT_OPEN boxes open, exact play for u (solver.utility): every keep and box of the
    turn maximises E[u(final)], the exact chance to win against those opponents;
  * earlier, a one-turn lookahead (solver.utility.solve_turn): every keep and box of this turn
    maximises E[u(final)] with the later turns played by the optimal strategy, each next state's
    points to come read from the same pmfs. It never does worse than optimal play in that chance,
    and it needs nothing beyond the one file of pmfs the opponents already take.

The other seats play their own strategies, which never look at the table, so their games are played
first (recorded) and the to-win seats play theirs against them, turn by turn, in seat order: at its
turn t, a seat sees the seats before it after their turn t and the seats after it before theirs. Its
dice follow the convention of every strategy (play.strategies), from rng.stream(seed, game, seat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import NotExact, StrategyError
from ..rules import engine as R
from ..solver.games import GameBatch
from ..solver.pmf import Distribution
from ..strategy.sources import raw_points
from ..strategy.turn import Choice, Turn

TO_WIN = "to-win"
EXACT_OPEN = 3  # exact play with at most this many open boxes (tens of ms a turn for Yahtzee; 4 open take 0.1-0.5 s)

TAIL = 1e-5  # totals whose share of first place is this close to the best one are valued as the best (so every
# option is valued within TAIL of its exact value, and the vectors stop where the opponents can no longer win)

Say = Callable[[str], None]


def objective(rules: R.RuleSet) -> str:
    return (f"maximise the chance to win against the other seats as they stand: exact play with at most "
            f"{EXACT_OPEN} boxes open, before that each turn for it with optimal play after")


def check_rules(rules: R.RuleSet) -> None:
    """StrategyError when the to-win seat cannot play these rules (no exact distribution, or passes)."""
    from ..solver.distribution import model

    try:
        model(rules)
    except NotExact as exc:
        raise StrategyError(f"strategy {TO_WIN} needs an exact table: {exc}") from None
    except NotImplementedError as exc:
        raise StrategyError(f"strategy {TO_WIN} is not available for {rules.name} ({exc})") from None
    if not rules.settings.must_zero:
        raise StrategyError(f"strategy {TO_WIN} needs must_zero on (its exact play cannot value a pass)")


@dataclass
class TurnPlan:
    """How the seat plays one turn: "exact" or "lookahead" (`solved`: a utility.Solved for its share
    of first place), or "optimal" (the result no longer depends on it: the expected-score moves)."""

    method: str
    turn: Turn  # strategy.turn.Turn of the turn on the expected-score table (its options and their order)
    solved: Any = None


class ToWin:
    """The to-win policy for one rule set (its tables loaded once per process)."""

    def __init__(self, rules: R.RuleSet, say: Say | None = None) -> None:
        from ..solver.state_pmfs import state_pmfs
        from .hint import risk_source

        check_rules(rules)
        self.rules = rules
        self.pmfs = state_pmfs(rules, 0.0, say)
        self.source = risk_source(rules, 0.0, say)

    def final(self, column: R.Column) -> Distribution:
        """The pmf of a column's final total from its turn start under optimal play."""
        s = self.pmfs
        lo, pmf = s.rest(s.state_of(self.rules, column))
        return Distribution(pmf, raw_points(self.rules, column) + lo)

    def plan(self, column: R.Column, opponents: Sequence[R.Column]) -> TurnPlan:
        """The play of the turn starting at `column` against opponents standing at `opponents`."""
        from ..solver import utility
        from ..solver.winning import share_of_first

        opps = [self.final(c) for c in opponents]
        hi = max(d.lo + len(d.pmf) for d in opps)
        u = share_of_first(opps, hi)
        hi = int(np.flatnonzero(u >= u[-1] - TAIL)[0])  # u is within TAIL of its top from there on
        u = u[: hi + 1]
        n_open = sum(s is None for s in column.scores)
        base = raw_points(self.rules, column)
        turn = Turn(self.rules, (column,), self.source)
        if hi <= base or float(u.min()) == float(u.max()):  # won or lost whatever happens: play for points
            return TurnPlan("optimal", turn)
        if n_open <= EXACT_OPEN:
            return TurnPlan("exact", turn, utility.solve(self.rules, column, u))
        return TurnPlan("lookahead", turn, utility.solve_turn(self.rules, column, u, self.pmfs.at))

    def choose(self, plan: TurnPlan, column: R.Column, dice: tuple[int, ...], rolls_left: int) -> Choice:
        """The move of the plan with these dice and rolls left (the first best on ties, in the optimal
        strategy's order of the options)."""
        ev = plan.turn.evaluate(dice, rolls_left)
        if plan.solved is None:
            return ev.options[0]
        opts = [o for o in ev.options if not o.is_pass]
        vals = plan.solved.values(dice, rolls_left, opts)
        return opts[max(range(len(opts)), key=lambda i: (vals[i], -i))]


_players: dict[str, ToWin] = {}


def player(rules: R.RuleSet, say: Say | None = None) -> ToWin:
    """The rule set's to-win policy, loaded once per process."""
    p = _players.get(rules.fingerprint)
    if p is None:
        p = _players[rules.fingerprint] = ToWin(rules, say)
    return p


def _answer(rules: R.RuleSet, c: Choice) -> Any:
    if c.keep is not None:
        return list(c.keep)
    if c.is_pass:
        return None
    assert c.box is not None
    return R.Option(c.box, c.score, c.bonus, c.column)


def sheets_by_turn(rules: R.RuleSet, batch: GameBatch, i: int) -> list[list[R.Column]]:
    """The columns of game i of a recorded batch before each turn and at the end ([turn][column])."""
    assert batch.rolls is not None and batch.n_rolls is not None and batch.box is not None
    assert batch.column is not None and batch.n_turns is not None
    cols = [R.Column.empty(rules) for _ in range(rules.settings.columns)]
    out = [list(cols)]
    for t in range(int(batch.n_turns[i])):
        b = int(batch.box[i, t])
        if b >= 0:
            c = int(batch.column[i, t])
            dice = tuple(int(x) for x in batch.rolls[i, t, int(batch.n_rolls[i, t]) - 1])
            cols[c], _ = R.place(rules, cols[c], b, dice, c)
        out.append(list(cols))
    return out


def _standing(cols: dict[int, R.Column], hist: dict[int, list[list[R.Column]]], j: int, s: int, t: int) -> R.Column:
    """Seat j's column as seat s starts its turn t: after turn t for the seats before s, before it for
    the seats after (a recorded seat's game may have ended earlier: then its last column)."""
    if j in cols:
        return cols[j]
    h = hist[j]
    return h[min(t + 1 if j < s else t, len(h) - 1)][0]


def play_seats(rules: R.RuleSet, strategies: Sequence[str], others: dict[int, GameBatch], seed: int,
               first_game: int, n_games: int, record: bool = False,
               should_stop: Callable[[], bool] | None = None) -> list[GameBatch]:
    """Games first_game .. first_game + n_games - 1 of a match where some seats are `to-win`, the other
    seats' games given (`others`: seat -> its recorded GameBatch, play.simulate.play_match plays them):
    every seat's GameBatch, in seat order."""
    from .strategies import ChunkCancelled, _pack_record, _user_turn

    me = player(rules)
    seats = range(len(strategies))
    batches = dict(others)
    mine = [s for s in seats if strategies[s] == TO_WIN]
    nb = len(rules.boxes)
    scores = {s: np.zeros((n_games, 1, nb), dtype=np.int64) for s in mine}
    ybonus = {s: np.zeros((n_games, 1), dtype=np.int64) for s in mine}
    totals = {s: np.zeros(n_games, dtype=np.int64) for s in mine}
    recs: dict[int, list[Any]] = {s: [] for s in mine}
    from ..solver.rng import stream

    for i in range(n_games):
        if should_stop is not None and should_stop():
            raise ChunkCancelled(f"stopped before game {first_game + i + 1}")
        game = first_game + i
        hist = {s: sheets_by_turn(rules, b, i) for s, b in batches.items()}
        cols = {s: R.Column.empty(rules) for s in mine}
        st = {s: np.uint64(stream(seed, game, s)) for s in mine}
        turns: dict[int, list[Any]] = {s: [] for s in mine}
        for t in range(nb):
            for s in mine:
                plan = me.plan(cols[s], [_standing(cols, hist, j, s, t) for j in seats if j != s])
                column = [cols[s]]

                def bot(view: Any, plan: TurnPlan = plan, column: list[R.Column] = column) -> Any:
                    return _answer(rules, me.choose(plan, column[0], view.dice, view.rolls_left))

                st[s], _, turn = _user_turn(rules, TO_WIN, bot, column, st[s], R.rolls_allowed(rules, 0), t, game, s)
                cols[s] = column[0]
                turns[s].append(turn)
        for s in mine:
            scores[s][i, 0] = [v if v is not None else -1 for v in cols[s].scores]
            ybonus[s][i, 0] = cols[s].yahtzee_bonus
            totals[s][i] = R.sheet_total(rules, [cols[s]])
            recs[s].append(turns[s])
    for s in mine:
        b = GameBatch(first_game, scores[s], ybonus[s], totals[s])
        if record:
            _pack_record(b, rules, recs[s])
        batches[s] = b
    return [batches[s] for s in seats]
