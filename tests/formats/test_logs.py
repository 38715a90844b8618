"""yahtzee_cli.formats.logs: the formats, reading any input safely, schemas, writers for other commands."""

from __future__ import annotations

import io
import json

import jsonschema
import orjson
import pytest
from conftest import FIXTURES as FIX

from yahtzee_cli.errors import InputError, ProblemCode
from yahtzee_cli.formats.logs import (
    KIND_OF_FORMAT,
    LOG_FORMAT,
    MODELS,
    SHEET_FORMAT,
    GameLog,
    Problem,
    dump_line,
    iter_documents,
    json_schema,
    log_document,
    read_document,
    resolve_rules,
    sheet_row,
    turn_entry,
)
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules import engine as R

GAME = {"format": LOG_FORMAT, "rules": "yahtzee", "players": ["Anna"],
        "turns": [{"player": "Anna", "rolls": [[1, 2, 3, 4, 5]], "box": "large_straight", "score": 40}]}


def docs(data: bytes, **kw: int) -> list:
    return list(iter_documents(io.BytesIO(data), **kw))


# --------------------------------------------------------------------------- reading


def test_single_pretty_document_is_one_game() -> None:
    raw = json.dumps(GAME, indent=2).encode()
    (d,) = docs(raw)
    assert d.index == 1 and d.line == 1 and d.data == GAME and d.problem is None


def test_ndjson_numbers_games_and_lines_and_skips_blank_lines() -> None:
    line = orjson.dumps(GAME)
    got = docs(b"\n" + line + b"\n\n  \n" + line + b"\n" + line)
    assert [(d.index, d.line) for d in got] == [(1, 2), (2, 5), (3, 6)]
    assert all(d.data == GAME for d in got)


def test_a_bad_ndjson_line_is_that_game_s_problem_and_reading_goes_on() -> None:
    line = orjson.dumps(GAME)
    got = docs(line + b"\n" + b'{"format": "yahtzee-log/1", "rules": }\n' + line + b"\n")
    assert [d.index for d in got] == [1, 2, 3]
    assert got[1].problem is not None and got[1].data is None
    assert got[1].problem.message.startswith("invalid JSON at line 2, column 38")
    assert got[2].data == GAME


def test_broken_first_line_of_ndjson_stays_ndjson() -> None:
    line = orjson.dumps(GAME)
    got = docs(b'{"format": oops}\n' + line + b"\n")
    assert len(got) == 2 and got[0].problem is not None and got[1].data == GAME


def test_syntax_error_in_a_pretty_document_names_line_and_column() -> None:
    raw = (FIX / "invalid/syntax-error.json").read_bytes()
    (d,) = docs(raw)
    assert d.problem == Problem("", "invalid JSON at line 3, column 2: unexpected character, expected ',' or '}'",
                                ProblemCode.SYNTAX_ERROR)


