"""Statistics over played games: who wins most, personal bests per rule set, what is played most,
head-to-head records, and whether someone is improving.

A `Book` takes the games of a run one by one (in the order read: the library's monthly files sort by
date) and keeps, with flat memory, per player and rule set: games, wins, ties, best (with its date and
place), the running mean and variance (Welford), the last ten scores, upper-bonus and Yahtzee rates
and the mean of every box. Solo games are kept apart from games against others (a solo game has no
winner). Games marked abandoned and games still in play are counted apart; invalid games are listed
(file:line) and skipped.

Each game is checked by the validator (`validate.report_document`): the same walk that `validate`
runs, so a game `stats` counts is a game `validate` accepts.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import add
from typing import Any, cast

from ..rules import engine as R
from ..rules.engine import RuleSet
from .inputs import Game, Unreadable
from .logs import is_abandoned
from .players import PlayerNames, player_key
from .validate import PlayerState, _fast_log, report_document

LAST = 10  # "mean of the last N games"


# --------------------------------------------------------------------------- one game


class _Sheet:
    """What stats asks of a rule set for every game, worked out once: its label, box keys, and how a
    player's total is added up (the rules' own arithmetic: rules.column_totals per column, the
    columns weighted, added or the best kept)."""

    __slots__ = ("label", "keys", "y", "upper", "upper_end", "threshold", "points", "one_multiplier")

    def __init__(self, rules: RuleSet) -> None:
        s = rules.settings
        self.label = _label(rules)
        self.keys = rules.keys
        self.y = rules.yahtzee_index
        self.upper = rules.upper_indices
        # the upper boxes as the first k boxes: their sum is a slice's (else None: by index)
        self.upper_end = len(self.upper) if self.upper == tuple(range(len(self.upper))) else None
        self.threshold, self.points = s.upper_bonus_threshold, s.upper_bonus
        # one column: its total times its multiplier (weighted_total of one column, added or the best kept)
        self.one_multiplier = s.multipliers[0]


_SHEETS: dict[int, tuple[RuleSet, _Sheet]] = {}


def _sheet(rules: RuleSet) -> _Sheet:
    hit = _SHEETS.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    sheet = _Sheet(rules)
    if len(_SHEETS) > 256:
        _SHEETS.clear()
    _SHEETS[id(rules)] = (rules, sheet)  # (the RuleSet is kept alive, so its id stays its own)
    return sheet


def rules_label(rules: RuleSet) -> str:
    """A rule set as people name it: the preset's name, plus the settings that differ from the preset
    (`yahtzee (joker=off)`); a rule set of its own boxes is named `custom: NAME`."""
    return _sheet(rules).label


def _label(rules: RuleSet) -> str:
    changed = rules.house_rules
    if changed is None:
        return f"custom: {rules.name}"
    return rules.name + (f" ({', '.join(changed)})" if changed else "")


def _meta_date(meta: dict[str, Any]) -> str | None:
    for key in ("started", "date"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# One player's result in a game: (name, total, upper-bonus share, Yahtzee share, per-box means). The
# shares are of the player's columns (the upper-section bonus earned, the Yahtzee box scored); a box's
# mean is over the columns (ints for one column).
Fact = tuple[str, int, float, float, tuple[float, ...]]


def _facts(rules: RuleSet, sheet: _Sheet, players: Sequence[PlayerState], full: bool) -> list[Fact]:
    """Each player's total and rates, by the rules' own arithmetic. `full`: every box holds a score
    (a finished log), so no None to read as 0."""
    y = sheet.y
    facts: list[Fact] = []
    for p in players:
        n = len(p.scores)
        if n == 1:  # (the common sheet: the same figures without the loops over columns)
            scores = p.scores[0]
            if full or None not in scores:
                # (ints: a Line adds them to float sums, as exact as converting each first)
                boxes: tuple[float, ...] = cast("tuple[int, ...]", tuple(scores))
                if sheet.upper_end is not None:
                    upper = sum(cast("list[int]", scores[:sheet.upper_end]))
                else:
                    upper = sum(cast("int", scores[i]) for i in sheet.upper)
                earned = R.upper_bonus_points(upper, sheet.threshold, sheet.points)
                total = (sum(cast("list[int]", scores)) + earned + p.bonus[0]) * sheet.one_multiplier
            else:
                boxes = tuple(v or 0 for v in scores)
                t = R.scores_totals(rules, scores, p.bonus[0])
                earned = t.upper_bonus
                total = t.total * sheet.one_multiplier
            bonus = 1.0 if earned > 0 else 0.0
            yahtzees = 0.0 if y is None else (1.0 if (scores[y] or 0) > 0 else 0.0)
        else:
            settings = rules.settings
            columns = p.columns
            sums = [R.column_totals(rules, c) for c in columns]
            total = R.weighted_total([t.total for t in sums], settings.multipliers, settings.add_columns)
            bonus = sum(1 for t in sums if t.upper_bonus > 0) / n
            yahtzees = 0.0 if y is None else sum(1 for c in columns if (c.scores[y] or 0) > 0) / n
            rows = [[v or 0 for v in c.scores] for c in columns]
            boxes = tuple(sum(col) / n for col in zip(*rows, strict=True))
        facts.append((p.name, total, bonus, yahtzees, boxes))
    return facts


# --------------------------------------------------------------------------- tallies


@dataclass(slots=True)
class Line:
    """One player's record under one rule set, solo or against others."""

    player: str
    rules: str
    solo: bool
    boxes: tuple[str, ...]
    games: int = 0
    wins: int = 0
    ties: int = 0
    best: int | None = None
    best_date: str | None = None
    best_at: str | None = None  # file:line of the best game
    mean: float = 0.0
    m2: float = 0.0  # Welford's sum of squared differences
    last: deque[int] = field(default_factory=lambda: deque(maxlen=LAST))
    bonus: float = 0.0
    yahtzee: float = 0.0
    box_sums: list[float] = field(default_factory=list)

    def add(self, x: int, bonus: float, yahtzee: float, boxes: tuple[float, ...], date: str | None, file: str,
            line: int, outcome: int) -> None:
        """One game's figures for this player: total `x`, the upper-bonus and Yahtzee shares, the box
        scores, where it was played; `outcome` 1 won, 2 tied for first, 0 otherwise (or solo)."""
        self.games += 1
        n = self.games
        delta = x - self.mean
        self.mean += delta / n
        self.m2 += delta * (x - self.mean)
        self.last.append(x)
        if self.best is None or x > self.best:
            self.best, self.best_date, self.best_at = x, date, f"{file}:{line}"
        if outcome == 1:
            self.wins += 1
        elif outcome:
            self.ties += 1
        self.bonus += bonus
        self.yahtzee += yahtzee
        self.box_sums = list(map(add, self.box_sums, boxes)) if self.box_sums else [0.0 + v for v in boxes]

    @property
    def sd(self) -> float | None:
        return math.sqrt(self.m2 / (self.games - 1)) if self.games > 1 else None

    def record(self) -> dict[str, Any]:
        g = self.games
        return {
            "type": "player",
            "player": self.player,
            "rules": self.rules,
            "solo": self.solo,
            "games": g,
            "wins": None if self.solo else self.wins,
            "ties": None if self.solo else self.ties,
            "win_rate": None if self.solo else _round(self.wins / g, 4),
            "best": self.best,
            "best_date": self.best_date,
            "best_at": self.best_at,
            "mean": _round(self.mean, 2),
            "sd": None if self.sd is None else _round(self.sd, 2),
            "last_mean": _round(sum(self.last) / len(self.last), 2),
            "last_games": len(self.last),
            "upper_bonus_rate": _round(self.bonus / g, 4),
            "yahtzee_rate": _round(self.yahtzee / g, 4),
            "box_means": {k: _round(s / g, 2) for k, s in zip(self.boxes, self.box_sums, strict=True)},
        }


