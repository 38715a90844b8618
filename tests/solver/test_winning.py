"""Win chances (solver.winning, play.odds): the chance formula against brute force, each position's
final-score pmf against the exact table's expected value and against games played out, and a
finished game's chances as its result."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.replay import random_log, replay_game
from yahtzee_cli.play import odds
from yahtzee_cli.play.hint import hint, source_for
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import winning
from yahtzee_cli.solver.distribution import Distribution
from yahtzee_cli.strategy.sources import column_state, raw_points


def _brute(dists: list[Distribution]) -> list[tuple[float, float]]:
    """Every joint outcome of the players' independent totals, weighed."""
    out = [[0.0, 0.0] for _ in dists]
    supports = [[(d.lo + i, float(p)) for i, p in enumerate(d.pmf) if p > 0] for d in dists]
    for combo in itertools.product(*supports):
        p = float(np.prod([c[1] for c in combo]))
        best = max(c[0] for c in combo)
        top = [i for i, c in enumerate(combo) if c[0] == best]
        for i in top:
            out[i][0 if len(top) == 1 else 1] += p
    return [(w, t) for w, t in out]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.lists(st.integers(0, 5), min_size=1, max_size=5)),
                min_size=1, max_size=4))
def test_chances_equal_every_joint_outcome_counted(players: list[tuple[int, list[int]]]) -> None:
    dists = []
    for lo, weights in players:
        w = np.array(weights, dtype=float)
        if w.sum() == 0:
            w[0] = 1.0
        dists.append(Distribution(w / w.sum(), lo))
    got = winning.win_chances(dists)
    want = _brute(dists)
    for (gw, gt), (ww, wt) in zip(got, want, strict=True):
        assert gw == pytest.approx(ww, abs=1e-12)
        assert gt == pytest.approx(wt, abs=1e-12)
    # someone wins outright, or some players tie for first
    p_tie = 1.0 - sum(c.win for c in got)
    assert p_tie == pytest.approx(_p_some_tie(dists), abs=1e-12)


def _p_some_tie(dists: list[Distribution]) -> float:
    supports = [[(d.lo + i, float(p)) for i, p in enumerate(d.pmf) if p > 0] for d in dists]
    total = 0.0
    for combo in itertools.product(*supports):
        best = max(c[0] for c in combo)
        if sum(c[0] == best for c in combo) > 1:
            total += float(np.prod([c[1] for c in combo]))
    return total


@pytest.fixture
def small(small_short_early: R.RuleSet) -> R.RuleSet:
    return small_short_early


def _random_column(rules: R.RuleSet, rng: random.Random, filled: int) -> R.Column:
    col = R.Column.empty(rules)
    for _ in range(filled):
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
        opts = R.options(rules, [col], dice)
        o = rng.choice(opts)
        col, _ = R.place(rules, col, o.box, dice)
    return col


def test_each_position_pmf_has_the_tables_expected_value(small: R.RuleSet) -> None:
    """The pmf's mean is the points written plus the exact table's value of the state, whether the
    pmf comes from the early file or from a pass of its own."""
    src = source_for(small)
    rng = random.Random(7)
    for filled in range(len(small.boxes) + 1):
        for _ in range(4):
            col = _random_column(small, rng, filled)
            d = winning.final_pmf(small, col)
            assert float(d.pmf.sum()) == pytest.approx(1.0, abs=1e-6)
            assert d.mean == pytest.approx(raw_points(small, col) + src.value(column_state(small, col)), abs=1e-4)


def _play_out(rules: R.RuleSet, col: R.Column, rng: random.Random) -> int:
    """One game played on from a turn start by the hint's best move every time."""
    src = source_for(rules)
    while not col.is_full:
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
        left = 2
        while True:
            best = hint(rules, [col], dice, left, source=src).best
            if best.keep is None:
                break
            kept = list(best.keep)
            dice = tuple(sorted(kept + [rng.randint(1, 6) for _ in range(rules.dice - len(kept))]))
            left -= 1
        assert best.box is not None
        col, _ = R.place(rules, col, best.box, dice)
    return R.sheet_total(rules, [col])


