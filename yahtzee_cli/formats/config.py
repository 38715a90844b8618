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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import MissingFile, RulesError
from ..paths import user_dir
from ..rules.engine import DEFAULT_PRESET, SETTING_NAMES

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

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


MAX_CONFIG_FILE = 1 << 20  # a config file is a few lines; this bounds what is read (as for a rules file)


def _read_config(path: Path) -> dict[str, Any]:
    """The config file's TOML: at most MAX_CONFIG_FILE bytes of UTF-8; anything else is one RulesError
    naming the file (never a traceback: not UTF-8, nested thousands deep, a FIFO that never ends)."""
    import tomllib

    where = f"config file {path}"
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_FILE + 1)
    except OSError as exc:
        raise RulesError(f"cannot read {where}: {exc.strerror}") from None
    if len(raw) > MAX_CONFIG_FILE:
        raise RulesError(f"{where} is larger than {MAX_CONFIG_FILE >> 20} MiB; a config file is a few lines")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{where} is not UTF-8 text (byte {exc.start + 1}); save it as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{where} is not valid TOML: {exc}") from None
    except RecursionError:
        raise RulesError(f"{where} is not valid TOML: nested too deep; a config file is a [defaults] table "
                         "of plain values") from None


def load_defaults() -> Defaults:
    """The defaults from the environment and the config file. RulesError names a config file that
    cannot be read or holds an unknown key."""
    path = config_path()
    rules, rules_from = DEFAULT_PRESET, "built-in default"
    settings: dict[str, Any] = {}
    found = path.is_file()
    if found:
        data = _read_config(path)
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


def source_of_rules(d: Defaults) -> str | None:
    """How an error in the default rule set names where it came from: `YAHTZEE_RULES=VALUE` or
    `config file PATH` (None for the built-in default)."""
    if d.rules_from == f"${ENV_RULES}":
        return f"{ENV_RULES}={d.rules}"
    if d.rules_from.startswith("config file"):
        return d.rules_from
    return None


def load_default_rules(sets: Sequence[str] = ()) -> RuleSet:
    """The rule set in force without --rules: the defaults with `sets` (--set) on top. An error names its
    source: `YAHTZEE_RULES=VALUE: ...` for a bad rule set from the environment, `config file PATH: ...`
    for a bad rule set or setting from the config file; an error in --set stays as it is."""
    from ..rules.engine import load_rules, parse_setting

    d = load_defaults()
    try:
        return load_rules(d.rules, sets, base=d.settings)
    except MissingFile as exc:  # not named on the command line: say where the name came from
        raise RulesError(f"{exc} (the default rules, from {d.rules_from})") from None
    except RulesError as exc:
        error = exc
    for text in sets:
        parse_setting(text)  # a bad --set is the command line's own error
    source = source_of_rules(d)
    if source is not None:
        try:
            load_rules(d.rules)
        except RulesError as exc:
            raise RulesError(f"{source}: {exc}", code=exc.code) from None
    if d.settings:
        try:
            load_rules(d.rules, (), base=d.settings)
        except RulesError as exc:
            raise RulesError(f"config file {d.config_path}: {exc}", code=exc.code) from None
    raise error


def library_setting() -> tuple[Path, Path] | None:
    """The library folder the config file names (`path` under `[library]`, `~` expanded; relative to
    the config file's folder) and the config file, or None when it names none."""
    path = config_path()
    if not path.is_file():
        return None
    section = _read_config(path).get("library")
    if section is None:
        return None
    if not isinstance(section, dict) or set(section) - {"path"} or not isinstance(section.get("path"), str):
        raise RulesError(f"config file {path}: [library] takes one key, path = \"FOLDER\"")
    folder = Path(section["path"]).expanduser()
    return (folder if folder.is_absolute() else path.parent / folder), path


def rules_for(rules: str | None, sets: Sequence[str] = ()) -> RuleSet:
    """The rule set named (a preset or a rules file) with `sets` on top; without a name, the defaults
    ($YAHTZEE_RULES, else the config file's, else yahtzee)."""
    from ..rules.engine import load_rules

    if rules is not None:
        return load_rules(rules, sets)
    return load_default_rules(sets)
