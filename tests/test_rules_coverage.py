"""Per-column fill rules, the theoretical maximum by search, and the rules' own vocabulary.

Expected values come from the rules' sentences or are worked out by hand in the comments."""

from __future__ import annotations

import orjson
import pytest

from yahtzee_cli import rules as R

# --------------------------------------------------------------------------- per-column filling

# "Several sheets are printed with three or six columns and rules about which column a roll may go
# into"; Kniffel is "traditionally played across several columns with different filling restrictions".
KNIFFEL3 = {"columns": 3, "column_fill": "down,up,free"}


def _legal(rs: R.RuleSet, columns: list[R.Column], dice: tuple[int, ...]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for o in R.options(rs, columns, dice):
        out.setdefault(o.column + 1, []).append(rs.keys[o.box])
    return out


def test_each_column_follows_its_own_fill_rule() -> None:
    rs = R.preset("kniffel", KNIFFEL3)
    sheet = R.Sheet(rs).columns
    legal = _legal(rs, sheet, (1, 2, 3, 4, 6))
    assert legal[1] == ["ones"]  # top to bottom: the first box
    assert legal[2] == ["chance"]  # bottom to top: the last box
    assert len(legal[3]) == 13  # any order: every box


def test_bottom_to_top_moves_up_one_box_at_a_time() -> None:
    rs = R.preset("yahtzee", {"column_fill": "up"})
    col = R.Column.empty(rs)
    order = []
    for _ in range(len(rs.boxes)):
        (opt,) = R.column_options(rs, col, (6, 6, 6, 6, 6))
        order.append(rs.keys[opt.box])
        col, _ = R.place(rs, col, opt.box, (6, 6, 6, 6, 6))
    assert order == list(reversed(rs.keys))


def test_out_of_order_in_one_column_names_that_column() -> None:
    rs = R.preset("kniffel", KNIFFEL3)
    with pytest.raises(R.IllegalMove, match=r"\(column 2's boxes must be filled bottom to top\); legal: chance"):
        R.place(rs, R.Column.empty(rs), rs.box_index("ones"), (1, 1, 2, 3, 4), 1)
    with pytest.raises(R.IllegalMove, match=r"\(boxes must be filled in order\); legal: ones"):
        R.place(R.preset("yahtzee", {"fill_in_order": True}), R.Column.empty(rs), 1, (2, 2, 3, 4, 5))


def test_fill_in_order_is_the_shorthand_for_every_column_down() -> None:
    a = R.preset("kniffel", {"columns": 3, "fill_in_order": True}).settings
    b = R.preset("kniffel", {"columns": 3, "column_fill": "down,down,down"}).settings
    c = R.preset("kniffel", {"columns": 3, "column_fill": "down"}).settings  # one rule for every column
    assert a.fills == b.fills == c.fills == ("down", "down", "down")


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["columns=3", "column_fill=down,up"], "column_fill needs one of down, up, free per column"),
        (["column_fill=sideways"], "column_fill"),
        (["fill_in_order=on", "column_fill=up"], "fill_in_order=on means every column down"),
    ],
)
def test_bad_column_fill_is_refused(sets: list[str], message: str) -> None:
    with pytest.raises(R.RulesError, match=message):
        R.load_rules("kniffel", sets)


def test_a_column_rule_replaces_a_presets_fill_in_order() -> None:
    # Forced Yatzy fills top to bottom; a column rule given alone replaces that shorthand.
    assert R.preset("forced-yatzy", {"column_fill": ("up",)}).settings.fills == ("up",)


def test_rules_describes_the_multi_column_sheet(cli) -> None:
    r = cli(["rules", "kniffel", "--set", "columns=3", "--set", "column_fill=down,up,free"])
    assert r.exit_code == 0
    text = " ".join(r.stdout.split())
    assert ("sheet: 3 columns, added together; any roll may go in any column whose rule allows it: "
            "1 filled top to bottom, 2 filled bottom to top, 3 filled in any order") in text
    data = orjson.loads(cli(["rules", "kniffel", "--set", "columns=3", "--set", "column_fill=down,up,free",
                             "--json"]).stdout)
    assert data["sheet"] == [{"column": 1, "fill": "down", "multiplier": 1},
                             {"column": 2, "fill": "up", "multiplier": 1},
                             {"column": 3, "fill": "free", "multiplier": 1}]
    assert data["settings"]["column_fill"] == ["down", "up", "free"]


# --------------------------------------------------------------------------- theoretical maximum

