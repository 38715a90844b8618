"""The compiled grading path (solver.grade_kernel) against the pure-Python one (strategy.turn.Turn).

Both value the same decisions from the same table, so every decision must come out identical: the
same values (to the last bit, hence well within 1e-9), regrets, best moves and tie-breaks. Games:
simulated optimal, greedy and random games with their logs, random legal games with and without
held dice (inferred keeps), dice loaded towards sixes (Yahtzees: jokers, extra bonuses, keeping
every die and rolling again), passes with must_zero off, boxes filled in order (a sparse table),
three-column sheets whose columns add up or whose best column counts. Where the compiled path does
not apply (approximate values, saved rolls, risk grading) the pure path grades, with the same output.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import simulated_logs

from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.play import analyze as A
from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy.sources import HeuristicSource


class Loaded(random.Random):
    """Dice that show a six more than half the time: Yahtzees (jokers, extra bonuses) are common."""

    def randint(self, a: int, b: int) -> int:
        return 6 if (a, b) == (1, 6) and self.random() < 0.55 else super().randint(a, b)


@pytest.fixture(scope="module")
def pure() -> A.Analyzer:
    return A.Analyzer(compiled=False)


@pytest.fixture(scope="module")
def fast() -> A.Analyzer:
    return A.Analyzer(compiled=True)


def _same(pure: A.Analyzer, fast: A.Analyzer, game: dict[str, Any], compiled: bool = True) -> A.GameAnalysis:
    before = fast.compiled_games
    want = pure.game(game)
    got = fast.game(game)
    assert fast.compiled_games == before + compiled
    assert len(got.decisions) == len(want.decisions) > 0
    for w, g in zip(want.decisions, got.decisions, strict=True):
        assert math.isclose(g.made.value, w.made.value, rel_tol=0, abs_tol=1e-9)
        assert math.isclose(g.best.value, w.best.value, rel_tol=0, abs_tol=1e-9)
        assert math.isclose(g.regret, w.regret, rel_tol=0, abs_tol=1e-9)
        assert g == w  # and everything else: moves, best moves, kinds, rolls left
    assert [p.loss for p in got.players] == [p.loss for p in want.players]
    assert A.game_dict(got) == A.game_dict(want)
    return got


@pytest.mark.parametrize("strategy", ["optimal", "greedy", "random"])
def test_simulated_games(tmp_path: Path, pure: A.Analyzer, fast: A.Analyzer, strategy: str) -> None:
    for game in simulated_logs(tmp_path, strategy, 4, 7):
        ga = _same(pure, fast, game)
        assert (sum(d.regret for d in ga.decisions) == 0) == (strategy == "optimal")


@pytest.mark.parametrize("held", [True, False])
def test_random_games_with_and_without_held_dice(pure: A.Analyzer, fast: A.Analyzer, held: bool) -> None:
    for seed in range(4):
        ga = _same(pure, fast, random_log("yahtzee", seed, ("A", "B"), held=held))
        assert any(d.inferred for d in ga.decisions) != held


def test_yahtzees_jokers_and_every_die_kept(pure: A.Analyzer, fast: A.Analyzer) -> None:
    seen: dict[str, int] = {"joker": 0, "bonus": 0, "again": 0}
    for seed in range(6):
        game = random_log("yahtzee", Loaded(seed), ("A",))
        ga = _same(pure, fast, game)
        for d in ga.decisions:
            seen["bonus"] += d.kind == "box" and d.made.bonus > 0
            seen["again"] += d.kind == "keep" and d.made.keep is not None and len(d.made.keep) == len(d.dice)
            seen["joker"] += (d.kind == "box" and R.preset("yahtzee").is_yahtzee(d.dice)
                              and d.made.box != R.preset("yahtzee").yahtzee_index)
    assert all(seen.values()), seen


def test_passes_with_must_zero_off(pure: A.Analyzer, fast: A.Analyzer) -> None:
    spec = {"preset": "yahtzee", "settings": {"must_zero": False}}
    rules = R.preset("yahtzee", spec["settings"])
    passes = 0
    for seed in range(6):
        ga = _same(pure, fast, random_log(rules, Loaded(seed) if seed % 2 else seed, ("A",), spec=spec))
        passes += sum(d.made.is_pass for d in ga.decisions)
    assert passes


def test_boxes_filled_in_order(pure: A.Analyzer, fast: A.Analyzer) -> None:
    spec = {"preset": "yahtzee", "settings": {"fill_in_order": True, "joker": "off"}}
    rules = R.preset("yahtzee", spec["settings"])
    for seed in range(3):
        _same(pure, fast, random_log(rules, seed, ("A",), spec=spec))


@pytest.mark.parametrize("add_columns", [True, False])
def test_three_columns(pure: A.Analyzer, fast: A.Analyzer, add_columns: bool, small_fits: Path) -> None:
    spec = {"preset": "triple-yahtzee", "settings": {"add_columns": add_columns}}
    rules = R.preset("triple-yahtzee", spec["settings"])
    for seed in range(2):
        ga = _same(pure, fast, random_log(rules, Loaded(seed), ("A",), spec=spec))
        assert {d.made.column for d in ga.decisions if d.kind == "box"} == {0, 1, 2}


def test_unfinished_games_and_until(pure: A.Analyzer, fast: A.Analyzer) -> None:
    game = random_log("yahtzee", 11, ("A", "B"), turns=9)
    for key in ("box", "score", "bonus"):  # a turn in progress: its keeps only
        game["turns"][-1].pop(key, None)
    _same(pure, fast, game)
    whole = random_log("yahtzee", 12, ("A",))
    assert fast.game(whole, until=5).decisions == pure.game(whole, until=5).decisions


def test_where_the_compiled_path_does_not_apply(pure: A.Analyzer) -> None:
    """Approximate values (here a made-up additive value to go) and risk grading stay on the pure path."""
    rules = R.preset("yahtzee")
    nb = len(rules.boxes)
    h = [float(b) for b in range(nb)] * (nb + 1)  # by open count, then box
    made_up = HeuristicSource(rules, h, [0.0] * 64 * 64, [0.0] * (nb + 1), 63, 0.0)
    game = random_log("yahtzee", 3)
    for an in (A.Analyzer(compiled=True), A.Analyzer(compiled=True, theta=0.01)):
        an._sources[rules.fingerprint] = made_up if not an.theta else pure.source(rules)
        ga = an.game(game)
        assert an.compiled_games == 0 and ga.decisions
        if not an.theta:
            want = A.Analyzer(compiled=False)
            want._sources[rules.fingerprint] = made_up
            assert want.game(game).decisions == ga.decisions


def test_the_default_loads_the_compiled_path_after_a_few_games() -> None:
    an = A.Analyzer()
    games = [random_log("yahtzee", seed) for seed in range(A.COMPILED_AFTER + 2)]
    for g in games:
        an.game(g, keep_decisions=False)
    assert an.compiled_games == 2


def test_an_illegal_box_is_reported_as_the_pure_path_does(fast: A.Analyzer) -> None:
    from yahtzee_cli.errors import YahtzeeError

    game = random_log("yahtzee", 5)
    game["rules"] = {"preset": "yahtzee", "settings": {"fill_in_order": True, "joker": "off"}}
    errors = []
    for an in (A.Analyzer(compiled=False), fast):
        with pytest.raises(YahtzeeError) as exc:
            an.game(game)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]


def _by_turn_steps(monkeypatch: pytest.MonkeyPatch, log: dict[str, Any], **kw: Any) -> A.GameAnalysis:
    """The compiled grading by way of TurnSteps (the path every game took before the one-pass one)."""
    with monkeypatch.context() as m:
        m.setattr(A, "_fast_rules", lambda data, until: None)
        return A.Analyzer(compiled=True).game(log, **kw)


def test_the_one_pass_path_grades_as_the_turn_steps_do(tmp_path: Path, fast: A.Analyzer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Valid logs of exact rule sets are graded in one pass over their turns (decisions kept as the
    grader's numbers, a Decision made when read): the same decisions, totals, worst decisions and JSON
    as by way of TurnSteps, for games with held dice and without, passes, jokers, a game in progress
    and three columns; a log the fast validator does not take (here: a score claimed wrong) goes the
    general way and says what is wrong."""
    spec = {"preset": "yahtzee", "settings": {"must_zero": False}}
    in_progress = random_log("yahtzee", 11, ("A", "B"), turns=9)
    for key in ("box", "score", "bonus"):
        in_progress["turns"][-1].pop(key, None)
    games = [*simulated_logs(tmp_path, "greedy", 2, 5), random_log("yahtzee", 2, ("A", "B"), held=False),
             random_log(R.preset("yahtzee", spec["settings"]), Loaded(1), ("A",), spec=spec),
             random_log("yahtzee", Loaded(3), ("A",)), in_progress,
             random_log(R.preset("triple-yahtzee"), Loaded(2), ("A",), spec="triple-yahtzee")]
    for game in games:
        for keep in (True, False):
            got = fast.game(game, game=3, file="f.ndjson", line=7, keep_decisions=keep)
            want = _by_turn_steps(monkeypatch, game, game=3, file="f.ndjson", line=7, keep_decisions=keep)
            assert isinstance(got.decisions, A._Rows) == keep and not isinstance(want.decisions, A._Rows)
            assert list(got.decisions) == list(want.decisions) and len(got.decisions) == (
                len(want.decisions)) == (keep and len(want.decisions))
            assert [(p.loss, p.decisions, p.inferred, p.worst) for p in got.players] == [
                (p.loss, p.decisions, p.inferred, p.worst) for p in want.players]
            assert A.game_dict(got) == A.game_dict(want)
            assert (got.turns, got.game_over, got.line) == (want.turns, want.game_over, 7)
            for p in got.players:
                assert p.worst_records() == [A.decision_dict(d) for d in p.worst]
    wrong = random_log("yahtzee", 4)
    wrong["turns"][2]["score"] = wrong["turns"][2].get("score", 0) + 1
    from yahtzee_cli.errors import GameError

    with pytest.raises(GameError, match="claimed score"):
        fast.game(wrong)


