"""The play kernel's memo of turn decisions (one column, no saved rolls) changes no game: games played
with it, cold or warm from earlier games, equal games played without it, dice and choices included."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, play_kernel, policy
from yahtzee_cli.solver.games import GameBatch


def _games(rules: R.RuleSet, strategy: str, seed: int, n: int, memo: bool,
           monkeypatch: pytest.MonkeyPatch) -> GameBatch:
    with monkeypatch.context() as m:
        if not memo:
            m.setattr(exact, "_memo_key", lambda rules, fut: None)
        return policy.play(rules, strategy, seed, 0, n, record=True, threads=1)


def _same(a: GameBatch, b: GameBatch) -> None:
    for name in ("scores", "yahtzee_bonus", "totals", "rolls", "held", "n_rolls", "column", "box", "n_turns"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.fixture(autouse=True)
def _decisions_on_a_second_visit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short runs make and read many decisions (a run keeps them only for states it visits often)."""
    monkeypatch.setattr(play_kernel, "MEMO_VISITS", 1)


@pytest.mark.parametrize(("name", "overrides", "strategy"), [
    ("yahtzee", {}, "optimal"),
    ("yahtzee", {"joker": "free", "extra_yahtzee_bonus": 0}, "optimal"),
    ("yahtzee", {"must_zero": False}, "optimal"),  # passes: a state's key holds whether it may pass
    ("yatzy", {}, "optimal"),
    ("yatzy", {}, "greedy"),  # the heuristic value to go, not a table
])
def test_memo_changes_no_game(name: str, overrides: dict[str, object], strategy: str,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    rules = R.preset(name, overrides)
    fut = policy.value_to_go_for(rules, strategy)
    assert exact._memo_key(rules, fut) is not None
    exact._memos.clear()
    # the second batch plays from the decisions the first one made (the memo stays in the process)
    for seed in (11, 12):
        _same(_games(rules, strategy, seed, 400, True, monkeypatch),
              _games(rules, strategy, seed, 400, False, monkeypatch))
    rows = [int(m[2][0]) for ms in exact._memos.values() for m in ms]
    assert rows and max(rows) > 0  # decisions were kept, so the second batch read some


@pytest.mark.parametrize(("states", "seen", "counts"), [(40, 4096, (40, None)), (4096, 64, (None, 64))])
def test_a_full_memo_plays_on_without_it(states: int, seen: int, counts: tuple[int | None, int | None],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its rows, or the states it remembers, run out, states are valued turn by turn as before."""
    rules = R.preset("yahtzee")
    monkeypatch.setattr(play_kernel, "MEMO_STATES", states)
    monkeypatch.setattr(play_kernel, "MEMO_SEEN", seen)
    exact._memos.clear()
    try:
        _same(_games(rules, "optimal", 5, 300, True, monkeypatch), _games(rules, "optimal", 5, 300, False, monkeypatch))
        (rows, keys), = [tuple(int(x) for x in m[2][:2]) for ms in exact._memos.values() for m in ms]
        assert (rows if counts[0] else keys) == (counts[0] or counts[1])
    finally:
        exact._memos.clear()


def test_no_memo_where_a_state_key_would_not_cover_the_values() -> None:
    for name, overrides in [("kniffel", {"columns": 3}), ("maxi-yatzy", {}), ("triple-yahtzee", {})]:
        rules = R.preset(name, overrides)
        fut = policy.value_to_go_for(rules, "greedy")
        assert exact._memo_key(rules, fut) is None, name


def test_decisions_are_kept_only_for_states_visited_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state's decisions are made in full on its (MEMO_VISITS + 1)th visit, not before; the games
    are the same whatever the threshold."""
    rules = R.preset("yahtzee")
    kept = {}
    for visits in (1, 16, 10_000):
        monkeypatch.setattr(play_kernel, "MEMO_VISITS", visits)
        exact._memos.clear()
        batch = _games(rules, "optimal", 7, 300, True, monkeypatch)
        (memo,) = [m for ms in exact._memos.values() for m in ms]
        kept[visits] = int(memo[2][0])
        _same(batch, _games(rules, "optimal", 7, 300, False, monkeypatch))
        if visits == 16:  # a state has a row, or at most 16 visits counted
            seen = memo[1][memo[0] >= 0]
            assert (seen >= 0).sum() == kept[16] and seen.min() >= -16
    exact._memos.clear()
    assert kept[1] > kept[16] > 0 and kept[10_000] == 0
