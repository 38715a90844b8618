"""`yahtzee replay`: game logs or score sheets as score sheets, standings and the state of each game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import PROBLEM, USAGE
from ..formats.output import Output
from .analyze import GradeWorkersOpt, UntilOpt
from .app import RiskOpt, SetOpt, app, error, examples, fail, note, outputs
from .batch import Backend, BackendOpt, SchedulerOpt, check_paths, check_workers
from .files import GameFilesArg, game_files

if TYPE_CHECKING:
    from ..play.replaying import Shown

CSV_COLUMNS = ("file", "line", "game", "rank", "player", "total", "game_over")


def show(out: Output, g: Shown, batch: bool, verbose: bool, first: bool) -> None:
    """One game's output in the chosen form, for a yahtzee game and a poker match alike."""
    out.record({**g.record, "tally": g.counted.as_dict()})  # the same record alone and in a batch
    out.header(CSV_COLUMNS)
    for rank, name, total in g.ranked:
        out.row([*g.at, rank, name, total, str(g.over).lower()])
    if batch and not verbose:
        state = "" if g.over else "  (unfinished)"
        row = f"{g.where}: " + ", ".join(f"{rank}. {name} {total}" for rank, name, total in g.ranked) + state
        out.text(f"{row}; {g.best}\n" if g.best else row + "\n")
    else:
        body = g.text + (f"\n{g.best}" if g.best else "")
        out.text((f"{'' if first else chr(10)}== {g.where} ==\n" if batch else "") + body + "\n", flush=True)


@app.command(short_help="Score sheets, totals and standings of games.", epilog=examples(
    "yahtzee replay game.json",
    "yahtzee replay game.json --set joker=free",
    "yahtzee replay logs/ --json | jq -c 'select(.type == \"game\") | {file, game, standings}'",
    "yahtzee replay game.json --analyze      (the same as: yahtzee analyze game.json)",
))
@outputs()
def replay(
    files: GameFilesArg = None,
    set_: SetOpt = None,
    until: UntilOpt = None,
    json: bool = False,
    csv: bool = False,
    analyze: Annotated[
        bool,
        typer.Option("--analyze", help="The same as `yahtzee analyze`: grade every decision against optimal play."),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every game's full score sheet in a batch (without it, one line "
                           "of standings per game); with --analyze, every decision.")
    ] = False,
    risk: RiskOpt = None,
    quiet: bool = False,
    workers: GradeWorkersOpt = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    *,
    out: Output,
) -> None:
    """Replay games into score sheets with totals and standings; --set recalculates under other house rules."""
    if risk is not None and not analyze:
        fail("--risk grades against a risk strategy: add --analyze")
    check_workers(workers, backend, scheduler)
    if workers is not None and not analyze and backend is Backend.local:
        fail("--workers grades games on several cores: add --analyze (a replay is quick on one core)")
    sources = check_paths(game_files(files, "replay"))
    if analyze:
        from .analyze import run_analyze

        if set_:
            fail("--analyze grades a game under its own rules; leave out --set", USAGE)
        run_analyze(sources, out, until=until, verbose=verbose, risk=risk, workers=workers, backend=backend.value,
                    scheduler=scheduler)
        return
    from ..play.replaying import Bad, Replaying, ReplayRequest
    from .progress import waiting

    req = ReplayRequest(tuple(set_ or ()), until, workers, backend.value, scheduler, out.is_text, out.json, verbose)
    games = Replaying(sources, req, note, lambda label: waiting(label, quiet=out.quiet))
    shown = 0
    for g in games:
        if isinstance(g, Bad):
            for message in g.messages:
                error(message)
            out.record(g.record)
            continue
        show(out, g, games.batch, verbose, not shown)
        shown += 1
    out.record(games.summary())  # a stream always ends with it
    if games.batch:
        out.text(f"\n{games.tally.render()}\n")
    if games.failed:
        raise typer.Exit(PROBLEM)
