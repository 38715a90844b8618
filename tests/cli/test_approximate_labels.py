"""Rule sets without an exact table: the outputs say which parts are approximate or missing (no win
chances in `replay`/`log`, estimates in `analyze`), in text and in --json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from conftest import REPO

from yahtzee_cli.formats.replay import random_log

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
    assert all(d["win_probability"] is None for d in game["decisions"])
    text = cli(["analyze", TRIPLE]).stdout
    assert "losses, luck and turning points are estimates" in text and "no win chances" in text
    exact = _records(cli(["analyze", IN_PROGRESS, "--json"]).stdout)
    assert [rec["estimates"] for rec in exact] == [[], []]


def test_target_and_to_win_need_must_zero(cli: Any, tmp_path: Path) -> None:
    from conftest import SMALL_RULES

    spec = {**SMALL_RULES, "settings": {**SMALL_RULES["settings"], "must_zero": False}}  # type: ignore[dict-item]
    rules = tmp_path / "passes.json"
    rules.write_bytes(orjson.dumps(spec))
    log = tmp_path / "game.json"
    from yahtzee_cli.rules.engine import rules_from_data

    log.write_bytes(orjson.dumps(random_log(rules_from_data(spec), 3, ("Ann", "Ben"), spec=spec, turns=4)))
    for extra in (["--target", "100"], ["--risk", "0.05"], ["--log", str(log), "--to-win"]):
        args = ["hint", "1", "3", "3", "5", "6", *extra] + ([] if "--log" in extra else ["--rules", str(rules)])
        r = cli(args)
        assert r.exit_code == 2, (extra, r.stdout, r.stderr)
        assert r.stderr.startswith("yahtzee: error: ") and "need must_zero on" in r.stderr
        assert len(r.stderr.splitlines()) == 1