# Hand derivations (Yahtzee: upper 5+10+15+20+25+30 = 105, bonus 35; lower maxima 3k 30, 4k 30,
# FH 25, SS 30, LS 40, Yahtzee 50, Chance 30 = 235; an extra Yahtzee adds 100):
#  1575  the rules' own figure: 140 upstairs, 235 downstairs, 1200 from twelve extra Yahtzees.
#   475  filled in order: the Yahtzee box is 12th, so only Chance (13th) can take an extra Yahtzee
#        (30 + 100); every box above it takes its plain maximum: 140 + 235 + 100.
#   375  no extra bonus: nothing beats each box's own maximum, 140 + 235.
#  1480  joker off: an extra Yahtzee still earns 100 wherever it goes, but FH/SS/LS score it 0
#        (it is not their shape), and 0 + 100 beats 25/30/40: 740 + 3 x 130 + 3 x 100 + 50.
#  1380  filled bottom to top: Chance 30 before the Yahtzee box 50; then each of LS, SS, FH takes a
#        Yahtzee at 0 + 100 (its own upper box is still open, so no joker value), 4k and 3k 130,
#        the six upper boxes 5f + 100 (705) and the bonus 35: 30+50+300+260+705+35.
#   374  Scandinavian Yatzy, the rules' own figure: upper 105 + 50, pair 12, two pairs 22, 3k 18,
#        4k 24, straights 15 + 20, full house 28, chance 30, Yatzy 50 (no extra bonus, no joker).
#   649  Maxi Yatzy (six dice): upper 126 + 100; 12 + 22 + 30 + 18 + 24 + 30 + 15 + 20 + 21 +
#        28 + 33 + 34 + 36 + 100 = 423 below.
#  2510  Maxi with the forced joker and +100 extras: Maxi Yatzy 100 first, then the six upper boxes
#        at 6f + 100 (726) and the bonus 100, then thirteen lower boxes each +100 (1300) at their joker
#        values 12, 0, 0, 18, 24, 30, 15, 20, 21, 36, 36, 36, 36 (= 284).
@pytest.mark.parametrize(
    ("name", "sets", "maximum"),
    [
        ("yahtzee", {}, 1575),
        ("yacht", {}, 1575),
        ("yahtzee", {"joker": "free"}, 1575),
        ("yahtzee", {"fill_in_order": True}, 475),
        ("yahtzee", {"fill_in_order": True, "joker": "off"}, 475),
        ("yahtzee", {"extra_yahtzee_bonus": 0}, 375),
        ("yahtzee", {"joker": "off"}, 1480),
        ("yahtzee", {"column_fill": ("up",)}, 1380),
        ("kniffel", KNIFFEL3, 475 + 1380 + 1575),
        ("triple-yahtzee", {}, 1575 * (1 + 2 + 3)),
        ("triple-yahtzee", {"add_columns": False}, 1575 * 3),
        ("yatzy", {}, 374),
        ("forced-yatzy", {}, 374),
        ("triple-yatzy", {}, 374 * 6),
        ("maxi-yatzy", {}, 649),
        ("maxi-yatzy", {"joker": "forced", "extra_yahtzee_bonus": 100}, 2510),
        ("maxi-yatzy", {"joker": "forced", "extra_yahtzee_bonus": 100, "fill_in_order": True}, 649),
    ],
)
def test_theoretical_maximum_is_the_best_game_the_rules_allow(name: str, sets: dict[str, object],
                                                              maximum: int) -> None:
    assert R.preset(name, sets).theoretical_max == maximum


@pytest.mark.parametrize("sets", [{}, {"joker": "free"}, {"joker": "off"}, {"upper_bonus_threshold": 100}])
def test_shortcut_for_big_columns_agrees_with_the_search(monkeypatch, sets: dict[str, object]) -> None:
    rs = R.preset("yahtzee", sets)
    searched = R.best_column(rs, 0)
    monkeypatch.setattr(R, "SEARCH_BOXES", 0)
    assert R.best_column(rs, 0) == searched


def test_rules_json_reports_475_for_yahtzee_in_order(cli) -> None:
    r = cli(["rules", "yahtzee", "--set", "fill_in_order=on", "--json"])
    assert orjson.loads(r.stdout)["theoretical_max"] == 475


# --------------------------------------------------------------------------- vocabulary

@pytest.mark.parametrize(("word", "mode"), [("on", "forced"), ("ON", "forced"), ("yes", "forced"),
                                            ("true", "forced"), ("1", "forced"), ("off", "off"), ("no", "off"),
                                            ("false", "off"), ("0", "off"), ("free", "free"), ("forced", "forced")])
def test_joker_rules_on_or_off(word: str, mode: str) -> None:
    # "Joker rules: on or off ... Default: on."
    assert R.load_rules("yahtzee", [f"joker={word}"]).settings.joker == mode
    assert R.rules_from_data({"preset": "yahtzee", "settings": {"joker": word}}).settings.joker == mode


def test_joker_json_bools_and_default() -> None:
    assert R.rules_from_data({"preset": "yahtzee", "settings": {"joker": True}}).settings.joker == "forced"
    assert R.rules_from_data({"preset": "yahtzee", "settings": {"joker": False}}).settings.joker == "off"
    assert R.preset("yahtzee").settings.joker == "forced"


