"""`yahtzee rules`: the presets, and for one rule set its boxes, settings and theoretical maximum."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..formats.output import Output
from ..rules.preset_list import ALIAS_NOTE, PRESET_ALIASES, listing
from .app import SetOpt, _complete_presets, app, examples, get_rules, outputs

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

_FILL_WORDS = {"down": "top to bottom", "up": "bottom to top", "free": "in any order"}


def describe_sheet(rs: RuleSet) -> list[dict[str, Any]]:
    """Each column of a player's sheet: how it is filled and what it counts."""
    s = rs.settings
    return [{"column": c + 1, "fill": f, "multiplier": m}
            for c, (f, m) in enumerate(zip(s.fills, s.multipliers, strict=True))]


def sheet_words(rs: RuleSet) -> str:
    """The sheet in one sentence, e.g. `3 columns, added together: 1 top to bottom, 2 bottom to top, ...`."""
    s = rs.settings
    cols = describe_sheet(rs)
    if len(cols) == 1:
        return f"one column, filled {_FILL_WORDS[cols[0]['fill']]}"
    how = "added together" if s.add_columns else "the best one counts"
    parts = [f"{c['column']} filled {_FILL_WORDS[c['fill']]}" + (f" x{c['multiplier']}" if c["multiplier"] != 1 else "")
             for c in cols]
    return f"{len(cols)} columns, {how}; any roll may go in any column whose rule allows it: " + ", ".join(parts)


def describe_rules(rs: RuleSet) -> dict[str, Any]:
    """A rule set as plain data, readable back as a rules file (--rules FILE): name, dice, every box with
    its kind and parameters, every setting; plus read-only fields for people (each box's section, how it
    scores and its best score; the sheet, a note, the fingerprint and theoretical maximum), ignored when
    read back."""
    from ..rules.engine import natural_score, rolls

    all_rolls = list(rolls(rs.dice))
    info: dict[str, Any] = {
        "name": rs.name,
        "dice": rs.dice,
        "boxes": [
            {
                **b.model_dump(mode="json", exclude_defaults=True),
                "name": b.label,
                "section": b.section,
                "scores": b.describe(),
                "max": max(natural_score(b, r) for r in all_rolls),
            }
            for b in rs.boxes
        ],
        "settings": rs.settings.model_dump(mode="json"),
        "sheet": describe_sheet(rs),
        "fingerprint": rs.fingerprint,
        "theoretical_max": rs.theoretical_max,
    }
    if rs.name in PRESET_ALIASES:
        info["note"] = f"{rs.name} plays the {PRESET_ALIASES[rs.name]} rules; {ALIAS_NOTE}"
    return info


@app.command("rules", short_help="The presets, or one rule set's boxes and settings.", epilog=examples(
    "yahtzee rules",
    "yahtzee rules yatzy",
    "yahtzee rules yahtzee --set joker=free --json > house.json && yahtzee score 66666 --rules house.json",
    "YAHTZEE_RULES=yatzy yahtzee rules --show-defaults",
))
@outputs()
def rules_command(
    name: Annotated[str | None, typer.Argument(metavar="NAME|FILE", help="A preset name or rules JSON file; none "
                                               "lists the presets.", show_default=False,
                                               autocompletion=_complete_presets)] = None,
    set_: SetOpt = None,
    json: bool = False,
    show_defaults: Annotated[
        bool, typer.Option("--show-defaults", help="The rule set commands use without --rules, and where it comes "
                           "from ($YAHTZEE_RULES, the config file).")
    ] = False,
    *,
    out: Output,
) -> None:
    """List the presets, or show one rule set's boxes, settings and theoretical maximum."""
    if show_defaults:
        _show_defaults(out)
        return
    if name is None and not set_:
        presets = listing()  # the rule models are not needed (nor imported) for the list
        out.record({"type": "presets", "presets": presets})
        from ..formats.render import text

        out.text(text([[p["name"], p["about"]] for p in presets], left={0, 1}))
        return
    rs = get_rules(name, set_)
    info = describe_rules(rs)
    out.record(info)
    out.text(lambda: _rules_text(info, rs))


def _rules_text(info: dict[str, Any], rs: RuleSet) -> str:
    """A rule set for people: its boxes, how each scores, and its settings."""
    from ..formats.render import text

    rows: list[list[object]] = [["box", "name", "section", "how it scores", "max"]]
    rows += [[b["key"], b["name"], b["section"], b["scores"], b["max"]] for b in info["boxes"]]
    title = f"{info['name']}: {info['dice']} dice, theoretical maximum {info['theoretical_max']}"
    lines = [f"sheet: {sheet_words(rs)}"]
    if "note" in info:
        lines.append(f"note: {info['note']}")
    lines += [f"{key} = {_setting_words(value)}" for key, value in info["settings"].items()]
    return text(rows, left={0, 1, 2, 3}, title=title) + "\n".join(lines) + "\n"


def _setting_words(value: object) -> str:
    """A setting's value as `--set` spells it (on/off, 1,2,3), never Python's repr; unset shows as -."""
    from ..rules.engine import setting_text

    return "-" if value is None else setting_text(value)


def _show_defaults(out: Output) -> None:
    from ..formats.config import load_default_rules, load_defaults

    d = load_defaults()
    rs = load_default_rules()
    where = str(d.config_path) + ("" if d.config_found else " (not found)")
    out.record({"type": "defaults", "rules": rs.record(), "rules_from": d.rules_from,
                "settings_from_config": d.settings, "config_file": str(d.config_path), "config_found": d.config_found})
    lines = [f"rules = {d.rules}  ({d.rules_from})"]
    lines += [f"{k} = {_setting_words(v)}  (config file)" for k, v in d.settings.items()]
    lines.append(f"config file: {where}")
    out.text("\n".join(lines) + "\n")