def _round(x: float, places: int) -> float:
    return round(x, places) + 0.0  # (+0.0: no -0.0)


@dataclass(slots=True)
class Meeting:
    """Two players' record against each other: games where both played, who finished ahead."""

    a: str
    b: str
    games: int = 0
    a_ahead: int = 0
    b_ahead: int = 0
    level: int = 0

    def record(self) -> dict[str, Any]:
        return {"type": "head_to_head", "player": self.a, "opponent": self.b, "games": self.games,
                "wins": self.a_ahead, "losses": self.b_ahead, "ties": self.level}


@dataclass(frozen=True, slots=True)
class Skipped:
    """A game or input stats did not count, and why."""

    file: str
    line: int | None
    game: int | None
    reason: str  # "invalid", "unreadable"
    message: str

    @property
    def where(self) -> str:
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}: game {self.game}"


@dataclass(frozen=True, slots=True)
class Filters:
    """Which games count: players (their keys, players.player_key; a game counts when one of them
    played, and only their lines are shown), rule sets (a label, or a preset name for all its house
    rules), and the first date (ISO 8601 prefix comparison; games without a date are left out when it
    is given). `asked`: each player key as the user typed it, for messages."""

    players: frozenset[str] = frozenset()
    rules: frozenset[str] = frozenset()
    since: str | None = None
    asked: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, players: Iterable[str] = (), rules: Iterable[str] = (), since: str | None = None) -> Filters:
        """Filters from names as typed (`--player`, `--rules`)."""
        asked = {player_key(p): p for p in players}
        return cls(frozenset(asked), frozenset(r.strip() for r in rules), since, asked)

    def rules_match(self, label: str) -> bool:
        return not self.rules or label in self.rules or label.split(" (", 1)[0] in self.rules


