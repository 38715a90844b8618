"""Every problem code the README promises, expected exactly (code and place) from each kind of turn
or input that can raise it: a written box, a filled box, a passed turn, a joker turn, a sheet of
several columns, a sheet, a poker match, a whole input. A code stamped on the wrong kind of problem
(`wrong-score` for a bonus claimed on a passed turn, say) fails here even where the sentence is right.
The fixtures/invalid/ files are each one case; the other cases are built from fixtures/logs/ here."""

from __future__ import annotations

import copy
import functools
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import FIXTURES, REPO

from yahtzee_cli.errors import ProblemCode
from yahtzee_cli.formats.validate import check_document, validate_stream

Place = tuple[str, str]  # (code, JSON Pointer)

# fixtures/invalid/NAME.json -> its problems, in order
FIXTURE_CASES: dict[str, list[Place]] = {
    "after-game-over": [("after-game-over", "/turns/26")],
    "bad-face": [("bad-face", "/turns/0/rolls/1/2")],
    "bad-setting": [("bad-setting", "/rules/settings")],
    "bool-die": [("bool-die", "/turns/0/rolls/0/0")],
    "box-filled-in-column": [("box-filled-in-column", "/turns/1/box")],
    "box-filled": [("box-filled", "/turns/4/box")],
    "column-fill-down": [("column-fill-down", "/turns/40/box")],
    "column-fill-up": [("column-fill-up", "/turns/6/box")],
    "column-out-of-range": [("column-out-of-range", "/turns/0/column")],
    "dice-count": [("dice-count", "/turns/5/rolls/2")],
    "duplicate-player": [("duplicate-player", "/players/2")],
    "fill-in-order": [("fill-in-order", "/turns/0/box")],
    "held-count": [("held-count", "/turns/0/held")],
    "held-not-in-next-roll": [("held-not-in-next-roll", "/turns/0/held/0")],
    "held-not-in-previous-roll": [("held-not-in-previous-roll", "/turns/0/held/0")],
    "huge-number": [("huge-number", "/turns/0/score")],
    "joker-forbidden": [("joker-forbidden", "/turns/6/box")],
    "missing-column": [("missing-column", "/turns/0/column")],
    "missing-rolls": [("missing-rolls", "/turns/3/rolls")],
    "no-box-mid-game": [("no-box-mid-game", "/turns/7")],
    "not-an-object": [("not-an-object", "")],
    "pass-must-zero": [("pass-must-zero", "/turns/12/box")],
    "pass-while-scoring": [("pass-while-scoring", "/turns/0/box")],
    "poker-after-match-over": [("poker-after-match-over", "/rounds/4")],
    "poker-four-rolls": [("poker-four-rolls", "/rounds/0/hands/1/rolls")],
    "poker-held-not-in-roll": [("poker-held-not-in-roll", "/rounds/1/hands/0/held/0")],
    "poker-no-wins-needed": [("poker-no-wins-needed", "/wins_needed")],
    "poker-out-of-order": [("poker-out-of-order", "/rounds/2/hands/0/player"),
                           ("poker-out-of-order", "/rounds/2/hands/1/player")],
    "poker-round-unfinished": [("poker-round-unfinished", "/rounds/1/hands")],
    "poker-six-dice": [("poker-six-dice", "/rounds/3/hands/0/rolls/2")],
    "saved-rolls": [("saved-rolls", "/turns/38/rolls")],
    "sheet-bonus-not-multiple": [("sheet-bonus-not-multiple", "/players/0/boxes/Yahtzee bonus")],
    "sheet-bonus-too-many": [("sheet-bonus-too-many", "/players/0/boxes/Yahtzee bonus")],
    "sheet-bonus-without-yahtzee": [("sheet-bonus-without-yahtzee", "/players/0/boxes/Yahtzee bonus")],
    "sheet-both-layouts": [("sheet-both-layouts", "/players/0")],
    "sheet-column-count": [("sheet-column-count", "/players/0/columns")],
    "sheet-duplicate-box": [("sheet-duplicate-box", "/players/0/boxes/ones")],
    "sheet-impossible-fours": [("sheet-impossible-score", "/players/0/boxes/Fours")],
    "sheet-impossible-full-house": [("sheet-impossible-score", "/players/0/boxes/Full house")],
    "sheet-total-wrong": [("sheet-total-wrong", "/players/0/boxes/Upper sum")],
    "sheet-unknown-box": [("sheet-unknown-box", "/players/0/boxes/Sevens")],
    "syntax-error": [("syntax-error", "")],
    "too-many-rolls": [("too-many-rolls", "/turns/6/rolls")],
    "turn-out-of-order": [("turn-out-of-order", "/turns/2/player")],
    "unknown-box": [("unknown-box", "/turns/2/box")],
    "unknown-field": [("unknown-field", "/turns/3/dice")],
    "unknown-format": [("unknown-format", "/format")],
    "unknown-player": [("unknown-player", "/turns/4/player")],
    "unknown-preset": [("unknown-preset", "/rules")],
    "wrong-bonus": [("wrong-bonus", "/turns/10/bonus")],
    "wrong-score": [("wrong-score", "/turns/16/score")],
}


