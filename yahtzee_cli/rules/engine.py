"""The rules module: the single source of truth for scoring, legality, bonuses and totals.

A rule set is data: a dice count, an ordered list of boxes (each an instance of a small set of
box kinds with parameters) and a block of house-rule settings. Every command (score, validate,
replay, hint, simulate, solve) asks this module and never re-implements a rule.

Sources: Hasbro's Yahtzee rules, the Scandinavian Yatzy sheet and its Forced/Maxi/Triple variants,
Kniffel, and the eight house-rule settings score-keeping apps offer. Where they differ, the
reading is a preset or a setting.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, Literal, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import (
    IllegalMove,
    MissingRulesFile,
    ProblemCode,
    RulesError,
    error_words,
    pointer,
    validation_errors,
)
from .preset_list import ABOUT, PRESET_ALIASES

Dice = tuple[int, ...]
BoxKind = Literal["upper", "kind", "pairs", "groups", "straight", "yahtzee", "chance"]
JokerMode = Literal["forced", "free", "off"]
FillMode = Literal["down", "up", "free"]
FACES = (1, 2, 3, 4, 5, 6)
# Bounds of a rule set, checked where it is read: a sheet is a bit mask of its boxes in a 64-bit integer,
# and a game's best total must stay small enough to count scores in a histogram.
MAX_BOXES = 60
MAX_BOX_POINTS = 10_000
MAX_MULTIPLIER = 100
MAX_SAVED_ROLLS_CAP = 60  # a cap beyond the rolls a Maxi Yatzy game can save (20 turns x 2) would be no cap
UNCAPPED = 1 << 30  # Settings.saved_cap without a cap
UNHASHED_WHEN_UNSET = ("saved_rolls_cap",)
MAX_TOTAL = 1_000_000
MAX_RULES_FILE = 1 << 20  # a rules file is a few KB; this bounds what --rules reads
# A column's fill rule as the int the legality functions take: any order, top to bottom, bottom to top.
FILL_CODES: dict[str, int] = {"free": 0, "down": 1, "up": 2}


# --------------------------------------------------------------------------- boxes


# The parameters a box may carry (None when not given), and those a kind reads without needing them.
PARAMS = ("face", "n", "sizes", "length", "start", "points")
OPTIONAL_PARAMS: dict[str, tuple[str, ...]] = {"groups": ("points",), "straight": ("start",)}


class Box(BaseModel):
    """One scoring box: a kind plus the parameters that kind takes.

    kinds and parameters:
      upper     face            sum of the dice showing `face`
      kind      n, scoring      at least n dice alike; "all" sums every die, "matching" the n alike dice
      pairs     n               n pairs of different faces; sums the paired dice
      groups    sizes, points   disjoint sets of different faces (3+2 full house, 3+3 castle, 4+2 tower);
                                fixed `points`, or the sum of the grouped dice when points is null
      straight  length, start, points   `length` faces in sequence (any start, or exactly from `start`)
      yahtzee   points          every die alike
      chance                    sum of all dice
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = ""
    kind: BoxKind
    face: int | None = Field(default=None, ge=1, le=6)
    n: int | None = Field(default=None, ge=1, le=6)
    scoring: Literal["all", "matching"] = "all"
    sizes: tuple[int, ...] | None = None
    length: int | None = Field(default=None, ge=2, le=6)
    start: int | None = Field(default=None, ge=1, le=6)
    points: int | None = Field(default=None, ge=0, le=MAX_BOX_POINTS)
    aliases: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check_params(self) -> Box:
        need: dict[str, tuple[str, ...]] = {
            "upper": ("face",),
            "kind": ("n",),
            "pairs": ("n",),
            "groups": ("sizes",),
            "straight": ("length", "points"),
            "yahtzee": ("points",),
            "chance": (),
        }
        missing = [p for p in need[self.kind] if getattr(self, p) is None]
        if missing:
            raise ValueError(f"box kind {self.kind!r} needs {', '.join(missing)}")
        # A parameter the kind never reads is a mistake in the sheet (a `face` on a lower box would be ignored).
        takes = (*need[self.kind], *OPTIONAL_PARAMS.get(self.kind, ()))
        unused = [p for p in PARAMS if p not in takes and getattr(self, p) is not None]
        if unused:
            raise ValueError(f"box kind {self.kind!r} takes no {', '.join(unused)}; it takes "
                             f"{', '.join(takes) or 'no parameters'}")
        if self.start is not None and self.length is not None and self.start + self.length > 7:
            raise ValueError(f"a straight of {self.length} from {self.start} runs past 6; start at most "
                             f"{7 - self.length}")
        if self.sizes is not None and (len(self.sizes) < 2 or min(self.sizes) < 1 or sum(self.sizes) > 6):
            raise ValueError("sizes must list at least two group sizes adding up to at most 6")
        return self

    @property
    def section(self) -> Literal["upper", "lower"]:
        return "upper" if self.kind == "upper" else "lower"

    @property
    def label(self) -> str:
        return self.name or self.key.replace("_", " ").capitalize()

    def describe(self) -> str:
        """How the box scores, in words (for `yahtzee rules NAME`)."""
        k = self.kind
        if k == "upper":
            return f"sum of the dice showing {self.face}"
        if k == "kind":
            what = "all dice" if self.scoring == "all" else f"the {self.n} matching dice"
            return f"at least {self.n} alike: sum of {what}"
        if k == "pairs":
            return f"{self.n} pairs of different faces: sum of the paired dice"
        if k == "groups":
            shape = "+".join(str(s) for s in self.sizes or ())
            value = f"{self.points} points" if self.points is not None else "sum of those dice"
            return f"{shape} alike, different faces: {value}"
        if k == "straight":
            if self.start is not None:
                run = "-".join(str(f) for f in range(self.start, self.start + (self.length or 0)))
                return f"exactly {run}: {self.points} points"
            return f"any {self.length} in sequence: {self.points} points"
        if k == "yahtzee":
            return f"all dice alike: {self.points} points"
        return "sum of all dice"


def _counts(dice: Dice) -> list[int]:
    c = [0] * 7
    for d in dice:
        c[d] += 1
    return c


def _groups_score(box: Box, c: list[int]) -> int:
    sizes = box.sizes or ()
    # only faces that can fill the smallest group can fill any (few: this runs for every roll)
    least = min(sizes, default=0)
    candidates = [f for f in FACES if c[f] >= least]
    if len(candidates) < len(sizes):  # each group needs a face of its own: most rolls stop here
        return 0
    best = -1
    for faces in itertools.permutations(candidates, len(sizes)):
        if all(c[f] >= s for f, s in zip(faces, sizes, strict=True)):
            best = max(best, sum(f * s for f, s in zip(faces, sizes, strict=True)))
    if best < 0:
        return 0
    return box.points if box.points is not None else best


def natural_score(box: Box, dice: Dice) -> int:
    """What `dice` scores in `box` on its own merits (no joker)."""
    return _box_scores(box, [(dice, _counts(dice))])[0]


