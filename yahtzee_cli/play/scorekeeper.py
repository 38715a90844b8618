"""Keeping score of a game played at the table, one entry at a time (what `yahtzee play` and
`yahtzee log new/add/undo/set` do).

A game file holds one or more `yahtzee-log/1` games, one per line (NDJSON): earlier games first, the
game being played last. Every entry (a roll, a box, an undo, a house-rule change) is checked by
walking the whole game with the validator's `walk_log` -- so the rules module alone decides what is
legal and what each box writes -- and then the file is rewritten atomically, so killing the process
loses at most the entry being typed and the file always validates and replays like any other log.

A turn in progress (rolls typed, no box yet) is written too, as the log format's unfinished last
turn: `hint --log FILE` advises it, and a resumed game continues it.

What a step is, and what undo takes back, is decided here and only here (`Keeper.undo`): a keep
noted for the next reroll; else the box (or pass) of the last turn, so the player chooses again with
the same dice showing; else the last roll of the turn in progress (with the dice kept before it);
one step at a time. Dice the program rolls (`Keeper.roll`, `play --roll`) come from the game's dice
stream (`meta.dice_stream`: its seed; each roll's faces from the position seed/turn/roll, see
`stream_dice`), so an undo never changes what the dice showed: thrown again with the same dice
kept, a roll shows the same dice, and a resumed game goes on with the same stream.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import (
    BadRuleChange,
    GameError,
    GameInProgress,
    KeeperError,
    MissingFile,
    PositionError,
    ProblemCode,
    RuleRefused,
    RulesError,
    UnknownBox,
)
from ..formats.logs import is_abandoned, log_document, resolve_rules, turn_entry
from ..formats.players import player_key
from ..formats.replay import Position, Replay, RollChoices, position_from_log, replay_game, roll_choices
from ..formats.validate import LogWalk, TurnStep, check_document, walk_log
from ..rules.engine import RuleSet, parse_setting, read_rules_file, setting_text
from .gamefile import GameFile, check_writable, locked, read_games

# The problems whose message lists the legal boxes already (a box out of the fill order, or one the
# forced joker rule refuses: see rules.place).
_LISTS_LEGAL = frozenset({ProblemCode.FILL_IN_ORDER, ProblemCode.COLUMN_FILL_DOWN, ProblemCode.COLUMN_FILL_UP,
                          ProblemCode.JOKER_FORBIDDEN})

if TYPE_CHECKING:
    from ..strategy.turn import Evaluation

__all__ = [
    "DICE_STREAM",
    "Entry",
    "GameFile",
    "Keeper",
    "KeeperError",
    "RuleChange",
    "RuleRefused",
    "describe_game",
    "dice_word",
    "read_games",
    "rules_spec",
    "stream_dice",
]

DICE_STREAM = "dice_stream"  # the `meta` key of a game's machine dice: {"seed": N}


def stream_dice(seed: int, turn: int, roll: int, count: int) -> list[int]:
    """The faces of one machine roll: `count` dice from position (turn, roll) of the dice stream
    `seed` (`turn`: the 0-based index of the turn in the log; `roll`: 0 for the turn's first roll,
    1 for the first reroll, ...). A position gives the same faces whatever came before it, so a roll
    taken back and thrown again with the same dice kept shows the same dice; a reroll of k dice takes
    the position's first k faces. (SHA-256 of "seed/turn/roll/block", bytes below 252 taken mod 6:
    uniform faces, the same on every machine and Python version.)"""
    out: list[int] = []
    block = 0
    while len(out) < count:
        digest = hashlib.sha256(f"{seed}/{turn}/{roll}/{block}".encode()).digest()
        out += [b % 6 + 1 for b in digest if b < 252][: count - len(out)]
        block += 1
    return out


# --------------------------------------------------------------------------- rules of a new game


def rules_spec(rules: str | None, sets: Sequence[str] = ()) -> Any:
    """The `rules` value a new game records for `--rules R` (a preset name or a rules JSON file) and
    `--set key=value` house rules: a preset name, {"preset", "settings"}, or the rules file's own data
    with the settings merged in (so the log stands alone). Without `rules`, the defaults every command
    uses ($YAHTZEE_RULES, the config file's rules and house rules). Raises RulesError naming valid
    choices (and, for a bad default, where it came from)."""
    base: dict[str, Any] = {}
    if rules is None:
        from ..formats.config import load_default_rules, load_defaults

        load_default_rules(sets)  # a bad default is refused here, naming its source
        defaults = load_defaults()
        rules, base = defaults.rules, dict(defaults.settings)
    overrides = {**base, **dict(parse_setting(s) for s in sets)}
    spec: Any = rules
    if rules is not None and (rules.endswith(".json") or "/" in rules):
        spec = read_rules_file(rules)  # bounded, as every rules file is read
    for key, value in overrides.items():
        spec = with_setting(spec, key, value)
    resolve_rules(spec)  # RulesError when the rules or a setting are not valid
    return spec


def with_setting(spec: Any, key: str, value: Any) -> Any:
    """A `rules` value with one setting changed (a preset name becomes {"preset", "settings"})."""
    value = list(value) if isinstance(value, tuple) else value
    if isinstance(spec, str):
        return {"preset": spec, "settings": {key: value}}
    if not isinstance(spec, Mapping):
        raise RulesError("rules must be a preset name or an object with 'preset' or 'boxes'")
    settings = spec.get("settings") or {}
    return {**spec, "settings": {**settings, key: value}}


# --------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class Entry:
    """What an accepted entry did: whose turn, the dice now showing, and (when a box was chosen or
    the turn passed) the TurnStep with the box, column and what it wrote."""

    player: str
    dice: tuple[int, ...] | None
    step: TurnStep | None = None


@dataclass(frozen=True)
class RuleChange:
    """A house rule changed mid-game: the game replayed before and after."""

    setting: str
    value: Any
    before: Replay
    after: Replay


def abandoned(game: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `game` marked abandoned."""
    data = copy.deepcopy(dict(game))
    data["meta"] = {**(data.get("meta") or {}), "abandoned": True}
    return data


def describe_game(game: Mapping[str, Any]) -> str:
    """Which game this is, for a person choosing what to do with it: its players, when it started
    (`meta.started`) and the turn it is at, e.g. `Mom, Dad; started 2024-05-01 19:02 UTC; turn 7`."""
    players = game.get("players")
    names = [p.get("name") if isinstance(p, Mapping) else p for p in players] if isinstance(players, list) else []
    parts = [", ".join(str(n) for n in names) or "no players"]
    meta = game.get("meta")
    started = meta.get("started") if isinstance(meta, Mapping) else None
    if isinstance(started, str) and started:
        parts.append("started " + started.replace("T", " ").removesuffix("Z")[:16] + (" UTC" if started.endswith("Z")
                                                                                     else ""))
    turns = game.get("turns")
    if isinstance(turns, list):
        parts.append(f"turn {len(turns) + (0 if turns and 'box' not in turns[-1] else 1)}")
    return "; ".join(parts)


def dice_word(text: str) -> bool:
    """Whether a word is dice (`33322`, `3 3 3 2 2`, `3,3,3,2,2`): digits, with commas, spaces or tabs
    between them. The commands that take an optional FILE before the dice read such a word as dice,
    never as a file name (`./33322` names a file), and `play` reads such a line as a roll; the dice
    themselves are parsed by rules.engine.parse_dice, which says what is wrong with a bad one."""
    return any(ch.isdigit() for ch in text) and all(ch.isdigit() or ch in ", \t" for ch in text)


class Keeper:
    """The game being played in a file: every method that changes it checks the change with the
    rules (KeeperError says why it is refused, leaving game and file as they were) and then saves
    the file atomically."""

    def __init__(self, file: GameFile) -> None:
        if file.game is None:
            raise KeeperError(f"{file.path} holds no game yet; start one with `yahtzee log new` or `yahtzee play`")
        self.file = file
        self.data: dict[str, Any] = file.game
        self.rules: RuleSet = resolve_rules(self.data["rules"])
        self.walk: LogWalk = walk_log(self.data, self.rules)
        self._bests: dict[str, tuple[int, int]] | None = None
        self.pending_keep: tuple[int, ...] | None = None  # dice kept for the next typed reroll (`hold`)
        self.ended: str | None = None  # `start(force=True)`: the unfinished game it ended (describe_game)

    # -- opening and starting
    @classmethod
    def open(cls, path: str | Path) -> Keeper:
        """The game in play in an existing file (MissingFile, a usage error, when there is no file)."""
        if not Path(path).exists():
            raise MissingFile(path)
        return cls(read_games(path))

    @classmethod
    def start(cls, path: str | Path, spec: Any, players: Sequence[str],
              meta: Mapping[str, Any] | None = None, force: bool = False) -> Keeper:
        """A new game at the end of `path` (created if missing, in a folder that exists). Refused while
        the file's last game is unfinished (resume it, or end it: `force` ends it as abandoned first),
        for no players, or for a name given twice."""
        check_writable(path)  # a missing folder is a usage error; an unwritable place is refused
        with locked(path):
            return cls._start(path, spec, players, meta, force)

    @classmethod
    def _start(cls, path: str | Path, spec: Any, players: Sequence[str],
               meta: Mapping[str, Any] | None, force: bool) -> Keeper:
        gf = read_games(path)
        ended = None
        if gf.game is not None and not Keeper(gf).game_over:
            if not force:
                raise GameInProgress(f"{gf.path} has a game in progress ({describe_game(gf.game)})")
            ended = describe_game(gf.game)
            gf.game = abandoned(gf.game)
        names = [p.strip() for p in players]
        if not names or not all(names):
            raise KeeperError("a game needs at least one player, each with a name")
        seen = {player_key(n) for n in names}  # (the one name matcher: Mom and mom are one player)
        if len(seen) != len(names):
            raise KeeperError("each player needs a different name")
        data = log_document(spec, names, [], meta)
        problems = check_document(data).problems
        if problems:
            raise KeeperError(str(problems[0]))
        if gf.game is not None:
            gf.earlier.append(gf.game)
        gf.game = data
        keeper = cls(gf)
        gf.save()
        keeper.ended = ended
        return keeper

    # -- state
    @property
    def players(self) -> list[str]:
        return [p.name for p in self.walk.players]

    @property
    def game_over(self) -> bool:
        """No more entries: every sheet is full, or the game was ended (abandoned)."""
        return self.walk.game_over or self.abandoned

    @property
    def abandoned(self) -> bool:
        return is_abandoned(self.data)

    def _playing(self) -> None:
        if self.abandoned:
            raise KeeperError("the game was ended (abandoned); start another")

    def end(self) -> None:
        """Abandon the game in play: it stays in the file, marked abandoned (`meta.abandoned`), so it
        is skipped by personal bests and hints, and a new game may start."""
        if self.walk.game_over:
            raise KeeperError("the game is over already: every sheet is full")
        if self.abandoned:
            raise KeeperError("the game was ended already")
        data = abandoned(self.data)
        self._commit(data, self.walk)

    @property
    def next_player(self) -> str | None:
        """Whose turn it is (None when the game is over)."""
        i = self.walk.next_player
        return None if i is None else self.walk.players[i].name

    @property
    def turn_number(self) -> int:
        """The number of the turn being played, counting every player's turns from 1."""
        turns = self.data["turns"]
        in_progress = bool(turns) and "box" not in turns[-1]
        return len(turns) + (0 if in_progress else 1)

    def position(self) -> Position:
        """The position of the player whose turn it is (the dice showing when a turn is in progress)."""
        return position_from_log(self.data)

    def choices(self) -> RollChoices | None:
        """Where the dice showing may go, with what each box writes (None before the turn's first roll)."""
        pos = self.position()
        if pos.dice is None or self.game_over:
            return None
        return roll_choices(pos, pos.dice)

    def standings(self) -> Replay:
        return replay_game(self.data)

    def personal_best(self, player: str) -> tuple[int, int] | None:
        """The player's best total in the earlier finished games of the file played under the same
        rules (same sheet and settings), with the number of such games; None when there are none."""
        if self._bests is None:
            self._bests = {}
            fingerprint = self.rules.fingerprint
            for game in self.file.earlier:
                try:
                    rp = replay_game(game)
                except (GameError, RulesError, ValueError, KeyError, TypeError):
                    continue
                if rp.kind != "log" or not rp.game_over or rp.rules.fingerprint != fingerprint:
                    continue
                for p in rp.players:
                    key = player_key(p.name)
                    best, n = self._bests.get(key, (p.total, 0))
                    self._bests[key] = (max(best, p.total), n + 1)
        return self._bests.get(player_key(player))

    def hint(self, say: Callable[[str], None] | None = None) -> Evaluation:
        """Every option of the position, best first (keeps while rolls are left, boxes after)."""
        from .hint import hint

        pos = self.position()
        if self.game_over:
            raise KeeperError("the game is over")
        if pos.dice is None:
            raise KeeperError(f"{pos.player} has not rolled yet: the hint advises the dice showing")
        try:
            return hint(pos.rules, pos.columns, pos.dice, pos.rolls_left, pos.saved, say=say)
        except PositionError as exc:
            raise KeeperError(str(exc)) from None

    # -- changes
    def _check(self, data: dict[str, Any], rules: RuleSet | None = None) -> tuple[LogWalk, list[TurnStep]]:
        steps: list[TurnStep] = []
        walk = walk_log(data, rules or self.rules, steps=steps)
        if walk.problems:
            raise KeeperError(walk.problems[0].message, code=walk.problems[0].code)
        return walk, steps

    def _commit(self, data: dict[str, Any], walk: LogWalk, rules: RuleSet | None = None) -> None:
        self.file.game = data
        try:
            self.file.save()
        except KeeperError:  # (SaveFailed) not saved, so not made: the game stays as the file has it
            self.file.game = self.data
            raise
        self.data = data
        self.walk = walk
        if rules is not None:
            self.rules = rules
            self._bests = None

    def _dice(self, dice: Sequence[int]) -> list[int]:
        try:
            self.rules.check_dice(dice)
        except RulesError as exc:
            raise KeeperError(str(exc)) from None
        return [int(d) for d in dice]

    def record(
        self,
        rolls: Sequence[Sequence[int]] = (),
        held: Sequence[Sequence[int]] | None = None,
        box: str | None = None,
        column: int | None = None,
        passed: bool = False,
    ) -> Entry:
        """One entry: `rolls` (the dice after each roll, continuing the turn in progress or starting
        the next player's turn), `held` (the dice kept before each of those rolls that is a reroll;
        recorded for a turn only when known for all its rerolls), then `box` (a key, name or alias;
        `column` 1-based, needed only when the box is open in several columns) or `passed`. Without
        a box the turn stays in progress. A keep noted with `hold` is the held dice of the next reroll
        when `held` is not given. All of it is accepted, or none (KeeperError)."""
        if held is None and self.pending_keep is not None and len(rolls) == 1 and self._in_progress():
            held = [self.pending_keep]
        return self._record(copy.deepcopy(self.data), rolls, held, box, column, passed)

    def _in_progress(self) -> bool:
        turns = self.data["turns"]
        return bool(turns) and "box" not in turns[-1]

    def _record(self, data: dict[str, Any], rolls: Sequence[Sequence[int]], held: Sequence[Sequence[int]] | None,
                box: str | None, column: int | None, passed: bool) -> Entry:
        """`record` on `data` (a copy of the game, changed or not)."""
        self._playing()
        if self.game_over:
            raise KeeperError("the game is over: every sheet is full")
        turns: list[dict[str, Any]] = data["turns"]
        walk = self.walk
        in_progress = bool(turns) and "box" not in turns[-1]
        rerolls = len(rolls) - (0 if in_progress or not rolls else 1)
        if held is not None and len(held) != rerolls:
            raise KeeperError(f"{len(held)} held dice lists for {rerolls} reroll{'s' if rerolls != 1 else ''}: "
                              "give the dice kept before each reroll")
        keeps = list(held) if held is not None else [None] * rerolls
        for dice in rolls:
            faces = self._dice(dice)
            if not in_progress:
                name = self.players[walk.next_player] if walk.next_player is not None else ""
                turns.append(turn_entry(name, [faces], in_progress=True))
                in_progress = True
            else:
                turn = turns[-1]
                keep = keeps.pop(0)
                if keep is not None and (turn.get("held") is not None or len(turn["rolls"]) == 1):
                    turn["held"] = [*turn.get("held", []), [int(d) for d in keep]]
                else:
                    turn.pop("held", None)
                turn["rolls"].append(faces)
            walk, _ = self._check(data)
        if box is None and not passed:
            if not rolls:
                raise KeeperError("nothing to record: give the dice, a box, or both")
            self._commit(data, walk)
            self.pending_keep = None
            return Entry(turns[-1]["player"], tuple(turns[-1]["rolls"][-1]))
        if not in_progress:
            raise KeeperError(f"{self.next_player} has not rolled yet: give the dice first")
        turn = turns[-1]
        if passed:
            turn["box"] = None
        else:
            assert box is not None
            turn["box"], col = self._box(walk, turn, box, column)
            if col is not None:
                turn["column"] = col
        try:
            walk, steps = self._check(data)
        except KeeperError as exc:
            raise KeeperError(f"{exc}{self._legal_note(exc.code, walk)}") from None
        step = steps[-1]
        if step.option is not None:
            turn["score"] = step.option.score
            if step.option.bonus:
                turn["bonus"] = step.option.bonus
        self._commit(data, walk)
        self.pending_keep = None
        return Entry(step.name, tuple(turn["rolls"][-1]), step)

    def _box(self, walk: LogWalk, turn: Mapping[str, Any], name: str, column: int | None) -> tuple[str, int | None]:
        """The box key for a typed name, and the column to write (found when only one fits)."""
        rules = self.rules
        try:
            bi = rules.box_index(name)
        except RulesError as exc:
            raise UnknownBox(str(exc)) from None
        ncols = rules.settings.columns
        if column is not None or ncols == 1:
            if column is not None and not 1 <= column <= ncols:
                raise KeeperError(f"column {column}, but {rules.name} sheets have {ncols} column"
                                  f"{'s' if ncols != 1 else ''}")
            return rules.keys[bi], column
        ip = walk.in_progress
        assert ip is not None
        opts = roll_choices(self._position_of(walk), ip.dice).legal
        cols = sorted({o.column + 1 for o in opts if o.box == bi})
        if len(cols) == 1:
            return rules.keys[bi], cols[0]
        if not cols:
            return rules.keys[bi], 1 + next((c for c, col in enumerate(walk.players[ip.player].columns)
                                             if col.scores[bi] is None), 0)
        raise KeeperError(f"{rules.keys[bi]} is open in columns {', '.join(map(str, cols))}: say which column")

    def _position_of(self, walk: LogWalk) -> Position:
        ip = walk.in_progress
        assert ip is not None
        p = walk.players[ip.player]
        return Position(self.rules, p.name, p.columns, ip.saved, ip.dice, ip.rolls, ip.held or (), ip.rolls_used,
                        ip.rolls_left, p.turns, p.is_full)

    def _legal_note(self, code: ProblemCode, walk: LogWalk) -> str:
        """'; legal: ...' after a refused box, unless the rules' message lists them already (a box out of
        the fill order or refused by the forced joker: see rules.place)."""
        if code in _LISTS_LEGAL or walk.in_progress is None:
            return ""
        rc = roll_choices(self._position_of(walk), walk.in_progress.dice)
        return "; legal: " + ", ".join(self.option_text(o) for o in rc.legal) + (", pass" if rc.may_pass else "")

    def _label(self, key: str) -> str:
        """A box as the sheet names it (`Kleine Straße`), from its key in the log."""
        try:
            return self.rules.boxes[self.rules.box_index(key)].label
        except RulesError:
            return key

    def option_text(self, o: Any, label: bool = False) -> str:
        """A legal option and what it writes: `chance 19`, `chance/2 19` in column 2, `+100` for a
        bonus. `label`: the box's name on the sheet (`Kleine Straße`) instead of its key."""
        col = f"/{o.column + 1}" if self.rules.settings.columns > 1 else ""
        bonus = f"+{o.bonus}" if o.bonus else ""
        box = self.rules.boxes[o.box]
        return f"{box.label if label else box.key}{col} {o.score}{bonus}"

    # -- machine dice and keeps
    @property
    def dice_seed(self) -> int | None:
        """The seed of the game's machine dice (`meta.dice_stream.seed`); None before the first."""
        meta = self.data.get("meta")
        stream = meta.get(DICE_STREAM) if isinstance(meta, Mapping) else None
        seed = stream.get("seed") if isinstance(stream, Mapping) else None
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None

    def _rolling(self) -> Position:
        """The position of a player about to reroll (refused without dice showing or rolls left)."""
        self._playing()
        if self.game_over:
            raise KeeperError("the game is over: every sheet is full")
        pos = self.position()
        if pos.dice is None:
            raise KeeperError(f"{pos.player} has not rolled yet: keep names dice among those showing")
        if not pos.rolls_left:
            raise KeeperError("no rolls left: choose a box")
        return pos

    @staticmethod
    def _kept(pos: Position, keep: Sequence[int]) -> tuple[int, ...]:
        rest = list(pos.dice or ())
        for d in keep:
            if d not in rest:
                raise KeeperError(f"{' '.join(map(str, keep))} are not all among the dice showing "
                                  f"({' '.join(map(str, pos.dice or ()))})")
            rest.remove(d)
        return tuple(int(d) for d in keep)

    def hold(self, keep: Sequence[int]) -> tuple[int, ...]:
        """Note the dice kept before the next reroll (typed or rolled): recorded with that roll as the
        turn's held dice. A step of its own: `undo` takes it back first. Nothing is saved yet."""
        kept = self._kept(self._rolling(), keep)
        self.pending_keep = kept
        return kept

    def roll(self, keep: Sequence[int] | None = None, *, seed: int | None = None) -> Entry:
        """A roll thrown by the program: the first roll of the next turn, or a reroll of the dice not
        kept (`keep`, else the keep noted with `hold`, else none). The faces come from the game's
        dice stream (`stream_dice` at this turn and roll), so the same roll thrown again after an undo
        with the same dice kept shows the same dice. The stream's seed is written in the game's
        `meta.dice_stream` with the game's first machine roll: `seed`, or a random one."""
        self._playing()
        if self.game_over:
            raise KeeperError("the game is over: every sheet is full")
        data = copy.deepcopy(self.data)
        stream = self.dice_seed
        if stream is None:
            stream = seed if seed is not None else secrets.randbelow(1 << 63)
            data["meta"] = {**(data.get("meta") or {}), DICE_STREAM: {"seed": stream}}
        turns = data["turns"]
        n = self.rules.dice
        if not self._in_progress():
            if keep:
                raise KeeperError(f"{self.next_player} has not rolled yet: keep names dice among those showing")
            return self._record(data, [sorted(stream_dice(stream, len(turns), 0, n))], None, None, None, False)
        kept = self._kept(self._rolling(), keep if keep is not None else (self.pending_keep or ()))
        fresh = stream_dice(stream, len(turns) - 1, len(turns[-1]["rolls"]), n - len(kept))
        return self._record(data, [sorted([*kept, *fresh])], [kept], None, None, False)

    def undo(self) -> str:
        """Take back one step: a keep noted for the next reroll; else the box (or pass) of the last
        turn, so its player chooses again with the same dice showing; else the last roll of the turn
        in progress, with the dice kept before it (its first roll: the turn has not begun). Machine
        dice are never rerolled by an undo (see `roll`). Returns what was taken back, as a sentence."""
        self._playing()
        if self.pending_keep is not None:
            kept = self.pending_keep
            self.pending_keep = None
            return f"took back {self.position().player}'s keep {' '.join(map(str, kept)) or 'nothing'}"
        if not self.data["turns"]:
            raise KeeperError("nothing to undo: no turn has been played yet")
        data = copy.deepcopy(self.data)
        turns = data["turns"]
        last = turns[-1]
        player = last["player"]
        dice = " ".join(map(str, last["rolls"][-1]))
        if "box" in last:
            box = last.pop("box")
            score, bonus, column = last.pop("score", None), last.pop("bonus", None), last.pop("column", None)
            what = "pass" if box is None else f"{self._label(box)} {'' if score is None else score}".rstrip()
            if bonus:
                what += f"+{bonus}"
            if column is not None:
                what += f" in column {column}"
            said = f"took back {player}'s {what}: {player} chooses again for {dice}"
        else:
            last["rolls"].pop()
            held: list[int] | None = None
            if last.get("held") is not None and len(last["held"]) >= len(last["rolls"]):
                held = last["held"].pop()
            if len(last["rolls"]) == 1:  # a first roll has no held dice before it
                last.pop("held", None)
            if not last["rolls"]:
                turns.pop()
            said = f"took back {player}'s roll {dice}"
            if held is not None:
                said += f" (kept {' '.join(map(str, held)) or 'nothing'})"
        walk, _ = self._check(data)
        self._commit(data, walk)
        return said

    def set_rule(self, text: str) -> RuleChange:
        """Change a house rule (`key=value`) for the whole game and recalculate every sheet. Refused
        (RuleRefused, listing them) when moves already made are illegal under the new rule, as
        `replay --set` lists them; the change is noted in the log's `meta.rule_changes`."""
        self._playing()
        try:
            key, value = parse_setting(text)
            before = replay_game(self.data)
            after = replay_game(self.data, overrides={key: value})
        except RulesError as exc:
            raise BadRuleChange(str(exc)) from None
        except GameError as exc:
            raise KeeperError(str(exc)) from None
        if after.illegal:
            raise RuleRefused(f"{key}={setting_text(value)}", after.illegal)
        data = copy.deepcopy(self.data)
        data["rules"] = with_setting(data["rules"], key, value)
        rules = after.rules
        for turn in data["turns"]:  # scores and bonuses are re-claimed under the new rules below
            turn.pop("score", None)
            turn.pop("bonus", None)
        walk, steps = self._check(data, rules)
        for step in steps:
            if step.option is not None:
                data["turns"][step.index]["score"] = step.option.score
                if step.option.bonus:
                    data["turns"][step.index]["bonus"] = step.option.bonus
        meta = data.setdefault("meta", {})
        meta.setdefault("rule_changes", []).append({"turns_played": len(data["turns"]),
                                                    "set": {key: list(value) if isinstance(value, tuple) else value}})
        problems = check_document(data).problems
        if problems:  # pragma: no cover - the walk above accepted the same game
            raise KeeperError(str(problems[0]))
        self._commit(data, walk, rules)
        return RuleChange(key, value, before, replay_game(data))
