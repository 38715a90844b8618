"""Default rules: $YAHTZEE_RULES and the config file, and the flags that override both."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest


def _rules_of(cli, args: list[str], dice: str = "12345") -> dict:
    r = cli(["score", dice, "--json", *args])
    assert r.exit_code == 0, r.stderr
    return orjson.loads(r.stdout)["rules"]


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("YAHTZEE_CONFIG", str(path))
    return path


def test_built_in_default_is_yahtzee(cli, config: Path) -> None:
    assert _rules_of(cli, [])["name"] == "yahtzee"
    shown = orjson.loads(cli(["rules", "--show-defaults", "--json"]).stdout)
    assert shown["rules_from"] == "built-in default" and shown["config_found"] is False


def test_config_file_sets_rules_and_house_rules(cli, config: Path) -> None:
    config.write_text('[defaults]\nrules = "yatzy"\nmust_zero = false\n')
    rules = _rules_of(cli, [])
    assert rules["name"] == "yatzy" and rules["settings"]["must_zero"] is False
    # --set overrides the config file's setting; --rules replaces the default rule set and its settings
    assert _rules_of(cli, ["--set", "must_zero=on"])["settings"]["must_zero"] is True
    explicit = _rules_of(cli, ["--rules", "yatzy"])
    assert explicit["settings"]["must_zero"] is True
    text = cli(["rules", "--show-defaults"]).stdout
    assert f"rules = yatzy  (config file {config})" in text and "must_zero = off  (config file)" in text


def test_environment_beats_config_file_and_flag_beats_both(cli, config: Path, monkeypatch) -> None:
    config.write_text('[defaults]\nrules = "yatzy"\n')
    monkeypatch.setenv("YAHTZEE_RULES", "maxi-yatzy")
    assert _rules_of(cli, [], "123456")["name"] == "maxi-yatzy"
    r = cli(["score", "123456", "--json", "--rules", "yahtzee"])
    assert r.exit_code == 2  # yahtzee is played with five dice: the flag won
    assert orjson.loads(cli(["rules", "--show-defaults", "--json"]).stdout)["rules_from"] == "$YAHTZEE_RULES"


@pytest.mark.parametrize(("text", "message"), [
    ('[defaults]\nrules = "yatzy"\nnonsense = 1\n', "unknown key 'nonsense'"),
    ("[defaults\n", "not valid TOML"),
    ('[other]\nx = 1\n', "expected only a [defaults] table"),
])
def test_a_bad_config_file_is_one_error_line(cli, config: Path, text: str, message: str) -> None:
    config.write_text(text)
    r = cli(["score", "12345"])
    assert r.exit_code == 2 and message in r.stderr and r.stderr.count("\n") == 1


def test_log_new_and_play_take_the_same_defaults(cli, config: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A game started without --rules records the rules every other command would use."""
    from yahtzee_cli.formats.logs import resolve_rules

    def started(name: str, *args: str) -> dict:
        game = tmp_path / name
        if args and args[0] == "play":
            r = cli(["play", str(game), "--players", "Anna", *args[1:]], input="q\n")
        else:
            r = cli(["log", "new", str(game), "--players", "Anna", *args])
        assert r.exit_code == 0, r.stderr
        return resolve_rules(orjson.loads(game.read_bytes().splitlines()[-1])["rules"]).record()

    config.write_text('[defaults]\nrules = "kniffel"\nmust_zero = false\n')
    for first in ("log", "play"):
        rules = started(f"{first}-config.ndjson", *(["play"] if first == "play" else []))
        assert rules == _rules_of(cli, []) and rules["name"] == "kniffel" and rules["settings"]["must_zero"] is False
    monkeypatch.setenv("YAHTZEE_RULES", "yatzy")
    assert started("env.ndjson") == _rules_of(cli, []) and _rules_of(cli, [])["name"] == "yatzy"
    assert started("set.ndjson", "--set", "must_zero=on")["settings"]["must_zero"] is True
    assert started("flag.ndjson", "--rules", "yahtzee")["name"] == "yahtzee"
    monkeypatch.setenv("YAHTZEE_RULES", "yatzee")
    r = cli(["log", "new", str(tmp_path / "bad.ndjson"), "--players", "Anna"])
    assert r.exit_code == 2 and "YAHTZEE_RULES=yatzee" in r.stderr and not (tmp_path / "bad.ndjson").exists()
