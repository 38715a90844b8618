"""`replay --analyze`: every decision of a logged game graded against optimal play.

Optimal play (simulate --log-out) grades to zero loss at every decision, greedy and random to a
positive loss; keeps without `held` are inferred (and flagged) while box choices stay exact; a
hand-made log whose losses follow in closed form; the first-roll example of the hint issue;
approximate labelling (triple-yahtzee); passes; batch totals by player name; the CLI.

The strategy tables are built once for this module in a temporary cache directory (yahtzee, and
yahtzee with must_zero off for the pass fixture): about 10 s on 2 cores."""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from typing import Any

import pytest
from conftest import FIXTURES as FIX
from conftest import simulated_logs

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.formats.players import player_key
from yahtzee_cli.play import analyze as A
from yahtzee_cli.play import report as T
from yahtzee_cli.play.hint import hint
from yahtzee_cli.rules import engine as R
from yahtzee_cli.strategy import turn as P


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("analyze-logs")
    return {s: simulated_logs(tmp, s, 3, 20 + i) for i, s in enumerate(("optimal", "greedy", "random"))}


@pytest.fixture(scope="module")
def analyzer() -> A.Analyzer:
    return A.Analyzer()


def _expected_decisions(game: dict[str, Any], rules: R.RuleSet) -> int:
    """Keeps before each reroll, a stop when a turn ends with rolls left, and a box (or pass)."""
    n = 0
    for t in game["turns"]:
        rolls = len(t["rolls"])
        n += rolls - 1
        if "box" in t:
            n += 1 + (rolls < R.rolls_allowed(rules, 0))
    return n


# --------------------------------------------------------------------------- simulated games


def test_optimal_play_grades_to_zero_at_every_decision(logs: dict[str, list[dict[str, Any]]],
                                                       analyzer: A.Analyzer) -> None:
    rules = R.preset("yahtzee")
    for i, game in enumerate(logs["optimal"]):
        ga = analyzer.game(game, game=i + 1)
        assert ga.exact and ga.game_over
        assert len(ga.decisions) == _expected_decisions(game, rules) > 13 * 2
        kinds = {d.kind for d in ga.decisions}
        assert {"keep", "box"} <= kinds <= {"keep", "stop", "box"}
        for d in ga.decisions:
            assert abs(d.made.regret) < 1e-6, (i, d)
            assert abs(d.best.value - d.made.value) < 1e-6
            assert d.regret == 0.0 and not d.inferred
        assert ga.players[0].loss == 0.0
        assert ga.players[0].decisions == len(ga.decisions)


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_greedy_and_random_lose_points(logs: dict[str, list[dict[str, Any]]], analyzer: A.Analyzer,
                                       strategy: str) -> None:
    losses = []
    for game in logs[strategy]:
        ga = analyzer.game(game)
        p = ga.players[0]
        assert p.loss == pytest.approx(sum(d.regret for d in ga.decisions))
        assert all(d.regret >= 0 for d in ga.decisions)
        assert p.loss > 1.0
        worst = p.worst
        assert len(worst) == 5
        assert [d.regret for d in worst] == sorted((d.regret for d in ga.decisions), reverse=True)[:5]
        losses.append(p.loss)
    if strategy == "random":
        assert min(losses) > 50  # random play is far from optimal (about 200 points a game)


def test_missing_held_infers_keeps_and_still_grades_boxes_exactly(logs: dict[str, list[dict[str, Any]]],
                                                                  analyzer: A.Analyzer) -> None:
    game = logs["greedy"][0]
    bare = copy.deepcopy(game)
    for t in bare["turns"]:
        t.pop("held", None)
    full = analyzer.game(game).decisions
    inferred = analyzer.game(bare).decisions
    assert len(full) == len(inferred)
    n_inferred = 0
    for a, b in zip(full, inferred, strict=True):
        assert (a.index, a.roll, a.kind, a.dice) == (b.index, b.roll, b.kind, b.dice)
        if b.kind != "keep":
            assert not b.inferred
            assert b.made == a.made and b.regret == a.regret  # exact either way
        else:
            assert b.inferred
            n_inferred += 1
            t = bare["turns"][b.index]
            nxt = sorted(t["rolls"][b.roll])
            assert b.made.keep == A.infer_keep(b.dice, nxt)
            assert not Counter(a.made.keep) - Counter(b.made.keep)  # the held dice are among the common ones
    assert n_inferred > 0
    ga = analyzer.game(bare)
    assert ga.players[0].inferred == n_inferred