def test_chances_agree_with_games_played_out(small: R.RuleSet) -> None:
    """Two players from three positions of a game: P(win) of games played on by the hint's best
    moves agrees with the exact chance within 3 standard errors."""
    rng = random.Random(11)
    n = 400
    for filled in (1, 3, 4):
        cols = [_random_column(small, rng, filled), _random_column(small, rng, filled - 1)]
        chances = winning.game_chances(small, cols)
        wins = [0, 0]
        for _ in range(n):
            a, b = (_play_out(small, c, rng) for c in cols)
            if a != b:
                wins[0 if a > b else 1] += 1
        for i in range(2):
            p = chances[i].win
            se = max((p * (1 - p) / n) ** 0.5, 1 / n)
            assert abs(wins[i] / n - p) <= 3 * se, (filled, i, wins[i] / n, p)


def test_chances_agree_with_20000_games_played_on_by_the_play_kernel(small: R.RuleSet) -> None:
    """Two and three players from four positions (one a finished column): every player's P(win) and
    P(tie) from 20,000 continuations by the simulator's kernel agree with the exact chances within
    3 standard errors (the kernel plays on from the sheet as it stands)."""
    rng = random.Random(5)
    for filled in ((1, 0), (3, 4, 2), (5, 5), (len(small.boxes), 4)):
        cols = [_random_column(small, rng, f) for f in filled]
        exact = winning.game_chances(small, cols)
        played = winning.simulated_chances(small, [[c] for c in cols], 20_000, seed=filled[0])
        for e, p in zip(exact, played, strict=True):
            assert abs(p.win - e.win) <= 3 * max(p.win_se, 1 / 20_000), (filled, e, p)
            tie_se = max((e.tie * (1 - e.tie) / 20_000) ** 0.5, 1 / 20_000)
            assert abs(p.tie - e.tie) <= 3 * tie_se, (filled, e, p)


def test_games_played_on_keep_the_sheet_they_start_from(small: R.RuleSet) -> None:
    """Every continuation keeps the written boxes and bonuses and fills the rest; a finished sheet's
    games are that sheet."""
    from yahtzee_cli.solver import policy

    rng = random.Random(3)
    col = _random_column(small, rng, 3)
    b = policy.play(small, "optimal", 9, 0, 50, start=[col])
    for g in range(50):
        row = [int(v) for v in b.scores[g, 0]]
        assert all(v == s for v, s in zip(row, col.scores, strict=True) if s is not None) and min(row) >= 0
    done = _random_column(small, rng, len(small.boxes))
    full = policy.play(small, "optimal", 9, 0, 5, start=[done])
    assert set(full.totals.tolist()) == {R.sheet_total(small, [done])}


def test_a_finished_game_s_chances_are_its_result() -> None:
    log = random_log("yahtzee", 4, ("Ann", "Ben", "Cy"))
    rp = replay_game(log)
    assert rp.game_over
    got = odds.game_odds(rp)
    assert got is not None
    top = [p.rank == 1 for p in rp.players]
    shared = sum(top) > 1
    assert [(c.win, c.tie) for c in got] == [(1.0 if t and not shared else 0.0, 1.0 if t and shared else 0.0)
                                             for t in top]


def test_a_tie_for_first_is_a_tie_for_each() -> None:
    rp = replay_game(random_log("yahtzee", 4, ("Ann", "Ben")))
    tied = type(rp.players[0])(**{**rp.players[0].__dict__, "rank": 1})
    other = type(rp.players[1])(**{**rp.players[1].__dict__, "rank": 1})
    rp2 = type(rp)(**{**rp.__dict__, "players": (tied, other)})
    assert [(c.win, c.tie) for c in odds.finished_odds(rp2)] == [(0.0, 1.0), (0.0, 1.0)]


def test_solo_and_abandoned_games_have_no_chances() -> None:
    assert odds.game_odds(replay_game(random_log("yahtzee", 1, ("Solo",), turns=3))) is None


