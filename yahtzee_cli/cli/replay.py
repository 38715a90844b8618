"""`yahtzee replay`: game logs or score sheets as score sheets, standings and the state of each game."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .analyze import UntilOpt
from .app import (
    PROBLEM,
    USAGE,
    CsvOpt,
    FilesArg,
    JsonOpt,
    QuietOpt,
    SetOpt,
    app,
    examples,
    fail,
    peek_batch,
    write_json,
)


@app.command(short_help="Score sheets, totals and standings of games.", epilog=examples(
    "yahtzee replay game.json",
    "yahtzee replay game.json --set joker=free",
    "yahtzee replay logs/ --json | jq -c '{file, game, standings}'",
    "yahtzee replay game.json --analyze      (the same as: yahtzee analyze game.json)",
))
def replay(
    files: FilesArg,
    set_: SetOpt = None,
    until: UntilOpt = None,
    json: JsonOpt = False,
    csv: CsvOpt = False,
    analyze: Annotated[
        bool,
        typer.Option("--analyze", help="The same as `yahtzee analyze`: grade every decision against optimal play."),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every game's full score sheet in a batch (without it, one line "
                           "of standings per game); with --analyze, every decision.")
    ] = False,
    quiet: QuietOpt = False,
) -> None:
    """Replay games into score sheets with totals and standings; --set recalculates under other house rules."""
    from .validate import check_paths, csv_row

    if json and csv:
        fail("give --json or --csv, not both")

    sources = check_paths(files)
    if analyze:
        from .analyze import run_analyze

        if set_:
            fail("--analyze grades a game under its own rules; leave out --set", USAGE)
        run_analyze(sources, until=until, json=json, verbose=verbose, quiet=quiet)
        return
    from ..inputs import Game, bad_game_record, read_all
    from ..logs import GameError
    from ..replay import render, replay_dict, replay_game
    from ..rules import RulesError, parse_setting

    try:
        overrides: dict[str, Any] = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc), USAGE)
    failed = 0
    shown = 0
    batch, items = peek_batch(read_all(sources))
    batch = batch or len(sources) > 1
    for item in items:
        if not isinstance(item, Game):
            sys.stderr.write(f"yahtzee: error: {item.source.name}: {item.message}\n")
            if json:
                write_json(bad_game_record(item.source.name, None, [], item.code, item.message))
            failed += 1
            continue
        doc = item.doc
        if doc.problem is not None:
            sys.stderr.write(f"yahtzee: error: {item.where}: {doc.problem}\n")
            if json:
                write_json(bad_game_record(item.file, doc, [doc.problem]))
            failed += 1
            continue
        try:
            rp = replay_game(doc.data, overrides=overrides, until=until)
        except GameError as exc:
            for p in exc.problems:
                sys.stderr.write(f"yahtzee: error: {item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}\n")
            if json:
                write_json(bad_game_record(item.file, doc, exc.problems))
            failed += 1
            continue
        except RulesError as exc:
            fail(f"--set: {exc}", USAGE)
        except ValueError as exc:
            fail(str(exc), USAGE)
        if json:
            write_json({"file": item.file, "line": doc.line, "game": doc.index, **replay_dict(rp)})
        elif csv:
            if not shown:
                sys.stdout.buffer.write(b"file,line,game,rank,name,total,game_over\n")
            for pr in sorted(rp.players, key=lambda pr: pr.rank):
                sys.stdout.buffer.write(csv_row([item.file, doc.line, doc.index, pr.rank, pr.name, pr.total,
                                                 str(rp.game_over).lower()]))
        elif quiet:
            pass
        elif batch and not verbose:
            ranked = sorted(rp.players, key=lambda p: p.rank)
            state = "" if rp.game_over else "  (unfinished)"
            sys.stdout.write(f"{item.where}: " + ", ".join(f"{p.rank}. {p.name} {p.total}" for p in ranked)
                             + state + "\n")
        else:
            text = render(rp)
            if batch:
                text = f"{chr(10) if shown else ''}== {item.where} ==\n{text}"
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        shown += 1
    if failed:
        raise typer.Exit(PROBLEM)
