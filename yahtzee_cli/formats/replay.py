"""Replay a game log or score sheet: per-player sheets, derived rows, standings, whose turn it is.

Everything is computed by walking the game with `yahtzee_cli.formats.validate.walk_log` (logs) or reading
it with `check_sheet` (sheets), i.e. by the rules module; this module only arranges the results.

APIs for other commands:
  replay_game(data, overrides=, until=) -> Replay          the `yahtzee replay` content
  position_from_log(data, player=, until=, overrides=) -> Position    a player's position (hint)
  position_from_sheet(data, player=, overrides=) -> Position
  position_from_data(data, player=) -> Position            either format
  turn_steps(data, overrides=) -> list[TurnStep]            turn by turn, sheet before each decision
  random_log(rules, seed, players=) -> dict                 a random legal game (tests, benchmarks)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import GameError, InputError, PositionError, ProblemCode
from ..rules import engine as R
from ..rules.engine import Column, ColumnTotals, Dice, RuleSet
from .logs import LOG_FORMAT, SHEET_FORMAT, Kind, Problem, is_abandoned, log_document, resolve_rules, turn_entry
from .players import pick
from .render import table
from .validate import (
    InProgress,
    LogWalk,
    PlayerState,
    SheetState,
    TurnStep,
    _next_open,
    check_document,
    check_sheet,
    walk_log,
)

__all__ = [
    "GameError",
    "PlayerResult",
    "Position",
    "Replay",
    "TurnStep",
    "game_record",
    "position_from_data",
    "position_from_log",
    "position_from_sheet",
    "RollChoices",
    "random_log",
    "render",
    "roll_choices",
    "replay_game",
    "turn_steps",
    "walk_steps",
]


# --------------------------------------------------------------------------- replay


@dataclass(frozen=True)
class PlayerResult:
    """A player's replayed sheet: columns, their totals (rules.column_totals), the player's score
    (rules.sheet_total), rank (ties share a rank) and whether the sheet is complete."""

    name: str
    columns: tuple[Column, ...]
    totals: tuple[ColumnTotals, ...]
    total: int
    rank: int
    finished: bool
    bonus_open: tuple[bool, ...] = ()  # sheets: columns whose yahtzee_bonus box was left empty
    saved: int = 0  # logs: the rolls saved before the player's next turn (saved rolls)


@dataclass(frozen=True)
class Replay:
    """Everything `yahtzee replay` shows, for one game."""

    kind: Kind
    rules: RuleSet
    players: tuple[PlayerResult, ...]
    game_over: bool
    winners: tuple[str, ...]  # rank-1 players (the leaders while the game is not over)
    next_player: str | None  # whose turn it is (None when over)
    in_progress: InProgress | None = None
    turns: int | None = None  # turns replayed (logs)
    unfinished: str | None = None  # why a game is not over
    illegal: tuple[Problem, ...] = ()  # moves the overridden settings forbid, and where
    overrides: Mapping[str, Any] = field(default_factory=dict)
    abandoned: bool = False  # a log ended unfinished (meta.abandoned): no one is next

    @property
    def bonus_box(self) -> bool:
        y = self.rules.yahtzee_index
        return y is not None and R.extra_bonus(self.rules, (1,) * self.rules.dice, self.rules.boxes[y].points) > 0


def _ranks(totals: Sequence[int]) -> list[int]:
    return [1 + sum(1 for u in totals if u > t) for t in totals]


def _results(
    rules: RuleSet, players: Sequence[tuple[str, list[Column], bool, tuple[bool, ...]]],
    saved: Sequence[int] | None = None,
) -> tuple[PlayerResult, ...]:
    totals = [R.sheet_total(rules, cols) for _, cols, _, _ in players]
    ranks = _ranks(totals)
    stock = list(saved) if saved is not None else [0] * len(players)
    return tuple(
        PlayerResult(name, tuple(cols), tuple(R.column_totals(rules, c) for c in cols), total, rank, fin, bo, s)
        for (name, cols, fin, bo), total, rank, s in zip(players, totals, ranks, stock, strict=True)
    )


def _checked(data: Any) -> Any:
    report = check_document(data)
    if report.problems:
        raise GameError(report.problems)
    if report.kind == "poker":
        raise GameError([Problem("/format", "a poker-dice match (poker-log/1) has no score sheet; "
                                 "`yahtzee replay` shows its rounds", ProblemCode.UNKNOWN_FORMAT)])
    return report


def replay_game(
    data: Mapping[str, Any], *, overrides: Mapping[str, Any] | None = None, until: int | None = None
) -> Replay:
    """Replay one game (a yahtzee-log/1 or yahtzee-sheet/1 as JSON data).

    `overrides`: settings to recalculate the game under (`--set`); moves they make illegal are still
    written at the value the rules give and listed in `Replay.illegal`. `until`: the first N turns
    (logs only). Raises GameError (all problems) when the game is not valid under its own rules,
    RulesError for a bad override, InputError for `until` on a sheet."""
    report = _checked(data)
    rules = report.rules
    over = dict(overrides or {})
    if over:
        rules = resolve_rules(data["rules"], over)
    if report.kind == "log":
        walk: LogWalk = report.log
        if over or until is not None:
            walk = walk_log(data, rules, until=until, check_claims=not over)
        results = _results(rules, [(p.name, p.columns, p.is_full, ()) for p in walk.players],
                           [p.saved for p in walk.players])
        over_ = walk.game_over
        nxt = None if walk.next_player is None else walk.players[walk.next_player].name
        unfinished = None
        ended = is_abandoned(data) and not over_
        if ended:
            unfinished, nxt = "the game was ended unfinished (abandoned)", None
        elif not over_:
            unfinished = "the game is in progress" if walk.in_progress else "not every box is filled"
        return Replay("log", rules, results, over_, _winners(results), nxt, walk.in_progress, walk.turns,
                      unfinished, tuple(walk.problems) if over else (), over, ended)
    if until is not None:
        raise InputError("a score sheet has no turns to stop after; replaying part of a game needs a game log")
    sheet: SheetState = report.sheet
    if over:
        sheet = check_sheet(data, rules, reprice_from=report.rules)
    results = _results(
        rules,
        [(p.name, p.columns, p.is_full and not (sheet.bonus_box and any(bo)), tuple(bo))
         for p, bo in zip(sheet.players, sheet.bonus_open, strict=True)],
    )
    reason = sheet.unfinished_reason()
    nxt_i = sheet.next_player
    return Replay("sheet", rules, results, reason is None, _winners(results),
                  None if nxt_i is None else sheet.players[nxt_i].name, None, None, reason,
                  tuple(sheet.problems) if over else (), over)


def _winners(results: Sequence[PlayerResult]) -> tuple[str, ...]:
    return tuple(p.name for p in results if p.rank == 1)


# --------------------------------------------------------------------------- output


def _column_dict(rules: RuleSet, col: Column, totals: ColumnTotals, mult: int, bonus_open: bool) -> dict[str, Any]:
    return {
        "multiplier": mult,
        "boxes": dict(zip(rules.keys, col.scores, strict=True)),
        "yahtzee_bonus": None if bonus_open else col.yahtzee_bonus,
        "upper_sum": totals.upper_sum,
        "upper_bonus": totals.upper_bonus,
        "upper_total": totals.upper_total,
        "lower_total": totals.lower_total,
        "total": totals.total,
        "counted": totals.total * mult,
    }


class PlayerChance(NamedTuple):
    """A player's chance to win outright and to share first place: exact (no standard errors), or
    estimated from `games` games played on from every sheet, with standard errors."""

    win: float
    tie: float
    win_se: float | None = None
    tie_se: float | None = None
    games: int = 0


Chances = Sequence[PlayerChance]


def estimated(chances: Chances) -> bool:
    return any(c.win_se is not None for c in chances)


def replay_dict(rp: Replay, chances: Chances | None = None, note: str | None = None) -> dict[str, Any]:
    """The replay as JSON data (`yahtzee replay --json`); `chances` (play.odds) gives each player's
    win_probability and tie_probability (null without); `note` (play.odds.chances_note): why a game
    still on has none, as `win_probability_note`."""
    rules = rp.rules
    mults = rules.settings.multipliers
    players = []
    for i, p in enumerate(rp.players):
        bo = p.bonus_open or (False,) * len(p.columns)
        players.append({
            "name": p.name,
            "total": p.total,
            "rank": p.rank,
            "winner": rp.game_over and p.rank == 1,
            "finished": p.finished,
            "win_probability": None if chances is None else round(chances[i].win, 6),
            "tie_probability": None if chances is None else round(chances[i].tie, 6),
            "win_probability_se": _se(chances[i].win_se) if chances is not None else None,
            "tie_probability_se": _se(chances[i].tie_se) if chances is not None else None,
            "columns": [_column_dict(rules, c, t, m, b and rp.bonus_box)
                        for c, t, m, b in zip(p.columns, p.totals, mults, bo, strict=True)],
        })
    ip = rp.in_progress
    return {
        "format": LOG_FORMAT if rp.kind == "log" else SHEET_FORMAT,
        "rules": rules.record(),
        "overrides": dict(rp.overrides),
        "turns": rp.turns,
        "players": players,
        "standings": [{"rank": p.rank, "name": p.name, "total": p.total}
                      for p in sorted(rp.players, key=lambda p: p.rank)],
        "winners": list(rp.winners) if rp.game_over else [],
        "leaders": [] if rp.game_over else list(rp.winners),
        "game_over": rp.game_over,
        "unfinished": rp.unfinished,
        "next": rp.next_player,
        "abandoned": rp.abandoned,
        "in_progress": None if ip is None else _in_progress_dict(rp, ip),
        "illegal": [{"path": p.path, "message": p.message} for p in rp.illegal],
        "win_probability_note": note if chances is None else None,
        "win_probability_method": _method(rp, chances),
        "win_probability_games": chances[0].games if chances is not None and estimated(chances) else None,
    }


def _se(se: float | None) -> float | None:
    return None if se is None else round(se, 6)


def _method(rp: Replay, chances: Chances | None) -> str | None:
    """How the chances were found: "result" (a finished game), "exact" (exact score distributions) or
    "estimated" (games played on from every sheet); None without chances."""
    if chances is None:
        return None
    if rp.game_over:
        return "result"
    return "estimated" if estimated(chances) else "exact"


def _in_progress_dict(rp: Replay, ip: InProgress) -> dict[str, Any]:
    """The turn in progress: whose, the dice after each roll and kept before each reroll, and every
    box the dice showing may go in with what it writes (as `score --sheet --json` lists them)."""
    rules = rp.rules
    opts = R.options(rules, list(rp.players[ip.player].columns), ip.dice)
    return {
        "player": rp.players[ip.player].name,
        "turn": ip.turn + 1,
        "path": f"/turns/{ip.turn}",
        "dice": list(ip.dice),
        "rolls": [list(r) for r in ip.rolls],
        "held": None if ip.held is None else [list(h) for h in ip.held],
        "rolls_used": ip.rolls_used,
        "rolls_left": ip.rolls_left,
        "saved": ip.saved,
        "legal": [{"box": rules.keys[o.box], "column": o.column + 1, "score": o.score, "bonus": o.bonus,
                   "joker": o.joker} for o in opts],
        "may_pass": R.may_pass(rules, opts),
    }


def game_record(file: str, line: int, game: int, rp: Replay, chances: Chances | None = None,
                note: str | None = None) -> dict[str, Any]:
    """One game's JSON record: where it is (file, the line it starts on, its number in the file) and
    its replay. What `replay --json` prints for each game, and every `log` command's --json for the
    game in play, so the two always agree."""
    return {"type": "game", "file": file, "line": line, "game": game, **replay_dict(rp, chances, note)}


def percent(p: float) -> str:
    """A chance for people: one decimal, '<0.1%' and '>99.9%' rather than a 0 or 100 that is not sure."""
    if 0.0 < p < 0.0005:
        return "<0.1%"
    if 0.9995 <= p < 1.0:
        return ">99.9%"
    return f"{100 * p:.1f}%"


def chances_line(rp: Replay, chances: Chances) -> str:
    """'Chances to win: Ben 64.2%, Ann 23.5%; a tie for first 1.3%.' (most likely first); estimated
    chances with their standard error in percentage points ('Ben 64.2% ± 0.6 pp') and how many games
    they were played on for."""
    order = sorted(range(len(rp.players)), key=lambda i: -chances[i].win)

    def one(c: PlayerChance) -> str:
        return percent(c.win) if c.win_se is None else f"{percent(c.win)} ± {100 * c.win_se:.1f} pp"

    text = "Chances to win: " + ", ".join(f"{rp.players[i].name} {one(chances[i])}" for i in order)
    tie = max(0.0, 1.0 - sum(c.win for c in chances))
    if tie >= 0.0005:
        text += f"; a tie for first {percent(tie)}"
    if estimated(chances):
        return text + f" (estimated from {chances[0].games:,} games played on from each sheet; ± one SE)."
    return text + " (optimal play from here)."


def note_line(note: str) -> str:
    """play.odds.chances_note as a sentence: 'No chances to win: yatzy has no exact table (...).'"""
    return note[:1].upper() + note[1:] + "."


def render(rp: Replay, chances: Chances | None = None, note: str | None = None) -> str:
    """The replay as text: the sheet (boxes x players, derived rows as on a paper score sheet),
    then standings, each player's chance to win while the game is on, and the state of the game."""
    rules = rp.rules
    mults = rules.settings.multipliers
    multi = len(mults) > 1
    head = ["Box"]
    cols: list[tuple[PlayerResult, int]] = []
    for p in rp.players:
        for c in range(len(p.columns)):
            cols.append((p, c))
            head.append(f"{p.name} x{mults[c]}" if multi else p.name)

    def cell(v: int | None) -> str:
        return "" if v is None else str(v)

    def row(label: str, value: Any) -> list[str]:
        return [label] + [value(p, c) for p, c in cols]

    rows = [head]
    for i in rules.upper_indices:
        rows.append(row(rules.boxes[i].label, lambda p, c, i=i: cell(p.columns[c].scores[i])))
    rows.append(row("Upper sum", lambda p, c: str(p.totals[c].upper_sum)))
    rows.append(row("Upper bonus", lambda p, c: str(p.totals[c].upper_bonus)))
    rows.append(row("Upper total", lambda p, c: str(p.totals[c].upper_total)))
    for i in rules.lower_indices:
        rows.append(row(rules.boxes[i].label, lambda p, c, i=i: cell(p.columns[c].scores[i])))
    if rp.bonus_box:
        rows.append(row("Yahtzee bonus", lambda p, c: "" if p.bonus_open and p.bonus_open[c]
                        else str(p.columns[c].yahtzee_bonus)))
    rows.append(row("Lower total", lambda p, c: str(p.totals[c].lower_total)))
    rows.append(row("Grand total", lambda p, c: str(p.totals[c].total)))
    if multi:
        rows.append(row("Counted", lambda p, c: f"{p.totals[c].total * mults[c]}"))
    title = f"{rules.name}"
    if rp.overrides:
        title += " with " + ", ".join(f"{k}={R.setting_text(v)}" for k, v in rp.overrides.items())
    if rp.turns is not None:
        title += f", {rp.turns} turn{'s' if rp.turns != 1 else ''}"
    lines = [title, *table(rows), ""]
    if multi:
        how = "the columns added together" if rules.settings.add_columns else "the best column"
        lines.append(f"Counted: each column times its multiplier; a player's score is {how}.")
    if len(rp.players) == 1:
        lines.append(f"Score: {rp.players[0].total}")
    else:
        standing = [["Rank", "Player", "Score", ""]]
        for p in sorted(rp.players, key=lambda p: p.rank):
            mark = ("winner" if rp.game_over else "leader") if p.rank == 1 else ""
            standing.append([str(p.rank), p.name, str(p.total), mark])
        lines.extend(table(standing, left=(0, 1, 3)))
        if chances is not None and not rp.game_over:
            lines.append(chances_line(rp, chances))
        elif note is not None and not rp.game_over:
            lines.append(note_line(note))
    lines.append(_state_line(rp))
    if rp.illegal:
        lines.append("Illegal under the new settings (written anyway at the value the rules give):")
        lines.extend(f"  {p}" for p in rp.illegal)
    return "\n".join(lines)