def test_totals_of_games_graded_both_ways_keep_the_worst_decisions(fast: A.Analyzer, pure: A.Analyzer) -> None:
    totals = [A.Totals(), A.Totals()]
    for seed in range(3):
        game = random_log("yahtzee", seed, ("A",))
        totals[0].add(fast.game(game, game=seed + 1))
        totals[1].add(pure.game(game, game=seed + 1))
    assert A.totals_dict(totals[0]) == A.totals_dict(totals[1])
    from yahtzee_cli.formats.players import player_key  # (totals are kept by player, as names match)

    worst = [[d.game for d in t.players[player_key("A")].worst] for t in totals]
    assert worst[0] == worst[1]


def test_a_value_that_is_not_finite_is_refused(fast: A.Analyzer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON of a grading is not scanned for NaN: the numbers are checked where they are made, by
    the compiled grader and on the pure path."""
    from yahtzee_cli.solver import grade_kernel

    game = random_log("yahtzee", 1)
    fast.game(game)  # the grader is loaded

    def broken(*args: Any) -> int:
        args[6][:] = math.nan  # vals
        return 0

    with monkeypatch.context() as m:
        m.setattr(grade_kernel, "grade_turns", broken)
        with pytest.raises(ValueError, match="non-finite"):
            fast.game(game)
    rules = R.preset("yahtzee")
    nb = len(rules.boxes)
    nan_source = HeuristicSource(rules, [math.nan] * nb * (nb + 1), [0.0] * 64 * 64, [0.0] * (nb + 1), 63, 0.0)
    an = A.Analyzer(compiled=False)
    an._sources[rules.fingerprint] = nan_source
    with pytest.raises(ValueError, match="non-finite"):
        an.game(game)


def test_the_cached_grader_loads_without_numba_s_whole_typing_context(fast: A.Analyzer, tmp_path: Path) -> None:
    """Loading the grading kernel from numba's cache skips the refresh of numba's typing and lowering
    registries (a compile would need them; a load does not: a fifth of a short run): in a fresh process
    the kernel grades a game, the same as here, without importing them."""
    import json
    import subprocess
    import sys

    from numba.core import runtime

    if not hasattr(runtime, "rtsys"):
        pytest.skip("a numba without the runtime this relies on: its own load is used")
    game = random_log("yahtzee", 4)
    want = A.game_dict(fast.game(game, game=1, file="g.json", line=1))  # compiled (and cached) here first
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game))
    code = ("import json, sys\n"
            "from yahtzee_cli.play.analyze import Analyzer, game_dict\n"
            "an = Analyzer(compiled=True)\n"
            "got = game_dict(an.game(json.load(open(sys.argv[1])), game=1, file='g.json', line=1))\n"
            "print(json.dumps({'got': got, 'compiled': an.compiled_games,\n"
            "                  'registries': 'numba.np.linalg' in sys.modules}))\n")
    out = json.loads(subprocess.run([sys.executable, "-c", code, str(path)], check=True, capture_output=True,
                                    text=True).stdout)
    assert out["compiled"] == 1
    assert out["got"] == json.loads(json.dumps(want))
    assert out["registries"] is False


def test_positions_graded_again_from_the_memo_come_out_the_same(pure: A.Analyzer) -> None:
    """The grader keeps the values of positions near either end of a game and copies them back when a
    position comes again (the first turn of every game, last turns with the same box open): a game
    graded by a grader whose memo holds its positions gives what a fresh grader and Turn give."""
    games = [random_log("yahtzee", seed, ("A",)) for seed in range(6)]
    warm = A.Analyzer(compiled=True)
    for game in games:
        warm.game(game)
    (grader,) = warm._graders.values()
    assert grader._memo[5][0] > 0  # positions remembered
    for game in games:
        fresh = A.Analyzer(compiled=True)
        want = A.game_dict(pure.game(game))
        assert A.game_dict(warm.game(game)) == want == A.game_dict(fresh.game(game))