def _box_scores(box: Box, rolls_: Sequence[tuple[Dice, list[int]]]) -> list[int]:
    """natural_score of each roll (its dice and face counts, _counts) in one box: the kind's branch is
    taken once for a whole table of rolls (a hint's first position scores 252 rolls in every box)."""
    k = box.kind
    if k == "upper":
        face = box.face
        assert face is not None
        return [face * c[face] for _, c in rolls_]
    if k == "chance":
        return [sum(dice) for dice, _ in rolls_]
    if k == "kind":
        n = box.n
        assert n is not None
        if box.scoring == "all":  # the dice's sum when some face shows n times (max: C speed)
            return [sum(dice) if max(c) >= n else 0 for dice, c in rolls_]
        return [n * max((f for f in FACES if c[f] >= n), default=0) for _, c in rolls_]
    if k == "pairs":
        n = box.n
        assert n is not None
        out = []
        for _, c in rolls_:
            paired = [f for f in FACES if c[f] >= 2]
            out.append(2 * sum(paired[-n:]) if len(paired) >= n else 0)
        return out
    if k == "groups":
        return [_groups_score(box, c) for _, c in rolls_]
    if k == "straight":
        length, points = box.length, box.points
        assert length is not None and points is not None
        starts = [box.start] if box.start is not None else range(1, 8 - length)
        runs = [set(range(s, s + length)) for s in starts if s + length <= 7]
        return [points if any(run <= faces for run in runs) else 0 for faces in (set(dice) for dice, _ in rolls_)]
    # yahtzee
    points = box.points
    assert points is not None
    return [points if len(dice) and c[dice[0]] == len(dice) else 0 for dice, c in rolls_]


def joker_value(box: Box, dice: Dice) -> int:
    """What a joker (an extra Yahtzee allowed to stand in for any shape) scores in `box`:
    the full value of fixed-value boxes (FH 25, SS 30, LS 40), the natural score elsewhere."""
    if box.kind in ("groups", "straight"):
        return box.points if box.points is not None else sum(dice)
    return natural_score(box, dice)


# --------------------------------------------------------------------------- settings

# The usual spellings of an on/off setting ("Joker rules: on or off"), for --set and rules files alike.
ON_WORDS = ("on", "true", "yes", "1")
OFF_WORDS = ("off", "false", "no", "0")


