"""Property and fuzz tests: hostile dice words, rules files, game logs, sheets and command lines.

Whatever the input, every command ends with a documented exit status (0 ok, 1 a problem in the
input, 2 a usage error), at most one line on stderr, and never a traceback. The suite runs a short
budget; `python benchmarks/fuzz.py` runs the same properties with a long one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from yahtzee_cli.cli import app

EXAMPLES = int(os.environ.get("YAHTZEE_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize="YAHTZEE_FUZZ_EXAMPLES" not in os.environ)
RUNNER = CliRunner()
TMP = Path(tempfile.mkdtemp(prefix="yahtzee-fuzz-"))

# Text a careless or hostile user might type: digits of other scripts, control and right-to-left
# characters, byte-order marks, separators, huge numbers, and plain dice.
HOSTILE_CHARS = st.sampled_from(list("0123456789 ,\t-+.eE") + ["²", "٣", "３", "\ufeff", "\x1b", "\u202e",
                                                               "\x00", "\n", "\u200b", "🎲", "Ⅴ"])
HOSTILE_TEXT = st.one_of(st.text(HOSTILE_CHARS, max_size=12), st.text(max_size=12),
                         st.sampled_from(["12345", "66666", "1 2 3 4 5", "-", "", "9" * 30, "-1"]))
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                         st.floats(allow_nan=False), HOSTILE_TEXT)


def invoke(args: list[str], stdin: bytes | None = None) -> Any:
    r = RUNNER.invoke(app, args, input=stdin, prog_name="yahtzee")
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.stderr, (args, r.stderr)
    assert r.exit_code in (0, 1, 2), (args, r.exit_code, r.stderr)
    return r


def one_line_on_failure(r: Any) -> None:
    if r.exit_code and not r.stderr.startswith("Usage:"):  # (the script words usage errors in one line too)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@FUZZ
@given(st.lists(HOSTILE_TEXT, min_size=1, max_size=7))
def test_dice_words(words: list[str]) -> None:
    for cmd in (["score"], ["poker"]):  # (hint reads its dice with the same parser)
        if words and words[0].startswith("-"):
            words = ["--", *words]
        r = invoke([*cmd, *words])
        one_line_on_failure(r)


@FUZZ
@given(st.lists(HOSTILE_TEXT, max_size=6))
def test_score_batch_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    r = invoke(["score", "-"], text.encode("utf-8", "surrogatepass"))
    assert r.exit_code in (0, 1)
    assert len(r.stderr.strip().splitlines()) <= text.count("\n") + 1  # at most one line per input line


BOX = st.fixed_dictionaries(
    {"key": st.one_of(st.sampled_from(["a", "b", "chance", "yahtzee"]), HOSTILE_TEXT),
     "kind": st.one_of(st.sampled_from(["upper", "kind", "pairs", "groups", "straight", "yahtzee", "chance"]),
                       JSON_SCALARS)},
    optional={"face": JSON_SCALARS, "n": JSON_SCALARS, "points": JSON_SCALARS, "length": JSON_SCALARS,
              "sizes": st.lists(JSON_SCALARS, max_size=3), "name": HOSTILE_TEXT})
RULES = st.one_of(
    st.fixed_dictionaries({"boxes": st.lists(BOX, max_size=70)},
                          optional={"name": HOSTILE_TEXT, "dice": JSON_SCALARS,
                                    "settings": st.dictionaries(st.sampled_from(["columns", "joker", "upper_bonus",
                                                                                 "column_multipliers", "bogus"]),
                                                                JSON_SCALARS, max_size=3)}),
    st.fixed_dictionaries({"preset": HOSTILE_TEXT}), JSON_SCALARS,
    st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner,
                                                                                             max_size=3), max_leaves=8))


@FUZZ
@given(RULES)
def test_rules_files(rules: Any) -> None:
    path = TMP / "rules.json"
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")  # (big ints too, unlike orjson)
    r = invoke(["score", "12345", "--rules", str(path)])
    assert r.exit_code in (0, 2)
    one_line_on_failure(r)


GAME = {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Anna", "Ben"],
        "turns": [{"player": "Anna", "rolls": [[1, 3, 3, 5, 6], [3, 3, 2, 2, 4], [3, 3, 3, 2, 2]],
                   "held": [[3, 3], [3, 3, 2, 2]], "box": "full_house", "score": 25},
                  {"player": "Ben", "rolls": [[6, 6, 6, 6, 6]], "box": "yahtzee", "score": 50}]}
SHEET = {"format": "yahtzee-sheet/1", "rules": "yahtzee",
         "players": [{"name": "Anna", "boxes": {"ones": 3, "chance": 22, "yahtzee_bonus": 0}}]}


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid log or sheet, then changed: a value replaced at some path, or raw bytes edited."""
    doc = orjson.loads(orjson.dumps(draw(st.sampled_from([GAME, SHEET]))))
    node: Any = doc
    for _ in range(draw(st.integers(0, 4))):
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        if draw(st.booleans()) or not isinstance(node[key], dict | list):
            node[key] = draw(st.one_of(JSON_SCALARS, RULES))
            break
        node = node[key]
    raw = json.dumps(doc, ensure_ascii=False).encode()
    if draw(st.booleans()):
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.binary(max_size=8)) + raw[at + draw(st.integers(0, 4)):]
    if draw(st.booleans()):
        raw = raw + b"\n" + raw  # a batch
    return raw


@FUZZ
@given(mutated())
def test_logs_and_sheets(raw: bytes) -> None:
    for cmd in (["validate", "-"], ["replay", "-"], ["score", "12345", "--sheet", "-"]):
        r = invoke(cmd, raw)
        if cmd[0] == "score":  # (validate and replay list every problem of every game, one per line)
            one_line_on_failure(r)


WORDS = st.sampled_from(["score", "poker", "rules", "schema", "validate", "replay", "--json", "--rules", "--set",
                         "--box", "-", "--help", "--version", "yahtzee", "maxi-yatzy", "joker=free", "columns=99",
                         "log", "sheet", "12345", "--top", "--until", "--quiet", "--players", "--sheet"])


@FUZZ
@given(st.lists(st.one_of(WORDS, HOSTILE_TEXT), min_size=1, max_size=6), st.binary(max_size=40))
def test_command_lines(words: list[str], stdin: bytes) -> None:
    if words[0] not in ("score", "poker", "rules", "schema", "validate", "replay"):
        words = ["score", *words]
    r = invoke(words, stdin)
    if words[0] not in ("validate", "score"):
        one_line_on_failure(r)
