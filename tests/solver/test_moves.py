"""The move table (solver.moves) changes no game: games read from it equal games the play kernel plays
without its memo (the unchanged path), dice and choices included, whatever the threads; a run of
`simulate` gives the same summary and the same logs, byte for byte; the table is cached and never
serves another strategy table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SMALL_RULES

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, moves, policy
from yahtzee_cli.solver.games import GameBatch

FIELDS = ("scores", "yahtzee_bonus", "totals", "rolls", "held", "n_rolls", "column", "box", "n_turns")


def _small(**settings: Any) -> R.RuleSet:
    data = {**SMALL_RULES, "settings": {**SMALL_RULES["settings"], **settings}}
    return R.rules_from_data(data)


def _reference(rules: R.RuleSet, strategy: str, seed: int, first: int, n: int, threads: int,
               monkeypatch: pytest.MonkeyPatch, start: Any = None) -> GameBatch:
    """The play kernel without memo or move table: every turn valued as it comes."""
    with monkeypatch.context() as m:
        m.setattr(exact, "_memo_key", lambda rules, fut: None)
        return exact.play_with(rules, policy.value_to_go_for(rules, strategy), seed, first, n, record=True,
                               threads=threads, start=start)


def _same(a: GameBatch, b: GameBatch) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


CASES = [
    (_small(), "optimal"),
    (_small(joker="free", extra_yahtzee_bonus=0), "optimal"),  # one Yahtzee lane: a full box shares a zero's row
    (_small(must_zero=False), "optimal"),  # passes
    (_small(), "greedy"),  # the heuristic value to go
    (R.preset("forced-yatzy"), "optimal"),  # boxes in order
]


@pytest.mark.parametrize(("rules", "strategy"), CASES, ids=lambda c: getattr(c, "name", c))
def test_move_table_plays_the_same_games(rules: R.RuleSet, strategy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fut = policy.value_to_go_for(rules, strategy)
    assert moves.applies(rules, fut)
    mt = moves.build(rules, fut)
    assert 0 < mt.dec.shape[0] and mt.dec.dtype == np.uint8
    for seed in (3, 2024):
        for threads in (1, 2):
            _same(moves.play_with(rules, fut, mt, seed, 17, 300, record=True, threads=threads),
                  _reference(rules, strategy, seed, 17, 300, threads, monkeypatch))


def test_a_sheet_off_the_tables_path_plays_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games from a sheet that optimal play never reaches (its states have no row) value their turns
    as they come, as the play kernel does."""
    rules = _small()
    fut = policy.value_to_go_for(rules, "optimal")
    mt = moves.build(rules, fut)
    start = R.Column(scores=(0, 0, None, 0, None, None), yahtzee_bonus=0)  # three zeros, upper bonus lost
    _same(moves.play_with(rules, fut, mt, 9, 0, 200, record=True, threads=2, start=[start]),
          _reference(rules, "optimal", 9, 0, 200, 2, monkeypatch, start=[start]))


def test_a_state_of_another_pass_rule_is_valued_as_it_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near the turn cap a game may no longer pass: those turns are not the table's (made with passes)."""
    rules = _small(must_zero=False)
    fut = policy.value_to_go_for(rules, "optimal")
    mt = moves.build(rules, fut)
    assert mt.may_pass
    monkeypatch.setattr(exact._PlayInputs, "__init__", _capped_turns(exact._PlayInputs.__init__))
    games = moves.play_with(rules, fut, mt, 4, 0, 200, record=True)
    _same(games, _reference(rules, "optimal", 4, 0, 200, 1, monkeypatch))
    assert (games.box < 0).any()  # (passes were played, and games went on without them)


def _capped_turns(init: Any) -> Any:
    def capped(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.max_turns = 7  # one turn to spare over six boxes: passes stop early in every game

    return capped


@pytest.mark.parametrize("workers", [1, 2])
def test_simulate_gives_the_same_summary_and_logs(workers: int, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    from yahtzee_cli.formats.jsonio import dumps
    from yahtzee_cli.play import simulate as S

    rules = _small()
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    moves._tables.clear()

    def run(use: bool) -> tuple[bytes, bytes]:
        logs: list[bytes] = []
        with monkeypatch.context() as m:
            if use:
                m.setattr(moves, "BUILD_GAMES", 1)
                m.setattr(moves, "USE_GAMES", 1)
            else:
                m.setattr(moves, "for_run", lambda *a: None)
            played: list[int] = []
            real = moves.play_with
            m.setattr(moves, "play_with", lambda *a, **k: played.append(1) or real(*a, **k))
            S.prepare(rules, ["optimal"], games=1500)
            report = S.simulate(rules, ["optimal"], 1500, 77, workers=workers, log_sink=logs.append)
            assert bool(played) == use
        return dumps(report.to_dict()), b"".join(logs)

    with_table = run(True)
    assert (tmp_path / f"moves-{rules.fingerprint}.tbl").is_file()
    assert with_table == run(False)
    moves._tables.clear()


def test_the_cache_keeps_a_table_for_its_strategy_table_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    rules = _small()
    fut = policy.value_to_go_for(rules, "optimal")
    moves._tables.clear()
    assert moves.cached(rules, fut) is None
    notes: list[str] = []
    seen: list[tuple[int, int]] = []
    built = moves.get(rules, fut, notes.append, lambda done, total: seen.append((done, total)))
    assert built is not None and any("building the custom move table" in n for n in notes)
    assert seen and seen[-1][0] == seen[-1][1]
    moves._tables.clear()
    again = moves.cached(rules, fut)
    assert again is not None and again is not built
    for name in ("rowof", "index", "dec"):
        np.testing.assert_array_equal(getattr(again, name), getattr(built, name))
    # a value to go that differs in one cell is another strategy: the cached table does not serve it
    import dataclasses

    W = np.array(fut.W)
    W[0, 0] += 1.0
    other = dataclasses.replace(fut, W=W)
    moves._tables.clear()
    assert moves.cached(rules, other) is None
    moves._tables.clear()


def test_a_damaged_table_is_built_again_and_not_read_chunk_after_chunk(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    rules = _small()
    fut = policy.value_to_go_for(rules, "optimal")
    moves._tables.clear()
    assert moves.get(rules, fut) is not None
    path = tmp_path / f"moves-{rules.fingerprint}.tbl"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    moves._tables.clear()
    reads: list[int] = []
    real = moves._from_file
    monkeypatch.setattr(moves, "_from_file", lambda *a: reads.append(1) or real(*a))
    assert moves.for_run(rules, fut, 10**6) is None and moves.for_run(rules, fut, 10**6) is None
    assert len(reads) == 1
    assert moves.get(rules, fut) is not None  # built again, and kept
    assert moves.for_run(rules, fut, 10**6) is not None
    moves._tables.clear()
    moves._unusable.clear()


def test_no_table_for_saved_rolls_or_columns() -> None:
    for rules in (R.preset("yahtzee", {"saved_rolls": True}), R.preset("triple-yahtzee")):
        fut = policy.value_to_go_for(rules, "greedy")
        assert not moves.applies(rules, fut)
        assert moves.for_run(rules, fut, 10**9) is None
