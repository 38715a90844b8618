"""Game logs and score sheets: the versioned JSON formats, reading them safely, and their schemas.

Two formats, both JSON objects tagged by `format`:

* ``yahtzee-log/1`` -- a game turn by turn::

    {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Anna", "Ben"],
     "turns": [{"player": "Anna", "rolls": [[1,3,3,5,6], [3,3,2,2,4], [3,3,3,2,2]],
                "held": [[3,3], [3,3,2,2]], "box": "full_house", "score": 25}]}

* ``yahtzee-sheet/1`` -- final boxes only, as on a paper sheet::

    {"format": "yahtzee-sheet/1", "rules": "yahtzee",
     "players": [{"name": "Anna", "boxes": {"ones": 3, "...": 0, "yahtzee_bonus": 100}}]}

A file holds one document (pretty-printed or not) or, as NDJSON, one document per line (a batch).
`iter_documents` reads either with flat memory, numbering games and lines, and turns every kind of
bad input (empty, binary, wrong encoding, deep nesting, huge numbers, absurdly long lines) into a
`Problem` or an `InputError` with a sentence, never a traceback.

The pydantic models here define the shape (and the published JSON Schema); every rule question
(dice, boxes, scores) is answered by `yahtzee_cli.rules`, in `yahtzee_cli.formats.validate`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Annotated, Any, Literal, TypeVar

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    StrictStr,
    Tag,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from ..errors import (
    InputError,
    MissingFile,
    ProblemCode,
    RulesError,
    error_words,
    pointer,
    validation_errors,
)
from ..limits import MAX_LINE as MAX_LINE  # the one line cap, re-exported for the readers here
from ..rules.engine import Box, RuleSet, Settings, normalize_name, rules_from_data
from ..text import decode_error_at, duplicate_key

LOG_FORMAT = "yahtzee-log/1"
SHEET_FORMAT = "yahtzee-sheet/1"
POKER_FORMAT = "poker-log/1"
FORMATS = (LOG_FORMAT, SHEET_FORMAT, POKER_FORMAT)
Kind = Literal["log", "sheet", "poker"]
KIND_OF_FORMAT: dict[str, Kind] = {LOG_FORMAT: "log", SHEET_FORMAT: "sheet", POKER_FORMAT: "poker"}
FORMAT_OF_KIND: dict[Kind, str] = {kind: fmt for fmt, kind in KIND_OF_FORMAT.items()}

MAX_DOCUMENT = 64 << 20  # largest single (pretty-printed) document read
_CHUNK = 1 << 20  # bytes read at a time while skipping an over-long line
JSON_DEPTH = 1024  # orjson's nesting limit
INT64_MAX = 2**63 - 1  # numbers in the formats are 64-bit

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a game: where (an RFC 6901 JSON Pointer into the game's document, "" for the
    whole document), what, as a sentence, and its kind (`code`, stamped where the problem is found:
    stable for scripts, whatever the sentence says)."""

    path: str
    message: str
    code: ProblemCode

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class _CodedValueError(ValueError):
    """A model validator's error that knows its problem code (pydantic keeps the exception, so
    schema_problems reads the code from it)."""

    def __init__(self, message: str, code: ProblemCode) -> None:
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------- models


def _player_name(name: str) -> str:
    """A player's name is their identity in a game: "Anna" and "Anna " must not be two players, and a
    name must not hold control or right-to-left characters that rewrite the terminal it is shown on."""
    from ..text import escape

    if name != name.strip():
        raise ValueError("a player name must not start or end with blanks")
    if escape(name) != name:
        raise ValueError(f"a player name must not hold control or formatting characters, got '{escape(name)}'")
    return name


PlayerName = Annotated[StrictStr, Field(min_length=1, max_length=200), AfterValidator(_player_name)]
Face = Annotated[StrictInt, Field(ge=1, le=6, description="a die face, 1-6")]
Dice = Annotated[list[Face], Field(description="the dice showing, one face per die (any order)")]


def _settings_patch_schema() -> dict[str, Any]:
    """The settings object of a rules reference: any of the rule set's settings, each optional."""
    schema = Settings.model_json_schema()
    props = {k: {kk: vv for kk, vv in v.items() if kk != "default"} for k, v in schema["properties"].items()}
    return {
        "type": "object",
        "description": "house-rule overrides on top of the preset's own settings",
        "properties": props,
        "additionalProperties": False,
    }


SettingsPatch = Annotated[dict[str, Any], WithJsonSchema(_settings_patch_schema())]


class PresetRules(BaseModel):
    """A preset with house-rule overrides: {"preset": "yahtzee", "settings": {"joker": "free"}}."""

    model_config = ConfigDict(extra="forbid", title="PresetRules")

    preset: StrictStr = Field(description="preset name: yahtzee, kniffel, yatzy, forced-yatzy, maxi-yatzy, "
                              "triple-yahtzee, triple-yatzy")
    settings: SettingsPatch = Field(default_factory=dict)


class CustomRules(BaseModel):
    """A custom sheet: dice count, boxes in sheet order and settings (see `yahtzee rules NAME --json`)."""

    model_config = ConfigDict(extra="forbid", title="CustomRules")

    name: StrictStr = "custom"
    dice: StrictInt = Field(5, ge=5, le=6)
    boxes: list[Box] = Field(min_length=1)
    settings: SettingsPatch = Field(default_factory=dict)


