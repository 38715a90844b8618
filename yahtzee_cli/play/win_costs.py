"""What each decision of a game of two or more cost in win probability (`analyze`).

At a decision the player's opponents stand at the start of their next turns (their sheets as they
are at that moment), each with the exact final-score pmf of optimal expected-score play from there.
A final total s is worth u(s), the player's expected share of first place against them (alone on
top 1, tied with k others 1 / (k + 1), else 0). Every option of the decision (each keep of the
dice showing, every legal box, a pass) has an exact final-score pmf, the player playing on by the
same optimal policy after it, so its win chance is sum_s pmf[s] * u[s]. The decision's win cost is
the best option's chance minus the chance after the move made: >= 0, and 0 when the move made is one
of the best for winning (which need not be the best move in points: a player far behind may do
better with a riskier move).

The compiled grader does a whole game in one call (solver.grade_kernel.grade_wins): each turn's
u from the opponents' pmfs, the states its boxes lead to against u (every state's pmf of the points
to come is in one file, solver.state_pmfs, computed once per rule set), and the turn itself under
the policy, as the points are graded. Only rule sets with exact score distributions have these
(play.odds.unavailable); approximate or risk-sensitive grading leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..formats.replay import TurnStep, replay_game
from ..rules import engine as R
from ..strategy import turn as P
from ..strategy.keeps import dice_key, keeps
from ..strategy.sources import column_state, raw_points

Say = Callable[[str], None]
ASK_KEEP, ASK_AGAIN, ASK_BOX = 0, 1, 2  # solver.grade_kernel's ASK_* (numpy-free here; play.analyze's too)


@dataclass(frozen=True, slots=True)
class WinCost:
    """A decision's win chances: after the move made, after the best move for winning (`best_move`;
    None: the move made is one of the best); `se`, estimated ones' standard error of the cost (None:
    exact)."""

    made: float
    best: float
    best_move: P.Choice | None = None
    se: float | None = None

    @property
    def cost(self) -> float:
        return max(self.best - self.made, 0.0)


Sheet = tuple[tuple[R.Column, ...], int]  # a player's columns and the rolls they have saved


def opponents_at(steps: Sequence[TurnStep], finals: Sequence[Sheet], players: int) -> list[list[Sheet]]:
    """For each step, every player's sheet at that moment (their columns, the rolls they have saved):
    before their next turn, or `finals[j]` once they have no turn left."""
    seq: list[list[tuple[int, Sheet]]] = [[] for _ in range(players)]
    for st in steps:
        seq[st.player].append((st.index, (st.columns, st.saved)))
    out: list[list[Sheet]] = []
    pos = [0] * players
    for st in steps:
        row = []
        for j in range(players):
            while pos[j] < len(seq[j]) and seq[j][pos[j]][0] < st.index:
                pos[j] += 1
            row.append(seq[j][pos[j]][1] if pos[j] < len(seq[j]) else finals[j])
        out.append(row)
    return out


def sheets_at(data: Mapping[str, Any], steps: Sequence[TurnStep],
              until: int | None) -> tuple[int, dict[int, tuple[TurnStep, list[Sheet]]]]:
    """The game's players, and for each step (by turn index) the step with every player's sheet at
    that moment (opponents_at; a player with no turn left, their sheet at the end of the log)."""
    rp = replay_game(data, until=until)
    n = len(rp.players)
    finals = [(p.columns, p.saved) for p in rp.players]
    return n, {st.index: (st, row) for st, row in zip(steps, opponents_at(steps, finals, n), strict=True)}


def column_numbers(rules: R.RuleSet, col: R.Column) -> tuple[int, int, int, int]:
    """A column as the compiled graders take it: filled mask, upper total, Yahtzee box (-1 open, 0
    zero, 1 full points), points written without the upper bonus."""
    cs = column_state(rules, col)
    y = rules.yahtzee_index
    ys = -1 if y is None or col.scores[y] is None else int(cs.yfull)
    return cs.mask, cs.upper, ys, raw_points(rules, col)


def win_costs(rules: R.RuleSet, kinds: Sequence[int], got: tuple[Any, Any] | None) -> list[WinCost] | None:
    """The WinCosts of grade_kernel.WinGrader.grade's (vals, picks) for decisions of these kinds (ASK_*)."""
    if got is None:
        return None
    vals, picks = got
    dice_of_keep = keeps(rules.dice).dice
    out: list[WinCost] = []
    for kind, (made, best, points), p in zip(kinds, vals.tolist(), picks.tolist(), strict=True):
        if made >= best:
            out.append(WinCost(made, made))
        elif kind != ASK_BOX:
            out.append(WinCost(made, best, P.Choice(points, keep=dice_of_keep[p[0]])))
        elif p[1] < 0:
            out.append(WinCost(made, best, P.Choice(points, is_pass=True)))
        else:
            out.append(WinCost(made, best, P.Choice(points, column=p[0], box=p[1], score=p[2], bonus=p[3])))
    return out


