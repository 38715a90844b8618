"""One player however the logs spell them: the single name matcher (formats/players.py) and every
place that groups or looks up players by name (stats with its head-to-head records, replay's
tallies, analyze's totals, a position's --player, the score keeper's personal bests)."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.jsonio import dumps
from yahtzee_cli.formats.players import PlayerNames, pick, player_key, same_player
from yahtzee_cli.formats.replay import position_from_log, random_log
from yahtzee_cli.formats.stats import Book, Fact, Filters
from yahtzee_cli.formats.tallies import Tally
from yahtzee_cli.play.analyze import PlayerSummary, Totals
from yahtzee_cli.rules.engine import preset

NAME_CHARS = st.characters(codec="utf-8", categories=("L", "M", "N", "Zs", "P"))
names = st.text(NAME_CHARS, min_size=1, max_size=12)


# --------------------------------------------------------------------------- the key


@given(names)
def test_the_key_is_its_own_key(name: str) -> None:
    assert player_key(player_key(name)) == player_key(name)


@given(names)
def test_composed_and_decomposed_spellings_are_one_player(name: str) -> None:
    for form in ("NFC", "NFD"):
        assert same_player(unicodedata.normalize(form, name), name)


@given(names)
def test_case_is_ignored(name: str) -> None:
    assert same_player(name.casefold(), name)
    assert same_player(name.lower(), name.upper()) or name.lower().casefold() != name.upper().casefold()


@given(names, st.sampled_from([" ", "  ", "\t", "\u00a0"]), st.sampled_from(["", " ", "\t "]))
def test_spacing_is_ignored(name: str, gap: str, edge: str) -> None:
    spaced = edge + gap.join(name.split(" ")) + edge
    assert same_player(spaced, name)
    assert player_key(spaced) == player_key(spaced).strip()
    assert "  " not in player_key(spaced)


def test_letters_and_accents_still_tell_players_apart() -> None:
    assert same_player("Mom", "mom") and same_player("  MOM ", "mom") and same_player("Anna Lena", "anna  lena")
    assert same_player("Zo\u00eb", "Zoe\u0308") and same_player("STRASSE", "straße")
    for a, b in [("Zoë", "Zoe"), ("Anna-Lena", "Anna Lena"), ("Jo", "Joe"), ("Ann", "Anna")]:
        assert not same_player(a, b), (a, b)


def test_the_first_spelling_names_the_player() -> None:
    book = PlayerNames()
    assert book.add("mom") == ("mom", "mom")
    assert book.add("Mom") == ("mom", "mom")
    assert book.add("Dad") == ("Dad", "dad")
    assert book.spellings() == ["mom", "Dad"] and "dad" in book and book.shown("mom") == "mom"
    assert pick(["Anna", "anna"], "anna") == 1  # an exact spelling first
    assert pick(["Anna", "Ben"], "ANNA") == 0 and pick(["Anna"], "Ann") is None


# --------------------------------------------------------------------------- every grouping agrees


def _spelling(data: st.DataObject, name: str) -> str:
    """`name` as someone else might type it: case changed, decomposed, inner spaces doubled."""
    out = data.draw(st.sampled_from([name, name.upper(), name.lower(), name.swapcase(), name.title()]))
    if data.draw(st.booleans()):
        out = unicodedata.normalize("NFD", out)
    return out.replace(" ", data.draw(st.sampled_from([" ", "  "])))


BASES = ["Mom", "Dad", "Zoë", "Anna Lena", "Zoe", "Ørjan"]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_stats_tallies_and_totals_see_the_same_players(data: st.DataObject) -> None:
    games = data.draw(st.lists(st.lists(st.sampled_from(BASES), min_size=1, max_size=3, unique=True),
                               min_size=1, max_size=6))
    spelled = [[_spelling(data, n) for n in g] for g in games]
    first: dict[str, str] = {}  # base -> first spelling read
    for bases, spellings in zip(games, spelled, strict=True):
        for b, s in zip(bases, spellings, strict=True):
            first.setdefault(b, s)
    keys = ("ones",)
    book = Book(Filters())
    tally = Tally()
    totals = Totals()
    for i, spellings in enumerate(spelled):
        facts: list[Fact] = [(s, 10 + j, 0.0, 0.0, (1.0,)) for j, s in enumerate(spellings)]
        book.add("f", i + 1, None, "yahtzee", keys, facts)
        tally.add([(s, 10 + j, len(spellings) - j) for j, s in enumerate(spellings)], True, {"fingerprint": "x"})
        ga = SimpleNamespace(rules=SimpleNamespace(fingerprint="x"), exact=True, source="", theta=None,
                             players=[PlayerSummary(s, loss=1.0, games=1) for s in spellings])
        totals.add(ga)  # type: ignore[arg-type]
    shown = set(first.values())
    assert {ln.player for ln in book.lines.values()} == shown
    assert {t.name for t in tally.players.values()} == shown
    assert {p.name for p in totals.players.values()} == shown
    for base, name in first.items():
        n = sum(base in g for g in games)
        assert next(p for p in totals.players.values() if p.name == name).games == n
        assert next(t for t in tally.players.values() if t.name == name).games == n
        assert sum(ln.games for ln in book.lines.values() if ln.player == name) == n
    # head to head: one record per pair of players who met, however they were spelt
    pairs = {frozenset((a, b)) for g in games for a in g for b in g if a != b}
    assert {frozenset((m.a, m.b)) for m in book.meetings.values()} == {
        frozenset(first[x] for x in p) for p in pairs}
    # a --player filter in any spelling finds the player
    for base in first:
        assert Filters.of([_spelling(data, base)]).players == {player_key(base)}


def test_a_position_s_player_in_any_spelling() -> None:
    log = random_log(preset("yahtzee"), 4, players=["Zoë", "Anna Lena"])
    assert position_from_log(log, unicodedata.normalize("NFD", "ZOË")).player == "Zoë"
    assert position_from_log(log, "anna  lena").player == "Anna Lena"


def _family(tmp_path: Path) -> str:
    path = tmp_path / "family.ndjson"
    games = [random_log(preset("yahtzee"), 1, players=["Mom", "Dad"]),
             random_log(preset("yahtzee"), 2, players=["mom", "dad"])]
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    return str(path)


def test_replay_stats_and_analyze_count_two_players_not_four(tmp_path: Path, cli: Any) -> None:
    path = _family(tmp_path)
    replayed = [json.loads(line) for line in cli(["replay", "--json", path]).stdout.splitlines()]
    assert sorted((p["player"], p["games"]) for p in replayed[-1]["players"]) == [("Dad", 2), ("Mom", 2)]
    stats = json.loads(cli(["stats", "--json", path]).stdout)
    assert sorted((p["player"], p["games"]) for p in stats["players"]) == [("Dad", 2), ("Mom", 2)]
    assert [(m["games"]) for m in stats["head_to_head"]] == [2]
    graded = [json.loads(line) for line in cli(["analyze", "--no-win", "--json", path]).stdout.splitlines()]
    summary = graded[-1]
    assert sorted((p["name"], p["games"]) for p in summary["players"]) == [("Dad", 2), ("Mom", 2)]
    per_game = {p["name"].casefold(): p["expected_loss"] for g in graded[:-1] for p in g["players"]}
    assert len(per_game) == 2


# --------------------------------------------------------------------------- stats tells the truth


@pytest.fixture
def unfinished(tmp_path: Path) -> str:
    """A Kniffel game of Anna and Oma (finished), Oma's solo game (unfinished), Ben's Yatzy game
    (unfinished) and Cleo's (abandoned)."""
    done = random_log(preset("kniffel"), 1, players=["Anna", "Oma"])
    oma = random_log(preset("kniffel"), 2, players=["Oma"])
    oma["turns"] = oma["turns"][:5]
    ben = random_log(preset("yatzy"), 3, players=["Ben"])
    ben["turns"] = ben["turns"][:3]
    cleo = random_log(preset("yatzy"), 5, players=["Cleo"])
    cleo["turns"] = cleo["turns"][:2]
    cleo["meta"] = {"abandoned": True}
    path = tmp_path / "kn.ndjson"
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in (oma, ben, cleo, done)))
    return str(path)


