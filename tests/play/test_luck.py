"""Luck and skill add up: for every graded game, each player's actual total is the expected total
at the start plus their luck minus their skill cost, whatever the play (random moves here, which
make both large), and the turning point is the largest single move of the expected total."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.formats.replay import random_log, replay_game
from yahtzee_cli.play import luck
from yahtzee_cli.play.analyze import Analyzer
from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy.sources import column_state


@pytest.mark.parametrize(("preset", "seed"), [("yahtzee", 1), ("yahtzee", 2), ("yatzy", 3), ("kniffel", 4)])
def test_actual_total_is_start_plus_luck_minus_skill(preset: str, seed: int) -> None:
    log = random_log(preset, seed, ("Ann", "Ben", "Cy"))
    an = Analyzer()
    ga = an.game(log)
    start = luck.start_value(ga.rules, an.source(ga.rules))
    empty = R.Column.empty(ga.rules)
    assert start == pytest.approx(an.source(ga.rules).value(column_state(ga.rules, empty)), abs=1e-6)  # exact table
    players, lucks = luck.split(ga.decisions, start, [p.name for p in ga.players])
    assert len(lucks) == len(ga.decisions)
    for p, r in zip(players, replay_game(log).players, strict=True):
        assert r.total == pytest.approx(p.start + p.luck - p.skill_cost, abs=1e-6)
        assert p.skill_cost == pytest.approx(sum(d.regret for d in ga.decisions if d.player == p.name), abs=1e-9)
        mine = [(lk, d) for lk, d in zip(lucks, ga.decisions, strict=True) if d.player == p.name]
        biggest = max([abs(lk) for lk, _ in mine] + [d.regret for _, d in mine])
        assert p.turning_point is not None and abs(p.turning_point.points) == pytest.approx(biggest)


def test_a_game_in_progress_ends_at_its_expected_total() -> None:
    log = random_log("yahtzee", 5, ("Ann", "Ben"), turns=9)
    an = Analyzer()
    ga = an.game(log)
    start = luck.start_value(ga.rules, an.source(ga.rules))
    players, _ = luck.split(ga.decisions, start, ["Ann", "Ben"])
    last = {d.player: d.made.value for d in ga.decisions}
    for p in players:
        assert p.end == last[p.name] == pytest.approx(p.start + p.luck - p.skill_cost, abs=1e-6)


# --------------------------------------------------------------------------- through analyze


def _simulated(cli: Any, tmp: Path, rules: str, players: str, games: int, seed: int) -> Path:
    out = tmp / f"{rules}-{seed}.ndjson"
    r = cli(["simulate", "--players", players, "-n", str(games), "--seed", str(seed), "--rules", rules, "-w", "1",
             "--log-out", str(out)])
    assert r.exit_code == 0, r.stderr
    return out


@pytest.mark.parametrize(("preset", "players", "seed"), [("yahtzee", "greedy,random,optimal", 11),
                                                          ("yatzy", "random,greedy", 12)])
@pytest.mark.parametrize("compiled", [False, True])
def test_every_graded_game_adds_up_in_analyze(preset: str, players: str, seed: int, compiled: bool, cli: Any,
                                              tmp_path: Path) -> None:
    """Simulated games (and random ones, which make luck and skill large) graded by analyze's Analyzer
    on both paths: each player's total = expected total at the start + luck - skill cost, to 1e-6,
    the same split as play.luck's, and per-decision luck adding up to the player's."""
    path = _simulated(cli, tmp_path, preset, players, 4, seed)
    games = [loads(line) for line in path.read_bytes().splitlines()]
    games += [random_log(preset, seed + k, ("Ann", "Ben")) for k in range(2)]
    an = Analyzer(compiled=compiled)
    for log in games:
        ga = an.game(log)
        assert ga.game_over
        totals = {p.name: p.total for p in replay_game(log).players}
        core, lucks = luck.split(ga.decisions, an.start(ga.rules), [p.name for p in ga.players])
        assert [d.luck for d in ga.decisions] == pytest.approx(lucks, abs=1e-12)
        for p, c in zip(ga.players, core, strict=True):
            assert abs(totals[p.name] - (p.start + p.luck - p.loss)) <= 1e-6
            assert p.end == pytest.approx(totals[p.name], abs=1e-9)
            assert (p.start, p.luck, p.loss) == pytest.approx((c.start, c.luck, c.skill_cost), abs=1e-9)
            assert sum(d.luck for d in ga.decisions if d.player == p.name) == pytest.approx(p.luck, abs=1e-9)
    assert an.compiled_games == (len(games) if compiled else 0)


def _turning_argmax(decisions: list[dict[str, Any]], player: str) -> dict[str, Any] | None:
    """The roll or decision with the largest |points| (a roll's luck, minus a decision's cost), the
    earliest on ties, a roll before its decision."""
    best: dict[str, Any] | None = None
    for d in decisions:
        if d["player"] != player:
            continue
        for kind, pts in (("roll", d["luck"]), ("decision", -d["regret"])):
            if pts and (best is None or abs(pts) > abs(best["points"])):
                best = {"kind": kind, "turn": d["turn"], "roll": d["roll"], "points": pts}
    return best


def test_analyze_json_adds_up_and_names_the_turning_point(cli: Any, tmp_path: Path) -> None:
    """The command's --json (rounded to 6 decimals: three rounded numbers, so 2e-6): total = start +
    luck - expected loss for every player of every game, decisions' luck adding up, and the turning
    point the argmax of the decisions' luck and cost; the summary's sums are the games'."""
    path = _simulated(cli, tmp_path, "yatzy", "random,greedy", 6, 5)
    r = cli(["analyze", str(path), "--json", "-w", "1", "--no-win"])  # (win costs: test_win_costs.py)
    assert r.exit_code == 0, r.stderr
    *games, summary = [loads(line) for line in r.stdout.splitlines()]
    totals = {(g["game"], p.name): p.total
              for g, log in zip(games, path.read_bytes().splitlines(), strict=True)
              for p in replay_game(loads(log)).players}
    sums: dict[str, float] = {}
    for g in games:
        for p in g["players"]:
            total = totals[(g["game"], p["name"])]
            assert abs(total - (p["expected_start"] + p["luck"] - p["expected_loss"])) <= 2e-6
            assert p["expected_end"] == total
            mine = [d["luck"] for d in g["decisions"] if d["player"] == p["name"]]
            assert sum(mine) == pytest.approx(p["luck"], abs=1e-6 * len(mine))
            want = _turning_argmax(g["decisions"], p["name"])
            tp = p["turning_point"]
            assert want is not None and tp is not None
            assert {k: tp[k] for k in want} == pytest.approx(want, abs=1e-6)
            sums[p["name"]] = sums.get(p["name"], 0.0) + p["luck"]
    for p in summary["players"]:
        assert p["luck"] == pytest.approx(sums[p["name"]], abs=1e-5)
        assert p["luck_per_game"] == pytest.approx(p["luck"] / p["games"], abs=1e-6)