def game_win_costs(rules: R.RuleSet, grader: Any, data: Mapping[str, Any], steps: Sequence[TurnStep],
                   decisions: Sequence[Any], until: int | None = None) -> list[WinCost] | None:
    """The win chances of every decision (play.analyze.Decision values, in the game's order) of a
    game of two or more players under `rules` (exact distributions; one column), by `grader`
    (grade_kernel.WinGrader); None when some decision cannot be graded there."""
    n, step_of = sheets_at(data, steps, until)
    nb = len(rules.boxes)
    cols: list[int] = []
    opps: list[int] = []
    stages: list[int] = []
    asks: list[int] = []
    turn_of: dict[int, int] = {}
    for d in decisions:
        st, row = step_of[d.index]
        tt = turn_of.get(d.index)
        if tt is None:
            tt = turn_of[d.index] = len(stages)
            cols += column_numbers(rules, st.columns[0])
            for j in range(n):
                if j != st.player:
                    opps += column_numbers(rules, row[j][0][0])
            stages.append(0)
        m = d.made
        if d.kind == "box":
            asks += (tt, ASK_BOX, dice_key(d.dice), 0, -1 if m.is_pass else m.column * nb + m.box)
        else:
            again = d.kind == "keep" and len(m.keep) == len(d.dice)
            asks += (tt, ASK_AGAIN if again else ASK_KEEP, dice_key(d.dice), d.rolls_left, dice_key(m.keep))
            stages[tt] = max(stages[tt], d.rolls_left)
    return win_costs(rules, asks[1::5], grader.grade(cols, opps, n, stages, asks))


GAMES = 1000  # estimated win costs: games played on after each option valued
CANDIDATES = 3  # options valued besides the move made: the best by expected points
SIGNIFICANT = 2.0  # a cost counts where the best option valued beats the move made by this many standard errors
SCREEN = 250  # games after each option first; GAMES in all only where another option then looks ahead
AHEAD = 1.0  # ... by this many standard errors of GAMES games (half the SIGNIFICANT it takes to count)