def test_stats_says_a_player_s_only_game_is_unfinished(unfinished: str, cli: Any) -> None:
    res = cli(["stats", unfinished, "--player", "ben"])
    assert res.exit_code == 0
    assert "Ben's only game read is unfinished; stats count finished games" in res.stderr
    assert "no player named" not in res.stderr
    res = cli(["stats", unfinished, "--player", "CLEO"])
    assert "Cleo's only game read is abandoned; stats count finished games" in res.stderr
    # Oma has a finished game too: counted, no warning
    res = cli(["stats", unfinished, "--player", "oma", "--json"])
    assert res.stderr == "" and {p["player"] for p in json.loads(res.stdout)["players"]} == {"Oma"}
    res = cli(["stats", unfinished, "--player", "Benn"])
    assert "no player named 'Benn' in the games read (did you mean 'Ben'?)" in res.stderr


def test_stats_says_a_rule_set_s_games_are_unfinished(unfinished: str, cli: Any) -> None:
    res = cli(["stats", unfinished, "--rules", "yatzy"])
    assert ("the 2 games read under the rules 'yatzy' are unfinished (1) or abandoned (1); stats count "
            "finished games") in res.stderr
    assert "no game read" not in res.stderr
    res = cli(["stats", unfinished, "--rules", "kniffel", "--player", "ben"])
    assert "Ben's only game read is unfinished" in res.stderr and "rules" not in res.stderr


def test_several_unfinished_games_of_one_player(tmp_path: Path) -> None:
    from yahtzee_cli.formats.inputs import Game
    from yahtzee_cli.formats.stats import tally

    games = []
    for seed in range(3):
        g = random_log(preset("yahtzee"), seed, players=["Oma"])
        g["turns"] = g["turns"][:4]
        games.append(g)
    path = tmp_path / "o.ndjson"
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    from yahtzee_cli.formats.inputs import Source, read_all

    items = list(read_all([Source(str(path), str(path))]))
    assert all(isinstance(i, Game) for i in items)
    book = tally(items, Filters.of(["OMA"]))
    assert book.unmatched() == ["all 3 of Oma's games read are unfinished; stats count finished games"]
