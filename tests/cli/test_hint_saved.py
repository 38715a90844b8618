"""`yahtzee hint --saved N`: a stock of N saved rolls is spent within the turn, so after the first roll
2 + N rolls are left unless --rolls-left says otherwise (a small capped rule set, played by its
heuristic, fitted in seconds); --saved on rules without saved rolls is one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import SAVED_RULES

TINY = {**SAVED_RULES, "settings": {**SAVED_RULES["settings"], "saved_rolls_cap": 2}}
DICE = ["1", "2", "3", "4", "5"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    p = tmp_path_factory.mktemp("saved") / "tiny.json"
    p.write_bytes(orjson.dumps(TINY))
    return str(p)


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Two boxes filled: two turns played, so up to 4 rolls (2 under this cap) can be saved."""
    p = tmp_path_factory.mktemp("saved") / "sheet.json"
    p.write_bytes(orjson.dumps({"format": "yahtzee-sheet/1", "rules": TINY, "players": [
        {"name": "Anna", "boxes": {"three_of_a_kind": 0, "chance": 17}}]}))
    return str(p)


def _hint(cli: Any, *args: str) -> dict[str, Any]:
    r = cli(["hint", *DICE, *args, "--json"])
    assert r.exit_code == 0, r.stderr
    return orjson.loads(r.stdout)  # type: ignore[no-any-return]


def test_saved_rolls_are_rolls_left_this_turn(cli: Any, sheet: str) -> None:
    on = ("--sheet", sheet)
    by_stock = [_hint(cli, *on, "--saved", str(n)) for n in range(3)]
    assert [h["rolls_left"] for h in by_stock] == [2, 3, 4]
    best = [h["options"][0]["value"] for h in by_stock]
    assert best[0] < best[1] < best[2]  # each saved roll is one more reroll now
    # the same as saying the rolls left outright
    assert by_stock[2] == _hint(cli, *on, "--saved", "2", "--rolls-left", "4")
    # with the saved rolls spent, the position is worth what a turn without them is
    spent = _hint(cli, *on, "--saved", "2", "--rolls-left", "2")
    assert spent["options"] == by_stock[0]["options"]
    text = cli(["hint", *DICE, *on, "--saved", "1", "--top", "1"])
    assert text.stdout.startswith("Anna: 1 2 3 4 5, 3 rolls left ("), text.stdout


def test_a_stock_the_sheet_cannot_hold_is_a_usage_error(cli: Any, tiny: str) -> None:
    # a turn saves at most 2 rolls: an empty sheet (no --sheet) holds none
    r = cli(["hint", *DICE, "--rules", tiny, "--saved", "1"])
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "--saved takes 0-0 with 0 boxes filled (a turn saves at most 2 rolls;" in r.stderr
    assert "--sheet" in r.stderr


def test_the_help_says_what_saved_rolls_do(cli: Any) -> None:
    r = cli(["hint", "--help"])
    assert "2 + N are left" in " ".join(r.stdout.split())


@pytest.mark.parametrize("args,says", [
    (["--saved", "2"], "--saved counts rolls saved from earlier turns, which yahtzee has none of"),
    (["--rules", "TINY", "--saved", "0", "--rolls-left", "4"], "--rolls-left takes 2|1|0 here, got 4"),
])
def test_saved_rolls_the_rules_do_not_have_are_one_line(cli: Any, tiny: str, args: list[str], says: str) -> None:
    r = cli(["hint", *DICE, *[tiny if a == "TINY" else a for a in args]])
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr


def test_saved_rolls_through_the_installed_script(yahtzee: list[str], tiny: str, tmp_path: Path) -> None:
    import os
    import subprocess

    r = subprocess.run([*yahtzee, "hint", *DICE, "--rules", tiny, "--saved", "0", "--top", "1"],
                       capture_output=True, text=True, env=os.environ, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("1 2 3 4 5, 2 rolls left (custom, ")
