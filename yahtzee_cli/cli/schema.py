"""`yahtzee schema`: the JSON Schema (draft 2020-12) of the game-log, score-sheet and poker-log formats."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from .app import app, write_json


class SchemaKind(StrEnum):
    log = "log"
    sheet = "sheet"
    poker = "poker"


@app.command()
def schema(
    kind: Annotated[
        SchemaKind | None,
        typer.Argument(help="log (yahtzee-log/1), sheet (yahtzee-sheet/1) or poker (poker-log/1); all when omitted.",
                       show_default=False),
    ] = None,
) -> None:
    """Print the JSON Schema of the game-log, score-sheet or poker-log format (the files in fixtures/schemas)."""
    from ..logs import FORMAT_OF_KIND, json_schema

    if kind is None:
        write_json({fmt: json_schema(k) for k, fmt in FORMAT_OF_KIND.items()}, indent=True)
    else:
        write_json(json_schema(kind.value), indent=True)
