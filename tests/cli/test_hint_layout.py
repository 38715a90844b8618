"""One text layout for every hint (plain, --distribution, --risk, --target, --to-win): the position, the
method (named once and truly) and the goal on one line; headings; one row per option, best first, as
many as --top asks, no two alike, each option named as the plain hint names it; chances printed with
enough digits to tell them apart (formats.render.percents). On the six-box rules, where every method
answers in a second or two."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import SMALL_RULES, write_small_rules
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.render import percents
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.play import hint as H
from yahtzee_cli.rules.engine import rules_from_data

DICE = ["1", "3", "3", "5", "6"]
HEAD = re.compile(r"^(?:\w+: )?[1-6](?: [1-6])*, (?:\d+ rolls?|no rolls) left \(custom, "
                  r"(?P<method>exact|best of the risk strategies \(theta [-0-9.]+(?:, [-0-9.]+)*\))"
                  r"(?:; (?P<goal>[^()]+(?:\([^()]*\))?[^()]*))?\)$")


def _parse(text: str) -> tuple[re.Match[str], list[str], list[list[str]], list[str]]:
    """(the head line's match, the headings, the option rows, the lines after them), split on two spaces."""
    lines = text.splitlines()
    m = HEAD.match(lines[0])
    assert m, lines[0]
    headings = re.split(r"\s{2,}", lines[1].strip())
    rows, notes = [], []
    for line in lines[2:]:
        if re.split(r"\s{2,}", line.strip())[0].endswith(":") or not line.startswith("  ") or len(
                re.split(r"\s{2,}", line.strip())) < 3:
            notes.append(line)
        else:
            rows.append(re.split(r"\s{2,}", line.strip()))
    return m, headings, rows, notes


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_small_rules(tmp_path_factory.mktemp("layout"))


@pytest.fixture
def game(tmp_path: Path) -> Any:
    small = rules_from_data(SMALL_RULES)

    def write(turns: int, players: tuple[str, ...]) -> str:
        p = tmp_path / f"g{turns}-{len(players)}.json"
        p.write_bytes(orjson.dumps(random_log(small, 3, players, spec=SMALL_RULES, turns=turns)))
        return str(p)

    return write


def _run(cli: Any, args: list[str]) -> tuple[str, dict[str, Any], str]:
    text = cli(args)
    assert text.exit_code == 0, text.stderr
    js = cli([*args, "--json"])
    assert js.exit_code == 0, js.stderr
    return text.stdout, orjson.loads(js.stdout), text.stderr


def _plain_labels(cli: Any, args: list[str]) -> list[str]:
    text, _, _ = _run(cli, args)
    return [row[0] for row in _parse(text)[2]]


@pytest.mark.parametrize("extra,measure", [
    ([], "expected"),
    (["--distribution"], "expected"),
    (["--risk", "0.05"], "certainty equivalent"),
    (["--target", "150"], "P(final >= 150)"),
])
@pytest.mark.parametrize("top", [2, 4])
def test_every_method_has_the_one_layout(cli: Any, rules_file: str, extra: list[str], measure: str, top: int) -> None:
    text, rec, _ = _run(cli, ["hint", *DICE, "--rules", rules_file, *extra, "--top", str(top)])
    m, headings, rows, notes = _parse(text)
    assert m["method"] == "exact"
    assert headings[:3] == ["option", measure, "vs best"]
    assert len(rows) == top == len(rec["options"]) and not notes
    assert rows[0][2] == "best" and all(r[2] != "best" for r in rows[1:])
    assert len({tuple(r) for r in rows}) == len(rows)  # no two rows alike
    plain = _plain_labels(cli, ["hint", *DICE, "--rules", rules_file])
    for row in rows:
        assert row[0] in plain or any(p.startswith(row[0].rstrip(")") + ",") for p in plain), row[0]
    if "--risk" in extra:
        assert "E[exp(0.05 * final score)]" in m["goal"]
    elif "--target" in extra:
        assert m["goal"] == "maximise P(final >= 150)"
    else:
        assert m["goal"] is None  # the expected score, as the plain hint


def test_the_risk_strategies_are_named_honour_top_and_give_each_row_its_strategy(
        cli: Any, rules_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "EXACT_SECONDS", 0.0)  # as if exact play would be too slow here
    args = ["hint", *DICE, "--rules", rules_file, "--target", "150"]
    cli(args)  # the risk tables built (notes) unless cached
    for top in (1, 3, None):
        text, rec, err = _run(cli, [*args] + ([] if top is None else ["--top", str(top)]))
        m, headings, rows, notes = _parse(text)
        assert rec["method"] == "risk_strategies" and "risk strategies" in err
        assert m["method"].startswith("best of the risk strategies (theta ") and "exact" not in m["method"]
        thetas = [b["theta"] for b in rec["by_theta"]]
        assert m["method"] == "best of the risk strategies (theta " + ", ".join(f"{t:g}" for t in thetas) + ")"
        assert headings == ["option", "P(final >= 150)", "vs best", "then play by"]
        assert len(rows) == len(rec["options"]) and (top is None or len(rows) == top)
        assert len({r[0] for r in rows}) == len(rows)  # every row its own option
        for row, opt in zip(rows, rec["options"], strict=True):
            assert opt["theta"] in thetas
            assert row[3] == ("theta 0 (expected score)" if opt["theta"] == 0 else f"theta {opt['theta']:g}")
        assert rec["best"]["probability"] == rec["options"][0]["probability"] == max(
            b["probability"] for b in rec["by_theta"])
        assert rec["theta"] == rec["options"][0]["theta"]
        # one note: each strategy's best option with its chance, not a row per strategy
        assert len(notes) == 1 and notes[0].startswith("  each strategy's best option")
    # every option, each at its best strategy, in order
    probs = [o["probability"] for o in rec["options"]]
    assert probs == sorted(probs, reverse=True)
    chances = [r[1] for r in rows]
    for i in range(len(probs)):
        for j in range(i):
            if abs(probs[i] - probs[j]) > 1e-12:
                assert chances[i] != chances[j], (probs[i], probs[j])


def test_to_win_names_the_opponents_once_and_the_method_truly(cli: Any, game: Any) -> None:
    f = game(9, ("Ann", "Ben", "Cleo"))  # Ann to move, three boxes each left
    text, rec, _ = _run(cli, ["hint", *DICE, "--log", f, "--to-win", "--top", "3"])
    m, headings, rows, _ = _parse(text)
    assert rec["opponents"] == ["Ben", "Cleo"] and rec["method"] == "exact"
    assert text.startswith("Ann: 1 3 3 5 6, 2 rolls left (custom, exact; maximise P(win) against Ben and Cleo; "
                           "a tie counts as a share)\n")
    assert headings == ["option", "P(win)", "vs best"] and len(rows) == 3


def test_a_stop_is_named_as_the_plain_hint_names_it(cli: Any, rules_file: str) -> None:
    plain = _plain_labels(cli, ["hint", "6", "6", "6", "6", "6", "--rules", rules_file])
    target, rec, _ = _run(cli, ["hint", "6", "6", "6", "6", "6", "--rules", rules_file, "--target", "150"])
    labels = [r[0] for r in _parse(target)[2]]
    assert any(p.startswith("keep all (stop rolling, then ") for p in plain)
    assert "keep all (stop rolling)" in labels and not any(lab.startswith("keep 6 6 6 6 6") for lab in labels)


# --------------------------------------------------------------------------- chances in text

def _value(text: str) -> float:
    return float(text.rstrip("%"))


def test_small_chances_are_told_apart() -> None:
    assert percents([0.000312, 0.000347]) == ["0.0312%", "0.0347%"]
    assert percents([0.1323, 0.00031]) == ["13.23%", "0.0310%"]
    assert percents([0.13228944, 0.13228945]) == ["13.228944%", "13.228945%"]
    assert percents([0.0, 1.0, 0.999999, 1e-9]) == ["0%", "100%", "99.9999%", "1.00e-07%"]


chance = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 1e-9, 0.5, 0.999999, 0.000312, 0.000347]))


@settings(max_examples=300, deadline=None)
@given(st.lists(chance, min_size=1, max_size=8))
def test_chances_print_apart_in_order_and_near_their_value(values: list[float]) -> None:
    shown = percents(values)
    for v, s in zip(values, shown, strict=True):
        x = _value(s)
        assert (s == "0%") == (v == 0.0) and (s == "100%") == (v == 1.0)
        if 0 < v < 1:  # at least three significant digits, the last one rounded
            digits = s.rstrip("%").split("e")[0].replace(".", "").lstrip("0")
            assert len(digits) >= 3
            assert math.isclose(x, 100 * v, rel_tol=5e-3)
    for i, (a, sa) in enumerate(zip(values, shown, strict=True)):
        for b, sb in zip(values[:i], shown[:i], strict=True):
            if abs(a - b) > 1e-12:
                assert sa != sb, (a, b, sa)
            if a < b:
                assert _value(sa) <= _value(sb), (a, b, sa, sb)
