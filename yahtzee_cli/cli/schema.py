"""`yahtzee schema`: the JSON Schema (draft 2020-12) of the game-log, score-sheet, poker-log and
rules-file formats."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from .app import app, examples, write_json


class SchemaKind(StrEnum):
    log = "log"
    sheet = "sheet"
    poker = "poker"
    rules = "rules"


@app.command(short_help="JSON Schema of logs, sheets and rules files.", epilog=examples(
    "yahtzee schema log > yahtzee-log-1.schema.json",
    "yahtzee schema rules",
))
def schema(
    kind: Annotated[
        SchemaKind | None,
        typer.Argument(metavar="KIND", help="log (yahtzee-log/1), sheet (yahtzee-sheet/1), poker (poker-log/1) or "
                       "rules (a --rules file); every game format when omitted.", show_default=False),
    ] = None,
) -> None:
    """Print the JSON Schema of the game-log, score-sheet, poker-log or rules-file format (the files in
    fixtures/schemas)."""
    from ..logs import FORMAT_OF_KIND, Kind, json_schema, rules_file_schema

    if kind is None:
        write_json({fmt: json_schema(k) for k, fmt in FORMAT_OF_KIND.items()}, indent=True)
    elif kind is SchemaKind.rules:
        write_json(rules_file_schema(), indent=True)
    else:
        game_kind: Kind = "log" if kind is SchemaKind.log else "sheet" if kind is SchemaKind.sheet else "poker"
        write_json(json_schema(game_kind), indent=True)
