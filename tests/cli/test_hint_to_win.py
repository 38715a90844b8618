"""`yahtzee hint --log FILE --to-win`: the options by the chance to win against the other players of
the game (a small rule set of six boxes: exact play in well under a second), the risk strategies
where exact play would be slow, and the one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import SMALL_RULES

from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.play import hint as H
from yahtzee_cli.rules.engine import rules_from_data
from yahtzee_cli.solver import winning

DICE = ["1", "3", "3", "5", "6"]


@pytest.fixture
def game(tmp_path: Path) -> Any:
    """write(turns, players) -> the path of a small-rules game log cut after that many turns."""
    small = rules_from_data(SMALL_RULES)

    def write(turns: int, players: tuple[str, ...] = ("Ann", "Ben")) -> str:
        p = tmp_path / f"g{turns}-{len(players)}.json"
        p.write_bytes(orjson.dumps(random_log(small, 3, players, spec=SMALL_RULES, turns=turns)))
        return str(p)

    return write


def test_to_win_ranks_the_options_exactly(cli: Any, game: Any) -> None:
    f = game(6)  # Ann to move, three boxes each left
    r = cli(["hint", *DICE, "--log", f, "--to-win", "--json"])
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["method"] == "exact" and out["theta"] is None and out["by_theta"] == []
    assert out["player"] == "Ann" and out["opponents"] == ["Ben"] and out["objective"] == "maximise P(win)"
    probs = [o["win_probability"] for o in out["options"]]
    assert probs == sorted(probs, reverse=True) and 0 < probs[-1] <= probs[0] < 1
    assert out["best"]["win_probability"] == probs[0]
    assert "risk strategies" not in r.stderr
    text = cli(["hint", *DICE, "--log", f, "--to-win", "--top", "2"])
    assert text.exit_code == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == ("Ann: 1 3 3 5 6, 2 rolls left (custom, exact; maximise P(win) against Ben; "
                        "a tie counts as a share)")
    assert lines[1].split() == ["option", "P(win)", "vs", "best"]
    assert lines[2].split()[-2:] == [f"{100 * probs[0]:.2f}%", "best"] and len(lines) == 4


def test_to_win_falls_back_to_the_risk_strategies_and_says_so(cli: Any, game: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    f = game(6)
    exact = orjson.loads(cli(["hint", *DICE, "--log", f, "--to-win", "--json"]).stdout)
    monkeypatch.setattr(H, "EXACT_SECONDS", 0.0)  # as if exact play would be too slow here
    cli(["hint", *DICE, "--log", f, "--to-win", "--json"])  # the risk tables built (notes) unless cached
    r = cli(["hint", *DICE, "--log", f, "--to-win", "--json"])
    assert r.exit_code == 0, r.stderr
    out = orjson.loads(r.stdout)
    assert out["method"] == "risk_strategies" and out["theta"] in [row["theta"] for row in out["by_theta"]]
    assert out["best"]["win_probability"] == max(row["win_probability"] for row in out["by_theta"])
    assert out["best"]["win_probability"] <= exact["best"]["win_probability"] + 1e-12
    assert r.stderr.count("\n") == 1 and "risk strategies" in r.stderr


def test_risk_strategy_chances_are_the_win_chances_of_their_distributions(game: Any) -> None:
    """The fallback values an option by its final-score pmf against u: at theta 0 that is the chance
    replay's win probabilities give for the same pmfs."""
    small = rules_from_data(SMALL_RULES)
    from yahtzee_cli.formats.replay import position_from_log, replay_game
    from yahtzee_cli.play.odds import player_pmf
    from yahtzee_cli.solver import positions

    data = orjson.loads(Path(game(4)).read_bytes())
    pos = position_from_log(data)
    rp = replay_game(data)
    opp = [player_pmf(rp, i) for i, p in enumerate(rp.players) if p.name != pos.player]
    col = pos.columns[0]
    ev = H.hint(small, [col], (2, 2, 4, 5, 6), 1)
    o = ev.options[0]
    dist = positions.chances(small, col, ev.dice, 1, [o], 0.0)[0].dist
    c = winning.win_chances([dist, *opp])[0]
    u = winning.share_of_first(opp, max(d.lo + len(d.pmf) for d in opp))
    assert H._value(dist, u) == pytest.approx(c.win + c.tie / 2, abs=1e-12)


@pytest.mark.parametrize("args,code,says", [
    (["--to-win"], 2, "--to-win needs the game: give it with --log FILE"),
    (["--to-win", "--log", "SOLO"], 1, "plays alone"),
    (["--to-win", "--log", "FULL"], 1, "the game is over"),
    (["--to-win", "--log", "TWO", "--target", "100"], 2, "leave out --distribution, --target"),
    (["--to-win", "--log", "TWO", "--csv"], 2, "--csv gives the ranking"),
])
def test_to_win_errors_are_one_line(cli: Any, game: Any, args: list[str], code: int, says: str) -> None:
    files = {"SOLO": game(2, ("Ann",)), "FULL": game(12), "TWO": game(6)}
    r = cli(["hint", *DICE, *[files.get(a, a) for a in args]])
    assert r.exit_code == code, r.stderr
    assert r.stdout == "" and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
