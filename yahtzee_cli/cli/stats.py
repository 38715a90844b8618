"""`yahtzee stats`: records over played games (the library by default); `yahtzee library`: where the
library is and what it holds."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..formats.output import Output
from .app import PlotOpt, app, examples, fail, note, outputs, warn
from .batch import check_paths

EXAMPLES = examples(
    "yahtzee stats",
    "yahtzee stats games/ --player Anna --rules yatzy",
    "yahtzee stats --since 2026-01-01 --json | jq '.players[] | {player, rules, best}'",
    "yahtzee stats night.ndjson --csv > players.csv",
)


def _since(value: str | None) -> str | None:
    if value is None:
        return None
    from datetime import date

    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        fail(f"--since takes a date as YYYY-MM-DD, got {value!r}")


@app.command(short_help="Records over played games.", epilog=EXAMPLES)
@outputs()
def stats(
    files: Annotated[list[str] | None, typer.Argument(
        metavar="FILE|DIR|-", show_default=False,
        help="Game logs or score sheets (files, directories, '-' for stdin).  [default: the library of "
        "played games, see `yahtzee library`]")] = None,
    player: Annotated[list[str] | None, typer.Option(
        "--player", "-p", metavar="NAME", show_default=False,
        help="Only games this player played, and only their records (repeatable; names match whatever "
        "their case or spacing: Mom is mom, but Zoë is not Zoe).")] = None,
    rules: Annotated[list[str] | None, typer.Option(
        "--rules", "-r", metavar="NAME", show_default=False,
        help="Only this rule set (repeatable): a preset name takes every house rule of it, a full label "
        "(as stats prints it, e.g. 'yahtzee (joker=off)') only that one.")] = None,
    since: Annotated[str | None, typer.Option(
        "--since", metavar="YYYY-MM-DD", show_default=False,
        help="Only games started on or after this date (games that carry no date are left out).")] = None,
    json: bool = False,
    csv: bool = False,
    plot: PlotOpt = None,
    *,
    out: Output,
) -> None:
    """Per player and rule set: games, wins, ties, win rate, best (when and where), mean, SD, mean of
    the last 10 games, upper-bonus and Yahtzee rates, mean per box; the rule sets played, most played
    first; head-to-head records; solo games apart. Abandoned and unfinished games are counted apart,
    invalid ones reported on stderr (file:line) and skipped. Exit 0 even then: a damaged game in the
    library must not hide the rest."""
    from ..formats.inputs import read_all
    from ..formats.stats import Filters, csv_rows, render, tally

    if plot is not None:
        from ..formats.plot import check_plot_target

        check_plot_target(plot)
    filters = Filters.of(player or (), rules or (), _since(since))
    if files:
        sources = check_paths(files)
    else:
        from ..formats.inputs import Source
        from ..play.library import files as library_files
        from ..play.library import location

        where = location()
        found = library_files(where.path)
        if not found:
            warn(f"the library ({where.path}) holds no games yet; `yahtzee play` and `yahtzee log new` "
                 "keep games there")
        sources = [Source(str(p), str(p)) for p in found]
    book = tally(read_all(sources), filters, series=plot is not None)
    for sentence in book.unmatched():
        warn(sentence)
    for s in book.skipped:
        warn(f"{s.where}: skipped ({s.reason}): {s.message}")
    if plot is not None:  # (first: with no finished game to draw, one line and nothing on stdout)
        from ..formats.plot import stats_figure

        stats_figure(book, plot)
        note(f"wrote {plot}")
    out.record(book.document)
    out.table(None, csv_rows(book))
    out.text(lambda: render(book) + "\n")  # (names and file names escaped)
    out.flush()


@app.command(short_help="Where played games are kept.", epilog=examples(
    "yahtzee library",
    "YAHTZEE_LIBRARY=~/family-games yahtzee library --json",
))
@outputs()
def library(json: bool = False, *, out: Output) -> None:
    """Where `play` and `log new` keep games when no file is named, what decided it, and how many
    games it holds. Move it with $YAHTZEE_LIBRARY or `path` under `[library]` in the config file."""
    from ..play.library import summary

    s = summary()
    record: dict[str, Any] = {"type": "library", "path": str(s.where.path), "source": s.where.source,
                              "files": len(s.files), "games": s.games, "bytes": s.bytes}
    out.record(record)
    from ..text import escape

    out.text(f"{escape(str(s.where.path))}\n"
             f"  {escape(s.where.origin)}\n"
             f"  {s.games} game{'s' if s.games != 1 else ''} in {len(s.files)} file"
             f"{'s' if len(s.files) != 1 else ''}\n")
    if s.unreadable:  # counted without them: say which, and exit 1 (an unreadable file)
        from ..errors import PROBLEM
        from .app import error

        out.flush()
        for message in s.unreadable[:-1]:
            error(message)
        fail(s.unreadable[-1], PROBLEM)
