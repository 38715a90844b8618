"""`yahtzee poker`: rank poker-dice hands (no score sheet) and name the winner(s)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..formats.output import Output
from ..rules.engine import parse_dice
from ..rules.poker import standings
from .app import app, examples, outputs


@app.command(short_help="Rank poker-dice hands.", epilog=examples(
    "yahtzee poker 66622 55543 12345",
    "yahtzee poker 66622 66622 --json",
))
@outputs()
def poker(
    hands: Annotated[
        list[str], typer.Argument(metavar="HAND", help="One hand per player: '66622 55543 ...'.", show_default=False)
    ],
    json: bool = False,
    *,
    out: Output,
) -> None:
    """Rank poker-dice hands: five of a kind > four > full house > straight > three > two pairs > pair."""
    result = standings([parse_dice([h]) for h in hands])
    winners = [s.player + 1 for s in result if s.rank == 1]
    out.record({
        "type": "poker",
        "hands": [{"player": s.player + 1, "dice": list(s.hand.dice), "category": s.hand.category, "rank": s.rank}
                  for s in result],
        "winners": winners,
        "tie": len(winners) > 1,
    })
    from ..formats.render import text

    rows: list[list[object]] = [["player", "dice", "hand", "rank"]]
    for s in sorted(result, key=lambda s: (s.rank, s.player)):
        rows.append([s.player + 1, " ".join(map(str, s.hand.dice)), s.hand.category.replace("_", " "), s.rank])
    label = "tie between players" if len(winners) > 1 else "winner: player"
    out.text(text(rows, left={1, 2}) + f"{label} {', '.join(map(str, winners))}\n")
