"""A replay of many games as `yahtzee replay` shows it: every game (or poker-dice match) of the inputs
replayed in order (play.fanout), each one's standings, record and text, the games that cannot be
replayed with their problems, and the tally of the batch (formats.tallies). The request's fields are
named as the command's options, and so are its refusals."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import BadRequest

Say = Callable[[str], None]
Wait = Callable[[str], AbstractContextManager[Any]]  # a long wait shown by its name while it lasts


class Shown(NamedTuple):
    """One game (or poker match) as replay shows it, in every form: its JSON record and tally, its
    standings (rank, name, total), whether it is over, where it is, its full text, and a solo player's
    personal-best remark."""

    record: dict[str, Any]
    counted: Any
    ranked: list[tuple[int, str, int]]
    over: bool
    at: tuple[Any, int, int]  # file, line, game
    where: str
    text: str
    best: str


class Bad(NamedTuple):
    """A game that cannot be replayed: a line per problem (for stderr) and its JSON record."""

    messages: list[str]
    record: dict[str, Any]


@dataclass(frozen=True)
class ReplayRequest:
    """House rules to replay under (`sets`), turns kept (`until`), where (`workers`, `backend`,
    `scheduler`); what is shown: `text` for people (`verbose`: a batch's games in full), `json`."""

    sets: tuple[str, ...] = ()
    until: int | None = None
    workers: int | None = None
    backend: str = "local"
    scheduler: str | None = None
    text: bool = True
    json: bool = False
    verbose: bool = False


class Replaying:
    """The games of `sources` replayed as `req` asks, one Shown or Bad each, in order (iterate once);
    `batch`: two or more games (each then one line unless verbose); after the games, `failed` counts
    the Bad ones and `summary()` is the batch's closing record, `tally` its standings."""

    def __init__(self, sources: list[Any], req: ReplayRequest, say: Say | None = None,
                 wait: Wait | None = None) -> None:
        from ..formats.tallies import Tally
        from ..rules.engine import parse_setting
        from .fanout import replayed

        self.req, self.say, self.wait = req, say, wait
        self.overrides: dict[str, Any] = dict(parse_setting(s) for s in req.sets)
        self.failed = 0
        self.tally = Tally()  # a batch ends with a summary per rule set and player (wins, ties, best, mean, bests)
        items = replayed(sources, overrides=self.overrides, until=req.until, backend=req.backend,
                         scheduler=req.scheduler, workers=req.workers)
        ahead = list(itertools.islice(items, 2))
        self.batch = len(ahead) > 1 or len(sources) > 1
        self._items = itertools.chain(ahead, items)

    def summary(self) -> dict[str, Any]:
        return {"type": "summary", **self.tally.as_dict(), "problems": self.failed}

    def __iter__(self) -> Iterator[Shown | Bad]:
        for done in self._items:
            one = self._one(done)
            if isinstance(one, Bad):
                self.failed += 1
            yield one

    def _one(self, done: Any) -> Shown | Bad:
        from ..formats.inputs import Game, bad_game_record
        from ..formats.poker_log import render as render_match

        item = done.item
        if not isinstance(item, Game):
            return Bad([f"{item.source.name}: {item.message}"],
                       bad_game_record(item.source.name, None, [], item.code, item.message))
        doc = item.doc
        if doc.problem is not None:
            return Bad([f"{item.where}: {doc.problem}"], bad_game_record(item.file, doc, [doc.problem]))
        full_text = self.req.text and not (self.batch and not self.req.verbose)  # each game's whole text is shown
        at = (item.file, doc.line, doc.index)
        if done.poker:
            if self.overrides or self.req.until is not None:
                raise BadRequest("a poker-dice match has no house-rule settings or turns: leave out {set} and {until}",
                                 options=("set", "until"))
            match, problems = done.match, done.problems
            if match is None or problems:
                return self._invalid(item, problems)
            ranks = match.ranks()
            counted = self.tally.add([(p, match.wins[p], ranks[p]) for p in match.players], match.over)
            ranked = sorted(((ranks[p], p, match.wins[p]) for p in match.players), key=lambda r: r[0])
            head = {"file": item.file, "line": doc.line, "game": doc.index}
            return Shown({"type": "game", **head, **match.as_dict()}, counted, ranked, match.over, at, item.where,
                         render_match(match) if full_text else "", "")
        if done.rules_error is not None:
            raise BadRequest("{set}: " + done.rules_error, options=("set",))
        if done.until_error is not None:
            raise BadRequest("{until}: " + done.until_error, options=("until",))
        rp = done.replay
        if rp is None:  # not a valid game
            return self._invalid(item, done.problems)
        return self._game(item, rp, at, full_text)

    def _invalid(self, item: Any, problems: Any) -> Bad:
        from ..formats.inputs import bad_game_record

        doc = item.doc
        return Bad([f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}" for p in problems],
                   bad_game_record(item.file, doc, problems))

    def _game(self, item: Any, rp: Any, at: tuple[Any, int, int], full_text: bool) -> Shown:
        from contextlib import nullcontext

        from ..formats.replay import game_record, render
        from .odds import chances_note, game_odds

        chances = None
        if self.req.json or (full_text and not rp.game_over):
            with self.wait("computing the chances to win") if self.wait is not None else nullcontext():
                chances = game_odds(rp, self.say)
        missing = chances_note(rp) if chances is None else None
        counted = self.tally.add([(p.name, p.total, p.rank) for p in rp.players], rp.game_over, rp.rules.record())
        ranked = [(p.rank, p.name, p.total) for p in sorted(rp.players, key=lambda p: p.rank)]
        best = ""
        if self.batch and counted.solo and counted.running_best is not None:
            best = (f"personal best: {counted.running_best} (new)" if counted.personal_best
                    else f"personal best so far: {counted.running_best}")
        doc = item.doc
        return Shown(game_record(item.file, doc.line, doc.index, rp, chances, missing), counted, ranked, rp.game_over,
                     at, item.where, render(rp, chances, missing) if full_text else "", best)
