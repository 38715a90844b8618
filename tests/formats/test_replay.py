"""`yahtzee replay`, `score --sheet` and yahtzee_cli.formats.replay: sheets, standings, recalculation, steps."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES as FIX

from yahtzee_cli.errors import GameError
from yahtzee_cli.formats.logs import SHEET_FORMAT
from yahtzee_cli.formats.replay import (
    position_from_data,
    position_from_log,
    position_from_sheet,
    random_log,
    render,
    replay_dict,
    replay_game,
    roll_choices,
    turn_steps,
)
from yahtzee_cli.formats.validate import check_game as validate_check_game
from yahtzee_cli.rules import engine as R


def load(path: str) -> dict:
    return orjson.loads((FIX / path).read_bytes())


def totals(path: str, **kw: object) -> dict[str, int]:
    rp = replay_game(load(path), **kw)  # type: ignore[arg-type]
    return {p.name: p.total for p in rp.players}


# --------------------------------------------------------------------------- totals of the fixtures


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("logs/yahtzee-perfect.json", {"Perfect": 1575}),  # the theoretical maximum of Hasbro's rules
        ("logs/yatzy-perfect.json", {"Perfect": 374}),  # the theoretical maximum of Scandinavian Yatzy
        ("logs/anna-and-ben.json", {"Anna": 420, "Ben": 160}),
        ("sheets/anna-and-ben.json", {"Anna": 420, "Ben": 160}),
        ("sheets/anna-and-ben-with-totals.json", {"Anna": 420, "Ben": 160}),
        # 2+6+9+12+15+18 = 62 upstairs (no bonus); 22+19+25+30+40+50+21 = 207 downstairs
        ("logs/kniffel.json", {"Uwe": 269}),
        # upper 2+6+9+20+15+30 = 82 +35; lower 27+13+25+30+40+50+24 = 209; three extra Yahtzees +300
        ("logs/joker.json", {"Jo": 626}),
        # upper 2+6+9+8+15+18 = 58; lower 27+13+25+30+40+50+20 = 205; one extra Yahtzee +100
        ("logs/joker-free.json", {"Jo": 363}),
        # columns 236, 376, 212 weighted 1, 2, 3
        ("sheets/triple-yahtzee.json", {"Anna": 236 + 2 * 376 + 3 * 212}),
    ],
)
def test_fixture_totals(path: str, expected: dict[str, int]) -> None:
    assert totals(path) == expected


def test_perfect_games_reach_the_theoretical_maximum() -> None:
    assert totals("logs/yahtzee-perfect.json")["Perfect"] == R.preset("yahtzee").theoretical_max
    assert totals("logs/yatzy-perfect.json")["Perfect"] == R.preset("yatzy").theoretical_max


def test_seed_002_standings_and_state() -> None:
    for path in ("logs/anna-and-ben.json", "sheets/anna-and-ben.json"):
        rp = replay_game(load(path))
        assert [(p.name, p.total, p.rank) for p in rp.players] == [("Anna", 420, 1), ("Ben", 160, 2)]
        assert rp.game_over and rp.winners == ("Anna",) and rp.next_player is None
        anna = rp.players[0].totals[0]
        assert (anna.upper_sum, anna.upper_bonus, anna.upper_total, anna.lower_total) == (70, 35, 105, 315)
        ben = rp.players[1].totals[0]
        assert (ben.upper_sum, ben.upper_bonus, ben.upper_total, ben.lower_total) == (62, 0, 62, 98)


def test_empty_yahtzee_bonus_box_leaves_the_sheet_unfinished() -> None:
    rp = replay_game(load("sheets/unfinished-bonus.json"))
    assert not rp.game_over and "Ben's yahtzee_bonus box is empty" in (rp.unfinished or "")
    assert [p.total for p in rp.players] == [420, 160] and rp.winners == ("Anna",)
    d = replay_dict(rp)
    assert d["players"][1]["columns"][0]["yahtzee_bonus"] is None and d["winners"] == [] and d["leaders"] == ["Anna"]
    # Anna's sheet is whole, her 100 bonus written; only Ben's empty bonus box leaves his open
    assert [p.finished for p in rp.players] == [True, False]
    assert d["players"][0]["columns"][0]["yahtzee_bonus"] == 100 and d["players"][0]["finished"] is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        rp.players[0].total = 0  # type: ignore[misc]


def test_yatzy_sheets_need_no_bonus_box() -> None:
    rs = R.preset("yatzy")
    boxes = dict.fromkeys(rs.keys, 0)
    sheet = {"format": SHEET_FORMAT, "rules": "yatzy", "players": [{"name": "A", "boxes": boxes}]}
    rp = replay_game(sheet)
    assert rp.game_over and not rp.bonus_box
    assert rp.players[0].finished  # every box filled, and Yatzy has no bonus box to wait for


def test_ties_share_a_rank() -> None:
    def player(name: str, chance: int) -> dict:
        return {"name": name, "boxes": {"chance": chance}}

    sheet = {"format": SHEET_FORMAT, "rules": "yahtzee",
             "players": [player("A", 20), player("B", 25), player("C", 25), player("D", 5)]}
    rp = replay_game(sheet)
    assert [(p.name, p.rank) for p in rp.players] == [("A", 3), ("B", 1), ("C", 1), ("D", 4)]
    assert rp.winners == ("B", "C") and not rp.game_over
    full = dict.fromkeys(R.preset("yahtzee").keys, 0) | {"yahtzee_bonus": 0}
    sheet["players"] = [{"name": n, "boxes": full | {"chance": 22}} for n in ("A", "B")]
    text = render(replay_game(sheet))
    assert text.endswith("Game over: a tie between A, B.")
    assert "1     A          22  winner\n1     B          22  winner" in text


def test_triple_sheet_columns_multipliers_and_add_columns() -> None:
    rp = replay_game(load("sheets/triple-yahtzee.json"))
    (anna,) = rp.players
    assert [t.total for t in anna.totals] == [236, 376, 212]
    d = replay_dict(rp)
    assert [(c["multiplier"], c["counted"]) for c in d["players"][0]["columns"]] == [(1, 236), (2, 752), (3, 636)]
    assert totals("sheets/triple-yahtzee.json", overrides={"add_columns": False}) == {"Anna": 752}
    text = render(rp)
    assert "Anna x1  Anna x2  Anna x3" in text and "Counted" in text


# --------------------------------------------------------------------------- --until and --set


def test_until_replays_the_first_turns() -> None:
    rp = replay_game(load("logs/anna-and-ben.json"), until=3)
    assert rp.turns == 3 and not rp.game_over and rp.next_player == "Ben"
    assert [p.total for p in rp.players] == [53, 2]  # Anna: Yahtzee 50 + Aces 3; Ben: Aces 2
    assert replay_game(load("logs/anna-and-ben.json"), until=0).next_player == "Anna"
    assert replay_game(load("logs/anna-and-ben.json"), until=999).game_over
    with pytest.raises(ValueError, match="needs a game log"):
        replay_game(load("sheets/anna-and-ben.json"), until=3)


@pytest.mark.parametrize(
    ("path", "overrides", "expected"),
    [
        ("logs/anna-and-ben.json", {"upper_bonus_threshold": 71}, {"Anna": 385, "Ben": 160}),
        ("logs/anna-and-ben.json", {"upper_bonus_threshold": 62}, {"Anna": 420, "Ben": 195}),
        ("logs/anna-and-ben.json", {"extra_yahtzee_bonus": 50}, {"Anna": 370, "Ben": 160}),
        ("logs/anna-and-ben.json", {"joker": "off"}, {"Anna": 395, "Ben": 160}),  # 3 3 3 3 3 in Full house: 0
        ("sheets/anna-and-ben.json", {"extra_yahtzee_bonus": 50}, {"Anna": 370, "Ben": 160}),
        ("sheets/anna-and-ben.json", {"upper_bonus": 50}, {"Anna": 435, "Ben": 160}),
    ],
)
def test_set_recalculates_the_match(path: str, overrides: dict, expected: dict[str, int]) -> None:
    rp = replay_game(load(path), overrides=overrides)
    assert {p.name: p.total for p in rp.players} == expected and rp.illegal == ()
    assert dict(rp.overrides) == overrides


def test_the_title_names_list_settings_by_their_values() -> None:
    rp = replay_game(load("logs/triple-yahtzee.json"), overrides={"column_multipliers": [3, 2, 1]})
    assert render(rp).splitlines()[0] == "triple-yahtzee with column_multipliers=3,2,1, 39 turns"


def test_set_reports_moves_that_become_illegal_and_where() -> None:
    rp = replay_game(load("logs/anna-and-ben.json"), overrides={"fill_in_order": True})
    assert rp.illegal and all(p.path.startswith("/turns/") and p.path.endswith("/box") for p in rp.illegal)
    assert "boxes must be filled in order" in rp.illegal[0].message
    assert {p.name: p.total for p in rp.players} == {"Anna": 420, "Ben": 160}  # written anyway, same values
    assert "Illegal under the new settings" in render(rp)
    passed = replay_game(load("logs/pass.json"), overrides={"must_zero": True})
    assert [p.message[:20] for p in passed.illegal] == ["passed (box null), b"]
    assert replay_game(load("logs/pass.json")).illegal == ()
    with pytest.raises(R.RulesError):
        replay_game(load("logs/anna-and-ben.json"), overrides={"joker": "sometimes"})


def test_invalid_games_are_refused_with_every_problem() -> None:
    with pytest.raises(GameError) as err:
        replay_game(load("invalid/wrong-score.json"))
    assert [str(p) for p in err.value.problems] == [
        "/turns/16/score: claimed score 26, but 2 4 6 6 6 scores 24 in three_of_a_kind"]


# --------------------------------------------------------------------------- positions (hint) and steps (analyze)


def test_position_of_an_in_progress_turn() -> None:
    pos = position_from_log(load("logs/in-progress.json"))
    assert pos.player == "Ben" and pos.dice == (3, 3, 3, 4, 5)
    assert pos.rolls == ((1, 3, 3, 5, 6), (3, 3, 3, 4, 5)) and pos.held == ((3, 3, 5),)
    assert (pos.rolls_used, pos.rolls_left, pos.saved, pos.turns_taken) == (2, 1, 0, 4)
    assert len(pos.columns) == 1 and sum(s is not None for s in pos.columns[0].scores) == 4
    anna = position_from_log(load("logs/in-progress.json"), "anna")
    assert anna.player == "Anna" and anna.dice is None and anna.rolls_left == 3 and anna.turns_taken == 5
    with pytest.raises(ValueError, match="unknown player"):
        position_from_log(load("logs/in-progress.json"), "Cleo")


def test_position_between_turns_and_after_the_game() -> None:
    pos = position_from_log(load("logs/anna-and-ben.json"), until=5)
    assert pos.player == "Ben" and pos.dice is None and pos.turns_taken == 2
    over = position_from_log(load("logs/anna-and-ben.json"))
    assert over.finished and over.total == 160  # the last player to move


def test_position_from_a_sheet() -> None:
    pos = position_from_sheet(load("sheets/partial.json"))
    assert pos.player == "Anna" and not pos.finished and pos.rolls_left == 3 and pos.turns_taken == 5
    assert pos.saved == 0 and pos.rolls_used == 0 and pos.dice is None  # between turns, nothing rolled or saved
    # Maxi Yatzy: a sheet records no saved rolls, so the next turn has the plain three
    maxi = {"format": SHEET_FORMAT, "rules": "maxi-yatzy", "players": [{"name": "A", "boxes": {"ones": 3}}]}
    mpos = position_from_sheet(maxi)
    assert (mpos.saved, mpos.rolls_left, mpos.turns_taken) == (0, 3, 1)
    assert pos.columns[0].scores[pos.rules.box_index("fours")] == 16
    with pytest.raises(ValueError, match="2 players"):
        position_from_sheet(load("sheets/anna-and-ben.json"))
    assert position_from_data(load("sheets/anna-and-ben.json"), "Ben").total == 160
    assert position_from_data(load("logs/in-progress.json")).player == "Ben"


def test_saved_rolls_follow_the_maxi_log() -> None:
    game = load("logs/maxi-yatzy.json")
    steps = turn_steps(game)
    rs = R.preset("maxi-yatzy")
    saved = {"Anna": 0, "Ben": 0}
    for s in steps:
        assert s.saved == saved[s.name] and len(s.rolls) <= R.rolls_allowed(rs, s.saved)
        saved[s.name] = R.saved_after(rs, s.saved, len(s.rolls))
    assert any(len(s.rolls) > 3 for s in steps)
    assert position_from_log(game, "Anna").saved == saved["Anna"]


def test_turn_steps_rebuild_the_sheets_through_the_rules() -> None:
    game = load("logs/anna-and-ben.json")
    steps = turn_steps(game)
    assert len(steps) == 26 and [s.name for s in steps[:4]] == ["Anna", "Ben", "Anna", "Ben"]
    rs = R.preset("yahtzee")
    sheets: dict[str, R.Column] = {}
    for s in steps:
        before = sheets.get(s.name, R.Column.empty(rs))
        assert s.columns == (before,)
        after, opt = R.place(rs, before, s.box, s.rolls[-1])
        assert opt == s.option
        sheets[s.name] = after
    joker = steps[10]
    assert (joker.name, joker.rolls[-1], rs.keys[joker.box]) == ("Anna", (3, 3, 3, 3, 3), "full_house")
    assert (joker.option.score, joker.option.bonus, joker.option.joker) == (25, 100, True)
    assert [R.sheet_total(rs, [c]) for c in sheets.values()] == [420, 160]
    ip = turn_steps(load("logs/in-progress.json"))[-1]
    assert ip.in_progress and ip.box is None and ip.held == ((3, 3, 5),)


def test_random_logs_are_reproducible() -> None:
    assert random_log("triple-yatzy", 5, ("A", "B")) == random_log("triple-yatzy", 5, ("A", "B"))
    assert random_log("yahtzee", 5) != random_log("yahtzee", 6)


# --------------------------------------------------------------------------- the replay CLI


SEED_002_TEXT = """\
yahtzee
Box            Anna  Ben
Aces              3    2
Twos              8    6
Threes            9    9
Fours            12   12
Fives            20   15
Sixes            18   18
Upper sum        70   62
Upper bonus      35    0
Upper total     105   62
3 of a kind      24   22
4 of a kind      23    0
Full house       25   25
Sm straight      30   30
Lg straight      40    0
Yahtzee          50    0
Chance           23   21
Yahtzee bonus   100    0
Lower total     315   98
Grand total     420  160

