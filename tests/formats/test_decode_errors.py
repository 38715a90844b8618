"""A game that is not JSON is reported at one place: the line a problem is filed under (`file:LINE:`
in text, `line` in JSON) is the line its message names, the damaged line of an NDJSON batch included
(orjson puts "unexpected end of data" on the empty line after the text's last newline)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.jsonio import dumps
from yahtzee_cli.formats.logs import iter_documents
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.rules.engine import preset

GAMES = [dumps(random_log(preset("yahtzee"), seed, players=["Anna"])) for seed in range(3)]
AT = re.compile(r"at line (\d+), column (\d+)")


def _bad(raw: bytes) -> list[tuple[int, int, int]]:
    """(line filed under, line named, column named) of every problem document of `raw`."""
    out = []
    for d in iter_documents(io.BytesIO(raw)):
        if d.problem is not None:
            m = AT.search(d.problem.message)
            assert m is not None, d.problem.message
            out.append((d.line, int(m.group(1)), int(m.group(2))))
    return out


def test_a_cut_ndjson_line_is_named_by_its_own_number() -> None:
    cut = GAMES[1][:40]
    raw = GAMES[0] + b"\n" + cut + b"\n" + GAMES[2] + b"\n"
    assert _bad(raw) == [(2, 2, 41)]  # the end of line 2, not line 3 column 1
    assert _bad(raw.replace(b"\n", b"\r\n")) == [(2, 2, 41)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2), st.integers(1, 200), st.sampled_from([b"\n", b"\r\n", b"\n\n", b"\n  \n"]),
       st.booleans())
def test_any_damaged_ndjson_line_is_filed_under_the_line_it_names(at: int, keep: int, newline: bytes,
                                                                  last: bool) -> None:
    # (a later line: a damaged first line makes the whole input one pretty document, as documented)
    lines = list(GAMES)
    lines[at] = lines[at][:keep]
    raw = newline.join(lines) + (b"" if last else newline)
    got = _bad(raw)
    assert len(got) == 1
    filed, named, column = got[0]
    start = sum(len(x) + len(newline) for x in lines[:at])
    assert filed == named == raw[:start].count(b"\n") + 1
    assert column <= len(lines[at]) + 1


def test_a_pretty_document_is_filed_under_the_line_of_its_error() -> None:
    pretty = json.dumps(random_log(preset("yahtzee"), 1, players=["Anna"]), indent=1).encode()
    broken = pretty.replace(b'"rules"', b'"rules" 1', 1)
    line = broken[: broken.index(b'"rules" 1')].count(b"\n") + 1
    assert line > 1
    assert _bad(b"\n" + broken + b"\n") == [(line + 1, line + 1, 10)]
    cut = pretty[:300]
    (got,) = _bad(cut + b"\n\n")
    assert got[0] == got[1] == cut.rstrip().count(b"\n") + 1  # the end of the text, not the blank line after


def test_validate_and_stats_name_one_line(tmp_path: Path, cli: Any) -> None:
    path = tmp_path / "night.ndjson"
    path.write_bytes(GAMES[0] + b"\n" + b'{"format": "yahtzee-log/1", "rules": \n' + GAMES[1] + b"\n")
    res = cli(["validate", str(path)])
    assert f"{path}:2: game 2: invalid JSON at line 2, column 38: unexpected end of data" in res.stdout
    rec = json.loads(cli(["validate", "--json", str(path)]).stdout)["errors"][0]
    assert (rec["line"], rec["message"]) == (2, "invalid JSON at line 2, column 38: unexpected end of data")
    res = cli(["stats", str(path)])
    assert f"{path}:2: game 2: skipped (invalid): invalid JSON at line 2, column 38" in res.stderr


def test_a_rules_file_names_a_line_it_has(tmp_path: Path, cli: Any) -> None:
    path = tmp_path / "house.json"
    path.write_bytes(b'{"preset": "yahtzee",\n "settings": \n')
    res = cli(["rules", str(path)])
    assert res.exit_code == 2
    assert res.stderr.strip().endswith("is not valid JSON: unexpected end of data at line 2, column 14")
