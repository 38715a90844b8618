"""The play kernel's memo of turn decisions (one column, no saved rolls) changes no game: games played
with it, cold or warm from earlier games, equal games played without it, dice and choices included."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, play_kernel, policy, within_turn
from yahtzee_cli.solver.games import GameBatch


def _games(rules: R.RuleSet, strategy: str, seed: int, n: int, memo: bool,
           monkeypatch: pytest.MonkeyPatch, threads: int = 1) -> GameBatch:
    with monkeypatch.context() as m:
        if not memo:
            m.setattr(exact, "_memo_key", lambda rules, fut: None)
        return policy.play(rules, strategy, seed, 0, n, record=True, threads=threads,
                           run_games=exact.MEMO_RUN_GAMES)


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
    ("yahtzee", {"fill_in_order": True}, "optimal"),  # one legal box a turn
    ("kniffel", {}, "optimal"),
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
    rows = [int(m[2][0]) for m in exact._memos.values()]
    assert rows and max(rows) > 0  # decisions were kept, so the second batch read some


def test_threads_share_one_memo_and_play_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four threads fill and read one memo at once (atomic claims and publication): the games are those
    played without a memo, and the memo holds each state once."""
    rules = R.preset("yahtzee")
    exact._memos.clear()
    try:
        _same(_games(rules, "optimal", 21, 3000, True, monkeypatch, threads=4),
              _games(rules, "optimal", 21, 3000, False, monkeypatch))
        (memo,) = exact._memos.values()
        rows, keys = (int(x) for x in memo[2][:2])
        slots = memo[1][memo[0] >= 0]
        assert keys == len(slots) and rows == (slots > 0).sum() > 1000
        assert not (slots == play_kernel.FILLING).any()  # every claimed row was published
        assert sorted(slots[slots > 0] - 1) == list(range(rows))  # no row given twice
    finally:
        exact._memos.clear()


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
        (rows, keys), = [tuple(int(x) for x in m[2][:2]) for m in exact._memos.values()]
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
        (memo,) = exact._memos.values()
        kept[visits] = int(memo[2][0])
        _same(batch, _games(rules, "optimal", 7, 300, False, monkeypatch))
        if visits == 16:  # a state has a row (+ 1), or at most 16 visits counted
            seen = memo[1][memo[0] >= 0]
            assert (seen > 0).sum() == kept[16] and seen.min() >= -16
    exact._memos.clear()
    assert kept[1] > kept[16] > 0 and kept[10_000] == 0


@pytest.mark.parametrize(("name", "overrides", "strategy"), [
    ("yahtzee", {}, "optimal"), ("yahtzee", {"joker": "free"}, "optimal"), ("yahtzee", {"joker": "off"}, "optimal"),
    ("yatzy", {}, "optimal"), ("yahtzee", {"fill_in_order": True}, "optimal"),
    ("yahtzee", {"must_zero": False}, "optimal"), ("kniffel", {}, "optimal"),
    ("yahtzee", {}, "greedy"), ("yatzy", {}, "greedy"),  # many ties: the first best box must win
])
def test_the_box_decisions_of_a_state_at_once_are_those_of_each_roll(name: str, overrides: dict[str, object],
                                                                     strategy: str) -> None:
    """box_codes (every final roll of a state at once, what the memo keeps) gives what box_code gives
    roll by roll, on the states of played games: joker rolls, extra bonuses, passes, one-box sheets
    and ties included."""
    from yahtzee_cli.solver.exact import _PlayInputs

    rules = R.preset(name, overrides)
    fut = policy.value_to_go_for(rules, strategy)
    inp = _PlayInputs(rules, fut, 1, False)
    work = play_kernel.turn_work(inp.ra, play_kernel.MAX_REROLLS)
    ybox, ypoints, must_zero = inp.ra.ybox, inp.ra.ypoints, inp.ra.must_zero
    natural = inp.ra.natural
    colraw, cmask, usum, yst = work.colraw, work.cmask, work.usum, work.yst
    games = policy.play(rules, strategy, 3, 0, 40, record=True)
    assert games.box is not None and games.n_turns is not None
    upper = set(rules.upper_indices)
    checked = 0
    for g in range(len(games)):
        mask, u, ys = 0, 0, -1
        for turn in range(int(games.n_turns[g])):
            cmask[0], usum[0], yst[0], colraw[0] = mask, u, ys, 0.0
            for may_pass in {False, bool(not must_zero)}:
                each = np.empty(natural.shape[0], np.int16)
                at_once = np.empty(natural.shape[0], np.int16)
                _both(each, at_once, work, inp.ra, inp.fut, may_pass)
                assert at_once.tolist() == each.tolist(), (g, turn)
                checked += 1
            b = int(games.box[g, turn])
            if b < 0:
                continue
            score = int(games.scores[g, 0, b])
            mask |= 1 << b
            u += score if b in upper else 0
            if b == ybox:
                ys = 1 if score == ypoints else 0
    assert checked >= 40 * len(rules.boxes)


@numba.njit
def _both(each: np.ndarray, at_once: np.ndarray, work: Any, ra: Any, fut: Any,  # pragma: no cover
          may_pass: bool) -> None:
    """box_code of every roll, and box_codes, of the state in work's cmask/usum/yst/colraw (the kernel's
    helpers have no Python wrapper: called from compiled code only)."""
    best12 = play_kernel._sheet_next_values(work, fut, ra)
    for r in range(ra.natural.shape[0]):
        each[r] = within_turn.box_code(r, work.NV, work.cmask, work.yst, may_pass, best12, ra)
    within_turn.box_codes(at_once, work.Vc, work.NV, work.cmask, work.yst, may_pass, best12, ra)


def test_a_short_run_keeps_a_memo_only_when_its_kernel_is_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel without the memo compiles faster: a short run (a first `simulate -n 2000`) uses it
    unless the memo's kernel is compiled already; a long run keeps a memo (where one applies)."""
    from yahtzee_cli.solver import jit

    rules = R.preset("yahtzee")
    inputs = exact._PlayInputs(rules, policy.value_to_go_for(rules, "optimal"), 1, False)
    asked: list[Any] = []
    for compiled in (False, True):
        monkeypatch.setattr(jit, "is_compiled", lambda kernel, args, c=compiled: asked.append(args[-1]) or c)
        assert inputs.wants_memo(exact.MEMO_RUN_GAMES - 1) is compiled
        assert inputs.wants_memo(exact.MEMO_RUN_GAMES)
    assert len(asked) == 2 and all(len(memo) == 5 for memo in asked)  # of the memo's types
    triple = R.preset("triple-yahtzee")  # no memo applies
    assert not exact._PlayInputs(triple, policy.value_to_go_for(triple, "greedy"), 1, False).wants_memo(10**9)
    monkeypatch.setattr(jit, "is_compiled", lambda kernel, args: False)
    assert exact.play_args(rules, policy.value_to_go_for(rules, "optimal"), False, 10)[-1] is None
    assert exact.play_args(rules, policy.value_to_go_for(rules, "optimal"), False, 10**6)[-1] is not None