def _state_line(rp: Replay) -> str:
    if rp.abandoned:
        return "Ended unfinished (abandoned)."
    if rp.game_over:
        if len(rp.players) == 1:
            return "Game over."
        if len(rp.winners) > 1:
            return f"Game over: a tie between {', '.join(rp.winners)}."
        return f"Game over: {rp.winners[0]} wins."
    ip = rp.in_progress
    if ip is not None:
        name = rp.players[ip.player].name
        total = ip.rolls_used + ip.rolls_left
        return (f"In progress: {name} has rolled {' '.join(map(str, ip.dice))} (roll {ip.rolls_used} of {total}, "
                f"{ip.rolls_left} left).")
    text = f"Unfinished: {rp.unfinished}." if rp.unfinished else "Unfinished."
    if rp.next_player is not None:
        text += f" Next: {rp.next_player}."
    return text


# --------------------------------------------------------------------------- positions (hint)


@dataclass(frozen=True)
class Position:
    """One player's position: what `hint` needs to advise the next decision.

    `columns` is the player's sheet (one rules.Column per column). When a turn is in progress,
    `dice` are the dice showing, `rolls` the sorted dice after each roll so far, `held` the dice kept
    before each reroll (when the log gives them), `rolls_used` the rolls thrown and `rolls_left` the
    rolls still allowed (rules.rolls_allowed). Before a turn, `dice` is None, `rolls_used` 0 and
    `rolls_left` the rolls the coming turn allows. `saved` is the saved-roll count at the start of
    the turn (Maxi Yatzy; 0 elsewhere)."""

    rules: RuleSet
    player: str
    columns: list[Column]
    saved: int = 0
    dice: Dice | None = None
    rolls: tuple[Dice, ...] = ()
    held: tuple[Dice, ...] = ()
    rolls_used: int = 0
    rolls_left: int = 3
    turns_taken: int = 0
    finished: bool = False  # the player's sheet is full

    @property
    def total(self) -> int:
        return R.sheet_total(self.rules, self.columns)