def estimated_win_costs(rules: R.RuleSet, data: Mapping[str, Any], steps: Sequence[TurnStep],
                        decisions: Sequence[Any], turn: Callable[[R.RuleSet, tuple[R.Column, ...], int], P.Turn],
                        until: int | None = None, say: Say | None = None, games: int = GAMES,
                        candidates: int = CANDIDATES, screen: int = SCREEN) -> list[WinCost]:
    """The win chances of every decision of a game of two or more under rules without exact
    distributions (several columns, saved rolls, Maxi Yatzy's size), estimated from games played on
    by the rules' own strategy: each opponent's from their sheet at that moment (the share of first
    place u from their final totals), and the player's after the move made and after each of the
    `candidates` best options by expected points, every option of a decision on the same dice
    (play.estimated_play.option_totals), so that their differences, the costs, are sharper than the
    chances: `screen` games each, and `games` where another option then looks better than the move made
    (most decisions are settled by the first games, and cost four times less). The best for winning
    is the best of those valued where it beats the move made by more than SIGNIFICANT standard
    errors of their difference (the best of several noisy values would otherwise add its noise to
    every cost: a player making the best move each time would seem to lose a few points a game);
    `se` is the standard error of the cost (0 where none counts). `turn`: the Analyzer's Turn maker
    (its Turn values the options in points)."""
    import math

    import numpy as np

    from ..progress import given
    from ..solver import winning
    from ..solver.estimated import final_totals, note_compile, position_seed, sample_pmf
    from .estimated_play import option_totals

    n, step_of = sheets_at(data, steps, until)
    if steps:
        note_compile(rules, steps[0].columns, games, say)
    progress = given(None)
    totals_of: dict[tuple[int, Sheet], Any] = {}  # an opponent's final totals, by seat and sheet

    def totals(j: int, sheet: Sheet) -> Any:
        got = totals_of.get((j, sheet))
        if got is None:
            cols, saved = sheet
            seed = position_seed(rules.fingerprint, "opponent", [c.scores for c in cols], saved)
            got = totals_of[(j, sheet)] = final_totals(rules, list(cols), saved, j, 0, games, seed=seed)
        return got

    out: list[WinCost] = []
    for k, d in enumerate(decisions):
        st, row = step_of[d.index]
        others = [sample_pmf(totals(j, row[j])) for j in range(n) if j != st.player]
        u = winning.share_of_first(others, max(o.lo + len(o.pmf) for o in others))
        tn = turn(rules, st.columns, st.saved)
        m = d.made
        used = R.rolls_allowed(rules, st.saved) - d.rolls_left if d.kind != "box" else len(st.rolls)
        ev = _evaluation(tn, d.dice, d.rolls_left, R.rolls_allowed(rules, st.saved) - used)
        plays: list[tuple[Any, Any, int | None]] = []  # (option, its Evaluation, rolls used), the move made first
        made = m.move_dict(rules)
        if d.kind == "keep" and len(m.keep) == len(d.dice):  # kept every die, rolled again: the policy's move
            again = _evaluation(tn, d.dice, d.rolls_left - 1, d.rolls_left - 1)
            plays.append((again.best, again, None))  # (a roll more used than the decision's)
            made = {}  # (stopping here is another option)
        else:
            plays.append((next(o for o in ev.options if o.move_dict(rules) == made), ev, used))
        plays += [(o, ev, used) for o in ev.options[:candidates] if o.move_dict(rules) != made]

        def chances(first: int, count: int, st: TurnStep = st, u: Any = u,
                    plays: list[tuple[Any, Any, int | None]] = plays) -> list[Any]:
            return [u[np.clip(option_totals(rules, st.columns, st.saved, e, o, count, k, first), 0, len(u) - 1)]
                    for o, e, k in plays]

        xs = chances(0, min(screen, games))
        if games > screen and any(_ahead(x - xs[0], games) for x in xs[1:]):
            # another option looks better: all of them to `games`, on the same dice as before
            xs = [np.concatenate([x, y]) for x, y in zip(xs, chances(screen, games - screen), strict=True)]
        made_v = float(xs[0].mean())
        i_best = max(range(1, len(xs)), key=lambda i: float(xs[i].mean()), default=0)
        diff = xs[i_best] - xs[0]
        se = float(diff.std(ddof=1)) / math.sqrt(len(diff)) if i_best and len(diff) > 1 else 0.0
        if i_best and float(diff.mean()) > SIGNIFICANT * se:  # (paired: the same dice after every option)
            out.append(WinCost(made_v, float(xs[i_best].mean()), plays[i_best][0], se))
        else:  # no option valued beats the move made clearly: its cost is 0, not the best of the noise
            out.append(WinCost(made_v, made_v, None, 0.0))
        if progress is not None:
            progress(k + 1, len(decisions))
    return out


def _ahead(diff: Any, games: int) -> bool:
    """Whether the first games' paired differences put an option ahead of the move made by AHEAD
    standard errors of `games` games (their standard errors shrink as the root of the games): half
    the way to counting as a cost, so that few costs the full games would count are passed over."""
    n = len(diff)
    return n > 1 and float(diff.mean()) > AHEAD * float(diff.std(ddof=1)) / games ** 0.5


def _evaluation(tn: P.Turn, dice: R.Dice, rolls_left: int, unused: int) -> Any:
    """Turn's options with `rolls_left` (0: the boxes, the turn having left `unused` rolls unused),
    each stop with the box it leads to (as a hint gives it)."""
    if rolls_left == 0:
        return tn.evaluate(dice, 0, unused)
    ev = tn.evaluate(dice, rolls_left)
    ev.stop_box = tn.evaluate(dice, 0, rolls_left).best
    return ev