def test_document_after_leading_blank_lines_reports_file_lines() -> None:
    raw = b"\n\n" + json.dumps(GAME, indent=1).encode().replace(b'"rules"', b'"rules" ', 1)
    (d,) = docs(raw)
    assert d.line == 3 and d.data == GAME
    (bad,) = docs(b"\n\n{\n  \"format\": ,\n}")
    assert "line 4" in bad.problem.message


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "empty input"),
        (b"\n \n\t\n", "only blank lines"),
        ("{}".encode("utf-16"), "UTF-16"),
        ("{}".encode("utf-16-le"), "UTF-16"),
        ('{"a": 1}'.encode("utf-32"), "UTF-32"),
        (bytes(range(256)) * 20, "binary"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    ],
)
def test_unreadable_inputs_are_one_clear_error(raw: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        docs(raw)


def test_utf8_bom_is_accepted() -> None:
    (d,) = docs(b"\xef\xbb\xbf" + orjson.dumps(GAME))
    assert d.data == GAME


def test_latin1_line_is_reported_not_crashed() -> None:
    line = orjson.dumps(GAME)
    got = docs(line + b'\n{"format": "yahtzee-log/1", "players": ["J\xfcrgen"]}\n')
    assert got[1].problem.message == "line 2 is not valid UTF-8 text; save the file as UTF-8"


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    (d,) = docs(b"[" * 5000 + b"]" * 5000)
    assert "nested more than 1024 levels deep" in d.problem.message
    nested = b'{"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["A"], "meta": {"x": ' + b"[" * 900 \
        + b"]" * 900 + b"}}"
    (ok,) = docs(nested)
    assert ok.problem is None


def test_an_absurd_line_is_refused_and_skipped_without_holding_it() -> None:
    line = orjson.dumps(GAME)
    raw = line + b"\n" + b'{"x": "' + b"a" * 5000 + b'"}\n' + line + b"\n"
    got = docs(raw, max_line=1000)
    assert [d.index for d in got] == [1, 2, 3]
    assert got[1].problem.message.startswith("line 2 is longer than")
    assert got[2].data == GAME
    (first,) = docs(b"[" + b"1," * 2000 + b"1]", max_line=1000)
    assert first.problem is not None and "longer than" in first.problem.message


def test_a_document_over_the_size_limit_is_refused() -> None:
    raw = json.dumps({**GAME, "meta": {"pad": "x" * 5000}}, indent=2).encode()
    with pytest.raises(InputError, match="larger than"):
        docs(raw, max_document=1000)


def test_trusted_flag_only_when_no_bool_or_float_can_hide_in_the_dice() -> None:
    assert docs(orjson.dumps(GAME))[0].trusted
    for text in (b"true", b"1.0", b"1e0", b"1E0"):
        raw = orjson.dumps(GAME).replace(b"[[1,", b"[[" + text + b",")
        assert not docs(raw)[0].trusted, text


def test_read_document_wants_exactly_one_game() -> None:
    assert read_document(io.BytesIO(orjson.dumps(GAME))) == GAME
    with pytest.raises(InputError, match="more than one game"):
        read_document(io.BytesIO(orjson.dumps(GAME) + b"\n" + orjson.dumps(GAME)))
    with pytest.raises(InputError, match="invalid JSON"):
        read_document(io.BytesIO(b'{"format": }'))


# --------------------------------------------------------------------------- models and schemas


@pytest.mark.parametrize(("kind", "name"), [("log", "yahtzee-log-1"), ("sheet", "yahtzee-sheet-1"),
                                           ("poker", "poker-log-1")])
def test_committed_schemas_are_current(kind: str, name: str) -> None:
    committed = json.loads((FIX / f"schemas/{name}.schema.json").read_text())
    assert committed == json_schema(kind), "stale schema: run python fixtures/make_fixtures.py"
    assert committed["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_command_prints_the_committed_schemas(cli) -> None:
    for kind, name in (("log", "yahtzee-log-1"), ("sheet", "yahtzee-sheet-1"), ("poker", "poker-log-1")):
        r = cli(["schema", kind])
        assert r.exit_code == 0
        assert json.loads(r.stdout) == json.loads((FIX / f"schemas/{name}.schema.json").read_text())
    rules = json.loads(cli(["schema", "rules"]).stdout)
    assert rules == json.loads((FIX / "schemas/yahtzee-rules.schema.json").read_text()), \
        "stale schema: run python fixtures/make_fixtures.py"
    both = json.loads(cli(["schema"]).stdout)
    assert set(both) == {LOG_FORMAT, SHEET_FORMAT, "poker-log/1"}
    assert cli(["schema", "turns"]).exit_code == 2


def _fixture_docs(folder: str) -> list[tuple[str, object]]:
    out = []
    for f in sorted((FIX / folder).iterdir()):
        if f.suffix == ".ndjson":
            out += [(f"{f.name}:{i}", orjson.loads(line)) for i, line in enumerate(f.read_bytes().splitlines(), 1)]
        elif f.suffix == ".json":
            out.append((f.name, orjson.loads(f.read_bytes())))
    return out


@pytest.mark.parametrize(("name", "doc"), _fixture_docs("logs") + _fixture_docs("sheets") + _fixture_docs("poker"))
def test_valid_fixtures_match_the_json_schema(name: str, doc: dict) -> None:
    kind = KIND_OF_FORMAT[doc["format"]]
    jsonschema.Draft202012Validator(json_schema(kind)).validate(doc)
    MODELS[kind].model_validate(doc)


@pytest.mark.parametrize("name", ["missing-rolls", "unknown-field", "bad-face", "bool-die", "huge-number",
                                  "unknown-format"])
def test_shape_errors_are_schema_errors_too(name: str) -> None:
    doc = orjson.loads((FIX / f"invalid/{name}.json").read_bytes())
    kind = "sheet" if doc["format"] == SHEET_FORMAT else "log"
    assert list(jsonschema.Draft202012Validator(json_schema(kind)).iter_errors(doc))


def test_model_round_trip_keeps_missing_box_apart_from_null() -> None:
    doc = log_document("yahtzee", ["A"], [
        turn_entry("A", [[1, 1, 2, 3, 4]], box=None, passed=True),
        turn_entry("A", [[1, 1, 2, 3, 4], [1, 1, 1, 3, 4]], held=[[1, 1]], in_progress=True),
    ])
    assert doc["turns"][0]["box"] is None and "box" not in doc["turns"][1]
    assert GameLog.model_validate(doc).to_data() == doc
    assert orjson.loads(dump_line(GameLog.model_validate(doc))) == doc
    assert dump_line(doc).endswith(b"\n") and b"\n" not in dump_line(doc)[:-1]
    with pytest.raises(ValueError, match="needs a box"):
        turn_entry("A", [[1, 1, 2, 3, 4]])


def test_writers_give_what_validate_accepts() -> None:
    from yahtzee_cli.formats.validate import check_game

    doc = log_document({"preset": "yahtzee", "settings": {"joker": "free"}}, ["A"],
                       [turn_entry("A", [[6, 6, 6, 6, 6]], box="yahtzee", score=50)], meta={"seed": 1})
    assert check_game(doc) == []
    assert check_game(orjson.loads(dump_line(doc))) == []


# --------------------------------------------------------------------------- names and rules


def test_sheet_rows_resolve_boxes_aliases_bonus_and_derived_rows() -> None:
    rs = R.preset("kniffel")
    assert sheet_row(rs, "Aces") == ("box", 0)
    assert sheet_row(rs, "Große Straße") == ("box", rs.box_index("large_straight"))
    assert sheet_row(rs, "KNIFFEL") == ("box", rs.box_index("yahtzee"))
    assert sheet_row(rs, "Yahtzee bonus") == ("bonus", "yahtzee_bonus")
    assert sheet_row(rs, "Grand total") == ("derived", "grand_total")
    assert sheet_row(rs, "upper-sum") == ("derived", "upper_sum")
    with pytest.raises(R.RulesError, match="unknown box"):
        sheet_row(rs, "sevens")


def test_resolve_rules_shares_one_rule_set_per_spec() -> None:
    a = resolve_rules({"preset": "yahtzee", "settings": {"joker": "free"}})
    b = resolve_rules({"settings": {"joker": "free"}, "preset": "yahtzee"})
    assert a is b and a.settings.joker == "free"
    assert resolve_rules("yahtzee", {"upper_bonus": 50}).settings.upper_bonus == 50
    custom = R.preset("yatzy").to_dict()
    assert resolve_rules(custom).boxes == R.preset("yatzy").boxes
    with pytest.raises(R.RulesError, match="unknown preset"):
        resolve_rules("yahtzy")
    with pytest.raises(R.RulesError):
        resolve_rules({"preset": "yahtzee", "settings": {"jokers": "free"}})
    with pytest.raises(R.RulesError):
        resolve_rules(["yahtzee"])


def test_random_logs_are_valid_for_every_preset_and_house_rule() -> None:
    from yahtzee_cli.formats.validate import check_game

    cases = [(R.preset(p), p) for p in R.PRESETS]
    for over in ({"joker": "free"}, {"joker": "off"}, {"fill_in_order": True}, {"must_zero": False},
                 {"extra_yahtzee_bonus": 50, "add_columns": False, "columns": 2}):
        cases.append((R.preset("yahtzee", over), {"preset": "yahtzee", "settings": over}))
    for rs, spec in cases:
        for seed in range(3):
            game = random_log(rs, seed, ("A", "B"), spec=spec)
            assert check_game(game) == [], (spec, seed)
            assert check_game(orjson.loads(orjson.dumps(game))) == []


def test_pretty_documents_written_one_after_the_other_are_numbered_by_their_first_line() -> None:
    # `cat a.json b.json` after two blank lines: the first game starts on line 3, the second on the line
    # after the first game's last line.
    one = json.dumps(GAME, indent=2).encode()
    raw = b"\n\n" + one + b"\n" + one
    first_lines = one.count(b"\n") + 1
    got = docs(raw)
    assert [(d.index, d.line) for d in got] == [(1, 3), (2, 3 + first_lines)]
    assert all(d.data == GAME for d in got)


# --------------------------------------------------------------------------- mutation survivors (logs)


def test_rules_errors_point_into_the_rules_without_the_union_tag() -> None:
    from yahtzee_cli.formats.logs import check_schema

    doc = {"format": LOG_FORMAT, "rules": {"boxes": [{"key": "x", "kind": "nope"}]}, "players": ["A"], "turns": []}
    kind, problems = check_schema(doc)
    assert kind == "log"
    assert [p.path for p in problems] == ["/rules/boxes/0/kind"]


def test_a_format_that_is_not_a_string_is_named_without_a_version_hint() -> None:
    from yahtzee_cli.formats.logs import document_kind

    kind, problem = document_kind({"format": 5})
    assert kind is None and problem is not None
    assert problem.path == "/format" and "format 5 is not one" in problem.message
    assert "newer version" not in problem.message


def test_only_the_first_4096_bytes_are_sniffed_for_binary_data() -> None:
    from yahtzee_cli.formats.logs import _check_start

    head = b"{" + b" " * 4095 + b"\x00"  # the NUL is byte 4097
    assert _check_start(head) == head
    with pytest.raises(InputError, match="binary"):
        _check_start(b"{" + b" " * 4094 + b"\x00")  # byte 4096


def test_iter_lines_counts_from_one_and_drops_only_a_leading_bom() -> None:
    from yahtzee_cli.formats.logs import iter_lines

    raw = b"\xef\xbb\xbfab\n\xef\xbb\xbfcd\nef\n"
    assert list(iter_lines(io.BytesIO(raw))) == [(1, b"ab\n"), (2, b"\xef\xbb\xbfcd\n"), (3, b"ef\n")]


def test_is_ndjson_after_a_bom_and_blank_lines() -> None:
    from yahtzee_cli.formats.logs import is_ndjson

    assert is_ndjson(io.BytesIO(b'\xef\xbb\xbf{"a": 1}\n{"b": 2}\n'))
    assert is_ndjson(io.BytesIO(b'{"a": 1}\n'))
    assert is_ndjson(io.BytesIO(b'\n\n{"a": 1}\n'))
    assert not is_ndjson(io.BytesIO(b'{\n  "a": 1\n}\n'))


def test_three_documents_one_after_the_other_are_three_pieces() -> None:
    from yahtzee_cli.formats.logs import split_documents

    raw = b'{"a":1}{"b":2}{"c":3}'
    assert split_documents(raw) == [(0, b'{"a":1}'), (7, b'{"b":2}'), (14, b'{"c":3}')]


def test_a_syntax_error_in_a_later_document_names_the_file_line() -> None:
    # pretty documents: the first fills lines 1-3, the second starts on line 4, its doubled comma on line 5
    # (a document that is not JSON is filed under the line of its error, the line its message names)
    got = docs(b'{\n "a": 1\n}\n{"b": [1,\n 2,,]}\n')
    assert [(d.index, d.line) for d in got] == [(1, 1), (2, 5)]
    assert got[1].problem is not None and "at line 5," in got[1].problem.message


def test_locate_finds_array_items_by_index_and_counts_lines_from_one() -> None:
    from yahtzee_cli.formats.logs import locate

    raw = b'{\n "a": [\n  1,\n  {"b": 2}\n ]\n}'
    assert (locate(raw, "/a"), locate(raw, "/a/0"), locate(raw, "/a/1/b")) == (2, 3, 4)
    assert locate(b'\n{"a": 1}', "/a") == 2


def test_locate_stops_at_the_end_of_an_array() -> None:
    from yahtzee_cli.formats.logs import locate

    # /a has one item: /a/1 does not exist, so its nearest ancestor /a (line 1) is the answer
    raw = b'{"a": [\n1\n],\n"b": 2}'
    assert locate(raw, "/a/1") == 1


def test_a_utf8_sequence_cut_at_the_end_of_the_sniffed_4096_bytes_is_not_binary() -> None:
    from yahtzee_cli.formats.logs import _check_start

    # the first 4096 bytes are sniffed; a bad byte among their last four may be a character cut short
    cut = b"x" * 4092 + b"\xff" + b"a" * 10
    assert _check_start(cut) == cut
    with pytest.raises(InputError, match="not UTF-8"):
        _check_start(b"x" * 4091 + b"\xff" + b"a" * 10)


def test_element_lines_gives_where_every_turn_starts_in_one_pass() -> None:
    from yahtzee_cli.formats.logs import element_lines, locate

    raw = (FIX / "logs/yahtzee.json").read_bytes()
    lines = element_lines(raw, "/turns")
    assert len(lines) == len(orjson.loads(raw)["turns"]) > 20
    assert lines == [locate(raw, f"/turns/{i}") for i in range(len(lines))]
    assert element_lines(b'{"turns": [\n  {"a": [1,\n 2]}, 3,\n\n "x"]}', "/turns") == [2, 3, 5]
    assert element_lines(raw, "/players/0") == element_lines(raw, "/nothing") == []
    assert element_lines(b'{"turns": []}', "/turns") == []


def _objects(value: object) -> list[dict]:
    """Every object (dict) within a parsed JSON value, outermost first."""
    if isinstance(value, dict):
        return [value] + [o for v in value.values() for o in _objects(v)]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v)]
    return []