def _on_off(value: Any) -> bool | None:
    """True/False for an on/off spelling (or a JSON bool), None for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and not value.isprintable():  # ("\r0" is not "0": strip() would hide it)
        return None
    low = str(value).strip().lower()
    return True if low in ON_WORDS else False if low in OFF_WORDS else None


class Settings(BaseModel):
    """House-rule settings (the eight players argue about, plus column multipliers, saved rolls and
    per-column fill rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    upper_bonus_threshold: int = Field(63, ge=0, le=105)
    upper_bonus: int = Field(35, ge=0, le=100, multiple_of=5)
    extra_yahtzee_bonus: int = Field(100, ge=0, le=200, multiple_of=25)
    joker: JokerMode = "forced"
    fill_in_order: bool = False
    must_zero: bool = True
    columns: int = Field(1, ge=1, le=6)
    add_columns: bool = True
    column_multipliers: tuple[int, ...] | None = None
    saved_rolls: bool = False
    column_fill: tuple[FillMode, ...] | None = None
    # Rolls a player may hold in stock (None: no cap); rolls saved beyond the cap are lost.
    saved_rolls_cap: int | None = Field(None, ge=0, le=MAX_SAVED_ROLLS_CAP)

    @field_validator("joker", mode="before")
    @classmethod
    def _joker_on_off(cls, value: Any) -> Any:
        """Joker rules "on" is the official (forced) joker; "off" in any spelling is off."""
        on = _on_off(value)
        if on is None:
            return value.strip().lower() if isinstance(value, str) and value.isprintable() else value
        return "forced" if on else "off"

    @field_validator("column_fill", mode="before")
    @classmethod
    def _fill_list(cls, value: Any) -> Any:
        if isinstance(value, str) and value.isprintable():
            return tuple(p.strip().lower() for p in value.replace(" ", ",").split(",") if p.strip())
        return value

    @model_validator(mode="after")
    def _check_multipliers(self) -> Settings:
        m = self.column_multipliers
        if m is not None and (len(m) != self.columns or min(m) < 1 or max(m) > MAX_MULTIPLIER):
            raise ValueError(
                f"column_multipliers: needs {self.columns} whole number{'s' if self.columns > 1 else ''} from 1 to "
                f"{MAX_MULTIPLIER} "
                f"(one per column), got {list(m)}"
            )
        f = self.column_fill
        if f is not None and len(f) not in (1, self.columns):
            raise ValueError(f"column_fill needs one of down, up, free per column ({self.columns}), or one for "
                             f"every column, got {','.join(f)}")
        if f is not None and self.fill_in_order and set(f) != {"down"}:
            raise ValueError("fill_in_order=on means every column down; give column_fill alone")
        if self.saved_rolls_cap is not None and not self.saved_rolls:
            raise ValueError("saved_rolls_cap needs saved_rolls=on (without saved rolls there is nothing to cap)")
        return self

    @property
    def saved_cap(self) -> int:
        """The most rolls a player may hold in stock (UNCAPPED when saved_rolls_cap is unset)."""
        return UNCAPPED if self.saved_rolls_cap is None else self.saved_rolls_cap

    @property
    def multipliers(self) -> tuple[int, ...]:
        return self.column_multipliers or (1,) * self.columns

    @cached_property
    def fills(self) -> tuple[FillMode, ...]:
        """Each column's fill rule: down (top to bottom), up (bottom to top) or free (any order);
        fill_in_order=on is the shorthand for every column down."""
        f = self.column_fill
        if f is None:
            return ("down" if self.fill_in_order else "free",) * self.columns
        return f * self.columns if len(f) == 1 else f

    @cached_property  # asked for every box of every roll a turn values
    def fill_codes(self) -> tuple[int, ...]:
        """`fills` as the ints the legality functions (and the compiled kernels) take."""
        return tuple(FILL_CODES[f] for f in self.fills)


SETTING_NAMES = tuple(Settings.model_fields)
MANY_VALUES = 25  # a whole-number setting with more values than this offers the presets' ones first


def setting_values(key: str, typed: str = "") -> list[str]:
    """The values setting `key` takes that begin with `typed`, for shell completion: on/off, the
    joker modes, a column's fill rule (after the columns already given: `down,u` -> `down,up`), the
    whole numbers its range and step allow (for a wide range, the presets' values unless `typed`
    narrows it to a few); none for a free list (column_multipliers) or an unknown key."""
    field = Settings.model_fields.get(key.replace("-", "_"))
    if field is None:
        return []
    annotation = str(field.annotation)
    if key == "column_fill":
        done, _, last = typed.rpartition(",")
        return [f"{done},{f}" if done else f for f in ("down", "up", "free") if f.startswith(last)]
    if key == "joker":
        options: list[str] = ["forced", "free", "off"]
    elif "bool" in annotation:
        options = ["on", "off"]
    elif field.annotation is int:
        bounds = {type(m).__name__: m for m in field.metadata}
        low, high = getattr(bounds.get("Ge"), "ge", 0), getattr(bounds.get("Le"), "le", 0)
        step = getattr(bounds.get("MultipleOf"), "multiple_of", 1)
        options = [str(v) for v in range(low, high + 1, step) if str(v).startswith(typed)]
        if len(options) > MANY_VALUES:
            used = {field.default, *(p.get("settings", {}).get(key) for p in PRESETS.values())}
            options = [str(v) for v in sorted(v for v in used if isinstance(v, int))]
    else:
        return []
    return [v for v in options if v.startswith(typed)]


# --------------------------------------------------------------------------- rule sets


class RuleSet(BaseModel):
    """A complete rule set: dice, boxes in sheet order, settings."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = "custom"
    dice: int = Field(5, ge=5, le=6)
    boxes: tuple[Box, ...]
    settings: Settings = Settings.model_construct()  # the defaults (valid): no validator built at import

    @model_validator(mode="after")
    def _check_boxes(self) -> RuleSet:
        from ..text import escape

        for label in (self.name, *(b.name for b in self.boxes)):
            if escape(label) != label:
                raise ValueError(f"names must not hold control or formatting characters, got '{escape(label)}'")
        keys = [b.key for b in self.boxes]
        if len(set(keys)) != len(keys):
            raise ValueError("box keys must be unique")
        if not self.boxes:
            raise ValueError("a rule set needs at least one box")
        if len(self.boxes) > MAX_BOXES:
            raise ValueError(f"a rule set has at most {MAX_BOXES} boxes, got {len(self.boxes)}")
        if self.score_bound > MAX_TOTAL:
            raise ValueError(f"a game could score up to {self.score_bound:,} points; rule sets are limited to "
                             f"{MAX_TOTAL:,} (fewer boxes, smaller points or multipliers)")
        return self

    @property
    def score_bound(self) -> int:
        """A quick upper bound of a sheet's total (every box at its most plus every bonus), for the limits."""
        s = self.settings
        most = 6 * self.dice
        column = sum(max(b.points or 0, most) + s.extra_yahtzee_bonus for b in self.boxes) + s.upper_bonus
        mult = s.multipliers
        return column * (sum(mult) if s.add_columns else max(mult))

    # -- lookups (cached: a RuleSet is immutable)
    @cached_property
    def keys(self) -> tuple[str, ...]:
        return tuple(b.key for b in self.boxes)

    @cached_property
    def upper_indices(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.boxes) if b.kind == "upper")

    @cached_property
    def lower_indices(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.boxes) if b.kind != "upper")

    @cached_property
    def upper_index_by_face(self) -> dict[int, int]:
        return {b.face: i for i, b in enumerate(self.boxes) if b.kind == "upper" and b.face is not None}

    @cached_property
    def lower_bits(self) -> int:
        return sum(1 << i for i in self.lower_indices)

    @cached_property
    def yahtzee_index(self) -> int | None:
        """The box whose full value makes later Yahtzees extra ones (the first `yahtzee` box)."""
        return next((i for i, b in enumerate(self.boxes) if b.kind == "yahtzee"), None)

    @cached_property
    def _lookup(self) -> dict[str, int]:
        table: dict[str, int] = {}
        for i, b in enumerate(self.boxes):
            for alias in (*b.aliases, b.name, b.key):
                if alias:
                    table.setdefault(normalize_name(alias), i)
        for i, b in enumerate(self.boxes):  # canonical keys and names win over aliases
            table[normalize_name(b.key)] = i
        return table

    def box_index(self, name: str) -> int:
        """Index of a box by key, display name or alias (case-insensitive)."""
        i = self._lookup.get(normalize_name(name))
        if i is None:
            from ..text import did_you_mean

            raise RulesError(f"unknown box {name!r}{did_you_mean(name, self.keys)}; "
                             f"valid boxes: {', '.join(self.keys)}", code=ProblemCode.UNKNOWN_BOX)
        return i

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_defaults=False)

    @cached_property
    def house_rules(self) -> tuple[str, ...] | None:
        """The settings that differ from the preset of this name, as `key=value`; None for rules of
        their own (no preset of the name, or other boxes or dice)."""
        if self.name not in preset_names():
            return None
        base = preset(self.name)
        if base.boxes != self.boxes or base.dice != self.dice:
            return None
        return tuple(f"{key}={setting_text(getattr(self.settings, key, None))}" for key in SETTING_NAMES
                     if getattr(self.settings, key, None) != getattr(base.settings, key, None))

    @property
    def label(self) -> str:
        """The rule set as people name it: the preset's name, with the house rules that differ from it
        ("yahtzee + joker=free"), or "custom: NAME" for boxes of its own."""
        changed = self.house_rules
        if changed is None:
            return f"custom: {self.name}"
        return f"{self.name} + {', '.join(changed)}" if changed else self.name

    @property
    def title(self) -> str:
        """The label within a sentence ("building the yahtzee + joker=free strategy table"): a custom
        rule set by its name alone."""
        return self.name if self.house_rules is None else self.label

    def record(self) -> dict[str, Any]:
        """The `rules` object of every JSON output: the name, every setting's effective value (house
        rules and --set overrides included) and the fingerprint of everything that changes play."""
        return {"name": self.name, "settings": self.settings.model_dump(mode="json"), "fingerprint": self.fingerprint}

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of everything that changes play (names and aliases excluded)."""
        import hashlib  # (OpenSSL loads only for commands that need a fingerprint)

        # The fields as model_dump(mode="json") gives them (orjson writes tuples as arrays), read
        # directly so a preset's fingerprint builds no serializer.
        unhashed = ("key", "name", "aliases")
        payload = {
            "dice": self.dice,
            "boxes": [{f: getattr(b, f) for f in Box.model_fields if f not in unhashed} for b in self.boxes],
            # a setting added later is hashed only when set, so every table cached before it stays valid
            "settings": {f: getattr(self.settings, f) for f in Settings.model_fields
                         if not (f in UNHASHED_WHEN_UNSET and getattr(self.settings, f) is None)},
        }
        return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]

    # -- rolls and scores
    def check_dice(self, dice: Iterable[int]) -> Dice:
        """Sorted dice, or RulesError naming what would be valid."""
        out = tuple(sorted(dice))
        if len(out) != self.dice:
            raise RulesError(f"{self.name} needs {self.dice} dice, got {len(out)}")
        bad = [d for d in out if not 1 <= d <= 6]
        if bad:
            raise RulesError(f"dice faces must be 1-6, got {bad[0]}")
        return out

    @cached_property
    def _score_table(self) -> dict[Dice, tuple[int, ...]]:
        """Every roll's natural scores, box by box: made once, at the first roll asked (there are only
        252 or 462 rolls, and scoring them box by box costs about what a few dozen one at a time do)."""
        table = [(dice, _counts(dice)) for dice in rolls(self.dice)]
        by_box = [_box_scores(b, table) for b in self.boxes]
        return dict(zip((dice for dice, _ in table), zip(*by_box, strict=True), strict=True))

    def natural_scores(self, dice: Dice) -> tuple[int, ...]:
        """Every box's natural score for sorted `dice` (a roll of the rules' dice count; others are
        scored on their own)."""
        got = self._score_table.get(dice)
        if got is None:
            c = _counts(dice)
            return tuple(_box_scores(b, [(dice, c)])[0] for b in self.boxes)
        return got

    def is_yahtzee(self, dice: Dice) -> bool:
        return len(dice) == self.dice and len(set(dice)) == 1

    @cached_property
    def theoretical_max(self) -> int:
        """The highest grand total the rules allow: the best game found by a search over the rules
        (1575 for yahtzee, 374 for yatzy, 475 for yahtzee filled in order). See `best_column`."""
        s = self.settings
        best = {code: best_column(self, code) for code in set(s.fill_codes)}
        return weighted_total([best[code] for code in s.fill_codes], s.multipliers, s.add_columns)


SEARCH_BOXES = 16  # columns of more boxes filled in any order take the shortcut in best_column


def best_column(rules: RuleSet, fill: int) -> int:
    """The best total of one column filled by rule `fill` (FILL_CODES): a search over the order in
    which the boxes are filled, every turn free to roll any dice, each move scored and allowed by the
    rules' own functions (legal_bits, joker_now, joker_full_value, extra_bonus_points).

    Two facts keep the search small, both from the rules themselves:
    * an upper box's best roll is all dice on its face, which is always allowed there (the forced
      joker even sends it there) and scores at least as much as anything else (bonus included), so
      every best game fills the upper boxes with their maxima and the upper bonus is known up front;
    * the Yahtzee box is best filled with its points (a 0 would give the same jokers and no bonus),
      so a column's state is its set of filled boxes alone.
    Without a Yahtzee box, or with neither jokers nor extra bonuses, no box's value depends on the
    others and the search reduces to adding each box's maximum."""
    s = rules.settings
    all_rolls = list(rolls(rules.dice))
    nb = len(rules.boxes)
    nat_all = [max(natural_score(b, r) for r in all_rolls) for b in rules.boxes]
    upper = sum(nat_all[i] for i in rules.upper_indices)
    bonus = upper_bonus_points(upper, s.upper_bonus_threshold, s.upper_bonus)
    y = rules.yahtzee_index
    code = JOKER_CODES[s.joker]
    if y is None or (code == 0 and s.extra_yahtzee_bonus == 0):
        return sum(nat_all) + bonus
    ybit = 1 << y
    yfull = rules.boxes[y].points == max(natural_score(rules.boxes[y], r) for r in all_rolls)
    extra = extra_bonus_points(True, yfull, s.extra_yahtzee_bonus)
    nat_other = [max((natural_score(b, r) for r in all_rolls if len(set(r)) > 1), default=0) for b in rules.boxes]
    faces = []  # per face: own upper box bit, natural and joker value of all dice on that face in each box
    for f in FACES:
        roll = (f,) * rules.dice
        own = rules.upper_index_by_face.get(f)
        faces.append((0 if own is None else 1 << own, [natural_score(b, roll) for b in rules.boxes],
                      [joker_value(b, roll) for b in rules.boxes]))
    full = (1 << nb) - 1
    forced = code == JOKER_CODES["forced"]

    def gains(mask: int) -> dict[int, int]:
        """The most each box may take on a turn starting with boxes `mask` filled."""
        open_ = full & ~mask
        yfilled = bool(mask & ybit)
        out: dict[int, int] = {}
        legal = legal_bits(open_, fill, False, 0, rules.lower_bits)
        for b in range(nb):
            if legal >> b & 1:
                out[b] = nat_other[b] if yfilled else nat_all[b]
        if yfilled:
            for own, nat, jok in faces:
                jk = joker_now(code, True, True, True)
                legal = legal_bits(open_, fill, jk and forced, own, rules.lower_bits)
                as_joker = joker_full_value(jk, open_, own)
                for b in range(nb):
                    if legal >> b & 1:
                        out[b] = max(out.get(b, 0), (jok[b] if as_joker else nat[b]) + extra)
        return out

    if fill == 0 and nb > SEARCH_BOXES:
        # Too many orders to search (Maxi with jokers switched on). Filled in any order, one order
        # gives every box the most it can ever take: the Yahtzee box first (gains(m) only grows once
        # it is filled), then each upper box with its own face, then each lower box, its own upper box
        # being filled (the joker's full value). tests/test_rules.py checks it against the search.
        upper_bits = sum(1 << i for i in rules.upper_indices)
        after_y, after_upper = gains(ybit), gains(ybit | upper_bits)
        return (nat_all[y] + bonus + sum(after_y[i] for i in rules.upper_indices)
                + sum(after_upper[i] for i in rules.lower_indices if i != y))
    # value[mask]: the most the still-open boxes can add; masks by decreasing popcount.
    value: dict[int, int] = {full: 0}
    frontier = {0}
    layers = [frontier]
    for _ in range(nb):  # the masks reachable from the empty column, layer by layer
        nxt: set[int] = set()
        for m in frontier:
            open_ = full & ~m
            # (a joker never widens this: the forced joker's boxes are among the open ones, and the
            # down and up rules ignore it)
            legal = legal_bits(open_, fill, False, 0, rules.lower_bits)
            nxt.update(m | 1 << b for b in range(nb) if legal >> b & 1)
        layers.append(nxt)
        frontier = nxt
    for layer in reversed(layers[:-1]):
        for m in layer:
            value[m] = max(g + value[m | 1 << b] for b, g in gains(m).items())
    return value[0] + bonus