@dataclass
class Book:
    """Every tally of a run. Feed games with `add_item`; read the records with `records()`."""

    filters: Filters = field(default_factory=Filters)
    lines: dict[tuple[str, str, bool], Line] = field(default_factory=dict)
    meetings: dict[tuple[str, str], Meeting] = field(default_factory=dict)
    rule_sets: dict[str, int] = field(default_factory=dict)
    names: PlayerNames = field(default_factory=PlayerNames)  # every player of a finished game read
    seen_rules: set[str] = field(default_factory=set)  # every rule set of a finished game read, filtered out or not
    # players and rule sets met only in games that are not counted: key -> [shown name, unfinished, abandoned]
    _not_over: dict[str, list[Any]] = field(default_factory=dict)
    _rules_not_over: dict[str, list[int]] = field(default_factory=dict)  # label -> [unfinished, abandoned]
    games: int = 0  # games read
    counted: int = 0
    abandoned: int = 0
    unfinished: int = 0
    filtered: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    series: dict[str, list[tuple[str | None, int, str]]] | None = None  # per player: (date, score, rules) for plots

    def name(self, raw: str) -> tuple[str, str]:
        """A player's (name as first spelled, key): one player however the logs spell them."""
        return self.names.add(raw)

    def _not_counted(self, rules: RuleSet, players: Sequence[PlayerState], abandoned: bool) -> None:
        """Note who played an unfinished or abandoned game, and under which rules, so a filter that
        matches only such games is told so instead of 'no player named ...'."""
        at = 2 if abandoned else 1
        for p in players:
            key = player_key(p.name)
            seen = self._not_over.setdefault(key, [p.name, 0, 0])
            seen[at] += 1
        label = _sheet(rules).label
        self._rules_not_over.setdefault(label, [0, 0, 0])[at] += 1

    def add_item(self, item: Game | Unreadable) -> None:
        """Count one game read from an input (or note an input that could not be read)."""
        if isinstance(item, Unreadable):
            self.skipped.append(Skipped(item.source.name, None, None, "unreadable", item.message))
            return
        self.games += 1
        doc = item.doc
        data = doc.data
        # a valid log on the validator's fast path (what report_document tries first), else its verdict
        walk = _fast_log(data, doc.trusted) if doc.problem is None else None
        if walk is not None:
            rules = walk.rules
            players = walk.players
            finished = full = walk.next_player is None  # (no turn in progress and every sheet full)
        else:
            rep = report_document(doc)
            if rep.problems:
                first = rep.problems[0]
                self.skipped.append(Skipped(item.file, rep.line_of(first), doc.index, "invalid", str(first)))
                return
            if rep.kind == "poker" or rep.rules is None:
                self.skipped.append(Skipped(item.file, doc.line, doc.index, "invalid",
                                            "a poker-dice match: stats count Yahtzee-family games"))
                return
            rules = rep.rules
            walked = rep.log if rep.log is not None else rep.sheet
            assert walked is not None
            players = walked.players
            finished, full = rep.finished, False
        if is_abandoned(data):
            self.abandoned += 1
            self._not_counted(rules, players, True)
            return
        if not finished:
            self.unfinished += 1
            self._not_counted(rules, players, False)
            return
        sheet = _sheet(rules)
        meta = data.get("meta")  # (a valid game: a dict, as is its meta when it has one)
        self.add(item.source.name, doc.line, _meta_date(meta) if type(meta) is dict else None, sheet.label,
                 sheet.keys, _facts(rules, sheet, players, full))

    def add(self, file: str, line: int, date: str | None, label: str, boxes: tuple[str, ...],
            facts: list[Fact]) -> None:
        """Count a finished game: where it was played, when, its rule set's label and box keys, and each
        player's figures."""
        f = self.filters
        self.seen_rules.add(label)
        if len(facts) == 1:  # (solo: no ranks, no meetings)
            name, total, bonus, yahtzees, scores = facts[0]
            name, key = self.name(name)
            if ((f.players and key not in f.players) or (f.rules and not f.rules_match(label))
                    or (f.since is not None and (date is None or date[:len(f.since)] < f.since))):
                self.filtered += 1
                return
            self.counted += 1
            self.rule_sets[label] = self.rule_sets.get(label, 0) + 1
            at = (key, label, True)
            ln = self.lines.get(at)
            if ln is None:
                ln = self.lines[at] = Line(name, label, True, boxes)
            ln.add(total, bonus, yahtzees, scores, date, file, line, 0)
            if self.series is not None:
                self.series.setdefault(name, []).append((date, total, label))
            return
        named = [self.name(fact[0]) for fact in facts]
        keys = [k for _, k in named]
        if ((f.players and not f.players.intersection(keys)) or (f.rules and not f.rules_match(label))
                or (f.since is not None and (date is None or date[:len(f.since)] < f.since))):
            self.filtered += 1
            return
        self.counted += 1
        self.rule_sets[label] = self.rule_sets.get(label, 0) + 1
        totals = [fact[1] for fact in facts]
        top = max(totals, default=0)
        outcome = 1 if totals.count(top) == 1 else 2  # of a player with the top total (ties share rank 1)
        for (name, key), (_, total, bonus, yahtzees, scores) in zip(named, facts, strict=True):
            if f.players and key not in f.players:
                continue
            at = (key, label, False)
            ln = self.lines.get(at)
            if ln is None:
                ln = self.lines[at] = Line(name, label, False, boxes)
            ln.add(total, bonus, yahtzees, scores, date, file, line, outcome if total == top else 0)
            if self.series is not None:
                self.series.setdefault(name, []).append((date, total, label))
        names = [n for n, _ in named]
        for i in range(len(facts)):
            for j in range(i + 1, len(facts)):
                if keys[i] == keys[j]:
                    continue
                (ki, ni, ti), (kj, nj, tj) = sorted(((keys[i], names[i], totals[i]), (keys[j], names[j], totals[j])),
                                                    key=lambda t: t[0])
                if f.players and ki not in f.players and kj not in f.players:
                    continue
                m = self.meetings.get((ki, kj))
                if m is None:
                    m = self.meetings[(ki, kj)] = Meeting(ni, nj)
                m.games += 1
                if ti > tj:
                    m.a_ahead += 1
                elif tj > ti:
                    m.b_ahead += 1
                else:
                    m.level += 1

    # ----------------------------------------------------------------------- reading out

    def player_lines(self) -> list[Line]:
        """Rule sets most played first; within one, games against others before solo, most wins, best mean."""
        order = {label: i for i, label in enumerate(self.rule_set_order())}
        return sorted(self.lines.values(),
                      key=lambda ln: (order.get(ln.rules, 0), ln.solo, -ln.wins, -ln.mean, ln.player.casefold()))

    def rule_set_order(self) -> list[str]:
        return sorted(self.rule_sets, key=lambda k: (-self.rule_sets[k], k))

    def head_to_head(self) -> list[Meeting]:
        return sorted(self.meetings.values(), key=lambda m: (-m.games, m.a.casefold(), m.b.casefold()))

    def unmatched(self) -> list[str]:
        """Sentences for filters that matched no finished game read: the player or rule set is only in
        unfinished or abandoned games (which stats do not count), or in none (a typo, most likely:
        with a suggestion)."""
        from ..text import did_you_mean, quote

        f = self.filters
        out = []
        labels = set(self.seen_rules) | {label.split(" (", 1)[0] for label in self.seen_rules}
        for want in sorted(f.rules):
            if want in labels:
                continue
            counts = [0, 0, 0]
            for label, c in self._rules_not_over.items():
                if want in (label, label.split(" (", 1)[0]):
                    counts = [a + b for a, b in zip(counts, c, strict=True)]
            if counts[1] or counts[2]:
                out.append(f"{_not_over_text('the rules ' + quote(want), counts, own=False)}; stats count "
                           "finished games")
                continue
            out.append(f"no game read is played under the rules {quote(want)}{did_you_mean(want, sorted(labels))}")
        for key in sorted(f.players):
            if key in self.names:
                continue
            typed = f.asked.get(key, key)
            seen = self._not_over.get(key)
            if seen is not None:
                out.append(f"{_not_over_text(seen[0], seen, own=True)}; stats count finished games")
                continue
            known = self.names.spellings() + [s[0] for k, s in self._not_over.items() if k not in self.names]
            out.append(f"no player named {quote(typed)} in the games read{did_you_mean(typed, known)}")
        return out

    def summary(self) -> dict[str, Any]:
        return {"type": "summary", "games": self.games, "counted": self.counted, "abandoned": self.abandoned,
                "unfinished": self.unfinished, "filtered_out": self.filtered,
                "invalid": sum(1 for s in self.skipped if s.reason == "invalid"),
                "unreadable": sum(1 for s in self.skipped if s.reason == "unreadable")}

    def document(self) -> dict[str, Any]:
        """Everything as one JSON-ready object (`stats --json`)."""
        return {
            "type": "stats",
            "rule_sets": [{"rules": k, "games": self.rule_sets[k]} for k in self.rule_set_order()],
            "players": [ln.record() for ln in self.player_lines()],
            "head_to_head": [m.record() for m in self.head_to_head()],
            "skipped": [{"file": s.file, "line": s.line, "game": s.game, "reason": s.reason, "message": s.message}
                        for s in self.skipped],
            "summary": self.summary(),
        }


