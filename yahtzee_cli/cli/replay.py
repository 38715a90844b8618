"""`yahtzee replay`: game logs or score sheets as score sheets, standings and the state of each game."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .analyze import GradeWorkersOpt, UntilOpt
from .app import (
    PROBLEM,
    USAGE,
    Backend,
    BackendOpt,
    CsvOpt,
    FilesArg,
    JsonOpt,
    QuietOpt,
    RiskOpt,
    SchedulerOpt,
    SetOpt,
    app,
    check_workers,
    error,
    examples,
    fail,
    note,
    peek_batch,
    write_json,
)

CSV_HEAD = b"file,line,game,rank,player,total,game_over\n"


@app.command(short_help="Score sheets, totals and standings of games.", epilog=examples(
    "yahtzee replay game.json",
    "yahtzee replay game.json --set joker=free",
    "yahtzee replay logs/ --json | jq -c 'select(.type == \"game\") | {file, game, standings}'",
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
    risk: RiskOpt = None,
    quiet: QuietOpt = False,
    workers: GradeWorkersOpt = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
) -> None:
    """Replay games into score sheets with totals and standings; --set recalculates under other house rules."""
    from .validate import check_paths, csv_row

    if json and csv:
        fail("give --json or --csv, not both")

    if risk is not None and not analyze:
        fail("--risk grades against a risk strategy: add --analyze")
    check_workers(workers, backend, scheduler)
    if workers is not None and not analyze and backend is Backend.local:
        fail("--workers grades games on several cores: add --analyze (a replay is quick on one core)")
    sources = check_paths(files)
    if analyze:
        from .analyze import run_analyze

        if set_:
            fail("--analyze grades a game under its own rules; leave out --set", USAGE)
        run_analyze(sources, until=until, json=json, verbose=verbose, quiet=quiet, risk=risk, workers=workers,
                    backend=backend.value, scheduler=scheduler, csv=csv)
        return
    from ..errors import RulesError, YahtzeeError
    from ..formats.inputs import Game, bad_game_record
    from ..formats.poker_log import render as render_match
    from ..formats.replay import game_record, render
    from ..formats.tallies import Tally
    from ..play.fanout import replayed
    from ..play.odds import game_odds
    from ..rules.engine import parse_setting
    from ..text import escape_lines

    try:
        overrides: dict[str, Any] = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc), USAGE)
    failed = 0
    shown = 0
    tally = Tally()  # a batch ends with a summary per rule set and player (wins, ties, best, mean, personal bests)
    try:
        batch, items = peek_batch(replayed(sources, overrides=overrides, until=until, backend=backend.value,
                                           scheduler=scheduler, workers=workers))
    except YahtzeeError as exc:
        fail(str(exc), exc.exit_status)
    batch = batch or len(sources) > 1
    out = sys.stdout

    def emit(record: dict[str, Any], counted: Any, ranked: list[tuple[int, str, int]], over: bool,
             at: tuple[Any, int, int], where: str, text: str, best: str, shown: int) -> None:
        """One game's output in the chosen form, for a yahtzee game and a poker match alike; `best` is
        a solo player's personal-best remark, `at` the game's file, line and number."""
        if json:  # the same record for a game alone and in a batch (formats.replay.game_record)
            write_json({**record, "tally": counted.as_dict()})
        elif csv:
            if not shown:
                sys.stdout.buffer.write(CSV_HEAD)
            for rank, name, total in ranked:
                sys.stdout.buffer.write(csv_row([*at, rank, name, total, str(over).lower()]))
        elif quiet:
            pass
        elif batch and not verbose:
            row = standings_row(where, ranked, over)
            out.write(escape_lines(row if not best else f"{row[:-1]}; {best}\n"))
        else:
            body = text + (f"\n{best}" if best else "")
            out.write(escape_lines((f"{chr(10) if shown else ''}== {where} ==\n" if batch else "") + body + "\n"))
            out.flush()

    def standings_row(where: str, ranked: list[tuple[int, str, int]], over: bool) -> str:
        state = "" if over else "  (unfinished)"
        return f"{where}: " + ", ".join(f"{rank}. {name} {total}" for rank, name, total in ranked) + state + "\n"

    for done in items:
        item = done.item
        if not isinstance(item, Game):
            error(f"{item.source.name}: {item.message}")
            if json:
                write_json(bad_game_record(item.source.name, None, [], item.code, item.message))
            failed += 1
            continue
        doc = item.doc
        where = item.where
        if doc.problem is not None:
            error(f"{where}: {doc.problem}")
            if json:
                write_json(bad_game_record(item.file, doc, [doc.problem]))
            failed += 1
            continue
        head = {"file": item.file, "line": doc.line, "game": doc.index}
        if done.poker:
            if overrides or until is not None:
                fail("a poker-dice match has no house-rule settings or turns: leave out --set and --until", USAGE)
            match, problems = done.match, done.problems
            if match is None or problems:
                for p in problems:
                    error(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}")
                if json:
                    write_json(bad_game_record(item.file, doc, problems))
                failed += 1
                continue
            ranks = match.ranks()
            counted = tally.add([(p, match.wins[p], ranks[p]) for p in match.players], match.over)
            ranked = sorted(((ranks[p], p, match.wins[p]) for p in match.players), key=lambda r: r[0])
            emit({"type": "game", **head, **match.as_dict()}, counted, ranked, match.over,
                 (item.file, doc.line, doc.index), where,
                 render_match(match) if not (json or csv or quiet or (batch and not verbose)) else "", "", shown)
            shown += 1
            continue
        if done.rules_error is not None:
            fail(f"--set: {done.rules_error}", USAGE)
        if done.until_error is not None:
            fail(f"--until: {done.until_error}", USAGE)
        rp = done.replay
        if rp is None:  # not a valid game
            for p in done.problems:
                error(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}")
            if json:
                write_json(bad_game_record(item.file, doc, done.problems))
            failed += 1
            continue
        text_view = not (json or csv or quiet or (batch and not verbose))
        chances = game_odds(rp, note) if json or (text_view and not rp.game_over) else None
        counted = tally.add([(p.name, p.total, p.rank) for p in rp.players], rp.game_over, rp.rules.record())
        ranked = [(p.rank, p.name, p.total) for p in sorted(rp.players, key=lambda p: p.rank)]
        best = ""
        if batch and counted.solo and counted.running_best is not None:
            best = (f"personal best: {counted.running_best} (new)" if counted.personal_best
                    else f"personal best so far: {counted.running_best}")
        emit(game_record(item.file, doc.line, doc.index, rp, chances), counted, ranked, rp.game_over,
             (item.file, doc.line, doc.index), where, render(rp, chances) if text_view else "", best, shown)
        shown += 1
    if json:  # a stream always ends with its summary, whatever the number of games
        write_json({"type": "summary", **tally.as_dict(), "problems": failed})
    elif batch and not (csv or quiet):
        out.write(escape_lines(f"\n{tally.render()}\n"))
    if failed:
        raise typer.Exit(PROBLEM)