def _rules_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "name"
    if isinstance(value, dict):
        return "custom" if "boxes" in value else "preset"
    return None


RulesSpec = Annotated[
    Annotated[StrictStr, Tag("name")] | Annotated[PresetRules, Tag("preset")] | Annotated[CustomRules, Tag("custom")],
    Discriminator(
        _rules_tag,
        custom_error_type="rules_spec",
        custom_error_message="rules must be a preset name or an object with 'preset' or 'boxes'",
    ),
    Field(description="a preset name, {preset, settings}, or a custom rule set {name, dice, boxes, settings}"),
]
_RULES_TAGS = ("name", "preset", "custom")
_rules_adapter: TypeAdapter[Any] = TypeAdapter(RulesSpec)


class Turn(BaseModel):
    """One turn: who played, the dice after each roll, the dice held before each reroll, the box filled."""

    model_config = ConfigDict(extra="forbid", title="Turn")

    player: PlayerName = Field(description="a name from `players`; players take turns round-robin")
    rolls: list[Dice] = Field(
        min_length=1,
        description="the dice showing after each roll: 1 to 3 rolls (more only where saved rolls allow)",
    )
    held: list[Dice] | None = Field(
        None, description="for each reroll, the dice kept from the roll before (one list per reroll)"
    )
    column: StrictInt | None = Field(None, ge=1, le=INT64_MAX, description="1-based column, for multi-column sheets")
    box: StrictStr | None = Field(
        None,
        description="the box filled (key, name or alias, case-insensitive); null: a passed turn (must_zero off); "
        "absent on the last turn: the turn is still in progress",
    )
    score: StrictInt | None = Field(None, ge=0, le=INT64_MAX, description="the score written in the box (checked)")
    bonus: StrictInt | None = Field(None, ge=0, le=INT64_MAX,
                                    description="the extra-Yahtzee bonus the turn earned (checked)")


class GameLog(BaseModel):
    """A game turn by turn (format yahtzee-log/1). A game may be unfinished."""

    model_config = ConfigDict(extra="forbid", title="yahtzee-log/1")

    format: Literal["yahtzee-log/1"]
    rules: RulesSpec
    players: list[PlayerName] = Field(min_length=1)
    turns: list[Turn] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(None, description="free-form data (date, place, seed...), not checked")

    def to_data(self) -> dict[str, Any]:
        """The log as JSON data (fields left unset are left out, so a missing `box` stays missing)."""
        return self.model_dump(mode="json", exclude_unset=True)


BoxValues = Annotated[
    dict[str, Annotated[StrictInt, Field(ge=0, le=INT64_MAX)] | None],
    Field(
        description="box -> score (null or absent: still open). Box keys, names or aliases, case-insensitive; "
        "also yahtzee_bonus (the bonus box: points, a multiple of the extra bonus) and, optionally, the "
        "derived rows upper_sum, upper_bonus, upper_total, lower_total, grand_total, which are checked"
    ),
]


class SheetColumn(BaseModel):
    model_config = ConfigDict(extra="forbid", title="SheetColumn")

    boxes: BoxValues


class SheetPlayer(BaseModel):
    """One player's sheet: `boxes` for a one-column sheet, or `columns` (one per column of the rules)."""

    model_config = ConfigDict(extra="forbid", title="SheetPlayer")

    name: PlayerName
    boxes: BoxValues | None = None
    columns: list[SheetColumn] | None = Field(None, min_length=1)
    total: StrictInt | None = Field(None, ge=0, le=INT64_MAX,
                                    description="the player's score over all columns (checked)")

    @model_validator(mode="after")
    def _one_layout(self) -> SheetPlayer:
        if (self.boxes is None) == (self.columns is None):
            raise _CodedValueError("give either 'boxes' (a one-column sheet) or 'columns' (one entry per column)",
                                  ProblemCode.SHEET_BOTH_LAYOUTS)
        return self


class ScoreSheet(BaseModel):
    """Final boxes only, as on paper (format yahtzee-sheet/1)."""

    model_config = ConfigDict(extra="forbid", title="yahtzee-sheet/1")

    format: Literal["yahtzee-sheet/1"]
    rules: RulesSpec
    players: list[SheetPlayer] = Field(min_length=1)
    meta: dict[str, Any] | None = Field(None, description="free-form data, not checked")

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class PokerHand(BaseModel):
    """One player's hand in a round: the dice after each roll and the dice held before each reroll."""

    model_config = ConfigDict(extra="forbid", title="PokerHand")

    player: StrictStr = Field(description="a name from `players`; in each round players roll in that order")
    rolls: list[Dice] = Field(min_length=1, description="the five dice after each roll: up to three rolls")
    held: list[Dice] | None = Field(
        None, description="for each reroll, the dice kept from the roll before (one list per reroll)"
    )


class PokerRound(BaseModel):
    """One round: every player's hand; the best final hand wins the round (equal hands tie)."""

    model_config = ConfigDict(extra="forbid", title="PokerRound")

    hands: list[PokerHand] = Field(description="one hand per player; fewer on the last round: still being played")


class PokerLog(BaseModel):
    """A poker-dice match round by round (format poker-log/1): no score sheet; the best hand wins a
    round, and the first player to win the agreed number of rounds takes the match."""

    model_config = ConfigDict(extra="forbid", title="poker-log/1")

    format: Literal["poker-log/1"]
    players: list[Annotated[StrictStr, Field(min_length=1)]] = Field(min_length=1)
    wins_needed: StrictInt = Field(ge=1, le=1000, description="round wins that take the match (agreed beforehand)")
    rounds: list[PokerRound] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(None, description="free-form data (date, place...), not checked")