def test_infer_keep_is_the_multiset_intersection() -> None:
    assert A.infer_keep((1, 3, 3, 5, 6), (2, 3, 3, 3, 6)) == (3, 3, 6)
    assert A.infer_keep((1, 1, 1, 1, 1), (2, 2, 2, 2, 2)) == ()
    assert A.infer_keep((4, 4, 5, 6, 6), (4, 4, 5, 6, 6)) == (4, 4, 5, 6, 6)


# --------------------------------------------------------------------------- hand-made logs


TWELVE = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind", "full_house",
          "small_straight", "large_straight", "yahtzee"]


def last_turn_log() -> dict[str, Any]:
    """Twelve boxes filled with 1 2 3 4 6 (46 points; no upper bonus can come, no extra Yahtzee bonus),
    then a last turn for chance with two mistakes: keep 1 1 from 1 1 2 4 5, then stop at 1 1 3 4 6."""
    turns: list[dict[str, Any]] = [{"player": "Ann", "rolls": [[1, 2, 3, 4, 6]], "box": b} for b in TWELVE]
    turns.append({"player": "Ann", "rolls": [[1, 1, 2, 4, 5], [1, 1, 3, 4, 6]], "held": [[1, 1]], "box": "chance"})
    return {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Ann"], "turns": turns}


def test_hand_made_log_losses_in_closed_form(analyzer: A.Analyzer) -> None:
    """Only chance is open (46 points are on the sheet). A rerolled die is worth 3.5 with one roll
    left; with two left, 4.25 (kept after the next roll when it beats 3.5), so a die is kept when it
    beats 4.25: 5 and 6. Keep 1 1 from 1 1 2 4 5 with two rolls left: the 1s are rerolled at the last
    roll (3.5 each), the three dice thrown now are worth 4.25 each: 7 + 12.75 = 19.75; best keep 5:
    5 + 4 * 4.25 = 22 (loss 2.25). Stop at 1 1 3 4 6 (15) with a roll left; best keep 4 6:
    10 + 3 * 3.5 = 20.5 (loss 5.5). Chance is then forced (no loss)."""
    ga = analyzer.game(last_turn_log())
    last = [d for d in ga.decisions if d.index == 12]
    assert [(d.roll, d.kind) for d in last] == [(1, "keep"), (2, "stop"), (2, "box")]
    keep, stop, box = last
    assert keep.made.keep == (1, 1) and keep.best.keep == (5,)
    assert keep.made.value == pytest.approx(46 + 19.75) and keep.best.value == pytest.approx(46 + 22)
    assert keep.regret == pytest.approx(2.25)
    assert stop.made.keep == (1, 1, 3, 4, 6) and stop.best.keep == (4, 6)
    assert stop.made.value == pytest.approx(46 + 15) and stop.best.value == pytest.approx(46 + 20.5)
    assert stop.regret == pytest.approx(5.5)
    assert box.regret == 0.0 and box.made.score == 15 and box.made.value == pytest.approx(61)
    assert ga.players[0].loss == pytest.approx(2.25 + 5.5 + sum(d.regret for d in ga.decisions if d.index < 12))


def first_turn_log(held: list[list[int]] | None) -> dict[str, Any]:
    turn: dict[str, Any] = {"player": "Bo", "rolls": [[1, 3, 3, 5, 6], [1, 1, 2, 4, 4]], "box": "chance"}
    if held is not None:
        turn["held"] = held
    return {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Bo"], "turns": [turn]}


def test_first_turn_mistakes_against_position_values(analyzer: A.Analyzer) -> None:
    """1 3 3 5 6 on an empty sheet: the best keep is 3 3 at 251.4054 (the hint issue's example);
    keeping the 1 loses what hint says; so do stopping at 1 1 2 4 4 and chance there."""
    rules = R.preset("yahtzee")
    empty = [R.Column.empty(rules)]
    ga = analyzer.game(first_turn_log([[1]]))
    keep, stop, box = ga.decisions
    assert keep.best.keep == (3, 3) and f"{keep.best.value:.4f}" == "251.4054"
    ev2 = hint(rules, empty, [1, 3, 3, 5, 6], 2)
    assert keep.regret == pytest.approx(ev2.best.value - ev2.find_keep([1]).value) and keep.regret > 1
    ev1 = hint(rules, empty, [1, 1, 2, 4, 4], 1)
    assert stop.kind == "stop" and stop.regret == pytest.approx(ev1.best.value - ev1.find_keep([1, 1, 2, 4, 4]).value)
    ev0 = hint(rules, empty, [1, 1, 2, 4, 4], 0)
    chance = ev0.find_box(rules.box_index("chance"))
    assert box.regret == pytest.approx(ev0.best.value - chance.value) and box.regret > 0
    assert box.best.box == ev0.best.box and box.made.score == 12
    # without held: the keep is inferred as the common dice (1), and it grades the same here
    bare = analyzer.game(first_turn_log(None))
    assert bare.decisions[0].inferred and bare.decisions[0].made.keep == (1,)
    assert [d.regret for d in bare.decisions] == [d.regret for d in ga.decisions]


def test_keeping_every_die_and_rolling_again_is_no_stop(analyzer: A.Analyzer) -> None:
    """Held all five dice, then threw again (the same dice, one roll fewer): valued as the position
    with one roll fewer, not as stopping; without held the same turn infers the same keep."""
    rules = R.preset("yahtzee")
    empty = [R.Column.empty(rules)]
    dice = [1, 3, 3, 5, 6]
    log = {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Cy"],
           "turns": [{"player": "Cy", "rolls": [dice, dice], "held": [dice], "box": "chance"}]}
    for data in (log, {**log, "turns": [{k: v for k, v in log["turns"][0].items() if k != "held"}]}):
        keep, stop, box = analyzer.game(data).decisions
        assert (keep.kind, stop.kind, box.kind) == ("keep", "stop", "box")
        one_fewer = hint(rules, empty, dice, 1).best.value
        assert keep.made.keep == tuple(dice) and keep.made.value == pytest.approx(one_fewer)
        assert keep.regret == pytest.approx(251.40544182696922 - one_fewer)
        assert keep.best.keep == (3, 3)
        assert "keep all, reroll none" in T.render_game(analyzer.game(data), verbose=True)


def test_in_progress_and_until(analyzer: A.Analyzer) -> None:
    data = loads((FIX / "logs" / "in-progress.json").read_bytes())
    ga = analyzer.game(data)
    assert not ga.game_over
    last = [d for d in ga.decisions if d.index == len(data["turns"]) - 1]
    assert [(d.kind, d.roll, d.made.keep) for d in last] == [("keep", 1, (3, 3, 5))]  # no box yet
    part = analyzer.game(data, until=4)
    assert part.turns == 4 and {d.index for d in part.decisions} == {0, 1, 2, 3}
    assert part.decisions == [d for d in ga.decisions if d.index < 4]


def test_passes_are_graded(analyzer: A.Analyzer) -> None:
    data = loads((FIX / "logs" / "pass.json").read_bytes())
    ga = analyzer.game(data)
    passes = [d for d in ga.decisions if d.made.is_pass]
    assert len(passes) == sum(t["box"] is None for t in data["turns"]) == 1
    p = passes[0]
    assert p.kind == "box" and p.regret >= 0
    assert A.decision_dict(p)["made"]["pass"] is True


def test_approximate_rules_are_labelled(analyzer: A.Analyzer) -> None:
    data = loads((FIX / "logs" / "triple-yahtzee.json").read_bytes())
    ga = analyzer.game(data)
    assert not ga.exact and ga.source
    boxes = [d for d in ga.decisions if d.kind == "box"]
    assert len(boxes) == len(data["turns"])
    for d, t in zip(boxes, data["turns"], strict=True):
        assert d.made.column == t["column"] - 1 and d.made.box == R.preset("triple-yahtzee").box_index(t["box"])
    out = A.game_dict(ga)
    assert out["exact"] is False and "column" in out["decisions"][-1]["made"]
    assert f"APPROXIMATE optimal play ({ga.source})" in T.render_game(ga)
    totals = A.Totals()
    totals.add(ga)
    assert A.totals_dict(totals)["exact"] is False and "APPROXIMATE" in T.render_totals(totals)


def test_sheets_cannot_be_analyzed(analyzer: A.Analyzer) -> None:
    data = loads((FIX / "sheets" / "anna-and-ben.json").read_bytes())
    with pytest.raises(ValueError, match="no turns"):
        analyzer.game(data)


# --------------------------------------------------------------------------- batches


def test_batch_totals_by_player_name(logs: dict[str, list[dict[str, Any]]], analyzer: A.Analyzer) -> None:
    games = [*logs["greedy"], last_turn_log(), *logs["random"][:1]]
    totals = A.Totals()
    per: dict[str, list[A.Decision]] = {}
    for i, g in enumerate(games):
        ga = analyzer.game(g, game=i + 1, keep_decisions=False)
        assert ga.decisions == []
        totals.add(ga)
        for d in analyzer.game(g, game=i + 1).decisions:
            per.setdefault(d.player, []).append(d)
    assert totals.games == len(games)
    assert [p.name for p in totals.players.values()] == ["greedy", "Ann", "random"]  # (keyed as names match)
    for name, ds in per.items():
        p = totals.players[player_key(name)]
        assert p.decisions == len(ds)
        assert p.loss == pytest.approx(math.fsum(d.regret for d in ds))
        want = sorted(ds, key=lambda d: (-d.regret, d.game, d.index, d.roll))[:5]
        assert [(d.game, d.index, d.roll, d.kind) for d in p.worst] == [(d.game, d.index, d.roll, d.kind) for d in want]
    assert totals.players[player_key("greedy")].games == 3
    s = A.totals_dict(totals)
    assert s["type"] == "summary" and s["games"] == 5 and s["exact"] is True
    assert [p["name"] for p in s["players"]] == ["greedy", "Ann", "random"]


def test_turns_are_reused_across_games(logs: dict[str, list[dict[str, Any]]]) -> None:
    an = A.Analyzer()
    for g in logs["optimal"]:
        an.game(g, keep_decisions=False)
    assert an.turns_reused >= 2  # every game starts from the empty sheet
    assert len(an._turns) <= an.turn_cache


# --------------------------------------------------------------------------- CLI


def test_cli_single_game_text_and_verbose(cli: Any) -> None:
    log = json.dumps(first_turn_log([[1]]))
    r = cli(["replay", "--analyze", "-"], input=log)
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "graded against optimal play (exact table)" in out
    assert "Bo" in out and "worst decisions" in out
    assert "keep 1" in out and "keep 3 3" in out and "251.4054" in out
    assert "stop (keep all)" in out and "chance 12" in out
    assert "Every decision" not in out
    r = cli(["replay", "--analyze", "--verbose", "-"], input=log)
    assert r.exit_code == 0 and "Every decision:" in r.stdout
    assert r.stdout.count("\n") > out.count("\n")


def test_cli_json_every_decision(cli: Any) -> None:
    r = cli(["replay", "--analyze", "--json", "-"], input=json.dumps(first_turn_log(None)))
    assert r.exit_code == 0, r.stderr
    data, _ = map(loads, r.stdout.splitlines())  # the game, then the totals
    assert data["exact"] is True and data["approximation"] is None and data["game_over"] is False
    assert data["rules"]["name"] == "yahtzee" and (data["file"], data["line"], data["game"]) == ("<stdin>", 1, 1)
    ds = data["decisions"]
    assert [d["decision"] for d in ds] == ["keep", "stop", "box"]
    assert [d["inferred"] for d in ds] == [True, False, False]
    assert ds[0]["turn"] == 1 and ds[0]["path"] == "/turns/0" and ds[0]["round"] == 1 and ds[0]["roll"] == 1
    assert ds[0]["made"]["keep"] == [1]
    assert ds[0]["best"] == {"keep": [3, 3], "value": pytest.approx(251.4054, abs=1e-4)}
    assert ds[2]["made"]["box"] == "chance" and ds[2]["made"]["score"] == 12
    (p,) = data["players"]
    assert p["name"] == "Bo" and p["decisions"] == 3 and p["inferred"] == 1
    assert "inferred" in cli(["replay", "--analyze", "-"], input=json.dumps(first_turn_log(None))).stdout


def chance_only_log() -> dict[str, Any]:
    """Twelve turns write 0 in every box but chance (no bonus can come any more); the last turn is
    then worth the dice's sum, which a hand can work out: one die rerolled once is worth 3.5, and with
    two rolls left 4.25 (keep a 4, 5 or 6 at once: (4 + 5 + 6) / 6 + 1/2 x 3.5)."""
    zeros = {"ones": [2, 2, 3, 3, 6], "twos": [1, 1, 3, 3, 6], "sixes": [1, 1, 2, 2, 3]}
    turns: list[dict[str, Any]] = [
        {"player": "Bo", "rolls": [zeros.get(box, [1, 1, 2, 2, 6])], "box": box, "score": 0}
        for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
                    "full_house", "small_straight", "large_straight", "yahtzee")]
    turns.append({"player": "Bo", "rolls": [[1, 2, 6, 6, 6], [2, 3, 6, 6, 6], [3, 4, 6, 6, 6]],
                  "held": [[2, 6, 6, 6], [3, 6, 6, 6]], "box": "chance", "score": 25})
    return {"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Bo"], "turns": turns}


