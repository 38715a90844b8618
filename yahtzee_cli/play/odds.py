"""Who is winning a game: each player's chance to win outright and to tie for first, from the exact
final-score distributions of optimal (expected-score) play from where every sheet stands
(solver.winning). A finished game's chances are its result: 1 for a sole winner, a tie of 1 for
each player sharing first place, 0 for the others. A solo game has no one to beat: its chance is
of beating a given score (a personal best) instead.

Rule sets without exact distributions (several columns, saved rolls, Maxi Yatzy's size) have
estimated chances instead, with standard errors: games played on from every sheet by the strategy
the other commands play them with (solver.estimated). `unavailable` says why a rule set's are not
exact; `chances_note` why a game has none at all (a rule set too large for this machine)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..formats.replay import PlayerChance, Replay
from ..rules import engine as R
from ..strategy.choice import exact_reason

if TYPE_CHECKING:  # the solver loads only when chances are asked for
    from ..solver.exact import Opening
    from ..solver.pmf import Distribution

Say = Callable[[str], None]


Chances = list[PlayerChance]


def unavailable(rules: R.RuleSet) -> str | None:
    """Why the rule set's games have no exact win chances (None when they have)."""
    why = exact_reason(rules)
    if why is not None:
        return f"{rules.name} has no exact table ({why})"
    from ..strategy.choice import MAX_DIST_STATES
    from ..strategy.space import state_space

    if state_space(rules).states > MAX_DIST_STATES:
        return f"{rules.name} is too large for exact score distributions"
    return None


def too_large(rules: R.RuleSet) -> str | None:
    """Why the rule set's games cannot be played on by the solver on this machine (None when they can)."""
    from ..errors import TooBig
    from ..solver.value_to_go import check_memory

    try:
        check_memory(rules)
    except TooBig as exc:
        return str(exc)
    return None


def chances_note(rp: Replay) -> str | None:
    """Why a game of two or more still on has no chances to win (its rule set is too large to play on
    this machine), for the output to say so; None when it has them or none are due."""
    if len(rp.players) < 2 or rp.game_over or rp.abandoned or unavailable(rp.rules) is None:
        return None
    why = too_large(rp.rules)
    return None if why is None else f"no chances to win: {why}"


def finished_odds(rp: Replay) -> Chances:
    """A finished game's result as chances."""
    top = [p.rank == 1 for p in rp.players]
    shared = sum(top) > 1
    return [PlayerChance(1.0 if t and not shared else 0.0, 1.0 if t and shared else 0.0) for t in top]


def game_odds(rp: Replay, say: Say | None = None) -> Chances | None:
    """The chances of every player of a game of two or more (None for a solo or abandoned game, or a
    rule set too large to play: see `chances_note`): exact, or estimated where the rule set has no
    exact distributions (see `unavailable`)."""
    if len(rp.players) < 2 or rp.abandoned:
        return None
    if rp.game_over:
        return finished_odds(rp)
    if unavailable(rp.rules) is not None:
        return None if too_large(rp.rules) is not None else estimated_odds(rp, say)
    from ..solver import winning

    return [PlayerChance(c.win, c.tie)
            for c in winning.win_chances([player_pmf(rp, i, say) for i in range(len(rp.players))])]


def standing(rp: Replay) -> tuple[list[int], list[Opening | None]]:
    """Where each player's games go on from, besides their sheet: the rolls saved before their next
    turn, and for the player of a turn in progress the rolls saved before it and the dice showing."""
    from ..solver.exact import Opening

    ip = rp.in_progress
    saved = [p.saved for p in rp.players]
    openings: list[Opening | None] = [None] * len(rp.players)
    if ip is not None:
        saved[ip.player] = ip.saved
        openings[ip.player] = Opening(ip.dice, ip.rolls_used)
    return saved, openings


def estimated_odds(rp: Replay, say: Say | None = None) -> Chances:
    """Every player's chances estimated from games played on from their sheet (solver.estimated); the
    player of a turn in progress from the dice showing."""
    from ..solver.estimated import estimated_chances

    saved, openings = standing(rp)
    est = estimated_chances(rp.rules, [p.columns for p in rp.players], saved, openings=openings, say=say)
    return [PlayerChance(e.win, e.tie, e.win_se, e.tie_se, est.games) for e in est.players]


def player_pmf(rp: Replay, i: int, say: Say | None = None) -> Distribution:
    """Player i's final-score pmf: from the turn in progress (the dice showing, played on as the
    hint advises) or from the sheet at the start of the player's next turn."""
    from ..solver import winning

    rules = rp.rules
    col = rp.players[i].columns[0]
    ip = rp.in_progress
    if ip is None or ip.player != i:
        return winning.final_pmf(rules, col, say)
    from ..solver.chances import Known, position_chances
    from .hint import hint

    ev = hint(rules, [col], ip.dice, ip.rolls_left, ip.saved, say=say)
    best = next(o for o in ev.options if not o.is_pass)
    return position_chances(rules, col, ev.dice, ev.rolls_left, [best], say=say,
                            known=Known(rest=winning.cached_rest(rules, say)))[0].dist


def beat_chance(rules: R.RuleSet, columns: Sequence[R.Column], score: int, saved: int = 0,
                say: Say | None = None) -> tuple[float, float | None] | None:
    """A solo sheet's chance of finishing above `score` and its standard error: exact (None), or
    estimated from games played on where the rules have no exact distributions (solver.estimated);
    None for a rule set too large to play."""
    if unavailable(rules) is not None:
        if too_large(rules) is not None:
            return None
        from ..solver import estimated

        return estimated.beat_chance(rules, columns, saved, score)
    from ..solver import winning

    return winning.chance_to_beat(rules, columns[0], score, say), None

