"""The rules module at its edges: the limits of a rule set, where --rules finds a file, --set and dice
parsing, the best game with jokers, and the scores a box may hold.

Each test pins a boundary a one-character slip would move (a limit off by one, a bound added the wrong
way, a joker step skipped). Expected values come from the rules' sentences or are worked out by hand in
the comments, never from the module's own formulas."""

from __future__ import annotations

from pathlib import Path

import pytest

from yahtzee_cli.errors import RulesError
from yahtzee_cli.rules import engine as R

FACES = range(1, 7)


def _custom(boxes: list[dict[str, object]], dice: int = 5, **settings: object) -> R.RuleSet:
    return R.rules_from_data({"name": "edge", "dice": dice, "boxes": boxes, "settings": settings})


# --------------------------------------------------------------------------- the limits of a rule set

# A box's fixed points: at most 10,000.
def test_a_box_may_be_worth_ten_thousand_points_and_no_more() -> None:
    assert R.Box(key="big", kind="yahtzee", points=10_000).points == 10_000
    with pytest.raises(ValueError, match="10000"):
        R.Box(key="big", kind="yahtzee", points=10_001)


# A rule set rolls five or six dice.
@pytest.mark.parametrize(("dice", "ok"), [(4, False), (5, True), (6, True), (7, False)])
def test_a_rule_set_rolls_five_or_six_dice(dice: int, ok: bool) -> None:
    boxes = [{"key": "chance", "kind": "chance"}]
    if ok:
        assert _custom(boxes, dice).dice == dice
    else:
        with pytest.raises(RulesError, match="/dice"):
            _custom(boxes, dice)


# At most 60 boxes (a sheet is a bit mask of its boxes). Sixty chances score at most 60 x (30 + 100
# extra bonus) + 35 = 7,835, far inside the points limit, so only the box count can refuse them.
@pytest.mark.parametrize(("count", "ok"), [(60, True), (61, False)])
def test_a_rule_set_has_at_most_sixty_boxes(count: int, ok: bool) -> None:
    boxes = [{"key": f"c{i}", "kind": "chance"} for i in range(count)]
    if ok:
        assert len(_custom(boxes).boxes) == 60
    else:
        with pytest.raises(RulesError, match="at most 60 boxes, got 61"):
            _custom(boxes)


# Column multipliers run from 1 to 100. Yahtzee's best column is under 1,800 points, x100 is far
# inside the points limit.
@pytest.mark.parametrize(("multiplier", "ok"), [(100, True), (101, False)])
def test_a_column_multiplier_is_at_most_one_hundred(multiplier: int, ok: bool) -> None:
    sets = {"column_multipliers": (multiplier,)}
    if ok:
        assert R.preset("yahtzee", sets).settings.multipliers == (100,)
    else:
        with pytest.raises(RulesError, match="from 1 to 100"):
            R.preset("yahtzee", sets)


# A game may score at most 1,000,000 points. The sheet: Sixes (at most 5 x 6 = 30) and one Yahtzee box
# of P points; the upper bonus B is earned at 30 (all sixes), no extra bonus. Its best game is
# 30 + P + B, x100 in a single column weighted x100:
#   P = 9,960, B = 10: (30 + 9,960 + 10) x 100 = 1,000,000, exactly the limit: allowed;
#   P = 9,965, B = 10: 1,000,500: refused, and the message says how high it could go.
def _sheet(points: int) -> R.RuleSet:
    return _custom([{"key": "sixes", "kind": "upper", "face": 6}, {"key": "big", "kind": "yahtzee", "points": points}],
                   upper_bonus_threshold=30, upper_bonus=10, extra_yahtzee_bonus=0, column_multipliers=[100])


def test_a_game_may_score_up_to_a_million_points() -> None:
    rs = _sheet(9_960)
    assert rs.theoretical_max == 1_000_000


def test_a_game_that_could_score_more_is_refused_with_its_best_total() -> None:
    with pytest.raises(RulesError, match="could score up to 1,000,500 points; rule sets are limited to 1,000,000"):
        _sheet(9_965)


# Sixty chances in six columns weighted x100 each, no bonuses: 60 x 30 = 1,800 a column, x600 in all.
def test_the_limit_counts_every_die_of_every_box() -> None:
    boxes = [{"key": f"c{i}", "kind": "chance"} for i in range(60)]
    with pytest.raises(RulesError, match="could score up to 1,080,000 points"):
        _custom(boxes, upper_bonus=0, extra_yahtzee_bonus=0, columns=6, column_multipliers=[100] * 6)


# A rules file is read up to 1 MiB (1,048,576 bytes). The JSON sits at the end of the file behind
# leading spaces, so a file read short would be cut inside it.
def _padded(path: Path, size: int) -> str:
    body = b'{"preset": "yatzy"}'
    path.write_bytes(b" " * (size - len(body)) + body)
    return str(path)


