"""The rules module against the rules as the seeds state them, exhaustively over every roll.

Each expected value is written from the seed's sentence, independently of rules.py's box kinds."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee_cli.errors import IllegalMove, RulesError
from yahtzee_cli.rules.engine import (
    PRESETS,
    Box,
    Column,
    RuleSet,
    column_options,
    column_totals,
    load_rules,
    may_pass,
    place,
    preset,
    rolls,
    rules_from_data,
    score_roll,
    sheet_total,
)

ROLLS5 = list(rolls(5))
ROLLS6 = list(rolls(6))


def test_roll_counts():
    assert len(ROLLS5) == 252
    assert len(ROLLS6) == 462


def _has_run(dice, run):
    return set(run) <= set(dice)


def yahtzee_expected(d):
    c = Counter(d)
    most = max(c.values())
    return {
        "ones": d.count(1) * 1,
        "twos": d.count(2) * 2,
        "threes": d.count(3) * 3,
        "fours": d.count(4) * 4,
        "fives": d.count(5) * 5,
        "sixes": d.count(6) * 6,
        # of-a-kind boxes score every die, including the two that do not match (Hasbro's rules)
        "three_of_a_kind": sum(d) if most >= 3 else 0,
        "four_of_a_kind": sum(d) if most >= 4 else 0,
        # three of one number and two of another; five of a kind is not a full house
        "full_house": 25 if sorted(c.values()) == [2, 3] else 0,
        "small_straight": 30 if any(_has_run(d, range(s, s + 4)) for s in (1, 2, 3)) else 0,
        "large_straight": 40 if any(_has_run(d, range(s, s + 5)) for s in (1, 2)) else 0,
        "yahtzee": 50 if most == 5 else 0,
        "chance": sum(d),
    }


def yatzy_expected(d):
    c = Counter(d)
    pairs = sorted((f for f, n in c.items() if n >= 2), reverse=True)
    kinds = lambda n: max((f for f, m in c.items() if m >= n), default=0)  # noqa: E731
    return {
        "ones": d.count(1),
        "twos": d.count(2) * 2,
        "threes": d.count(3) * 3,
        "fours": d.count(4) * 4,
        "fives": d.count(5) * 5,
        "sixes": d.count(6) * 6,
        "one_pair": 2 * pairs[0] if pairs else 0,
        "two_pairs": 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0,
        "three_of_a_kind": 3 * kinds(3),
        "four_of_a_kind": 4 * kinds(4),
        "small_straight": 15 if sorted(d) == [1, 2, 3, 4, 5] else 0,
        "large_straight": 20 if sorted(d) == [2, 3, 4, 5, 6] else 0,
        "full_house": sum(d) if sorted(c.values()) == [2, 3] else 0,
        "chance": sum(d),
        "yatzy": 50 if len(c) == 1 else 0,
    }


def maxi_expected(d):
    c = Counter(d)
    pairs = sorted((f for f, n in c.items() if n >= 2), reverse=True)
    kinds = lambda n: max((f for f, m in c.items() if m >= n), default=0)  # noqa: E731

    def groups(a, b):
        best = 0
        for x, y in itertools.permutations(range(1, 7), 2):
            if c[x] >= a and c[y] >= b:
                best = max(best, a * x + b * y)
        return best

    return {
        "ones": d.count(1),
        "twos": d.count(2) * 2,
        "threes": d.count(3) * 3,
        "fours": d.count(4) * 4,
        "fives": d.count(5) * 5,
        "sixes": d.count(6) * 6,
        "one_pair": 2 * pairs[0] if pairs else 0,
        "two_pairs": 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0,
        "three_pairs": sum(d) if len(pairs) == 3 else 0,
        "three_of_a_kind": 3 * kinds(3),
        "four_of_a_kind": 4 * kinds(4),
        "five_of_a_kind": 5 * kinds(5),
        "small_straight": 15 if {1, 2, 3, 4, 5} <= set(d) else 0,
        "large_straight": 20 if {2, 3, 4, 5, 6} <= set(d) else 0,
        "full_straight": 21 if set(d) == {1, 2, 3, 4, 5, 6} else 0,
        "full_house": groups(3, 2),
        "castle": sum(d) if sorted(c.values()) == [3, 3] else 0,
        "tower": sum(d) if sorted(c.values()) == [2, 4] else 0,
        "chance": sum(d),
        "maxi_yatzy": 100 if len(c) == 1 else 0,
    }


@pytest.mark.parametrize("name", ["yahtzee", "kniffel", "triple-yahtzee"])
def test_yahtzee_family_every_roll(name):
    rules = preset(name)
    for d in ROLLS5:
        assert score_roll(rules, d) == yahtzee_expected(list(d)), d


@pytest.mark.parametrize("name", ["yatzy", "forced-yatzy", "triple-yatzy"])
def test_yatzy_family_every_roll(name):
    rules = preset(name)
    for d in ROLLS5:
        assert score_roll(rules, d) == yatzy_expected(list(d)), d


def test_maxi_every_roll():
    rules = preset("maxi-yatzy")
    assert len(rules.boxes) == 20 and rules.dice == 6
    for d in ROLLS6:
        assert score_roll(rules, d) == maxi_expected(list(d)), d


@pytest.mark.parametrize(
    ("rules", "dice", "box", "score"),
    [
        ("yahtzee", (1, 2, 3, 4, 4), "small_straight", 30),
        ("yahtzee", (3, 4, 5, 6, 1), "small_straight", 30),
        ("yatzy", (1, 2, 3, 4, 4), "small_straight", 0),
        ("yahtzee", (5, 5, 5, 5, 6), "three_of_a_kind", 26),
        ("yahtzee", (5, 5, 5, 5, 6), "four_of_a_kind", 26),
        ("yahtzee", (6, 6, 6, 6, 6), "full_house", 0),
        ("yatzy", (5, 5, 3, 3, 6), "one_pair", 10),
        ("yatzy", (5, 5, 3, 3, 6), "two_pairs", 16),
        ("yatzy", (1, 5, 5, 6, 6), "two_pairs", 22),
        ("yatzy", (1, 5, 5, 5, 5), "two_pairs", 0),
        ("yatzy", (2, 2, 5, 5, 5), "full_house", 19),
        ("yatzy", (2, 2, 5, 5, 5), "three_of_a_kind", 15),
        ("yatzy", (2, 2, 5, 5, 5), "two_pairs", 14),
        ("yatzy", (6, 6, 6, 2, 1), "three_of_a_kind", 18),
        ("yatzy", (6, 6, 6, 6, 6), "four_of_a_kind", 24),
        ("yatzy", (6, 6, 6, 6, 6), "full_house", 0),
        ("maxi-yatzy", (5, 5, 5, 3, 3, 3), "full_house", 21),
        ("maxi-yatzy", (5, 5, 5, 3, 3, 3), "castle", 24),
        ("maxi-yatzy", (6, 6, 6, 6, 2, 2), "tower", 28),
        ("kniffel", (2, 2, 2, 3, 3), "Dreierpasch", 12),
        ("kniffel", (1, 2, 3, 4, 6), "Kleine Straße", 30),
        ("kniffel", (1, 2, 3, 4, 6), "kleine strasse", 30),
    ],
)
def test_seed_examples(rules, dice, box, score):
    rs = preset(rules)
    assert score_roll(rs, dice)[rs.keys[rs.box_index(box)]] == score


@pytest.mark.parametrize(("name", "maximum"), [("yahtzee", 1575), ("kniffel", 1575), ("yatzy", 374)])
def test_theoretical_max(name, maximum):
    assert preset(name).theoretical_max == maximum


dice5 = st.lists(st.integers(1, 6), min_size=5, max_size=5)


@given(dice5, st.randoms())
def test_order_of_dice_never_matters(dice, rnd):
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    for name in PRESETS:
        rs = preset(name)
        if rs.dice == 5:
            assert score_roll(rs, dice) == score_roll(rs, shuffled)


@given(dice5)
def test_upper_box_is_face_times_count(dice):
    for name in ("yahtzee", "yatzy"):
        rs = preset(name)
        s = score_roll(rs, dice)
        for i in rs.upper_indices:
            face = rs.boxes[i].face
            assert s[rs.keys[i]] == face * dice.count(face)


# The most each Yahtzee box can score, from the rules' sentences: an upper box five of its face, 3 and 4
# of a kind and chance the sum of five sixes, the fixed-score boxes their fixed score.
YAHTZEE_MAXIMA = {"ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25, "sixes": 30,
                  "three_of_a_kind": 30, "four_of_a_kind": 30, "full_house": 25, "small_straight": 30,
                  "large_straight": 40, "yahtzee": 50, "chance": 30}


@given(dice5)
def test_no_box_beats_its_maximum_and_chance_is_sum(dice):
    rs = preset("yahtzee")
    s = score_roll(rs, dice)
    assert s["chance"] == sum(dice)
    assert all(0 <= v <= YAHTZEE_MAXIMA[k] for k, v in s.items())
    assert s["three_of_a_kind"] >= s["four_of_a_kind"]


def test_every_box_maximum_is_reached_by_some_roll():
    rs = preset("yahtzee")
    best = dict.fromkeys(YAHTZEE_MAXIMA, 0)
    for roll in itertools.combinations_with_replacement(range(1, 7), 5):
        for k, v in score_roll(rs, roll).items():
            best[k] = max(best[k], v)
    assert best == YAHTZEE_MAXIMA


# --------------------------------------------------------------- joker and legality


def _fill(rules, **boxes):
    scores = [None] * len(rules.boxes)
    for key, value in boxes.items():
        scores[rules.box_index(key)] = value
    return Column(tuple(scores))


def _legal(rules, col, dice):
    return {rules.keys[o.box]: (o.score, o.bonus) for o in column_options(rules, col, dice)}


def test_forced_joker_goes_to_its_upper_box_first():
    rs = preset("yahtzee")
    col = _fill(rs, yahtzee=50)
    assert _legal(rs, col, (4, 4, 4, 4, 4)) == {"fours": (20, 100)}


def test_forced_joker_lower_boxes_at_full_value_when_upper_used():
    rs = preset("yahtzee")
    col = _fill(rs, yahtzee=50, fours=12)
    legal = _legal(rs, col, (4, 4, 4, 4, 4))
    assert legal["full_house"] == (25, 100)
    assert legal["small_straight"] == (30, 100)
    assert legal["large_straight"] == (40, 100)
    assert legal["three_of_a_kind"] == (20, 100)
    assert "ones" not in legal  # lower boxes open: the joker must go there


def test_forced_joker_zero_in_upper_when_lower_full():
    rs = preset("yahtzee")
    lower = dict.fromkeys(
        ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"), 0
    )
    col = _fill(rs, yahtzee=50, fours=12, **lower)
    assert _legal(rs, col, (4, 4, 4, 4, 4)) == dict.fromkeys(("ones", "twos", "threes", "fives", "sixes"), (0, 100))


def test_yahtzee_box_zero_keeps_joker_but_no_bonus():
    rs = preset("yahtzee")
    col = _fill(rs, yahtzee=0, sixes=18)
    legal = _legal(rs, col, (6, 6, 6, 6, 6))
    assert legal["full_house"] == (25, 0)
    assert all(bonus == 0 for _, bonus in legal.values())


def test_no_joker_before_yahtzee_box_is_filled():
    rs = preset("yahtzee")
    legal = _legal(rs, Column.empty(rs), (3, 3, 3, 3, 3))
    assert legal["full_house"] == (0, 0)
    assert legal["yahtzee"] == (50, 0)
    assert len(legal) == 13


def test_free_joker_any_box_full_value_only_after_upper_used():
    rs = preset("yahtzee", {"joker": "free"})
    col = _fill(rs, yahtzee=50)
    legal = _legal(rs, col, (2, 2, 2, 2, 2))
    assert len(legal) == 12 and legal["full_house"] == (0, 100) and legal["twos"] == (10, 100)
    col = _fill(rs, yahtzee=50, twos=4)
    assert _legal(rs, col, (2, 2, 2, 2, 2))["large_straight"] == (40, 100)


def test_joker_off_scores_only_genuine_fits_but_keeps_bonus():
    rs = preset("yahtzee", {"joker": "off"})
    col = _fill(rs, yahtzee=50, twos=4)
    legal = _legal(rs, col, (2, 2, 2, 2, 2))
    assert legal["large_straight"] == (0, 100)
    assert legal["ones"] == (0, 100)


def test_yatzy_has_no_extra_bonus():
    rs = preset("yatzy")
    col = _fill(rs, yatzy=50)
    assert all(bonus == 0 for _, bonus in _legal(rs, col, (6,) * 5).values())


def test_fill_in_order_only_next_box():
    rs = preset("forced-yatzy")
    col = _fill(rs, ones=3)
    assert list(_legal(rs, col, (6, 6, 6, 6, 6))) == ["twos"]
    with pytest.raises(IllegalMove, match="in order"):
        place(rs, col, rs.box_index("sixes"), (6, 6, 6, 6, 6))


def test_place_refuses_filled_box():
    rs = preset("yahtzee")
    col, _ = place(rs, Column.empty(rs), 0, (1, 1, 2, 3, 4))
    with pytest.raises(IllegalMove, match="already filled"):
        place(rs, col, 0, (1, 1, 2, 3, 4))


def test_must_zero_off_allows_pass_only_when_nothing_scores():
    rs = preset("yatzy", {"must_zero": False})
    col = _fill(rs, **{k: 1 for k in rs.keys if k not in ("sixes", "yatzy")})
    assert may_pass(rs, column_options(rs, col, (1, 2, 3, 4, 5)))
    assert not may_pass(rs, column_options(rs, col, (1, 2, 3, 4, 6)))
    assert not may_pass(preset("yatzy"), column_options(rs, col, (1, 2, 3, 4, 5)))


# --------------------------------------------------------------- totals


def test_worked_example_totals():
    rs = preset("yahtzee")
    anna = {
        "ones": 3,
        "twos": 8,
        "threes": 9,
        "fours": 12,
        "fives": 20,
        "sixes": 18,
        "three_of_a_kind": 24,
        "four_of_a_kind": 23,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "yahtzee": 50,
        "chance": 23,
    }
    col = Column(_fill(rs, **anna).scores, yahtzee_bonus=100)
    t = column_totals(rs, col)
    assert (t.upper_sum, t.upper_bonus, t.upper_total, t.lower_total, t.total) == (70, 35, 105, 315, 420)
    ben = {
        "ones": 2,
        "twos": 6,
        "threes": 9,
        "fours": 12,
        "fives": 15,
        "sixes": 18,
        "three_of_a_kind": 22,
        "four_of_a_kind": 0,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 0,
        "yahtzee": 0,
        "chance": 21,
    }
    t = column_totals(rs, _fill(rs, **ben))
    assert (t.upper_sum, t.upper_bonus, t.upper_total, t.lower_total, t.total) == (62, 0, 62, 98, 160)


def test_triple_columns_weighted_and_best_column():
    rs = preset("triple-yahtzee")
    cols = [_fill(rs, chance=10), _fill(rs, chance=10), _fill(rs, chance=10)]
    assert sheet_total(rs, cols) == 60
    best = preset("triple-yahtzee", {"add_columns": False})
    assert sheet_total(best, cols) == 30


# --------------------------------------------------------------- settings and loading


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["upper_bonus_threshold=106"], "upper_bonus_threshold"),
        (["upper_bonus=33"], "multiple of 5"),
        (["extra_yahtzee_bonus=210"], "extra_yahtzee_bonus"),
        (["columns=7"], "columns"),
        (["joker=sometimes"], "joker"),
        (["colour=red"], "valid settings"),
        (["fill_in_order=maybe"], "on or off"),
        (["noequals"], "key=value"),
        # (control and invisible characters are not trimmed away into a valid value)
        (["joker=\r0"], "visible characters"),
        (["upper_bonus=\u202835"], "visible characters"),
        (["saved_rolls=\ton"], "visible characters"),
        (["joker=off\u200b"], "visible characters"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(sets, message):
    with pytest.raises(RulesError, match=message):
        load_rules("yahtzee", sets)



@pytest.mark.parametrize(("key", "value"), [("joker", "\r0"), ("joker", "\u2028on"), ("joker", "free\x00"),
                                            ("must_zero", "\r0"), ("column_fill", "down\u2028"),
                                            ("column_fill", ["down\r"])])
def test_a_rules_file_s_setting_with_control_or_invisible_characters_is_refused(key, value):
    # as on --set: "\r0" was trimmed into "0", joker off, and a line separator into "down"
    settings = {key: value, **({"columns": 2} if key == "column_fill" else {})}
    with pytest.raises(RulesError, match=f"invalid setting {key}"):
        rules_from_data({"preset": "yahtzee", "settings": settings})
    spelled = {"joker": " Off ", "must_zero": "no", "column_fill": "down, up"}[key]  # visible spacing still reads
    assert rules_from_data({"preset": "yahtzee", "settings": {**settings, key: spelled}}) is not None

def test_unknown_preset_names_the_valid_ones():
    with pytest.raises(RulesError, match="valid presets: yahtzee, kniffel"):
        preset("farkle")


def test_settings_override_presets():
    rs = load_rules("triple-yatzy", ["columns=2"])
    assert rs.settings.columns == 2 and rs.settings.multipliers == (1, 1)
    rs = rules_from_data({"preset": "yahtzee", "settings": {"joker": "free", "upper_bonus": 50}})
    assert (rs.settings.joker, rs.settings.upper_bonus) == ("free", 50)
    assert rs.fingerprint != preset("yahtzee").fingerprint
    assert preset("kniffel").fingerprint == preset("yahtzee").fingerprint


def test_custom_rules_from_box_kinds(tmp_path):
    path = tmp_path / "mini.json"
    path.write_text(
        '{"name": "mini", "dice": 5, "boxes": ['
        '{"key": "sixes", "kind": "upper", "face": 6},'
        '{"key": "pair", "kind": "kind", "n": 2, "scoring": "matching"},'
        '{"key": "run", "kind": "straight", "length": 3, "points": 7}],'
        '"settings": {"upper_bonus_threshold": 12, "upper_bonus": 10}}'
    )
    rs = load_rules(str(path))
    assert score_roll(rs, (6, 6, 1, 2, 3)) == {"sixes": 12, "pair": 12, "run": 7}
    with pytest.raises(RulesError, match="needs face"):
        rules_from_data({"boxes": [{"key": "x", "kind": "upper"}]})


# --------------------------------------------------------------- how boxes are described and checked

# What `yahtzee rules NAME` says of each box, written from the rules: Yahtzee's of-a-kind boxes count
# every die, Maxi Yatzy's only the matching ones; its straights are fixed runs.
DESCRIBED = {
    ("yahtzee", "ones"): "sum of the dice showing 1",
    ("yahtzee", "sixes"): "sum of the dice showing 6",
    ("yahtzee", "three_of_a_kind"): "at least 3 alike: sum of all dice",
    ("yahtzee", "full_house"): "3+2 alike, different faces: 25 points",
    ("yahtzee", "small_straight"): "any 4 in sequence: 30 points",
    ("yahtzee", "large_straight"): "any 5 in sequence: 40 points",
    ("yahtzee", "yahtzee"): "all dice alike: 50 points",
    ("yahtzee", "chance"): "sum of all dice",
    ("maxi-yatzy", "one_pair"): "at least 2 alike: sum of the 2 matching dice",
    ("maxi-yatzy", "five_of_a_kind"): "at least 5 alike: sum of the 5 matching dice",
    ("maxi-yatzy", "three_pairs"): "3 pairs of different faces: sum of the paired dice",
    ("maxi-yatzy", "castle"): "3+3 alike, different faces: sum of those dice",
    ("maxi-yatzy", "tower"): "4+2 alike, different faces: sum of those dice",
    ("maxi-yatzy", "small_straight"): "exactly 1-2-3-4-5: 15 points",
    ("maxi-yatzy", "full_straight"): "exactly 1-2-3-4-5-6: 21 points",
    ("maxi-yatzy", "maxi_yatzy"): "all dice alike: 100 points",
}


@pytest.mark.parametrize(("name", "key"), list(DESCRIBED))
def test_box_descriptions(name, key):
    rs = preset(name)
    assert rs.boxes[rs.box_index(key)].describe() == DESCRIBED[(name, key)]


@pytest.mark.parametrize(("field", "low", "high"), [("face", 1, 6), ("n", 1, 6), ("length", 2, 6), ("start", 1, 5)])
def test_box_parameters_are_checked_at_their_bounds(field, low, high):
    """Faces and counts are 1-6 (a straight is at least 2 long, so a run of 2 starts at 5 at the latest):
    the bounds are accepted, one beyond refused."""
    base = {"face": {"key": "b", "kind": "upper", "face": 1},
            "n": {"key": "b", "kind": "kind", "n": 3},
            "length": {"key": "b", "kind": "straight", "length": 4, "points": 30},
            "start": {"key": "b", "kind": "straight", "length": 2, "start": 1, "points": 30}}[field]

    def make(value):
        return rules_from_data({"name": "t", "boxes": [{**base, field: value}, {"key": "c", "kind": "chance"}]})

    assert make(low) and make(high)
    for bad in (low - 1, high + 1):
        with pytest.raises(RulesError):
            make(bad)


def _custom(box, dice=5):
    return rules_from_data({"name": "t", "dice": dice, "boxes": [box, {"key": "c", "kind": "chance"}]})


@pytest.mark.parametrize(("length", "start", "ok"), [(2, 5, True), (2, 6, False), (5, 2, True), (5, 3, False),
                                                     (6, 1, True), (6, 2, False), (4, 3, True), (4, 4, False)])
def test_a_straight_from_start_must_end_by_six(length, start, ok):
    """A straight is `length` faces in sequence from `start`; a die shows at most 6, so a run from 6 of
    length 2 (6-7) could never score: the sheet is refused in one line saying where the run may start."""
    box = {"key": "s", "kind": "straight", "length": length, "start": start, "points": 10}
    if ok:
        rs = _custom(box, dice=6)
        run = tuple(range(start, start + length))
        other = (run[0],) * (6 - length)
        assert score_roll(rs, run + other)["s"] == 10
    else:
        with pytest.raises(RulesError, match=rf"runs past 6; start at most {7 - length}$") as err:
            _custom(box, dice=6)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize(("box", "unused"), [
    ({"key": "b", "kind": "chance", "face": 3}, "face"),
    ({"key": "b", "kind": "kind", "n": 3, "face": 6}, "face"),
    ({"key": "b", "kind": "yahtzee", "points": 50, "face": 6}, "face"),
    ({"key": "b", "kind": "upper", "face": 2, "points": 10}, "points"),
    ({"key": "b", "kind": "straight", "length": 4, "points": 30, "n": 4}, "n"),
    ({"key": "b", "kind": "chance", "sizes": [3, 2]}, "sizes"),
    ({"key": "b", "kind": "pairs", "n": 2, "start": 1}, "start"),
    ({"key": "b", "kind": "groups", "sizes": [3, 2], "length": 5}, "length"),
])
def test_a_parameter_the_box_kind_never_reads_is_refused(box, unused):
    """Each kind takes its own parameters (a lower box counts no `face`): a sheet that gives another one
    would score differently from what its author wrote, so it is refused naming the parameter."""
    with pytest.raises(RulesError, match=rf"takes no {unused};"):
        _custom(box)


@pytest.mark.parametrize("box", [
    {"key": "b", "kind": "groups", "sizes": [3, 2], "points": 25},
    {"key": "b", "kind": "groups", "sizes": [3, 2]},
    {"key": "b", "kind": "straight", "length": 4, "start": 2, "points": 30},
    {"key": "b", "kind": "kind", "n": 2, "scoring": "matching"},
])
def test_optional_parameters_of_a_kind_are_accepted(box):
    assert _custom(box).boxes[0].kind == box["kind"]


def test_joker_off_never_gives_a_yahtzee_a_fixed_value():
    """Joker off: an extra Yahtzee scores only where it fits (a Yahtzee is a 3/4 of a kind, never a
    full house or a straight), even after its own upper box and the Yahtzee box are filled."""
    rs = preset("yahtzee", {"joker": "off"})
    col = _fill(rs, yahtzee=50, sixes=24)
    legal = _legal(rs, col, (6,) * 5)
    assert len(legal) == 11  # every open box: no joker steers it
    assert legal["full_house"] == (0, 100) and legal["small_straight"] == (0, 100)
    assert legal["three_of_a_kind"] == (30, 100) and legal["chance"] == (30, 100)


def test_boxes_are_immutable():
    """A rule set's boxes are shared (cached rule sets, memoised scores): writing to one is refused."""
    box = preset("yahtzee").boxes[0]
    with pytest.raises(ValueError):
        box.face = 2


