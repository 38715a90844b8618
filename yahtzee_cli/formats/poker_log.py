"""Poker dice as a game: a match of rounds (format poker-log/1), checked and replayed.

"In each round, everyone gets up to three rolls, as in a normal turn. Then everyone compares their
dice. The best combination wins the round ... Before you start, agree how many rounds a player must
win to take the game." A round whose best hands are equal in every die is a tie: nobody wins it.
Hands are ranked by `poker.standings` (category, then the dice that make it up, then the others).

A log may end in the middle of a round (fewer hands than players) or before anyone has the wins
needed: the match is then in progress, which is not a problem.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import ProblemCode
from ..rules.poker import Hand, standings
from .logs import POKER_FORMAT, Problem, check_schema

MAX_ROLLS = 3  # "up to three rolls, as in a normal turn"
DICE = 5


@dataclass(frozen=True)
class RoundResult:
    """A finished round: each player's final hand and rank (1 best), the winner(s) and the match
    standing (round wins per player) after it. `tie`: the best hands are equal (winners lists them
    all, as `yahtzee poker` does) and nobody gets the round win."""

    number: int
    hands: tuple[tuple[str, Hand, int], ...]
    winners: tuple[str, ...]
    wins: dict[str, int]

    @property
    def tie(self) -> bool:
        return len(self.winners) > 1

    def as_dict(self) -> dict[str, Any]:
        """The round as JSON data; `hands`, `winners` and `tie` as `yahtzee poker --json` gives them."""
        return {
            "round": self.number,
            "hands": [{"player": p, "dice": list(h.dice), "category": h.category, "rank": r} for p, h, r in self.hands],
            "winners": list(self.winners),
            "tie": self.tie,
            "wins": dict(self.wins),
        }


@dataclass
class Match:
    """A poker-dice match walked round by round: problems, finished rounds, wins, the winner."""

    players: tuple[str, ...] = ()
    wins_needed: int = 1
    rounds: list[RoundResult] = field(default_factory=list)
    wins: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    winner: str | None = None
    in_round: int = 0  # hands played in an unfinished last round

    @property
    def over(self) -> bool:
        return self.winner is not None

    def ranks(self) -> dict[str, int]:
        """Each player's place by round wins (ties share a place)."""
        return {p: 1 + sum(1 for q in self.players if self.wins[q] > self.wins[p]) for p in self.players}

    def as_dict(self) -> dict[str, Any]:
        ranks = self.ranks()
        return {
            "format": POKER_FORMAT,
            "players": list(self.players),
            "wins_needed": self.wins_needed,
            "rounds": [r.as_dict() for r in self.rounds],
            "standings": [{"rank": ranks[p], "name": p, "wins": self.wins[p]}
                          for p in sorted(self.players, key=lambda p: ranks[p])],
            "match_over": self.over,
            "winner": self.winner,
            "round_in_progress": self.in_round > 0,
        }


def _fmt(dice: Any) -> str:
    return " ".join(str(d) for d in dice)


def _hand(path: str, hand: dict[str, Any], problem: Any) -> tuple[int, ...] | None:
    """The final dice of a hand, after checking its rolls and held dice (None when unusable)."""
    rolls = hand["rolls"]
    ok = True
    if len(rolls) > MAX_ROLLS:
        problem(f"{path}/rolls", f"{len(rolls)} rolls, but a hand has up to {MAX_ROLLS}", ProblemCode.POKER_FOUR_ROLLS)
    for j, roll in enumerate(rolls):
        if len(roll) != DICE:
            problem(f"{path}/rolls/{j}", f"{len(roll)} dice, but poker dice is played with {DICE}",
                    ProblemCode.POKER_SIX_DICE)
            ok = False
    held = hand.get("held")
    if held is not None:
        if len(held) != len(rolls) - 1:
            problem(f"{path}/held", f"{len(held)} held lists for {len(rolls) - 1} reroll"
                    f"{'s' if len(rolls) != 2 else ''}: give the dice kept before each reroll", ProblemCode.HELD_COUNT)
        for k, h in enumerate(held[: len(rolls) - 1]):
            kept = Counter(h)
            for j, verb in ((k, "are kept from the roll before"), (k + 1, "must still show after the reroll")):
                if kept - Counter(rolls[j]):
                    problem(f"{path}/held/{k}", f"held {_fmt(sorted(h))} are not all in roll {j + 1} "
                            f"({_fmt(sorted(rolls[j]))}): held dice {verb}", ProblemCode.POKER_HELD_NOT_IN_ROLL)
    return tuple(sorted(rolls[-1])) if ok else None


