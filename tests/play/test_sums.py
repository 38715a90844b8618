"""Totals that must be sums: a player's expected loss is the sum of their decisions' regrets (inferred
keeps included), analyze's totals add up the games, stats' and replay's records add up the boxes
and the games. The games are seeded random logs of one to three players (some without held dice,
so keeps are inferred)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.inputs import Source, read_stream
from yahtzee_cli.formats.jsonio import dumps
from yahtzee_cli.formats.replay import random_log, replay_game
from yahtzee_cli.formats.stats import Book, Filters
from yahtzee_cli.formats.tallies import Tally
from yahtzee_cli.play import analyze as A
from yahtzee_cli.rules import engine as R


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Four seeded games of three players (random play: every kind of decision, most of them
    costly); games 2 and 4 keep no held dice, so their keeps are inferred."""
    games = [random_log(R.preset("yahtzee"), 11 + i, players=["Anna", "Ben", "Cleo"], held=i % 2 == 0)
             for i in range(4)]
    assert all("held" not in t for g in games[1::2] for t in g["turns"])
    out = tmp_path_factory.mktemp("sums") / "match.ndjson"
    out.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    return out, games


@pytest.fixture(scope="module")
def graded(match: tuple[Path, list[dict[str, Any]]]) -> list[A.GameAnalysis]:
    analyzer = A.Analyzer(compiled=False)
    return [analyzer.game(g, game=i + 1) for i, g in enumerate(match[1])]


def test_each_player_s_expected_loss_is_the_sum_of_their_regrets(graded: list[A.GameAnalysis]) -> None:
    inferred_cost = 0.0
    for ga in graded:
        assert isinstance(ga.decisions, list)
        for p in ga.players:
            mine = [d for d in ga.decisions if d.player == p.name]
            assert p.decisions == len(mine)
            assert p.inferred == sum(d.inferred for d in mine)
            assert p.loss == pytest.approx(math.fsum(d.regret for d in mine), abs=1e-9)
            assert p.luck == pytest.approx(math.fsum(d.luck for d in mine), abs=1e-9)
            # the luck and skill split: the value reached is the start plus luck minus the loss
            assert p.end == pytest.approx(p.start + p.luck - p.loss, abs=1e-6)
            inferred_cost += sum(d.regret for d in mine if d.inferred)
    assert inferred_cost > 1  # the stripped games' inferred keeps do cost points, and are counted


def test_the_compiled_grading_sums_alike(match: tuple[Path, list[dict[str, Any]]],
                                         graded: list[A.GameAnalysis]) -> None:
    analyzer = A.Analyzer(compiled=True)
    for i, (g, pure) in enumerate(zip(match[1], graded, strict=True)):
        ga = analyzer.game(g, game=i + 1)
        records = ga.decisions.records() if isinstance(ga.decisions, A._Rows) else [
            A.decision_dict(d) for d in ga.decisions]
        for p, q in zip(ga.players, pure.players, strict=True):
            assert (p.name, p.decisions, p.inferred) == (q.name, q.decisions, q.inferred)
            assert p.loss == pytest.approx(q.loss, abs=1e-6)
            regrets = [r["regret"] for r in records if r["player"] == p.name]
            assert p.loss == pytest.approx(sum(regrets), abs=1e-4 * len(regrets))


def test_analyze_json_totals_are_sums_with_means_beside(match: tuple[Path, list[dict[str, Any]]],
                                                        cli: Any) -> None:
    path, _ = match
    r = cli(["analyze", "--no-win", "--json", str(path)])
    assert r.exit_code == 0, r.stderr
    *games, summary = [json.loads(line) for line in r.stdout.splitlines()]
    assert summary["type"] == "summary" and summary["games"] == 4
    for p in summary["players"]:
        mine = [q for g in games for q in g["players"] if q["name"] == p["name"]]
        assert p["games"] == len(mine) == 4
        for key in ("expected_loss", "luck", "expected_start", "expected_end"):
            assert p[key] == pytest.approx(sum(q[key] for q in mine), abs=1e-4 * len(mine)), key
        for key in ("decisions", "inferred"):
            assert p[key] == sum(q[key] for q in mine), key
        regrets = [d["regret"] for g in games for d in g["decisions"] if d["player"] == p["name"]]
        assert p["expected_loss"] == pytest.approx(sum(regrets), abs=1e-4 * len(regrets))
        for total, mean in (("expected_loss", "loss_per_game"), ("luck", "luck_per_game"),
                            ("expected_start", "expected_start_per_game"),
                            ("expected_end", "expected_end_per_game")):
            assert p[mean] == pytest.approx(p[total] / p["games"], abs=1e-4), mean
        # one game's start is the empty sheet's value: the mean is that, the total four times it
        assert p["expected_start_per_game"] == pytest.approx(games[0]["players"][0]["expected_start"], abs=1e-4)