def test_cli_grades_a_hand_computed_last_turn(cli: Any) -> None:
    """Only chance left: keeping 2 6 6 6 with two rolls left (the 2 can still go at the next roll) is
    worth 18 + 4.25 + 3.5 = 25.75 against 18 + 2 x 4.25 = 26.5 for 6 6 6 (loss 0.75); keeping 3 6 6 6
    with one left, 21 + 3.5 against 18 + 2 x 3.5 (loss 0.5); chance is the only box (loss 0). The
    game's loss is the first twelve turns' plus these 1.25."""
    log = json.dumps(chance_only_log())
    r = cli(["replay", "--analyze", "--json", "-"], input=log)
    assert r.exit_code == 0, r.stderr
    data = loads(r.stdout.splitlines()[0])
    last = [d for d in data["decisions"] if d["turn"] == 13]
    assert [d["decision"] for d in last] == ["keep", "keep", "box"]
    assert [d["made"]["value"] for d in last] == pytest.approx([25.75, 24.5, 25.0], abs=1e-4)
    assert [d["best"]["value"] for d in last] == pytest.approx([26.5, 25.0, 25.0], abs=1e-4)
    assert [d["best"].get("keep") for d in last] == [[6, 6, 6], [6, 6, 6], None]
    assert [d["regret"] for d in last] == pytest.approx([0.75, 0.5, 0.0], abs=1e-4)
    first_twelve = loads(cli(["replay", "--analyze", "--json", "--until", "12", "-"], input=log).stdout.splitlines()[0])
    (whole,), (prefix,) = data["players"], first_twelve["players"]
    assert whole["decisions"] == prefix["decisions"] + 3
    assert whole["expected_loss"] == pytest.approx(prefix["expected_loss"] + 1.25, abs=1e-4)


