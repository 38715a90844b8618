"""`yahtzee simulate`: Monte Carlo runs of a strategy (or a match of several), reproducible by seed,
on all local cores or a Dask cluster; statistics, a terminal histogram, NDJSON game logs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from ..formats.output import Output
from .app import (
    PlotOpt,
    RulesOpt,
    SetOpt,
    app,
    examples,
    get_rules,
    note,
    outputs,
    progress_wanted,
    warn,
)
from .batch import Backend, BackendOpt, SchedulerOpt
from .progress import waiting

if TYPE_CHECKING:
    from ..play.simulation import Simulation

INTERRUPTED = 130  # exit status after Ctrl-C (the summary of the finished games is still printed)
BUILT_IN = ("optimal", "greedy", "random")


def _complete_strategy(incomplete: str) -> list[str]:
    """Built-in strategies; after a comma (--players), the next seat's."""
    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    names = (*BUILT_IN, "to-win") if head else BUILT_IN  # to-win plays in a match only
    return [prefix + name for name in names if name.startswith(last)]


@app.command(short_help="Play many games by a strategy or a match.", epilog=examples(
    "yahtzee simulate -n 10000 --seed 1",
    "yahtzee simulate --rules yatzy --strategy greedy --json | jq '.seats[0].mean'",
    "yahtzee simulate --players optimal,greedy -n 2000 --csv",
    "yahtzee simulate -S random -n 100 --log-out games.ndjson && yahtzee analyze games.ndjson",
))
@outputs()
def simulate(
    rules: RulesOpt = None,
    set_: SetOpt = None,
    strategy: Annotated[
        str | None,
        typer.Option("--strategy", "-S", metavar="STRATEGY", help="optimal, greedy, random, or a bot as "
                     "module:function (or path/to/bot.py:function).  [default: optimal]", show_default=False,
                     autocompletion=_complete_strategy),
    ] = None,
    players: Annotated[
        str | None,
        typer.Option("--players", metavar="STRATEGY,...", help="A match: one strategy per seat, comma-separated "
                     "(e.g. optimal,greedy; to-win plays to win against the others). "
                     "Reports each seat's win rate.", show_default=False,
                     autocompletion=_complete_strategy),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", metavar="N", help="Games to play.")] = 10_000,
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="SEED", help="Seed of the dice (chosen and printed on stderr when omitted).",
                     show_default=False),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", metavar="N", help="Parallel workers (default: every core; 1 runs "
                     "in-process): threads for optimal, greedy and random, spawned processes for bots.",
                     show_default=False),
    ] = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    log_out: Annotated[
        str | None,
        typer.Option("--log-out", metavar="FILE", help="Write every game as an NDJSON game log (yahtzee-log/1) "
                     "to FILE, or - for stdout (a one-line summary then goes to stderr; the full one with -v). FILE "
                     "is replaced only when the run ends.", show_default=False),
    ] = None,
    json: bool = False,
    csv: bool = False,
    quiet: bool = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="With --log-out -, the full summary on stderr (without it, "
                           "one line).")
    ] = False,
    plot: PlotOpt = None,
    risk: Annotated[
        float | None,
        typer.Option("--risk", metavar="THETA",
                     help="Play the strategy maximising E[exp(THETA * final score)] instead of the mean: "
                     "THETA > 0 seeks variance, < 0 avoids it, 0 is optimal (also as a seat: risk=THETA).",
                     show_default=False),
    ] = None,
    *,
    out: Output,
) -> None:
    """Simulate games: mean, SD, percentiles, bonus rates, per-box means, a histogram; win rates in a match."""
    rs = get_rules(rules, set_)
    from ..play.simulation import SimulationRequest, run

    req = SimulationRequest(strategy, players, risk, games, seed, workers, backend.value, scheduler, log_out, plot,
                            out.json or out.rows)
    with waiting("preparing the strategies", quiet=out.quiet) as shown:
        def progress(done: int, total: int) -> None:
            shown.update(done, total, label="simulating", unit="games")

        sim = run(rs, req, note, progress, _write_logs)
    _print_report(sim, out, log_out, timed=progress_wanted(), verbose=verbose)


def _write_logs(chunk: bytes) -> None:
    """`--log-out -`: the logs are the pipeline's data, on stdout."""
    sys.stdout.buffer.write(chunk)


def _print_report(sim: Simulation, out: Output, log_out: str | None, *, timed: bool, verbose: bool = False) -> None:
    """The summary on stdout (stderr when the logs go to stdout), then the speed, a log that could not
    be finished, and any interruption."""
    if log_out == "-":
        sys.stdout.buffer.flush()
    report = sim.report
    out.record(sim.record)
    from ..play.report import SEAT_COLUMNS

    out.table(SEAT_COLUMNS, sim.rows)
    if log_out == "-":  # (never with --json or --csv) the logs are the pipeline's data
        if not verbose:  # one line of summary beside them
            note(sim.line)
        elif not out.silent:
            from ..text import escape_lines

            sys.stderr.write(escape_lines(sim.text))
            sys.stderr.flush()
    else:
        out.text(sim.text, flush=True)
    if timed and report.seconds > 0:
        note(f"{report.games:,} games in {report.seconds:.1f} s ({report.games / report.seconds:,.0f} games/s)")
    if sim.log_error is not None:
        raise sim.log_error
    if report.interrupted:
        warn(f"interrupted: the summary covers the {report.games:,} games finished of {report.games_requested:,}")
        raise typer.Exit(INTERRUPTED)