# --------------------------------------------------------------------------- properties over many games


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8))
def test_analyze_totals_add_up_any_run_of_games(graded: list[A.GameAnalysis], picks: list[int]) -> None:
    totals = A.Totals()
    for i in picks:
        totals.add(graded[i])
    assert totals.games == len(picks)
    for p in totals.players.values():
        mine = [q for i in picks for q in graded[i].players if q.name == p.name]
        assert p.games == len(mine)
        assert p.loss == pytest.approx(math.fsum(q.loss for q in mine), abs=1e-9)
        assert p.luck == pytest.approx(math.fsum(q.luck for q in mine), abs=1e-9)
        assert p.start == pytest.approx(math.fsum(q.start for q in mine), abs=1e-9)
        assert p.end == pytest.approx(math.fsum(q.end for q in mine), abs=1e-9)
        assert (p.decisions, p.inferred) == (sum(q.decisions for q in mine), sum(q.inferred for q in mine))
        worst = [d.regret for q in mine for d in q.worst]
        assert [d.regret for d in p.worst] == sorted(worst, reverse=True)[:A.WORST]


PLAYERS = ["Anna", "Ben", "Cleo"]
RULES = ["yahtzee", "yatzy"]


def _games(seeds: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    return [random_log(R.preset(RULES[r]), seed, players=PLAYERS[:n]) for seed, r, n in seeds]


def _own_total(rules: R.RuleSet, game: dict[str, Any], name: str) -> tuple[int, list[int]]:
    """A player's total worked out from the log's own claims: the scores and bonuses written, plus
    the upper-section bonus of the upper boxes (one-column presets); and the box scores in order."""
    boxes = [0] * len(rules.boxes)
    extra = 0
    for t in game["turns"]:
        if t["player"] == name and t.get("box") is not None:
            boxes[rules.keys.index(t["box"])] = t["score"]
            extra += t.get("bonus") or 0
    upper = sum(boxes[i] for i in rules.upper_indices)
    s = rules.settings
    return sum(boxes) + extra + (s.upper_bonus if upper >= s.upper_bonus_threshold else 0), boxes


SEEDS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 1), st.integers(1, 3)), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(SEEDS)
def test_replay_totals_and_tallies_are_sums(seeds: list[tuple[int, int, int]]) -> None:
    tally = Tally()
    want: dict[tuple[str, str], list[int]] = {}
    for g in _games(seeds):
        rp = replay_game(g)
        assert rp.game_over
        for p in rp.players:
            total, boxes = _own_total(rp.rules, g, p.name)
            assert p.total == total
            assert list(p.columns[0].scores) == boxes
            want.setdefault((rp.rules.fingerprint, p.name), []).append(total)
        tally.add([(p.name, p.total, p.rank) for p in rp.players], rp.game_over, rp.rules.record())
    for (fp, name), totals in want.items():
        t = tally.players[(fp, name.casefold())]
        assert (t.games, t.points, t.best) == (len(totals), sum(totals), max(totals))


@settings(max_examples=25, deadline=None)
@given(SEEDS)
def test_stats_records_are_sums_of_the_games(seeds: list[tuple[int, int, int]]) -> None:
    games = _games(seeds)
    raw = b"".join(dumps(g) + b"\n" for g in games)
    book = Book(Filters())
    for item in read_stream(Source("s", "s"), io.BytesIO(raw)):
        book.add_item(item)
    assert book.counted == len(games)
    want: dict[tuple[str, str, bool], list[tuple[int, list[int]]]] = {}
    for g in games:
        rules = R.preset(g["rules"])
        for name in g["players"]:
            want.setdefault((name.casefold(), rules.name, len(g["players"]) == 1), []).append(
                _own_total(rules, g, name))
    assert set(book.lines) == set(want)
    for key, got in want.items():
        ln = book.lines[key]
        totals = [t for t, _ in got]
        assert ln.games == len(got)
        assert ln.mean == pytest.approx(sum(totals) / len(totals))
        assert ln.best == max(totals)
        sums = [sum(col) for col in zip(*(b for _, b in got), strict=True)]
        assert ln.box_sums == pytest.approx(sums)
