"""Poker dice as a game: rounds of up to three rolls, the best hand wins the round, the agreed number
of round wins takes the match (poker-log/1); and the keep that best beats a given hand."""

from __future__ import annotations

import copy
from fractions import Fraction

import orjson
import pytest
from conftest import FIXTURES as FIX

from yahtzee_cli.formats.poker_log import check_match, walk_match
from yahtzee_cli.rules.poker import keep_chances


def match(rounds: list[list[str]], wins: int = 2, players: tuple[str, ...] = ("Anna", "Ben")) -> dict:
    """A log whose hands are each a single roll, given as digit strings."""
    return {"format": "poker-log/1", "players": list(players), "wins_needed": wins,
            "rounds": [{"hands": [{"player": p, "rolls": [[int(c) for c in h]]} for p, h in zip(players, r,
                                                                                             strict=False)]}
                       for r in rounds]}


def test_best_hand_wins_the_round_and_wins_add_up_to_the_match() -> None:
    # "In a full house, compare the three of a kind first"; "In two pairs, compare the higher pair first."
    m, problems = check_match(match([["22333", "66622"], ["66221", "55441"], ["55522", "44466"]]))
    assert problems == [] and m is not None
    assert [r.winners for r in m.rounds] == [("Ben",), ("Anna",), ("Anna",)]
    assert m.wins == {"Anna": 2, "Ben": 1} and m.winner == "Anna" and m.over


def test_equal_hands_tie_and_nobody_wins_the_round() -> None:
    # "If they are equal too, the round is a tie."
    m = walk_match(match([["23456", "65432"], ["11234", "11235"]], wins=1))
    assert m.rounds[0].tie and m.rounds[0].winners == ("Anna", "Ben")
    assert m.rounds[0].wins == {"Anna": 0, "Ben": 0}
    assert m.rounds[1].winners == ("Ben",)  # the other dice decide: 5 beats 4
    assert m.winner == "Ben"


def test_the_match_is_in_progress_until_someone_has_the_wins() -> None:
    m = walk_match(match([["66666", "12346"], ["11111"]], wins=2))
    assert not m.over and m.in_round == 1 and m.problems == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["rounds"].append(copy.deepcopy(d["rounds"][0])), "/rounds/2: round 3 after the match is over"),
        (lambda d: d["rounds"][0]["hands"][0].update(rolls=[[1, 2, 3, 4, 5]] * 4),
         "/rounds/0/hands/0/rolls: 4 rolls, but a hand has up to 3"),
        (lambda d: d["rounds"][0]["hands"][0].update(rolls=[[1, 2, 3, 4, 5], [1, 1, 6, 6, 6]], held=[[6]]),
         "/rounds/0/hands/0/held/0: held 6 are not all in roll 1 (1 2 3 4 5): held dice are kept from the roll before"),
        (lambda d: d["rounds"][0]["hands"].reverse(), "/rounds/0/hands/0/player: it is Anna's hand, not Ben's"),
        (lambda d: d["rounds"][0]["hands"][1].update(player="Cleo"), "unknown player 'Cleo'"),
        (lambda d: d["rounds"][0]["hands"].pop(), "/rounds/0/hands: 1 hand, but 2 players: only the last round"),
        (lambda d: d.update(players=["Anna", "Anna"]), "/players/1: player 'Anna' is listed twice"),
    ],
)
def test_problems_name_the_place(change, message: str) -> None:
    doc = match([["66666", "12346"], ["22222", "11111"]], wins=2)
    change(doc)
    _, problems = check_match(doc)
    assert any(message in str(p) for p in problems), problems


def test_round_json_agrees_with_the_poker_command(cli) -> None:
    doc = orjson.loads((FIX / "poker/match.json").read_bytes())
    data = orjson.loads(cli(["replay", "--json", str(FIX / "poker/match.json")]).stdout.splitlines()[0])
    assert data["winner"] == "Anna" and data["match_over"]
    assert data["standings"] == [{"rank": 1, "name": "Anna", "wins": 2}, {"rank": 2, "name": "Ben", "wins": 1}]
    for rnd, got in zip(doc["rounds"], data["rounds"], strict=True):
        finals = ["".join(map(str, h["rolls"][-1])) for h in rnd["hands"]]
        ref = orjson.loads(cli(["poker", *finals, "--json"]).stdout)
        names = doc["players"]
        assert [{**h, "player": names[h["player"] - 1]} for h in ref["hands"]] == got["hands"]
        assert [names[w - 1] for w in ref["winners"]] == got["winners"]
        assert ref["tie"] == got["tie"]


