"""`yahtzee hint` and the position values behind it (also what replay --analyze grades against)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES as FIX

from yahtzee_cli.errors import PositionError
from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play.hint import source_for
from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy import turn as position


def test_issue_example(cli: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty yahtzee sheet, 1 3 3 5 6, two rolls left: keep 3 3, 251.4054 (251.4072 with joker free)."""
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "fresh"))  # its own empty cache, whatever ran before
    res = cli(["hint", "1", "3", "3", "5", "6", "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["exact"] is True and out["rolls_left"] == 2 and out["dice"] == [1, 3, 3, 5, 6]
    assert out["options"][0] == {"keep": [3, 3], "value": 251.4054, "regret": 0.0}
    regrets = [o["regret"] for o in out["options"]]
    assert regrets == sorted(regrets) and regrets[1] > 0
    assert len(out["options"]) == 2 * 3 * 2 * 2  # every distinct keep of 1 3 3 5 6, keep-all included
    assert "building" not in res.stderr  # the default rules: the table shipped with the package
    free = loads(cli(["hint", "13356", "--set", "joker=free", "--json", "--top", "1"]).stdout)  # type: ignore[operator]
    assert free["options"] == [{"keep": [3, 3], "value": 251.4072, "regret": 0.0}]


def test_first_use_builds_the_table_and_says_so(cli: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an empty cache (not the session's shared one) the hint builds its table and says so on
    stderr; the next hint reads it silently."""
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    args = ["hint", "1", "3", "3", "5", "6", "--rules", "yatzy", "--set", "fill_in_order=true"]
    first = cli(args)  # type: ignore[operator]
    assert first.exit_code == 0 and "building" in first.stderr, first.stderr
    again = cli(args)  # type: ignore[operator]
    assert again.exit_code == 0 and again.stderr == "" and again.stdout == first.stdout


def test_second_use_reuses_the_table(cli: object) -> None:
    cli(["hint", "1", "3", "3", "5", "6"])  # type: ignore[operator]
    res = cli(["hint", "1", "3", "3", "5", "6", "--top", "3"])  # type: ignore[operator]
    assert res.exit_code == 0 and res.stderr == ""
    lines = res.stdout.splitlines()
    assert lines[0] == "1 3 3 5 6, 2 rolls left (yahtzee, exact)"
    assert lines[1].split() == ["option", "expected", "vs", "best"]
    assert lines[2].split() == ["keep", "3", "3", "251.4054", "best"]
    assert len(lines) == 5


def test_boxes_with_no_rolls_left(cli: object) -> None:
    out = loads(cli(["hint", "1", "3", "3", "5", "6", "--rolls-left", "0", "--json"]).stdout)  # type: ignore[operator]
    boxes = [o["box"] for o in out["options"]]
    assert boxes[0] == "threes"
    assert sorted(boxes) == sorted(R.preset("yahtzee").keys)  # every box is legal on an empty sheet
    assert out["options"][0]["score"] == 6


def test_joker_rules_limit_the_boxes(cli: object, tmp_path: Path) -> None:
    """Forced joker: a second Yahtzee of 4s goes in fours while it is open."""
    sheet = {"format": "yahtzee-sheet/1", "rules": "yahtzee",
             "players": [{"name": "Ann", "boxes": {"yahtzee": 50, "ones": 3}}]}
    p = tmp_path / "s.json"
    p.write_text(__import__("json").dumps(sheet))
    out = loads(cli(["hint", "44444", "--rolls-left", "0", "--sheet", str(p), "--json"]).stdout)  # type: ignore[operator]
    assert [o["box"] for o in out["options"]] == ["fours"]
    assert out["options"][0]["bonus"] == 100
    free = loads(cli(["hint", "44444", "--rolls-left", "0", "--sheet", str(p), "--set", "joker=free",  # type: ignore[operator]
                      "--json"]).stdout)
    assert len(free["options"]) == 11  # any open box
    # values include the points on the sheet: 53 written + 100 bonus + 20 fours + what is left
    assert free["options"][0]["value"] > 53 + 100


def test_sheet_and_log_positions(cli: object) -> None:
    res = cli(["hint", "1", "1", "2", "5", "5", "--sheet", str(FIX / "sheets" / "partial.json"), "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["player"] == "Anna"
    assert out["options"][0]["value"] > 116  # Anna has 116 points written
    # a log with a turn in progress supplies the dice and rolls left
    res = cli(["hint", "--log", str(FIX / "logs" / "in-progress.json"), "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["player"] == "Ben" and out["rolls_left"] == 1 and out["dice"] == [3, 3, 3, 4, 5]


def test_values_agree_with_position_api() -> None:
    rules = R.preset("yahtzee")
    col = R.Column.empty(rules)
    turn = position.Turn(rules, (col,), source_for(rules))
    ev = turn.evaluate([6, 6, 6, 2, 1], 1)
    assert ev.find_keep([1, 2, 6, 6, 6]).keep == (1, 2, 6, 6, 6)
    with pytest.raises(PositionError):
        ev.find_keep([5])
    boxes = turn.evaluate([6, 6, 6, 2, 1], 0)
    sixes = boxes.find_box(R.preset("yahtzee").box_index("sixes"))
    assert sixes.score == 18 and sixes.value == pytest.approx(boxes.best.value - sixes.regret)
    # keeping every die is the same as stopping: its value is the best box's
    assert ev.find_keep([1, 2, 6, 6, 6]).value == pytest.approx(boxes.best.value)


def test_chance_only_position_by_hand() -> None:
    """Every box but chance holds 0 (no bonus can come): the value is the dice's expected sum, which
    a hand can work out. One rerolled die is worth 3.5; with two rolls left 4.25 ((4 + 5 + 6) / 6 +
    1/2 x 3.5). So 6 6 6 2 1 with one roll left: keep 6 6 6 for 18 + 7 = 25; keep 6 6 6 2, 23.5;
    stop, 21. With two rolls left keep 6 6 6 for 18 + 8.5 = 26.5."""
    rules = R.preset("yahtzee")
    scores = [0] * len(rules.boxes)
    scores[rules.box_index("chance")] = None  # type: ignore[call-overload]
    turn = position.Turn(rules, (R.Column(tuple(scores)),), source_for(rules))
    one = turn.evaluate([6, 6, 6, 2, 1], 1)
    assert one.best.keep == (6, 6, 6) and one.best.value == pytest.approx(25.0, abs=1e-9)
    assert one.find_keep([2, 6, 6, 6]).regret == pytest.approx(1.5, abs=1e-9)
    assert one.find_keep([1, 2, 6, 6, 6]).regret == pytest.approx(4.0, abs=1e-9)
    assert one.find_keep([]).value == pytest.approx(17.5, abs=1e-9)
    two = turn.evaluate([6, 6, 6, 2, 1], 2)
    assert two.best.keep == (6, 6, 6) and two.best.value == pytest.approx(26.5, abs=1e-9)
    last = turn.evaluate([6, 6, 6, 2, 1], 0)
    assert [(rules.keys[o.box], o.value) for o in last.options if o.box is not None] == [("chance", 21.0)]


@pytest.mark.parametrize(("args", "code", "text"), [
    (["hint", "1", "2", "3"], 2, "needs 5 dice"),
    (["hint", "1", "2", "3", "4", "7"], 2, "1-6"),
    (["hint", "1", "2", "3", "4", "5", "--rolls-left", "3"], 2, "--rolls-left takes 2|1|0"),
    (["hint"], 2, "give the dice"),
    (["hint", "1", "2", "3", "4", "5", "--rules", "nope"], 2, "unknown preset"),
    (["hint", "1", "2", "3", "4", "5", "--sheet", "/nonexistent.json"], 2, "/nonexistent.json: no such file"),
    (["hint", "1", "2", "3", "4", "5", "--rules", "yatzy", "--sheet", "x.json"], 2, "own rules"),
])
def test_errors(cli: object, args: list[str], code: int, text: str) -> None:
    res = cli(args)  # type: ignore[operator]
    assert res.exit_code == code, (res.stdout, res.stderr)
    assert res.stderr.startswith("yahtzee: error:") and text in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def test_game_over_position(cli: object) -> None:
    res = cli(["hint", "1", "2", "3", "4", "5", "--sheet", str(FIX / "sheets" / "anna-and-ben.json"),  # type: ignore[operator]
               "--player", "Anna"])
    assert res.exit_code == 1 and "game is over" in res.stderr


def test_multi_column_hint_is_labelled_approximate(cli: object) -> None:
    res = cli(["hint", "1", "3", "3", "5", "6", "--rules", "triple-yahtzee", "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["exact"] is False
    text = cli(["hint", "1", "3", "3", "5", "6", "--rolls-left", "0", "--rules", "triple-yahtzee", "--top", "2"]).stdout  # type: ignore[operator]
    assert "APPROXIMATE" in text and "column" in text


def test_heuristic_hint_on_a_saved_rolls_sheet(cli: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No exact table (saved rolls): the heuristic strategy, fitted by self-play, answers; approximate."""
    from yahtzee_cli.solver import approx
    from yahtzee_cli.strategy import choice

    monkeypatch.setattr(choice, "AUTO_SAVED_MINUTES", 0.0)  # (else its exact table, quick to build, plays)
    monkeypatch.setattr(approx, "FIT_GAMES", (300, 300))
    monkeypatch.setattr(approx, "EVAL_GAMES", 500)
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))  # the note below is a first run's
    keys = ["ones", "twos", "threes", "three_of_a_kind", "chance", "yahtzee"]
    spec = {"name": "mini", "boxes": [b.model_dump() for b in R.preset("yahtzee").boxes if b.key in keys],
            "settings": {"saved_rolls": True, "upper_bonus_threshold": 12}}
    p = tmp_path / "mini.json"
    p.write_text(__import__("json").dumps(spec))
    # (an empty sheet holds no saved rolls: a turn saves at most 2)
    res = cli(["hint", "1", "1", "2", "3", "6", "--rules", str(p), "--rolls-left", "2", "--saved", "0", "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["exact"] is False and out["rolls_left"] == 2
    assert "preparing the approximate" in res.stderr
    assert cli(["hint", "1", "1", "2", "3", "6", "--rules", str(p), "--rolls-left", "4"]).exit_code == 2  # type: ignore[operator]
    solved = loads(cli(["solve", "--rules", str(p), "--json"]).stdout)  # type: ignore[operator]
    assert solved["exact"] is False and solved["games"] == 500 and solved["expected"] > 0


def test_hint_with_a_cached_table_never_imports_numpy(table_cache: Path) -> None:
    rules = R.preset("yahtzee")
    source_for(rules)  # table in the cache
    code = ("import sys; from yahtzee_cli.cli import main; sys.argv=['yahtzee','hint','1','3','3','5','6'];\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'numpy' not in sys.modules and 'numba' not in sys.modules, 'heavy import'")
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(table_cache)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "251.4054" in res.stdout


def test_certainty_equivalent_of_a_die_by_hand() -> None:
    """ce_mean of the six faces: at theta 0 the mean 3.5; otherwise log(mean(exp(theta * face))) /
    theta, worked out here term by term (a risk seeker values a die above 3.5, a risk avoider below),
    and a single sure value is its own certainty equivalent at any theta."""
    import math

    faces = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert position.ce_mean(faces, 0.0) == 3.5
    for theta in (-0.5, 0.5, 2.0):
        by_hand = math.log((math.exp(theta) + math.exp(2 * theta) + math.exp(3 * theta) + math.exp(4 * theta)
                            + math.exp(5 * theta) + math.exp(6 * theta)) / 6) / theta
        assert position.ce_mean(faces, theta) == pytest.approx(by_hand, abs=1e-12)
        assert position.ce_mean([7.0], theta) == pytest.approx(7.0, abs=1e-12)
    # the faces are symmetric about 3.5, so seeking and avoiding risk by the same theta mirror each other
    assert position.ce_mean(faces, 0.5) + position.ce_mean(faces, -0.5) == pytest.approx(7.0, abs=1e-12)
    assert position.ce_mean(faces, -0.5) < 3.5 < position.ce_mean(faces, 0.5)
    assert position.ce_mean([0.0, 1000.0], 5.0) == pytest.approx(1000 - math.log(2) / 5, abs=1e-9)  # no overflow


def test_final_roll_values_box_by_box_equal_roll_by_roll(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint values its final rolls box by box over all rolls where every roll but a Yahtzee takes
    its natural score; roll by roll (jokers, fill order, passes, columns) must give the same floats."""
    import random

    rules = R.preset("yahtzee")
    src = source_for(rules)
    rng = random.Random(7)
    sheets = []
    for _ in range(40):
        scores: list[int | None] = [None] * len(rules.boxes)
        for b in rng.sample(range(len(rules.boxes)), rng.randrange(len(rules.boxes))):
            box = rules.boxes[b]
            scores[b] = rng.choice([0, box.points or 0, 3 * (box.face or 1)])
        sheets.append(R.Column(tuple(scores)))
    quick = [position.Turn(rules, (col,), src)._final for col in sheets]
    monkeypatch.setattr(position.Turn, "_natural_finals", lambda self, dice: None)
    slow = [position.Turn(rules, (col,), src)._final for col in sheets]
    assert quick == slow
    assert any(col.scores[rules.box_index("yahtzee")] == 50 for col in sheets)  # jokers and bonuses met
