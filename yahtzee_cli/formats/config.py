"""Default rules: from $YAHTZEE_RULES and from a config file, so a player of one game need not type
`--rules` on every command.

The config file is TOML, at $YAHTZEE_CONFIG or else `config.toml` in the platform's user config
directory (~/.config/yahtzee-cli on Linux, $XDG_CONFIG_HOME/yahtzee-cli when that is set)::

    [defaults]
    rules = "yatzy"        # a preset name or a rules JSON file
    must_zero = false      # any setting of `yahtzee rules NAME`, as a house rule

    [library]
    path = "~/yahtzee-games"   # where `play` and `log new` keep games when no file is named

Precedence, highest first: --rules and --set on the command line; $YAHTZEE_RULES (the rule set only);
the config file; the built-in default (yahtzee). The config file's settings belong to its default
rule set: they apply whenever --rules is not given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import RulesError
from ..paths import user_dir
from ..rules.engine import DEFAULT_PRESET, SETTING_NAMES

ENV_RULES = "YAHTZEE_RULES"
ENV_CONFIG = "YAHTZEE_CONFIG"


class Defaults(NamedTuple):
    """The default rule set and settings in force, and where each came from (a named tuple: read by
    every command at start-up, where a dataclass costs a fraction of a millisecond to create)."""

    rules: str
    rules_from: str
    settings: dict[str, Any]
    config_path: Path | None
    config_found: bool


def config_path() -> Path:
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env)
    return user_dir("config") / "config.toml"


def load_defaults() -> Defaults:
    """The defaults from the environment and the config file. RulesError names a config file that
    cannot be read or holds an unknown key."""
    path = config_path()
    rules, rules_from = DEFAULT_PRESET, "built-in default"
    settings: dict[str, Any] = {}
    found = path.is_file()
    if found:
        data = _config_data(path)
        section = data.get("defaults", {})
        unknown = [k for k in data if k not in ("defaults", "library")]
        if unknown or not isinstance(section, dict):
            raise RulesError(f"config file {path}: expected only a [defaults] table and a [library] table, found "
                             f"{unknown or ['defaults']}")
        for key, value in section.items():
            if key == "rules":
                if not isinstance(value, str):
                    raise RulesError(f"config file {path}: rules must be a preset name or a file path")
                rules, rules_from = value, f"config file {path}"
            elif key.replace("-", "_") in SETTING_NAMES:
                settings[key.replace("-", "_")] = value
            else:
                raise RulesError(f"config file {path}: unknown key {key!r} in [defaults]; valid: rules, "
                                 + ", ".join(SETTING_NAMES))
    env = os.environ.get(ENV_RULES)
    if env:
        rules, rules_from = env, f"${ENV_RULES}"
    return Defaults(rules, rules_from, settings, path, found)


def _config_data(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise RulesError(f"cannot read config file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"config file {path} is not valid TOML: {exc}") from None


def library_setting() -> tuple[Path, Path] | None:
    """The library folder the config file names (`path` under `[library]`, `~` expanded; relative to
    the config file's folder) and the config file, or None when it names none."""
    path = config_path()
    if not path.is_file():
        return None
    section = _config_data(path).get("library")
    if section is None:
        return None
    if not isinstance(section, dict) or set(section) - {"path"} or not isinstance(section.get("path"), str):
        raise RulesError(f"config file {path}: [library] takes one key, path = \"FOLDER\"")
    folder = Path(section["path"]).expanduser()
    return (folder if folder.is_absolute() else path.parent / folder), path
