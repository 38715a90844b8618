"""`yahtzee rules`: the presets, and for one rule set its boxes, settings and theoretical maximum."""

from __future__ import annotations

import sys

from typing import Annotated, Any

import typer

from ..rules import PRESETS, RuleSet, natural_score, rolls
from .app import JsonOpt, SetOpt, app, get_rules, write_json


def describe_rules(rs: RuleSet) -> dict[str, Any]:
    """A rule set as plain data, readable back as a rules file (--rules FILE): name, dice, every box with
    its kind and parameters, every setting; plus read-only fields for people (each box's section, how it
    scores and its best score; the fingerprint and theoretical maximum), ignored when read back."""
    all_rolls = list(rolls(rs.dice))
    return {
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
        "fingerprint": rs.fingerprint,
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
    from ..render import text

    rows: list[list[object]] = [["box", "name", "section", "how it scores", "max"]]
    rows += [[b["key"], b["name"], b["section"], b["scores"], b["max"]] for b in info["boxes"]]
    title = f"{info['name']}: {info['dice']} dice, theoretical maximum {info['theoretical_max']}"
    settings = "".join(f"{key} = {value}\n" for key, value in info["settings"].items())
    sys.stdout.write(text(rows, left={0, 1, 2, 3}, title=title) + settings)