def _pick(names: Sequence[str], player: str | None, default: int | None) -> int:
    if player is None:
        if default is None:
            raise PositionError(f"say which player: {', '.join(names)}")
        return default
    at = pick(names, player)  # (the one name matcher: Mom is mom)
    if at is not None:
        return at
    raise PositionError(f"unknown player {player!r}; players: {', '.join(names)}")


def position_from_log(
    data: Mapping[str, Any],
    player: str | None = None,
    *,
    until: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Position:
    """A player's position after a yahtzee-log/1 (or its first `until` turns). `player` None: the
    player whose turn it is (the in-progress turn's player, else the next one; the last player when
    the game is over). Raises GameError for an invalid log, PositionError for an unknown player."""
    report = _checked(data)
    if report.kind != "log":
        raise InputError("expected a yahtzee-log/1 game log")
    rules = resolve_rules(data["rules"], overrides) if overrides else report.rules
    walk: LogWalk = report.log
    if overrides or until is not None:
        walk = walk_log(data, rules, until=until, check_claims=not overrides)
    names = [p.name for p in walk.players]
    default = walk.next_player if walk.next_player is not None else (walk.last_player or 0)
    pi = _pick(names, player, default)
    p = walk.players[pi]
    ip = walk.in_progress
    if ip is not None and ip.player == pi:
        return Position(rules, p.name, p.columns, ip.saved, ip.dice, ip.rolls, ip.held or (), ip.rolls_used,
                        ip.rolls_left, p.turns, p.is_full)
    return Position(rules, p.name, p.columns, p.saved, rolls_left=R.rolls_allowed(rules, p.saved),
                    turns_taken=p.turns, finished=p.is_full)


def position_from_sheet(
    data: Mapping[str, Any], player: str | None = None, *, overrides: Mapping[str, Any] | None = None
) -> Position:
    """A player's position on a yahtzee-sheet/1 (the only player, or `player` by name). The sheet's
    boxes and yahtzee bonus make the columns; no turn is in progress."""
    report = _checked(data)
    if report.kind != "sheet":
        raise InputError("expected a yahtzee-sheet/1 score sheet")
    sheet: SheetState = report.sheet
    rules = report.rules
    if overrides:
        rules = resolve_rules(data["rules"], overrides)
        sheet = check_sheet(data, rules, reprice_from=report.rules)
    names = [p.name for p in sheet.players]
    if player is None and len(names) > 1:
        raise PositionError(f"the sheet has {len(names)} players ({', '.join(names)}); name one, or use a "
                         "one-player sheet")
    p = sheet.players[_pick(names, player, 0)]
    filled = sum(bin(m).count("1") for m in p.filled)
    return Position(rules, p.name, p.columns, 0, rolls_left=R.rolls_allowed(rules, 0), turns_taken=filled,
                    finished=p.is_full)


def position_from_data(data: Mapping[str, Any], player: str | None = None,
                       overrides: Mapping[str, Any] | None = None) -> Position:
    """A player's position from either format (a log or a sheet)."""
    if isinstance(data, Mapping) and data.get("format") == SHEET_FORMAT:
        return position_from_sheet(data, player, overrides=overrides)
    return position_from_log(data, player, overrides=overrides)


# --------------------------------------------------------------------------- turn by turn (analyze)


def turn_steps(data: Mapping[str, Any], *, overrides: Mapping[str, Any] | None = None) -> list[TurnStep]:
    """Every turn of a valid yahtzee-log/1, in order: the player's columns *before* the decision, the
    saved rolls, the rolls and held dice, and the (column, box) chosen with the Option it wrote
    (None for a pass or the in-progress last turn). Raises GameError for an invalid log."""
    return walk_steps(data, overrides=overrides)[0]


def walk_steps(data: Mapping[str, Any], *, overrides: Mapping[str, Any] | None = None,
               until: int | None = None) -> tuple[list[TurnStep], LogWalk]:
    """turn_steps of the first `until` turns (all without it), and the walk's end state (whose turn,
    whether the game is over)."""
    report = _checked(data)
    if report.kind != "log":
        raise InputError("expected a yahtzee-log/1 game log")
    rules = resolve_rules(data["rules"], overrides) if overrides else report.rules
    steps: list[TurnStep] = []
    walk = walk_log(data, rules, until=until, check_claims=not overrides, steps=steps)
    return steps, walk


# --------------------------------------------------------------------------- random games


def random_log(
    rules: RuleSet | str,
    seed: int | random.Random = 0,
    players: Sequence[str] = ("Solo",),
    *,
    spec: Any = None,
    turns: int | None = None,
    held: bool = True,
    claims: bool = True,
) -> dict[str, Any]:
    """A random legal yahtzee-log/1 (random holds, a random legal box each turn), for tests,
    benchmarks and examples. A turn rolls once (1 in 5), twice (1 in 5) or three times (3 in 5), at
    most the rolls allowed, and one roll more (1 in 5) when saved rolls allow more than three.
    `turns`: stop after that many turns (an unfinished game). `spec`: the `rules` value to write
    (default: the rule set's preset name). `claims`: write each turn's score and bonus."""
    rs = R.preset(rules) if isinstance(rules, str) else rules
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    ncols, n = rs.settings.columns, rs.dice
    y = rs.yahtzee_index
    states = [PlayerState.new(p, rs) for p in players]
    out: list[dict[str, Any]] = []
    last: int | None = None
    while turns is None or len(out) < turns:
        pi = _next_open(states, last)
        if pi is None:
            break
        last = pi
        p = states[pi]
        allowed = R.rolls_allowed(rs, p.saved)
        nrolls = min(allowed, rng.choice((1, 2, 3, 3, 3)) + (allowed > 3 and rng.random() < 0.2))
        dice = sorted(rng.randint(1, 6) for _ in range(n))
        rolls, keeps = [dice], []
        for _ in range(nrolls - 1):
            keep = [d for d in dice if rng.random() < 0.5]
            keeps.append(keep)
            dice = sorted(keep + [rng.randint(1, 6) for _ in range(n - len(keep))])
            rolls.append(dice)
        roll = tuple(dice)
        p.saved = R.saved_after(rs, p.saved, nrolls)
        p.turns += 1
        if not rs.settings.must_zero and rng.random() < 0.5 and R.may_pass(rs, R.options(rs, p.columns, roll)):
            out.append(turn_entry(p.name, rolls, held=keeps if held else None, passed=True))
            continue
        ci = rng.choice([c for c in range(ncols) if p.filled[c] != (1 << len(rs.boxes)) - 1])
        opens = [b for b, v in enumerate(p.scores[ci]) if v is None]
        ys = p.scores[ci][y] if y is not None else None
        opt = R.placement(rs, p.filled[ci], ys, rng.choice(opens), roll, ci)
        if opt is None:  # e.g. a forced joker or fill-in-order: pick among the legal options
            o = rng.choice(R.options(rs, p.columns, roll))
            ci = o.column
            ys = p.scores[ci][y] if y is not None else None
            opt = R.placement(rs, p.filled[ci], ys, o.box, roll, ci)
            assert opt is not None
        p.scores[ci][opt.box] = opt.score
        p.filled[ci] |= 1 << opt.box
        p.bonus[ci] += opt.bonus
        p.open_boxes -= 1
        out.append(turn_entry(
            p.name, rolls, held=keeps if held else None, box=rs.keys[opt.box],
            column=ci + 1 if ncols > 1 else None,
            score=opt.score if claims else None, bonus=opt.bonus if claims and opt.bonus else None,
        ))
    return log_document(spec if spec is not None else rs.name, list(players), out)


# --------------------------------------------------------------------------- a roll on a sheet (score --sheet)


@dataclass(frozen=True)
class RollChoices:
    """Where a roll may go on a position's sheet: every legal (column, box) with what it writes
    (rules.options), the extra-Yahtzee bonus it earns, and whether the turn may be passed."""

    dice: Dice
    legal: tuple[R.Option, ...]
    bonus: int
    may_pass: bool


def roll_choices(position: Position, dice: Sequence[int]) -> RollChoices:
    """The legal places for `dice` on `position`'s sheet (joker mode, fill order, every column).
    Raises RulesError for a wrong dice count or face."""
    rules = position.rules
    d = rules.check_dice(dice)
    opts = R.options(rules, position.columns, d)
    return RollChoices(d, tuple(opts), max((o.bonus for o in opts), default=0), R.may_pass(rules, opts))