def test_a_rules_file_of_exactly_one_mebibyte_is_read(tmp_path: Path) -> None:
    assert R.load_rules(_padded(tmp_path / "big.json", 1 << 20)).settings.upper_bonus == 50


def test_a_rules_file_one_byte_over_a_mebibyte_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="larger than 1 MiB"):
        R.load_rules(_padded(tmp_path / "big.json", (1 << 20) + 1))


# Group sizes: at least two groups, each at least one die. A group of one is a die of another face:
# sizes 4+1 is four alike and one different die.
def test_a_group_may_be_a_single_die() -> None:
    box = R.Box(key="four_and_one", kind="groups", sizes=(4, 1), points=9)
    assert R.natural_score(box, (2, 2, 2, 2, 5)) == 9
    assert R.natural_score(box, (2, 2, 2, 2, 2)) == 0  # the one die must show another face
    with pytest.raises(ValueError, match="at least two group sizes"):
        R.Box(key="empty_group", kind="groups", sizes=(4, 0), points=9)


# --------------------------------------------------------------------------- presets

def test_kniffel_is_the_yahtzee_game_on_a_german_sheet() -> None:
    rs = R.preset("kniffel")
    assert [b.label for b in rs.boxes] == ["Einser", "Zweier", "Dreier", "Vierer", "Fünfer", "Sechser", "Dreierpasch",
                                           "Viererpasch", "Full House", "Kleine Straße", "Große Straße", "Kniffel",
                                           "Chance"]
    assert rs.fingerprint == R.preset("yahtzee").fingerprint


# Maxi Yatzy: "The score required to earn the upper section bonus is increased to 84 points. The value
# of the bonus is also increased to 100 points." Four of each face is 4 x 21 = 84; with three Ones
# instead of four it is 83.
@pytest.mark.parametrize(("ones", "bonus"), [(4, 100), (3, 0)])
def test_maxi_upper_bonus_is_100_at_84(ones: int, bonus: int) -> None:
    rs = R.preset("maxi-yatzy")
    scores: list[int | None] = [None] * len(rs.boxes)
    for face in FACES:
        scores[rs.upper_index_by_face[face]] = 4 * face
    scores[rs.upper_index_by_face[1]] = ones
    assert R.column_totals(rs, R.Column(tuple(scores))).upper_bonus == bonus


# --------------------------------------------------------------------------- the best game

# A Yatzy-style sheet: Sixes, a full house scoring its dice (3+2 of different faces) and a Yatzy box of
# 50, no upper or extra bonus. Without jokers its best game is 30 + 28 (6-6-6-5-5) + 50 = 108. With the
# forced joker (still no extra bonus) the full house gains: once the Yatzy box holds 50 and Sixes 30, a
# 6-6-6-6-6 is a joker that must go to a lower box, and the full house takes it at its dice sum, 30:
# 30 + 30 + 50 = 110.
@pytest.mark.parametrize(("joker", "best"), [("off", 108), ("forced", 110), ("free", 110)])
def test_a_joker_raises_the_best_game_of_a_sum_scoring_full_house(joker: str, best: int) -> None:
    boxes = [{"key": "sixes", "kind": "upper", "face": 6}, {"key": "full_house", "kind": "groups", "sizes": [3, 2]},
             {"key": "yatzy", "kind": "yahtzee", "points": 50}]
    rs = _custom(boxes, upper_bonus=0, extra_yahtzee_bonus=0, joker=joker)
    assert rs.theoretical_max == best


# A sheet without a Yahtzee box has no jokers and no extra bonus whatever the settings say: its best
# game is each box's maximum, Sixes 30 and Chance 30, plus the bonus earned at 30.
def test_the_best_game_of_a_sheet_without_a_yahtzee_box() -> None:
    rs = _custom([{"key": "sixes", "kind": "upper", "face": 6}, {"key": "chance", "kind": "chance"}],
                 upper_bonus_threshold=30, upper_bonus=5)
    assert rs.settings.joker == "forced"
    assert rs.theoretical_max == 30 + 30 + 5


# --------------------------------------------------------------------------- the scores a box may hold

# Yatzy's full house scores its five dice when they show three of one face and two of another: 3a + 2b
# for faces a != b. With the forced joker, a Yatzy of any face may also fill it once its own upper box
# is used, at the sum of its dice: 5, 10, ..., 30.
def test_a_joker_adds_its_dice_sum_to_the_scores_a_sum_scoring_full_house_may_hold() -> None:
    rs = R.preset("yatzy", {"joker": "forced"})
    genuine = {3 * a + 2 * b for a in FACES for b in FACES if a != b}
    jokers = {5 * f for f in FACES}
    assert R.box_values(rs, rs.box_index("full_house")) == frozenset({0} | genuine | jokers)
    assert R.box_values(R.preset("yatzy"), rs.box_index("full_house")) == frozenset({0} | genuine)


