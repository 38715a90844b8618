"""Rule sets without an exact table: the outputs say which parts are approximate or missing (no win
chances in `replay`/`log`, estimates in `analyze`), in text and in --json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from conftest import REPO

from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules import engine as R

IN_PROGRESS = str(REPO / "fixtures" / "logs" / "in-progress.json")
TRIPLE = str(REPO / "fixtures" / "logs" / "triple-yahtzee.json")


def _records(stdout: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_game_without_exact_chances_has_estimated_ones_with_their_error(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "triple.json"
    p.write_bytes(orjson.dumps(random_log("triple-yahtzee", 2, ("Ann", "Ben"), turns=6)))
    r = cli(["replay", str(p), "--json"])
    assert r.exit_code == 0, r.stderr
    game = _records(r.stdout)[0]
    assert game["win_probability_method"] == "estimated" and game["win_probability_note"] is None
    assert game["win_probability_games"] >= 2000
    for pl in game["players"]:
        assert 0 <= pl["win_probability"] <= 1 and 0 < pl["win_probability_se"] <= 0.01
    text = cli(["replay", str(p)]).stdout
    line = next(x for x in text.splitlines() if x.startswith("Chances to win:"))
    assert " pp" in line and "± " in line and "estimated from" in line, line
    shown = cli(["log", "show", str(p), "--json"])
    assert shown.exit_code == 0, shown.stderr
    rec = orjson.loads(shown.stdout)
    assert rec["win_probability_method"] == "estimated"
    assert [pl["win_probability"] for pl in rec["players"]] == [pl["win_probability"] for pl in game["players"]]


def test_games_with_chances_or_none_due_have_no_note(cli: Any) -> None:
    game = _records(cli(["replay", IN_PROGRESS, "--json"]).stdout)[0]
    assert game["win_probability_note"] is None and game["players"][0]["win_probability"] is not None
    assert game["win_probability_method"] == "exact" and game["players"][0]["win_probability_se"] is None
    finished = _records(cli(["replay", TRIPLE, "--json"]).stdout)[0]
    assert finished["game_over"] and finished["win_probability_note"] is None  # (a solo game: no chances)


def test_analyze_names_its_estimates(cli: Any) -> None:
    r = cli(["analyze", TRIPLE, "--json"])
    assert r.exit_code == 0, r.stderr
    game, summary = _records(r.stdout)
    for rec in (game, summary):
        assert rec["exact"] is False and rec["approximation"]
        assert {"expected_loss", "luck", "turning_point"} <= set(rec["estimates"])
    assert all(d["win_probability"] is None for d in game["decisions"])  # (a solo game: no win chances)
    assert "win_cost" not in game["estimates"]
    text = cli(["analyze", TRIPLE]).stdout
    assert "losses, luck and turning points are estimates, and so are win chances" in text
    exact = _records(cli(["analyze", IN_PROGRESS, "--json"]).stdout)
    assert [rec["estimates"] for rec in exact] == [[], []]


def test_target_and_to_win_with_passes_are_estimated_and_risk_needs_must_zero(cli: Any, tmp_path: Path) -> None:
    rules = R.preset("yatzy", {"must_zero": False})
    spec = {"preset": "yatzy", "settings": {"must_zero": False}}
    log = tmp_path / "game.json"
    log.write_bytes(orjson.dumps(random_log(rules, 3, ("Ann", "Ben"), spec=spec, turns=8)))
    for extra, key in ((["--target", "200"], "probability"), (["--log", str(log), "--to-win"], "win_probability")):
        args = ["hint", "1", "3", "3", "5", "6", *extra, "--json"]
        r = cli(args if "--log" in extra else [*args, "--rules", "yatzy", "--set", "must_zero=off"])
        assert r.exit_code == 0, (extra, r.stderr)
        rec = orjson.loads(r.stdout)
        assert rec["method"] == "estimated" and rec["exact"] is False and rec["games"] >= 1000
        assert rec["best"] == {k: v for k, v in rec["options"][0].items() if k != "theta"}
        assert all(0 <= o[key] <= 1 and 0 <= o["se"] <= 0.02 for o in rec["options"])
        assert [o[key] for o in rec["options"]] == sorted((o[key] for o in rec["options"]), reverse=True)
    r = cli(["hint", "1", "3", "3", "5", "6", "--risk", "0.05", "--rules", "yatzy", "--set", "must_zero=off"])
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("yahtzee: error: --risk needs must_zero on")
    assert len(r.stderr.splitlines()) == 1


def test_target_and_to_win_on_a_triple_sheet_are_estimated_in_text_too(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "triple.json"
    p.write_bytes(orjson.dumps(random_log("triple-yahtzee", 4, ("Ann", "Ben", "Cy"), turns=9)))
    r = cli(["hint", "6", "6", "6", "2", "1", "--log", str(p), "--to-win"])
    assert r.exit_code == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert "estimated: the " in head and "each played on 2,000 times" in head and "against" in head, head
    assert " pp" in r.stdout.splitlines()[2]
    r = cli(["hint", "6", "6", "6", "2", "1", "--rules", "triple-yahtzee", "--target", "1700", "--json", "--top", "3"])
    assert r.exit_code == 0, r.stderr
    rec = orjson.loads(r.stdout)
    assert rec["method"] == "estimated" and len(rec["options"]) == 3 and rec["target"] == 1700


def test_an_estimated_target_out_of_reach_or_below_zero_is_answered_not_allocated(cli: Any) -> None:
    """A target beyond any total (here 10**15) had allocated a vector as long as the target and ended
    in a traceback; it is never reached, as exact play for a target has it, and one at or below 0
    always is."""
    for target, chance in (("1000000000000000", 0.0), ("0", 1.0), ("-5", 1.0)):
        r = cli(["hint", "6", "6", "6", "2", "1", "--rules", "triple-yahtzee", "--target", target, "--json",
                 "--top", "1"])
        assert r.exit_code == 0, r.stderr
        rec = orjson.loads(r.stdout)
        assert rec["method"] == "estimated" and rec["best"]["probability"] == chance and rec["best"]["se"] == 0.0