def _not_over_text(who: str, counts: Sequence[Any], *, own: bool) -> str:
    """Why none of a player's (`own`) or a rule set's games were counted: `Oma's only game read is
    unfinished`, `the 3 games read under the rules 'yatzy' are unfinished (2) or abandoned (1)`."""
    unfinished, abandoned = counts[1], counts[2]
    n = unfinished + abandoned
    state = ("unfinished" if not abandoned else "abandoned" if not unfinished
             else f"unfinished ({unfinished}) or abandoned ({abandoned})")
    if own:
        return f"{who}'s only game read is {state}" if n == 1 else f"all {n} of {who}'s games read are {state}"
    return f"the only game read under {who} is {state}" if n == 1 else f"the {n} games read under {who} are {state}"


def tally(items: Iterable[Game | Unreadable], filters: Filters | None = None, *, series: bool = False) -> Book:
    """A Book of every game of `items` (inputs.read_all of the sources)."""
    book = Book(filters or Filters())
    if series:
        book.series = {}
    for item in items:
        book.add_item(item)
    return book


# --------------------------------------------------------------------------- text and CSV


def render(book: Book) -> str:
    """The tables for people: rule sets, players, head to head; skipped games are the caller's (stderr)."""
    from .render import table

    out: list[str] = []
    s = book.summary()
    if not book.counted:
        out.append(f"no finished games to count ({_counts_text(s)})")
        return "\n".join(out)
    rows = [("rules", "games")] + [(k, str(book.rule_sets[k])) for k in book.rule_set_order()]
    out.extend(table(rows, title="rule sets played"))
    out.append("")
    rows2: list[tuple[str, ...]] = [("player", "rules", "games", "wins", "ties", "win %", "best", "mean", "sd",
                                     "last 10", "bonus %", "yahtzee %")]
    for ln in book.player_lines():
        r = ln.record()
        rows2.append((
            ln.player + (" (solo)" if ln.solo else ""), ln.rules, str(ln.games),
            "-" if ln.solo else str(ln.wins), "-" if ln.solo else str(ln.ties),
            "-" if ln.solo else f"{100 * r['win_rate']:.0f}", str(ln.best),
            f"{ln.mean:.1f}", "-" if ln.sd is None else f"{ln.sd:.1f}", f"{r['last_mean']:.1f}",
            f"{100 * r['upper_bonus_rate']:.0f}", f"{100 * r['yahtzee_rate']:.0f}",
        ))
    out.extend(table(rows2, title="players"))
    meetings = book.head_to_head()
    if meetings:
        out.append("")
        rows3 = [("player", "opponent", "games", "won", "lost", "tied")]
        rows3 += [(m.a, m.b, str(m.games), str(m.a_ahead), str(m.b_ahead), str(m.level)) for m in meetings]
        out.extend(table(rows3, title="head to head"))
    bests = [ln for ln in book.player_lines() if ln.best_at is not None]
    if bests:
        out.append("")
        out.append("bests:")
        for ln in bests:
            when = f" on {ln.best_date[:10]}" if ln.best_date else ""
            out.append(f"  {ln.player}{' (solo)' if ln.solo else ''}, {ln.rules}: {ln.best}{when} ({ln.best_at})")
    out.append("")
    out.append(_counts_text(s))
    return "\n".join(out)