def test_a_sheet_without_a_yahtzee_box_lists_each_boxs_natural_scores() -> None:
    rs = _custom([{"key": "sixes", "kind": "upper", "face": 6}, {"key": "chance", "kind": "chance"}])
    assert R.box_values(rs, 0) == frozenset(range(0, 31, 6))
    assert R.box_values(rs, 1) == frozenset(range(5, 31)) | {0}


# legal_mask's column defaults to the first: on an empty one-column Yahtzee sheet every box is open.
def test_legal_mask_defaults_to_the_first_column() -> None:
    rs = R.preset("yahtzee")
    assert R.legal_mask(rs, 0, None, (1, 2, 3, 4, 6)) == (1 << 13) - 1


# A placement with no bonus named earns none, in the first column, as no joker.
def test_an_option_defaults_to_no_bonus_in_the_first_column() -> None:
    assert R.Option(box=3, score=12) == R.Option(box=3, score=12, bonus=0, column=0, joker=False)


def test_no_columns_score_nothing_kept_or_added() -> None:
    assert R.weighted_total([], [], add_columns=True) == 0
    assert R.weighted_total([], [], add_columns=False) == 0


# --------------------------------------------------------------------------- --rules: a name or a file

def test_a_file_without_json_suffix_in_the_current_directory_is_read(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house").write_text('{"preset": "yatzy"}')
    assert R.load_rules("house").settings.upper_bonus == 50


def test_a_preset_name_wins_over_a_file_of_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "yatzy").write_text('{"preset": "yahtzee"}')
    assert R.load_rules("yatzy").name == "yatzy"


def test_an_unknown_name_says_it_is_neither_preset_nor_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesError, match="there is no file named 'farkle'"):
        R.load_rules("farkle")


def test_a_variant_named_without_rules_is_not_looked_for_as_a_file(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "giant-yatzy").write_text('{"preset": "yahtzee"}')
    with pytest.raises(RulesError, match="no rules for it are given") as caught:
        R.load_rules("giant-yatzy")
    assert "no file named" not in str(caught.value)


# --------------------------------------------------------------------------- --set and dice

def test_a_setting_value_may_hold_an_equals_sign_and_is_refused_whole() -> None:
    with pytest.raises(RulesError, match="got 'a=b'"):
        R.parse_setting("joker=a=b")


def test_column_multipliers_are_read_as_whole_numbers() -> None:
    assert R.parse_setting("column_multipliers=1,2,3") == ("column_multipliers", (1, 2, 3))
    assert R.parse_setting("column_multipliers = 1 2 3") == ("column_multipliers", (1, 2, 3))
    with pytest.raises(RulesError, match="whole numbers like 1,2,3, got '1,x,3'"):
        R.parse_setting("column_multipliers=1,x,3")


# A byte-order mark is dropped at the start of the text only; anywhere else it is not a die.
def test_a_byte_order_mark_is_dropped_only_before_the_first_die() -> None:
    assert R.parse_dice(["\ufeff3", "3", "3", "2", "2"]) == [3, 3, 3, 2, 2]
    assert R.parse_dice(["\ufeff33322"]) == [3, 3, 3, 2, 2]
    with pytest.raises(RulesError, match="dice are the digits 1-6"):
        R.parse_dice(["3", "\ufeff3", "3", "2", "2"])


def test_edges_of_the_rule_models_and_dice() -> None:
    """Bounds a rules file or --set may reach exactly, and what stays immutable."""
    from pydantic import ValidationError

    zero = R.rules_from_data({"boxes": [{"key": "nothing", "kind": "straight", "length": 5, "points": 0}]})
    assert zero.boxes[0].points == 0  # a box may be worth nothing
    with pytest.raises(RulesError, match="points"):
        R.rules_from_data({"boxes": [{"key": "less", "kind": "straight", "length": 5, "points": -1}]})
    assert R.preset("yahtzee", {"upper_bonus_threshold": 0}).settings.upper_bonus_threshold == 0
    assert R.preset("yahtzee", {"extra_yahtzee_bonus": 200}).settings.extra_yahtzee_bonus == 200
    rs = R.preset("yahtzee")
    with pytest.raises(ValidationError):
        rs.settings.joker = "off"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        rs.dice = 6  # type: ignore[misc]
    with pytest.raises(RulesError, match="dice faces must be 1-6, got 7"):
        rs.check_dice((1, 2, 3, 4, 7))
    assert R.parse_dice(["1"] * R.MAX_DICE_WORDS) == [1] * R.MAX_DICE_WORDS  # the limit itself is allowed
    with pytest.raises(RulesError, match="more than 64"):
        R.parse_dice(["1"] * (R.MAX_DICE_WORDS + 1))


def test_out_of_order_on_a_two_column_sheet_names_the_column() -> None:
    rs = R.preset("yahtzee", {"columns": 2, "column_fill": "down"})
    with pytest.raises(R.IllegalMove, match=r"\(column 2's boxes must be filled in order\); legal: ones"):
        R.place(rs, R.Column.empty(rs), rs.box_index("chance"), (1, 1, 2, 3, 4), 1)
