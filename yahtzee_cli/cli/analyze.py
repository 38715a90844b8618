"""`yahtzee analyze` (also `yahtzee replay --analyze`): grade every decision of logged games against
optimal play.

One game: its grading as text. A batch (two games or more, from one input or many): games are
streamed; the text is the per-player totals over all games (with `--verbose`, each game's grading
first). `--json` writes one line per game, for one game as for many (`"type": "game"`: its grading
with every decision, and its "file", "line" and "game"; `"type": "problem"` in place of a game that
cannot be graded) and a last line with the totals (`"type": "summary"`). Invalid games: the
validator's problems on stderr, the other games are still graded, exit 1.
"""

from __future__ import annotations

import gc
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import PROBLEM
from ..formats.output import Output
from ..limits import GRADE_PROCESS_BYTES
from .app import PlotOpt, RiskOpt, app, error, examples, fail, note, outputs
from .batch import (
    Backend,
    BackendOpt,
    SchedulerOpt,
    check_paths,
    check_workers,
    peek_batch,
    run_errors,
    workers_option,
)
from .files import GameFilesArg, game_files
from .progress import waiting

UntilOpt = Annotated[
    int | None,
    typer.Option("--until", min=0, metavar="TURNS", help="Only the first TURNS turns of each log.",
                 show_default=False),
]
GradeWorkersOpt = Annotated[int | None, workers_option(GRADE_PROCESS_BYTES)]
WinOpt = Annotated[
    bool, typer.Option("--win/--no-win", help="In games of two or more, value every decision in win probability "
                                             "too: exactly where the rules have exact score distributions "
                                             "(a few ms of CPU a game, once each position's distribution "
                                             "is computed: seconds, once), else estimated from games "
                                             "played on (about 30 s a game of two); --no-win leaves it "
                                             "out.")
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="A table of every decision, turn by turn (each game's, in a batch).")
]


@app.command(short_help="Grade every decision against optimal play.", epilog=examples(
    "yahtzee analyze game.json",
    "yahtzee analyze -v game.json",
    "yahtzee analyze logs/ --json | tail -n 1",
    "yahtzee analyze logs/ --csv",
    "yahtzee analyze --risk -0.02 game.json",
    "yahtzee simulate -n 20 --strategy greedy --seed 1 --log-out - | yahtzee analyze -",
))
@outputs()
def analyze(
    files: GameFilesArg = None,
    until: UntilOpt = None,
    json: bool = False,
    csv: bool = False,
    verbose: VerboseOpt = False,
    risk: RiskOpt = None,
    quiet: bool = False,
    workers: GradeWorkersOpt = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    plot: PlotOpt = None,
    win: WinOpt = True,
    *,
    out: Output,
) -> None:
    """Grade every decision of logged games against optimal play: expected points lost per player
    (--risk: certainty-equivalent points lost against the risk strategy of THETA). --plot draws each
    player's expected final score after every box written (the first games of a batch, up to 6)."""
    check_workers(workers, backend, scheduler)
    if plot is not None:
        from ..formats.plot import check_plot_target

        check_plot_target(plot)
    sources = check_paths(game_files(files, "analyze"))
    run_analyze(sources, out, until=until, verbose=verbose, risk=risk, workers=workers, backend=backend.value,
                scheduler=scheduler, plot=plot, wins=win)


def run_analyze(sources: list[Any], out: Output, *, until: int | None, verbose: bool, risk: float | None = None,
                workers: int | None = None, backend: str = "local", scheduler: str | None = None,
                plot: Path | None = None, wins: bool = True) -> None:
    """Grade the games of `sources` and write them (analyze, replay --analyze)."""
    # Grading thousands of games makes millions of short-lived records, which reference counting frees;
    # the collector's passes over the long-lived objects (the imports, and numba's once the compiled
    # grader is loaded) would cost a fifth of the run: they are frozen out of its way while it lasts.
    gc.freeze()
    try:
        _run_analyze(sources, out, until=until, verbose=verbose, risk=risk, workers=workers, backend=backend,
                     scheduler=scheduler, plot=plot, wins=wins)
    finally:
        gc.unfreeze()


def _run_analyze(sources: list[Any], out: Output, *, until: int | None, verbose: bool, risk: float | None,
                 workers: int | None, backend: str, scheduler: str | None, plot: Path | None, wins: bool) -> None:
    from ..play import analyze as A
    from ..play import report as T
    from ..play.fanout import grade

    totals = A.Totals()
    failed = shown = 0
    drawn: list[dict[str, Any]] = []  # --plot: the games' series
    out.header(A.LOSS_HEAD)
    with run_errors(), waiting("analyzing", quiet=out.quiet) as shown_so_far:
        keep = out.json or verbose or plot is not None
        batch, items = peek_batch(grade(sources, until=until, theta=risk, keep_decisions=keep,
                                        workers=workers, backend=backend, scheduler=scheduler, wins=wins))
        batch = batch or len(sources) > 1
        noted: set[str] = set()
        for g in items:
            for message in g.notes:
                if message not in noted:
                    noted.add(message)
                    note(message)
            if g.fatal is not None:
                fail(g.fatal, PROBLEM)
            ga = g.analysis
            if ga is None:
                for line in g.errors:
                    error(line)
                if g.record is not None:  # the game keeps its place: where it is, no figures
                    rec = g.record
                    out.record(rec)
                    out.row([rec["file"], rec["line"], rec["game"]] + [None] * (len(A.LOSS_HEAD) - 3))
                failed += 1
                continue
            shown += 1
            if shown == 1:
                gc.freeze()  # numba's too, now that the grader is loaded
            totals.add(ga)
            drawing = plot is not None and len(drawn) < PLOT_GAMES
            record = A.game_dict(ga) if out.json or drawing else {}
            if drawing:
                from ..formats.plot import analyze_series

                drawn.append(analyze_series(record))
            out.record(record, finite=True)  # (every number of a grading is checked where it is made)
            out.table(A.LOSS_HEAD, partial(A.loss_rows, ga))
            if not batch:
                out.say(partial(T.render_game, ga, verbose=verbose))
            elif verbose:
                out.say(partial(_headed, ga, g.where, shown > 1))
            shown_so_far.update(shown, None, label="analyzing", unit="games")
    totals.problems = failed
    out.record(A.totals_dict(totals), finite=True)  # a stream always ends with its totals
    if batch:
        out.say(lambda: ("\n" if verbose and shown else "") + T.render_totals(totals))
    out.flush()
    if plot is not None:
        from ..formats.plot import analyze_figure

        analyze_figure(drawn, plot)
        note(f"wrote {plot}")
    if failed:
        raise typer.Exit(PROBLEM)


def _headed(ga: Any, where: str, gap: bool) -> str:
    """A game of a batch in full (-v): its place, then every decision."""
    from ..play.report import render_game

    return f"{chr(10) if gap else ''}== {where} ==\n{render_game(ga, verbose=True)}"


PLOT_GAMES = 6  # panels of `analyze --plot` (the first games of a batch)
