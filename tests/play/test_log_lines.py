"""One seat's game logs written by the compiled writer (play.log_lines) are the bytes the line-by-line
orjson writer makes: every kind of turn (stops, rerolls keeping nothing, passes), custom rules, names
that JSON escapes, game numbers past a billion."""

from __future__ import annotations

import pytest
from conftest import SMALL_RULES

from yahtzee_cli.play import log_lines
from yahtzee_cli.play import simulate as S
from yahtzee_cli.rules import engine as R


def _both(rules: R.RuleSet, names: list[str], strategy: str, seed: int, first: int, n: int,
          monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    batch = S.play(rules, strategy, seed, first, n, record=True)
    fast = S.game_logs(rules, names, [batch], seed, [strategy])
    with monkeypatch.context() as m:
        m.setattr(log_lines, "applies", lambda *a: False)
        slow = S.game_logs(rules, names, [batch], seed, [strategy])
    return fast, slow


@pytest.mark.parametrize(("rules", "strategy"), [
    (R.preset("yahtzee"), "optimal"),
    (R.preset("yahtzee", {"must_zero": False}), "random"),  # passes: "box": null, no score
    (R.rules_from_data(SMALL_RULES), "greedy"),  # a custom rule set: the whole of it in every line
    (R.preset("yatzy", {"upper_bonus": 60}), "random"),  # a preset with a changed setting
])
def test_the_compiled_writer_writes_the_same_bytes(rules: R.RuleSet, strategy: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both(rules, [strategy], strategy, 12, 3, 300, monkeypatch)
    assert fast == slow
    assert fast.count(b"\n") == 300


def test_names_seeds_and_game_numbers_as_orjson_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both(R.preset("yahtzee"), ['b\u00f6t "7"\\'], "random", 2**63 - 1, 10**12 - 5, 5, monkeypatch)
    assert fast == slow
    assert b'"game":1000000000000' in fast


def test_matches_keep_the_line_by_line_writer() -> None:
    rules = R.preset("yahtzee")
    assert log_lines.compiled(rules, 1) and not log_lines.compiled(rules, 2)
    assert not log_lines.compiled(R.preset("triple-yahtzee"), 1)
    assert S.record_cap(rules, 2) <= 1000 < S.record_cap(rules, 1)
