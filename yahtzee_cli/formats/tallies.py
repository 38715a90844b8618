"""Running tallies over many games: who wins most often, and the personal best of solo play.

"Solo Yahtzee: one player chasing a personal best; the app keeps the running high score rather than
a winner"; Yatzy players "log your plays and see who wins most often". A Tally takes the finished
games one by one (in the order given) and keeps, per rule set and player: games, wins, ties, best
and mean. Scores of different rule sets are not comparable (a Triple Yahtzee game scores far more
than a Yatzy game), so every figure is per rule set: the same player under two rule sets has two
rows and two personal bests. Wins and ties come from games of two or more players (a shared first
place is a tie); a solo game has no winner, it counts towards games, best and mean, and may set a
personal best. Games still in progress are not counted. Players are matched as stats matches them
(players.player_key: `Mom` and `mom` are one player, shown as first spelled).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .players import PlayerNames


@dataclass
class PlayerTally:
    name: str
    rules: Mapping[str, Any] | None = None  # the rule set's `rules` record (None: poker dice)
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
        return {"player": self.name, "rules": self.rules, "games": self.games, "wins": self.wins,
                "ties": self.ties, "best": self.best, "mean": None if mean is None else round(mean, 2)}


@dataclass(frozen=True)
class GameTally:
    """What one game adds: for a solo game, the player's running best under the game's rule set
    after it and whether it is a new personal best (a first solo game sets the first one)."""

    counted: bool
    solo: bool = False
    personal_best: bool = False
    running_best: int | None = None

    def as_dict(self) -> dict[str, Any]:
        if not self.solo:
            return {"counted": self.counted}
        return {"counted": self.counted, "personal_best": self.personal_best, "running_best": self.running_best}


def _key(rules: Mapping[str, Any] | None) -> str:
    return "" if rules is None else str(rules.get("fingerprint") or rules.get("name"))


@dataclass
class Tally:
    players: dict[tuple[str, str], PlayerTally] = field(default_factory=dict)  # (rule set, player key)
    solo_best: dict[tuple[str, str], int] = field(default_factory=dict)  # (rule set, player key)
    names: PlayerNames = field(default_factory=PlayerNames)
    rule_sets: dict[str, Mapping[str, Any] | None] = field(default_factory=dict)  # in order of first game
    games: int = 0

    def add(self, results: Sequence[tuple[str, int, int]], over: bool,
            rules: Mapping[str, Any] | None = None) -> GameTally:
        """Count one game: each player's (name, total, rank), whether the game is over, and its rule
        set (the `rules` record: name, settings, fingerprint; None for poker dice)."""
        key = _key(rules)
        if not over:
            return GameTally(False, solo=len(results) == 1,
                             running_best=self.solo_best.get((key, self.names.add(results[0][0])[1]))
                             if len(results) == 1 else None)
        self.rule_sets.setdefault(key, rules)
        self.games += 1
        firsts = sum(1 for _, _, rank in results if rank == 1)
        for raw, total, rank in results:
            name, who = self.names.add(raw)
            t = self.players.get((key, who))
            if t is None:
                t = self.players[(key, who)] = PlayerTally(name, rules)
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
        who = self.names.add(results[0][0])[1]
        total = results[0][1]
        before = self.solo_best.get((key, who))
        new = before is None or total > before
        if new:
            self.solo_best[(key, who)] = total
        return GameTally(True, solo=True, personal_best=new, running_best=self.solo_best[(key, who)])

    def as_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": [t.as_dict() for t in self.ranked()],
            "personal_bests": [{"player": self.names.shown(n), "rules": self.rule_sets.get(k), "best": b}
                               for (k, n), b in self.solo_best.items()],
        }

    def ranked(self) -> list[PlayerTally]:
        """Rule set by rule set (in the order of their first game), and within one: most wins first,
        then most ties, best mean, name."""
        order = {k: i for i, k in enumerate(self.rule_sets)}
        return sorted(self.players.values(),
                      key=lambda t: (order[_key(t.rules)], -t.wins, -t.ties, -(t.mean or 0.0), t.name))

    def labels(self) -> dict[str, str]:
        """Each rule set's name as people know it; two different rule sets of one name (a house
        rule changed) are told apart by their fingerprints."""
        names = [("poker dice" if r is None else str(r.get("name"))) for r in self.rule_sets.values()]
        return {k: (f"{n} ({k})" if names.count(n) > 1 else n) for k, n in zip(self.rule_sets, names, strict=True)}

    def render(self) -> str:
        """The summary as a plain table for people (a rules column when the games have several)."""
        labels = self.labels()
        several = len(labels) > 1
        rows = [(*(("rules",) if several else ()), "player", "games", "wins", "ties", "best", "mean")]
        for t in self.ranked():
            mean = t.mean
            rows.append((*((labels[_key(t.rules)],) if several else ()), t.name, str(t.games), str(t.wins),
                         str(t.ties), "-" if t.best is None else str(t.best), "-" if mean is None else f"{mean:.1f}"))
        from .render import table

        lines = table(rows, left={0, 1} if several else {0},
                      title=f"summary of {self.games} finished game{'s' if self.games != 1 else ''}")
        for (k, who), best in self.solo_best.items():
            name = self.names.shown(who)
            lines.append(f"personal best (solo, {labels[k]}) {name}: {best}" if several
                         else f"personal best (solo) {name}: {best}")
        return "\n".join(lines)