def normalize_name(name: str) -> str:
    """Case-, accent- and separator-insensitive form of a box or preset name ("Große Straße" -> grosse_strasse)."""
    text = name.casefold()
    if not text.isascii():  # (ASCII has no accents to strip: most names skip the import)
        import unicodedata

        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    out = []
    for ch in text:
        out.append(ch if ch.isalnum() else "_")
    return "_".join(p for p in "".join(out).split("_") if p)


def rolls(n: int) -> Iterable[Dice]:
    """Every distinct roll of n dice, sorted (252 for five, 462 for six)."""
    return itertools.combinations_with_replacement(FACES, n)


# --------------------------------------------------------------------------- presets


def _box(**fields: Any) -> Box:
    """A preset's box, built without validation: presets are trusted data (the tests validate every
    one), and skipping it keeps the validators unbuilt for commands that never validate a rule set."""
    return Box.model_construct(**fields)


def _upper(names: Sequence[str], aliases: Sequence[Sequence[str]] = ()) -> list[Box]:
    keys = ("ones", "twos", "threes", "fours", "fives", "sixes")
    extra = list(aliases) or [()] * 6
    return [
        _box(key=k, name=n, kind="upper", face=f, aliases=(f"{f}s", *a))
        for f, k, n, a in zip(FACES, keys, names, extra, strict=True)
    ]


_EN_UPPER = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes")
_HASBRO_UPPER = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes")
_DE_UPPER = ("Einser", "Zweier", "Dreier", "Vierer", "Fünfer", "Sechser")
_UPPER_ALIASES = (
    ("aces", "ace", "einser"),
    ("zweier",),
    ("dreier",),
    ("vierer",),
    ("fuenfer", "fünfer"),
    ("sechser",),
)


@cache  # presets sharing a sheet share its (frozen) boxes: fewer built at import
def _yahtzee_boxes(german: bool = False) -> tuple[Box, ...]:
    n = (
        ("Dreierpasch", "Viererpasch", "Full House", "Kleine Straße", "Große Straße", "Kniffel", "Chance")
        if german
        else ("3 of a kind", "4 of a kind", "Full house", "Sm straight", "Lg straight", "Yahtzee", "Chance")
    )
    upper = _upper(_DE_UPPER if german else _HASBRO_UPPER, _UPPER_ALIASES)
    lower = [
        _box(key="three_of_a_kind", name=n[0], kind="kind", n=3, scoring="all",
            aliases=("3k", "3oak", "3x", "three_kind", "dreierpasch", "Three of a kind")),
        _box(key="four_of_a_kind", name=n[1], kind="kind", n=4, scoring="all",
            aliases=("4k", "4oak", "4x", "four_kind", "viererpasch", "Four of a kind")),
        _box(key="full_house", name=n[2], kind="groups", sizes=(3, 2), points=25, aliases=("fh", "house")),
        _box(key="small_straight", name=n[3], kind="straight", length=4, points=30,
            aliases=("ss", "sm_straight", "small", "kleine_strasse", "kl_strasse", "Small straight")),
        _box(key="large_straight", name=n[4], kind="straight", length=5, points=40,
            aliases=("ls", "lg_straight", "large", "grosse_strasse", "gr_strasse", "Large straight")),
        _box(key="yahtzee", name=n[5], kind="yahtzee", points=50,
            aliases=("kniffel", "yatzy", "yacht", "five_of_a_kind", "5k")),
        _box(key="chance", name=n[6], kind="chance", aliases=("ch",)),
    ]
    return tuple(upper + lower)


def _scandinavian_top() -> list[Box]:
    """The upper section, one pair and two pairs: how Yatzy and Maxi Yatzy sheets both begin."""
    return _upper(_EN_UPPER, _UPPER_ALIASES) + [
        _box(key="one_pair", name="One pair", kind="kind", n=2, scoring="matching", aliases=("pair", "1p")),
        _box(key="two_pairs", name="Two pairs", kind="pairs", n=2, aliases=("two_pair", "2p")),
    ]


