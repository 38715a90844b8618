"""`yahtzee validate`: every problem of a game log or score sheet (or an NDJSON batch of them)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .app import PROBLEM, JsonOpt, app, fail, progress_wanted


def source_name(stream: object) -> str:
    name = getattr(stream, "name", "-")
    return "<stdin>" if name in ("-", "<stdin>", 0) or not isinstance(name, str) else name


@app.command()
def validate(
    file: Annotated[
        typer.FileBinaryRead,
        typer.Argument(help="A game log or score sheet: one JSON document, or NDJSON (one game per line); "
                            "'-' reads stdin.", show_default=False),
    ],
    json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No output; the exit status says it all.")] = False,
) -> None:
    """Check games against their rules: list every problem with its JSON Pointer (exit 1 if any)."""
    from ..errors import InputError
    from ..formats.jsonio import dumps
    from ..formats.validate import validate_stream

    name = source_name(file)
    out = sys.stdout.buffer
    show_progress = progress_wanted() and not quiet
    games = bad = problems = 0
    unfinished: list[int] = []
    first_error = True
    started = False
    try:
        for rep in validate_stream(file):
            games += 1
            if json and not started:
                out.write(b'{"errors":[')
                started = True
            if rep.problems:
                bad += 1
                problems += len(rep.problems)
                for p in rep.problems:
                    if json:
                        rec = {"game": rep.index, "line": rep.line, "path": p.path, "message": p.message}
                        out.write((b"" if first_error else b",") + dumps(rec))
                        first_error = False
                    elif not quiet:
                        out.write(f"{name}:{rep.line}: game {rep.index}: {p}\n".encode())
            elif not rep.finished:
                unfinished.append(rep.index)
            if show_progress and games % 10000 == 0:
                sys.stderr.write(f"\rvalidated {games} games")
                sys.stderr.flush()
    except InputError as exc:
        if started:
            out.write(b"]}\n")
        fail(f"{name}: {exc}", PROBLEM)
    if show_progress and games >= 10000:
        sys.stderr.write("\r" + " " * 40 + "\r")
    if json:
        out.write(b"]," + dumps({"unfinished": unfinished, "games": games, "valid": bad == 0})[1:] + b"\n")
    elif not quiet:
        out.write((summary(name, games, bad, problems, len(unfinished)) + "\n").encode())
    out.flush()
    if bad:
        raise typer.Exit(PROBLEM)


def summary(name: str, games: int, bad: int, problems: int, unfinished: int) -> str:
    plural = "s" if problems != 1 else ""
    if games == 1:
        if bad:
            return f"{name}: not valid ({problems} problem{plural})"
        return f"{name}: valid" + (", unfinished" if unfinished else "")
    text = f"{name}: {games} games, {games - bad} valid"
    if unfinished:
        text += f" ({unfinished} unfinished)"
    if bad:
        text += f", {bad} not valid ({problems} problem{plural})"
    return text
