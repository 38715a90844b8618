"""`yahtzee poker`: rank poker-dice hands (no score sheet) and name the winner(s)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..rules.engine import parse_dice
from ..rules.poker import standings
from .app import JsonOpt, app, console, write_json


@app.command()
def poker(
    hands: Annotated[list[str], typer.Argument(help="One hand per player: '66622 55543 ...'.", show_default=False)],
    json: JsonOpt = False,
) -> None:
    """Rank poker-dice hands: five of a kind > four > full house > straight > three > two pairs > pair."""
    result = standings([parse_dice([h]) for h in hands])
    winners = [s.player + 1 for s in result if s.rank == 1]
    if json:
        write_json(
            {
                "hands": [
                    {"player": s.player + 1, "dice": list(s.hand.dice), "category": s.hand.category, "rank": s.rank}
                    for s in result
                ],
                "winners": winners,
                "tie": len(winners) > 1,
            }
        )
        return
    from rich.table import Table

    table = Table()
    for col in ("player", "dice", "hand", "rank"):
        table.add_column(col)
    for s in sorted(result, key=lambda s: (s.rank, s.player)):
        table.add_row(str(s.player + 1), " ".join(map(str, s.hand.dice)), s.hand.category.replace("_", " "),
                      str(s.rank))
    out = console()
    out.print(table)
    label = "tie between players" if len(winners) > 1 else "winner: player"
    out.print(f"{label} {', '.join(map(str, winners))}")
