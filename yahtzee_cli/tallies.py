"""Running tallies over many games: who wins most often, and the personal best of solo play.

"Solo Yahtzee: one player chasing a personal best; the app keeps the running high score rather than
a winner"; Yatzy players "log your plays and see who wins most often". A Tally takes the finished
games one by one (in the order given) and keeps, per player: games, wins, ties, best and mean.
Wins and ties come from games of two or more players (a shared first place is a tie); a solo game
has no winner, it counts towards games, best and mean, and may set a personal best. Games still
in progress are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlayerTally:
    name: str
    games: int = 0
    wins: int = 0
    ties: int = 0
    best: int | None = None
    points: int = 0

    @property
    def mean(self) -> float | None:
        return self.points / self.games if self.games else None

    def as_dict(self) -> dict[str, Any]:
        mean = self.mean
        return {"player": self.name, "games": self.games, "wins": self.wins, "ties": self.ties, "best": self.best,
                "mean": None if mean is None else round(mean, 2)}


@dataclass(frozen=True)
class GameTally:
    """What one game adds: for a solo game, the player's running best after it and whether it is a
    new personal best (a first solo game sets the first one)."""

    counted: bool
    solo: bool = False
    personal_best: bool = False
    running_best: int | None = None

    def as_dict(self) -> dict[str, Any]:
        if not self.solo:
            return {"counted": self.counted}
        return {"counted": self.counted, "personal_best": self.personal_best, "running_best": self.running_best}


@dataclass
class Tally:
    players: dict[str, PlayerTally] = field(default_factory=dict)
    solo_best: dict[str, int] = field(default_factory=dict)
    games: int = 0

    def add(self, results: Sequence[tuple[str, int, int]], over: bool) -> GameTally:
        """Count one game: each player's (name, total, rank), and whether the game is over."""
        if not over:
            return GameTally(False, solo=len(results) == 1,
                             running_best=self.solo_best.get(results[0][0]) if len(results) == 1 else None)
        self.games += 1
        firsts = sum(1 for _, _, rank in results if rank == 1)
        for name, total, rank in results:
            t = self.players.setdefault(name, PlayerTally(name))
            t.games += 1
            t.points += total
            t.best = total if t.best is None else max(t.best, total)
            if len(results) > 1 and rank == 1:
                if firsts == 1:
                    t.wins += 1
                else:
                    t.ties += 1
        if len(results) != 1:
            return GameTally(True)
        name, total, _ = results[0]
        before = self.solo_best.get(name)
        new = before is None or total > before
        if new:
            self.solo_best[name] = total
        return GameTally(True, solo=True, personal_best=new, running_best=self.solo_best[name])

    def as_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": [t.as_dict() for t in self.ranked()],
            "personal_bests": [{"player": n, "best": b} for n, b in self.solo_best.items()],
        }

    def ranked(self) -> list[PlayerTally]:
        """Most wins first, then most ties, best mean, name."""
        return sorted(self.players.values(), key=lambda t: (-t.wins, -t.ties, -(t.mean or 0.0), t.name))

    def render(self) -> str:
        """The summary as a plain table for people."""
        rows = [("player", "games", "wins", "ties", "best", "mean")]
        for t in self.ranked():
            mean = t.mean
            rows.append((t.name, str(t.games), str(t.wins), str(t.ties), "-" if t.best is None else str(t.best),
                         "-" if mean is None else f"{mean:.1f}"))
        from .render import table

        lines = table(rows, title=f"summary of {self.games} finished game{'s' if self.games != 1 else ''}")
        for name, best in self.solo_best.items():
            lines.append(f"personal best (solo) {name}: {best}")
        return "\n".join(lines)
