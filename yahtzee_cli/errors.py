"""Every error the library raises on purpose, under one base: `YahtzeeError`.

A caller catches `YahtzeeError` for "the input or the request is wrong" and lets anything else
(a bug) surface. Messages say what is wrong and what would be valid, in the library's words (never a
command-line flag); `exit_status` is what the command line exits with when one reaches it:
2 for a request that cannot be understood (a rule set, setting or dice that is not valid), 1 for a
problem found in the input (an invalid game, an illegal move, an unreadable file).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (pydantic loads only where a model is validated: `yahtzee --version` stays light)
    from pydantic import ValidationError

USAGE = 2  # exit status: the request itself is not valid
PROBLEM = 1  # exit status: a problem found in the input


class ProblemCode(StrEnum):
    """The stable, machine-readable kind of a problem found in the input (`code` in JSON and CSV).

    Scripts may rely on these: each is stamped where its problem is raised, never read back from the
    message, so a message may be reworded freely. The kinds of game problems are the names of the
    fixtures/invalid/ files (both `sheet-impossible-*` fixtures are SHEET_IMPOSSIBLE_SCORE); the README
    lists every code (tests/cli/test_contract.py checks the two agree)."""

    # a game's shape and its JSON
    SYNTAX_ERROR = "syntax-error"
    NOT_AN_OBJECT = "not-an-object"
    UNKNOWN_FORMAT = "unknown-format"
    MISSING_FIELD = "missing-field"
    MISSING_ROLLS = "missing-rolls"
    UNKNOWN_FIELD = "unknown-field"
    HUGE_NUMBER = "huge-number"
    BOOL_DIE = "bool-die"
    BAD_FACE = "bad-face"
    INVALID_VALUE = "invalid-value"
    # the rules a game names
    UNKNOWN_PRESET = "unknown-preset"
    BAD_SETTING = "bad-setting"
    # a game log, turn by turn
    DUPLICATE_PLAYER = "duplicate-player"
    UNKNOWN_PLAYER = "unknown-player"
    TURN_OUT_OF_ORDER = "turn-out-of-order"
    AFTER_GAME_OVER = "after-game-over"
    DICE_COUNT = "dice-count"
    TOO_MANY_ROLLS = "too-many-rolls"
    SAVED_ROLLS = "saved-rolls"
    HELD_COUNT = "held-count"
    HELD_NOT_IN_PREVIOUS_ROLL = "held-not-in-previous-roll"
    HELD_NOT_IN_NEXT_ROLL = "held-not-in-next-roll"
    NO_BOX_MID_GAME = "no-box-mid-game"
    UNKNOWN_BOX = "unknown-box"
    MISSING_COLUMN = "missing-column"
    COLUMN_OUT_OF_RANGE = "column-out-of-range"
    BOX_FILLED = "box-filled"
    BOX_FILLED_IN_COLUMN = "box-filled-in-column"
    FILL_IN_ORDER = "fill-in-order"
    COLUMN_FILL_DOWN = "column-fill-down"
    COLUMN_FILL_UP = "column-fill-up"
    JOKER_FORBIDDEN = "joker-forbidden"
    PASS_MUST_ZERO = "pass-must-zero"
    PASS_WHILE_SCORING = "pass-while-scoring"
    WRONG_SCORE = "wrong-score"
    WRONG_BONUS = "wrong-bonus"
    TOO_MANY_PROBLEMS = "too-many-problems"
    # a score sheet
    SHEET_BOTH_LAYOUTS = "sheet-both-layouts"
    SHEET_COLUMN_COUNT = "sheet-column-count"
    SHEET_UNKNOWN_BOX = "sheet-unknown-box"
    SHEET_DUPLICATE_BOX = "sheet-duplicate-box"
    SHEET_IMPOSSIBLE_SCORE = "sheet-impossible-score"
    SHEET_BONUS_NOT_MULTIPLE = "sheet-bonus-not-multiple"
    SHEET_BONUS_WITHOUT_YAHTZEE = "sheet-bonus-without-yahtzee"
    SHEET_BONUS_TOO_MANY = "sheet-bonus-too-many"
    SHEET_TOTAL_WRONG = "sheet-total-wrong"
    # a poker-dice match
    POKER_NO_WINS_NEEDED = "poker-no-wins-needed"
    POKER_OUT_OF_ORDER = "poker-out-of-order"
    POKER_SIX_DICE = "poker-six-dice"
    POKER_FOUR_ROLLS = "poker-four-rolls"
    POKER_HELD_NOT_IN_ROLL = "poker-held-not-in-roll"
    POKER_ROUND_UNFINISHED = "poker-round-unfinished"
    POKER_AFTER_MATCH_OVER = "poker-after-match-over"
    # an input as a whole, a game `analyze` cannot grade, and a line of `score -`
    EMPTY_INPUT = "empty-input"
    UNREADABLE = "unreadable"
    NO_GAMES = "no-games"
    NOT_GRADABLE = "not-gradable"
    BAD_DICE = "bad-dice"
    NOT_UTF8 = "not-utf8"
    LINE_TOO_LONG = "line-too-long"


def pointer(path: Sequence[str | int]) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indices (where in a document a problem is)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def validation_errors(exc: ValidationError) -> list[tuple[list[str | int], dict[str, Any]]]:
    """A pydantic ValidationError as (location, error) pairs, one per problem, without the
    `function-...` steps pydantic adds for validators; callers word the error their way."""
    out: list[tuple[list[str | int], dict[str, Any]]] = []
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        out.append((loc, dict(err)))
    return out


def _expected(ctx: Mapping[str, Any]) -> str:
    """pydantic's `expected` list ("'down', 'up' or 'free'") as plain words: down, up or free."""
    return str(ctx.get("expected", "")).replace("'", "")


