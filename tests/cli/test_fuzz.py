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
HOSTILE_CHAR_LIST = list("0123456789 ,\t-+.eE") + ["²", "٣", "３", "\ufeff", "\x1b", "\u202e", "\x00", "\n",
                                                      "\u200b", "🎲", "Ⅴ"]
HOSTILE_CHARS = st.sampled_from(HOSTILE_CHAR_LIST)
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
    if r.exit_code:  # usage errors too: one line in the tool's voice, in the test runner as in the script
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("yahtzee: error: "), r.stderr


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


WORD_LIST = ["score", "poker", "rules", "schema", "validate", "replay", "--json", "--rules", "--set",
                         "--box", "-", "--help", "--version", "yahtzee", "maxi-yatzy", "joker=free", "columns=99",
                         "log", "sheet", "12345", "--top", "--until", "--quiet", "--players", "--sheet"]
WORDS = st.sampled_from(WORD_LIST)


@FUZZ
@given(st.lists(st.one_of(WORDS, HOSTILE_TEXT), min_size=1, max_size=6), st.binary(max_size=40))
def test_command_lines(words: list[str], stdin: bytes) -> None:
    if words[0] not in ("score", "poker", "rules", "schema", "validate", "replay"):
        words = ["score", *words]
    r = invoke(words, stdin)
    if words[0] not in ("validate", "score"):
        one_line_on_failure(r)


# --------------------------------------------------------------------------- bounded memory

# Runs in a child process (its peak RSS is its own): the inputs that once took gigabytes -- endless
# lines, /dev/zero, deep nesting, rule sets too big for the solver, absurd counts -- then a batch of
# hostile command lines. Each must end with a documented status and no traceback.
MEMORY_DRIVER = r"""
import io, resource, sys
import typer.testing as typer_testing
from typer.testing import CliRunner
from yahtzee_cli.cli import app

resource.setrlimit(resource.RLIMIT_AS, (__LIMIT__, __LIMIT__))  # a runaway fails here instead of swapping the machine

class Endless(io.RawIOBase):  # b"1" forever: one line that never ends
    def readable(self): return True
    def readinto(self, b):
        b[:] = b"1" * len(b)
        return len(b)

_bytes_input = typer_testing.make_input_stream  # the runner takes bytes; these inputs are endless streams
typer_testing.make_input_stream = lambda i, charset: i if hasattr(i, "read") else _bytes_input(i, charset)
runner = CliRunner()
def run(args, stdin=None):
    r = runner.invoke(app, args, input=stdin)
    assert r.exit_code in (0, 1, 2) and "Traceback" not in r.stderr, (args, r.exit_code, r.stderr[-500:])

wide = __TMP__ + "/wide.json"
with open(wide, "w") as f:
    f.write('{"name": "wide", "boxes": [' + ",".join('{"key": "c%d", "kind": "chance"}' % i for i in range(40)) + ']}')
for args in (["score", "-", "--box", "chance"], ["validate", "-"], ["replay", "-"]):
    run(args, io.BufferedReader(Endless()))
    run(args, open("/dev/zero", "rb"))
run(["validate", "-"], b"[" * 100000)
run(["hint", "12345", "--rules", wide])
run(["solve", "--rules", wide])
run(["simulate", "-n", "10", "--seed", "1", "--rules", wide])
run(["simulate", "--games", "9" * 30, "-S", "random"])
for line in sys.stdin.read().split("\x1e")[:-1]:
    run(line.split("\x1f"))
# this process's own peak (ru_maxrss would count the forking test process's pages from before exec)
print(next(x.split()[1] for x in open("/proc/self/status") if x.startswith("VmHWM:")))
"""
MEMORY_LIMIT = 3 << 30  # address space of the child (numpy and numba reserve more than they touch)
PEAK_RSS_MIB = 400  # importing numpy, numba and the CLI takes about 110 MiB; the whole batch peaked at 133 MiB


def _hostile_command_lines(n: int, seed: int) -> list[list[str]]:
    """`n` command lines of the words and characters the properties above draw from (a fixed seed:
    the memory test runs once, in one child process, so it is drawn here rather than by hypothesis)."""
    import random

    rng = random.Random(seed)

    def word() -> str:
        if rng.random() < 0.5:
            return rng.choice(WORD_LIST)
        return "".join(rng.choice(HOSTILE_CHAR_LIST) for _ in range(rng.randint(0, 12)))

    lines = []
    for _ in range(n):
        w = [word() for _ in range(rng.randint(1, 6))]
        lines.append(w if w[0] in ("score", "poker", "rules", "schema") else ["score", *w])
    return lines


def test_hostile_inputs_in_bounded_memory() -> None:
    lines = _hostile_command_lines(60, seed=int(os.environ.get("YAHTZEE_FUZZ_SEED", "0")))
    import subprocess
    import sys

    batch = "".join("\x1f".join(w) + "\x1e" for w in lines if not any(c in x for x in w for c in "\x1e\x1f\x00"))
    code = MEMORY_DRIVER.replace("__LIMIT__", str(MEMORY_LIMIT)).replace("__TMP__", repr(str(TMP)))
    child = subprocess.run([sys.executable, "-c", code], input=batch.encode("utf-8", "surrogatepass"),
                           capture_output=True, timeout=300)
    assert child.returncode == 0, child.stderr.decode(errors="replace")[-3000:]
    peak_mib = int(child.stdout.split()[-1]) / 1024  # VmHWM, in KiB
    assert peak_mib < PEAK_RSS_MIB, f"peak RSS {peak_mib:.0f} MiB"