Rank  Player  Score
1     Anna      420  winner
2     Ben       160
Game over: Anna wins.
"""


def test_cli_replay_of_the_worked_example(cli) -> None:
    r = cli(["replay", str(FIX / "sheets/anna-and-ben.json")])
    assert r.exit_code == 0 and r.stdout == SEED_002_TEXT
    log = cli(["replay", str(FIX / "logs/anna-and-ben.json")])
    assert log.stdout == SEED_002_TEXT.replace("yahtzee\n", "yahtzee, 26 turns\n", 1)


def test_cli_replay_json(cli) -> None:
    r = cli(["replay", str(FIX / "logs/in-progress.json"), "--json"])
    d, summary = map(json.loads, r.stdout.splitlines())  # one game, then the summary, as for a batch
    assert d["type"] == "game" and summary["type"] == "summary"
    assert d["game_over"] is False and d["next"] == "Ben" and d["turns"] == 10
    # turns are numbered from 1 where users see them (the tenth turn); the pointer names its index
    ip = d["in_progress"]
    assert {k: ip[k] for k in ("player", "turn", "path", "dice", "rolls_used", "rolls_left", "saved")} == {
        "player": "Ben", "turn": 10, "path": "/turns/9", "dice": [3, 3, 3, 4, 5], "rolls_used": 2,
        "rolls_left": 1, "saved": 0}
    # the dice so far and the boxes they may go in, with what each writes (as `log show --json`)
    assert len(ip["rolls"]) == 2 and ip["rolls"][-1] == [3, 3, 3, 4, 5] and ip["may_pass"] is False
    assert {"box": "chance", "column": 1, "score": 18, "bonus": 0, "joker": False} in ip["legal"]
    assert [s["name"] for s in d["standings"]] == sorted(["Anna", "Ben"], key=lambda n: -next(
        p["total"] for p in d["players"] if p["name"] == n))
    assert set(d["players"][0]["columns"][0]) >= {"boxes", "yahtzee_bonus", "upper_sum", "upper_bonus",
                                                  "upper_total", "lower_total", "total", "multiplier"}
    solo = cli(["replay", str(FIX / "logs/yahtzee-perfect.json")])
    assert "Score: 1575\nGame over." in solo.stdout


def test_cli_replay_set_and_until(cli) -> None:
    r = cli(["replay", str(FIX / "logs/anna-and-ben.json"), "--set", "upper_bonus_threshold=71", "--json"])
    assert [p["total"] for p in json.loads(r.stdout.splitlines()[0])["players"]] == [385, 160]
    r = cli(["replay", str(FIX / "logs/anna-and-ben.json"), "--until", "3"])
    assert r.exit_code == 0 and "yahtzee, 3 turns" in r.stdout and r.stdout.endswith("Next: Ben.\n")
    assert cli(["replay", str(FIX / "sheets/anna-and-ben.json"), "--until", "3"]).exit_code == 2
    assert cli(["replay", str(FIX / "logs/anna-and-ben.json"), "--set", "jokers=off"]).exit_code == 2
    assert cli(["replay", str(FIX / "logs/anna-and-ben.json"), "--set", "joker=maybe"]).exit_code == 2
    assert cli(["replay", str(FIX / "logs/anna-and-ben.json"), "--until", "-1"]).exit_code == 2


def test_cli_replay_batch_and_errors(cli) -> None:
    r = cli(["replay", "-v", str(FIX / "logs/batch.ndjson")])
    assert r.exit_code == 0 and r.stdout.count("== ") == 5 and "batch.ndjson:4: game 4 ==" in r.stdout
    # without --verbose a batch is one line of standings per game
    short = cli(["replay", str(FIX / "logs/batch.ndjson")]).stdout.split("\n\n")[0].splitlines()  # then the tally
    assert len(short) == 5 and short[3].endswith("batch.ndjson:4: game 4: 1. Anna 12, 2. Ben 0  (unfinished)")
    bad = cli(["replay", str(FIX / "invalid/joker-forbidden.json")])
    assert bad.exit_code == 1 and bad.stdout == ""
    assert bad.stderr.startswith("yahtzee: error: ") and "/turns/6/box: full_house is not allowed" in bad.stderr
    empty = cli(["replay", "-"], input=b"")
    assert empty.exit_code == 1 and "empty input" in empty.stderr and empty.stdout == ""


# --------------------------------------------------------------------------- score --sheet


def test_roll_choices_on_a_sheet_follow_the_forced_joker() -> None:
    pos = position_from_sheet(load("sheets/partial.json"))  # fours filled, Yahtzee 50
    ch = roll_choices(pos, [4, 4, 4, 4, 4])
    rs = pos.rules
    assert {rs.keys[o.box]: o.score for o in ch.legal} == {
        "three_of_a_kind": 20, "four_of_a_kind": 20, "small_straight": 30, "large_straight": 40}
    assert ch.bonus == 100 and not ch.may_pass
    with pytest.raises(R.RulesError):
        roll_choices(pos, [4, 4, 4])


def test_cli_score_sheet(cli) -> None:
    sheet = str(FIX / "sheets/partial.json")
    r = cli(["score", "44444", "--sheet", sheet, "--json"])
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["bonus"] == 100 and d["player"] == "Anna"
    assert [(o["box"], o["score"], o["joker"]) for o in d["legal"]] == [
        ("three_of_a_kind", 20, True), ("four_of_a_kind", 20, True), ("small_straight", 30, True),
        ("large_straight", 40, True)]
    assert d["scores"]["fours"] == 20  # the natural scores are still there
    text = cli(["score", "4", "4", "4", "4", "4", "--sheet", sheet]).stdout
    assert "Lg straight (joker)" in text and "extra Yahtzee bonus: +100" in text
    assert cli(["score", "44444", "--sheet", sheet, "--box", "ls"]).stdout == "40\n"
    no = cli(["score", "44444", "--sheet", sheet, "--box", "chance"])
    assert no.exit_code == 1 and "chance is not legal now" in no.stderr
    assert cli(["score", "44444", "--sheet", sheet, "--rules", "yatzy"]).exit_code == 2
    assert cli(["score", "4444", "--sheet", sheet]).exit_code == 2
    two = cli(["score", "44444", "--sheet", str(FIX / "sheets/anna-and-ben.json")])
    assert two.exit_code == 1 and "2 players" in two.stderr
    full = cli(["score", "44444", "--sheet", str(FIX / "logs/yahtzee-perfect.json")])
    assert full.exit_code == 1 and "sheet is full" in full.stderr


def test_cli_score_sheet_fill_order_and_columns(cli, tmp_path: Path) -> None:
    forced = {"format": SHEET_FORMAT, "rules": "forced-yatzy", "players": [{"name": "F", "boxes": {"ones": 2}}]}
    (tmp_path / "f.json").write_bytes(orjson.dumps(forced))
    d = json.loads(cli(["score", "22345", "--sheet", str(tmp_path / "f.json"), "--json"]).stdout)
    assert [(o["box"], o["score"]) for o in d["legal"]] == [("twos", 4)]
    tri = load("sheets/triple-yahtzee.json")
    tri["players"][0]["columns"][1]["boxes"]["chance"] = None
    tri["players"][0]["columns"][2]["boxes"]["chance"] = None
    (tmp_path / "t.json").write_bytes(orjson.dumps(tri))
    d = json.loads(cli(["score", "66655", "--sheet", str(tmp_path / "t.json"), "--json"]).stdout)
    assert [(o["box"], o["column"], o["score"]) for o in d["legal"]] == [("chance", 2, 28), ("chance", 3, 28)]
    r = cli(["score", "66655", "--sheet", str(tmp_path / "t.json"), "--box", "chance"])
    assert r.stdout == "column 2: 28\ncolumn 3: 28\n"


# --------------------------------------------------------------------------- random_log's games


def _roll_counts(log: dict) -> list[int]:
    return [len(t["rolls"]) for t in log["turns"]]


@pytest.mark.parametrize("preset", ["yahtzee", "triple-yatzy", "maxi-yatzy"])
def test_random_logs_are_whole_legal_games(preset: str) -> None:
    # every box of every column filled (13 boxes x 3 columns in Triple Yatzy) and nothing the
    # validator objects to: no turn rolls more often than the rules allow or than it records
    for seed in range(3):
        log = random_log(preset, seed, ("A", "B"))
        assert validate_check_game(log) == []
        rs = R.preset(preset)
        boxes = len(rs.boxes) * rs.settings.columns
        written = [t for t in log["turns"] if not t.get("passed")]
        assert len(written) == 2 * boxes


def test_random_logs_roll_one_to_three_times_and_every_face() -> None:
    # Yahtzee: one, two or three rolls a turn, all three seen over a few games; the held dice are
    # taken from the roll before; each face 1-6 comes up in the first rolls
    counts: set[int] = set()
    faces: set[int] = set()
    for seed in range(3):
        log = random_log("yahtzee", seed)
        counts.update(_roll_counts(log))
        for t in log["turns"]:
            faces.update(t["rolls"][0])
            for before, held in zip(t["rolls"], t["held"], strict=False):
                assert all(held.count(d) <= before.count(d) for d in held)
    assert counts == {1, 2, 3}
    assert faces == {1, 2, 3, 4, 5, 6}


def test_random_maxi_logs_use_saved_rolls() -> None:
    # Maxi Yatzy saves unused rolls: some turns roll a fourth time, none rolls zero times
    counts = [c for seed in range(3) for c in _roll_counts(random_log("maxi-yatzy", seed))]
    assert min(counts) == 1 and max(counts) >= 4


def test_random_log_seed_defaults_to_zero() -> None:
    assert random_log("yahtzee") == random_log("yahtzee", 0)


def test_random_logs_name_the_column_whenever_there_are_several() -> None:
    # two columns (a setting, no preset has it): every written turn says which, 1 or 2, and validates
    spec = {"preset": "triple-yahtzee", "settings": {"columns": 2, "column_multipliers": [1, 2]}}
    log = random_log(R.rules_from_data(spec), 0, ("A",), spec=spec)
    assert validate_check_game(log) == []
    assert {t.get("column") for t in log["turns"]} == {1, 2}


# --------------------------------------------------------------------------- mutation survivors (replay)


def test_replay_position_and_roll_choices_are_immutable() -> None:
    rp = replay_game(load("logs/anna-and-ben.json"))
    pos = position_from_log(load("logs/in-progress.json"))
    choices = roll_choices(pos, [1, 2, 3, 4, 5])
    for obj, name in ((rp, "game_over"), (pos, "player"), (choices, "bonus")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, name, None)


def test_replay_json_says_who_won_and_what_is_unfinished() -> None:
    # anna-and-ben: Anna 420 beats Ben 160, the game is over; in-progress.json: nobody has won yet
    done = replay_game(load("logs/anna-and-ben.json"))
    assert done.unfinished is None
    data = replay_dict(done)
    assert data["format"] == "yahtzee-log/1"
    assert {p["name"]: p["winner"] for p in data["players"]} == {"Anna": True, "Ben": False}
    # a log has no bonus box left empty: Hasbro's bonus row is a number in every column
    assert all(isinstance(c["yahtzee_bonus"], int) for p in data["players"] for c in p["columns"])
    going = replay_game(load("logs/in-progress.json"))
    assert going.unfinished == "the game is in progress"
    assert [p["winner"] for p in replay_dict(going)["players"]] == [False, False]
    assert replay_dict(replay_game(load("sheets/anna-and-ben.json")))["format"] == SHEET_FORMAT


def test_in_progress_state_line_counts_rolls_out_of_three() -> None:
    log = load("logs/in-progress.json")
    used = len(log["turns"][-1]["rolls"])  # the unfinished last turn: Hasbro allows three rolls
    text = render(replay_game(log))
    assert f"(roll {used} of 3, {3 - used} left)." in text


def test_two_column_games_render_multipliers_and_counted() -> None:
    spec = {"preset": "triple-yahtzee", "settings": {"columns": 2, "column_multipliers": [1, 2]}}
    log = random_log(R.rules_from_data(spec), 0, ("A",), spec=spec)
    text = render(replay_game(log))
    assert "A x1" in text and "A x2" in text
    assert any(line.startswith("Counted ") for line in text.splitlines())


def test_walk_steps_under_new_settings_do_not_check_the_old_claims() -> None:
    # joker.json claims +100 per extra Yahtzee; at 50 those claims are stale, not illegal moves
    from yahtzee_cli.formats.replay import walk_steps

    _, walk = walk_steps(load("logs/joker.json"), overrides={"extra_yahtzee_bonus": 50})
    assert not [p for p in walk.problems if "claimed" in p.message]
    assert replay_game(load("logs/joker.json"), overrides={"extra_yahtzee_bonus": 50}).players[0].total < 626


def test_random_log_turns_stops_after_exactly_that_many() -> None:
    assert len(random_log("yahtzee", 1, ("A", "B"), turns=3)["turns"]) == 3


def test_random_logs_reroll_every_face_and_leave_one_column_unnamed() -> None:
    faces: set[int] = set()
    for seed in range(3):
        log = random_log("yahtzee", seed)
        assert all("column" not in t for t in log["turns"])  # one column: no column to name
        # by default each written turn claims its score (checked by the validator)
        assert all(isinstance(t["score"], int) for t in log["turns"] if t["box"] is not None)
        for t in log["turns"]:
            for held, roll in zip(t["held"], t["rolls"][1:], strict=True):
                # the dice thrown again: the roll less the dice held
                thrown = list(roll)
                for d in held:
                    thrown.remove(d)
                faces.update(thrown)
    assert faces == {1, 2, 3, 4, 5, 6}


# a custom game with no Yahtzee box where most rolls score nothing: four of a kind, a large straight
SPARSE = {"name": "sparse", "dice": 5, "boxes": [
    {"key": "four", "kind": "kind", "n": 4, "scoring": "matching"},
    {"key": "run", "kind": "straight", "length": 5, "points": 40}]}


def test_random_logs_pass_only_where_the_rules_allow() -> None:
    # must_zero off: a turn whose roll scores nowhere may pass (box null), and such logs validate
    spec = {**SPARSE, "settings": {"must_zero": False}}
    rs = R.rules_from_data(spec)
    passes = 0
    for seed in range(4):
        log = random_log(rs, seed, spec=spec)
        assert validate_check_game(log) == []
        passes += sum(1 for t in log["turns"] if "box" in t and t["box"] is None)  # a pass
    assert passes > 0


def test_random_logs_of_games_without_a_yahtzee_box() -> None:
    # no Yahtzee box (no joker, no extra bonus); in order, each turn has one legal box
    for settings in ({}, {"fill_in_order": True}):
        spec = {**SPARSE, "settings": settings}
        for seed in range(3):
            log = random_log(R.rules_from_data(spec), seed, ("A", "B"), spec=spec)
            assert validate_check_game(log) == []
            assert len([t for t in log["turns"] if t["box"] is not None]) == 2 * 2


@pytest.mark.parametrize("preset", ["forced-yatzy", "triple-yahtzee"])
def test_random_logs_follow_fill_order_and_joker(preset: str) -> None:
    for seed in range(3):
        assert validate_check_game(random_log(preset, seed, ("A", "B"))) == []


def test_a_full_sheet_has_no_place_and_no_bonus_for_a_roll() -> None:
    pos = position_from_log(load("logs/yahtzee-perfect.json"))
    choices = roll_choices(pos, [6, 6, 6, 6, 6])
    assert choices.legal == () and choices.bonus == 0


def test_random_logs_roll_as_their_docstring_says() -> None:
    """A random turn rolls once (1 in 5), twice (1 in 5) or three times (3 in 5), and one roll more
    (1 in 5) only when saved rolls allow more than three: on seeded games, within 0.03 of those
    shares (1,950 turns), never more than four rolls, and the fourth roll seen with exactly four allowed."""
    from collections import Counter

    counts = Counter(len(t["rolls"]) for seed in range(150) for t in random_log("yahtzee", seed)["turns"])
    total = sum(counts.values())
    assert set(counts) == {1, 2, 3}
    for n, share in ((1, 0.2), (2, 0.2), (3, 0.6)):
        assert abs(counts[n] / total - share) < 0.03, (n, counts[n] / total)
    maxi = R.preset("maxi-yatzy")
    seen: Counter[tuple[int, int]] = Counter()
    for seed in range(60):
        saved: dict[str, int] = {}
        for t in random_log(maxi, seed, ("A", "B"))["turns"]:
            before = saved.get(t["player"], 0)
            allowed, n = R.rolls_allowed(maxi, before), len(t["rolls"])
            assert n <= min(allowed, 4), (allowed, n)
            seen[allowed, n] += 1
            saved[t["player"]] = R.saved_after(maxi, before, n)
    assert seen[4, 4] > 0 and any(seen[a, 4] for a in range(5, 25))


def test_random_logs_without_claims_write_no_bonus_either() -> None:
    """claims=False leaves out every claimed score and extra-Yahtzee bonus; dice that always show six
    make sure bonuses happen (the same game with claims has some)."""
    import random

    class Sixes(random.Random):
        def randint(self, a: int, b: int) -> int:
            return 6

    claimed = random_log("yahtzee", Sixes(3))
    assert any(t.get("bonus") == 100 for t in claimed["turns"])
    bare = random_log("yahtzee", Sixes(3), claims=False)
    assert [t["box"] for t in bare["turns"]] == [t["box"] for t in claimed["turns"]]
    assert all("score" not in t and "bonus" not in t for t in bare["turns"])