def _of_a_kind(aliases: dict[int, tuple[str, ...]]) -> list[Box]:
    """Scandinavian n-of-a-kind boxes (n: their aliases), scoring the n matching dice."""
    words = {3: "three", 4: "four", 5: "five"}
    return [_box(key=f"{words[n]}_of_a_kind", name=f"{words[n].capitalize()} of a kind", kind="kind", n=n,
                 scoring="matching", aliases=a) for n, a in aliases.items()]


@cache  # presets sharing a sheet share its (frozen) boxes: fewer built at import
def _yatzy_boxes() -> tuple[Box, ...]:
    return tuple(
        _scandinavian_top()
        + [
            *_of_a_kind({3: ("3k", "3oak"), 4: ("4k", "4oak")}),
            _box(key="small_straight", name="Small straight", kind="straight", length=5, start=1, points=15,
                aliases=("ss", "small")),
            _box(key="large_straight", name="Large straight", kind="straight", length=5, start=2, points=20,
                aliases=("ls", "large")),
            _box(key="full_house", name="Full house", kind="groups", sizes=(3, 2), aliases=("fh", "house")),
            _box(key="chance", name="Chance", kind="chance"),
            _box(key="yatzy", name="Yatzy", kind="yahtzee", points=50, aliases=("yahtzee", "5k")),
        ]
    )


@cache  # presets sharing a sheet share its (frozen) boxes: fewer built at import
def _maxi_boxes() -> tuple[Box, ...]:
    # Order and scoring of common Scandinavian Maxi Yatzy sheets: pair/kind boxes count only the
    # matching dice; full house is a 3+2 scoring those five dice (the sixth die does not count);
    # castle (3+3) and tower (4+2) use all six dice.
    return tuple(
        _scandinavian_top()
        + [
            _box(key="three_pairs", name="Three pairs", kind="pairs", n=3, aliases=("3p",)),
            *_of_a_kind({3: ("3k",), 4: ("4k",), 5: ("5k",)}),
            _box(key="small_straight", name="Small straight", kind="straight", length=5, start=1, points=15,
                aliases=("ss",)),
            _box(key="large_straight", name="Large straight", kind="straight", length=5, start=2, points=20,
                aliases=("ls",)),
            _box(key="full_straight", name="Full straight", kind="straight", length=6, start=1, points=21,
                aliases=("fs",)),
            _box(key="full_house", name="Full house", kind="groups", sizes=(3, 2), aliases=("fh", "house")),
            _box(key="castle", name="Castle", kind="groups", sizes=(3, 3), aliases=("villa",)),
            _box(key="tower", name="Tower", kind="groups", sizes=(4, 2), aliases=("torn",)),
            _box(key="chance", name="Chance", kind="chance"),
            _box(key="maxi_yatzy", name="Maxi Yatzy", kind="yahtzee", points=100, aliases=("yatzy", "maxi")),
        ]
    )


_YATZY_SETTINGS = {"upper_bonus": 50, "extra_yahtzee_bonus": 0, "joker": "off"}

PRESETS: dict[str, dict[str, Any]] = {
    "yahtzee": {"boxes": _yahtzee_boxes(), "settings": {}},
    "kniffel": {"boxes": _yahtzee_boxes(german=True), "settings": {}},
    "yatzy": {"boxes": _yatzy_boxes(), "settings": _YATZY_SETTINGS},
    "forced-yatzy": {"boxes": _yatzy_boxes(),
                     "settings": {**_YATZY_SETTINGS, "fill_in_order": True, "upper_bonus_threshold": 42}},
    "maxi-yatzy": {"boxes": _maxi_boxes(), "dice": 6,
                   "settings": {**_YATZY_SETTINGS, "upper_bonus_threshold": 84, "upper_bonus": 100,
                                "saved_rolls": True}},
    "triple-yahtzee": {"boxes": _yahtzee_boxes(),
                       "settings": {"columns": 3, "column_multipliers": (1, 2, 3)}},
    "triple-yatzy": {"boxes": _yatzy_boxes(),
                     "settings": {**_YATZY_SETTINGS, "columns": 3, "column_multipliers": (1, 2, 3)}},
}
for _name in PRESETS:  # each preset's line, kept apart so `yahtzee rules` lists them without the models
    PRESETS[_name]["about"] = ABOUT[_name]
DEFAULT_PRESET = "yahtzee"

# Named by the rules as a common variant, with no rules given.
NAMED_WITHOUT_RULES = ("giant-yatzy",)


def _invalid(what: str, exc: ValidationError, *, by_key: bool = False, code: ProblemCode | None = None,
             in_settings: bool = False) -> RulesError:
    """A pydantic error in a rule set or its settings as one RulesError: `what /pointer: message; ...`,
    or with `by_key` (settings) `what key: message; ...` (a check across settings names its setting
    in the message itself)."""
    parts = []
    for loc, err in validation_errors(exc):
        where = ".".join(map(str, loc)) if by_key else pointer(loc) or "/"
        msg = error_words(err)
        parts.append(f"{where}: {msg}" if where else msg)
    return RulesError(f"{what} " + "; ".join(parts), code=code, in_settings=in_settings)


def _unknown_setting(key: str) -> str:
    from ..text import did_you_mean

    return f"unknown setting {key!r}{did_you_mean(key, SETTING_NAMES)}; valid settings: {', '.join(SETTING_NAMES)}"