@pytest.mark.parametrize("key", ["fill_in_order", "must_zero", "add_columns", "saved_rolls"])
@pytest.mark.parametrize(("word", "value"), [("on", True), ("Yes", True), ("true", True), ("1", True),
                                             ("off", False), ("no", False), ("FALSE", False), ("0", False)])
def test_every_on_off_setting_takes_the_usual_spellings(key: str, word: str, value: bool) -> None:
    assert getattr(R.load_rules("yahtzee", [f"{key}={word}"]).settings, key) is value


def test_a_bad_joker_word_names_the_choices() -> None:
    with pytest.raises(R.RulesError, match="joker takes forced, free or off"):
        R.load_rules("yahtzee", ["joker=sometimes"])


def test_score_with_joker_on(cli) -> None:
    r = cli(["score", "1", "2", "3", "4", "5", "--rules", "yahtzee", "--set", "joker=on", "--box", "large_straight"])
    assert (r.exit_code, r.stdout) == (0, "40\n")


@pytest.mark.parametrize("name", ["yacht", "generala", "Yacht", "GENERALA"])
def test_yacht_and_generala_play_the_yahtzee_rules(name: str) -> None:
    # "Yacht, Kniffel, Generala. These are the same game."
    rs = R.preset(name)
    assert rs.boxes == R.preset("yahtzee").boxes
    assert rs.fingerprint == R.preset("yahtzee").fingerprint


def test_rules_output_says_historical_yacht_and_generala_differ(cli) -> None:
    out = " ".join(cli(["rules", "generala"]).stdout.split())
    assert "note: generala plays the yahtzee rules; historical Yacht and Generala rules differ" in out
    listing = cli(["rules"]).stdout
    assert "yacht" in listing and "historical Yacht rules differ" in listing


def test_giant_yatzy_is_named_without_rules(cli) -> None:
    r = cli(["score", "12345", "--rules", "giant-yatzy"])
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1
    assert "giant-yatzy is named as a common Yatzy variant, but no rules for it are given" in r.stderr


# --------------------------------------------------------------------------- every command follows the column rules

FIX = __import__("pathlib").Path(__file__).resolve().parent.parent / "fixtures"


def test_score_on_a_sheet_offers_each_columns_next_box(cli) -> None:
    doc = orjson.loads((FIX / "logs/kniffel-columns.json").read_bytes())
    doc["turns"] = doc["turns"][:7]  # Ute to play: one box in each of columns 1 and 2 already filled
    r = cli(["score", "66666", "--sheet", "-", "--json"], input=orjson.dumps(doc))
    legal = orjson.loads(r.stdout)["legal"]
    by_col: dict[int, list[str]] = {}
    for o in legal:
        by_col.setdefault(o["column"], []).append(o["box"])
    filled = {c: [t["box"] for t in doc["turns"] if t["player"] == "Ute" and t["column"] == c] for c in (1, 2, 3)}
    rs = R.preset("kniffel", KNIFFEL3)
    open1 = [k for k in rs.keys if k not in filled[1]]
    open2 = [k for k in rs.keys if k not in filled[2]]
    assert by_col[1] == open1[:1] and by_col[2] == open2[-1:]
    assert len(by_col[3]) == 13 - len(filled[3])


def test_random_play_follows_the_column_rules(cli, tmp_path) -> None:
    path = tmp_path / "games.ndjson"
    r = cli(["simulate", "-S", "random", "-n", "40", "--seed", "5", "-w", "1", "--rules", "kniffel",
             "--set", "columns=3", "--set", "column_fill=down,up,free", "--log-out", str(path), "--json"])
    assert r.exit_code == 0
    assert cli(["validate", "-q", str(path)]).exit_code == 0
    for line in path.read_bytes().splitlines():
        game = orjson.loads(line)
        for col, order in ((1, R.preset("kniffel").keys), (2, tuple(reversed(R.preset("kniffel").keys)))):
            written = [t["box"] for t in game["turns"] if t["column"] == col]
            assert tuple(written) == order


def test_hints_use_one_exact_column_table_only_when_the_columns_share_their_rule() -> None:
    from yahtzee_cli import approx, position

    same = R.preset("kniffel", {"columns": 3, "column_fill": "up"})
    mixed = R.preset("kniffel", KNIFFEL3)
    assert position.single_column(same).settings.fills == ("up",)
    assert position.single_column(mixed, 0).settings.fills == ("down",)
    assert approx.kind_of(same) == "columns"
    assert approx.kind_of(mixed) == "heuristic"


def test_top_to_bottom_roughly_halves_typical_scores() -> None:
    # "a few play strictly top to bottom, which removes almost all the tactics and roughly halves
    # typical scores": optimal play filled down (or up) the sheet against the published optimal
    # free-order expectation, 254.5877287.
    from yahtzee_cli import solver

    for sets in ({"fill_in_order": True}, {"column_fill": ("up",)}):
        mean = solver.build(R.preset("yahtzee", sets)).mean
        assert 0.4 < mean / 254.5877287 < 0.6, (sets, mean)
