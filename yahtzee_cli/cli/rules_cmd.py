"""`yahtzee rules`: the presets, and for one rule set its boxes, settings and theoretical maximum."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..rules.engine import PRESETS, RuleSet, natural_score, rolls
from .app import JsonOpt, SetOpt, app, console, get_rules, write_json


def describe_rules(rs: RuleSet) -> dict[str, Any]:
    """A rule set as plain data: boxes with how they score and their best score, settings, maximum."""
    all_rolls = list(rolls(rs.dice))
    return {
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
        "theoretical_max": rs.theoretical_max,
    }


@app.command("rules")
def rules_command(
    name: Annotated[str | None, typer.Argument(help="A preset name or rules JSON file; none lists the presets.",
                                               show_default=False)] = None,
    set_: SetOpt = None,
    json: JsonOpt = False,
) -> None:
    """List the presets, or show one rule set's boxes, settings and theoretical maximum."""
    if name is None and not set_:
        presets = [{"name": k, "about": v["about"]} for k, v in PRESETS.items()]
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
    for key, value in info["settings"].items():
        out.print(f"{key} = {value}")