MODELS: dict[Kind, type[BaseModel]] = {"log": GameLog, "sheet": ScoreSheet, "poker": PokerLog}


def json_schema(kind: Kind) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a format, generated from its model."""
    model = MODELS[kind]
    fmt = FORMAT_OF_KIND[kind]
    body = model.model_json_schema()
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"urn:yahtzee-cli:schema:{fmt}",
        **body,
    }


def rules_file_schema() -> dict[str, Any]:
    """The JSON Schema of a rules file (--rules FILE): a preset name, a preset with settings, or a custom
    rule set; the read-only fields `yahtzee rules NAME --json` adds are allowed and ignored."""
    from ..rules.engine import DERIVED_BOX_FIELDS, DERIVED_RULES_FIELDS

    body = TypeAdapter(RulesSpec).json_schema()
    defs = body.get("$defs", {})
    note = {"readOnly": True, "description": "written by `yahtzee rules NAME --json`; ignored when read"}
    if "Box" in defs:
        defs["Box"]["properties"].update({k: dict(note) for k in DERIVED_BOX_FIELDS})
    if "CustomRules" in defs:
        defs["CustomRules"]["properties"].update({k: dict(note) for k in DERIVED_RULES_FIELDS})
    return {"$schema": SCHEMA_DIALECT, "$id": "urn:yahtzee-cli:schema:rules", "title": "yahtzee-cli rules file",
            **body}


# --------------------------------------------------------------------------- schema problems


def _show(value: Any, limit: int = 40) -> str:
    """A short, safe rendering of user input for messages."""
    if isinstance(value, str):
        from ..text import escape

        text = value if len(value) <= limit else value[:limit] + "..."
        return escape(orjson.dumps(text).decode())
    if isinstance(value, bool) or value is None:
        return orjson.dumps(value).decode()
    if isinstance(value, int | float):
        return repr(value)
    return type(value).__name__.replace("dict", "object").replace("list", "array")


def _schema_problem(err: Mapping[str, Any], loc: Sequence[str | int], path: str) -> Problem:
    """A pydantic error at `path` as a Problem: a sentence and its code."""
    message, code = _schema_message(err, loc)
    if path == "/wins_needed":
        code = ProblemCode.POKER_NO_WINS_NEEDED
    elif path == "/format" and code is not ProblemCode.MISSING_FIELD:
        code = ProblemCode.UNKNOWN_FORMAT
    return Problem(path, message, code)


def _schema_message(err: Mapping[str, Any], loc: Sequence[str | int]) -> tuple[str, ProblemCode]:
    """A pydantic error as a sentence and the kind of problem it is."""
    kind = err["type"]
    value = err.get("input")
    field = loc[-1] if loc else ""
    if kind == "missing":
        code = ProblemCode.MISSING_ROLLS if field == "rolls" else ProblemCode.MISSING_FIELD
        return f"missing required field {field!r}", code
    if kind == "extra_forbidden":
        return f"unknown field {field!r}", ProblemCode.UNKNOWN_FIELD
    if kind in ("int_type", "int_from_float", "int_parsing") or (kind.startswith("int") and "float" in kind):
        if isinstance(value, float) and value.is_integer() and abs(value) >= 2**63:
            return f"number {value:.6g} is too large: whole numbers must fit in 64 bits", ProblemCode.HUGE_NUMBER
        code = ProblemCode.BOOL_DIE if isinstance(value, bool) else ProblemCode.INVALID_VALUE
        return f"expected a whole number, got {_show(value)}", code
    if kind in ("greater_than_equal", "less_than_equal") and ("rolls" in loc or "held" in loc):
        return f"die face {_show(value)} is not one of 1-6", ProblemCode.BAD_FACE
    if kind == "literal_error" and field == "format":
        return (f"format {_show(value)} is not one this version reads; expected one of: {', '.join(FORMATS)}",
                ProblemCode.UNKNOWN_FORMAT)
    if kind == "string_type":
        return f"expected a string, got {_show(value)}", ProblemCode.INVALID_VALUE
    if kind == "list_type":
        return f"expected an array, got {_show(value)}", ProblemCode.INVALID_VALUE
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected an object, got {_show(value)}", ProblemCode.INVALID_VALUE
    if kind == "value_error" and err.get("ctx", {}).get("error") is not None:
        error = err["ctx"]["error"]
        return str(error), getattr(error, "code", ProblemCode.INVALID_VALUE)
    # the tool's words for the rest (never pydantic's "Input should be ...")
    return error_words(err), ProblemCode.INVALID_VALUE


def schema_problems(exc: ValidationError, prefix: Sequence[str | int] = ()) -> list[Problem]:
    """A pydantic ValidationError as Problems (pointer + sentence + code), one per error."""
    out: list[Problem] = []
    for loc, err in validation_errors(exc):
        # Drop the union tags pydantic puts in the location of the `rules` field.
        if len(loc) >= 2 and loc[0] == "rules" and loc[1] in _RULES_TAGS:
            loc = [loc[0], *loc[2:]]
        out.append(_schema_problem(err, loc, pointer([*prefix, *loc])))
    return out


def document_kind(data: Any) -> tuple[Kind | None, Problem | None]:
    """Which format a parsed document claims to be, or the problem that says it is neither."""
    if not isinstance(data, dict):
        return None, Problem("", f"a game must be a JSON object with a \"format\" field, got {_show(data)}",
                             ProblemCode.NOT_AN_OBJECT)
    fmt = data.get("format")
    if fmt is None:
        return None, Problem("/format", f"missing required field 'format'; expected one of: {', '.join(FORMATS)}",
                             ProblemCode.MISSING_FIELD)
    kind = KIND_OF_FORMAT.get(fmt) if isinstance(fmt, str) else None
    if kind is None:
        hint = ""
        if isinstance(fmt, str) and fmt.split("/")[0] in ("yahtzee-log", "yahtzee-sheet", "poker-log"):
            hint = " (a newer version of the format?)"
        return None, Problem(
            "/format",
            f"format {_show(fmt)} is not one this version reads{hint}; expected one of: {', '.join(FORMATS)}",
            ProblemCode.UNKNOWN_FORMAT)
    return kind, None


def check_schema(data: Any) -> tuple[Kind | None, list[Problem]]:
    """The format of a parsed document and its schema problems (empty when the shape is right)."""
    kind, problem = document_kind(data)
    if kind is None:
        assert problem is not None
        return None, [problem]
    try:
        MODELS[kind].model_validate(data)
    except ValidationError as exc:
        return kind, schema_problems(exc)
    return kind, []


# --------------------------------------------------------------------------- rules of a game


_RULES_CACHE: dict[tuple[bytes, bytes], RuleSet] = {}
_RULES_CACHE_MAX = 256
_RULES_BY_NAME: dict[str, RuleSet] = {}  # the common case, a bare preset name


def rules_spec_data(spec: Any) -> Any:
    """A `rules` value as plain data for `rules.rules_from_data` (models are dumped, strings kept)."""
    if isinstance(spec, BaseModel):
        return spec.model_dump(mode="json", exclude_unset=True)
    return spec


def resolve_rules(spec: Any, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The RuleSet a game's `rules` value names, with optional setting overrides (from --set).

    Cached by content, so every game of a batch shares one RuleSet (and its memoised scores).
    Raises RulesError naming the valid choices."""
    if not overrides and type(spec) is str:
        hit = _RULES_BY_NAME.get(spec)
        if hit is not None:
            return hit
    data = rules_spec_data(spec)
    try:
        key = (orjson.dumps(data, option=orjson.OPT_SORT_KEYS), orjson.dumps(dict(overrides or {}),
                                                                              option=orjson.OPT_SORT_KEYS))
    except TypeError:
        raise RulesError("rules must be a preset name or an object with 'preset' or 'boxes'") from None
    rs = _RULES_CACHE.get(key)
    if rs is None:
        if not isinstance(data, str):
            try:
                _rules_adapter.validate_python(data)
            except ValidationError as exc:
                raise RulesError("; ".join(str(p) for p in schema_problems(exc, ("rules",)))) from None
        rs = rules_from_data(data, overrides)
        if len(_RULES_CACHE) >= _RULES_CACHE_MAX:
            _RULES_CACHE.clear()
            _RULES_BY_NAME.clear()
        _RULES_CACHE[key] = rs
    if not overrides and type(spec) is str:
        _RULES_BY_NAME[spec] = rs
    return rs