def test_cli_batch(cli: Any, logs: dict[str, list[dict[str, Any]]]) -> None:
    games = [*logs["optimal"][:2], *logs["greedy"][:2]]
    text = "".join(json.dumps(g) + "\n" for g in games)
    r = cli(["replay", "--analyze", "--json", "-"], input=text)
    assert r.exit_code == 0, r.stderr
    lines = [loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == 5
    assert [x["game"] for x in lines[:4]] == [1, 2, 3, 4] and [x["line"] for x in lines[:4]] == [1, 2, 3, 4]
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["games"] == 4
    by = {p["name"]: p for p in summary["players"]}
    assert by["optimal"]["expected_loss"] == 0.0 and by["optimal"]["games"] == 2
    greedy = [p for x in lines[2:4] for p in x["players"]]
    assert by["greedy"]["expected_loss"] == pytest.approx(sum(p["expected_loss"] for p in greedy), abs=1e-5)
    assert by["greedy"]["decisions"] == sum(p["decisions"] for p in greedy)
    r = cli(["replay", "--analyze", "-"], input=text)
    assert r.exit_code == 0
    assert r.stdout.startswith("4 games graded\n")
    assert "optimal: every decision was optimal" in r.stdout and "greedy: worst decisions" in r.stdout
    assert "Game" in r.stdout and "==" not in r.stdout
    r = cli(["replay", "--analyze", "--verbose", "-"], input=text)
    assert r.stdout.count("== <stdin>:") == 4 and "4 games graded" in r.stdout


def test_cli_invalid_games(cli: Any, logs: dict[str, list[dict[str, Any]]]) -> None:
    bad = (FIX / "invalid" / "joker-forbidden.json").read_text()
    expected = (FIX / "invalid" / "joker-forbidden.expected").read_text().strip()
    r = cli(["replay", "--analyze", str(FIX / "invalid" / "joker-forbidden.json")])
    assert r.exit_code == 1 and r.stdout == ""
    assert expected in r.stderr and r.stderr.startswith("yahtzee: error: ")
    # in a batch the valid games are still graded
    text = json.dumps(logs["greedy"][0]) + "\n" + json.dumps(loads(bad)) + "\n"
    r = cli(["replay", "--analyze", "-"], input=text)
    assert r.exit_code == 1 and "1 game graded" in r.stdout and ":2: game 2: " in r.stderr
    r = cli(["replay", "--analyze", str(FIX / "sheets" / "anna-and-ben.json")])
    assert r.exit_code == 1 and "no turns to grade" in r.stderr
    r = cli(["replay", "--analyze", "-"], input=b"")
    assert r.exit_code == 1 and "empty input" in r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--analyze", "--set", "joker=free"], "leave out --set"),
])
def test_cli_usage_errors(cli: Any, args: list[str], message: str) -> None:
    r = cli(["replay", *args, str(FIX / "logs" / "yahtzee.json")])
    assert r.exit_code == 2 and message in r.stderr