@pytest.mark.parametrize(("sizes", "ok"), [((3, 3), True), ((2, 2, 2), True), ((4, 3), False), ((3,), False),
                                           ((0, 2), False)])
def test_group_sizes_are_at_least_two_groups_of_at_most_six_dice(sizes, ok):
    boxes = [{"key": "g", "kind": "groups", "sizes": list(sizes)}, {"key": "c", "kind": "chance"}]
    data = {"name": "t", "boxes": boxes, "dice": 6}
    if ok:
        assert rules_from_data(data).boxes[0].sizes == sizes
    else:
        with pytest.raises(RulesError):
            rules_from_data(data)


@pytest.mark.parametrize(("settings", "ok"), [({"columns": 3, "column_multipliers": [1, 2, 3]}, True),
                                              ({"columns": 3, "column_multipliers": [1, 2]}, False),
                                              ({"columns": 2, "column_multipliers": [1, 2, 3]}, False),
                                              ({"columns": 3, "column_multipliers": [0, 2, 3]}, False)])
def test_column_multipliers_are_one_whole_number_from_1_per_column(settings, ok):
    if ok:
        assert preset("yahtzee", settings).settings.multipliers == tuple(settings["column_multipliers"])
    else:
        with pytest.raises(RulesError):
            preset("yahtzee", settings)