def _written(value: object, twice: dict, key: str) -> bytes:
    """`value` as JSON text, with `key` written twice in the object `twice` (first with the value 0)."""
    if isinstance(value, dict):
        items = [orjson.dumps(k) + b":" + _written(v, twice, key) for k, v in value.items()]
        if value is twice:
            items.insert(0, orjson.dumps(key) + b":0")
        return b"{" + b",".join(items) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(_written(v, twice, key) for v in value) + b"]"
    return orjson.dumps(value)


@pytest.mark.parametrize("names", [("Anna",), ("Anna", "Ben"), ("Dr: No", "A:B:C"), ("Zoë",)])
def test_a_repeated_key_anywhere_is_found_whatever_the_strings_hold(names) -> None:
    """The reader counts keys from the parsed game's shape (not from the value written back): every key
    written twice, at every place a colon stands, in games whose names and meta hold colons too."""
    for seed in range(3):
        data = random_log("yahtzee", seed, players=names)
        data["meta"] = {"started": "2026-12-03T13:13:22Z", "note": "a: b"}
        text = orjson.dumps(data)
        assert [d.problem for d in docs(text)] == [None]
        for n, obj in enumerate(_objects(data)):
            for key in list(obj)[:: 1 if n < 3 else 4]:
                repeated = _written(data, obj, key)
                got = docs(repeated + b"\n" + text)
                assert got[0].problem is not None and "appears twice" in got[0].problem.message, repeated
                assert got[1].problem is None


def test_a_turn_that_is_not_an_object_does_not_hide_a_repeat() -> None:
    """len() of a list or a string is not a count of keys: such a turn takes the exact count."""
    for odd in (b'[1,2,3,4,5,6,7,8,9]', b'"abcdefghijkl"'):
        text = (b'{"format":"yahtzee-log/1","rules":"yahtzee","players":["A"],"players":["A"],"turns":['
                + odd + b']}')
        got = docs(text + b"\n" + text)
        assert all(d.problem is not None and "'players' appears twice" in d.problem.message for d in got)
