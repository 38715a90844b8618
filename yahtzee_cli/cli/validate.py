"""`yahtzee validate`: every problem of game logs and score sheets, across any number of inputs."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..errors import PROBLEM
from ..formats.output import Output
from ..formats.output import csv_row as csv_row  # re-exported: the one CSV row writer
from ..limits import VALIDATE_PROCESS_BYTES
from .app import app, error, examples, outputs, progress_wanted
from .batch import Backend, BackendOpt, FilesArg, SchedulerOpt, check_paths, check_workers, run_errors, workers_option

EXAMPLES = examples(
    "yahtzee validate game.json",
    "yahtzee validate fixtures/logs/ more/*.ndjson",
    "cat a.json b.json | yahtzee validate -",
    "yahtzee validate --json games/ | jq -r '.errors[].code' | sort | uniq -c",
)


@app.command(short_help="Check games against their rules.", epilog=EXAMPLES)
@outputs(silences="rows")
def validate(
    files: FilesArg,
    json: bool = False,
    csv: bool = False,
    quiet: bool = False,
    workers: Annotated[int | None, workers_option(VALIDATE_PROCESS_BYTES)] = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    *,
    out: Output,
) -> None:
    """Check games against their rules: every problem with its file:line and JSON Pointer (exit 1 if any)."""
    from ..formats.batch import Invalid, Unfinished, check_job
    from ..formats.inputs import Unreadable
    from ..play.fanout import run_batch

    check_workers(workers, backend, scheduler)
    sources = check_paths(files)
    show_progress = progress_wanted() and not quiet
    games = bad = problems = unreadable = 0
    unfinished: list[dict[str, Any]] = []
    errors = out.array({"type": "validation"}, "errors")
    out.header(["file", "line", "game", "path", "code", "message"])

    def emit(rec: dict[str, Any], text: str | None = None) -> None:
        if errors is not None:
            errors.add(rec)
        out.row(rec.values())
        if text is not None:
            out.line(text)

    with run_errors():
        for checked in run_batch(check_job, sources, workers=workers, backend=backend.value, scheduler=scheduler):
            for item in checked.found:
                if isinstance(item, Unreadable):
                    unreadable += 1
                    error(f"{item.source.name}: {item.message}")
                    emit({"file": item.source.name, "line": None, "game": None, "path": "", "code": item.code,
                          "message": item.message})
                elif isinstance(item, Invalid):
                    bad += 1
                    problems += len(item.problems)
                    for line, p in item.problems:
                        emit({"file": item.file, "line": line, "game": item.game, "path": p.path, "code": p.code,
                              "message": p.message}, f"{item.file}:{line}: game {item.game}: {p}")
                elif isinstance(item, Unfinished):
                    unfinished.append({"file": item.file, "line": item.line, "game": item.game})
            before = games
            games += checked.games
            if show_progress and games // 10000 > before // 10000:
                sys.stderr.write(f"\rvalidated {games} games")
                sys.stderr.flush()
    if show_progress and games >= 10000:
        sys.stderr.write("\r" + " " * 40 + "\r")
    valid = bad == 0 and unreadable == 0
    if errors is not None:
        errors.close({"unfinished": unfinished, "files": len(sources), "games": games, "valid": valid})
    elif games or len(sources) > 1:
        name = sources[0].name if len(sources) == 1 else f"{len(sources)} files"
        out.line(summary(name, games, bad, problems, len(unfinished), unreadable))
    out.flush()
    if not valid:
        raise typer.Exit(PROBLEM)


def summary(name: str, games: int, bad: int, problems: int, unfinished: int, unreadable: int = 0) -> str:
    plural = "s" if problems != 1 else ""
    if games == 1 and not unreadable:
        if bad:
            return f"{name}: not valid ({problems} problem{plural})"
        return f"{name}: valid" + (", unfinished" if unfinished else "")
    text = f"{name}: {games} game{'s' if games != 1 else ''}, {games - bad} valid"
    if unfinished:
        text += f" ({unfinished} unfinished)"
    if bad:
        text += f", {bad} not valid ({problems} problem{plural})"
    if unreadable:
        text += f", {unreadable} input{'s' if unreadable != 1 else ''} unreadable"
    return text