def test_upper_bonus_at_exactly_the_threshold():
    """Five of each face make 105 upstairs, so a threshold of 105 is still reached (the bonus counts)."""
    assert preset("yahtzee", {"upper_bonus_threshold": 105}).theoretical_max == 1575


@pytest.mark.parametrize(("name", "alias", "key"), [("yatzy", "aces", "ones"), ("yatzy", "Einser", "ones"),
                                                     ("yahtzee", "ace", "ones"), ("yahtzee", "Zweier", "twos"),
                                                     ("yatzy", "6s", "sixes")])
def test_upper_boxes_answer_to_their_aliases(name, alias, key):
    rs = preset(name)
    assert rs.keys[rs.box_index(alias)] == key


def test_a_column_is_full_when_every_box_holds_a_score_and_is_frozen():
    import dataclasses

    rs = preset("yahtzee")
    empty = Column.empty(rs)
    assert not empty.is_full
    full = Column(tuple([0] * len(rs.boxes)))
    assert full.is_full
    assert not Column(tuple([0] * (len(rs.boxes) - 1) + [None])).is_full
    with pytest.raises(dataclasses.FrozenInstanceError):
        full.scores = ()  # type: ignore[misc]


def test_a_rules_object_without_preset_or_boxes_names_the_presets():
    with pytest.raises(RulesError, match=r"needs 'preset' \(one of: yahtzee, .*\) or 'boxes'"):
        rules_from_data({"name": "nothing", "settings": {}})