def rules_problem(exc: RulesError, spec: Any) -> Problem:
    """A game's rules error as a problem: it points at the settings object when the error is in the
    settings and the game gives them, else at `rules`."""
    at_settings = exc.in_settings and isinstance(spec, dict) and "settings" in spec
    return Problem("/rules/settings" if at_settings else "/rules", str(exc), exc.code)


# --------------------------------------------------------------------------- sheet row names

YAHTZEE_BONUS = "yahtzee_bonus"
_BONUS_NAMES = frozenset(
    {"yahtzee_bonus", "yahtzee_bonuses", "bonus_yahtzee", "kniffel_bonus", "yatzy_bonus", "extra_bonus",
     "extra_yahtzee_bonus", "yahtzee_bonus_box"}
)
DERIVED_ROWS = ("upper_sum", "upper_bonus", "upper_total", "lower_total", "grand_total")
_DERIVED_NAMES = {
    "upper_sum": "upper_sum", "upper_subtotal": "upper_sum", "sum": "upper_sum",
    "upper_bonus": "upper_bonus", "bonus": "upper_bonus",
    "upper_total": "upper_total", "total_upper": "upper_total",
    "lower_total": "lower_total", "total_lower": "lower_total",
    "grand_total": "grand_total", "total": "grand_total",
}


def sheet_row(rules: RuleSet, name: str) -> tuple[Literal["box", "bonus", "derived"], int | str]:
    """What a key of a sheet's `boxes` object names: ("box", index), ("bonus", "yahtzee_bonus") or
    ("derived", "upper_sum" | "upper_bonus" | "upper_total" | "lower_total" | "grand_total").
    Box names win; raises RulesError listing the valid names."""
    try:
        return "box", rules.box_index(name)
    except RulesError:
        norm = normalize_name(name)
        if norm in _BONUS_NAMES:
            return "bonus", YAHTZEE_BONUS
        if norm in _DERIVED_NAMES:
            return "derived", _DERIVED_NAMES[norm]
        raise RulesError(
            f"unknown box {_show(name)}; valid boxes: {', '.join(rules.keys)}, {YAHTZEE_BONUS} "
            f"(and the derived rows {', '.join(DERIVED_ROWS)})", code=ProblemCode.SHEET_UNKNOWN_BOX
        ) from None


