"""Luck and skill of a graded game: how much of each player's result came from the dice and how
much their decisions cost, in expected points of the final total.

Every graded decision values the position (best: the value of the best move, made: of the move
made, both the expected final grand total under the grading strategy). Between two decisions of a
player the only thing that happens is a roll (or nothing: a stop then its box), so

    luck of the roll before a decision = best value now - value of the previous move made
                                          (the expected total of the game's start before the first)
    skill cost of a decision           = best value - value of the move made (its regret)

and the sum telescopes: actual total = expected total at the start + total luck - total skill
cost, for every player of a finished game (exactly, up to the regrets below strategy.TIE that a
grade shows as the best move). The turning point is the roll or the decision whose points moved the
expected total the most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import engine as R


@dataclass
class Moment:
    """The roll (`luck`) or decision (`cost`) a turning point is: turn index, the player's round,
    which roll, the points it moved the expected total by (luck positive: good dice)."""

    kind: str  # "roll" or "decision"
    index: int
    round: int
    roll: int
    points: float
    line: int = 0

    def record(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.index + 1, "round": self.round, "roll": self.roll,
                "points": round(self.points, 4), "line": self.line}


@dataclass
class PlayerLuck:
    """One player's split: expected total at the start, luck (sum over rolls), skill cost (sum of
    regrets), the expected total after their last move (the actual total when the game is over)."""

    name: str
    start: float
    luck: float = 0.0
    skill_cost: float = 0.0
    end: float = 0.0
    turning_point: Moment | None = None
    lucks: list[float] = field(default_factory=list)  # the luck before each of the player's decisions

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "expected_start": round(self.start, 4), "luck": round(self.luck, 4),
                "skill_cost": round(self.skill_cost, 4), "expected_end": round(self.end, 4),
                "turning_point": None if self.turning_point is None else self.turning_point.record()}


def split(decisions: Sequence[Any], start: float, players: Sequence[str]) -> tuple[list[PlayerLuck], list[float]]:
    """Per player (in `players` order) their luck and skill, and the luck of the roll before each
    decision (in the decisions' order). `decisions`: play.analyze.Decision values of one game, in
    order; `start`: the expected total of an empty sheet under the grading strategy."""
    out = {name: PlayerLuck(name, start, end=start) for name in players}
    lucks: list[float] = []
    for d in decisions:
        p = out[d.player]
        luck = d.best.value - p.end
        cost = d.regret
        p.luck += luck
        p.skill_cost += cost
        p.end = d.made.value
        lucks.append(luck)
        for kind, pts in (("roll", luck), ("decision", -cost)):
            if pts and (p.turning_point is None or abs(pts) > abs(p.turning_point.points)):
                p.turning_point = Moment(kind, d.index, d.round, d.roll, pts, d.line)
    return list(out.values()), lucks


def start_value(rules: R.RuleSet, source: Any) -> float:
    """The expected final total of an empty sheet under the grading strategy's values."""
    from ..strategy.turn import Turn

    # before the first roll: keeping nothing with every roll to come (the mean over first rolls of
    # the best value after them), valued as the grader values the decisions after it
    turn = Turn(rules, tuple(R.Column.empty(rules) for _ in range(rules.settings.columns)), source, 0)
    return turn.base + turn.stage(R.rolls_allowed(rules, 0))[0] + turn.level