def _log(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "logs" / f"{name}.json").read_text())
    return data


def _turn(t: int, **change: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["turns"][t].update(change)


def _refill(t: int, like: int, **change: Any) -> Callable[[dict[str, Any]], None]:
    """Turn t writes the box (and column) turn `like` wrote, with `change`."""
    def do(d: dict[str, Any]) -> None:
        src = d["turns"][like]
        d["turns"][t].update(box=src["box"], **({"column": src["column"]} if "column" in src else {}), **change)
    return do


def _unknown_players(d: dict[str, Any]) -> None:
    d["turns"] = [{"player": "Zed", "rolls": [[1, 2, 3, 4, 5]], "box": "chance"}] * 1001


def _both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def do(d: dict[str, Any]) -> None:
        for c in changes:
            c(d)
    return do


# (base log, change, the problems expected): pass.json passes turn 12 (must_zero off); joker.json's
# turn 2 is an extra Yahtzee of 4s written as a forced joker in large_straight (40 + bonus 100);
# joker-free.json's turn 1 one in chance; triple-yahtzee.json and kniffel-columns.json have columns.
TURN_CASES: dict[str, tuple[str, Callable[[dict[str, Any]], None], list[Place]]] = {
    # a passed turn: a claim of points is wrong-score, of a bonus wrong-bonus; zeros are no claim
    "passed turn, score claimed": ("pass", _turn(12, score=5), [("wrong-score", "/turns/12/score")]),
    "passed turn, bonus claimed": ("pass", _turn(12, bonus=100), [("wrong-bonus", "/turns/12/bonus")]),
    "passed turn, both claimed": ("pass", _turn(12, score=5, bonus=100),
                                  [("wrong-score", "/turns/12/score"), ("wrong-bonus", "/turns/12/bonus")]),
    "passed turn, zeros claimed": ("pass", _turn(12, score=0, bonus=0), []),
    "passed turn under must_zero, bonus claimed": (
        "pass", _both(lambda d: d.update(rules="yahtzee"), _turn(12, bonus=100)),
        [("pass-must-zero", "/turns/12/box"), ("wrong-bonus", "/turns/12/bonus")]),
    "passed turn while scoring, score claimed": (
        "pass", _turn(0, box=None, score=7),
        [("pass-while-scoring", "/turns/0/box"), ("wrong-score", "/turns/0/score"),
         ("pass-while-scoring", "/turns/12/box")]),  # (turn 0's box is still open at turn 12's pass)
    # a joker turn
    "joker turn, wrong score": ("joker", _turn(2, score=30), [("wrong-score", "/turns/2/score")]),
    "joker turn, wrong bonus": ("joker", _turn(2, bonus=50), [("wrong-bonus", "/turns/2/bonus")]),
    "joker turn, bonus left out": ("joker", _turn(2, bonus=0), [("wrong-bonus", "/turns/2/bonus")]),
    "joker turn, in a box the joker forbids": ("joker", _turn(2, box="threes", score=0),  # (written anyway)
                                               [("joker-forbidden", "/turns/2/box"), ("box-filled", "/turns/5/box")]),
    "free joker turn, bonus left out": ("joker-free", _turn(1, bonus=0), [("wrong-bonus", "/turns/1/bonus")]),
    # a written box
    "written box, wrong score": ("yahtzee", _turn(3, score=99), [("wrong-score", "/turns/3/score")]),
    "written box, bonus claimed": ("yahtzee", _turn(3, bonus=100), [("wrong-bonus", "/turns/3/bonus")]),
    "written box, unknown": ("yahtzee", _turn(3, box="sevens"), [("unknown-box", "/turns/3/box")]),
    "written box, a column on a one-column sheet": ("yahtzee", _turn(3, column=2),
                                                    [("invalid-value", "/turns/3/column")]),
    # a filled box: the claims of an illegal move are not checked
    "filled box, wrong score claimed": ("yahtzee", _refill(4, 0, score=99), [("box-filled", "/turns/4/box")]),
    "filled box in a column, bonus claimed": ("triple-yahtzee", _refill(1, 0, bonus=100),
                                              [("box-filled-in-column", "/turns/1/box")]),
    # several columns
    "column turn, wrong score": ("triple-yahtzee", _turn(5, score=1), [("wrong-score", "/turns/5/score")]),
    "column turn, bonus claimed": ("triple-yahtzee", _turn(5, bonus=100), [("wrong-bonus", "/turns/5/bonus")]),
    "free column turn, wrong score": ("kniffel-columns", _turn(5, score=16), [("wrong-score", "/turns/5/score")]),
    "column turn, no column": ("kniffel-columns", lambda d: d["turns"][5].pop("column"),
                               [("missing-column", "/turns/5/column")]),
    "column turn, column 4 of 3": ("kniffel-columns", _turn(5, column=4),
                                   [("column-out-of-range", "/turns/5/column")]),
    # the unfinished last turn, the game's shape
    "last turn unfinished, score claimed": (
        "yahtzee", _both(lambda d: d["turns"][-1].pop("box"), _turn(25, score=3)),
        [("invalid-value", "/turns/25/score")]),
    "no players": ("yahtzee", lambda d: d.pop("players"), [("missing-field", "/players")]),
}


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES))
def test_each_invalid_fixture_has_its_code_at_its_place(name: str) -> None:
    with open(FIXTURES / "invalid" / f"{name}.json", "rb") as fh:
        got = [(str(p.code), p.path) for r in validate_stream(fh) for p in r.problems]
    assert got == FIXTURE_CASES[name]