def walk_match(data: dict[str, Any]) -> Match:
    """Check a poker-log/1 document (already of the right shape) and play it through."""
    players = tuple(data["players"])
    m = Match(players, data["wins_needed"], wins=dict.fromkeys(players, 0))

    def problem(path: str, message: str, code: ProblemCode) -> None:
        m.problems.append(Problem(path, message, code))

    seen: set[str] = set()
    for i, name in enumerate(players):
        if name in seen:
            problem(f"/players/{i}", f"player {name!r} is listed twice", ProblemCode.DUPLICATE_PLAYER)
        seen.add(name)
    if m.problems:
        return m
    rounds = data.get("rounds", [])  # optional: a match not begun yet
    for r, rnd in enumerate(rounds):
        where = f"/rounds/{r}"
        if m.over:
            problem(where, f"round {r + 1} after the match is over ({m.winner} won {m.wins_needed} rounds)",
                    ProblemCode.POKER_AFTER_MATCH_OVER)
            break
        hands = rnd["hands"]
        if len(hands) > len(players):
            problem(f"{where}/hands", f"{len(hands)} hands, but {len(players)} players: one hand each a round",
                    ProblemCode.INVALID_VALUE)
            continue
        if not hands:
            problem(f"{where}/hands", "a round with no hands", ProblemCode.INVALID_VALUE)
            continue
        final: list[tuple[str, tuple[int, ...]]] = []
        for h, hand in enumerate(hands):
            want = players[h]
            if hand["player"] != want:
                if hand["player"] in players:
                    problem(f"{where}/hands/{h}/player", f"it is {want}'s hand, not {hand['player']}'s (each round "
                            f"players roll in the order of players: {', '.join(players)})",
                            ProblemCode.POKER_OUT_OF_ORDER)
                else:
                    problem(f"{where}/hands/{h}/player",
                            f"unknown player {hand['player']!r}; players: {', '.join(players)}",
                            ProblemCode.UNKNOWN_PLAYER)
                continue
            dice = _hand(f"{where}/hands/{h}", hand, problem)
            if dice is not None:
                final.append((want, dice))
        if len(hands) < len(players):
            if r != len(rounds) - 1:
                problem(f"{where}/hands", f"{len(hands)} hand{'s' if len(hands) != 1 else ''}, but {len(players)} "
                        "players: only the last round may be unfinished", ProblemCode.POKER_ROUND_UNFINISHED)
            else:
                m.in_round = len(hands)
            continue
        if len(final) < len(players):
            continue  # a hand with a problem: the round cannot be decided
        ranked = standings([d for _, d in final])
        winners = tuple(final[s.player][0] for s in ranked if s.rank == 1)
        if len(winners) == 1:
            m.wins[winners[0]] += 1
            if m.wins[winners[0]] >= m.wins_needed:
                m.winner = winners[0]
        m.rounds.append(RoundResult(r + 1, tuple((final[s.player][0], s.hand, s.rank) for s in ranked),
                                    winners, dict(m.wins)))
    return m


def check_match(data: Any) -> tuple[Match | None, list[Problem]]:
    """A poker-log/1 document's walked match and every problem (shape first, then the rules)."""
    kind, problems = check_schema(data)
    if problems:
        return None, problems
    if kind != "poker":
        return None, [Problem("/format", f"expected format {POKER_FORMAT}, got {data.get('format')!r}",
                              ProblemCode.UNKNOWN_FORMAT)]
    m = walk_match(data)
    return m, m.problems


def render(m: Match) -> str:
    """The match as text: a line per round (hands, winner, standing), then the standings."""
    lines = [f"poker dice, first to {m.wins_needed} round win{'s' if m.wins_needed != 1 else ''}"]
    for rd in m.rounds:
        hands = ", ".join(f"{p} {_fmt(h.dice)} ({h.category.replace('_', ' ')})" for p, h, _ in
                          sorted(rd.hands, key=lambda x: m.players.index(x[0])))
        won = f"tie between {' and '.join(rd.winners)}" if rd.tie else f"{rd.winners[0]} wins"
        standing = ", ".join(f"{p} {rd.wins[p]}" for p in m.players)
        lines.append(f"round {rd.number}: {hands}: {won}; {standing}")
    ranks = m.ranks()
    lines.append("")
    lines.append("Rank  Player  Wins")
    for p in sorted(m.players, key=lambda p: ranks[p]):
        mark = "  winner" if m.winner == p else ""
        lines.append(f"{ranks[p]:<4}  {p:<6}  {m.wins[p]:>4}{mark}")
    if m.over:
        lines.append(f"Match over: {m.winner} wins.")
    else:
        state = f"round {len(m.rounds) + 1} in progress" if m.in_round else "in progress"
        lines.append(f"Match {state}: first to {m.wins_needed} wins takes it.")
    return "\n".join(lines)