# --------------------------------------------------------------------------- reading


@dataclass(slots=True)
class Document:
    """One game read from the input: its 1-based number, the line it starts on, and the parsed JSON
    (`data`), or the `problem` that stopped it being read (syntax, encoding, size). `trusted` is True
    when the raw text holds no `true` and no decimal/exponent numbers, so every number in it is an
    int and no die can be a bool: the validator's fast path then skips per-die type checks."""

    index: int
    line: int
    data: Any = None
    problem: Problem | None = None
    trusted: bool = False
    raw: bytes | None = None  # the text of a multi-line document, to find the line of a problem

    def line_of(self, path: str) -> int:
        """The input line of the value at JSON Pointer `path` (its nearest existing ancestor): the
        document's own line for a one-line (NDJSON) document."""
        if self.raw is None or not path:
            return self.line
        return self.line + locate(self.raw, path) - 1

    def lines_of(self, path: str) -> list[int] | None:
        """The input line of each element of the array at `path` (None: every one is on the document's
        own line, as in NDJSON)."""
        if self.raw is None:
            return None
        return [self.line + n - 1 for n in element_lines(self.raw, path)]


_DOT, _BIG_E, _BACKSLASH = b".E\\"  # (ints: see _trusted)
_EXPONENT = re.compile(rb"e(?<=[0-9]e)")  # a digit then e; the literal first keeps the search fast
_E_AFTER = re.compile(rb"e(?<=[0-9u]e)")  # the same, or u then e (`true`, and names like "Sue")


def _trusted(raw: bytes) -> bool:
    """No `true` and no decimal or exponent number in the text (so every number parsed is an int and
    no die can be a bool). A name like "Rue" or "Dr. No" only costs the fast path its shortcut."""
    # (a byte as an int: `b"." in raw` first tries the needle as an int and formats a TypeError,
    # eight times the cost of the search itself)
    # (one search for both `true` and exponents; only where it finds a candidate, each on its own)
    return _DOT not in raw and _BIG_E not in raw and (
        _E_AFTER.search(raw) is None or (raw.find(b"true") < 0 and _EXPONENT.search(raw) is None))


def _bad_document(index: int, first_line: int, exc: orjson.JSONDecodeError, raw: bytes) -> Document:
    """A game that is not JSON, at the line of its error (`raw` starts on input line `first_line`):
    the problem and the place reported with it name one line."""
    line, col = decode_error_at(exc.lineno, exc.colno, raw)
    line += first_line - 1
    return Document(index, line, problem=_syntax_problem(exc.msg, line, col, raw))


def _syntax_problem(msg: str, line: int, col: int, raw: bytes) -> Problem:
    if "UTF-8" in msg or "surrogates" in msg:
        return Problem("", f"line {line} is not valid UTF-8 text; save the file as UTF-8", ProblemCode.SYNTAX_ERROR)
    if "depth limit" in msg or "recursion" in msg:
        return Problem("", f"invalid JSON at line {line}, column {col}: nested more than {JSON_DEPTH} levels deep",
                       ProblemCode.SYNTAX_ERROR)
    if "infinity" in msg:
        return Problem("", f"invalid JSON at line {line}, column {col}: number too large", ProblemCode.HUGE_NUMBER)
    if b"\x00" in raw:
        return Problem("", f"line {line} holds binary data (NUL bytes), not JSON text", ProblemCode.SYNTAX_ERROR)
    if "empty document" in msg:
        return Problem("", f"line {line}: empty document", ProblemCode.SYNTAX_ERROR)
    return Problem("", f"invalid JSON at line {line}, column {col}: {msg}", ProblemCode.SYNTAX_ERROR)


def _check_start(head: bytes) -> bytes:
    """Refuse inputs that are not UTF-8 text as a whole; strip a UTF-8 byte-order mark."""
    if head.startswith(b"\xef\xbb\xbf"):
        return head[3:]
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        raise InputError("input is UTF-32 encoded; game files must be UTF-8 (e.g. iconv -f UTF-32 -t UTF-8)")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(head) >= 4 and (head[1] == 0 or head[0] == 0)
                                                        and head[:4].count(0) == 2):
        raise InputError("input is UTF-16 encoded; game files must be UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)")
    if b"\x00" in head[:4096]:
        raise InputError("input is binary data, not JSON text")
    try:
        head[:4096].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < min(len(head), 4096) - 4:  # not just a character cut at the end of the sample
            stripped = head.lstrip()
            if not stripped.startswith((b"{", b"[")):
                raise InputError("input is binary data or not UTF-8 text; game files are UTF-8 JSON") from None
    return head


def _read_line(stream: IO[bytes], limit: int) -> tuple[bytes, bool]:
    """One line (at most `limit` bytes kept); True if it was longer (the rest is read and dropped)."""
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, False
    return _skip_rest(stream, line)


def _skip_rest(stream: IO[bytes], line: bytes) -> tuple[bytes, bool]:
    """Read and drop the rest of an over-long line, a chunk at a time (memory stays flat). Binary data
    (NUL bytes) or a line beyond MAX_DOCUMENT ends the reading with an InputError: /dev/zero and other
    endless inputs stop with a sentence instead of running forever."""
    skipped = len(line)
    chunk = line
    while True:
        if b"\x00" in chunk:
            raise InputError("input is binary data (NUL bytes), not text")
        if skipped > MAX_DOCUMENT:
            raise InputError(f"input has a line longer than {MAX_DOCUMENT >> 20} MiB; it is not text of games")
        chunk = stream.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return line[:0], True
        skipped += len(chunk)


