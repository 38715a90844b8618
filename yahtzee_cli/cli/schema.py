"""`yahtzee schema`: the JSON Schema (draft 2020-12) of the game-log, score-sheet and rules-file formats."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from .app import app, examples, write_json


class SchemaKind(StrEnum):
    log = "log"
    sheet = "sheet"
    rules = "rules"


@app.command(short_help="JSON Schema of logs, sheets and rules files.", epilog=examples(
    "yahtzee schema log > yahtzee-log-1.schema.json",
    "yahtzee schema rules",
))
def schema(
    kind: Annotated[
        SchemaKind | None,
        typer.Argument(metavar="KIND", help="log (yahtzee-log/1), sheet (yahtzee-sheet/1) or rules (a --rules "
                       "file); log and sheet when omitted.", show_default=False),
    ] = None,
) -> None:
    """Print the JSON Schema of the game-log, score-sheet or rules-file format."""
    from ..logs import LOG_FORMAT, SHEET_FORMAT, json_schema, rules_file_schema

    if kind is None:
        write_json({LOG_FORMAT: json_schema("log"), SHEET_FORMAT: json_schema("sheet")}, indent=True)
    elif kind is SchemaKind.rules:
        write_json(rules_file_schema(), indent=True)
    else:
        write_json(json_schema("log" if kind is SchemaKind.log else "sheet"), indent=True)