def error_words(err: Mapping[str, Any]) -> str:
    """One pydantic error as the tool's own words (never "Input should be ..."): what the value must
    be. Callers add where it is (a JSON Pointer, a setting's name) and, where they know it, the value."""
    kind = str(err.get("type", ""))
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}, got {err.get('input')!r}"
    if kind == "multiple_of":
        return f"must be a multiple of {ctx.get('multiple_of')}, got {err.get('input')!r}"
    if kind in ("literal_error", "enum"):
        return f"must be {_expected(ctx)}, got {err.get('input')!r}"
    if kind.startswith("int_"):
        return f"must be a whole number, got {err.get('input')!r}"
    if kind.startswith(("float_", "finite_number")):
        return f"must be a number, got {err.get('input')!r}"
    if kind.startswith("bool_"):
        return f"must be true or false, got {err.get('input')!r}"
    if kind.startswith("string_"):
        return "must be text"
    if kind in ("list_type", "tuple_type"):
        return "must be a list"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be an object"
    if kind == "missing":
        return "is missing"
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind in ("too_short", "too_long"):
        return (f"must have {'at least' if kind == 'too_short' else 'at most'} "
                f"{ctx.get('min_length' if kind == 'too_short' else 'max_length')} items")
    if kind == "value_error" and ctx.get("error") is not None:
        return str(ctx["error"])
    msg = str(err.get("msg", "")).removeprefix("Value error, ")
    return msg[:1].lower() + msg[1:] if msg else kind.replace("_", " ")


