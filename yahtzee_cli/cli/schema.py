"""`yahtzee schema`: the JSON Schema (draft 2020-12) of the game-log and score-sheet formats."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from .app import app, write_json


class SchemaKind(StrEnum):
    log = "log"
    sheet = "sheet"


@app.command()
def schema(
    kind: Annotated[
        SchemaKind | None,
        typer.Argument(help="log (yahtzee-log/1) or sheet (yahtzee-sheet/1); both when omitted.", show_default=False),
    ] = None,
) -> None:
    """Print the JSON Schema of the game-log or score-sheet format (the files in fixtures/schemas)."""
    from ..formats.logs import LOG_FORMAT, SHEET_FORMAT, json_schema

    if kind is None:
        write_json({LOG_FORMAT: json_schema("log"), SHEET_FORMAT: json_schema("sheet")}, indent=True)
    else:
        write_json(json_schema(kind.value), indent=True)