def make_settings(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> Settings:
    unknown = [k for k in overrides if k not in SETTING_NAMES]
    if unknown:
        raise RulesError(_unknown_setting(unknown[0]), code=ProblemCode.BAD_SETTING, in_settings=True)
    merged = {**base, **overrides}
    # Changing the column count drops preset multipliers that no longer fit, unless given too.
    if "columns" in overrides and "column_multipliers" not in overrides:
        mult = merged.get("column_multipliers")
        if mult is not None and len(mult) != merged["columns"]:
            merged.pop("column_multipliers")
    # A per-column fill rule given on its own replaces the preset's fill_in_order shorthand.
    if "column_fill" in overrides and "fill_in_order" not in overrides:
        merged.pop("fill_in_order", None)
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise _invalid("invalid setting", exc, by_key=True, code=ProblemCode.BAD_SETTING, in_settings=True) from None


def preset(name: str, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """A preset by name (case-insensitive, `_` or `-`), with optional setting overrides."""
    key = normalize_name(name).replace("_", "-")
    if key in NAMED_WITHOUT_RULES:
        raise RulesError(f"{key} is named as a common Yatzy variant, but no rules for it are given; "
                         f"valid presets: {', '.join(preset_names())}")
    p = PRESETS.get(PRESET_ALIASES.get(key, key))
    if p is None:
        from ..text import did_you_mean

        raise RulesError(f"unknown preset {name!r}{did_you_mean(key, preset_names())}; "
                         f"valid presets: {', '.join(preset_names())}", code=ProblemCode.UNKNOWN_PRESET)
    if not overrides:  # a preset as it stands is valid (tested): no validation, no validator built
        return RuleSet.model_construct(name=key, dice=p.get("dice", 5), boxes=p["boxes"],
                                       settings=Settings.model_construct(**p["settings"]))
    settings = make_settings(p["settings"], overrides)
    return RuleSet(name=key, dice=p.get("dice", 5), boxes=p["boxes"], settings=settings)


def preset_names() -> list[str]:
    """Every preset name a user may give: the presets, then the other names of the Yahtzee rules."""
    return [*PRESETS, *PRESET_ALIASES]


# What `yahtzee rules NAME --json` adds to a rule set for people to read; a rules file may carry them
# (so that output is accepted as-is by --rules FILE) and they are ignored when it is read.
DERIVED_RULES_FIELDS = ("sheet", "note", "fingerprint", "theoretical_max")
DERIVED_BOX_FIELDS = ("section", "scores", "max")


def _without_derived(data: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in DERIVED_RULES_FIELDS}
    boxes = out.get("boxes")
    if isinstance(boxes, list):
        out["boxes"] = [{k: v for k, v in b.items() if k not in DERIVED_BOX_FIELDS} if isinstance(b, Mapping) else b
                        for b in boxes]
    return out


def rules_from_data(data: Any, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """A rule set from JSON data: a preset name, {"preset": ..., "settings": {...}}, or a custom
    sheet {"name": ..., "dice": 5, "boxes": [...], "settings": {...}}. `overrides` (from --set) win.
    The read-only fields of `yahtzee rules NAME --json` (fingerprint, theoretical maximum, each box's
    section, description and maximum) are ignored, so that output reads back as the same rule set."""
    overrides = dict(overrides or {})
    if isinstance(data, str):
        return preset(data, overrides)
    if not isinstance(data, Mapping):
        raise RulesError("rules must be a preset name or an object with 'preset' or 'boxes'")
    settings = data.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise RulesError("rules 'settings' must be an object", in_settings=True)
    if "preset" in data:
        extra = set(data) - {"preset", "settings"}
        if extra:
            raise RulesError(f"unknown rules field {sorted(extra)[0]!r}; valid fields: preset, settings")
        return preset(str(data["preset"]), {**settings, **overrides})
    if "boxes" not in data:
        raise RulesError("rules object needs 'preset' (one of: " + ", ".join(PRESETS) + ") or 'boxes'")
    merged = make_settings(settings, overrides)
    try:
        return RuleSet.model_validate({**_without_derived(data), "settings": merged})
    except ValidationError as exc:
        raise _invalid("invalid custom rules:", exc) from None


def setting_text(value: Any) -> str:
    """A setting's value as `--set` spells it (on/off, 1,2,3), never Python's repr: what parse_setting reads."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)


def parse_setting(text: str) -> tuple[str, Any]:
    """`key=value` from --set into a typed pair (bools, ints, lists, joker names)."""
    if "=" not in text:
        raise RulesError(f"a setting is written key=value, got {text!r}; valid settings: {', '.join(SETTING_NAMES)}")
    if not text.isprintable():  # (strip() would drop a carriage return or a line separator unseen)
        raise RulesError(f"a setting is written key=value in visible characters, got {text!r}",
                         code=ProblemCode.BAD_SETTING)
    key, raw = (p.strip() for p in text.split("=", 1))
    key = key.replace("-", "_")
    if key not in SETTING_NAMES:
        raise RulesError(_unknown_setting(key), code=ProblemCode.BAD_SETTING)
    annotation = str(Settings.model_fields[key].annotation)
    low = raw.lower()
    value: Any
    if "bool" in annotation:
        value = _on_off(low)
        if value is None:
            from ..text import did_you_mean

            raise RulesError(f"setting {key} takes on or off ({'/'.join(ON_WORDS)} or {'/'.join(OFF_WORDS)}), "
                             f"got {raw!r}{did_you_mean(low, ['on', 'off'])}", code=ProblemCode.BAD_SETTING)
    elif key == "column_fill":
        value = raw
    elif key == "column_multipliers":
        numbers = [parse_int(p) for p in raw.replace(" ", ",").split(",") if p]
        if any(v is None for v in numbers):
            raise RulesError(f"setting {key} takes whole numbers like 1,2,3, got {raw!r}", code=ProblemCode.BAD_SETTING)
        value = tuple(numbers)
    elif key == "joker":
        if _on_off(low) is None and low not in JOKER_CODES:
            from ..text import did_you_mean

            raise RulesError(f"setting joker takes forced, free or off (on = forced), got {raw!r}"
                             f"{did_you_mean(low, JOKER_CODES)}", code=ProblemCode.BAD_SETTING)
        value = low
    elif key == "saved_rolls_cap" and low in ("none", *OFF_WORDS[:-1]):
        value = None  # no cap (0 is a cap: nothing saved)
    else:
        value = parse_int(raw)
        if value is None:
            raise RulesError(f"setting {key} takes a whole number, got {raw!r}", code=ProblemCode.BAD_SETTING)
    return key, value


def read_rules_file(spec: str) -> Any:
    """The JSON data of a rules file, read the one bounded way (at most MAX_RULES_FILE bytes, JSON
    nested at most orjson's 1,024 levels, no key twice): RulesError naming the file otherwise."""
    try:
        with open(spec, "rb") as fh:
            raw = fh.read(MAX_RULES_FILE + 1)
    except FileNotFoundError:
        raise MissingRulesFile(spec) from None
    except OSError as exc:
        raise RulesError(f"cannot read rules file {spec}: {exc.strerror}") from None
    if len(raw) > MAX_RULES_FILE:
        raise RulesError(f"rules file {spec} is larger than {MAX_RULES_FILE >> 20} MiB; a rule set is a few KB")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        from ..text import decode_error_at

        line, col = decode_error_at(exc.lineno, exc.colno, raw)
        raise RulesError(f"rules file {spec} is not valid JSON: {exc.msg} at line {line}, column {col}") from None
    from ..text import duplicate_key

    key = duplicate_key(raw)
    if key is not None:
        raise RulesError(f"rules file {spec}: key {key!r} appears twice in one JSON object; give each key once")
    return data


def load_rules(spec: str | None = None, sets: Sequence[str] = (), base: Mapping[str, Any] | None = None) -> RuleSet:
    """A rule set from a --rules value (preset name or path to a JSON rules file) and --set overrides
    (on top of `base` settings, e.g. a config file's house rules)."""
    overrides = {**(base or {}), **dict(parse_setting(s) for s in sets)}
    if spec is None:
        return preset(DEFAULT_PRESET, overrides)
    name = normalize_name(spec).replace("_", "-")
    is_preset = name in PRESETS or name in PRESET_ALIASES or name in NAMED_WITHOUT_RULES  # a name wins over a file
    if spec.endswith(".json") or "/" in spec or (not is_preset and os.path.isfile(spec)):
        return rules_from_data(read_rules_file(spec), overrides)
    try:
        return preset(spec, overrides)
    except RulesError as exc:
        if is_preset:
            raise
        raise RulesError(f"{exc} (or a rules JSON file; there is no file named {spec!r})", code=exc.code,
                         in_settings=exc.in_settings) from None


# --------------------------------------------------------------------------- columns, legality, totals


@dataclass(frozen=True)
class Column:
    """One column of a score sheet: each box's written score (None while open) and the extra-Yahtzee
    bonus points earned in it."""

    scores: tuple[int | None, ...]
    yahtzee_bonus: int = 0

    @classmethod
    def empty(cls, rules: RuleSet) -> Column:
        return cls((None,) * len(rules.boxes))

    @property
    def filled_mask(self) -> int:
        return sum(1 << i for i, s in enumerate(self.scores) if s is not None)

    @property
    def is_full(self) -> bool:
        return all(s is not None for s in self.scores)

    def open_boxes(self) -> list[int]:
        return [i for i, s in enumerate(self.scores) if s is None]


@dataclass(frozen=True)
class Option:
    """A legal place for a roll: the box (and column), what it writes, and the extra bonus it earns."""

    box: int
    score: int
    bonus: int = 0
    column: int = 0
    joker: bool = False


JOKER_CODES: dict[str, int] = {"off": 0, "forced": 1, "free": 2}


# The four integer functions below hold the joker/fill-order logic once. They take only ints and bools
# so the compiled kernels (solver, simulator) run these very functions through numba.njit.
def joker_now(joker_code: int, has_yahtzee_box: bool, yahtzee_filled: bool, yahtzee_roll: bool) -> bool:
    """An extra Yahtzee acts as a joker once the Yahtzee box is filled (with its full value or with 0)."""
    return joker_code != 0 and has_yahtzee_box and yahtzee_filled and yahtzee_roll


def legal_bits(open_: int, fill: int, forced_joker: bool, own_bit: int, lower_bits: int) -> int:
    """Bitmask of the boxes a roll may go in. `open_`: open boxes of the column; `fill`: the column's
    fill rule (FILL_CODES); `forced_joker`: the joker is active under the forced (official) mode;
    `own_bit`: the roll's own upper box (0 if none).

    down: only the first open box; up: only the last open box (the fill rule wins over the joker).
    Forced joker: its own upper box if open; else any open lower box; else any open upper box (a
    zero). Free joker and no joker: any open box."""
    if open_ == 0:
        return 0
    if fill == 1:
        return open_ & -open_
    if fill == 2:
        last = open_
        while last & (last - 1):
            last &= last - 1
        return last
    if forced_joker:
        if open_ & own_bit:
            return own_bit
        low = open_ & lower_bits
        return low if low else open_
    return open_


def joker_full_value(joker: bool, open_: int, own_bit: int) -> bool:
    """Fixed-value boxes (FH, straights) take their full value from a joker once its own upper box is used."""
    return joker and (open_ & own_bit) == 0


def extra_bonus_points(yahtzee_roll: bool, yahtzee_full: bool, extra: int) -> int:
    """Each Yahtzee after the first earns the extra bonus, only while the Yahtzee box holds its full value."""
    return extra if yahtzee_roll and yahtzee_full else 0


def own_box_bit(rules: RuleSet, dice: Dice) -> int:
    """The bit of the upper box of the roll's first face (a Yahtzee's own box; 0 when there is none)."""
    own = rules.upper_index_by_face.get(dice[0])
    return 0 if own is None else 1 << own


def joker_active(rules: RuleSet, dice: Dice, yahtzee_score: int | None) -> bool:
    return joker_now(JOKER_CODES[rules.settings.joker], rules.yahtzee_index is not None,
                     yahtzee_score is not None, rules.is_yahtzee(dice))


def holds_full_yahtzee(rules: RuleSet, yahtzee_score: int | None) -> bool:
    """Whether a Yahtzee box holding `yahtzee_score` holds its full points: then each later Yahtzee
    earns the extra bonus (a zero there, or no Yahtzee box, earns none)."""
    y = rules.yahtzee_index
    return y is not None and yahtzee_score is not None and yahtzee_score == rules.boxes[y].points


def extra_bonus(rules: RuleSet, dice: Dice, yahtzee_score: int | None) -> int:
    """The extra-Yahtzee bonus a roll earns in a column whose Yahtzee box holds `yahtzee_score`."""
    full = holds_full_yahtzee(rules, yahtzee_score)
    return extra_bonus_points(rules.is_yahtzee(dice), full, rules.settings.extra_yahtzee_bonus)


def legal_mask(rules: RuleSet, filled: int, yahtzee_score: int | None, dice: Dice, column: int = 0) -> int:
    """Bitmask of the boxes `dice` may go in, given the filled boxes of its column (number `column`)."""
    open_ = ((1 << len(rules.boxes)) - 1) & ~filled
    forced = rules.settings.joker == "forced" and joker_active(rules, dice, yahtzee_score)
    return legal_bits(open_, rules.settings.fill_codes[column], forced, own_box_bit(rules, dice), rules.lower_bits)


def box_value(rules: RuleSet, box: int, dice: Dice, filled: int, yahtzee_score: int | None) -> int:
    """What `dice` writes in `box`: the natural score, or a joker's full value."""
    b = rules.boxes[box]
    open_ = ((1 << len(rules.boxes)) - 1) & ~filled
    if joker_full_value(joker_active(rules, dice, yahtzee_score), open_, own_box_bit(rules, dice)):
        return joker_value(b, dice)
    return rules.natural_scores(dice)[box]


def box_values(rules: RuleSet, box: int) -> frozenset[int]:
    """Every score the rules let `box` hold: 0 (a scratch), each roll's natural score, and the joker
    value of each Yahtzee roll where the rules have jokers."""
    vals = {0}
    vals.update(rules.natural_scores(r)[box] for r in rolls(rules.dice))
    y = rules.yahtzee_index
    if y is not None and box != y:
        full = rules.boxes[y].points
        for face in FACES:
            yroll = (face,) * rules.dice
            if joker_active(rules, yroll, full):
                # the joker's value in `box` once the roll's own upper box is used
                own = rules.upper_index_by_face.get(face)
                filled = (1 << own) if own is not None and own != box else 0
                vals.add(box_value(rules, box, yroll, filled | (1 << y), full))
    return frozenset(vals)


def column_options(rules: RuleSet, column: Column, dice: Dice, index: int = 0) -> list[Option]:
    y = rules.yahtzee_index
    ys = column.scores[y] if y is not None else None
    filled = column.filled_mask
    mask = legal_mask(rules, filled, ys, dice, index)
    bonus = extra_bonus(rules, dice, ys)
    joker = joker_active(rules, dice, ys)
    return [
        Option(i, box_value(rules, i, dice, filled, ys), bonus, index, joker)
        for i in range(len(rules.boxes))
        if mask >> i & 1
    ]


def options(rules: RuleSet, columns: Sequence[Column], dice: Dice) -> list[Option]:
    """Every legal (column, box) for a roll on a player's sheet, any column being allowed."""
    out: list[Option] = []
    for c, col in enumerate(columns):
        out.extend(column_options(rules, col, dice, c))
    return out


class RollContext(NamedTuple):
    """What a roll means in a column whatever boxes are open: whether it is a joker, whether the
    forced joker rule steers it, its own upper box (bit), the extra bonus it earns, and its natural
    score in every box."""

    joker: bool
    forced: bool
    own_bit: int
    bonus: int
    scores: tuple[int, ...] = ()


def roll_context(rules: RuleSet, dice: Dice, yahtzee_score: int | None) -> RollContext:
    """The RollContext of sorted `dice` in a column whose Yahtzee box holds `yahtzee_score`
    (depends on nothing else, so callers may memoise it per (dice, yahtzee_score))."""
    joker = joker_active(rules, dice, yahtzee_score)
    return RollContext(joker, joker and rules.settings.joker == "forced", own_box_bit(rules, dice),
                       extra_bonus(rules, dice, yahtzee_score), rules.natural_scores(dice))


def box_score(rules: RuleSet, ctx: RollContext, filled: int, box: int, dice: Dice, column: int = 0) -> int | None:
    """What `dice` (with its RollContext) writes in `box` of column number `column` whose filled boxes
    are the bitmask `filled`, or None when the rules forbid it (filled, out of order, joker elsewhere)."""
    open_ = ((1 << len(rules.boxes)) - 1) & ~filled
    fill = rules.settings.fill_codes[column]
    if not legal_bits(open_, fill, ctx.forced, ctx.own_bit, rules.lower_bits) >> box & 1:
        return None
    if ctx.joker and joker_full_value(ctx.joker, open_, ctx.own_bit):
        return joker_value(rules.boxes[box], dice)
    return (ctx.scores or rules.natural_scores(dice))[box]


def any_open_box(rules: RuleSet, ctx: RollContext, column: int = 0) -> bool:
    """Whether the roll may go in any open box of column `column` at its natural score (free filling,
    no joker): then box_score is `ctx.scores[box]` for an open box and None for a filled one, so hot
    loops skip it."""
    return rules.settings.fill_codes[column] == 0 and not ctx.joker and bool(ctx.scores)


def placement(rules: RuleSet, filled: int, yahtzee_score: int | None, box: int, dice: Dice,
              column: int = 0) -> Option | None:
    """The Option `column_options` would list for `box` (score, bonus, joker), or None when the rules
    forbid `dice` there; the column is given as its filled-box bitmask and its Yahtzee box's score.
    Works out one box only, so hot paths (the log validator, `place`) skip building every option."""
    if filled >> box & 1:
        return None
    ctx = roll_context(rules, dice, yahtzee_score)
    score = box_score(rules, ctx, filled, box, dice, column)
    return None if score is None else Option(box, score, ctx.bonus, column, ctx.joker)


def may_pass(rules: RuleSet, opts: Sequence[Option]) -> bool:
    """With must_zero off, a turn whose roll scores nothing anywhere may be passed."""
    return not rules.settings.must_zero and all(o.score == 0 and o.bonus == 0 for o in opts)


def place(rules: RuleSet, column: Column, box: int, dice: Dice, index: int = 0) -> tuple[Column, Option]:
    """Write `dice` into `box` of `column` (number `index` on the sheet); IllegalMove says why when
    the rules forbid it."""
    if column.scores[box] is not None:
        raise IllegalMove(f"box {rules.keys[box]} is already filled", code=ProblemCode.BOX_FILLED)
    y = rules.yahtzee_index
    chosen = placement(rules, column.filled_mask, column.scores[y] if y is not None else None, box, dice, index)
    if chosen is None:
        opts = column_options(rules, column, dice, index)
        legal = ", ".join(rules.keys[o.box] for o in opts)
        fill = rules.settings.fills[index]
        if fill != "free":
            order = "in order" if fill == "down" else "bottom to top"
            many = rules.settings.columns > 1
            where = f"column {index + 1}'s boxes" if many else "boxes"
            why = f"{where} must be filled {order}"
            code = (ProblemCode.COLUMN_FILL_UP if fill == "up" else
                    ProblemCode.COLUMN_FILL_DOWN if many else ProblemCode.FILL_IN_ORDER)
        else:
            why = "the forced joker rule sends this Yahtzee elsewhere"
            code = ProblemCode.JOKER_FORBIDDEN
        raise IllegalMove(f"{rules.keys[box]} is not allowed here ({why}); legal: {legal}", code=code)
    scores = list(column.scores)
    scores[box] = chosen.score
    return Column(tuple(scores), column.yahtzee_bonus + chosen.bonus), chosen


class ColumnTotals(NamedTuple):
    upper_sum: int
    upper_bonus: int
    upper_total: int
    lower_sum: int
    yahtzee_bonus: int
    lower_total: int
    total: int


# Int-only forms of the totals and saved-roll rules, for compiled kernels (numba.njit) and the functions below.
def upper_bonus_points(upper_sum: int, threshold: int, bonus: int) -> int:
    """The upper-section bonus a column earns with `upper_sum` points in its upper boxes."""
    return bonus if upper_sum >= threshold else 0


def weighted_total(column_totals: Sequence[int], multipliers: Sequence[int], add_columns: bool) -> int:
    """A sheet's score from its column totals: each weighted by its multiplier, then added together
    (add_columns) or the best one kept. Takes lists or int arrays."""
    acc = 0
    best = 0
    for i in range(len(column_totals)):
        w = column_totals[i] * multipliers[i]
        acc += w
        if i == 0 or w > best:
            best = w
    return acc if add_columns else best


def roll_budget(saved_rolls: bool, saved: int) -> int:
    """Rolls available this turn: three, plus the `saved` ones when saved_rolls is on."""
    return 3 + (saved if saved_rolls else 0)


def rolls_left_over(saved_rolls: bool, saved: int, used: int, cap: int) -> int:
    """Rolls saved for later turns after using `used` of this turn's budget (0 unless saved_rolls),
    at most `cap` of them (the rest are lost; Settings.saved_cap). Self-contained so numba compiles it
    on its own."""
    return min(3 + saved - used, cap) if saved_rolls else 0


def column_totals(rules: RuleSet, column: Column) -> ColumnTotals:
    return scores_totals(rules, column.scores, column.yahtzee_bonus)


def scores_totals(rules: RuleSet, scores: Sequence[int | None], yahtzee_bonus: int) -> ColumnTotals:
    """column_totals of a column given as its box scores (None: open) and extra-Yahtzee bonus points."""
    s = rules.settings
    upper = sum(scores[i] or 0 for i in rules.upper_indices)
    lower = sum(scores[i] or 0 for i in rules.lower_indices)
    bonus = upper_bonus_points(upper, s.upper_bonus_threshold, s.upper_bonus)
    lower_total = lower + yahtzee_bonus
    return ColumnTotals(upper, bonus, upper + bonus, lower, yahtzee_bonus, lower_total,
                        upper + bonus + lower_total)


def sheet_total(rules: RuleSet, columns: Sequence[Column]) -> int:
    """A player's score: columns weighted by their multipliers, added together or the best one."""
    mult = rules.settings.multipliers
    if len(columns) != len(mult):
        raise ValueError(f"{rules.name} sheets have {len(mult)} columns, got {len(columns)}")
    return weighted_total([column_totals(rules, c).total for c in columns], mult, rules.settings.add_columns)


def rolls_allowed(rules: RuleSet, saved: int) -> int:
    """Rolls available this turn: three, plus any saved from earlier turns when saved_rolls is on."""
    return roll_budget(rules.settings.saved_rolls, saved)


def saved_after(rules: RuleSet, saved: int, used: int) -> int:
    return rolls_left_over(rules.settings.saved_rolls, saved, used, rules.settings.saved_cap)


def most_saved(rules: RuleSet, filled: int) -> int | None:
    """The most rolls a column with `filled` boxes filled can hold saved: a turn saves at most 2 (three
    rolls, the first one used), each turn fills a box, and the cap keeps the rest; None when passes
    (must_zero off) let turns go by without filling a box."""
    if not rules.settings.must_zero:
        return None
    return min(2 * filled, rules.settings.saved_cap)


def most_rolls(rules: RuleSet, n_turns: int) -> int:
    """The most rolls any turn of an `n_turns`-turn game can have: three, or with saved_rolls every
    roll saved on the earlier turns too (how much room a recorded game needs per turn)."""
    saved = 0
    for _ in range(n_turns - 1):
        saved = saved_after(rules, saved, 1)
    return rolls_allowed(rules, saved)


BOM = "\ufeff"
MAX_DICE_WORDS = 64  # parse_dice gives up beyond this many faces (a roll is 5 or 6)
_ASCII_INT = re.compile(r"[+-]?[0-9]{1,18}")


def parse_int(text: str) -> int | None:
    """A whole number written with ASCII digits (an optional sign, at most 18 digits), else None.
    Python's int() also takes '٣', '²' and '1_000'; text read from people and files must not."""
    text = text.strip().lstrip(BOM)
    return int(text) if _ASCII_INT.fullmatch(text) else None


def parse_dice(parts: Sequence[str]) -> list[int]:
    """Dice from shell words or a line of text: `3 3 3 2 2`, `33322` or `3,3,3,2,2`. A die is one of
    the ASCII digits (other digits, like '٣' or '²', are refused); a leading byte-order mark is dropped."""
    faces: list[int] = []
    for n, part in enumerate(parts):
        text = part.lstrip(BOM) if n == 0 else part
        for ch in text:
            if ch in ", \t":
                continue
            if not "0" <= ch <= "9":
                from ..text import quote

                raise RulesError(f"dice are the digits 1-6, got {quote(part)}")
            faces.append(ord(ch) - 48)
            if len(faces) > MAX_DICE_WORDS:
                raise RulesError(f"a roll is 5 or 6 dice, got more than {MAX_DICE_WORDS}")
    return faces


def score_roll(rules: RuleSet, dice: Iterable[int]) -> dict[str, int]:
    """What a roll scores in every box of the rule set (no sheet context)."""
    return dict(zip(rules.keys, rules.natural_scores(rules.check_dice(dice)), strict=True))