class YahtzeeError(ValueError):
    """Base of the library's errors (a ValueError, as callers of the first releases relied on).

    `code`: the kind of problem, given where the error is raised (the class's `default_code` when not
    given); a Problem made from the error carries it."""

    exit_status: int = PROBLEM
    default_code: ProblemCode = ProblemCode.INVALID_VALUE

    def __init__(self, *args: object, code: ProblemCode | None = None, options: Sequence[str] = ()) -> None:
        super().__init__(*args)
        self.code: ProblemCode = code if code is not None else self.default_code
        self.options: tuple[str, ...] = tuple(options)

    def __str__(self) -> str:
        return self.worded(lambda key: key.replace("_", " "))

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with each option of the request it names (`{key}` in it, for each key of
        `options`) as `name(key)`: the library's words are the key itself ("rolls left"), a front end
        names its own way of giving that option (`--rolls-left`)."""
        text = super().__str__()
        for key in self.options:
            text = text.replace("{" + key + "}", name(key))
        return text


class RulesError(YahtzeeError):
    """A rule set, setting, box or dice value that is not valid; the message names the valid choices.
    `in_settings`: the fault is in the settings object of a rule set (a game's problem then points
    there)."""

    exit_status = USAGE

    def __init__(self, *args: object, code: ProblemCode | None = None, in_settings: bool = False,
                 options: Sequence[str] = ()) -> None:
        super().__init__(*args, code=code, options=options)
        self.in_settings = in_settings


class PlotUnavailable(YahtzeeError):
    """A plot that cannot be drawn here: a file type other than PNG, SVG or PDF, a missing folder, or
    matplotlib not installed (a usage error)."""

    exit_status = USAGE


class IllegalMove(YahtzeeError):
    """A move the rules forbid (box filled, out of order, joker restriction...)."""


class InputError(YahtzeeError):
    """The input as a whole cannot be read or used (missing, empty, binary, not UTF-8, the wrong kind
    of document...); the message says why."""

    default_code = ProblemCode.UNREADABLE


class MissingFile(InputError):
    """An input file named by the user that does not exist: a usage error, worded the same by every
    command (`PATH: no such file or directory`)."""

    exit_status = USAGE

    def __init__(self, path: object) -> None:
        self.path = str(path)
        super().__init__(missing_file_message(self.path))


def missing_file_message(path: object) -> str:
    """The one wording of a missing input file, whichever command or option named it."""
    return f"{path}: no such file or directory"


class MissingRulesFile(MissingFile, RulesError):
    """A rules file (`--rules FILE`) that does not exist: a missing file, worded as every other one,
    and a rules error to the callers that handle those."""


class GameError(YahtzeeError):
    """A game that is not valid: all its problems (raised by functions that need a valid game)."""

    def __init__(self, problems: Sequence[Any], line: int | None = None) -> None:
        self.problems: list[Any] = list(problems)  # formats.logs.Problem items
        self.line = line
        where = f"line {line}: " if line else ""
        first = str(self.problems[0]) if self.problems else "invalid game"
        more = f" (and {len(self.problems) - 1} more problems)" if len(self.problems) > 1 else ""
        super().__init__(f"{where}{first}{more}")


class PositionError(YahtzeeError):
    """A position that cannot be evaluated (wrong dice, full sheet, rolls left out of range)."""


class CacheError(YahtzeeError):
    """The cache directory cannot keep a table (not writable, full, an I/O error): one line naming
    the directory and the system's reason, exit 1. The store raises it for any such failure while it
    reads, builds or writes a table, so callers need no handler of their own for the cache."""

    default_code = ProblemCode.UNREADABLE


class CorruptTable(YahtzeeError):
    """A stored strategy table that is truncated, altered or not for this rule set."""


class StaleStrategy(CorruptTable):
    """A stored strategy that is whole but of a kind this version no longer plays (fitted otherwise by
    an earlier one): made again, with the message as the note."""


class UnreadableTable(CorruptTable):
    """A stored table this user may not read (another user's file in a shared cache, or an I/O error)."""


class UnusableFolder(YahtzeeError):
    """A folder of the toolbox's (the library of played games, the cache) that cannot serve: a file
    where the folder should be, a folder that cannot be read, written or made. Never taken for an
    empty folder: the message names it, where its path came from and why."""

    default_code = ProblemCode.UNREADABLE


class NotExact(YahtzeeError):
    """The rule set has no exact strategy table (several columns, saved rolls, too many states)."""


class KeeperError(YahtzeeError):
    """An entry or a game file the score keeper refuses; the message says why (one line)."""


class UnknownBox(KeeperError):
    """A box name no box of the game's rules has: a usage error where it comes from the command line."""

    exit_status = USAGE


class SaveFailed(KeeperError):
    """An entry that was legal but could not be saved (the disk full, the file or its folder no longer
    writable, the file changed by another program): the file is as it was, and the entry is not made."""


class NoGameInPlay(YahtzeeError):
    """No game file named, and the library holds no game to take in its place (a usage error: name
    the FILE, or start a game)."""

    exit_status = USAGE


class GameInProgress(KeeperError):
    """A new game refused because the game file holds a game still being played."""


class BadRuleChange(KeeperError):
    """A house-rule change that cannot be read (an unknown setting, a value it does not take): a usage
    error, nothing was changed."""

    exit_status = USAGE


class ConflictingOptions(YahtzeeError):
    """Options that cannot go together (two output formats at once): a usage error."""

    exit_status = USAGE


class RuleRefused(KeeperError):
    """A house-rule change under which moves already made would be illegal (they are listed)."""

    def __init__(self, setting: str, illegal: Sequence[Any]) -> None:
        self.illegal: list[Any] = list(illegal)  # formats.logs.Problem items
        n = len(self.illegal)
        super().__init__(f"{setting} would make {n} move{'s' if n != 1 else ''} of this game illegal; "
                         "undo them first or keep the rule")


class TooBig(YahtzeeError):
    """A rule set or a run that does not fit this machine; the message says why and what fits."""


class RiskError(YahtzeeError):
    """A risk parameter (theta) outside what the rule set's scores make meaningful; the message gives the
    valid range."""

    exit_status = USAGE


class StrategyError(YahtzeeError):
    """A strategy that cannot be loaded, or that answered with an illegal move (the message names the
    game and turn)."""


class MissingExtra(YahtzeeError):
    """An optional part of the toolbox that the request needs is not installed; the message names the
    extra to install. A usage error: nothing was done."""

    exit_status = USAGE


class SimulationError(YahtzeeError):
    """A run that cannot go ahead (backend missing, cluster unreachable); the message says what to do."""


class SchedulerError(SimulationError):
    """A --scheduler address where no Dask scheduler answers (a closed port, a silent server, another
    protocol): a usage error, found in bounded time."""

    exit_status = USAGE


class BadRequest(YahtzeeError):
    """A request that cannot be served as asked: options that do not go together, a value outside what
    the position or the rule set allows (a usage error; the message says what would be valid, naming
    the request's options as `options` says, for a front end to word them as it takes them)."""

    exit_status = USAGE


class CannotWrite(YahtzeeError):
    """An output file that cannot be written (a folder not writable, a disk full)."""


class Interrupted(YahtzeeError):
    """Long work stopped by the user (Ctrl-C); the message says what was kept. Exit status 130, a
    shell's for SIGINT."""

    exit_status = 130