def iter_lines(stream: IO[bytes], max_line: int = MAX_LINE) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) of every line of a stream, the number counted from 1 and a leading UTF-8
    byte-order mark dropped; None in place of a line longer than `max_line` (dropped as it is read).
    The same limits as game files, for readers of plain lines (`score -`)."""
    lineno = 0
    while True:
        line, too_long = _read_line(stream, max_line)
        if not line and not too_long:
            return
        lineno += 1
        if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        yield lineno, None if too_long else line


def _key_dropped(raw: bytes, value: Any) -> bool:
    """Whether parsing may have dropped a repeated key: every key has one colon, so fewer colons
    counted in the parsed value (its keys plus the colons inside its strings) than in the text means
    a key went (blanks before a colon, `"rules" : ...`, change nothing). An escaped character (a
    colon written \\u003a) could hide one: any backslash sends the text to the exact check (a
    one-byte search costs a third of the two-byte `\\u`)."""
    return raw.count(b":") > _colons(value) or _BACKSLASH in raw


def _colons(value: Any) -> int:
    """The colons of `value` written back as JSON (keys and colons inside strings), or fewer: counted
    from a game log's shape without writing it where it has one (_log_colons), from the value written
    back otherwise. Never more, so a repeat the written text would show is never missed; when fewer,
    duplicate_key reads the text and decides."""
    n = _log_colons(value) if type(value) is dict else None
    return _dumps(value).count(b":") if n is None else n


def _log_colons(value: dict[str, Any]) -> int | None:
    """The top object's keys, each turn's keys and the colons of meta and rules written back; None
    when `value` is not shaped so (turns not all objects: len() would not count keys; a name with a
    colon, which stands again in every turn)."""
    turns, names = value.get("turns"), value.get("players")
    if type(turns) is not list or type(names) is not list:
        return None
    for name in names:  # (a loop: a generator for any() costs more than the one name of most games)
        if type(name) is not str or ":" in name:
            return None
    if turns and set(map(type, turns)) != {dict}:
        return None
    n = len(value) + sum(map(len, turns))  # a turn's values: ints, lists of ints, names and box keys
    for key in ("meta", "rules"):
        inner = value.get(key)
        if type(inner) is dict:
            n += _dumps(inner).count(b":")
    return n


def _checked(index: int, lineno: int, value: Any, raw: bytes) -> Document:
    """A parsed document, or its problem when a key repeats within one object."""
    key = duplicate_key(raw) if _key_dropped(raw, value) else None
    if key is not None:
        from ..text import quote

        return Document(index, lineno, problem=Problem("", f"key {quote(key)} appears twice in one "
                                                           "JSON object; give each key once",
                                                       ProblemCode.INVALID_VALUE))
    return Document(index, lineno, value, trusted=_trusted(raw))


def _dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # pragma: no cover - parsed JSON always dumps
        return b""


def iter_documents(
    stream: IO[bytes], *, max_line: int = MAX_LINE, max_document: int = MAX_DOCUMENT
) -> Iterator[Document]:
    """Every game in a binary stream: one JSON document, or NDJSON (one document per line).

    NDJSON is read line by line (memory stays flat however many games there are); a bad line is a
    Document with a `problem` and the next line is read as usual. The input is NDJSON when its first
    non-blank line is a complete JSON value (or looks like one: `{...}`); otherwise the whole input is
    one pretty-printed document. Raises InputError when the input as a whole is unreadable (empty,
    binary, UTF-16/32, a single document over `max_document` bytes)."""
    lineno = 0
    first = b""
    too_long = False
    while True:
        first, too_long = _read_line(stream, max_line)
        if not first and not too_long:
            if lineno == 0:
                raise InputError("empty input: expected a yahtzee-log/1 or yahtzee-sheet/1 JSON document",
                                 code=ProblemCode.EMPTY_INPUT)
            raise InputError("input holds only blank lines: expected a JSON document", code=ProblemCode.EMPTY_INPUT)
        lineno += 1
        if lineno == 1 and not too_long:
            first = _check_start(first)
        if too_long or first.strip():
            break
    index = 0
    if too_long:
        index += 1
        yield Document(index, lineno, problem=Problem("", f"line {lineno} is longer than {max_line >> 20} MiB; "
                                                          "one game per line is at most a few KB",
                                                          ProblemCode.SYNTAX_ERROR))
    else:
        try:
            value = orjson.loads(first)
        except orjson.JSONDecodeError as exc:
            stripped = first.strip()
            if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
                yield from _whole_document(stream, first, lineno, max_document)
                return
            index += 1
            yield _bad_document(index, lineno, exc, first)
        else:
            index += 1
            yield _checked(index, lineno, value, first)
    yield from iter_ndjson(stream, lineno + 1, index + 1, max_line=max_line)


def is_ndjson(stream: IO[bytes], *, max_line: int = MAX_LINE) -> bool:
    """Whether iter_documents reads this input as NDJSON (its first non-blank line is a complete JSON
    value, looks like one, or is too long for anything else); False for a single document and for an
    input iter_documents refuses as a whole. Reads the stream up to that line."""
    lineno = 0
    try:
        while True:
            first, too_long = _read_line(stream, max_line)
            lineno += 1
            if too_long:
                return True
            if not first:
                return False
            if lineno == 1:
                first = _check_start(first)
            if first.strip():
                break
    except InputError:
        return False
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        stripped = first.strip()
        return stripped.startswith(b"{") and stripped.endswith(b"}")
    return True


def iter_ndjson(stream: IO[bytes], first_line: int, first_index: int, *,
                max_line: int = MAX_LINE) -> Iterator[Document]:
    """The games of NDJSON text read from the start of line `first_line` of an input, numbered from
    `first_index` on: the rest of iter_documents' NDJSON reading, also for a part of a big file cut
    at a line boundary (the lines and games before it counted by the caller)."""
    lineno = first_line - 1
    index = first_index - 1
    readline = stream.readline
    loads = orjson.loads
    while True:
        line = readline(max_line + 1)
        if len(line) > max_line and not line.endswith(b"\n"):
            line, too_long = _skip_rest(stream, line)
        elif not line:
            return
        else:
            too_long = False
        lineno += 1
        if too_long:
            index += 1
            yield Document(index, lineno, problem=Problem("", f"line {lineno} is longer than {max_line >> 20} MiB; "
                                                              "one game per line is at most a few KB",
                                                              ProblemCode.SYNTAX_ERROR))
            continue
        if len(line) < 64 and not line.strip():
            continue
        try:
            value = loads(line)
        except orjson.JSONDecodeError as exc:
            if not line.strip():  # a long line of blanks
                continue
            index += 1
            yield _bad_document(index, lineno, exc, line)
            continue
        index += 1
        if _key_dropped(line, value):  # fewer keys parsed than written: a repeat?
            yield _checked(index, lineno, value, line)
            continue
        yield Document(index, lineno, value, None, _trusted(line))


def _whole_document(stream: IO[bytes], first: bytes, lineno: int, max_document: int) -> Iterator[Document]:
    """The rest of an input that is not NDJSON: one pretty-printed document, or several written one
    after the other (`cat a.json b.json`), each numbered with the line it starts on."""
    rest = stream.read(max_document + 1 - len(first))
    raw = first + rest
    if len(raw) > max_document:
        raise InputError(
            f"document starting at line {lineno} is larger than {max_document >> 20} MiB; "
            "write big batches as NDJSON (one game per line)"
        )
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        pieces = split_documents(raw)
        if len(pieces) < 2:
            yield _bad_document(1, lineno, exc, raw)
            return
    else:
        yield _with_raw(_checked(1, lineno, value, raw), raw)
        return
    for index, (start, piece) in enumerate(pieces, 1):
        at = lineno + raw.count(b"\n", 0, start)
        try:
            value = orjson.loads(piece)
        except orjson.JSONDecodeError as exc:
            yield _bad_document(index, at, exc, piece)
            continue
        yield _with_raw(_checked(index, at, value, piece), piece)


def _with_raw(doc: Document, raw: bytes) -> Document:
    """A multi-line document keeps its text, so a problem can name the line of the value it is about."""
    if doc.problem is None:
        doc.raw = raw
    return doc


# a JSON string, a bracket, a comma or colon, or a run of anything else (numbers, literals, junk)
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def split_documents(raw: bytes) -> list[tuple[int, bytes]]:
    """Concatenated JSON values as (offset, text) pieces, split where the bracket depth returns to 0."""
    pieces: list[tuple[int, bytes]] = []
    depth = 0
    start: int | None = None
    for m in _TOKEN.finditer(raw):
        tok = m.group()
        if start is None:
            start = m.start()
        if tok in (b"{", b"["):
            depth += 1
        elif tok in (b"}", b"]"):
            depth -= 1
        if depth <= 0:
            pieces.append((start, raw[start:m.end()]))
            start = None
            depth = 0
    if start is not None:
        pieces.append((start, raw[start:]))
    return pieces


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _skip(tokens: list[tuple[bytes, int]], i: int) -> int:
    """Index after the value starting at token i."""
    depth = 0
    while i < len(tokens):
        tok = tokens[i][0]
        if tok in (b"{", b"["):
            depth += 1
        elif tok in (b"}", b"]"):
            depth -= 1
        i += 1
        if depth <= 0:
            return i
    return i


def _descend(tokens: list[tuple[bytes, int]], path: str) -> tuple[int, int, bool]:
    """(token index, byte offset) where the value at JSON Pointer `path` starts, or where its nearest
    existing ancestor starts, and whether the value itself was found."""
    want = [_unescape(p) for p in path.split("/")[1:]]
    best = tokens[0][1] if tokens else 0
    i = 0
    found = True
    for step in want:
        if i >= len(tokens):
            return i, best, False
        opener = tokens[i][0]
        found = False
        if opener == b"{":
            j = i + 1
            while j < len(tokens) and tokens[j][0] != b"}":
                key_tok = tokens[j][0]
                try:
                    key = orjson.loads(key_tok) if key_tok.startswith(b'"') else None
                except orjson.JSONDecodeError:
                    key = None
                j += 2  # the key and its colon
                if key == step:
                    i, found = j, True
                    break
                j = _skip(tokens, j)
                if j < len(tokens) and tokens[j][0] == b",":
                    j += 1
        elif opener == b"[" and step.isdigit():
            j, n = i + 1, 0
            while j < len(tokens) and tokens[j][0] != b"]":
                if n == int(step):
                    i, found = j, True
                    break
                j = _skip(tokens, j)
                n += 1
                if j < len(tokens) and tokens[j][0] == b",":
                    j += 1
        if not found or i >= len(tokens):
            return i, best, False
        best = tokens[i][1]
    return i, best, found


def locate(raw: bytes, path: str) -> int:
    """The 1-based line in `raw` (one JSON document) where the value at JSON Pointer `path` starts, or
    where its nearest existing ancestor starts. Only called for documents with problems."""
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(raw)]
    _, pos, _ = _descend(tokens, path)
    return raw.count(b"\n", 0, pos) + 1


def element_lines(raw: bytes, path: str) -> list[int]:
    """The 1-based line in `raw` where each element of the array at JSON Pointer `path` starts (in
    one pass: the lines of every turn of a pretty-printed game); empty when there is no such array."""
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(raw)]
    i, _, found = _descend(tokens, path)
    if not found or i >= len(tokens) or tokens[i][0] != b"[":
        return []
    lines: list[int] = []
    line, pos = 1, 0
    j = i + 1
    while j < len(tokens) and tokens[j][0] != b"]":
        at = tokens[j][1]
        line += raw.count(b"\n", pos, at)
        pos = at
        lines.append(line)
        j = _skip(tokens, j)
        if j < len(tokens) and tokens[j][0] == b",":
            j += 1
    return lines


def read_document(stream: IO[bytes]) -> Any:
    """Exactly one game from a stream (for `hint`, `score --sheet`): its parsed JSON.

    Raises InputError with a sentence for unreadable input, a JSON syntax error, or more than one game."""
    docs = iter_documents(stream)
    doc = next(docs)
    if doc.problem is not None:
        raise InputError(str(doc.problem))
    if next(docs, None) is not None:
        raise InputError("the input holds more than one game; give a file with a single game")
    return doc.data


def read_file(path: str) -> Any:
    """Exactly one game from a file path ('-' for stdin), as parsed JSON; InputError on any problem."""
    return _read_path(path, read_document)


T = TypeVar("T")


def _read_path(path: str, read: Callable[[IO[bytes]], T]) -> T:
    """`read` of the file at `path` ('-': stdin); MissingFile when there is none, InputError when it
    cannot be read."""
    import sys

    if path == "-":
        return read(sys.stdin.buffer)
    try:
        with open(path, "rb") as fh:
            return read(fh)
    except FileNotFoundError:
        raise MissingFile(path) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def is_abandoned(game: Mapping[str, Any]) -> bool:
    """Whether a game log was ended unfinished (`meta.abandoned`, written by `yahtzee log end`): kept,
    but not played on, and not counted in bests and tallies."""
    meta = game.get("meta") if type(game) is dict or isinstance(game, Mapping) else None
    return (type(meta) is dict or isinstance(meta, Mapping)) and meta.get("abandoned") is True  # (type: once a game)


def read_last_game(path: str) -> Document:
    """The last game of a file ('-' for stdin) holding one or more, as a game file that `play` and
    `log` keep does (earlier games first, the game in play last): its Document (data, line, and
    index: how many games the input holds). InputError naming the line of a game that cannot be
    read, MissingFile when there is no file."""
    name = "<stdin>" if path == "-" else path

    def last(stream: IO[bytes]) -> Document:
        doc = None
        for doc in iter_documents(stream):
            if doc.problem is not None:
                raise InputError(f"{name}:{doc.line}: game {doc.index}: {doc.problem}")
        assert doc is not None  # iter_documents raises on an input without a game
        return doc

    return _read_path(path, last)


# --------------------------------------------------------------------------- writing (simulator, tools)


def turn_entry(
    player: str,
    rolls: Sequence[Sequence[int]],
    *,
    held: Sequence[Sequence[int]] | None = None,
    box: str | None = None,
    column: int | None = None,
    score: int | None = None,
    bonus: int | None = None,
    passed: bool = False,
    in_progress: bool = False,
) -> dict[str, Any]:
    """One turn of a yahtzee-log/1 as JSON data. `box` is a box key; `column` is 1-based (give it for
    multi-column rules); `passed=True` writes `"box": null`; `in_progress=True` leaves `box` out."""
    turn: dict[str, Any] = {"player": player, "rolls": [[int(d) for d in r] for r in rolls]}
    if held is not None:
        turn["held"] = [[int(d) for d in h] for h in held]
    if column is not None:
        turn["column"] = int(column)
    if passed:
        turn["box"] = None
    elif not in_progress:
        if box is None:
            raise ValueError("a finished turn needs a box (or passed=True)")
        turn["box"] = box
    if score is not None:
        turn["score"] = int(score)
    if bonus is not None:
        turn["bonus"] = int(bonus)
    return turn


def log_document(
    rules: str | Mapping[str, Any],
    players: Sequence[str],
    turns: Sequence[Mapping[str, Any]] = (),
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A yahtzee-log/1 document as JSON data (`rules`: a preset name or {"preset", "settings"})."""
    doc: dict[str, Any] = {"format": LOG_FORMAT, "rules": rules, "players": list(players), "turns": list(turns)}
    if meta is not None:
        doc["meta"] = dict(meta)
    return doc


def dump_line(document: Mapping[str, Any] | BaseModel) -> bytes:
    """A document as one compact NDJSON line (with the newline)."""
    data = document.model_dump(mode="json", exclude_unset=True) if isinstance(document, BaseModel) else document
    return orjson.dumps(data) + b"\n"
