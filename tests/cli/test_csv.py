"""--csv of analyze (expected loss per game and player), hint (the options, ranked) and solve (one row):
the same figures as --json, through the one CSV writer (cli.validate.csv_row: RFC 4180 quoting, no
spreadsheet formulas), a header row first, and --json with --csv a usage error."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import REPO as ROOT

FIX = ROOT / "fixtures"


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_analyze_csv_is_the_loss_of_each_player_in_each_game(cli) -> None:
    files = [str(FIX / "logs/yahtzee.json"), str(FIX / "invalid/joker-forbidden.json"), str(FIX / "logs/kniffel.json")]
    r = cli(["analyze", "--csv", *files])
    assert r.exit_code == 1 and "joker-forbidden.json:208: game 1:" in r.stderr
    got = rows(r.stdout)
    assert r.stdout.splitlines()[0] == ("file,line,game,player,rules,expected_loss,decisions,inferred,exact,"
                                        "approximation,expected_start,luck,expected_end,turning_point,"
                                        "turning_point_turn,turning_point_roll,turning_point_points,win_cost,"
                                        "win_cost_se")
    *games, summary = [json.loads(x) for x in cli(["analyze", "--json", *files]).stdout.splitlines()]
    want = []
    for g in games:
        if g["type"] == "problem":  # a game that cannot be graded keeps its place: where it is, no figures
            want.append([g["file"], str(g["line"]), str(g["game"])] + [""] * 16)
            continue
        for p in g["players"]:
            tp = p["turning_point"]
            want.append([g["file"], str(g["line"]), str(g["game"]), p["name"], g["rules"]["name"],
                         str(p["expected_loss"]), str(p["decisions"]), str(p["inferred"]), "true", "",
                         str(p["expected_start"]), str(p["luck"]), str(p["expected_end"]),
                         tp["kind"], str(tp["turn"]), str(tp["roll"]), str(tp["points"]),
                         "" if p["win_cost"] is None else str(p["win_cost"]),
                         "" if p["win_cost_se"] is None else str(p["win_cost_se"])])
    assert [list(row.values()) for row in got] == want
    assert len(got) == 2 + 1 + 1 and summary["problems"] == 1
    assert cli(["replay", "--analyze", "--csv", *files]).stdout == r.stdout  # the same command


def test_analyze_csv_labels_approximate_values_and_escapes_names(cli, tmp_path: Path) -> None:
    game = json.loads((FIX / "logs/yahtzee.json").read_text())
    game["players"] = ["=HYPERLINK(1)", "Ben"]
    for turn in game["turns"]:
        turn["player"] = "=HYPERLINK(1)" if turn["player"] == "Anna" else turn["player"]
    path = tmp_path / "names.json"
    path.write_text(json.dumps(game))
    r = cli(["analyze", "--csv", str(path), str(FIX / "logs/triple-yahtzee.json")])
    assert r.exit_code == 0, r.stderr
    got = rows(r.stdout)
    assert got[0]["player"] == "'=HYPERLINK(1)" and got[1]["player"] == "Ben"
    assert got[2]["exact"] == "false" and got[2]["approximation"].startswith("columns valued")


def test_hint_csv_ranks_the_options_as_json_does(cli) -> None:
    r = cli(["hint", "1", "3", "3", "5", "6", "--csv", "--top", "5"])
    assert r.exit_code == 0, r.stderr
    got = rows(r.stdout)
    options = json.loads(cli(["hint", "1", "3", "3", "5", "6", "--json", "--top", "5"]).stdout)["options"]
    assert [row["rank"] for row in got] == ["1", "2", "3", "4", "5"]
    assert [(row["move"], row["keep"], float(row["value"]), float(row["regret"])) for row in got] == [
        ("keep", " ".join(map(str, o["keep"])), o["value"], o["regret"]) for o in options]
    assert {(row["dice"], row["rolls_left"], row["exact"]) for row in got} == {("1 3 3 5 6", "2", "true")}
    boxes = rows(cli(["hint", "44444", "--rolls-left", "0", "--csv", "--rules", "triple-yahtzee"]).stdout)
    assert (boxes[0]["move"], boxes[0]["box"], boxes[0]["column"], boxes[0]["score"]) == ("box", "yahtzee", "3", "50")
    assert boxes[0]["exact"] == "false" and boxes[0]["keep"] == ""


@pytest.mark.parametrize("extra", [["--json"], ["--beat", "44422"], ["--distribution"]])
def test_hint_csv_with_what_it_cannot_show_is_a_usage_error(cli, extra: list[str]) -> None:
    r = cli(["hint", "13356", "--csv", *extra])
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1


def test_solve_csv_is_one_row_of_the_json_figures(cli) -> None:
    r = cli(["solve", "--csv"])
    assert r.exit_code == 0, r.stderr
    (row,) = rows(r.stdout)
    data = json.loads(cli(["solve", "--json"]).stdout)
    assert (row["rules"], row["fingerprint"], row["exact"], row["approximation"]) == (
        "yahtzee", data["rules"]["fingerprint"], "true", "")
    assert float(row["expected"]) == data["expected"] and float(row["sd"]) == data["sd"]
    assert int(row["states"]) == data["states"] and row["risk"] == "" and row["games"] == ""
    approx = rows(cli(["solve", "--csv", "--rules", "triple-yahtzee"]).stdout)[0]
    assert approx["exact"] == "false" and approx["approximation"] and int(approx["games"]) > 0
    assert cli(["solve", "--csv", "--json"]).exit_code == 2
    assert cli(["analyze", "--csv", "--json", str(FIX / "logs/yahtzee.json")]).exit_code == 2
