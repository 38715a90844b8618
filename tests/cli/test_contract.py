"""The JSON contract of the README, enforced on real outputs of every command.

One JSON Schema per record kind, shared by every command that writes that kind: the `rules` object,
where a game came from (`file`, `line`, `game`), the strategy-quality pair (`exact`, `approximation`),
a score record, a validation problem, a bad-input-line record. Each command's output is run and
checked against them, so a key renamed in one place fails here. Every record names its kind in
`type`, and a stream's records do not depend on how many games it held."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO as ROOT

from yahtzee_cli.errors import ProblemCode
from yahtzee_cli.rules.engine import SETTING_NAMES

FIX = ROOT / "fixtures"

RULES = {
    "type": "object",
    "required": ["name", "settings", "fingerprint"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "settings": {"type": "object", "required": list(SETTING_NAMES), "additionalProperties": False,
                     "properties": {k: {} for k in SETTING_NAMES}},
        "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
    },
}
POSITIVE = {"type": "integer", "minimum": 1}
WHERE = {  # every per-game record: where the game was read
    "type": "object",
    "required": ["file", "line", "game"],
    "properties": {"file": {"type": "string"}, "line": POSITIVE, "game": POSITIVE},
}
QUALITY = {  # how good a strategy's figures are
    "type": "object",
    "required": ["exact", "approximation"],
    "properties": {"exact": {"type": "boolean"}, "approximation": {"type": ["string", "null"]}},
    "if": {"properties": {"exact": {"const": True}}},
    "then": {"properties": {"approximation": {"type": "null"}}},
    "else": {"properties": {"approximation": {"type": "string"}}},
}
CODE = {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"}
def kind(name: str) -> dict[str, Any]:
    """A record of this `type`."""
    return {"type": "object", "required": ["type"], "properties": {"type": {"const": name}}}


SCORE = {
    "type": "object",
    "required": ["type", "line", "dice", "rules", "scores"],
    "properties": {"type": {"const": "score"}, "line": {"type": ["integer", "null"]},
                   "dice": {"type": "array", "items": POSITIVE},
                   "rules": RULES, "scores": {"type": "object", "additionalProperties": {"type": "integer"}}},
}
BAD_LINE = {
    "type": "object",
    "required": ["type", "line", "input", "code", "message"],
    "additionalProperties": False,
    "properties": {"type": {"const": "problem"}, "line": POSITIVE,
                   "input": {"type": "string"}, "code": CODE, "message": {"type": "string"}},
}
PROBLEM = {
    "type": "object",
    "required": ["file", "line", "game", "path", "code", "message"],
    "additionalProperties": False,
    "properties": {"file": {"type": "string"}, "line": {"type": ["integer", "null"], "minimum": 1},
                   "game": {"type": ["integer", "null"], "minimum": 1}, "path": {"type": "string"},
                   "code": CODE, "message": {"type": "string"}},
}
BAD_GAME = {  # in place of a game a stream could not read or grade
    "type": "object",
    "required": ["type", "file", "line", "game", "code", "message", "problems"],
    "additionalProperties": False,
    "properties": {"type": {"const": "problem"}, "file": {"type": "string"},
                   "line": {"type": ["integer", "null"], "minimum": 1},
                   "game": {"type": ["integer", "null"], "minimum": 1}, "code": CODE, "message": {"type": "string"},
                   "problems": {"type": "array", "items": {
                       "type": "object", "required": ["line", "path", "code", "message"],
                       "properties": {"code": CODE}}}},
}
VALIDATE = {
    "type": "object",
    "required": ["type", "valid", "files", "games", "errors", "unfinished"],
    "properties": {"type": {"const": "validation"}, "valid": {"type": "boolean"},
                   "files": {"type": "integer"}, "games": {"type": "integer"},
                   "errors": {"type": "array", "items": PROBLEM},
                   "unfinished": {"type": "array", "items": WHERE}},
}
GAME = {"allOf": [WHERE, {"type": "object", "required": ["rules"], "properties": {"rules": RULES}}]}
REPLAYED = {"allOf": [GAME, kind("game"), {"type": "object", "required": ["tally"]}]}
SUMMARY = {"allOf": [kind("summary"), {
    "type": "object",
    "required": ["games", "players", "personal_bests", "problems"],
    "properties": {"games": {"type": "integer"}, "problems": {"type": "integer"}},
}]}
DECISION = {"allOf": [WHERE, {  # a graded decision: where it was made (the line of its turn)
    "type": "object",
    "required": ["type", "turn", "path", "player", "decision", "made", "best", "regret"],
    "properties": {"type": {"const": "decision"}, "turn": POSITIVE},
}]}
WORST = {"type": "array", "items": DECISION}
GRADED = {"allOf": [GAME, QUALITY, {
    "type": "object",
    "required": ["type", "decisions", "players"],
    "properties": {"type": {"const": "game"}, "decisions": {"type": "array", "items": DECISION},
                   "players": {"type": "array", "items": {"type": "object", "required": ["worst"],
                                                          "properties": {"worst": WORST}}}},
}]}
TOTALS = {"allOf": [QUALITY, {
    "type": "object",
    "required": ["type", "games", "problems", "rule_sets", "players"],
    "properties": {"type": {"const": "summary"}, "games": {"type": "integer"}, "problems": {"type": "integer"},
                   "rule_sets": {"type": "array", "items": {"allOf": [
                       QUALITY, {"type": "object", "required": ["rules"], "properties": {"rules": RULES}}]}},
                   "players": {"type": "array", "items": {"type": "object", "required": ["worst"],
                                                          "properties": {"worst": WORST}}}},
}]}
ADVICE = {"allOf": [QUALITY, {"type": "object", "required": ["rules"], "properties": {"rules": RULES}}]}
PLAYED = {"anyOf": [QUALITY, {  # a simulate seat (and run) that plays no strategy table: neither exact nor not
    "type": "object",
    "required": ["exact", "approximation"],
    "properties": {"exact": {"const": None}, "approximation": {"const": None}},
}]}
SEAT = {"allOf": [PLAYED, {
    "type": "object",
    "required": ["seat", "player", "strategy", "wins", "ties", "win_rate", "tie_rate", "mean"],
    "properties": {"seat": POSITIVE},
}]}
SIMULATION = {"allOf": [PLAYED, kind("simulation"), {
    "type": "object", "required": ["rules"], "properties": {"rules": RULES}}, {
    "type": "object",
    "required": ["seed", "games", "players", "seats"],
    "properties": {"seats": {"type": "array", "minItems": 1, "items": SEAT}},
}]}


def check(data: Any, schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(schema).validate(data)


def ndjson(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines()]


# --------------------------------------------------------------------------- the schemas can fail


def test_the_schemas_reject_the_old_dialects() -> None:
    with pytest.raises(jsonschema.ValidationError):
        check({"rules": "yahtzee", "dice": [1, 2, 3, 4, 5], "scores": {}}, SCORE)  # rules as a name
    with pytest.raises(jsonschema.ValidationError):
        check({"exact": False, "approximate": "x"}, QUALITY)  # the other spelling
    with pytest.raises(jsonschema.ValidationError):
        check({"exact": True, "approximation": "x"}, QUALITY)  # exact but labelled approximate
    with pytest.raises(jsonschema.ValidationError):
        check({"exact": None, "approximation": "x"}, PLAYED)  # no table, but labelled approximate
    with pytest.raises(jsonschema.ValidationError):
        check({"exact": None, "approximation": None}, QUALITY)  # hint, solve and analyze always play a table
    with pytest.raises(jsonschema.ValidationError):
        check({"file": "a.json", "line": 1, "game": 0}, WHERE)  # 0-based game numbers
    with pytest.raises(jsonschema.ValidationError):
        check({"summary": {"games": 1, "players": [], "personal_bests": [], "problems": 0}}, SUMMARY)  # no type
    with pytest.raises(jsonschema.ValidationError):
        check({"type": "game", "line": 1, "input": "12", "code": "bad-dice", "message": "x"}, BAD_LINE)


# --------------------------------------------------------------------------- every command


def test_score_single_and_batch_records_have_one_shape(cli) -> None:
    one = json.loads(cli(["score", "33322", "--json", "--set", "joker=free"]).stdout)
    check(one, SCORE)
    assert one["rules"]["settings"]["joker"] == "free"  # the override is part of the rules object
    r = cli(["score", "-", "--json", "--box", "full_house"], input="33322\n\n1 2\n66666\n")
    assert r.exit_code == 1
    recs = ndjson(r.stdout)
    assert [x["line"] for x in recs] == [1, 3, 4]  # a bad line keeps its place
    check(recs[0], SCORE)
    check(recs[2], SCORE)
    check(recs[1], BAD_LINE)
    assert recs[1]["code"] == "bad-dice" and recs[1]["input"] == "1 2"
    assert set(recs[0]) == set(one) | {"box", "score"}


def test_score_on_a_sheet(cli) -> None:
    out = json.loads(cli(["score", "44444", "--sheet", str(FIX / "sheets/partial.json"), "--json"]).stdout)
    check(out, SCORE)


@pytest.mark.parametrize("box", [None, "four_of_a_kind", "small_straight"])
def test_score_on_a_sheet_as_csv_is_the_json_legal_boxes_and_quiet_is_silent(cli, box: str | None) -> None:
    """--csv writes a row per legal box (what --json lists), --quiet nothing, with the same exit status."""
    args = ["score", "44444", "--sheet", str(FIX / "sheets/partial.json"), *(["--box", box] if box else [])]
    legal = json.loads(cli([*args, "--json"]).stdout)["legal"]
    r = cli([*args, "--csv"])
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "box,column,score,bonus,joker"
    assert lines[1:] == [f"{o['box']},{o['column']},{o['score']},{o['bonus']},{str(o['joker']).lower()}" for o in legal]
    assert len(lines) > 1
    q = cli([*args, "--quiet"])
    assert (q.exit_code, q.stdout) == (0, "")
    for flag in ("--csv", "--quiet"):  # a box the joker rule closes: refused the same way in every form
        bad = cli([*args[:4], "--box", "chance", flag])
        assert (bad.exit_code, bad.stdout) == (1, "") and "chance is not legal now" in bad.stderr


def test_validate_document_even_for_empty_or_unreadable_input(cli, tmp_path: Path) -> None:
    for args, data in ((["-"], b""), (["-"], b"\x00\x01binary" * 100), ([str(FIX / "invalid")], None)):
        r = cli(["validate", "--json", *args], input=data)
        assert r.exit_code == 1
        out = json.loads(r.stdout)
        check(out, VALIDATE)
        assert out["valid"] is False and out["errors"]
    empty = json.loads(cli(["validate", "--json", "-"], input=b"").stdout)
    assert empty["errors"][0]["code"] == "empty-input" and empty["games"] == 0


def test_every_invalid_fixture_kind_is_a_problem_code(cli) -> None:
    out = json.loads(cli(["validate", "--json", str(FIX / "invalid")]).stdout)
    check(out, VALIDATE)
    codes = {Path(e["file"]).stem: e["code"] for e in out["errors"]}
    for stem, code in codes.items():
        # the fixtures name the kinds; the two impossible-sheet-score fixtures show one kind
        assert code == ("sheet-impossible-score" if stem.startswith("sheet-impossible-") else stem), stem
    assert set(codes) == {p.stem for p in (FIX / "invalid").glob("*.json")}
    assert {c.value for c in ProblemCode} >= set(codes.values())


def test_the_readme_lists_every_problem_code_and_only_those() -> None:
    """Scripts rely on the codes the README promises: its list is the enumeration, no more, no less,
    and every fixture of fixtures/invalid/ names one of them."""
    text = (ROOT / "README.md").read_text()
    start = text.index("- **Problem codes**")
    bullet = text[start:text.index("\n- **", start + 1)]
    listed = set(re.findall(r"`([a-z0-9-]+)`", bullet[bullet.index("`sheet-impossible-score`):"):]))
    assert listed == {c.value for c in ProblemCode}
    stems = {p.stem for p in (FIX / "invalid").glob("*.json")}
    assert {"sheet-impossible-score" if s.startswith("sheet-impossible-") else s for s in stems} <= listed


def test_replay_records(cli) -> None:
    r = cli(["replay", "--json", str(FIX / "logs/batch.ndjson"), str(FIX / "logs/yatzy.json")])
    *recs, summary = ndjson(r.stdout)
    check(summary, SUMMARY)
    assert summary["games"] == 5 and summary["problems"] == 0  # a batch ends with its tally (finished games)
    assert len(recs) == 6
    for rec in recs:
        check(rec, REPLAYED)
    assert [(Path(x["file"]).name, x["line"], x["game"]) for x in recs] == [
        ("batch.ndjson", n, n) for n in range(1, 6)] + [("yatzy.json", 1, 1)]
    house, _ = ndjson(cli(["replay", "--json", str(FIX / "logs/yahtzee.json"), "--set", "joker=free"]).stdout)
    assert house["rules"]["settings"]["joker"] == "free"


@pytest.mark.parametrize("bad", [False, True])
def test_a_stream_of_one_game_has_the_records_of_a_batch_less_one_game(cli, bad: bool) -> None:
    """`tail -n 1` is the summary and every record has the same keys, for one game as for two (and a
    game that is not valid is one record in its place either way)."""
    game = FIX / ("invalid/joker-forbidden.json" if bad else "logs/yahtzee.json")
    one = ndjson(cli(["replay", "--json", str(game)]).stdout)
    two = ndjson(cli(["replay", "--json", str(game), str(FIX / "logs/kniffel.json")]).stdout)
    assert [r["type"] for r in one] == ["problem" if bad else "game", "summary"]
    assert [r["type"] for r in two] == [one[0]["type"], "game", "summary"]
    assert set(one[0]) == set(two[0]) and set(one[-1]) == set(two[-1])
    check(one[-1], SUMMARY)
    assert one[-1]["problems"] == int(bad) and two[-1]["games"] == 2 - int(bad)


def test_every_record_of_every_stream_names_its_type(cli) -> None:
    """Scores (good lines and bad), replayed games (valid, not valid, unreadable), the summary, and the
    single documents of validate and simulate."""
    outs = [cli(["score", "-", "--json"], input="12345\nxx\n").stdout,
            cli(["score", "12345", "--json"]).stdout,
            cli(["replay", "--json", "-", str(FIX / "invalid/wrong-score.json")], input=b"{oops").stdout,
            cli(["validate", "--json", str(FIX / "logs/yahtzee.json")]).stdout,
            cli(["simulate", "-S", "random", "-n", "3", "--seed", "1", "-w", "1", "--json"]).stdout,
            cli(["analyze", "--json", "-", str(FIX / "invalid/wrong-score.json"), str(FIX / "logs/yahtzee.json")],
                input=b"{oops").stdout,
            cli(["hint", "13356", "--json"]).stdout, cli(["solve", "--json"]).stdout,
            cli(["hint", "66655", "--beat", "66622", "--json"]).stdout,
            cli(["poker", "66655", "12345", "--json"]).stdout,
            cli(["rules", "--json"]).stdout, cli(["rules", "--show-defaults", "--json"]).stdout]
    types = [rec.get("type") for out in outs for rec in ndjson(out)]
    assert types == ["score", "problem", "score", "problem", "problem", "summary", "validation", "simulation",
                     "problem", "problem", "game", "summary", "hint", "solve", "hint", "poker", "presets", "defaults"]
    graded = ndjson(outs[5])[2]
    assert {d["type"] for d in graded["decisions"]} == {"decision"}


def test_streams_keep_a_record_in_place_of_a_bad_game(cli, tmp_path: Path) -> None:
    good = (FIX / "logs/yahtzee.json").read_bytes()
    bad = (FIX / "invalid/joker-forbidden.json").read_bytes()
    (tmp_path / "empty.json").write_bytes(b"")
    for command in ("replay", "analyze"):
        r = cli([command, "--json", "-", str(tmp_path / "empty.json")], input=good + bad + b"{oops\n}\n" + good)
        assert r.exit_code == 1
        recs = ndjson(r.stdout)
        if command == "analyze":
            check(recs.pop(), TOTALS)
        else:
            check(recs.pop(), SUMMARY)
        assert [x.get("code") for x in recs] == [None, "joker-forbidden", "syntax-error", None, "empty-input"]
        for rec in (recs[1], recs[2], recs[4]):
            check(rec, BAD_GAME)
        assert [x["game"] for x in recs] == [1, 2, 3, 4, None]
        assert recs[1]["problems"][0]["line"] > recs[1]["line"]  # the line of the failing value


def test_analyze_records(cli) -> None:
    one = ndjson(cli(["analyze", "--json", str(FIX / "logs/yahtzee.json")]).stdout)
    assert [r["type"] for r in one] == ["game", "summary"]
    check(one[0], GRADED)
    check(one[1], TOTALS)
    r = cli(["analyze", "--json", str(FIX / "logs/yahtzee.json"), str(FIX / "logs/kniffel.json")])
    *games, totals = ndjson(r.stdout)
    for g in games:
        check(g, GRADED)
    check(totals, TOTALS)
    assert games[0] == one[0]  # a game's record is the same alone and in a batch
    alias = cli(["replay", "--analyze", "--json", str(FIX / "logs/yahtzee.json")])
    assert ndjson(alias.stdout) == one  # replay --analyze is the same command
    empty = cli(["analyze", "--json", "-"], input=b"")
    assert empty.exit_code == 1
    (problem, summary) = ndjson(empty.stdout)  # still a stream: the input's problem, then the totals
    check(problem, BAD_GAME)
    check(summary, TOTALS)
    assert (summary["games"], summary["problems"]) == (0, 1)


@pytest.mark.parametrize("bad", [False, True])
def test_analyze_of_one_game_is_a_batch_of_two_less_one_game(cli, bad: bool) -> None:
    """`tail -n 1` is the totals and every record has the same keys, for one game as for two."""
    game = FIX / ("invalid/joker-forbidden.json" if bad else "logs/yahtzee.json")
    one = ndjson(cli(["analyze", "--json", str(game)]).stdout)
    two = ndjson(cli(["analyze", "--json", str(game), str(FIX / "logs/kniffel.json")]).stdout)
    assert [r["type"] for r in one] == ["problem" if bad else "game", "summary"]
    assert [r["type"] for r in two] == [one[0]["type"], "game", "summary"]
    assert one[0] == two[0] and set(one[-1]) == set(two[-1])
    assert (one[-1]["games"], one[-1]["problems"]) == (1 - bad, int(bad))
    assert (two[-1]["games"], two[-1]["problems"]) == (2 - bad, int(bad))


def test_analyze_decisions_name_the_line_of_their_turn(cli) -> None:
    """Every decision record carries the file, the line its turn starts on, and the game, as the text
    output's `file:LINE: game N` does; in NDJSON every turn is on its game's line."""
    path = FIX / "logs/yahtzee.json"
    (game, _) = ndjson(cli(["analyze", "--json", str(path)]).stdout)
    raw = path.read_text().splitlines()
    for d in game["decisions"]:
        assert (d["file"], d["game"]) == (str(path), 1)
        assert raw[d["line"] - 1].strip().startswith("{") and d["line"] > game["line"]
    by_turn = {d["turn"]: d["line"] for d in game["decisions"]}
    assert sorted(by_turn.values()) == list(by_turn.values()) and len(set(by_turn.values())) == len(by_turn)
    text = cli(["analyze", str(path), str(FIX / "logs/kniffel.json")]).stdout
    worst = game["players"][0]["worst"][0]
    assert f"{path}:{worst['line']}: game 1  " in text
    batch = FIX / "logs/batch.ndjson"
    *games, _ = ndjson(cli(["analyze", "--json", str(batch)]).stdout)
    assert [{d["line"] for d in g["decisions"]} for g in games] == [{g["line"]} for g in games]


def test_hint_and_solve(cli) -> None:
    check(json.loads(cli(["hint", "13356", "--json", "--set", "joker=free"]).stdout), ADVICE)
    check(json.loads(cli(["hint", "13356", "--json", "--rules", "triple-yahtzee", "--top", "2"]).stdout), ADVICE)
    check(json.loads(cli(["solve", "--json"]).stdout), ADVICE)


def test_simulate_one_strategy_and_a_match_share_one_shape(cli) -> None:
    base = ["simulate", "-n", "50", "--seed", "3", "-w", "1", "--json"]
    solo = json.loads(cli([*base, "-S", "random"]).stdout)
    match = json.loads(cli([*base, "--players", "random,greedy"]).stdout)
    check(solo, SIMULATION)
    check(match, SIMULATION)
    assert set(solo) == set(match) and set(solo["seats"][0]) == set(match["seats"][0])
    house = json.loads(cli([*base, "-S", "random", "--set", "joker=free"]).stdout)
    assert house["rules"]["settings"]["joker"] == "free"


def test_rules_outputs(cli) -> None:
    info = json.loads(cli(["rules", "yatzy", "--json", "--set", "must_zero=off"]).stdout)
    check({k: info[k] for k in ("name", "settings", "fingerprint")}, RULES)
    assert info["settings"]["must_zero"] is False
    check(json.loads(cli(["rules", "--show-defaults", "--json"]).stdout)["rules"], RULES)


@pytest.mark.parametrize("preset", ["yahtzee", "yatzy", "maxi-yatzy", "triple-yatzy"])
def test_rules_json_is_a_rules_file(cli, preset: str, tmp_path: Path) -> None:
    """`rules NAME --json` is accepted as-is by --rules FILE (the same rule set: same fingerprint) and
    is valid under `schema rules`; a broken box is still refused."""
    out = cli(["rules", preset, "--json", "--set", "must_zero=off"]).stdout
    check(json.loads(out), json.loads(cli(["schema", "rules"]).stdout))
    path = tmp_path / "rules.json"
    path.write_text(out)
    again = json.loads(cli(["rules", str(path), "--json"]).stdout)
    assert again["fingerprint"] == json.loads(out)["fingerprint"] and again["settings"]["must_zero"] is False
    data = json.loads(out)
    data["boxes"][0]["kind"] = "nonsense"
    path.write_text(json.dumps(data))
    assert cli(["rules", str(path)]).exit_code == 2


def test_a_bad_line_keeps_its_place_in_text_and_csv_too(cli) -> None:
    """`paste` pairs every input line with its output: a bad line is an empty line in text, its line
    number and empty fields in CSV; the error is on stderr and the exit status 1."""
    r = cli(["score", "-", "--box", "chance"], input="33322\n1234\n66666\n")
    assert (r.exit_code, r.stdout) == (1, "13\n\n30\n")
    assert r.stderr == "yahtzee: error: line 2: yahtzee needs 5 dice, got 4\n"
    table = cli(["score", "-"], input="33322\n1234\n66666\n").stdout.splitlines()
    assert len(table) == 4 and table[2] == "" and table[3].startswith("6 6 6 6 6 ")
    rows = cli(["score", "-", "--csv"], input="33322\n1234\n66666\n").stdout.splitlines()
    assert rows[2] == "2" + "," * 14 and len(rows[2].split(",")) == len(rows[1].split(","))