def test_every_invalid_fixture_is_a_case() -> None:
    assert set(FIXTURE_CASES) == {p.stem for p in (FIXTURES / "invalid").glob("*.json")}


@pytest.mark.parametrize("case", sorted(TURN_CASES))
def test_each_kind_of_turn_raises_exactly_its_codes(case: str) -> None:
    base, change, want = TURN_CASES[case]
    doc = copy.deepcopy(_log(base))
    change(doc)
    assert [(str(p.code), p.path) for p in check_document(doc).problems] == want
    # the same through the reader (the validator's fast path first), filed under the game's NDJSON line
    raw = orjson.dumps(_log(base)) + b"\n" + orjson.dumps(doc) + b"\n"
    reports = list(validate_stream(io.BytesIO(raw)))
    assert [(str(p.code), p.path, reports[1].line_of(p)) for p in reports[1].problems] == [
        (c, p, 2) for c, p in want]
    assert not reports[0].problems


def test_too_many_problems_ends_the_list() -> None:
    doc = _log("yahtzee")
    _unknown_players(doc)
    got = [(str(p.code), p.path) for p in check_document(doc).problems]
    assert got[:2] == [("unknown-player", "/turns/0/player"), ("unknown-player", "/turns/1/player")]
    assert got[-1] == ("too-many-problems", "/turns/1000/player") and len(got) == 1001


# --------------------------------------------------------------------------- whole inputs and lines


def test_the_codes_of_whole_inputs(tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    (tmp_path / "none").mkdir()
    for path, code in ((empty, "empty-input"), (tmp_path / "none", "no-games")):
        (err,) = json.loads(cli(["validate", "--json", str(path)]).stdout)["errors"]
        assert (err["code"], err["line"], err["game"]) == (code, None, None)
    from yahtzee_cli.formats import logs
    from yahtzee_cli.formats.inputs import Source, expand
    from yahtzee_cli.play.fanout import grade

    sources = [Source("sheet", str(FIXTURES / "sheets/anna-and-ben.json")), *expand([str(tmp_path / "gone.json")])]
    graded = list(grade(sources, until=None, theta=None, keep_decisions=False, workers=None, backend="local",
                        scheduler=None, wins=False))
    assert [(g.record["code"], g.record["line"]) for g in graded if g.record is not None] == [
        ("not-gradable", 1), ("unreadable", None)]
    monkeypatch.setattr(logs, "iter_lines", functools.partial(logs.iter_lines, max_line=64))
    res = cli(["score", "--json", "-"], input=b"1 2 3 4 5\n\xff 1\n12\n" + b"1" * 100 + b"\n")
    codes = [(r["line"], r.get("code")) for r in map(json.loads, res.stdout.splitlines())]
    assert codes == [(1, None), (2, "not-utf8"), (3, "bad-dice"), (4, "line-too-long")]


def test_every_readme_code_is_expected_somewhere() -> None:
    text = (REPO / "README.md").read_text()
    listed = text[text.index("- **Problem codes**"):]
    listed = listed[: listed.index("\n- **")]
    import re

    readme = set(re.findall(r"`([a-z0-9-]+)`", listed)) & {c.value for c in ProblemCode}
    expected = {c for want in FIXTURE_CASES.values() for c, _ in want}
    expected |= {c for _, _, want in TURN_CASES.values() for c, _ in want}
    expected |= {"too-many-problems", "empty-input", "no-games", "not-gradable", "unreadable", "not-utf8",
                 "bad-dice", "line-too-long"}
    assert readme == {c.value for c in ProblemCode}
    assert readme <= expected, sorted(readme - expected)