def test_validate_and_replay_poker_logs(cli) -> None:
    assert cli(["validate", str(FIX / "poker/match.json")]).exit_code == 0
    r = cli(["validate", str(FIX / "poker/in-progress.json")])
    assert r.exit_code == 0 and "valid, unfinished" in r.stdout
    r = cli(["replay", str(FIX / "poker/match.json")])
    assert "round 2: Anna 2 3 4 5 6 (straight), Ben 2 3 4 5 6 (straight): tie between Anna and Ben" in r.stdout
    assert "Match over: Anna wins." in r.stdout
    assert cli(["replay", "--set", "joker=off", str(FIX / "poker/match.json")]).exit_code == 2


def test_poker_matches_in_a_batch_count_towards_the_tally(cli) -> None:
    one = (FIX / "poker/match.json").read_bytes()
    line = orjson.dumps(orjson.loads(one))
    r = cli(["replay", "-"], input=line + b"\n" + line + b"\n")
    assert "summary of 2 finished games" in r.stdout
    assert any(x.split()[:4] == ["Anna", "2", "2", "0"] for x in r.stdout.splitlines())


# --------------------------------------------------------------------------- hint: beat a hand


def test_keep_a_pair_to_beat_a_straight() -> None:
    # To beat 2-3-4-5-6 with 6 6 2 3 4 and one roll left, keeping 6 6 and rolling three dice wins with
    # a full house (xxx: 5 ways; 6yy: 3 x 5 = 15), four 6s (66x: 3 x 5 = 15) or five (1): 36/216 = 1/6.
    best = keep_chances([6, 6, 2, 3, 4], [2, 3, 4, 5, 6], 1)[0]
    assert best.keep == (6, 6) and best.win == Fraction(1, 6) and best.tie == 0


def test_win_and_tie_chances_of_the_kicker() -> None:
    # 6 6 6 6 1 against 6 6 6 6 5: standing pat loses (kicker 1 < 5); rerolling the 1 wins on a 6
    # (five of a kind) and ties on a 5: 1/6 each.
    chances = {c.keep: c for c in keep_chances([6, 6, 6, 6, 1], [6, 6, 6, 6, 5], 1)}
    assert (chances[(6, 6, 6, 6)].win, chances[(6, 6, 6, 6)].tie) == (Fraction(1, 6), Fraction(1, 6))
    assert chances[(1, 6, 6, 6, 6)].win == 0
    assert keep_chances([6, 6, 6, 6, 1], [6, 6, 6, 6, 5], 1)[0].keep == (6, 6, 6, 6)


def test_no_rolls_left_compares_the_hands() -> None:
    assert keep_chances([1, 1, 1, 1, 1], [6, 6, 6, 6, 5], 0)[0].win == 1
    assert keep_chances([2, 3, 4, 5, 6], [6, 5, 4, 3, 2], 0)[0].tie == 1


def test_two_rolls_are_at_least_as_good_as_one() -> None:
    one = keep_chances([1, 2, 2, 4, 5], [3, 3, 3, 1, 2], 1)[0].win
    two = keep_chances([1, 2, 2, 4, 5], [3, 3, 3, 1, 2], 2)[0].win
    assert 0 < one <= two < 1


def test_hint_beat_cli(cli) -> None:
    r = cli(["hint", "66234", "--beat", "23456", "--rolls-left", "1", "--json"])
    data = orjson.loads(r.stdout)
    assert data["keeps"][0]["keep"] == [6, 6] and data["keeps"][0]["win_exact"] == "1/6"
    assert data["beat"] == {"dice": [2, 3, 4, 5, 6], "category": "straight"}
    text = cli(["hint", "66234", "--beat", "23456", "--rolls-left", "1", "-k", "1"]).stdout
    assert "6 6" in text and "16.67% (1/6)" in text
    assert cli(["hint", "66234", "--beat", "23456", "--rules", "yatzy"]).exit_code == 2
    assert cli(["hint", "66234", "--beat", "23456", "-n", "3"]).exit_code == 2


def test_a_match_without_rounds_is_a_match_not_begun(cli) -> None:
    """`rounds` is optional in poker-log/1: a match that has not begun is valid, not a traceback."""
    data = {"format": "poker-log/1", "players": ["Anna", "Ben"], "wins_needed": 2}
    m, problems = check_match(data)
    assert problems == [] and m is not None and m.rounds == [] and not m.over
    r = cli(["validate", "-"], input=orjson.dumps(data))
    assert r.exit_code == 0 and "Traceback" not in r.stderr
