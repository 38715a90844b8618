"""`yahtzee rules`: the presets, and for one rule set its boxes, settings and theoretical maximum."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..preset_list import ALIAS_NOTE, PRESET_ALIASES, listing
from .app import JsonOpt, SetOpt, app, console, get_rules, write_json

if TYPE_CHECKING:
    from ..rules import RuleSet

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
    """A rule set as plain data: boxes with how they score and their best score, settings, sheet, maximum."""
    from ..rules import natural_score, rolls

    all_rolls = list(rolls(rs.dice))
    info: dict[str, Any] = {
        "name": rs.name,
        "dice": rs.dice,
        "boxes": [
            {
                "key": b.key,
                "name": b.label,
                "section": b.section,
                "kind": b.kind,
                "scores": b.describe(),
                "max": max(natural_score(b, r) for r in all_rolls),
            }
            for b in rs.boxes
        ],
        "settings": rs.settings.model_dump(mode="json"),
        "sheet": describe_sheet(rs),
        "theoretical_max": rs.theoretical_max,
    }
    if rs.name in PRESET_ALIASES:
        info["note"] = f"{rs.name} plays the {PRESET_ALIASES[rs.name]} rules; {ALIAS_NOTE}"
    return info


@app.command("rules")
def rules_command(
    name: Annotated[str | None, typer.Argument(help="A preset name or rules JSON file; none lists the presets.",
                                               show_default=False)] = None,
    set_: SetOpt = None,
    json: JsonOpt = False,
) -> None:
    """List the presets, or show one rule set's boxes, settings and theoretical maximum."""
    if name is None and not set_:
        presets = listing()  # the rule models are not needed (nor imported) for the list
        if json:
            write_json({"presets": presets})
        else:
            for p in presets:
                typer.echo(f"{p['name']:<16}{p['about']}")
        return
    info = describe_rules(get_rules(name, set_))
    if json:
        write_json(info)
        return
    from rich.table import Table

    out = console()
    table = Table(title=f"{info['name']}: {info['dice']} dice, theoretical maximum {info['theoretical_max']}",
                  title_justify="left")
    for col in ("box", "name", "section", "how it scores", "max"):
        table.add_column(col, justify="right" if col == "max" else "left")
    for b in info["boxes"]:
        table.add_row(b["key"], b["name"], b["section"], b["scores"], str(b["max"]))
    out.print(table)
    out.print(f"sheet: {sheet_words(get_rules(name, set_))}", soft_wrap=True)
    if "note" in info:
        out.print(f"note: {info['note']}", soft_wrap=True)
    for key, value in info["settings"].items():
        out.print(f"{key} = {value}")