def _counts_text(s: Mapping[str, Any]) -> str:
    parts = [f"{s['counted']} of {s['games']} game{'s' if s['games'] != 1 else ''} counted"]
    for key, word in (("abandoned", "abandoned"), ("unfinished", "unfinished"), ("invalid", "invalid"),
                      ("filtered_out", "filtered out"), ("unreadable", "unreadable inputs")):
        if s[key]:
            parts.append(f"{s[key]} {word}")
    return ", ".join(parts)


CSV_HEADER = ("player", "rules", "solo", "games", "wins", "ties", "win_rate", "best", "best_date", "best_at", "mean",
              "sd", "last_mean", "last_games", "upper_bonus_rate", "yahtzee_rate")


def csv_rows(book: Book) -> Iterator[list[Any]]:
    """The players' table as CSV rows (header first); box means as `mean_<box>` columns, the union of
    every rule set's boxes in the order first met (empty where a rule set has no such box)."""
    lines = book.player_lines()
    box_keys = list(dict.fromkeys(k for ln in lines for k in ln.boxes))
    yield [*CSV_HEADER, *(f"mean_{k}" for k in box_keys)]
    for ln in lines:
        r = ln.record()
        means = r["box_means"]
        yield [*(r[k] for k in CSV_HEADER), *(means.get(k) for k in box_keys)]


__all__ = ["Book", "Fact", "Filters", "Line", "Meeting", "Skipped", "csv_rows", "render", "rules_label", "tally"]
