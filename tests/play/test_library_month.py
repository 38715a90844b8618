"""The library's month files: a new game goes into the file of the month it starts in (UTC), whatever
older month files exist, and a game continued past the end of a month stays in the file it started
in. The clock is the library's own (`datetime` in play/library.py), set by the test."""

from __future__ import annotations

import json
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.formats.jsonio import dumps
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.play import library
from yahtzee_cli.rules.engine import preset


class Clock(datetime):
    """datetime with now() at the test's moment."""

    at = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> Clock:
        t = cls.at.astimezone(tz) if tz is not None else cls.at.replace(tzinfo=None)
        return cls(t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, t.tzinfo)


@pytest.fixture
def lib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "lib"
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(folder))
    monkeypatch.setattr(library, "datetime", Clock)
    monkeypatch.setattr(Clock, "at", Clock.at)  # (each test sets its own moment)
    return folder


def _games(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _new(cli: Any, players: str) -> Path:
    res = cli(["log", "new", "--players", players])
    assert res.exit_code == 0, res.stderr
    return Path(res.stdout.split(" game in ", 1)[1].split(": ", 1)[0])


def test_a_new_game_goes_into_this_month_s_file_not_an_older_one(lib: Path, cli: Any) -> None:
    lib.mkdir()
    older = lib / "games-2025-11.ndjson"
    older.write_bytes(dumps(random_log(preset("yahtzee"), 1, players=["Anna"])) + b"\n")
    before = older.read_bytes()
    Clock.at = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    path = _new(cli, "Anna,Ben")
    assert path == lib / "games-2026-01.ndjson"
    (game,) = _games(path)
    assert game["players"] == ["Anna", "Ben"] and game["meta"]["started"] == "2026-01-15T12:00:00Z"
    assert older.read_bytes() == before
    # the score keeper's new game too (once that one is ended)
    assert cli(["log", "end", str(path)]).exit_code == 0
    res = cli(["play", "--players", "Cleo"], input="q\n")
    assert res.exit_code == 0, res.stderr
    assert [g["players"] for g in _games(lib / "games-2026-01.ndjson")] == [["Anna", "Ben"], ["Cleo"]]
    assert older.read_bytes() == before
    assert sorted(p.name for p in lib.iterdir()) == ["games-2025-11.ndjson", "games-2026-01.ndjson"]


def test_a_game_started_before_midnight_stays_and_the_next_goes_into_the_new_month(lib: Path, cli: Any) -> None:
    Clock.at = datetime(2026, 1, 31, 23, 59, 50, tzinfo=UTC)
    january = _new(cli, "Anna")
    assert january == lib / "games-2026-01.ndjson"
    assert _games(january)[0]["meta"]["started"] == "2026-01-31T23:59:50Z"
    Clock.at = datetime(2026, 2, 1, 0, 0, 30, tzinfo=UTC)  # the game goes on past midnight
    for box in [b.key for b in preset("yahtzee").boxes]:
        res = cli(["log", "add", str(january), "--dice", "12346", "--box", box])
        assert res.exit_code == 0, res.stderr
    (done,) = _games(january)
    assert len(done["turns"]) == 13
    assert not (lib / "games-2026-02.ndjson").exists()
    february = _new(cli, "Ben")
    assert february == lib / "games-2026-02.ndjson"
    assert _games(february)[0]["meta"]["started"] == "2026-02-01T00:00:30Z"
    assert len(_games(january)) == 1  # nothing added to January's file
    res = cli(["library", "--json"])
    assert json.loads(res.stdout)["files"] == 2 and json.loads(res.stdout)["games"] == 2


def test_the_month_is_utc_s(lib: Path) -> None:
    Clock.at = datetime(2026, 3, 31, 23, 30, tzinfo=UTC)  # already April east of Greenwich
    assert library.month_file(lib) == lib / "games-2026-03.ndjson"
    assert library.new_game_file(lib) == lib / "games-2026-03.ndjson"
    assert library.started_now() == "2026-03-31T23:30:00Z"