def test_cli_replay_unchanged(cli: Any) -> None:
    r = cli(["replay", str(FIX / "logs" / "yahtzee-perfect.json")])
    assert r.exit_code == 0 and "1575" in r.stdout


def test_analyze_module_imports_no_heavy_or_cli_modules() -> None:
    import subprocess
    import sys

    code = ("import sys, yahtzee_cli.play.analyze; bad = [m for m in ('numpy', 'numba', 'typer', 'rich') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_decision_dict_and_move_text() -> None:
    rules = R.preset("yahtzee")
    choice = P.Choice(100.0, keep=(3, 3))
    d = A.Decision(rules, 4, "X", 3, 1, "keep", (1, 3, 3, 5, 6), 2, choice, choice, 0.0)
    out = A.decision_dict(d)
    assert (out["turn"], out["path"], out["decision"], out["regret"]) == (5, "/turns/4", "keep", 0.0)
    assert T.move_text(rules, P.Choice(1.0, keep=()), 5) == "reroll all"
    assert T.move_text(rules, P.Choice(1.0, keep=(1, 2, 3, 4, 5)), 5) == "stop (keep all)"
    assert T.move_text(rules, P.Choice(1.0, is_pass=True), 5) == "pass"
    assert T.move_text(rules, P.Choice(1.0, box=11, score=50, bonus=100), 5) == "yahtzee 50 +100"
    empty = A.GameAnalysis(rules, True, "exact table", [A.PlayerSummary("X")], [], 0, False)
    assert "X: no decisions yet" in T.render_game(empty)