def test_rules_without_an_exact_table_have_estimated_chances() -> None:
    why = odds.unavailable(R.preset("maxi-yatzy"))
    assert why is not None and "maxi" in why.lower()
    rp = replay_game(random_log("maxi-yatzy", 1, ("A", "B"), turns=3))
    got = odds.game_odds(rp)
    assert got is not None and odds.chances_note(rp) is None
    assert all(c.win_se is not None and 0 < c.win_se <= 0.01 and c.games >= 2000 for c in got)
    assert 0.99 < sum(c.win for c in got) + max(c.tie for c in got) < 1.0 + 1e-9
    assert odds.game_odds(rp) == got  # the same dice every time: the same position, the same estimate


@pytest.fixture
def fresh(tmp_path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001, ANN201
    """An empty cache of this test's own, nothing remembered by the process."""
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    for memo in ("_early_memo", "_start_memo", "_late_memo"):
        monkeypatch.setattr(winning, memo, {})
    return tmp_path


def test_the_default_rules_empty_sheet_needs_no_early_file(fresh) -> None:  # noqa: ANN001
    """At the start of a game a player's final-score pmf is the rule set's score distribution, which
    ships for the default rules: no pass, no early file (hundreds of MB)."""
    rules = R.preset("yahtzee")
    d = winning.final_pmf(rules, R.Column.empty(rules), say=lambda m: pytest.fail(m))
    assert not list(fresh.glob("early-*.tbl"))
    assert float(d.pmf.sum()) == pytest.approx(1.0, abs=1e-12)
    assert d.mean == pytest.approx(254.5877287, abs=1e-6)  # the exact table's value of the empty sheet


def test_the_early_file_stores_the_score_distribution_as_its_own_pass_makes_it(
        fresh, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    from conftest import SMALL_RULES

    from yahtzee_cli.solver import distribution as D
    from yahtzee_cli.solver import exact

    small = R.rules_from_data(SMALL_RULES)
    empty = R.Column.empty(small)
    d = winning.final_pmf(small, empty)  # one pass: the early file, and the distribution with it
    assert len(list(fresh.glob("early-*.tbl"))) == 1 and len(list(fresh.glob("dist0-*.tbl"))) == 1
    want = D.final_distribution(small, exact.get_table(small)[0])
    assert d.lo == 0 and np.array_equal(d.pmf, want.pmf)
    e = winning.early(small)
    stored = e.pmf(e.key_of(0, 0, 0))
    assert stored is not None and np.abs(stored[: len(d.pmf)] - d.pmf).max() < 1e-6  # (float32 there)
    # another process reads the distribution, not the early file
    monkeypatch.setattr(winning, "_start_memo", {})
    monkeypatch.setattr(winning, "_early_memo", {})
    monkeypatch.setattr(winning, "early", lambda *a: pytest.fail("early file read"))
    assert np.array_equal(winning.final_pmf(small, empty).pmf, d.pmf)



def test_a_position_asked_again_is_read_from_the_cache_as_it_was_computed(
        fresh, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """The next `log show` of the same game (a new process) reads each player's final-score pmf from a
    file of a few kB: the same bytes, and neither the early file, the model nor a pass. A damaged
    file is computed again, quietly (it is a cache), and replaced."""
    from conftest import SMALL_RULES

    monkeypatch.setattr(winning, "EARLY_LAYERS", 3)  # positions of three boxes or more take a pass
    small = R.rules_from_data(SMALL_RULES)
    rng = random.Random(3)
    cols = [_random_column(small, rng, filled) for filled in (1, 2, 3, 4, 5, 4)]
    firsts = [winning.final_pmf(small, c) for c in cols]
    states = {tuple(column_state(small, c)) for c in cols}
    assert len(list(fresh.glob("final*.tbl"))) == len(states)

    def forget() -> None:
        for memo in ("_early_memo", "_start_memo", "_late_memo", "_model_memo", "_values_memo"):
            monkeypatch.setattr(winning, memo, {})

    forget()
    with monkeypatch.context() as m:
        m.setattr(winning, "early", lambda *a: pytest.fail("early file read"))
        m.setattr(winning, "_model", lambda *a: pytest.fail("model built"))
        for c, d in zip(cols, firsts, strict=True):
            again = winning.final_pmf(small, c)
            assert again.lo == d.lo and np.array_equal(again.pmf, d.pmf)
    forget()
    for path in fresh.glob("final*.tbl"):
        path.write_bytes(path.read_bytes()[:-3])
    notes: list[str] = []
    again_all = [winning.final_pmf(small, c, say=notes.append) for c in cols]
    assert all(np.array_equal(a.pmf, d.pmf) for a, d in zip(again_all, firsts, strict=True))
    assert not [n for n in notes if "final-score" in n or "damaged" in n]
    forget()
    with monkeypatch.context() as m:  # replaced by good ones
        m.setattr(winning, "_model", lambda *a: pytest.fail("model built"))
        assert all(np.array_equal(winning.final_pmf(small, c).pmf, d.pmf) for c, d in zip(cols, firsts, strict=True))


def test_the_cache_keeps_a_bounded_number_of_positions(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Each position asked adds a file: beyond the kind's bound the least recently written go, with the
    stamps of their checksums; other kinds' files stay."""
    import os

    from yahtzee_cli.store import artifact as store
    from yahtzee_cli.store.kinds import Kind

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    kind = Kind("final", "final", "outdated", locked=False, keep=3)
    other = tmp_path / "finalist-0123456789abcdef.txt"
    other.write_text("not ours")
    fp = "0123456789abcdef"
    for i in range(5):
        art = store.Artifact(kind, fp, "a pmf", lambda h, a: np.frombuffer(a["pmf"]), lambda: np.zeros(1),
                             lambda v: ({"kind": "final", "fingerprint": fp}, {"pmf": ("d", v.tobytes())}), str(i))
        store.get(art)
        os.utime(art.path, ns=(i * 10**9, i * 10**9))  # written one after the other
        assert np.array_equal(store.read(art), np.zeros(1))  # read once: its checksum's stamp written
    left = sorted(p.name for p in tmp_path.glob("final*.tbl"))
    assert left == [f"final{i}-0123456789abcdef.tbl" for i in (2, 3, 4)]
    stamps = sorted(p.name.split(".tbl")[0] for p in (tmp_path / "verified").iterdir())
    assert stamps == [f"final{i}-0123456789abcdef" for i in (2, 3, 4)]
    assert other.exists()
    # a kind kept in several files loses all of an artifact's files at once
    several = Kind("bundle", "bundle", "outdated", locked=False, parts=(".json",), keep=1)
    for i in range(2):
        art = store.Artifact(several, fp, "a pmf", lambda h, a: np.frombuffer(a["pmf"]), lambda: np.zeros(1),
                             lambda v: ({"kind": "bundle", "fingerprint": fp}, {"pmf": ("d", v.tobytes())}), str(i))
        art.path.with_suffix(".json").write_text("{}")  # its other file, written by its build
        store.get(art)
        os.utime(art.path, ns=(i * 10**9, i * 10**9))
    assert sorted(p.name for p in tmp_path.glob("bundle*")) == [f"bundle1-{fp}.json", f"bundle1-{fp}.tbl"]


def test_a_pass_whose_kernel_is_not_compiled_yet_says_so_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first chances of a rule set wait seconds for the distribution kernels to compile before any
    progress: one line says so (as the simulator and the grader do), and none when they are compiled."""
    from conftest import SMALL_RULES

    from yahtzee_cli.solver import distribution, jit

    rules = R.rules_from_data(SMALL_RULES)
    mod, W = winning.model_values(rules)
    distribution._pass_layers(mod, W, 0.0, None, True)  # compiled (or loaded) here
    heard: list[str] = []
    distribution._pass_layers(mod, W, 0.0, None, True, say=heard.append)
    assert heard == []  # compiled: nothing to say
    monkeypatch.setattr(jit, "is_compiled", lambda kernel, args=None: False)
    distribution._pass_layers(mod, W, 0.0, None, True, say=heard.append)
    assert len(heard) == 1 and heard[0].startswith("compiling the score-distribution kernels (")
