"""`yahtzee analyze` (also `yahtzee replay --analyze`): grade every decision of logged games against
optimal play.

One game: its grading (text, or one JSON object with every decision). A batch (two games or more,
from one input or many): games are streamed; the text is the per-player totals over all games (with
`--verbose`, each game's grading first); `--json` writes one line per game (its grading with every
decision, and its "file", "line" and "game") and a last line with the totals (`"summary": true`).
Invalid games: the validator's problems on stderr, the other games are still graded, exit 1.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .app import (
    PROBLEM,
    FilesArg,
    JsonOpt,
    QuietOpt,
    RiskOpt,
    app,
    examples,
    fail,
    peek_batch,
    progress_wanted,
    warn,
    write_json,
)

UntilOpt = Annotated[
    int | None,
    typer.Option("--until", min=0, metavar="TURNS", help="Only the first TURNS turns of each log.",
                 show_default=False),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="A table of every decision, turn by turn (each game's, in a batch).")
]


@app.command(short_help="Grade every decision against optimal play.", epilog=examples(
    "yahtzee analyze game.json",
    "yahtzee analyze -v game.json",
    "yahtzee analyze logs/ --json | tail -n 1",
    "yahtzee analyze --risk -0.02 game.json",
    "yahtzee simulate -n 20 --strategy greedy --seed 1 --log-out - | yahtzee analyze -",
))
def analyze(
    files: FilesArg,
    until: UntilOpt = None,
    json: JsonOpt = False,
    verbose: VerboseOpt = False,
    risk: RiskOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Grade every decision of logged games against optimal play: expected points lost per player
    (--risk: certainty-equivalent points lost against the risk strategy of THETA)."""
    from .validate import check_paths

    run_analyze(check_paths(files), until=until, json=json, verbose=verbose, quiet=quiet, risk=risk)


def run_analyze(sources: list[Any], *, until: int | None, json: bool, verbose: bool, quiet: bool = False,
                risk: float | None = None) -> None:
    from ..errors import GameError, YahtzeeError
    from ..formats.inputs import Game, bad_game_record, read_all
    from ..play import analyze as A

    analyzer = A.Analyzer(warn, theta=risk)
    totals = A.Totals()
    failed = shown = 0
    show_progress = progress_wanted() and not quiet
    batch, items = peek_batch(read_all(sources))
    batch = batch or len(sources) > 1
    try:
        for item in items:
            if not isinstance(item, Game):
                sys.stderr.write(f"yahtzee: error: {item.source.name}: {item.message}\n")
                if json and batch:
                    write_json(bad_game_record(item.source.name, None, [], item.code, item.message))
                failed += 1
                continue
            doc = item.doc
            if doc.problem is not None:
                sys.stderr.write(f"yahtzee: error: {item.where}: {doc.problem}\n")
                if json and batch:
                    write_json(bad_game_record(item.file, doc, [doc.problem]))
                failed += 1
                continue
            try:
                ga = analyzer.game(doc.data, until=until, game=doc.index, file=item.file, line=doc.line,
                                   keep_decisions=json or verbose)
            except GameError as exc:
                for p in exc.problems:
                    sys.stderr.write(f"yahtzee: error: {item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}\n")
                if json and batch:
                    write_json(bad_game_record(item.file, doc, exc.problems))
                failed += 1
                continue
            except YahtzeeError as exc:
                sys.stderr.write(f"yahtzee: error: {item.where}: {exc}\n")
                if json and batch:
                    write_json(bad_game_record(item.file, doc, [], "not-gradable", str(exc)))
                failed += 1
                continue
            except OSError as exc:
                from ..strategy import tablefile as cache

                fail(f"cannot use the cache directory {cache.cache_dir()}: {exc.strerror}", PROBLEM)
            shown += 1
            if not batch:
                if json:
                    write_json(A.game_dict(ga))
                elif not quiet:
                    sys.stdout.write(A.render_game(ga, verbose=verbose) + "\n")
                continue
            totals.add(ga)
            if json:
                write_json(A.game_dict(ga))
            elif verbose and not quiet:
                gap = "\n" if shown > 1 else ""
                sys.stdout.write(f"{gap}== {item.where} ==\n{A.render_game(ga, verbose=True)}\n")
                sys.stdout.flush()
            if show_progress and shown % 10 == 0:
                sys.stderr.write(f"\ranalyzed {shown} games")
                sys.stderr.flush()
    except KeyboardInterrupt:
        fail("interrupted", 130)
    if show_progress and shown >= 10:
        sys.stderr.write("\r" + " " * 40 + "\r")
    if batch or (json and not shown):
        if json:
            write_json(A.totals_dict(totals))
        elif not quiet:
            sys.stdout.write(("\n" if verbose and shown else "") + A.render_totals(totals) + "\n")
    sys.stdout.flush()
    if failed:
        raise typer.Exit(PROBLEM)