@pytest.mark.parametrize("face", range(1, 7))
def test_forced_joker_sends_each_face_to_its_own_upper_box(face):
    """Hasbro's forced joker: a Yahtzee whose own upper box is open must go there (every face, the
    first box of the sheet included); once it is filled, the lower boxes take it at joker values."""
    from yahtzee_cli.rules import engine as R

    rs = preset("yahtzee")
    y = rs.box_index("yahtzee")
    own = rs.upper_index_by_face[face]
    scores = [None] * len(rs.boxes)
    scores[y] = 50
    col = Column(tuple(scores))
    dice = (face,) * 5
    assert [o.box for o in column_options(rs, col, dice)] == [own]
    ctx = R.roll_context(rs, dice, 50)
    legal = [b for b in range(len(rs.boxes)) if R.box_score(rs, ctx, col.filled_mask, b, dice) is not None]
    assert legal == [own]
    assert [b for b in range(len(rs.boxes)) if R.placement(rs, col.filled_mask, 50, b, dice) is not None] == [own]
    scores[own] = 0
    lower = column_options(rs, Column(tuple(scores)), dice)
    assert {rs.keys[o.box] for o in lower} == {"three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                                                "large_straight", "chance"}
    assert {rs.keys[o.box]: o.score for o in lower}["large_straight"] == 40


def test_weighted_total_adds_or_keeps_the_best_column():
    from yahtzee_cli.rules.engine import weighted_total

    assert weighted_total([10, 20, 30], [1, 2, 3], True) == 10 + 40 + 90
    assert weighted_total([10, 20, 30], [1, 2, 3], False) == 90
    assert weighted_total([50, 10], [1, 1], False) == 50  # the best column may be the first
    assert weighted_total([0, 0], [1, 1], True) == 0


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_is_a_valid_rule_set(name):
    # presets are built without validation (start-up): each must pass it unchanged
    rs = preset(name)
    checked = RuleSet.model_validate(rs.to_dict())
    assert checked == rs
    assert [Box.model_validate(b.model_dump()) for b in rs.boxes] == list(rs.boxes)
    assert checked.fingerprint == rs.fingerprint


def test_the_default_settings_are_valid_settings():
    # RuleSet's default settings are built without validation (start-up): they must pass it unchanged
    from yahtzee_cli.rules.engine import Settings

    default = RuleSet.model_fields["settings"].default
    assert Settings.model_validate(default.model_dump()) == default == Settings()


@pytest.mark.parametrize("name", list(PRESETS))
def test_fingerprint_hashes_the_json_of_everything_that_changes_play(name):
    # the stored tables are found by fingerprint: it must stay the hash of the rules' JSON form
    for rs in (preset(name), preset(name, {"upper_bonus": 40, "joker": "off"})):
        payload = {
            "dice": rs.dice,
            "boxes": [b.model_dump(mode="json", exclude={"name", "aliases", "key"}) for b in rs.boxes],
            # a setting added later is hashed only when set (every table stored before it stays valid)
            "settings": rs.settings.model_dump(mode="json", exclude={"saved_rolls_cap"}),
        }
        digest = hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]
        assert rs.fingerprint == digest
    assert preset("yahtzee").fingerprint == "56d190f5438625ea"  # the shipped table's
    assert preset("maxi-yatzy").fingerprint == "ecaf0c5a38ff390b"
