"""`yahtzee replay --analyze`: grade every decision of logged games against optimal play.

One game: its grading (text, or one JSON object with every decision). A batch (NDJSON, two games or
more): games are streamed; the text is the per-player totals over all games (with `--verbose`, each
game's grading first); `--json` writes one line per game (its grading with every decision, plus
"game" and "line") and a last line with the totals (`"summary": true`). Invalid games: the
validator's problems on stderr, the other games are still graded, exit 1.
"""

from __future__ import annotations

import sys
from typing import IO

import typer

from .app import PROBLEM, fail, peek_batch, progress_wanted, warn, write_json
from .validate import source_name


def run_analyze(file: IO[bytes], *, until: int | None, json: bool, verbose: bool) -> None:
    from ..errors import GameError, InputError, YahtzeeError
    from ..formats.logs import iter_documents
    from ..play import analyze as A

    name = source_name(file)
    analyzer = A.Analyzer(warn)
    totals = A.Totals()
    failed = shown = 0
    show_progress = progress_wanted()
    try:
        batch, docs = peek_batch(iter_documents(file))
        for doc in docs:
            where = f"{name}:{doc.line}: game {doc.index}"
            if doc.problem is not None:
                sys.stderr.write(f"yahtzee: error: {where}: {doc.problem}\n")
                failed += 1
                continue
            try:
                ga = analyzer.game(doc.data, until=until, game=doc.index if batch else 0,
                                   keep_decisions=json or verbose)
            except GameError as exc:
                for p in exc.problems:
                    sys.stderr.write(f"yahtzee: error: {where}: {p}\n")
                failed += 1
                continue
            except YahtzeeError as exc:
                sys.stderr.write(f"yahtzee: error: {where}: {exc}\n")
                failed += 1
                continue
            except OSError as exc:
                from ..strategy import tablefile as cache

                fail(f"cannot use the cache directory {cache.cache_dir()}: {exc.strerror}", PROBLEM)
            if not batch:
                if json:
                    write_json(A.game_dict(ga))
                else:
                    sys.stdout.write(A.render_game(ga, verbose=verbose) + "\n")
                shown += 1
                continue
            totals.add(ga)
            if json:
                write_json({"line": doc.line, **A.game_dict(ga)})
            elif verbose:
                sys.stdout.write(f"{chr(10) if shown else ''}== {where} ==\n{A.render_game(ga, verbose=True)}\n")
                sys.stdout.flush()
            shown += 1
            if show_progress and shown % 10 == 0:
                sys.stderr.write(f"\ranalyzed {shown} games")
                sys.stderr.flush()
    except InputError as exc:
        fail(f"{name}: {exc}", PROBLEM)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    if show_progress and shown >= 10:
        sys.stderr.write("\r" + " " * 40 + "\r")
    if batch:
        if json:
            write_json(A.totals_dict(totals))
        else:
            sys.stdout.write(("\n" if verbose and shown else "") + A.render_totals(totals) + "\n")
    sys.stdout.flush()
    if failed:
        raise typer.Exit(PROBLEM)
